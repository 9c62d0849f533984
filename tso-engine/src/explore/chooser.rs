//! Replays a prefix of choices, then picks 0 for new ones, recording what was asked.

use super::Move;
use crate::natives::{ChoiceKind, Chooser};
use crate::state::ThreadId;

/// A sequence of choices to replay: (choice, arity) each.
pub(crate) type Script = Vec<(u32, u32)>;

#[derive(Default)]
pub struct ScriptChooser {
    script: Vec<(u32, u32)>,
    taken: Vec<(u32, u32)>,
    /// Stores left delayed by the flush choices made (see `Chooser::delayed`).
    delayed: u64,
}

impl ScriptChooser {
    pub fn reset(&mut self, script: &[(u32, u32)]) {
        self.script.clear();
        self.script.extend_from_slice(script);
        self.taken.clear();
        self.delayed = 0;
    }
    pub fn from_choices(choices: &[u32]) -> ScriptChooser {
        ScriptChooser {
            script: choices.iter().map(|&c| (c, u32::MAX)).collect(),
            taken: Vec::new(),
            delayed: 0,
        }
    }
    /// (choice, arity) for each choice made.
    pub fn taken(&self) -> &[(u32, u32)] {
        &self.taken
    }
    /// The move by `tid` that made the choices since the last `reset`.
    pub fn made(&self, tid: ThreadId) -> Move {
        Move {
            tid,
            choices: self.taken.iter().map(|c| c.0).collect(),
        }
    }
    /// Stores the flush choices since the last `reset` left delayed.
    pub fn delayed(&self) -> u64 {
        self.delayed
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
    fn delayed(&mut self, n: u32) {
        self.delayed += u64::from(n);
    }
}

/// The next choice script after one that made `taken` choices, in lexicographic order;
/// None when every combination has been tried.
pub fn advance_script(taken: &[(u32, u32)]) -> Option<Script> {
    let mut s = taken.to_vec();
    while let Some((c, n)) = s.pop() {
        if c + 1 < n {
            s.push((c + 1, n));
            return Some(s);
        }
    }
    None
}
