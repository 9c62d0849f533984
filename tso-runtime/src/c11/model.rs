//! The view machine: locations with their messages, threads with their views, the
//! SC view. The rules are in the module doc of `c11/mod.rs`.

use super::view::{LocKey, View};
use crate::buffer::bytes::Reader;
use crate::buffer::{Choice, Payload, Range, SharedMemory, ThreadId};

/// A C11 memory order. `consume` is passed as [`Order::Acquire`]; a relaxed fence is
/// a no-op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    NonAtomic,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl Order {
    pub fn is_atomic(self) -> bool {
        self != Order::NonAtomic
    }

    pub fn acquires(self) -> bool {
        matches!(self, Order::Acquire | Order::AcqRel | Order::SeqCst)
    }

    pub fn releases(self) -> bool {
        matches!(self, Order::Release | Order::AcqRel | Order::SeqCst)
    }

    pub fn is_sc(self) -> bool {
        self == Order::SeqCst
    }
}

/// Why an access cannot be modelled.
#[derive(Debug, thiserror::Error)]
pub enum C11Error<E: std::error::Error + 'static> {
    #[error(transparent)]
    Memory(E),
    /// An access overlaps a location of another range whose history is not settled
    /// (more than one message can still be read): unsupported, never guessed.
    #[error(
        "mixed-size access to {access_len} bytes at offset {access_offset} overlaps the \
         {existing_len}-byte location at offset {existing_offset}, which still has \
         {messages} readable values (mixed-size atomics are not supported under c11)"
    )]
    MixedSize {
        access_offset: u32,
        access_len: u32,
        existing_offset: u32,
        existing_len: u32,
        messages: usize,
    },
}

/// One write to a location. Its timestamp is its index in the location's list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Message {
    payload: Payload,
    /// What a thread that acquires this message learns.
    view: View,
    /// Written by an RMW that read the message just before it: nothing may ever be
    /// placed between the two (RMW atomicity).
    rmw: bool,
    /// The writer's `porf` view: what is `sb ∪ rf`-before this message.
    porf: View,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Location {
    range: Range,
    /// Oldest first; never empty.
    messages: Vec<Message>,
}

impl Location {
    fn key(&self) -> LocKey {
        key_of(self.range)
    }
}

fn key_of(range: Range) -> LocKey {
    LocKey {
        object: range.addr.object,
        offset: range.addr.offset,
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct ThreadViews {
    thread: ThreadId,
    /// What the thread has seen: it reads no message older than `cur`.
    cur: View,
    /// `cur` plus the views of messages it read relaxed: an acquire fence makes it `cur`.
    acq: View,
    /// `cur` at its last release fence: what its relaxed writes release.
    rel: View,
    /// Per location, `cur` at its last release write there (release sequences
    /// continue through its later relaxed writes to the same location).
    rel_at: Vec<(LocKey, View)>,
    /// Every message `sb ∪ rf`-before the thread's next event, synchronising or not:
    /// what forces the run order without ordering seq_cst events (see the module doc).
    porf: View,
}

impl ThreadViews {
    fn views_mut(&mut self) -> impl Iterator<Item = &mut View> {
        [&mut self.cur, &mut self.acq, &mut self.rel, &mut self.porf]
            .into_iter()
            .chain(self.rel_at.iter_mut().map(|(_, v)| v))
    }

    fn released_at(&self, loc: LocKey) -> View {
        let mut v = self.rel.clone();
        if let Some((_, r)) = self.rel_at.iter().find(|(l, _)| *l == loc) {
            v.join(r);
        }
        v
    }
}

/// The C11 memory of one state: see the module doc of `c11/mod.rs`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct C11Memory {
    /// Sorted by key; ranges never overlap.
    locations: Vec<Location>,
    /// Sorted by thread.
    threads: Vec<ThreadViews>,
    /// The SC view: per location, the newest message the SC order has placed.
    sc: View,
    /// Most messages kept per location (0: unbounded).
    history_bound: u32,
    /// Some message still readable was dropped for the bound: the run is inconclusive.
    bound_hit: bool,
}

impl C11Memory {
    /// A memory with thread 0 and no location yet; `history_bound` 0 is unbounded.
    pub fn new(history_bound: u32) -> Self {
        C11Memory {
            locations: Vec::new(),
            threads: vec![ThreadViews::default()],
            sc: View::default(),
            history_bound,
            bound_hit: false,
        }
    }

    /// Whether the history bound has dropped a message some thread could still read.
    pub fn bound_hit(&self) -> bool {
        self.bound_hit
    }

    /// The values a location holds, oldest first (empty when never accessed).
    pub fn history(&self, range: Range) -> Vec<Payload> {
        self.find(range)
            .map(|i| {
                self.locations[i]
                    .messages
                    .iter()
                    .map(|m| m.payload.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The oldest message `thread` may read at `range` (index into [`Self::history`]).
    pub fn view_of(&self, thread: ThreadId, range: Range) -> u32 {
        self.seen(thread, key_of(range))
    }

    /// `child` starts: everything its parent has seen happens before it.
    pub fn spawn(&mut self, parent: ThreadId, child: ThreadId) {
        let (cur, porf) = {
            let p = self.thread_mut(parent);
            (p.cur.clone(), p.porf.clone())
        };
        let t = self.thread_mut(child);
        t.porf = porf;
        t.cur = cur.clone();
        t.acq = cur;
        t.rel = View::default();
        t.rel_at.clear();
    }

    /// `joiner` joins the finished `joined`: everything `joined` did happens before.
    pub fn join(&mut self, joiner: ThreadId, joined: ThreadId) {
        let Some(i) = self.threads.iter().position(|t| t.thread == joined) else {
            return;
        };
        let done = self.threads.remove(i);
        let t = self.thread_mut(joiner);
        t.cur.join(&done.cur);
        t.acq.join(&done.cur);
        t.porf.join(&done.porf);
        self.collect();
    }

    /// A finished thread nobody will join: its view no longer keeps messages alive.
    pub fn forget_thread(&mut self, thread: ThreadId) {
        self.threads.retain(|t| t.thread != thread);
        self.collect();
    }

    pub fn load<M: SharedMemory, C: Choice>(
        &mut self,
        mem: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
        order: Order,
    ) -> Result<Payload, C11Error<M::Error>> {
        let (li, key, len) = self.access(mem, thread, range)?;
        let cur = self.seen(thread, key);
        let candidates: Vec<u32> = if order.is_atomic() {
            (self.read_floor(thread, key, order)..len).collect()
        } else {
            vec![cur]
        };
        let outcomes = candidates
            .into_iter()
            .map(|j| {
                let mut next = self.clone();
                let value = next.read_effect(li, thread, j, order);
                next.collect();
                (next, value)
            })
            .collect();
        Ok(self.decide(choice, outcomes))
    }

    pub fn store<M: SharedMemory, C: Choice>(
        &mut self,
        mem: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
        payload: Payload,
        order: Order,
    ) -> Result<(), C11Error<M::Error>> {
        let (li, key, len) = self.access(mem, thread, range)?;
        let positions: Vec<u32> = if order.is_atomic() {
            let first = self.read_floor(thread, key, order) + 1;
            (first..=len).filter(|&p| self.slot_free(li, p)).collect()
        } else {
            vec![len]
        };
        let outcomes = positions
            .into_iter()
            .map(|p| {
                let mut next = self.clone();
                next.write_effect(li, thread, p, payload.clone(), order, None);
                next.collect();
                (next, Payload::default())
            })
            .collect();
        self.decide(choice, outcomes);
        self.write_through(mem, range)
    }

    /// A read-modify-write: `update` maps the value read to the value written, or to
    /// `None` for a failing compare-exchange, which is a load with `failure` order.
    /// Returns the value read.
    #[allow(clippy::too_many_arguments)]
    pub fn rmw<M: SharedMemory, C: Choice>(
        &mut self,
        mem: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
        success: Order,
        failure: Order,
        update: &dyn Fn(&Payload) -> Option<Payload>,
    ) -> Result<Payload, C11Error<M::Error>> {
        let (li, key, len) = self.access(mem, thread, range)?;
        let cur = self.seen(thread, key);
        let mut outcomes = Vec::new();
        for j in cur..len {
            let old = self.locations[li].messages[j as usize].payload.clone();
            match update(&old) {
                Some(new) => {
                    if j < self.read_floor(thread, key, success) || !self.slot_free(li, j + 1) {
                        continue;
                    }
                    let mut next = self.clone();
                    let read_view = next.locations[li].messages[j as usize].view.clone();
                    next.read_effect(li, thread, j, read_part(success));
                    next.write_effect(li, thread, j + 1, new, success, Some(read_view));
                    next.collect();
                    outcomes.push((next, old));
                }
                None => {
                    if j < self.read_floor(thread, key, failure) {
                        continue;
                    }
                    let mut next = self.clone();
                    next.read_effect(li, thread, j, failure);
                    next.collect();
                    outcomes.push((next, old));
                }
            }
        }
        let old = self.decide(choice, outcomes);
        self.write_through(mem, range)?;
        Ok(old)
    }

    /// `atomic_thread_fence(order)`.
    pub fn fence(&mut self, thread: ThreadId, order: Order) {
        let t = self.thread_mut(thread);
        if order.acquires() {
            let acq = t.acq.clone();
            t.cur.join(&acq);
        }
        if order.is_sc() {
            let cur = t.cur.clone();
            self.sc.join(&cur);
            let sc = self.sc_for(thread);
            let t = self.thread_mut(thread);
            t.cur.join(&sc);
            t.acq.join(&sc);
            // `porf` stays past `cur`: what the fence learned a later chain carries.
            t.porf.join(&sc);
        }
        let t = self.thread_mut(thread);
        if order.releases() {
            t.rel = t.cur.clone();
            t.rel_at.clear();
        }
        self.collect();
    }

    /// The canonical bytes of this memory: locations by address, threads by id,
    /// timestamps as positions among live messages.
    pub fn serialize_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.locations.len() as u32).to_le_bytes());
        for l in &self.locations {
            out.extend_from_slice(&l.range.addr.object.to_le_bytes());
            out.extend_from_slice(&l.range.addr.offset.to_le_bytes());
            out.extend_from_slice(&l.range.len.to_le_bytes());
            out.extend_from_slice(&(l.messages.len() as u32).to_le_bytes());
            for m in &l.messages {
                m.payload.serialize_into(out);
                m.view.serialize_into(out);
                out.push(u8::from(m.rmw));
                m.porf.serialize_into(out);
            }
        }
        out.extend_from_slice(&(self.threads.len() as u32).to_le_bytes());
        for t in &self.threads {
            out.extend_from_slice(&t.thread.to_le_bytes());
            t.cur.serialize_into(out);
            t.acq.serialize_into(out);
            t.rel.serialize_into(out);
            t.porf.serialize_into(out);
            out.extend_from_slice(&(t.rel_at.len() as u32).to_le_bytes());
            for (loc, v) in &t.rel_at {
                out.extend_from_slice(&loc.object.to_le_bytes());
                out.extend_from_slice(&loc.offset.to_le_bytes());
                v.serialize_into(out);
            }
        }
        self.sc.serialize_into(out);
        out.push(u8::from(self.bound_hit));
    }

    /// [`Self::serialize_into`] with every object renamed through `pointer` (applied to
    /// the pointer to the object's start) and every stored pointer renamed by it, so
    /// states differing only in object numbering serialise alike.
    pub fn serialize_mapped(&self, pointer: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>) {
        self.renamed(pointer).serialize_into(out);
    }

    /// The memory [`Self::serialize_mapped`] wrote as `bytes` (all of them), renamed
    /// back by `pointer`; `None` when they are not such bytes. The bound is not part
    /// of the state: the caller passes it.
    pub fn decode(
        bytes: &[u8],
        history_bound: u32,
        pointer: &mut dyn FnMut(u64) -> u64,
    ) -> Option<C11Memory> {
        let mut r = Reader::new(bytes);
        let count = r.count(16)?;
        let mut locations: Vec<Location> = Vec::with_capacity(count);
        for _ in 0..count {
            let range = Range::new(r.u32()?, r.u32()?, r.u32()?);
            let n = r.count(14)?;
            let mut messages = Vec::with_capacity(n);
            for _ in 0..n {
                let payload = Payload::decode_from(&mut r)?;
                let view = View::decode_from(&mut r)?;
                let rmw = r.bool()?;
                let porf = View::decode_from(&mut r)?;
                if payload.len() != range.len {
                    return None;
                }
                messages.push(Message {
                    payload,
                    view,
                    rmw,
                    porf,
                });
            }
            // As kept: ascending starts, no overlap (checking neighbours suffices).
            let sorted = locations
                .last()
                .is_none_or(|l| l.key() < key_of(range) && !l.range.overlaps(&range));
            if messages.is_empty() || !sorted {
                return None;
            }
            locations.push(Location { range, messages });
        }
        let count = r.count(20)?;
        let mut threads: Vec<ThreadViews> = Vec::with_capacity(count);
        for _ in 0..count {
            let thread = r.u32()?;
            let cur = View::decode_from(&mut r)?;
            let acq = View::decode_from(&mut r)?;
            let rel = View::decode_from(&mut r)?;
            let porf = View::decode_from(&mut r)?;
            let n = r.count(12)?;
            let mut rel_at: Vec<(LocKey, View)> = Vec::with_capacity(n);
            for _ in 0..n {
                let loc = LocKey {
                    object: r.u32()?,
                    offset: r.u32()?,
                };
                if rel_at.last().is_some_and(|&(last, _)| last >= loc) {
                    return None;
                }
                rel_at.push((loc, View::decode_from(&mut r)?));
            }
            if threads.last().is_some_and(|t| t.thread >= thread) {
                return None;
            }
            threads.push(ThreadViews {
                thread,
                cur,
                acq,
                rel,
                rel_at,
                porf,
            });
        }
        let sc = View::decode_from(&mut r)?;
        let bound_hit = r.bool()?;
        if !r.is_empty() {
            return None;
        }
        let memory = C11Memory {
            locations,
            threads,
            sc,
            history_bound,
            bound_hit,
        };
        Some(memory.renamed(pointer))
    }

    /// A copy with objects and stored pointers renamed by `pointer`, sorted again.
    fn renamed(&self, pointer: &mut dyn FnMut(u64) -> u64) -> C11Memory {
        let mut renamed = self.clone();
        for l in &mut renamed.locations {
            for m in &mut l.messages {
                m.payload.for_each_pointer_mut(|p| *p = pointer(*p));
            }
        }
        let mut rename_key = |k: LocKey| {
            let p = pointer(u64::from(k.object) << 32);
            LocKey {
                object: (p >> 32) as u32,
                offset: k.offset,
            }
        };
        for l in &mut renamed.locations {
            let k = rename_key(l.key());
            l.range.addr.object = k.object;
            for m in &mut l.messages {
                m.view.rename(&mut rename_key);
                m.porf.rename(&mut rename_key);
            }
        }
        for t in &mut renamed.threads {
            for v in t.views_mut() {
                v.rename(&mut rename_key);
            }
            for (k, _) in &mut t.rel_at {
                *k = rename_key(*k);
            }
            t.rel_at.sort_by_key(|(k, _)| *k);
        }
        renamed.sc.rename(&mut rename_key);
        renamed.locations.sort_by_key(|l| l.key());
        renamed
    }

    // ---- the rules ----

    /// The location of `range` (see [`Self::location`]), its key and its number of
    /// messages; `thread` is known from here on.
    fn access<M: SharedMemory>(
        &mut self,
        mem: &mut M,
        thread: ThreadId,
        range: Range,
    ) -> Result<(usize, LocKey, u32), C11Error<M::Error>> {
        let li = self.location(mem, range)?;
        self.thread_mut(thread);
        Ok((li, key_of(range), self.locations[li].messages.len() as u32))
    }

    /// The newest message of `key` that `thread` has seen.
    fn seen(&self, thread: ThreadId, key: LocKey) -> u32 {
        self.thread(thread).map(|t| t.cur.get(key)).unwrap_or(0)
    }

    /// The oldest message `thread` may read at `key` with `order`: its view, and for
    /// seq_cst the SC view too, unless exempt (see [`Self::sc_for`]).
    fn read_floor(&self, thread: ThreadId, key: LocKey, order: Order) -> u32 {
        let cur = self.seen(thread, key);
        if order.is_sc() {
            cur.max(self.sc_for(thread).get(key))
        } else {
            cur
        }
    }

    /// The SC view as it binds `thread`'s next seq_cst event: without the locations
    /// where the SC view is past the thread's `cur` but within its `porf`. There the
    /// event may run after the SC event that set the entry only because a
    /// non-synchronising `sb ∪ rf` chain forced it to, and RC11 may order it first.
    fn sc_for(&self, thread: ThreadId) -> View {
        let mut sc = self.sc.clone();
        if let Some(t) = self.thread(thread) {
            sc.retain(|loc, ts| ts <= t.cur.get(loc) || ts > t.porf.get(loc));
        }
        sc
    }

    /// Whether a new message may take position `p` (before the message now at `p`):
    /// not when that message is an RMW bound to its predecessor.
    fn slot_free(&self, li: usize, p: u32) -> bool {
        self.locations[li]
            .messages
            .get(p as usize)
            .is_none_or(|m| !m.rmw)
    }

    fn read_effect(&mut self, li: usize, thread: ThreadId, j: u32, order: Order) -> Payload {
        let key = self.locations[li].key();
        let message = &self.locations[li].messages[j as usize];
        let (value, view) = (message.payload.clone(), message.view.clone());
        let message_porf = message.porf.clone();
        let t = self.thread_mut(thread);
        t.cur.raise(key, j);
        t.acq.raise(key, j);
        t.porf.raise(key, j);
        t.porf.join(&message_porf);
        if order.is_atomic() {
            t.acq.join(&view);
        }
        if order.acquires() {
            t.cur.join(&view);
        }
        value
    }

    fn write_effect(
        &mut self,
        li: usize,
        thread: ThreadId,
        p: u32,
        payload: Payload,
        order: Order,
        read_view: Option<View>,
    ) {
        let key = self.locations[li].key();
        self.for_each_view(|v| v.remap(key, |ts| if ts >= p { ts + 1 } else { ts }));
        let t = self.thread_mut(thread);
        t.cur.raise(key, p);
        t.acq.raise(key, p);
        t.porf.raise(key, p);
        let porf = t.porf.clone();
        let mut view = if order.releases() {
            t.cur.clone()
        } else {
            // A non-atomic store releases nothing: reading it atomically is a race.
            let mut v = if order.is_atomic() {
                t.released_at(key)
            } else {
                View::default()
            };
            v.raise(key, p);
            v
        };
        if order.releases() {
            let cur = t.cur.clone();
            match t.rel_at.iter_mut().find(|(l, _)| *l == key) {
                Some((_, v)) => *v = cur,
                None => {
                    t.rel_at.push((key, cur));
                    t.rel_at.sort_by_key(|(l, _)| *l);
                }
            }
        }
        let rmw = read_view.is_some();
        if let Some(r) = read_view {
            view.join(&r);
        }
        if order.is_sc() {
            self.sc.raise(key, p);
        }
        self.locations[li].messages.insert(
            p as usize,
            Message {
                payload,
                view,
                rmw,
                porf,
            },
        );
    }

    /// Drops every message no thread can read any more (older than every thread's
    /// view of its location) and, past the history bound, the oldest ones (noting
    /// the cut); renumbers the rest from 0.
    fn collect(&mut self) {
        for li in 0..self.locations.len() {
            let key = self.locations[li].key();
            let len = self.locations[li].messages.len() as u32;
            let mut drop = self
                .threads
                .iter()
                .map(|t| t.cur.get(key))
                .min()
                .unwrap_or(len - 1);
            if self.history_bound > 0 && len - drop > self.history_bound {
                drop = len - self.history_bound;
                self.bound_hit = true;
            }
            if drop == 0 {
                continue;
            }
            let messages = &mut self.locations[li].messages;
            messages.drain(..drop as usize);
            messages[0].rmw = false;
            self.for_each_view(|v| v.remap(key, |ts| ts.saturating_sub(drop)));
        }
        for t in &mut self.threads {
            let rel = t.rel.clone();
            t.rel_at.retain(|(_, v)| !v.is_below(&rel));
        }
    }

    fn for_each_view(&mut self, mut f: impl FnMut(&mut View)) {
        for l in &mut self.locations {
            for m in &mut l.messages {
                f(&mut m.view);
                f(&mut m.porf);
            }
        }
        for t in &mut self.threads {
            for v in t.views_mut() {
                f(v);
            }
        }
        f(&mut self.sc);
    }

    /// Keeps one of the outcomes, asking `choice` when they differ.
    fn decide<C: Choice>(
        &mut self,
        choice: &mut C,
        outcomes: Vec<(C11Memory, Payload)>,
    ) -> Payload {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut distinct = Vec::new();
        for (m, value) in outcomes {
            let mut key = Vec::new();
            m.serialize_into(&mut key);
            value.serialize_into(&mut key);
            if !seen.contains(&key) {
                seen.push(key);
                distinct.push((m, value));
            }
        }
        let pick = if distinct.len() > 1 {
            choice.choose(distinct.len()).min(distinct.len() - 1)
        } else {
            0
        };
        match distinct.into_iter().nth(pick) {
            Some((m, value)) => {
                *self = m;
                value
            }
            // Every access has at least one outcome: the newest message is readable
            // and the end of the list is free.
            None => Payload::default(),
        }
    }

    fn write_through<M: SharedMemory>(
        &self,
        mem: &mut M,
        range: Range,
    ) -> Result<(), C11Error<M::Error>> {
        if let Some(newest) = self
            .find(range)
            .and_then(|i| self.locations[i].messages.last())
        {
            mem.write(range.addr, &newest.payload)
                .map_err(C11Error::Memory)?;
        }
        Ok(())
    }

    fn find(&self, range: Range) -> Option<usize> {
        self.locations
            .binary_search_by_key(&key_of(range), |l| l.key())
            .ok()
            .filter(|&i| self.locations[i].range == range)
    }

    /// The location of exactly `range`, started from memory when new. Locations it
    /// overlaps are retired into it when their history is settled (one message),
    /// refused otherwise.
    fn location<M: SharedMemory>(
        &mut self,
        mem: &mut M,
        range: Range,
    ) -> Result<usize, C11Error<M::Error>> {
        if let Some(i) = self.find(range) {
            return Ok(i);
        }
        let overlapping: Vec<usize> = (0..self.locations.len())
            .filter(|&i| self.locations[i].range.overlaps(&range))
            .collect();
        if let Some(&i) = overlapping
            .iter()
            .find(|&&i| self.locations[i].messages.len() > 1)
        {
            let existing = self.locations[i].range;
            return Err(C11Error::MixedSize {
                access_offset: range.addr.offset,
                access_len: range.len,
                existing_offset: existing.addr.offset,
                existing_len: existing.len,
                messages: self.locations[i].messages.len(),
            });
        }
        let payload = mem.read(range).map_err(C11Error::Memory)?;
        let mut view = View::default();
        for &i in overlapping.iter().rev() {
            let retired = self.locations.remove(i);
            view.join(&retired.messages[0].view);
            let key = retired.key();
            view.forget(key);
            for t in &mut self.threads {
                t.rel_at.retain(|(l, _)| *l != key);
            }
        }
        let key = key_of(range);
        let at = self
            .locations
            .binary_search_by_key(&key, |l| l.key())
            .unwrap_or_else(|i| i);
        self.locations.insert(
            at,
            Location {
                range,
                messages: vec![Message {
                    payload,
                    porf: view.clone(),
                    view,
                    rmw: false,
                }],
            },
        );
        Ok(at)
    }

    fn thread(&self, thread: ThreadId) -> Option<&ThreadViews> {
        self.threads
            .binary_search_by_key(&thread, |t| t.thread)
            .ok()
            .map(|i| &self.threads[i])
    }

    /// The views of `thread`; a thread first seen starts with nothing seen.
    fn thread_mut(&mut self, thread: ThreadId) -> &mut ThreadViews {
        let i = match self.threads.binary_search_by_key(&thread, |t| t.thread) {
            Ok(i) => i,
            Err(i) => {
                self.threads.insert(
                    i,
                    ThreadViews {
                        thread,
                        ..ThreadViews::default()
                    },
                );
                i
            }
        };
        &mut self.threads[i]
    }
}

/// The read half of an RMW's order.
fn read_part(order: Order) -> Order {
    match order {
        Order::Release => Order::Relaxed,
        Order::AcqRel => Order::Acquire,
        o => o,
    }
}
