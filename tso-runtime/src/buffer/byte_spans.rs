//! A set of bytes of several objects, kept as disjoint spans: the union of the
//! ranges in an overlap closure, so that an entry joins the closure when it shares a
//! byte with the set (one test per span instead of one per member).

use super::types::Range;

/// A set of bytes as disjoint, sorted spans `(object, start, end)`.
#[derive(Default)]
pub(crate) struct ByteSpans {
    spans: Vec<(u32, u64, u64)>,
}

impl ByteSpans {
    /// Adds the bytes of `range`; true when the set grew.
    pub(crate) fn add(&mut self, range: Range) -> bool {
        if range.len == 0 || self.contains(&range) {
            return false;
        }
        let object = range.addr.object;
        let (mut start, mut end) = (range.start(), range.end());
        // Absorb the spans it overlaps or touches (their bytes stay in the set).
        self.spans.retain(|&(o, s, e)| {
            let joins = o == object && s <= end && start <= e;
            if joins {
                start = start.min(s);
                end = end.max(e);
            }
            !joins
        });
        let at = self.spans.partition_point(|&k| k < (object, start, end));
        self.spans.insert(at, (object, start, end));
        true
    }

    pub(crate) fn contains(&self, range: &Range) -> bool {
        self.spans
            .iter()
            .any(|&(o, s, e)| o == range.addr.object && s <= range.start() && range.end() <= e)
    }

    pub(crate) fn contains_byte(&self, object: u32, offset: u64) -> bool {
        self.spans
            .iter()
            .any(|&(o, s, e)| o == object && s <= offset && offset < e)
    }

    /// True if `range` shares a byte with the set.
    pub(crate) fn overlaps(&self, range: &Range) -> bool {
        self.spans
            .iter()
            .any(|&(o, s, e)| o == range.addr.object && s < range.end() && range.start() < e)
    }

    /// The objects of the set, ascending, once each.
    pub(crate) fn objects(&self) -> Vec<u32> {
        let mut objects: Vec<u32> = self.spans.iter().map(|&(o, _, _)| o).collect();
        objects.dedup();
        objects
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_hold_exactly_the_bytes_added() {
        let mut set = ByteSpans::default();
        assert!(set.add(Range::new(1, 0, 4)));
        assert!(!set.add(Range::new(1, 1, 2)), "already inside");
        assert!(!set.add(Range::new(1, 5, 0)), "no bytes");
        assert!(set.add(Range::new(1, 4, 4)), "touching grows the set");
        assert!(set.add(Range::new(2, 2, 2)));
        assert_eq!(set.objects(), vec![1, 2]);
        // Touching is not sharing a byte.
        assert!(!set.overlaps(&Range::new(1, 8, 4)));
        assert!(set.overlaps(&Range::new(1, 7, 4)));
        assert!(!set.overlaps(&Range::new(2, 0, 2)));
        assert!(!set.overlaps(&Range::new(3, 0, 8)));
        assert!(set.contains(&Range::new(1, 0, 8)), "joined spans");
        assert!(!set.contains(&Range::new(2, 1, 2)));
        assert!(set.contains_byte(2, 3) && !set.contains_byte(2, 4));
        // A range bridging two spans joins them.
        assert!(set.add(Range::new(1, 10, 2)));
        assert!(set.add(Range::new(1, 6, 6)));
        assert!(set.contains(&Range::new(1, 0, 12)));
        assert_eq!(set.spans, vec![(1, 0, 12), (2, 2, 4)]);
    }
}
