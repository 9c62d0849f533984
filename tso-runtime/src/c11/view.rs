//! Views: for each location, the oldest message a thread (or a message, or the SC
//! order) still allows to be read. Sparse and canonical: a location absent from the
//! list is at timestamp 0 (its oldest live message), and 0 is never stored.

use crate::buffer::bytes::Reader;

/// A location's key: the start of its byte range (ranges of live locations never
/// overlap, so the start names the location).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocKey {
    pub object: u32,
    pub offset: u32,
}

/// Location → timestamp, sorted by location, zeros left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct View {
    entries: Vec<(LocKey, u32)>,
}

impl View {
    pub fn get(&self, loc: LocKey) -> u32 {
        match self.entries.binary_search_by_key(&loc, |e| e.0) {
            Ok(i) => self.entries[i].1,
            Err(_) => 0,
        }
    }

    /// Raises `loc` to at least `ts`.
    pub fn raise(&mut self, loc: LocKey, ts: u32) {
        if ts == 0 {
            return;
        }
        match self.entries.binary_search_by_key(&loc, |e| e.0) {
            Ok(i) => self.entries[i].1 = self.entries[i].1.max(ts),
            Err(i) => self.entries.insert(i, (loc, ts)),
        }
    }

    /// Pointwise maximum.
    pub fn join(&mut self, other: &View) {
        for &(loc, ts) in &other.entries {
            self.raise(loc, ts);
        }
    }

    /// Keeps the entries for which `keep(location, timestamp)` holds.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(LocKey, u32) -> bool) {
        self.entries.retain(|&(loc, ts)| keep(loc, ts));
    }

    /// Whether every timestamp here is at most `other`'s.
    pub fn is_below(&self, other: &View) -> bool {
        self.entries.iter().all(|&(loc, ts)| ts <= other.get(loc))
    }

    /// Rewrites `loc`'s timestamp with `f` (0 results are dropped).
    pub(crate) fn remap(&mut self, loc: LocKey, f: impl Fn(u32) -> u32) {
        if let Ok(i) = self.entries.binary_search_by_key(&loc, |e| e.0) {
            let ts = f(self.entries[i].1);
            if ts == 0 {
                self.entries.remove(i);
            } else {
                self.entries[i].1 = ts;
            }
        }
    }

    pub(crate) fn forget(&mut self, loc: LocKey) {
        self.remap(loc, |_| 0);
    }

    /// Renames every location with `f` (objects renumbered), keeping the list sorted.
    pub(crate) fn rename(&mut self, f: &mut dyn FnMut(LocKey) -> LocKey) {
        for e in &mut self.entries {
            e.0 = f(e.0);
        }
        self.entries.sort_unstable();
    }

    /// The view [`Self::serialize_into`] wrote; `None` unless sorted and free of zeros.
    pub(crate) fn decode_from(r: &mut Reader<'_>) -> Option<View> {
        let n = r.count(12)?;
        let mut entries: Vec<(LocKey, u32)> = Vec::with_capacity(n);
        for _ in 0..n {
            let loc = LocKey {
                object: r.u32()?,
                offset: r.u32()?,
            };
            let ts = r.u32()?;
            if ts == 0 || entries.last().is_some_and(|&(last, _)| last >= loc) {
                return None;
            }
            entries.push((loc, ts));
        }
        Some(View { entries })
    }

    pub(crate) fn serialize_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for &(loc, ts) in &self.entries {
            out.extend_from_slice(&loc.object.to_le_bytes());
            out.extend_from_slice(&loc.offset.to_le_bytes());
            out.extend_from_slice(&ts.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: LocKey = LocKey {
        object: 1,
        offset: 0,
    };
    const Y: LocKey = LocKey {
        object: 1,
        offset: 4,
    };

    #[test]
    fn zero_is_never_stored_so_equal_views_serialise_equally() {
        let mut a = View::default();
        a.raise(X, 0);
        a.raise(Y, 2);
        a.remap(Y, |t| t - 2);
        assert_eq!(a, View::default());
        let mut b = View::default();
        b.raise(Y, 3);
        b.raise(X, 1);
        let mut c = View::default();
        c.raise(X, 1);
        c.join(&b);
        assert_eq!(b, c);
        assert_eq!(c.get(Y), 3);
    }
}
