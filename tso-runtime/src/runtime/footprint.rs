//! What a `__tso_*` call touched in the buffers, for the engine's partial-order
//! reduction (`tso_engine::explore::footprint`). An object stands for its bytes and
//! for every buffered entry that writes it, in any thread's buffer; besides, each
//! thread's buffer has a shape (which entries it holds, in which positions), which
//! ordering facts count by position (`Entry::after`).
//!
//! - A call reads the objects its own buffer holds (its bound, its drains and its
//!   flushes depend on them, and other threads' loads can flush or mark them).
//! - It writes every object whose entries changed in any buffer (appended, written to
//!   memory, marked flushed, given ordering facts), and the shape of every buffer that
//!   changed.
//! - A call that did more than append to its own buffer (a flush decision: facts of
//!   the remaining entries are recounted over every buffer) reads every thread's
//!   buffer shape, empty or not.
//! - An appended entry records how many leading entries of each other buffer are
//!   flushed: it reads the objects of those and of the first unflushed one, or, when
//!   that buffer holds no unflushed entry (or none at all), its shape. So what a call
//!   reads does not change under calls independent of it, and a depth-first search
//!   may carry a sleeping thread's footprint to the successors.
//!
//! The object a load, locked operation or eviction acts on is reported by the natives
//! themselves (`natives.rs`); memory the buffers write goes through the engine's memory
//! API, which records it. The reference machine may flush any buffer before any
//! operation: its calls touch everything.

use super::state::{Buffers, TsoState};
use crate::buffer::{Entry, EntryList, StoreBuffers};
use tso_engine::NativeCx;

/// Report what changed between `before` (None: no buffer held anything) and `after`.
pub(crate) fn report(cx: &NativeCx<'_>, before: Option<&TsoState>, after: &TsoState) {
    let (old, new) = match (before.map(|b| &b.buffers), &after.buffers) {
        (None, Buffers::Lazy(new)) => (None, new),
        (Some(Buffers::Lazy(old)), Buffers::Lazy(new)) => (Some(old), new),
        _ => {
            cx.footprint_everything();
            return;
        }
    };
    let empty = EntryList::default();
    let none = StoreBuffers::default();
    let old_or_none = old.unwrap_or(&none);
    for e in old_or_none.entries(cx.tid).iter() {
        cx.footprint_object(e.range.addr.object, false);
    }
    let mut threads: Vec<u32> = new.threads().chain(old_or_none.threads()).collect();
    threads.sort_unstable();
    threads.dedup();
    let mut flush_decision = false;
    let mut appended = false;
    for &t in &threads {
        let was = old.map_or(&empty, |o| o.entries(t));
        let is = new.entries(t);
        if was.same_as(is) {
            continue;
        }
        let only_appended = changed_objects(was, is, &mut |obj| cx.footprint_object(obj, true));
        cx.footprint_thread_data(t, true);
        if t == cx.tid && only_appended {
            appended |= is.len() > was.len();
        } else {
            flush_decision = true;
        }
    }
    if flush_decision {
        // Every thread, with a buffer or not: one that gets a buffer changes the count.
        for t in 0..cx.state.threads.len() as u32 {
            cx.footprint_thread_data(t, false);
        }
    }
    if appended {
        for t in (0..cx.state.threads.len() as u32).filter(|&t| t != cx.tid) {
            let mut unflushed = false;
            for e in old_or_none.entries(t).iter() {
                cx.footprint_object(e.range.addr.object, false);
                if !e.flushed {
                    unflushed = true;
                    break;
                }
            }
            if !unflushed {
                // Which entry will end the count is not known yet: any change of
                // that buffer's shape matters.
                cx.footprint_thread_data(t, false);
            }
        }
    }
}

/// The objects of entries that differ between two versions of one buffer: entries
/// are matched in order (a buffer only loses entries and gains them at its end), and
/// every entry left unmatched on either side counts as changed. True when the new
/// version is the old one with entries appended.
pub(crate) fn changed_objects(was: &EntryList, is: &EntryList, f: &mut dyn FnMut(u32)) -> bool {
    let now: Vec<&Entry> = is.iter().collect();
    let mut j = 0;
    let mut kept_all = true;
    for e in was.iter() {
        if now.get(j) == Some(&e) {
            j += 1;
        } else {
            kept_all = false;
            f(e.range.addr.object);
        }
    }
    for e in &now[j..] {
        f(e.range.addr.object);
    }
    kept_all
}
