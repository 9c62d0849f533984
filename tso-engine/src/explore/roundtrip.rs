//! A check that rebuilding states from the store loses nothing (for tests): every state
//! it is shown is stored, rebuilt (`StateStore::decode`), serialised again, and both
//! serialisations must be equal byte for byte; then every transition of every thread,
//! under every choice script, must lead from the rebuilt state where it leads from the
//! original. Used as `ExploreOptions::observer`, so it sees every new state of a search.
//!
//! Under thread symmetry the rebuilt state is the representative, whose thread `i` is
//! the original's `Canonicalizer::thread_order()[i]`: each thread is compared with its
//! image, by the set of what it can do under all its choice scripts (options may be
//! listed in another order when threads are renumbered). `SymmetryCheck` goes further:
//! it renames the threads of every state by a permutation of its own and requires the
//! same successors, renamed, of each thread and its image, which fails if some thread
//! id is left un-renamed anywhere (memory, extension data, a model's own fields).
//! `BlockedCheck` runs every thread `Machine::blocks_at_once` says blocks (the searches
//! skip running those) and requires it to block.

use super::chooser::{next_script, Script, ScriptChooser};
use super::StateCheck;
use crate::error::{ErrorKind, Failure};
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId};
use crate::store::{Canonicalizer, Scratch, StateStore};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub struct DecodeCheck {
    /// The first state shown: the initial state (what `StateStore::decode` rebuilds from).
    base: std::sync::OnceLock<State>,
    include_output: bool,
    /// Stores states up to thread symmetry when the search does (set on first use).
    store: std::sync::OnceLock<StateStore>,
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
            store: std::sync::OnceLock::new(),
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

    /// The rebuilt state, and which thread of `st` each of its threads is.
    fn rebuild(&self, machine: &Machine<'_>, st: &State) -> Result<(State, Vec<ThreadId>), String> {
        let base = self.base.get_or_init(|| st.clone());
        let mut guard = self.work.lock().unwrap_or_else(|e| e.into_inner());
        let (canon, scratch) = &mut *guard;
        let store = self
            .store
            .get_or_init(|| StateStore::new().with_symmetry(machine.opts.symmetry));
        let ins = store.insert_state(canon, scratch, machine.program, st, self.include_output);
        let order = canon.thread_order().to_vec();
        store
            .decode(
                ins.id,
                base,
                st.ext.as_deref(),
                machine.program,
                canon,
                scratch,
            )
            .map(|rebuilt| (rebuilt, order))
            .ok_or_else(|| "the stored state cannot be rebuilt".to_string())
    }

    fn compare(&self, machine: &Machine<'_>, st: &State) -> Result<(), String> {
        let (mut rebuilt, order) = self.rebuild(machine, st)?;
        rebuilt.output = st.output.clone();
        let (a, b) = (self.bytes(machine, st), self.bytes(machine, &rebuilt));
        if a != b {
            return Err(format!(
                "serialising the rebuilt state gives other bytes:\n{a:?}\n{b:?}"
            ));
        }
        if order.iter().enumerate().any(|(i, &t)| i as ThreadId != t) {
            for (new, &old) in order.iter().enumerate() {
                let bytes = |s: &State| Some(self.bytes(machine, s));
                let x = successors(machine, st, old, bytes);
                let y = successors(machine, &rebuilt, new as ThreadId, bytes);
                if x != y {
                    return Err(format!(
                        "thread {old} does not step like its image {new} in the rebuilt state"
                    ));
                }
                self.successors.fetch_add(x.len() as u64, Ordering::Relaxed);
            }
            self.checked.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        let mut chooser = ScriptChooser::default();
        for tid in 0..st.threads.len() as ThreadId {
            if !st.thread(tid).status.is_running() {
                continue;
            }
            let mut script = Script::new();
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
                    | (Ok(Step::Await), Ok(Step::Await))
                    | (Ok(Step::Pruned), Ok(Step::Pruned)) => true,
                    _ => false,
                };
                if !same {
                    return Err(format!(
                        "thread {tid} under choices {script:?} leads elsewhere from the rebuilt state"
                    ));
                }
                self.successors.fetch_add(1, Ordering::Relaxed);
                match next_script(&taken1) {
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

/// What thread `tid` of `st` can do, over all its choice scripts: a failure's kind, a
/// blocked or pruned step, or the successor as `key` gives it (None: not compared).
fn successors(
    machine: &Machine<'_>,
    st: &State,
    tid: ThreadId,
    key: impl Fn(&State) -> Option<Vec<Vec<u8>>>,
) -> std::collections::BTreeSet<Result<Option<Vec<Vec<u8>>>, String>> {
    let mut out = std::collections::BTreeSet::new();
    if !st.thread(tid).status.is_running() {
        return out;
    }
    let mut chooser = ScriptChooser::default();
    let mut script = Script::new();
    loop {
        let mut next = st.clone();
        chooser.reset(&script);
        let r = machine.run_transition(&mut next, tid, &mut chooser, None);
        out.insert(match r {
            Err(f) => Err(format!("{:?}", f.kind)),
            Ok(Step::Progress) => Ok(key(&next)),
            Ok(Step::Blocked) => Err("blocked".into()),
            Ok(Step::Await) => Err("awaiting".into()),
            Ok(Step::Pruned) => Err("pruned".into()),
        });
        match next_script(chooser.taken()) {
            Some(s) => script = s,
            None => return out,
        }
    }
}

/// A test observer: every state's threads other than `main` renamed in reverse order
/// must step like the originals, renamed. The successors are compared by their bytes
/// without symmetry, after renaming the original's successor the same way (threads it
/// created keep their ids), so a thread id that some part of the state keeps but the
/// renaming misses makes them differ.
#[derive(Default)]
pub struct SymmetryCheck {
    include_output: bool,
    permuted: AtomicU64,
}

impl SymmetryCheck {
    pub fn new(include_output: bool) -> SymmetryCheck {
        SymmetryCheck {
            include_output,
            permuted: AtomicU64::new(0),
        }
    }

    /// States whose renamed copy was compared.
    pub fn permuted(&self) -> u64 {
        self.permuted.load(Ordering::Relaxed)
    }

    fn compare(&self, machine: &Machine<'_>, st: &State) -> Result<(), String> {
        let n = st.threads.len();
        if n < 3 {
            return Ok(());
        }
        // Reverse 1..n; a thread created later keeps its id.
        let reverse = |len: usize| -> Vec<ThreadId> {
            (0..len)
                .map(|t| if t == 0 || t >= n { t } else { n - t })
                .map(|t| t as ThreadId)
                .collect()
        };
        let Some(renamed) = st.permute_threads(&reverse(n)) else {
            return Ok(()); // thread ids that cannot be renamed: symmetry is off here
        };
        let include_output = self.include_output;
        let plain_bytes = |s: &State| super::held::chunks(machine, false, false, include_output, s);
        for t in 1..n as ThreadId {
            let image = reverse(n)[t as usize];
            let x = successors(machine, st, t, |s| {
                let r = s.permute_threads(&reverse(s.threads.len()))?;
                Some(plain_bytes(&r))
            });
            let y = successors(machine, &renamed, image, |s| {
                // Compared only where the original's successor could be renamed.
                s.permute_threads(&reverse(s.threads.len()))?;
                Some(plain_bytes(s))
            });
            if x != y {
                return Err(format!(
                    "thread {t} and its image {image} in the renamed state step differently"
                ));
            }
        }
        self.permuted.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl StateCheck for SymmetryCheck {
    fn check(&self, machine: &Machine<'_>, st: &State) -> Result<(), Failure> {
        self.compare(machine, st)
            .map_err(|m| Failure::new(ErrorKind::NotRobust, format!("thread symmetry: {m}")))
    }
}

/// A test observer: in every state, each thread `Machine::blocks_at_once` says blocks
/// (the searches then skip running it) must block when run, making no choice.
#[derive(Default)]
pub struct BlockedCheck {
    applied: AtomicU64,
}

impl BlockedCheck {
    /// How many times the rule applied (and held).
    pub fn applied(&self) -> u64 {
        self.applied.load(Ordering::Relaxed)
    }
}

impl StateCheck for BlockedCheck {
    fn check(&self, machine: &Machine<'_>, st: &State) -> Result<(), Failure> {
        let mut chooser = ScriptChooser::default();
        for tid in 0..st.threads.len() as ThreadId {
            if !machine.blocks_at_once(st, tid) {
                continue;
            }
            let mut next = st.clone();
            chooser.reset(&[]);
            let r = machine.run_transition(&mut next, tid, &mut chooser, None);
            if !matches!(r, Ok(Step::Blocked)) || !chooser.taken().is_empty() {
                return Err(Failure::new(
                    ErrorKind::NotRobust,
                    format!("blocked shortcut: thread {tid} does not block at once: {r:?}"),
                ));
            }
            self.applied.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}
