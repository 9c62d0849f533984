//! Replays a prefix of choices, then picks 0 for new ones, recording what was asked.

use crate::natives::{ChoiceKind, Chooser};

#[derive(Default)]
pub struct ScriptChooser {
    script: Vec<(u32, u32)>,
    taken: Vec<(u32, u32)>,
}

impl ScriptChooser {
    pub fn reset(&mut self, script: &[(u32, u32)]) {
        self.script.clear();
        self.script.extend_from_slice(script);
        self.taken.clear();
    }
    pub fn from_choices(choices: &[u32]) -> ScriptChooser {
        ScriptChooser {
            script: choices.iter().map(|&c| (c, u32::MAX)).collect(),
            taken: Vec::new(),
        }
    }
    /// (choice, arity) for each choice made.
    pub fn taken(&self) -> &[(u32, u32)] {
        &self.taken
    }
}

impl Chooser for ScriptChooser {
    fn choose(&mut self, n: usize, _kind: ChoiceKind) -> usize {
        let i = self.taken.len();
        let c = self
            .script
            .get(i)
            .map(|s| s.0)
            .unwrap_or(0)
            .min(n as u32 - 1);
        self.taken.push((c, n as u32));
        c as usize
    }
}
