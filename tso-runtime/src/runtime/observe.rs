//! What the counterexample's replay saw of store buffering, as data: the reorderings
//! `--suggest-fences` turns into fence candidates and `--robustness` reports as the
//! observation behind a non-SC state. Recorded only while the engine replays a path
//! with tracing on, so exploration pays nothing for it.

use std::sync::{Arc, Mutex};

use tso_engine::{describe_pointer, make_ptr, NativeCx, ThreadId};

use super::env::pointer;
use super::state::{PendingStore, TsoState};
use crate::buffer::Range;
use crate::instrument::SourcePoint;

/// One store→load reordering seen along a replayed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// `thread` loaded `load_what` (reading `value`) at `load` while its own older
    /// store to other bytes (`store_what`, made at `store`) was still in its buffer:
    /// under SC the store would have been visible first. A fence after `store`
    /// forbids exactly this.
    LoadPassedStore {
        thread: ThreadId,
        load: Option<SourcePoint>,
        load_what: String,
        value: String,
        store: Option<SourcePoint>,
        store_what: String,
        /// Bytes the store wrote (1, 2, 4 or 8: it could be an `atomic_exchange`).
        store_len: u32,
    },
    /// `thread` loaded `load_what` and read `value` although `writer` had already
    /// executed a store to those bytes (`store_what := store_value` at `store`) that
    /// was still in `writer`'s buffer: the load saw a stale value.
    StaleRead {
        thread: ThreadId,
        load: Option<SourcePoint>,
        load_what: String,
        value: String,
        writer: ThreadId,
        store: Option<SourcePoint>,
        store_what: String,
        store_value: String,
    },
}

/// Where the runtime puts what it observes (shared with the caller, who clears it
/// before a run and reads it after).
pub type ObservationLog = Arc<Mutex<Vec<Observation>>>;

fn point(cx: &NativeCx<'_>, origin: Option<u32>) -> Option<SourcePoint> {
    let l = cx.program.locations.get(origin? as usize)?;
    Some(SourcePoint {
        file: l.file.to_string(),
        line: l.line,
        column: l.column,
    })
}

fn name(cx: &NativeCx<'_>, s: &PendingStore) -> String {
    describe_pointer(cx.program, cx.state, make_ptr(s.object, s.offset))
}

/// Before a load of `range` by the current thread: its own unflushed stores to
/// other bytes are being passed.
pub(crate) fn before_load(
    cx: &NativeCx<'_>,
    log: &ObservationLog,
    range: Range,
) -> Vec<Observation> {
    let _ = log;
    let Some(ts) = TsoState::of(cx.state) else {
        return Vec::new();
    };
    let tid = cx.tid;
    let load = point(cx, cx.location());
    let load_what = describe_pointer(cx.program, cx.state, pointer(range.addr));
    ts.pending()
        .into_iter()
        .filter(|s| s.thread == tid && !s.flushed && !s.range().overlaps(&range))
        .map(|s| Observation::LoadPassedStore {
            thread: tid,
            load: load.clone(),
            load_what: load_what.clone(),
            value: String::new(),
            store: point(cx, (s.origin != u32::MAX).then_some(s.origin)),
            store_what: name(cx, &s),
            store_len: s.len,
        })
        .collect()
}

/// After the load read `value`: record the passed stores and every other thread's
/// still-unflushed store to the loaded bytes (the load read around it).
pub(crate) fn after_load(
    cx: &NativeCx<'_>,
    log: &ObservationLog,
    range: Range,
    value: String,
    passed: Vec<Observation>,
) {
    let mut seen: Vec<Observation> = passed
        .into_iter()
        .map(|mut o| {
            if let Observation::LoadPassedStore { value: v, .. } = &mut o {
                v.clone_from(&value);
            }
            o
        })
        .collect();
    if let Some(ts) = TsoState::of(cx.state) {
        let tid = cx.tid;
        let load = point(cx, cx.location());
        let load_what = describe_pointer(cx.program, cx.state, pointer(range.addr));
        for s in ts.pending() {
            if s.thread != tid && !s.flushed && s.range().overlaps(&range) {
                seen.push(Observation::StaleRead {
                    thread: tid,
                    load: load.clone(),
                    load_what: load_what.clone(),
                    value: value.clone(),
                    writer: s.thread,
                    store: point(cx, (s.origin != u32::MAX).then_some(s.origin)),
                    store_what: name(cx, &s),
                    store_value: s.value.clone(),
                });
            }
        }
    }
    if seen.is_empty() {
        return;
    }
    if let Ok(mut log) = log.lock() {
        log.extend(seen);
    }
}
