//! An append-only vector in fixed-size pages: the tables of tree nodes and state roots
//! grow by one page at a time, so they never hold the up to half-empty tail a doubling
//! `Vec` keeps (a third of the store's bytes per state at some sizes), and never copy
//! what they hold to grow.

/// Entries per page (a power of two, so finding an entry is a shift and a mask).
const PAGE_BITS: u32 = 10;
const PAGE: usize = 1 << PAGE_BITS;

pub struct Paged<T> {
    /// Full pages, then the last one, which doubles up to `PAGE` entries (a small table
    /// stays small).
    pages: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Paged<T> {
    fn default() -> Self {
        Paged {
            pages: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy> Paged<T> {
    /// Append `v`; returns its index.
    pub fn push(&mut self, v: T) -> usize {
        if self.len % PAGE == 0 {
            // An exact first size: most of a store's many shards stay tiny on small
            // programs.
            if self.pages.is_empty() {
                self.pages.reserve_exact(1);
            }
            self.pages
                .push(Vec::with_capacity(if self.len == 0 { 4 } else { PAGE }));
        }
        let last = self.pages.last_mut().expect("a page was just ensured");
        if last.len() == last.capacity() {
            last.reserve_exact(last.capacity().min(PAGE - last.len()));
        }
        last.push(v);
        self.len += 1;
        self.len - 1
    }

    #[inline]
    pub fn get(&self, i: usize) -> T {
        self.pages[i >> PAGE_BITS][i & (PAGE - 1)]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes held, counting unused capacity.
    pub fn bytes(&self) -> usize {
        self.pages
            .iter()
            .map(|p| p.capacity() * std::mem::size_of::<T>())
            .sum::<usize>()
            + self.pages.capacity() * std::mem::size_of::<Vec<T>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_at_their_index_across_pages() {
        let mut p = Paged::default();
        for i in 0..3 * PAGE as u64 + 7 {
            assert_eq!(p.push(i * 3), i as usize);
        }
        assert_eq!(p.len(), 3 * PAGE + 7);
        for i in 0..p.len() {
            assert_eq!(p.get(i), i as u64 * 3);
        }
        // Full pages and a tail of at most one page.
        assert!(p.bytes() <= (4 * PAGE) * 8 + p.pages.capacity() * 24);
    }
}
