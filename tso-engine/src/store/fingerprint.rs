//! One key for a state, for whoever needs to compare states outside the state store:
//! the robustness check (TSO states against SC states), the interpreter's loop
//! detection (`interp/cycle.rs`) and tests.
//!
//! A fingerprint is the state's canonical serialisation (`canon.rs`: objects renamed by
//! a fixed traversal, no thread symmetry, no output) as one byte string, each chunk
//! preceded by its length, so the concatenation is prefix-free: two states have equal
//! fingerprints exactly when their canonical chunks are equal.

use crate::ir::Program;
use crate::state::State;

use super::canon::{Canonicalizer, Chunk};

/// A state's canonical serialisation as one byte string ([`Fingerprinter`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(Vec<u8>);

impl Fingerprint {
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Computes [`Fingerprint`]s; keeps its scratch space from one state to the next.
pub struct Fingerprinter {
    canon: Canonicalizer,
}

impl Fingerprinter {
    /// Fingerprints of states between transitions: live registers only (as the state
    /// store keys them).
    pub fn live_registers() -> Fingerprinter {
        Fingerprinter {
            canon: Canonicalizer::new(),
        }
    }

    /// Fingerprints of states taken in the middle of a transition, where liveness is
    /// not recorded: every register.
    pub fn all_registers() -> Fingerprinter {
        let mut canon = Canonicalizer::new();
        canon.all_registers = true;
        Fingerprinter { canon }
    }

    /// The fingerprint of `st`.
    pub fn of(&mut self, program: &Program, st: &State) -> Fingerprint {
        self.canon.run(program, st, false);
        encode(self.canon.chunks.iter())
    }
}

/// `chunks` as one prefix-free byte string: each chunk's length before its bytes.
fn encode<'a>(chunks: impl Iterator<Item = Chunk<'a>>) -> Fingerprint {
    let mut key = Vec::new();
    for chunk in chunks {
        match chunk {
            Chunk::Bytes(b) => {
                key.extend_from_slice(&(b.len() as u64).to_le_bytes());
                key.extend_from_slice(b);
            }
            // Not produced without a store generation (a fingerprinter's canonicaliser
            // has none); kept exact all the same.
            Chunk::Known(id) => {
                key.extend_from_slice(&u64::MAX.to_le_bytes());
                key.extend_from_slice(&id.to_le_bytes());
            }
        }
    }
    Fingerprint(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(chunks: &[&[u8]]) -> Fingerprint {
        encode(chunks.iter().map(|b| Chunk::Bytes(b)))
    }

    #[test]
    fn chunk_lists_with_the_same_bytes_split_differently_differ() {
        assert_ne!(of(&[b"ab", b"c"]), of(&[b"a", b"bc"]));
        assert_ne!(of(&[b"abc"]), of(&[b"abc", b""]));
        assert_eq!(of(&[b"ab", b"c"]), of(&[b"ab", b"c"]));
    }
}
