//! A check that footprints leave nothing out (for tests): in every state it is shown,
//! two threads whose steps' footprints are independent (`Footprint::independent`, each
//! the union over the step's choice variants, as the reductions take them) must
//! commute. Running one then the other reaches the same states, by their bytes, in
//! either order, or the same errors (an error may move from one step to the other: a
//! thread's end that leaves another running alone runs it on); neither changes what
//! the other's step does when it neither moves nor fails (blocks, awaits or is
//! pruned); and neither makes the other's footprint grow
//! (`Footprint::covers`), since a sleeping thread's footprint is carried past
//! independent steps (`explore/sleep.rs`). Sleep sets, persistent sets and dynamic
//! partial-order reduction all rest on this, so a footprint that misses something a
//! step reads or writes shows here as a pair that does not commute, in a state the
//! search reached, even where no verdict of the test programs changes.
//!
//! Used as `ExploreOptions::observer`, so it sees every new state of a search; states
//! are compared without thread symmetry, so a pair must reach the very same states.

use super::chooser::{next_script, Script, ScriptChooser};
use super::footprint::Footprint;
use super::StateCheck;
use crate::error::{ErrorKind, Failure};
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Default)]
pub struct CommuteCheck {
    include_output: bool,
    pairs: AtomicU64,
}

/// Two steps in one order: the states they reach (by their bytes) or the errors they
/// end in (by kind, whichever step failed); and per move of the first, how the second's
/// variants that neither move nor fail end.
type After = (BTreeSet<Result<Vec<Vec<u8>>, String>>, Vec<Vec<String>>);

/// What one choice variant of a step did: moved to a state, failed (the error's kind),
/// or neither (blocked, awaiting, pruned).
enum Variant {
    Moved(State),
    Failed(String),
    Stayed(String),
}

impl CommuteCheck {
    /// `include_output`: the search collects outcomes (output is then state).
    pub fn new(include_output: bool) -> CommuteCheck {
        CommuteCheck {
            include_output,
            pairs: AtomicU64::new(0),
        }
    }

    /// Pairs of independent steps checked so far.
    pub fn pairs(&self) -> u64 {
        self.pairs.load(Ordering::Relaxed)
    }

    /// The canonical bytes of `st`, without thread symmetry.
    fn bytes(&self, machine: &Machine<'_>, st: &State) -> Vec<Vec<u8>> {
        super::held::chunks(machine, false, false, self.include_output, st)
    }

    fn compare(&self, machine: &Machine<'_>, st: &State) -> Result<(), String> {
        let running: Vec<ThreadId> = (0..st.threads.len() as ThreadId)
            .filter(|&t| st.thread(t).status.is_running())
            .collect();
        let steps: Vec<(Footprint, Vec<Variant>)> =
            running.iter().map(|&t| step(machine, st, t)).collect();
        // Only steps that both go somewhere (a state or an error) form a pair of
        // orders; one that cannot move is checked by its ends below.
        let goes: Vec<bool> = steps
            .iter()
            .map(|(_, v)| v.iter().any(|v| !matches!(v, Variant::Stayed(_))))
            .collect();
        for (i, &p) in running.iter().enumerate() {
            for (j, &q) in running.iter().enumerate().skip(i + 1) {
                if !steps[i].0.independent(&steps[j].0) {
                    continue;
                }
                let (pq, p_stays) = self.after(machine, &steps[i], (q, &steps[j].0), p)?;
                let (qp, q_stays) = self.after(machine, &steps[j], (p, &steps[i].0), q)?;
                if goes[i] && goes[j] && pq != qp {
                    return Err(format!(
                        "threads {p} and {q} have independent footprints but reach other \
                         states or errors in the two orders ({} against {})",
                        pq.len(),
                        qp.len()
                    ));
                }
                // What p does where it does not move is the same after q's moves.
                for (t, stays, first) in [(p, &q_stays, &steps[i].1), (q, &p_stays, &steps[j].1)] {
                    let here: BTreeSet<&String> = first
                        .iter()
                        .filter_map(|v| match v {
                            Variant::Stayed(how) => Some(how),
                            Variant::Moved(_) | Variant::Failed(_) => None,
                        })
                        .collect();
                    if let Some(after) = stays
                        .iter()
                        .find(|s| s.iter().collect::<BTreeSet<_>>() != here)
                    {
                        return Err(format!(
                            "thread {t}'s step does {here:?} here and {after:?} after an \
                             independent step of another thread"
                        ));
                    }
                }
                self.pairs.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// From each state `first`'s variants moved to, the step of `then` (a thread and
    /// its footprint before `first`): the states it reaches (by bytes), and, per such
    /// state, how its variants that do not move end. Its footprint there must be
    /// covered by the one before, unless `first` ended a thread (footprints depend on
    /// how many threads run; the depth-first search then runs sleepers again).
    fn after(
        &self,
        machine: &Machine<'_>,
        (first_touched, first): &(Footprint, Vec<Variant>),
        (then, before): (ThreadId, &Footprint),
        first_tid: ThreadId,
    ) -> Result<After, String> {
        let mut reached = BTreeSet::new();
        let mut stays = Vec::new();
        for v in first {
            let mid = match v {
                Variant::Moved(mid) => mid,
                Variant::Failed(kind) => {
                    reached.insert(Err(kind.clone()));
                    continue;
                }
                Variant::Stayed(_) => continue,
            };
            if !mid.thread(then).status.is_running() {
                return Err(format!(
                    "thread {first_tid}'s step stops thread {then} although their \
                     footprints are independent"
                ));
            }
            let (touched, variants) = step(machine, mid, then);
            if !first_touched.ends_a_thread() && !before.covers(&touched) {
                return Err(format!(
                    "thread {then}'s footprint grows after an independent step of thread \
                     {first_tid}: {touched:?} is not within {before:?}"
                ));
            }
            let mut stayed = Vec::new();
            for w in variants {
                match w {
                    Variant::Moved(end) => {
                        reached.insert(Ok(self.bytes(machine, &end)));
                    }
                    Variant::Failed(kind) => {
                        reached.insert(Err(kind));
                    }
                    Variant::Stayed(how) => stayed.push(how),
                }
            }
            stays.push(stayed);
        }
        Ok((reached, stays))
    }
}

/// Every choice variant of `tid`'s step from `st`, and their footprints united.
fn step(machine: &Machine<'_>, st: &State, tid: ThreadId) -> (Footprint, Vec<Variant>) {
    let mut touched = Footprint::default();
    let mut variants = Vec::new();
    let mut chooser = ScriptChooser::default();
    let mut script = Script::new();
    loop {
        let mut next = st.clone();
        chooser.reset(&script);
        let (r, f) = machine.run_transition_recorded(st, &mut next, tid, &mut chooser);
        touched.union_owned(f);
        variants.push(match r {
            Ok(Step::Progress) => Variant::Moved(next),
            Ok(Step::Blocked) => Variant::Stayed("blocked".into()),
            Ok(Step::Await) => Variant::Stayed("awaiting".into()),
            Ok(Step::Pruned) => Variant::Stayed("pruned".into()),
            Err(f) => Variant::Failed(format!("{:?}", f.kind)),
        });
        match next_script(chooser.taken()) {
            Some(s) => script = s,
            None => return (touched, variants),
        }
    }
}

impl StateCheck for CommuteCheck {
    fn check(&self, machine: &Machine<'_>, st: &State) -> Result<(), Failure> {
        self.compare(machine, st).map_err(|m| {
            // Not a property of the program: a kind no expected verdict uses.
            Failure::new(ErrorKind::NotRobust, format!("commuting steps: {m}"))
        })
    }
}
