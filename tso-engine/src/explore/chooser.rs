//! The branch points of a transition, typed ([`Choice`]), and the chooser that
//! replays a prefix of them, then picks 0 for new ones, recording what was asked.
//!
//! A path is a list of [`Move`]s: the thread scheduled (the schedule branch), then
//! each choice its transition asked for, in order: its kind, the option taken and how
//! many there were. Replaying a move asks the same choices again, each with its kind.

use super::Move;
use crate::natives::{ChoiceKind, Chooser};
use crate::state::ThreadId;

/// One nondeterministic choice a transition made: what it decided, the option taken,
/// and how many options there were.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub kind: ChoiceKind,
    pub index: u32,
    pub of: u32,
}

/// A sequence of choices to replay.
pub(crate) type Script = Vec<Choice>;

#[derive(Default)]
pub struct ScriptChooser {
    script: Script,
    taken: Script,
    /// Stores left delayed by the flush choices made (see `Chooser::delayed`).
    delayed: u64,
}

impl ScriptChooser {
    pub fn reset(&mut self, script: &[Choice]) {
        self.script.clear();
        self.script.extend_from_slice(script);
        self.taken.clear();
        self.delayed = 0;
    }
    /// Replays the choices `mv` made.
    pub fn replaying(mv: &Move) -> ScriptChooser {
        ScriptChooser {
            script: mv.choices.clone(),
            taken: Vec::new(),
            delayed: 0,
        }
    }
    /// Each choice made since the last `reset`.
    pub fn taken(&self) -> &[Choice] {
        &self.taken
    }
    /// The move by `tid` that made the choices since the last `reset`.
    pub fn made(&self, tid: ThreadId) -> Move {
        Move {
            tid,
            choices: self.taken.clone(),
        }
    }
    /// Stores the flush choices since the last `reset` left delayed.
    pub fn delayed(&self) -> u64 {
        self.delayed
    }
}

impl Chooser for ScriptChooser {
    fn choose(&mut self, n: usize, kind: ChoiceKind) -> usize {
        let of = n as u32;
        // A move replayed from a state it was not made in (the fallback of
        // `symmetric_path::real_path`) may be offered fewer options: it takes the last.
        let index = self
            .script
            .get(self.taken.len())
            .map_or(0, |c| c.index.min(of - 1));
        self.taken.push(Choice { kind, index, of });
        index as usize
    }
    fn delayed(&mut self, n: u32) {
        self.delayed += u64::from(n);
    }
}

/// The next choice script after one that made `taken` choices, in lexicographic order;
/// None when every combination has been tried.
pub(crate) fn next_script(taken: &[Choice]) -> Option<Script> {
    next_in_order(taken, |c| {
        (c.index + 1 < c.of).then_some(Choice {
            index: c.index + 1,
            ..*c
        })
    })
}

/// [`next_script`] for choosers outside the engine, whose choices are (option taken,
/// options) pairs (the TSO runtime's drain orders).
pub fn advance_script(taken: &[(u32, u32)]) -> Option<Vec<(u32, u32)>> {
    next_in_order(taken, |&(c, n)| (c + 1 < n).then_some((c + 1, n)))
}

/// Drops the last choices that took their last option, and moves the one before them
/// to its next (`next` of a choice: None when it took its last).
fn next_in_order<T: Clone>(taken: &[T], next: impl Fn(&T) -> Option<T>) -> Option<Vec<T>> {
    let mut s = taken.to_vec();
    while let Some(c) = s.pop() {
        if let Some(c) = next(&c) {
            s.push(c);
            return Some(s);
        }
    }
    None
}
