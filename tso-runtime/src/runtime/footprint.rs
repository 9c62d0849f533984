//! What a `__tso_*` call touched in the buffers, for the engine's partial-order
//! reduction (`tso_engine::explore::footprint`). An object stands for its bytes and
//! for every buffered entry that writes it, in any thread's buffer. A call reads the
//! objects its own buffer holds (its bound, its drains and its flushes depend on them,
//! and other threads' loads can flush or mark them) and writes every object whose
//! entries changed in any buffer (appended, written to memory, marked flushed, given
//! ordering facts). The object a load, locked operation or eviction acts on is
//! reported by the natives themselves (`natives.rs`); memory the buffers write goes
//! through the engine's memory API, which records it. The reference machine may flush
//! any buffer before any operation: its calls touch everything.

use super::state::{Buffers, TsoState};
use crate::buffer::{Entry, EntryList};
use tso_engine::natives::NativeCx;

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
    if let Some(old) = old {
        for e in old.entries(cx.tid).iter() {
            cx.footprint_object(e.range.addr.object, false);
        }
    }
    let mut threads: Vec<u32> = new.threads().collect();
    if let Some(old) = old {
        threads.extend(old.threads());
    }
    threads.sort_unstable();
    threads.dedup();
    for t in threads {
        let was = old.map_or(&empty, |o| o.entries(t));
        let is = new.entries(t);
        if !was.same_as(is) {
            changed_objects(was, is, &mut |obj| cx.footprint_object(obj, true));
        }
    }
}

/// The objects of entries that differ between two versions of one buffer: entries
/// are matched in order (a buffer only loses entries and gains them at its end), and
/// every entry left unmatched on either side counts as changed.
pub(crate) fn changed_objects(was: &EntryList, is: &EntryList, f: &mut dyn FnMut(u32)) {
    let now: Vec<&Entry> = is.iter().collect();
    let mut j = 0;
    for e in was.iter() {
        if now.get(j) == Some(&e) {
            j += 1;
        } else {
            f(e.range.addr.object);
        }
    }
    for e in &now[j..] {
        f(e.range.addr.object);
    }
}
