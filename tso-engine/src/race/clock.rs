//! Vector clocks: one counter per thread, indexed by thread id.

/// A vector clock. Missing components are 0 ("knows nothing of that thread"). Up to
/// eight threads fit inline: the race data is copied on every transition that records
/// an access, and a clock that needs no allocation keeps that cheap (four would not
/// hold a program of four threads and main).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct VectorClock(smallvec::SmallVec<[u32; 8]>);

impl Clone for VectorClock {
    /// One copy of the components (the derived clone copies them one by one; clocks
    /// are cloned with the race data on every transition that changes it).
    fn clone(&self) -> Self {
        VectorClock(smallvec::SmallVec::from_slice(&self.0))
    }
}

impl VectorClock {
    /// The clock of a thread that has done nothing yet: its own component is 1, so its
    /// first accesses are not known to anyone whose component is 0.
    pub fn for_new_thread(tid: u32) -> VectorClock {
        let mut c = VectorClock::default();
        c.set(tid, 1);
        c
    }

    #[inline]
    pub fn get(&self, tid: u32) -> u32 {
        self.0.get(tid as usize).copied().unwrap_or(0)
    }

    pub fn set(&mut self, tid: u32, v: u32) {
        if self.0.len() <= tid as usize {
            self.0.resize(tid as usize + 1, 0);
        }
        self.0[tid as usize] = v;
    }

    pub fn tick(&mut self, tid: u32) {
        let v = self.get(tid);
        self.set(tid, v.saturating_add(1));
    }

    /// Pointwise maximum.
    pub fn join(&mut self, other: &VectorClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, &b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(b);
        }
    }

    /// Whether this clock knows all `other` does (joining it would change nothing).
    pub fn covers(&self, other: &VectorClock) -> bool {
        other
            .0
            .iter()
            .enumerate()
            .all(|(i, &b)| b <= self.get(i as u32))
    }

    /// The components by thread id (missing ones at the end are 0).
    #[inline]
    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }

    /// (thread, value) of the non-zero components.
    pub fn components(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0)
            .map(|(i, &v)| (i as u32, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_is_the_pointwise_maximum_and_missing_components_are_zero() {
        let mut a = VectorClock::for_new_thread(0);
        let mut b = VectorClock::for_new_thread(2);
        b.set(0, 5);
        a.join(&b);
        assert_eq!((a.get(0), a.get(1), a.get(2), a.get(7)), (5, 0, 1, 0));
        a.tick(1);
        assert_eq!(a.get(1), 1);
        assert_eq!(
            a.components().collect::<Vec<_>>(),
            vec![(0, 5), (1, 1), (2, 1)]
        );
    }
}
