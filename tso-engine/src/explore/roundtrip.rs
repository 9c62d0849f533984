//! A check that rebuilding states from the store loses nothing (for tests): every state
//! it is shown is stored, rebuilt (`StateStore::decode`), serialised again, and both
//! serialisations must be equal byte for byte; then every transition of every thread,
//! under every choice script, must lead from the rebuilt state where it leads from the
//! original. Used as `ExploreOptions::observer`, so it sees every new state of a search.

use super::chooser::ScriptChooser;
use super::{advance_script, StateCheck};
use crate::error::{ErrorKind, Failure};
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId, ThreadStatus};
use crate::store::{Canonicalizer, Scratch, StateStore};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub struct DecodeCheck {
    /// The first state shown: the initial state (what `StateStore::decode` rebuilds from).
    base: std::sync::OnceLock<State>,
    include_output: bool,
    store: StateStore,
    work: Mutex<(Canonicalizer, Scratch)>,
    checked: AtomicU64,
    successors: AtomicU64,
}

impl DecodeCheck {
    /// `include_output`: the search collects outcomes (output is then state).
    pub fn new(include_output: bool) -> DecodeCheck {
        DecodeCheck {
            base: Default::default(),
            include_output,
            store: StateStore::new(),
            work: Mutex::new((Canonicalizer::new(), Scratch::default())),
            checked: AtomicU64::new(0),
            successors: AtomicU64::new(0),
        }
    }

    /// States checked so far.
    pub fn checked(&self) -> u64 {
        self.checked.load(Ordering::Relaxed)
    }

    /// Successor pairs compared so far.
    pub fn successors(&self) -> u64 {
        self.successors.load(Ordering::Relaxed)
    }

    /// The canonical bytes of `st`, chunk by chunk (no cached chunk ids).
    fn bytes(&self, machine: &Machine<'_>, st: &State) -> Vec<Vec<u8>> {
        super::held::serialised(machine, false, self.include_output, st)
    }

    fn rebuild(&self, machine: &Machine<'_>, st: &State) -> Result<State, String> {
        let base = self.base.get_or_init(|| st.clone());
        let mut guard = self.work.lock().unwrap_or_else(|e| e.into_inner());
        let (canon, scratch) = &mut *guard;
        let ins = self
            .store
            .insert_state(canon, scratch, machine.program, st, self.include_output);
        self.store
            .decode(
                ins.id,
                base,
                st.ext.as_deref(),
                machine.program,
                canon,
                scratch,
            )
            .ok_or_else(|| "the stored state cannot be rebuilt".to_string())
    }

    fn compare(&self, machine: &Machine<'_>, st: &State) -> Result<(), String> {
        let mut rebuilt = self.rebuild(machine, st)?;
        rebuilt.output = st.output.clone();
        let (a, b) = (self.bytes(machine, st), self.bytes(machine, &rebuilt));
        if a != b {
            return Err(format!(
                "serialising the rebuilt state gives other bytes:\n{a:?}\n{b:?}"
            ));
        }
        let mut chooser = ScriptChooser::default();
        for tid in 0..st.threads.len() as ThreadId {
            if st.thread(tid).status != ThreadStatus::Running {
                continue;
            }
            let mut script = Vec::new();
            loop {
                let mut from_original = st.clone();
                chooser.reset(&script);
                let r1 = machine.run_transition(&mut from_original, tid, &mut chooser, None);
                let taken1 = chooser.taken().to_vec();
                let mut from_rebuilt = rebuilt.clone();
                chooser.reset(&script);
                let r2 = machine.run_transition(&mut from_rebuilt, tid, &mut chooser, None);
                if chooser.taken() != taken1.as_slice() {
                    return Err(format!("thread {tid} made other choices after {script:?}"));
                }
                let same = match (&r1, &r2) {
                    (Err(x), Err(y)) => x.kind == y.kind,
                    (Ok(Step::Progress), Ok(Step::Progress)) => {
                        self.bytes(machine, &from_original) == self.bytes(machine, &from_rebuilt)
                    }
                    (Ok(Step::Blocked), Ok(Step::Blocked))
                    | (Ok(Step::Pruned), Ok(Step::Pruned)) => true,
                    _ => false,
                };
                if !same {
                    return Err(format!(
                        "thread {tid} under choices {script:?} leads elsewhere from the rebuilt state"
                    ));
                }
                self.successors.fetch_add(1, Ordering::Relaxed);
                match advance_script(&taken1) {
                    Some(s) => script = s,
                    None => break,
                }
            }
        }
        self.checked.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl StateCheck for DecodeCheck {
    fn check(&self, machine: &Machine<'_>, st: &State) -> Result<(), Failure> {
        self.compare(machine, st).map_err(|m| {
            // Not a property of the program: a kind no expected verdict uses.
            Failure::new(ErrorKind::NotRobust, format!("state decoding: {m}"))
        })
    }
}
