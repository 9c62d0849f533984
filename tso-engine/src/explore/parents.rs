//! The search tree: for every stored state, the state it was first reached from and
//! the move that reached it. Counterexamples are read back from it, so the search
//! never keeps whole paths.
//!
//! The tree holds one record per stored state, so its moves are kept compact: each
//! choice, with its kind and arity, packed into one word ([`pack`]) when it has fewer
//! than 16,384 options (every flush, wake-up and `__VERIFIER_nondet_*` choice), into
//! three words otherwise. The kind is stored rather than rebuilt by replaying the path:
//! a path read back is then typed at once, and storing it costs no more memory than
//! the untyped index did.

use super::chooser::Choice;
use super::Move;
use crate::natives::ChoiceKind;
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
        for c in &mv.choices {
            pack(c, &mut self.choices);
        }
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
            let mut words = &self.choices[at + 1..];
            path.push(Move {
                tid: p.tid,
                choices: (0..len).map(|_| unpack(&mut words)).collect(),
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

/// Options below this fit one word with their index, kind and arity.
const SMALL: u32 = 1 << 14;
/// Marks a choice kept in three words: this and the kind, then the index, then the
/// arity.
const WIDE: u32 = 1 << 31;

/// Appends `c` to `words`: `kind << 28 | of << 14 | index` when both fit.
fn pack(c: &Choice, words: &mut Vec<u32>) {
    let kind = match c.kind {
        ChoiceKind::Schedule => 0,
        ChoiceKind::BufferFlush => 1,
        ChoiceKind::User => 2,
        ChoiceKind::Wakeup => 3,
        ChoiceKind::SpuriousWakeup => 4,
    };
    if c.index < SMALL && c.of < SMALL {
        words.push(kind << 28 | c.of << 14 | c.index);
    } else {
        words.extend([WIDE | kind, c.index, c.of]);
    }
}

/// The choice [`pack`] put at the start of `words`, which then start after it.
fn unpack(words: &mut &[u32]) -> Choice {
    let w = words[0];
    let (kind, index, of, len) = if w & WIDE == 0 {
        (w >> 28, w & (SMALL - 1), w >> 14 & (SMALL - 1), 1)
    } else {
        (w & !WIDE, words[1], words[2], 3)
    };
    *words = &words[len..];
    let kind = match kind {
        0 => ChoiceKind::Schedule,
        1 => ChoiceKind::BufferFlush,
        2 => ChoiceKind::User,
        3 => ChoiceKind::Wakeup,
        _ => ChoiceKind::SpuriousWakeup,
    };
    Choice { kind, index, of }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_back_with_every_choice_typed() {
        let choice = |kind, index, of| Choice { kind, index, of };
        let moves = [
            Move {
                tid: 1,
                choices: vec![
                    choice(ChoiceKind::BufferFlush, 2, 3),
                    choice(ChoiceKind::User, SMALL - 2, SMALL - 1),
                    choice(ChoiceKind::User, SMALL - 1, SMALL),
                    choice(ChoiceKind::User, 7, u32::MAX),
                    choice(ChoiceKind::SpuriousWakeup, 1, 2),
                ],
            },
            Move {
                tid: 0,
                choices: vec![],
            },
            Move {
                tid: 2,
                choices: vec![
                    choice(ChoiceKind::User, SMALL, SMALL + 1),
                    choice(ChoiceKind::Wakeup, 0, 2),
                ],
            },
        ];
        let mut parents = Parents::default();
        parents.root(0);
        for (i, mv) in moves.iter().enumerate() {
            parents.set(i as StateId + 1, i as StateId, mv);
        }
        assert_eq!(parents.path_to(moves.len() as StateId), moves);
        // A length per move (and the root), a word per small choice, three per wide one.
        let words = 1 + (1 + 1 + 1 + 3 + 3 + 1) + 1 + (1 + 3 + 1);
        assert_eq!(parents.choices.len(), words);
    }
}
