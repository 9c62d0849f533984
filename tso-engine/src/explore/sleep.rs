//! Sleep sets with a state cache (Godefroid, "Partial-Order Methods for the
//! Verification of Concurrent Systems", ch. 5 and 6): partial-order reduction that
//! keeps every reachable state. A state is expanded in thread order; the successor by
//! thread t gets as its sleep set the threads of the state's own sleep set and the
//! threads expanded before t whose transitions are independent of t's (their
//! footprints, all choice variants together, see `footprint`). A sleeping thread is not
//! expanded: the state it leads to is reached through the other order. A state reached
//! again with a sleep set lacking threads it was expanded without is expanded again for
//! those threads, and keeps the intersection. So the stored states are exactly those
//! of the full search; only transitions into known states are skipped. Both searches
//! still run every sleeping thread (not storing what it reaches), which keeps
//! deadlock detection (a sleeping thread is enabled), errors inside transitions and
//! the transition observers exact.
//!
//! A sleep set is a bitmask of thread ids; threads from 64 on never sleep.

use super::footprint::Footprint;
use crate::state::ThreadId;

pub(crate) type Sleep = u64;

/// Is `t` in `set`?
#[inline]
pub(crate) fn contains(set: Sleep, t: ThreadId) -> bool {
    t < 64 && set & (1 << t) != 0
}

/// Which threads to expand at a state: all but its sleep set (first expansion), or
/// only those its stored sleep set lost (a revisit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expand {
    AllAwake,
    Only(Sleep),
}

impl Expand {
    pub(crate) fn includes(self, sleep: Sleep, t: ThreadId) -> bool {
        match self {
            Expand::AllAwake => !contains(sleep, t),
            Expand::Only(set) => contains(set, t),
        }
    }
}

/// The sleep set of the successors by `t` of a state expanded with `sleep` for the
/// threads `expand` names, where `footprints[u]` is thread u's footprint there (None:
/// u did not run or cannot move): the sleepers and the threads expanded before t in
/// this expansion, when independent of t. (On a revisit, the threads expanded the
/// first time do not count: their successors were given sleep sets holding threads
/// that are only now expanded.)
pub(crate) fn child_sleep(
    sleep: Sleep,
    expand: Expand,
    footprints: &[Option<Footprint>],
    t: ThreadId,
) -> Sleep {
    let Some(Some(ft)) = footprints.get(t as usize) else {
        return 0;
    };
    let mut child = 0;
    for (u, fu) in footprints.iter().enumerate().take(64) {
        let u = u as ThreadId;
        if u == t || !(contains(sleep, u) || (u < t && expand.includes(sleep, u))) {
            continue;
        }
        if fu.as_ref().is_some_and(|fu| fu.independent(ft)) {
            child |= 1 << u;
        }
    }
    child
}

/// Whether the reduction still pays, from what it has done so far. Sleep sets save
/// storing a sleeping thread's successor (hashing and interning it, most of a
/// transition's cost) and pay for recording every transition's footprint and for
/// re-expanding states reached again with smaller sets. Where threads share most of
/// what they touch (under TSO a store is dependent on every load of its object by
/// another thread: the delayed-flush encoding lets that load decide the flush), little
/// sleeps and the search got slower (mutex3 under TSO: 12 % fewer stored transitions,
/// 45 % more CPU; about one sleeping thread per five transitions run, where SC
/// mutex3, which got faster, has one per two; the detached ticket and MCS locks
/// under TSO, one per four to five, were 15-25 % slower). So once there are too few
/// sleeping threads per transition run (`pays`), the search stops recording and
/// gives every new successor an
/// empty sleep set, which is always a valid one: states already stored keep their
/// sets, and a state reached again with a smaller set is still expanded again for
/// the missing threads. The decision depends only on counts of the search, which are
/// the same on every run (breadth-first: taken between levels).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Payoff {
    /// Transitions run while recording footprints (expanded, sleeping and revisits).
    pub(crate) run: u64,
    /// Threads asleep where a state was expanded: their successors were not stored
    /// (depth-first: nor run, when the thread's footprint was carried there).
    pub(crate) slept: u64,
}

/// Transitions run before the first judgement of [`Payoff`], and the share of them
/// that must have found a thread asleep by then.
const FIRST_SAMPLE: u64 = 1024;
const FIRST_SHARE: u64 = 8;
/// Transitions run before the final judgement, and the share needed from then on.
const SAMPLE: u64 = 16384;
const SHARE: u64 = 3;

impl Payoff {
    /// Two judgements. A short first sample stops the programs where almost nothing
    /// sleeps: recording costs about a third of a transition under TSO (the runtime
    /// reports what each call did to the buffers), so a 16,384-transition sample alone
    /// made small fenced mutex programs 10-20 % slower (callgrind, peterson_fenced and
    /// dekker_fenced under TSO, about one sleeper per 12-16 transitions from the first
    /// thousand on). The early share is low because the first thousand transitions
    /// show less independence than the rest (mutex3 and ticket4x2 under SC: about one
    /// per five, then one per two or three).
    pub(crate) fn pays(&self) -> bool {
        (self.run < FIRST_SAMPLE || self.slept * FIRST_SHARE >= self.run)
            && (self.run < SAMPLE || self.slept * SHARE >= self.run)
    }
}

/// `set` of a state whose threads the store put in the order `order` (thread `i` of
/// the representative is thread `order[i]` of the state, `Canonicalizer::thread_order`).
///
/// Thread symmetry stores states up to a permutation π of threads, and the searches
/// hold representatives, so a sleep set must name threads as the representative does.
/// Sound because π maps the transition system onto itself (`store/symmetry.rs`): a
/// sleep set valid at s is, renamed by π, valid at π(s), since π maps each thread's
/// transition at s and every path after it to the renamed thread's at π(s), and
/// independence to independence. Where π is not unique (threads in identical states),
/// each choice names a thread whose successors are the same states up to renaming,
/// which the store does not tell apart.
pub(crate) fn renamed(set: Sleep, order: &[ThreadId]) -> Sleep {
    if set == 0 {
        return 0;
    }
    let mut out = 0;
    for (new, &old) in order.iter().enumerate().take(64) {
        if contains(set, old) {
            out |= 1 << new;
        }
    }
    out
}

/// The threads a state stored with sleep set `old` must be expanded for when it is
/// reached again with `new`, and the set it keeps.
pub(crate) fn revisit(old: Sleep, new: Sleep) -> (Sleep, Sleep) {
    (old & !new, old & new)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(obj: u32) -> Option<Footprint> {
        let mut f = Footprint::default();
        f.add(obj, 0, 4, true);
        Some(f)
    }

    #[test]
    fn independent_earlier_threads_and_sleepers_sleep() {
        // Threads 0 and 1 write different objects; 2 writes 0's object.
        let fps = vec![write(1), write(2), write(1)];
        let all = Expand::AllAwake;
        assert_eq!(child_sleep(0, all, &fps, 0), 0);
        assert_eq!(child_sleep(0, all, &fps, 1), 0b001);
        assert_eq!(child_sleep(0, all, &fps, 2), 0b010);
        // A sleeper after t stays asleep when independent.
        assert_eq!(child_sleep(0b100, all, &fps, 1), 0b101);
    }

    #[test]
    fn a_revisit_puts_to_sleep_only_what_it_expands_itself() {
        // Thread 0 was expanded the first time; 1 and 2 only now.
        let fps = vec![write(1), write(2), write(3)];
        assert_eq!(child_sleep(0, Expand::Only(0b110), &fps, 2), 0b010);
    }

    #[test]
    fn a_thread_that_did_not_run_never_sleeps() {
        let fps = vec![None, write(2)];
        assert_eq!(child_sleep(0b01, Expand::AllAwake, &fps, 1), 0);
    }

    #[test]
    fn a_revisit_expands_what_the_new_set_lacks() {
        assert_eq!(revisit(0b110, 0b011), (0b100, 0b010));
        assert_eq!(revisit(0b010, 0b011), (0, 0b010));
    }

    #[test]
    fn renaming_follows_the_representative_order() {
        // Representative thread 1 is the state's thread 2, and 2 is 1.
        assert_eq!(renamed(0b100, &[0, 2, 1]), 0b010);
        assert_eq!(renamed(0b011, &[0, 2, 1]), 0b101);
        assert_eq!(renamed(0b110, &[0, 1, 2]), 0b110);
        assert_eq!(renamed(0, &[0, 2, 1]), 0);
    }

    #[test]
    fn the_reduction_stops_when_few_transitions_sleep() {
        let p = |run, slept| Payoff { run, slept }.pays();
        assert!(p(FIRST_SAMPLE - 1, 0), "too early to judge");
        assert!(!p(FIRST_SAMPLE, FIRST_SAMPLE / FIRST_SHARE - 1));
        assert!(p(FIRST_SAMPLE, FIRST_SAMPLE / FIRST_SHARE));
        assert!(
            p(SAMPLE - 1, SAMPLE / FIRST_SHARE),
            "the final sample is not complete"
        );
        assert!(p(SAMPLE * SHARE, SAMPLE));
        assert!(!p(SAMPLE * SHARE, SAMPLE - 1));
    }

    #[test]
    fn expansion_sets() {
        assert!(Expand::AllAwake.includes(0b01, 1));
        assert!(!Expand::AllAwake.includes(0b01, 0));
        assert!(Expand::Only(0b10).includes(0, 1));
        assert!(!Expand::Only(0b10).includes(0, 0));
        assert!(Expand::AllAwake.includes(!0, 70));
        assert!(!Expand::Only(!0).includes(0, 70));
    }
}
