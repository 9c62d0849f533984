//! How a search holds the states it has yet to expand: by their id in the store, and
//! rebuilt from it when they are expanded (`StateStore::decode`), so memory follows the
//! states stored and not the open states times their size. What the canonical form
//! leaves out and a search still needs travels beside the id: the output (shared with
//! the parent until the program prints).
//!
//! States that cannot be rebuilt are held whole, as before: all of them when the
//! initial state cannot be rebuilt to the same bytes, and those with extension data
//! whose kind cannot rebuild itself (`ExtState::decode` answers None, or other bytes).
//! Both are found out once per search, on the first state of each sort.
//!
//! Race reports (`--races warn`) quote where each access happened and name objects by
//! their own numbers (`node#21->next`), which a rebuilt state has lost: neither is
//! state. A transition from a rebuilt state that finds a race says so
//! (`interp::take_unreported_race`), and the breadth-first search reports it from the
//! original state, which [`Replayer`] rebuilds by replaying the state's path in the
//! search tree from the initial state (keeping the last path it replayed, so the
//! siblings and cousins that follow each other in a level cost a step or two each).
//! The report is the one holding that state whole would give, so it depends only on
//! the search tree, the same for any number of workers. The depth-first search keeps
//! its path whole and holds no state by id under `warn` (it searches breadth-first
//! when the path grows too big).

use super::chooser::ScriptChooser;
use super::Move;
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
    /// Races are reported (`--races warn`) and the search does not report the races of
    /// rebuilt states from replays ([`Keeper::replaying_race_reports`]): states are
    /// held whole.
    whole_for_races: bool,
    /// A value of the kind of extension data states hold, if that kind rebuilds itself
    /// (set from the first state with extension data).
    ext: OnceLock<Option<Box<dyn ExtState>>>,
}

/// The canonical bytes of `st`, chunk by chunk, up to thread symmetry as the search
/// stores states.
pub(super) fn serialised(
    machine: &Machine<'_>,
    all_registers: bool,
    include_output: bool,
    st: &State,
) -> Vec<Vec<u8>> {
    chunks(
        machine,
        machine.opts.symmetry,
        all_registers,
        include_output,
        st,
    )
}

/// The canonical bytes of `st`, chunk by chunk, with thread symmetry as `symmetry` says
/// (the test observers compare states without it, thread by thread).
pub(super) fn chunks(
    machine: &Machine<'_>,
    symmetry: bool,
    all_registers: bool,
    include_output: bool,
    st: &State,
) -> Vec<Vec<u8>> {
    let mut c = Canonicalizer::new();
    c.all_registers = all_registers;
    c.symmetry = symmetry;
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
            whole_for_races: false,
            ext: OnceLock::new(),
        };
        let decodable = keeper.by_id(initial)
            && store
                .decode(id, initial, keeper.ext(), machine.program, canon, scratch)
                .is_some_and(|mut rebuilt| {
                    rebuilt.output = initial.output.clone();
                    serialised(machine, canon.all_registers, true, &rebuilt)
                        == serialised(machine, canon.all_registers, true, initial)
                });
        Keeper {
            decodable,
            // Race reports under `--races warn` are taken from the states a search
            // expands, and name accesses by their source lines and objects by their
            // numbers, which a rebuilt state no longer knows (under `deny` a race is a
            // failure, reworded from a replay like any other).
            whole_for_races: machine.opts.races == RacePolicy::Warn,
            ..keeper
        }
    }

    /// The search reports the races found from rebuilt states through a [`Replayer`],
    /// so race data does not keep states whole.
    pub fn replaying_race_reports(self) -> Keeper {
        Keeper {
            whole_for_races: false,
            ..self
        }
    }

    fn ext(&self) -> Option<&dyn ExtState> {
        self.ext.get().and_then(|e| e.as_deref())
    }

    /// `st` can be held by its id.
    pub fn by_id(&self, st: &State) -> bool {
        if !self.decodable || (self.whole_for_races && st.races.is_some()) {
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

    /// The state stored as `id`, which printed `output` so far (held by id; the hang
    /// check, which does not know it, passes none and gets what the store kept).
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
        // A store that keeps output (outcomes are collected) decoded the state's own;
        // otherwise it is the output of the path that reached it.
        if st.output.is_empty() {
            st.output = output.clone();
        }
        Ok(st)
    }
}

/// Rebuilds original states (with the sites of their accesses and their own object
/// numbers) by replaying paths from the initial state, to report the races found from
/// rebuilt ones (see the module documentation). Each worker has one: it keeps the
/// states along the last path it replayed and replays only past the longest prefix
/// the next path shares with it.
#[derive(Default)]
pub struct Replayer {
    /// The states after each move of the last path replayed.
    path: Vec<(Move, State)>,
    /// Under thread symmetry the search holds representatives, whose thread order the
    /// path's moves follow: each replayed state is put in that order too.
    canon: Canonicalizer,
}

impl Replayer {
    /// Run `mv` again from the original state at the end of `path` (from the initial
    /// state of `keeper`), where a transition from the state rebuilt from the store
    /// found a race: this run reports it (`--races warn`). Its successor is dropped.
    pub fn report_races(
        &mut self,
        machine: &Machine<'_>,
        keeper: &Keeper,
        path: &[Move],
        mv: &Move,
    ) {
        let shared = self
            .path
            .iter()
            .zip(path)
            .take_while(|((done, _), mv)| done == *mv)
            .count();
        self.path.truncate(shared);
        for next in &path[shared..] {
            let mut st = match self.path.last() {
                Some((_, st)) => st.clone(),
                None => keeper.base.clone(),
            };
            if run(machine, &mut st, next).is_err() {
                // Every move of a path in the search tree ran without an error when it
                // was found; a replay that fails reports nothing.
                self.path.clear();
                return;
            }
            if machine.opts.symmetry {
                machine.normalise_join_slots(&mut st, &mut Default::default());
                self.canon.symmetry = true;
                self.canon.run(machine.program, &st, false);
                self.canon.to_representative(&mut st);
            }
            self.path.push((next.clone(), st));
        }
        let mut st = match self.path.last() {
            Some((_, st)) => st.clone(),
            None => keeper.base.clone(),
        };
        let _ = run(machine, &mut st, mv);
        // The original state reports what it finds; it never defers.
        let deferred = crate::interp::take_unreported_race();
        debug_assert!(!deferred, "a replayed state deferred its race report");
    }
}

/// Run `mv` on `st`.
fn run(machine: &Machine<'_>, st: &mut State, mv: &Move) -> Result<(), Failure> {
    let mut chooser = ScriptChooser::replaying(mv);
    machine
        .run_transition(st, mv.tid, &mut chooser, None)
        .map(|_| ())
}
