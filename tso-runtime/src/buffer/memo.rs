//! Resolutions remembered across the engine's replays of one transition.
//!
//! The engine explores an operation with `k` flush outcomes by running the
//! transition `k` times from the same state, each time choosing another
//! index; without a memory, each run would enumerate all `k` outcomes again.
//! `resolve` is a function of the entries' ranges, flushed flags and ordering
//! facts, the acting thread, the seeds and what is forced, so those (not the
//! payloads) form the key. Operations with a real choice are kept, and so are
//! fences and thread ends (forced drains) even with one outcome: their layouts
//! recur across states, and a lookup costs a fraction of `resolve`. The table is
//! emptied when it grows large (replays of one state happen when the explorer
//! backtracks to it, possibly much later).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::entry_list::EntryList;
use super::fx_hash::FxBuildHasher;
use super::resolve::FlushOutcome;
use super::types::{Range, ThreadId};

/// Most operations, and most outcome words, remembered before the table is emptied.
const CAPACITY: usize = 4096;
const WORD_CAPACITY: usize = 1 << 22;

/// The outcomes of one operation; `first[b]` is buffer b's first entry id.
pub(crate) struct Resolved {
    pub first: Vec<usize>,
    pub outcomes: Vec<FlushOutcome>,
    /// Per outcome, how many stores stay delayed after it (see [`delayed_stores`]).
    pub delayed: Vec<u32>,
}

impl Resolved {
    pub(crate) fn new(first: Vec<usize>, outcomes: Vec<FlushOutcome>) -> Resolved {
        let delayed = outcomes.iter().map(delayed_stores).collect();
        Resolved {
            first,
            outcomes,
            delayed,
        }
    }
}

/// The stores an outcome leaves neither written nor flushed: they stay delayed past the
/// operation (the counterexample tie-break prefers the least relaxed run).
pub(crate) fn delayed_stores(outcome: &FlushOutcome) -> u32 {
    outcome
        .written
        .iter()
        .zip(&outcome.flushed)
        .filter(|&(&written, &flushed)| !written && !flushed)
        .count() as u32
}

#[derive(Default)]
struct Memo {
    table: HashMap<Vec<u32>, Rc<Resolved>, FxBuildHasher>,
    words: usize,
    key: Vec<u32>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// What `resolve` depends on, as words.
pub(crate) fn build_key<'a>(
    key: &mut Vec<u32>,
    buffers: impl Iterator<Item = (ThreadId, &'a EntryList)>,
    acting: ThreadId,
    seeds: &[Range],
    forced: u32,
) {
    key.clear();
    key.push(acting);
    key.push(forced);
    key.push(seeds.len() as u32);
    for s in seeds {
        key.extend_from_slice(&[s.addr.object, s.addr.offset, s.len]);
    }
    for (thread, entries) in buffers {
        key.push(thread);
        key.push(entries.len() as u32);
        for e in entries {
            key.extend_from_slice(&[
                e.range.addr.object,
                e.range.addr.offset,
                e.range.len,
                u32::from(e.flushed),
            ]);
            key.push(e.after.len() as u32);
            for &(t, count) in &e.after {
                key.extend_from_slice(&[t, count]);
            }
        }
    }
}

/// The remembered outcomes for `key`, if any.
pub(crate) fn lookup(fill: impl FnOnce(&mut Vec<u32>)) -> Option<Rc<Resolved>> {
    MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        let memo = &mut *memo;
        fill(&mut memo.key);
        memo.table.get(&memo.key[..]).cloned()
    })
}

/// Remembers the outcomes for the key of the last `lookup`.
pub(crate) fn remember(resolved: Rc<Resolved>) {
    MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        let words: usize = memo.key.len()
            + resolved
                .outcomes
                .iter()
                .map(|o| o.written.len() + o.order.len() + o.after.len())
                .sum::<usize>();
        if memo.table.len() >= CAPACITY || memo.words + words > WORD_CAPACITY {
            memo.table.clear();
            memo.words = 0;
        }
        memo.words += words;
        let key = memo.key.clone();
        memo.table.insert(key, resolved);
    })
}
