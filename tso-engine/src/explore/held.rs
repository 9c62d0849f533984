//! How a search holds the states it has yet to expand: by their id in the store, and
//! rebuilt from it when they are expanded (`StateStore::decode`), so memory follows the
//! states stored and not the open states times their size. What the canonical form
//! leaves out and a search still needs travels beside the id: the output (shared with
//! the parent until the program prints).
//!
//! States that cannot be rebuilt are held whole, as before: all of them when the
//! initial state cannot be rebuilt to the same bytes, or when races are reported as
//! warnings (a report quotes access sites and object names, which a rebuilt state has
//! lost), and those with
//! extension data whose kind cannot rebuild itself (`ExtState::decode` answers None, or
//! other bytes). Both are found out once per search, on the first state of each sort.

use crate::error::Failure;
use crate::interp::Machine;
use crate::race::RacePolicy;
use crate::state::{ExtState, State};
use crate::store::{Canonicalizer, Chunk, Scratch, StateStore};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// An open state, beside its id.
pub enum Held {
    /// Rebuilt from the store when expanded; the output it printed so far.
    Id(Arc<Vec<u8>>),
    Whole(Box<State>),
}

/// Rebuilds held states: the initial state (what decoding starts from) and whether
/// states can be rebuilt at all.
pub struct Keeper {
    base: State,
    decodable: bool,
    /// A value of the kind of extension data states hold, if that kind rebuilds itself
    /// (set from the first state with extension data).
    ext: OnceLock<Option<Box<dyn ExtState>>>,
}

/// The canonical bytes of `st`, chunk by chunk.
pub(super) fn serialised(
    machine: &Machine<'_>,
    all_registers: bool,
    include_output: bool,
    st: &State,
) -> Vec<Vec<u8>> {
    let mut c = Canonicalizer::new();
    c.all_registers = all_registers;
    c.symmetry = machine.opts.symmetry;
    c.run(machine.program, st, include_output);
    c.chunks
        .iter()
        .map(|ch| match ch {
            Chunk::Bytes(b) => b.to_vec(),
            Chunk::Known(id) => id.to_le_bytes().to_vec(),
        })
        .collect()
}

impl Keeper {
    /// For a search whose store holds `initial` as `id`.
    pub fn new(
        machine: &Machine<'_>,
        store: &StateStore,
        canon: &Canonicalizer,
        scratch: &mut Scratch,
        id: u32,
        initial: &State,
    ) -> Keeper {
        let keeper = Keeper {
            base: initial.clone(),
            decodable: true,
            ext: OnceLock::new(),
        };
        // Race reports under `--races warn` are taken from the states a search expands,
        // and name accesses by their source lines and objects by their names, which a
        // rebuilt state no longer knows (under `deny` a race is a failure, reworded
        // from a replay like any other).
        let decodable = machine.opts.races != RacePolicy::Warn
            && keeper.by_id(initial)
            && store
                .decode(id, initial, keeper.ext(), machine.program, canon, scratch)
                .is_some_and(|mut rebuilt| {
                    rebuilt.output = initial.output.clone();
                    serialised(machine, canon.all_registers, true, &rebuilt)
                        == serialised(machine, canon.all_registers, true, initial)
                });
        Keeper {
            decodable,
            ..keeper
        }
    }

    fn ext(&self) -> Option<&dyn ExtState> {
        self.ext.get().and_then(|e| e.as_deref())
    }

    /// `st` can be held by its id.
    pub fn by_id(&self, st: &State) -> bool {
        if !self.decodable {
            return false;
        }
        let Some(ext) = &st.ext else {
            return true;
        };
        self.ext
            .get_or_init(|| {
                // Pointers stay as they are: only the bytes' round trip is probed.
                let mut bytes = Vec::new();
                ext.serialize(&mut |p| p, &mut bytes);
                let again = ext.decode(&bytes, &mut |p| p)?;
                let mut back = Vec::new();
                again.serialize(&mut |p| p, &mut back);
                (back == bytes).then(|| ext.clone_box())
            })
            .is_some()
    }

    /// Hold `st` until it is expanded.
    pub fn hold(&self, st: State) -> Held {
        if self.by_id(&st) {
            Held::Id(st.output)
        } else {
            Held::Whole(Box::new(st))
        }
    }

    /// The state held as `held`, stored as `id`.
    pub fn rebuild<'h>(
        &self,
        machine: &Machine<'_>,
        store: &StateStore,
        canon: &Canonicalizer,
        scratch: &mut Scratch,
        id: u32,
        held: &'h Held,
    ) -> Result<Cow<'h, State>, Failure> {
        match held {
            Held::Whole(st) => Ok(Cow::Borrowed(st)),
            Held::Id(output) => self
                .rebuild_id(machine, store, canon, scratch, id, output)
                .map(Cow::Owned),
        }
    }

    /// The state stored as `id`, which printed `output` so far (held by id).
    pub fn rebuild_id(
        &self,
        machine: &Machine<'_>,
        store: &StateStore,
        canon: &Canonicalizer,
        scratch: &mut Scratch,
        id: u32,
        output: &Arc<Vec<u8>>,
    ) -> Result<State, Failure> {
        let mut st = store
            .decode(id, &self.base, self.ext(), machine.program, canon, scratch)
            .ok_or_else(|| {
                // Only states of a sort that could be rebuilt are held by id, so this is
                // a checker bug: an error of the tool, never a pass.
                Failure::unsupported(format!(
                    "internal error: stored state {id} could not be rebuilt"
                ))
            })?;
        st.output = output.clone();
        Ok(st)
    }
}
