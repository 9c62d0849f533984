//! Views: for each location, the oldest message a thread (or a message, or the SC
//! order) still allows to be read. Sparse and canonical: a location absent from the
//! list is at timestamp 0 (its oldest live message), and 0 is never stored.

use crate::buffer::bytes::Reader;

/// A location's key: the start of its byte range (ranges of live locations never
/// overlap, so the start names the location).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocKey {
    pub object: u32,
    pub offset: u32,
}

/// What a view records besides the coherence timestamps: the happens-before
/// knowledge the SC order needs (see "The SC order" in the module doc of `c11/mod.rs`).
/// `Fen`, `Pre`, `Anch` and `Hbl` hold positions in the SC order; `Hbv` and `Hbr`
/// hold a location's timestamp plus one (0: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HbKey {
    /// The newest SC fence happens-before.
    Fen,
    /// What `Hbv`/`Hbr` entries naming collected messages give an SC fence still to
    /// come: the newest `psc` source among their writers' and readers' (see
    /// "Collection" in the module doc of `c11/mod.rs`).
    Pre,
    /// The newest SC access followed in its thread by an access to another location
    /// (or a fence) that happens-before (`sb|≠loc ; hb`).
    Anch,
    /// Per location: the newest `Left` (position or fence before) of an access to it
    /// that happens-before.
    Hbl(LocKey),
    /// Per location: the newest message written by a write that happens-before.
    Hbv(LocKey),
    /// Per location: the newest message read by a read that happens-before.
    Hbr(LocKey),
}

impl HbKey {
    fn location(self) -> Option<LocKey> {
        match self {
            HbKey::Hbl(l) | HbKey::Hbv(l) | HbKey::Hbr(l) => Some(l),
            _ => None,
        }
    }

    /// Whether the value is a position in the SC order (else a timestamp plus one).
    pub fn is_position(self) -> bool {
        !matches!(self, HbKey::Hbv(_) | HbKey::Hbr(_))
    }

    fn tag(self) -> u8 {
        match self {
            HbKey::Fen => 0,
            HbKey::Pre => 1,
            HbKey::Anch => 2,
            HbKey::Hbl(_) => 3,
            HbKey::Hbv(_) => 4,
            HbKey::Hbr(_) => 5,
        }
    }
}

/// Location → timestamp, sorted by location, zeros left out; and the
/// happens-before knowledge by [`HbKey`], sorted, zeros left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct View {
    entries: Vec<(LocKey, u32)>,
    hb: Vec<(HbKey, u32)>,
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
        for &(key, v) in &other.hb {
            self.raise_hb(key, v);
        }
    }

    pub fn hb(&self, key: HbKey) -> u32 {
        match self.hb.binary_search_by_key(&key, |e| e.0) {
            Ok(i) => self.hb[i].1,
            Err(_) => 0,
        }
    }

    /// Raises `key` to at least `v`.
    pub fn raise_hb(&mut self, key: HbKey, v: u32) {
        if v == 0 {
            return;
        }
        match self.hb.binary_search_by_key(&key, |e| e.0) {
            Ok(i) => self.hb[i].1 = self.hb[i].1.max(v),
            Err(i) => self.hb.insert(i, (key, v)),
        }
    }

    /// The happens-before entries.
    pub(crate) fn hb_entries(&self) -> &[(HbKey, u32)] {
        &self.hb
    }

    /// Rewrites every happens-before entry with `f(key, value)` (0 results are dropped).
    pub(crate) fn remap_hb(&mut self, mut f: impl FnMut(HbKey, u32) -> u32) {
        for e in &mut self.hb {
            e.1 = f(e.0, e.1);
        }
        self.hb.retain(|e| e.1 != 0);
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

    /// Drops everything recorded about `loc`.
    pub(crate) fn forget(&mut self, loc: LocKey) {
        self.remap(loc, |_| 0);
        self.hb.retain(|e| e.0.location() != Some(loc));
    }

    /// Renames every location with `f` (objects renumbered), keeping the lists sorted.
    pub(crate) fn rename(&mut self, f: &mut dyn FnMut(LocKey) -> LocKey) {
        for e in &mut self.entries {
            e.0 = f(e.0);
        }
        self.entries.sort_unstable();
        for e in &mut self.hb {
            e.0 = match e.0 {
                HbKey::Hbl(l) => HbKey::Hbl(f(l)),
                HbKey::Hbv(l) => HbKey::Hbv(f(l)),
                HbKey::Hbr(l) => HbKey::Hbr(f(l)),
                k => k,
            };
        }
        self.hb.sort_unstable();
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
        let n = r.count(13)?;
        let mut hb: Vec<(HbKey, u32)> = Vec::with_capacity(n);
        for _ in 0..n {
            let tag = r.u8()?;
            let loc = LocKey {
                object: r.u32()?,
                offset: r.u32()?,
            };
            let key = match tag {
                0 => HbKey::Fen,
                1 => HbKey::Pre,
                2 => HbKey::Anch,
                3 => HbKey::Hbl(loc),
                4 => HbKey::Hbv(loc),
                5 => HbKey::Hbr(loc),
                _ => return None,
            };
            let v = r.u32()?;
            if key.location().is_none() && loc != LocKey::default() {
                return None;
            }
            if v == 0 || hb.last().is_some_and(|&(last, _)| last >= key) {
                return None;
            }
            hb.push((key, v));
        }
        Some(View { entries, hb })
    }

    pub(crate) fn serialize_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for &(loc, ts) in &self.entries {
            out.extend_from_slice(&loc.object.to_le_bytes());
            out.extend_from_slice(&loc.offset.to_le_bytes());
            out.extend_from_slice(&ts.to_le_bytes());
        }
        out.extend_from_slice(&(self.hb.len() as u32).to_le_bytes());
        for &(key, v) in &self.hb {
            let loc = key.location().unwrap_or_default();
            out.push(key.tag());
            out.extend_from_slice(&loc.object.to_le_bytes());
            out.extend_from_slice(&loc.offset.to_le_bytes());
            out.extend_from_slice(&v.to_le_bytes());
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
