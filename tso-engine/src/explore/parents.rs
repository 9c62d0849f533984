//! The search tree: for every stored state, the state it was first reached from and
//! the move that reached it. Counterexamples are read back from it, so the search
//! never keeps whole paths.

use super::Move;
use crate::state::ThreadId;

/// Id of a stored state (see `store::split_id`).
pub type StateId = u32;

#[derive(Clone, Copy)]
struct Parent {
    parent: StateId,
    tid: ThreadId,
    /// Offset in `choices` of this move's choices: a length, then the values.
    choices: u64,
}

/// Parent records by shard and index in the shard (see `store::split_id`).
#[derive(Default)]
pub struct Parents {
    by_state: Vec<Vec<Parent>>,
    choices: Vec<u32>,
}

const ROOT: StateId = StateId::MAX;
const UNKNOWN: Parent = Parent {
    parent: ROOT,
    tid: 0,
    choices: 0,
};

impl Parents {
    /// Record the root.
    pub fn root(&mut self, id: StateId) {
        self.choices.push(0);
        self.set_record(id, UNKNOWN);
    }

    /// Record that `id` was reached from `parent` by `mv`.
    pub fn set(&mut self, id: StateId, parent: StateId, mv: &Move) {
        let rec = Parent {
            parent,
            tid: mv.tid,
            choices: self.choices.len() as u64,
        };
        self.choices.push(mv.choices.len() as u32);
        self.choices.extend_from_slice(&mv.choices);
        self.set_record(id, rec);
    }

    fn set_record(&mut self, id: StateId, rec: Parent) {
        let (shard, at) = crate::store::split_id(id);
        if self.by_state.len() <= shard {
            self.by_state.resize_with(shard + 1, Vec::new);
        }
        let v = &mut self.by_state[shard];
        if v.len() <= at {
            v.resize(at + 1, UNKNOWN);
        }
        v[at] = rec;
    }

    fn get(&self, id: StateId) -> Option<&Parent> {
        let (shard, at) = crate::store::split_id(id);
        self.by_state.get(shard)?.get(at)
    }

    /// The moves from the root to `id`.
    pub fn path_to(&self, mut id: StateId) -> Vec<Move> {
        let mut path = Vec::new();
        while let Some(p) = self.get(id) {
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
        self.by_state
            .iter()
            .map(|v| v.capacity() * std::mem::size_of::<Parent>())
            .sum::<usize>()
            + self.choices.capacity() * 4
    }
}
