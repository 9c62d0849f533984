//! A hash-consing table of byte strings, stored in a paged arena.
//!
//! Strings are addressed by (page, offset in page), never by one running offset, so the
//! addressing cannot wrap however much is stored (a running `u32` offset wrapped past
//! 4 GiB and compared the wrong bytes). Pages are allocated once at full size and never
//! move; a string longer than a page gets a page of its own. Pages grow from 4 KiB to
//! the page size.

use super::hash_bytes;
use hashbrown::HashTable;

/// Arena page size: large enough that pages are few, small next to the memory limit.
pub const DEFAULT_PAGE_SIZE: usize = 1 << 20;
/// The first page's size.
const FIRST_PAGE_SIZE: usize = 4 << 10;

/// Where one stored string lives.
#[derive(Clone, Copy)]
struct Span {
    page: u32,
    offset: u32,
    len: u32,
}

pub struct Interner {
    pages: Vec<Vec<u8>>,
    page_size: usize,
    /// Where each distinct string lives, by id.
    spans: Vec<Span>,
    /// Ids, keyed by the hash of their bytes (the hash is not stored: recomputed on growth).
    table: HashTable<u32>,
}

impl Default for Interner {
    fn default() -> Self {
        Interner::with_page_size(DEFAULT_PAGE_SIZE)
    }
}

/// The bytes of `span` (a free function so the table's closures can borrow the fields).
fn span_bytes(pages: &[Vec<u8>], span: Span) -> &[u8] {
    let start = span.offset as usize;
    &pages[span.page as usize][start..start + span.len as usize]
}

impl Interner {
    /// An interner whose arena pages hold `page_size` bytes (tests use tiny pages to
    /// exercise page boundaries without storing gigabytes).
    pub fn with_page_size(page_size: usize) -> Interner {
        // Offsets inside a page are u32; a page may not be larger than that.
        let page_size = page_size.clamp(1, u32::MAX as usize);
        Interner {
            pages: Vec::new(),
            page_size,
            spans: Vec::new(),
            table: HashTable::new(),
        }
    }

    /// The id of `bytes`, and whether it was new.
    #[cfg(test)]
    pub fn intern(&mut self, bytes: &[u8]) -> (u32, bool) {
        self.intern_hashed(hash_bytes(bytes), bytes)
    }

    /// The id of `bytes`, whose hash is `h`, and whether it was new.
    pub fn intern_hashed(&mut self, h: u64, bytes: &[u8]) -> (u32, bool) {
        let (pages, spans) = (&self.pages, &self.spans);
        if let Some(&id) = self
            .table
            .find(h, |&id| span_bytes(pages, spans[id as usize]) == bytes)
        {
            return (id, false);
        }
        let span = self.store(bytes);
        // 4G strings of 12 bytes of bookkeeping each exceed any memory limit long before.
        let id = u32::try_from(self.spans.len()).expect("fewer than 2^32 stored strings");
        self.spans.push(span);
        let (pages, spans) = (&self.pages, &self.spans);
        self.table
            .insert_unique(h, id, |&i| hash_bytes(span_bytes(pages, spans[i as usize])));
        (id, true)
    }

    /// Copy `bytes` into the arena: into the last page if they fit, else a fresh page
    /// (of their own size if they are larger than a page).
    fn store(&mut self, bytes: &[u8]) -> Span {
        let len = u32::try_from(bytes.len()).expect("a state chunk is smaller than 4 GiB");
        let fits = self
            .pages
            .last()
            .is_some_and(|p| p.capacity() - p.len() >= bytes.len());
        if !fits {
            // Pages double from a small first one up to the page size, so a table that
            // stays small (one shard of many, a small program) costs little.
            let grown = self
                .pages
                .last()
                .map_or(FIRST_PAGE_SIZE, |p| p.capacity().saturating_mul(2))
                .min(self.page_size);
            self.pages.push(Vec::with_capacity(grown.max(bytes.len())));
        }
        let page_index = self.pages.len() - 1;
        let page = &mut self.pages[page_index];
        let offset = page.len() as u32;
        page.extend_from_slice(bytes);
        Span {
            page: u32::try_from(page_index).expect("fewer than 2^32 arena pages"),
            offset,
            len,
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The bytes of string `id` (None for an id never handed out).
    pub fn get(&self, id: u32) -> Option<&[u8]> {
        let span = *self.spans.get(id as usize)?;
        Some(span_bytes(&self.pages, span))
    }

    pub fn bytes(&self) -> usize {
        self.pages.iter().map(|p| p.capacity()).sum::<usize>()
            + self.pages.capacity() * std::mem::size_of::<Vec<u8>>()
            + self.spans.capacity() * std::mem::size_of::<Span>()
            + self.table.capacity() * 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bytes_get_one_id_and_ids_are_dense() {
        let mut t = Interner::default();
        assert!(t.is_empty());
        assert_eq!(t.intern(b"alpha"), (0, true));
        assert_eq!(t.intern(b"beta"), (1, true));
        assert_eq!(t.intern(b""), (2, true));
        assert_eq!(t.intern(b"alpha"), (0, false));
        assert_eq!(t.intern(b""), (2, false));
        // A prefix or extension is a different string.
        assert_eq!(t.intern(b"alph"), (3, true));
        assert_eq!(t.intern(b"alphaa"), (4, true));
        assert_eq!(t.len(), 5);
        assert!(t.bytes() > 0);
    }

    fn key(i: u32) -> Vec<u8> {
        (0..(i % 37))
            .map(|k| (i.wrapping_mul(31) ^ k) as u8)
            .chain(i.to_le_bytes())
            .collect()
    }

    #[test]
    fn many_strings_survive_table_growth() {
        let mut t = Interner::default();
        for i in 0..20_000u32 {
            assert_eq!(t.intern(&key(i)), (i, true), "first insert of {i}");
        }
        for i in (0..20_000u32).rev() {
            assert_eq!(t.intern(&key(i)), (i, false), "second insert of {i}");
        }
        assert_eq!(t.len(), 20_000);
    }

    /// The addressing region where one running u32 offset wrapped (past 4 GiB), forced
    /// at small scale: with 16-byte pages, 20 000 strings span thousands of pages, many
    /// strings are larger than a page, and many end exactly at a page boundary. Every
    /// string must read back as itself and be found again, never confused with another.
    #[test]
    fn tiny_pages_never_confuse_strings_across_page_boundaries() {
        for page_size in [1usize, 7, 16] {
            let mut t = Interner::with_page_size(page_size);
            for i in 0..20_000u32 {
                assert_eq!(t.intern(&key(i)), (i, true), "page {page_size}: insert {i}");
            }
            assert!(t.pages.len() > 1000, "the test must cross many pages");
            for i in 0..20_000u32 {
                assert_eq!(
                    t.get(i),
                    Some(key(i).as_slice()),
                    "page {page_size}: read {i}"
                );
                assert_eq!(t.intern(&key(i)), (i, false), "page {page_size}: find {i}");
            }
            assert_eq!(t.get(20_000), None);
        }
    }

    /// The old arena's failure: past the wrap, an offset names earlier bytes, so a new
    /// string compares equal to whatever sits at the wrapped offset. Strings that share
    /// a prefix with a string on an earlier page must stay distinct.
    #[test]
    fn strings_equal_to_bytes_on_another_page_stay_distinct() {
        let mut t = Interner::with_page_size(8);
        assert_eq!(t.intern(b"abcdefgh"), (0, true));
        assert_eq!(t.intern(b"abcd"), (1, true));
        assert_eq!(t.intern(b"efgh"), (2, true));
        assert_eq!(t.intern(b"abcdefghabcd"), (3, true));
        assert_eq!(t.get(1), Some(&b"abcd"[..]));
        assert_eq!(t.get(3), Some(&b"abcdefghabcd"[..]));
        assert_eq!(t.intern(b"abcdefgh"), (0, false));
    }
}
