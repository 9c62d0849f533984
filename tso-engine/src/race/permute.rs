//! The race data with its threads renamed, for thread symmetry (`store/symmetry.rs`).
//!
//! Everything here that names a thread is renamed by the same permutation as the
//! state's thread list: the index of each thread's clocks, every component inside every
//! clock (threads' present, release-fence and relaxed-acquire clocks, and the release
//! clocks of synchronisation locations and of messages), the thread of every recorded access (per-byte
//! histories and object-wide ones), and the `writers` mask. Nothing else in the race
//! data depends on thread numbers: synchronisation keys and histories are by object
//! and offset (objects are renamed by the canonical form itself), and clock values and
//! epochs are per-thread counters that move with their thread. So the renamed data
//! relates every access, clock and epoch as before, and a thread's future accesses are
//! judged the same: renaming commutes with every operation of `RaceState` (each treats
//! thread ids only as indices and compares them only for equality).
//!
//! `RaceState` is taken apart field by field (no `..`), so a field added later does not
//! compile here until it is renamed too.

use super::shadow::Shadow;
use super::sorted::SortedMap;
use super::{Cell, RaceState, ThreadClocks, VectorClock};
use std::sync::Arc;

impl RaceState {
    /// This data with thread `t` renamed `new_of[t]` (`new_of` a permutation of the
    /// state's threads; threads the data has no clock for keep their number).
    pub(crate) fn with_threads_renamed(&self, new_of: &[u32]) -> RaceState {
        let RaceState {
            threads,
            sync,
            messages,
            shadow,
            pending,
            rebuilt,
            writers,
        } = self;
        let rename = |t: u32| new_of.get(t as usize).copied().unwrap_or(t);
        let clock = |c: &VectorClock| {
            let mut out = VectorClock::default();
            for (k, v) in c.components() {
                out.set(rename(k), v);
            }
            out
        };
        // Normally one clock per thread; a thread renamed past the data's own length
        // leaves default clocks below it, as `thread` would.
        let len = (0..threads.len() as u32)
            .map(|t| rename(t) as usize + 1)
            .fold(threads.len(), usize::max);
        let mut renamed_threads = vec![Arc::<ThreadClocks>::default(); len];
        for (old, t) in threads.iter().enumerate() {
            renamed_threads[rename(old as u32) as usize] = Arc::new(ThreadClocks {
                now: clock(&t.now),
                fence_release: t.fence_release.as_ref().map(clock),
                acquired_relaxed: clock(&t.acquired_relaxed),
            });
        }
        let cell = |c: &Cell| -> Cell {
            c.iter()
                .map(|a| super::Access {
                    tid: rename(a.tid),
                    ..*a
                })
                .collect()
        };
        let sync = SortedMap::from_sorted(sync.iter().map(|(&k, c)| (k, clock(c))).collect());
        let messages = SortedMap::from_sorted(
            messages
                .iter()
                .map(|(&k, list)| (k, list.iter().map(|c| c.as_ref().map(clock)).collect()))
                .collect(),
        );
        let shadow = SortedMap::from_sorted(
            shadow
                .iter()
                .map(|(&o, s)| (o, Arc::new(s.map_cells(&cell))))
                .collect(),
        );
        let pending = SortedMap::from_sorted(pending.iter().map(|(&o, c)| (o, cell(c))).collect());
        // Bit `u` of `writers` is thread `u`'s; threads from 64 on always may write, so a
        // thread renamed from there below 64 gets its bit. Bits of no thread stay.
        let renamed_writers = if *writers == u64::MAX {
            u64::MAX
        } else {
            let n = threads.len().max(new_of.len()) as u32;
            let mut w = if n >= 64 { 0 } else { writers & (!0u64 << n) };
            for old in 0..n {
                let new = rename(old);
                if new < 64 && (old >= 64 || writers & (1 << old) != 0) {
                    w |= 1 << new;
                }
            }
            w
        };
        RaceState {
            threads: Arc::new(renamed_threads),
            sync,
            messages,
            shadow,
            pending,
            rebuilt: *rebuilt,
            writers: renamed_writers,
        }
    }
}

impl Shadow {
    /// These runs with each history mapped by `f`.
    fn map_cells(&self, f: &impl Fn(&Cell) -> Cell) -> Shadow {
        let runs = self
            .runs()
            .iter()
            .map(|r| super::shadow::Run {
                start: r.start,
                end: r.end,
                cell: f(&r.cell),
                raced: r.raced,
            })
            .collect();
        Shadow::from_runs(runs).expect("the runs of a shadow are ordered")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::MemOrder;
    use crate::race::tests::key as bytes;

    /// Main starts threads 1 to 3; thread 1 publishes a write of object 7 with a
    /// release store that thread 2 acquires; thread 3 reads object 8 unordered. `t`
    /// names the threads (`t(1)` is thread 1's number).
    fn history(t: impl Fn(u32) -> u32) -> RaceState {
        let mut r = RaceState::new();
        for k in 1..=3 {
            r.spawn(0, t(k));
        }
        r.access(t(1), 7, 0, 4, true, false, None);
        r.atomic_store(t(1), (9, 0), MemOrder::Release);
        r.access(t(1), 9, 0, 4, true, true, None);
        r.access(t(2), 9, 0, 4, false, true, None);
        r.atomic_load(t(2), (9, 0), MemOrder::Acquire);
        r.access(t(3), 8, 0, 4, false, false, None);
        r.fence(t(3), MemOrder::Release);
        r
    }

    #[test]
    fn renaming_the_data_is_running_the_renamed_threads() {
        // Threads 1 and 3 trade places (main stays).
        let new_of = [0, 3, 2, 1];
        let renamed = history(|k| k).with_threads_renamed(&new_of);
        let as_run = history(|k| new_of[k as usize]);
        assert_eq!(bytes(&renamed), bytes(&as_run));
        // The distinction is real: the data not renamed is another state.
        assert_ne!(bytes(&history(|k| k)), bytes(&as_run));
        // And the renamed data judges the renamed threads' next accesses the same:
        // thread 2 (renamed 2) acquired thread 1's write (renamed 3), thread 3
        // (renamed 1) did not.
        for (original, image) in [(2, 2), (3, 1)] {
            let mut a = history(|k| k);
            let mut b = renamed.clone();
            let race_a = a.access(original, 7, 0, 4, false, false, None);
            let race_b = b.access(image, 7, 0, 4, false, false, None);
            assert_eq!(race_a.is_some(), original == 3);
            assert_eq!(
                race_b.map(|r| r.first.tid),
                race_a.map(|r| new_of[r.first.tid as usize])
            );
        }
    }

    #[test]
    fn writers_move_with_their_threads() {
        let mut r = history(|k| k);
        r.set_writers(0b0010); // thread 1 alone
        let renamed = r.with_threads_renamed(&[0, 3, 2, 1]);
        assert_eq!(renamed.writers() & 0b1111, 0b1000);
    }
}
