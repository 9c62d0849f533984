//! The search tree: for every stored state, the state it was first reached from and
//! the move that reached it. Counterexamples are read back from it, so the search
//! never keeps whole paths.

use super::Move;
use crate::state::ThreadId;

/// Id of a stored state (its index in the store's state table).
pub type StateId = u32;

#[derive(Clone, Copy)]
struct Parent {
    parent: StateId,
    tid: ThreadId,
    /// Offset in `choices` of this move's choices: a length, then the values.
    choices: u64,
}

#[derive(Default)]
pub struct Parents {
    by_state: Vec<Parent>,
    choices: Vec<u32>,
}

const ROOT: StateId = StateId::MAX;

impl Parents {
    /// Record the root (state 0).
    pub fn root(&mut self) {
        self.by_state.push(Parent {
            parent: ROOT,
            tid: 0,
            choices: 0,
        });
        self.choices.push(0);
    }

    /// Record that the state with the next id was reached from `parent` by `mv`.
    pub fn push(&mut self, id: StateId, parent: StateId, mv: &Move) {
        debug_assert_eq!(id as usize, self.by_state.len());
        self.by_state.push(Parent {
            parent,
            tid: mv.tid,
            choices: self.choices.len() as u64,
        });
        self.choices.push(mv.choices.len() as u32);
        self.choices.extend_from_slice(&mv.choices);
    }

    /// The moves from the root to `id`.
    pub fn path_to(&self, mut id: StateId) -> Vec<Move> {
        let mut path = Vec::new();
        while let Some(p) = self.by_state.get(id as usize) {
            if p.parent == ROOT {
                break;
            }
            let at = p.choices as usize;
            let len = self.choices[at] as usize;
            path.push(Move {
                tid: p.tid,
                choices: self.choices[at + 1..at + 1 + len].to_vec(),
            });
            id = p.parent;
        }
        path.reverse();
        path
    }

    pub fn bytes(&self) -> usize {
        self.by_state.capacity() * std::mem::size_of::<Parent>() + self.choices.capacity() * 4
    }
}
