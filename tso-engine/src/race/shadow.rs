//! The access histories of one shared object, as runs of consecutive bytes with the
//! same history. An access usually covers a whole variable, so one run stands for all
//! its bytes: the object is copied when it changes and walked by every serialisation,
//! and a run costs that once where a history per byte costs it per byte. Bytes whose
//! race was reported (`--races warn` reports a location once) are runs marked `raced`,
//! with no history: they are no longer tracked.

use super::Cell;

/// The bytes `start..end` and their history (empty when `raced`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Run {
    pub start: u32,
    pub end: u32,
    pub cell: Cell,
    /// Reported racing: not tracked any more.
    pub raced: bool,
}

impl Clone for Run {
    /// The history copied at once (the derived clone copies accesses one by one; an
    /// object's runs are copied whenever an access changes it).
    fn clone(&self) -> Self {
        Run {
            start: self.start,
            end: self.end,
            cell: Cell::from_slice(&self.cell),
            raced: self.raced,
        }
    }
}

/// Runs sorted by offset, not overlapping; bytes in no run have no history.
#[derive(Clone, Debug, Default)]
pub(super) struct Shadow(Vec<Run>);

impl Shadow {
    /// `runs` must be sorted, non-empty and not overlap.
    pub(super) fn from_runs(runs: Vec<Run>) -> Option<Shadow> {
        let ordered =
            runs.iter().all(|r| r.start < r.end) && runs.windows(2).all(|w| w[0].end <= w[1].start);
        ordered.then_some(Shadow(runs))
    }

    pub(super) fn runs(&self) -> &[Run] {
        &self.0
    }

    /// Split the run holding both `x - 1` and `x`, so that a run starts at `x`.
    fn split_at(&mut self, x: u32) {
        let i = self.0.partition_point(|r| r.end <= x);
        if let Some(r) = self.0.get_mut(i) {
            if r.start < x {
                let right = Run {
                    start: x,
                    end: r.end,
                    cell: r.cell.clone(),
                    raced: r.raced,
                };
                r.end = x;
                self.0.insert(i + 1, right);
            }
        }
    }

    /// The runs of exactly the bytes `start..end`, in order; bytes without a history get
    /// runs with an empty one.
    pub(super) fn cover(&mut self, start: u32, end: u32) -> &mut [Run] {
        self.split_at(start);
        self.split_at(end);
        let first = self.0.partition_point(|r| r.end <= start);
        let (mut i, mut at) = (first, start);
        while at < end {
            match self.0.get(i) {
                Some(r) if r.start == at => at = r.end,
                next => {
                    let gap_end = next.map_or(end, |r| r.start.min(end));
                    let gap = Run {
                        start: at,
                        end: gap_end,
                        cell: Cell::new(),
                        raced: false,
                    };
                    self.0.insert(i, gap);
                    at = gap_end;
                }
            }
            i += 1;
        }
        &mut self.0[first..i]
    }

    /// The bytes `start..end` raced: forget their history and mark them, as one run
    /// with any raced run next to it.
    pub(super) fn mark_raced(&mut self, start: u32, end: u32) {
        if start >= end {
            return;
        }
        self.split_at(start);
        self.split_at(end);
        let from = self.0.partition_point(|r| r.end <= start);
        let to = self.0.partition_point(|r| r.start < end);
        let mut run = Run {
            start,
            end,
            cell: Cell::new(),
            raced: true,
        };
        let (mut from, mut to) = (from, to);
        if from > 0 && self.0[from - 1].raced && self.0[from - 1].end == start {
            from -= 1;
            run.start = self.0[from].start;
        }
        if let Some(next) = self.0.get(to).filter(|r| r.raced && r.start == end) {
            run.end = next.end;
            to += 1;
        }
        self.0.splice(from..to, std::iter::once(run));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(s: &Shadow) -> Vec<(u32, u32, usize)> {
        s.runs()
            .iter()
            .map(|r| (r.start, r.end, r.cell.len()))
            .collect()
    }

    #[test]
    fn cover_splits_runs_at_the_access_and_fills_gaps() {
        let mut s = Shadow::default();
        assert_eq!(s.cover(4, 8).len(), 1);
        s.cover(4, 8)[0]
            .cell
            .push(crate::race::tests::some_access());
        // Overlapping the end of the run and a gap after it.
        let runs = s.cover(6, 12);
        assert_eq!(
            runs.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>(),
            vec![(6, 8), (8, 12)]
        );
        assert_eq!(spans(&s), vec![(4, 6, 1), (6, 8, 1), (8, 12, 0)]);
        // A gap before the first run, the runs in the middle untouched.
        assert_eq!(s.cover(0, 5).len(), 2);
        assert_eq!(
            spans(&s),
            vec![(0, 4, 0), (4, 5, 1), (5, 6, 1), (6, 8, 1), (8, 12, 0)]
        );
        s.mark_raced(5, 9);
        assert_eq!(spans(&s), vec![(0, 4, 0), (4, 5, 1), (5, 9, 0), (9, 12, 0)]);
        assert!(s.runs()[2].raced && !s.runs()[3].raced);
        assert_eq!(s.cover(5, 5).len(), 0);
        // Raced runs next to each other become one; a gap is marked too.
        s.mark_raced(9, 14);
        s.mark_raced(3, 5);
        assert_eq!(spans(&s), vec![(0, 3, 0), (3, 14, 0)]);
        assert!(!s.runs()[0].raced && s.runs()[1].raced);
    }
}
