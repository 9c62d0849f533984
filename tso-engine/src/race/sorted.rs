//! A map kept as one sorted vector: the race data is cloned on every transition that
//! touches it, and a vector clones with one allocation where a B-tree needs one per
//! node. Its maps are small (a few objects, a few bytes each).

use std::ops::RangeBounds;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap(Vec::new())
    }
}

impl<K: Ord + Copy, V> SortedMap<K, V> {
    /// A map of `entries`, which must be sorted by key without duplicates.
    pub(crate) fn from_sorted(entries: Vec<(K, V)>) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        SortedMap(entries)
    }

    fn find(&self, k: &K) -> Result<usize, usize> {
        self.0.binary_search_by(|(x, _)| x.cmp(k))
    }

    pub(crate) fn get(&self, k: &K) -> Option<&V> {
        self.find(k).ok().map(|i| &self.0[i].1)
    }

    pub(crate) fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        self.find(k).ok().map(|i| &mut self.0[i].1)
    }

    pub(crate) fn contains_key(&self, k: &K) -> bool {
        self.find(k).is_ok()
    }

    pub(crate) fn insert(&mut self, k: K, v: V) {
        match self.find(&k) {
            Ok(i) => self.0[i].1 = v,
            Err(i) => self.0.insert(i, (k, v)),
        }
    }

    pub(crate) fn remove(&mut self, k: &K) -> Option<V> {
        self.find(k).ok().map(|i| self.0.remove(i).1)
    }

    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.0.retain_mut(|(k, v)| keep(k, v));
    }

    /// The entries whose keys are in `range`, in order.
    pub(crate) fn range(&self, range: impl RangeBounds<K>) -> impl Iterator<Item = (&K, &V)> {
        use std::ops::Bound::*;
        let start = match range.start_bound() {
            Included(k) => self.find(k).unwrap_or_else(|i| i),
            Excluded(k) => self.find(k).map_or_else(|i| i, |i| i + 1),
            Unbounded => 0,
        };
        let end = match range.end_bound() {
            Included(k) => self.find(k).map_or_else(|i| i, |i| i + 1),
            Excluded(k) => self.find(k).unwrap_or_else(|i| i),
            Unbounded => self.0.len(),
        };
        self.0[start..end.max(start)].iter().map(|(k, v)| (k, v))
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Ord + Copy, V: Default> SortedMap<K, V> {
    /// The value of `k`, inserted as the default if missing.
    pub(crate) fn or_default(&mut self, k: K) -> &mut V {
        let i = match self.find(&k) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (k, V::default()));
                i
            }
        };
        &mut self.0[i].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_an_ordered_map() {
        let mut m: SortedMap<u32, u32> = SortedMap::default();
        for k in [5, 1, 9, 3] {
            *m.or_default(k) += k;
        }
        m.insert(3, 30);
        assert_eq!(
            m.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(),
            vec![(1, 1), (3, 30), (5, 5), (9, 9)]
        );
        assert_eq!(
            m.range(2..9).map(|(k, _)| *k).collect::<Vec<_>>(),
            vec![3, 5]
        );
        assert_eq!(
            m.range(3..=9).map(|(k, _)| *k).collect::<Vec<_>>(),
            vec![3, 5, 9]
        );
        assert_eq!(m.range(10..).count(), 0);
        assert_eq!(m.remove(&5), Some(5));
        assert!(!m.contains_key(&5) && m.get(&9) == Some(&9));
        m.retain(|k, _| *k > 1);
        assert_eq!(m.iter().map(|(k, _)| *k).collect::<Vec<_>>(), vec![3, 9]);
    }
}
