//! The successor generator both searches share. It runs a thread's transition under
//! each sequence of choices (a [`Ran`] each, beside the successor it ran into), spares
//! the run of a thread that surely blocks, picks the persistent set, judges what a run
//! gave ([`Outcome`]), and shows transitions and new states to the observers as it
//! stores them ([`Arrival`]), with the successor's sleep set named as the store's
//! representative names threads.
//!
//! The depth-first stack (`dfs`) and the breadth-first level (`search`) only decide in
//! which order states are expanded, where the states and their sleep sets are kept, and
//! how what several workers found is merged.

use super::chooser::{next_script, Choice, Script, ScriptChooser};
use super::footprint::Footprint;
use super::future::Futures;
use super::liveness::Graph;
use super::observers::{absorbed, Found, Observer};
use super::persistent::{self, ThreadRun};
use super::sleep::{self, Sleep};
use super::{Move, Stats};
use crate::error::Failure;
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId};
use crate::store::{Canonicalizer, Inserted, Scratch, StateStore};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// What running one choice variant of a thread's transition gave, beside the
/// successor state it ran into. The successor is the caller's own local, not a field
/// here: a state moved into a struct and out again is copied twice per variant.
pub(crate) struct Ran {
    pub(crate) result: Result<Step, Failure>,
    pub(crate) mv: Move,
    /// Stores its flush choices left delayed (`Chooser::delayed`).
    pub(crate) delayed: u64,
}

/// One choice variant kept whole, to be stored later (`Expander::variants`).
pub(crate) struct Variant {
    pub(crate) ran: Ran,
    pub(crate) succ: State,
}

/// What a variant's run means to a search.
pub(crate) enum Outcome {
    /// The thread could not move.
    Blocked,
    /// The thread moved, but its path ends here: pruned, or an error an observer
    /// absorbed (`Observer::absorbs`).
    DeadEnd,
    /// An error.
    Error(Found),
    /// A successor to store.
    Progress,
}

impl Outcome {
    /// The thread could move (`Observer::expanded`'s `any_enabled`).
    pub(crate) fn moved(&self) -> bool {
        !matches!(self, Outcome::Blocked)
    }
}

/// What storing a successor gave.
pub(crate) enum Arrival {
    /// A transition observer ended the path (`Outcome::DeadEnd` or `Outcome::Error`);
    /// nothing was stored.
    Observed(Outcome),
    /// The new state holds an error.
    Failed(Found),
    /// Stored: `ins` says whether it is new (then the successor is now the store's
    /// representative). `sleep` names threads as the representative does; `permuted`
    /// says the representative orders threads differently.
    Stored {
        ins: Inserted,
        sleep: Sleep,
        permuted: bool,
        /// A new state whose error an observer absorbed: never expanded.
        dead_end: bool,
        /// A new state that a limit stops the search at.
        limit: Option<String>,
    },
}

/// The store a search keeps its states in, and how.
pub(crate) struct Storage<'s> {
    pub(crate) store: &'s StateStore,
    pub(crate) include_output: bool,
    /// Sleep sets are on and states are stored up to thread symmetry: sleep sets are
    /// renamed (`sleep::renamed`).
    pub(crate) renames: bool,
}

/// One worker's generator: the machine, the observers, and its scratch space.
pub(crate) struct Expander<'a, 'p> {
    pub(crate) machine: &'a Machine<'p>,
    pub(crate) observers: &'a [&'a dyn Observer],
    pub(crate) chooser: ScriptChooser,
    pub(crate) canon: Canonicalizer,
    pub(crate) scratch: Scratch,
    /// Scratch of `Machine::normalise_join_slots`.
    pub(crate) join_keys: crate::store::symmetry::Keys,
}

/// Which reduction a search asked for `por` uses: persistent sets (with the program's
/// static futures) when the options ask for them, else sleep sets (true).
pub(crate) fn reduction(machine: &Machine<'_>, por: bool) -> (Option<Futures>, bool) {
    let persistent = (por && machine.opts.uses_persistent_sets()).then(|| Futures::new(machine));
    let sleep_sets = por && persistent.is_none();
    (persistent, sleep_sets)
}

/// The figures a search ends with: its store's, the machine's, and the time since
/// `start`; `beside` is what the search keeps beside the store, in bytes.
pub(crate) fn finish_stats(
    stats: &mut Stats,
    machine: &Machine<'_>,
    store: &StateStore,
    start: Instant,
    beside: usize,
) {
    stats.states = store.states() as u64;
    stats.stored_bytes = (store.bytes() + beside) as u64;
    stats.contention = store.contention();
    stats.symmetry = machine.opts.symmetry.then(|| store.symmetry_groups());
    stats.time = start.elapsed();
    stats.peak_rss = stats.peak_rss.max(crate::resources::peak_rss());
    stats.instructions = machine.instructions.load(Ordering::Relaxed);
}

impl<'a, 'p> Expander<'a, 'p> {
    pub(crate) fn new(machine: &'a Machine<'p>, observers: &'a [&'a dyn Observer]) -> Self {
        Expander {
            machine,
            observers,
            chooser: ScriptChooser::default(),
            canon: Canonicalizer::for_search(&machine.opts),
            scratch: Scratch::default(),
            join_keys: Default::default(),
        }
    }

    /// Runs `tid`'s transition from `st` into `succ` (a copy of `st`) with the choices
    /// of `script` (0 for choices past it); with `touched`, the run is recorded and what
    /// it touched added there. Returns what the run gave and the next script (None:
    /// this was the last variant).
    #[inline]
    pub(crate) fn variant(
        &mut self,
        st: &State,
        succ: &mut State,
        tid: ThreadId,
        script: &[Choice],
        touched: Option<&mut Footprint>,
    ) -> (Ran, Option<Script>) {
        self.chooser.reset(script);
        let result = match touched {
            Some(touched) => {
                let (result, f) =
                    self.machine
                        .run_transition_recorded(st, succ, tid, &mut self.chooser);
                touched.union_owned(f);
                result
            }
            None => self
                .machine
                .run_transition(succ, tid, &mut self.chooser, None),
        };
        let ran = Ran {
            result,
            mv: self.chooser.made(tid),
            delayed: self.chooser.delayed(),
        };
        (ran, next_script(self.chooser.taken()))
    }

    /// Every choice variant of `tid`'s transition from `st` (see [`Self::variant`]).
    pub(crate) fn variants(
        &mut self,
        st: &State,
        tid: ThreadId,
        mut touched: Option<&mut Footprint>,
    ) -> Vec<Variant> {
        let mut variants = Vec::new();
        let mut script = Script::new();
        loop {
            let mut succ = st.clone();
            let (ran, next) = self.variant(st, &mut succ, tid, &script, touched.as_deref_mut());
            variants.push(Variant { ran, succ });
            match next {
                Some(s) => script = s,
                None => return variants,
            }
        }
    }

    /// Whether `tid`'s transition from `state` surely blocks at once
    /// (`Machine::blocks_at_once`, checked on every state by the test observer
    /// `roundtrip::BlockedCheck`), so it need not run: it makes no choice, so its one
    /// variant blocks, and a blocked run leaves nothing but its discarded copy and a
    /// footprint (dropped: a thread none of whose variants can move gets none).
    pub(crate) fn skips_blocked(&self, state: &State, tid: ThreadId) -> bool {
        let skip = self.machine.blocks_at_once(state, tid);
        if skip {
            self.machine.skip_blocked_run();
        }
        skip
    }

    /// What the run of a variant of `tid` gave, to the search: an error is blamed on
    /// `tid` unless it names its thread, and is a dead end when an observer absorbs it.
    pub(crate) fn judge(&self, result: Result<Step, Failure>, tid: ThreadId) -> Outcome {
        match result {
            Err(failure) => {
                let thread = failure.thread.or(Some(tid));
                self.error(Found::new(failure, thread))
            }
            Ok(Step::Blocked | Step::Await) => Outcome::Blocked,
            Ok(Step::Pruned) => Outcome::DeadEnd,
            Ok(Step::Progress) => Outcome::Progress,
        }
    }

    fn error(&self, found: Found) -> Outcome {
        if absorbed(self.observers, &found) {
            Outcome::DeadEnd
        } else {
            Outcome::Error(found)
        }
    }

    /// The transition observers on `tid`'s transition to `succ` (a sleeping thread's
    /// too: not stored, but seen like any other): `DeadEnd` or `Error`, if any.
    pub(crate) fn observe_transition(&self, tid: ThreadId, succ: &State) -> Option<Outcome> {
        let found = self
            .observers
            .iter()
            .find_map(|o| o.transition(tid, succ))?;
        Some(self.error(found))
    }

    /// The observers on a state all of whose threads have run: an error of the state
    /// itself (a deadlock), unless absorbed.
    pub(crate) fn judge_expanded(&self, st: &State, any_enabled: bool) -> Option<Found> {
        self.observers
            .iter()
            .find_map(|o| o.expanded(st, any_enabled))
            .filter(|f| !absorbed(self.observers, f))
    }

    /// The initial state, stored already, to the observers: an error in it, unless
    /// absorbed (then nothing is searched).
    pub(crate) fn judge_initial(&self, initial: &State) -> Option<Option<Found>> {
        let found = self.observers.iter().find_map(|o| o.new_state(initial))?;
        Some((!absorbed(self.observers, &found)).then_some(found))
    }

    /// A transition from `from` by `tid` reached `succ`, which gets `sleep`: show it to
    /// the observers and store it (`graph`: the liveness graph, when it is kept).
    pub(crate) fn arrive(
        &mut self,
        at: &Storage<'_>,
        from: u32,
        tid: ThreadId,
        succ: &mut State,
        sleep: Sleep,
        mut graph: Option<&mut Graph>,
    ) -> Arrival {
        if let Some(outcome) = self.observe_transition(tid, succ) {
            if let (Outcome::DeadEnd, Some(g)) = (&outcome, graph.as_deref_mut()) {
                g.end(from);
            }
            return Arrival::Observed(outcome);
        }
        if self.machine.normalise_join_slots(succ, &mut self.join_keys) {
            // A moved handle changes the order in which `main` reaches the workers:
            // the incremental check hardly ever passes then (on `mcs4.c`, never), so
            // it is not run. Only its cost changes: the numbering is a full one.
            self.canon.skip_base_once();
        }
        let ins = at.store.insert_state(
            &mut self.canon,
            &mut self.scratch,
            self.machine.program,
            succ,
            at.include_output,
        );
        if let Some(g) = graph.as_deref_mut() {
            g.edge(from, ins.id);
        }
        let (sleep, permuted) = if at.renames {
            // Name threads as the representative does (`sleep::renamed`).
            let order = self.canon.thread_order();
            let permuted = order.iter().enumerate().any(|(i, &t)| i as ThreadId != t);
            (sleep::renamed(sleep, order), permuted)
        } else {
            (sleep, false)
        };
        let mut dead_end = false;
        let mut limit = None;
        if ins.new {
            self.canon.to_representative(succ);
            if let Some(found) = self.observers.iter().find_map(|o| o.new_state(succ)) {
                if !absorbed(self.observers, &found) {
                    return Arrival::Failed(found);
                }
                if let Some(g) = graph {
                    g.end(ins.id);
                }
                dead_end = true;
            }
            let states = at.store.states() as u64;
            limit = self.observers.iter().find_map(|o| o.stored(states));
        }
        Arrival::Stored {
            ins,
            sleep,
            permuted,
            dead_end,
            limit,
        }
    }

    /// The persistent set at `st` (`persistent::choose`: None, expand every thread),
    /// running the threads it asks about with every choice variant; with `keep`, what
    /// they reached is returned by thread, else it is generated again when expanded.
    pub(crate) fn persistent_set(
        &mut self,
        futures: &Futures,
        st: &State,
        keep: bool,
    ) -> (Option<u64>, Vec<Option<Vec<Variant>>>) {
        let mut ran: Vec<Option<Vec<Variant>>> = Vec::new();
        if keep {
            ran.resize_with(st.threads.len(), || None);
        }
        let machine = self.machine;
        let set = persistent::choose(machine, futures, st, &mut |tid| {
            let mut run = ThreadRun::default();
            let variants = self.variants(st, tid, Some(&mut run.footprint));
            for v in &variants {
                match &v.ran.result {
                    Ok(Step::Blocked | Step::Await) => {}
                    Ok(Step::Progress) => {
                        run.enabled = true;
                        run.advances |=
                            persistent::advances(futures, st.thread(tid), v.succ.thread(tid));
                    }
                    _ => run.enabled = true,
                }
            }
            if keep {
                ran[tid as usize] = Some(variants);
            }
            run
        });
        (set, ran)
    }
}
