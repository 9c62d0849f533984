//! The view machine: locations with their messages, threads with their views, the
//! SC order. The rules are in the module doc of `c11/mod.rs`.

use super::view::{HbKey, LocKey, View};
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
    /// No outcome of the access is consistent (the machine's rules leave none: not
    /// met by any program the differential tests generate); never guessed.
    #[error("no C11-consistent outcome for this access (not modelled)")]
    NoOutcome,
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
    /// What the SC order knows of its writer and readers.
    sc: MessageOrder,
}

/// A message's writer and readers in the SC order: positions (0: none). `Left(e)`
/// of an event is its own position when seq_cst, joined with the newest SC fence
/// happens-before it: what is `psc`-before whatever `e` is `scb`-before.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct MessageOrder {
    /// The writer's position, when seq_cst.
    pos: u32,
    /// `Left` of the writer.
    writer_left: u32,
    /// The newest `Left` of its readers.
    reader_left: u32,
    /// The newest SC fence happens-before the writer.
    writer_fence: u32,
    /// The newest SC fence happens-before one of its readers.
    reader_fence: u32,
    /// The oldest SC fence the writer happens-before.
    fence_after: u32,
    /// The oldest SC fence one of its readers happens-before.
    fence_after_reader: u32,
}

impl MessageOrder {
    fn positions_mut(&mut self) -> [&mut u32; 7] {
        [
            &mut self.pos,
            &mut self.writer_left,
            &mut self.reader_left,
            &mut self.writer_fence,
            &mut self.reader_fence,
            &mut self.fence_after,
            &mut self.fence_after_reader,
        ]
    }
}

/// Lowers `slot` to `v` (0 means none on both sides).
fn lower_to(slot: &mut u32, v: u32) {
    if v != 0 && (*slot == 0 || v < *slot) {
        *slot = v;
    }
}

/// The minimum of two bounds where 0 means none.
fn min_bound(a: u32, b: u32) -> u32 {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a.min(b),
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Location {
    range: Range,
    /// Oldest first; never empty.
    messages: Vec<Message>,
    /// Of the messages collected: the newest writer or reader `Left`, and the newest
    /// SC fence before a writer or reader (what `Hbv` and `Hbr` prefixes still need).
    dropped_left: u32,
    dropped_fence: u32,
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
    /// The position of its newest seq_cst event (its seq_cst events are `sb`, so
    /// `psc`, ordered).
    last_sc: u32,
    /// Per location, the position of its newest seq_cst access there.
    own_sc: Vec<(LocKey, u32)>,
    /// The location of its last event (`None`: a fence, or none yet).
    last_loc: Option<LocKey>,
    /// `Anch` in `cur` as of its last event at a location other than `last_loc`.
    anch_prev: u32,
}

impl ThreadViews {
    fn views_mut(&mut self) -> impl Iterator<Item = &mut View> {
        [&mut self.cur, &mut self.acq, &mut self.rel].into_iter()
    }

    fn positions_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        [&mut self.last_sc, &mut self.anch_prev]
            .into_iter()
            .chain(self.own_sc.iter_mut().map(|(_, p)| p))
    }

    /// Raises `key` in `cur` and `acq` (`acq` stays above `cur`).
    fn learn(&mut self, key: HbKey, v: u32) {
        self.cur.raise_hb(key, v);
        self.acq.raise_hb(key, v);
    }
}

/// The C11 memory of one state: see the module doc of `c11/mod.rs`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct C11Memory {
    /// Sorted by key; ranges never overlap.
    locations: Vec<Location>,
    /// Sorted by thread.
    threads: Vec<ThreadViews>,
    /// What was released to each synchronisation object of a modelled primitive
    /// (a mutex's address, a thread's end): acquiring it joins the view. Sorted by key.
    sync: Vec<(LocKey, View)>,
    /// Most messages kept per location (0: unbounded).
    history_bound: u32,
    /// Some message still readable was dropped for the bound: the run is inconclusive.
    bound_hit: bool,
    /// What the steps since the last [`Self::take_log`] did to the histories. Not
    /// state: the caller takes it after every step.
    log: HistoryLog,
}

/// What a step did to the locations' histories, in order, for whoever keeps data per
/// message (race detection: the clock a write releases, acquired by its readers).
/// Timestamps are those of the moment of the event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryEvent {
    /// The location `at` starts with one message (from memory), retiring the settled
    /// locations it overlaps, whose message views went into its message.
    Started { at: LocKey, retired: Vec<LocKey> },
    /// The thread read message `index` with `order`.
    Read {
        at: LocKey,
        index: u32,
        order: Order,
    },
    /// The thread wrote a message at `index` with `order` (later ones move up one);
    /// `rmw`: it read message `index - 1` in the same step.
    Wrote {
        at: LocKey,
        index: u32,
        order: Order,
        rmw: bool,
    },
    /// The oldest `count` messages went (collection, the history bound).
    Dropped { at: LocKey, count: u32 },
    /// The location went (memory released or written behind the machine's back).
    Forgotten { at: LocKey },
}

/// The events of a step: compares equal to any other and hashes to nothing, so a
/// memory's equality is its state's.
#[derive(Clone, Debug, Default)]
struct HistoryLog(Vec<HistoryEvent>);

impl PartialEq for HistoryLog {
    fn eq(&self, _: &HistoryLog) -> bool {
        true
    }
}

impl Eq for HistoryLog {}

impl std::hash::Hash for HistoryLog {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl HistoryLog {
    /// Bytes that tell two logs apart (for `decide`).
    fn serialize_into(&self, out: &mut Vec<u8>) {
        for e in &self.0 {
            let (tag, at, a, b) = match e {
                HistoryEvent::Started { at, retired } => (0, at, retired.len() as u32, 0),
                HistoryEvent::Read { at, index, order } => (1, at, *index, *order as u32),
                HistoryEvent::Wrote {
                    at,
                    index,
                    order,
                    rmw,
                } => (2, at, *index, *order as u32 | u32::from(*rmw) << 8),
                HistoryEvent::Dropped { at, count } => (3, at, *count, 0),
                HistoryEvent::Forgotten { at } => (4, at, 0, 0),
            };
            out.push(tag);
            for v in [at.object, at.offset, a, b] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
}

impl C11Memory {
    /// A memory with thread 0 and no location yet; `history_bound` 0 is unbounded.
    pub fn new(history_bound: u32) -> Self {
        C11Memory {
            locations: Vec::new(),
            threads: vec![ThreadViews::default()],
            sync: Vec::new(),
            history_bound,
            bound_hit: false,
            log: HistoryLog::default(),
        }
    }

    /// What the steps since the last call did to the histories (see [`HistoryEvent`]).
    pub fn take_log(&mut self) -> Vec<HistoryEvent> {
        std::mem::take(&mut self.log.0)
    }

    /// A primitive's release to `key` (unlock, signal, barrier arrival): `thread`'s
    /// `cur` joins what the key holds.
    pub fn release_to(&mut self, thread: ThreadId, key: LocKey) {
        let cur = self.thread_mut(thread).cur.clone();
        match self.sync.binary_search_by_key(&key, |e| e.0) {
            Ok(i) => self.sync[i].1.join(&cur),
            Err(i) => self.sync.insert(i, (key, cur)),
        }
    }

    /// A primitive's acquire from `key` (lock, wake, join): what was released there
    /// happens before everything `thread` does from now on.
    pub fn acquire_from(&mut self, thread: ThreadId, key: LocKey) {
        let Ok(i) = self.sync.binary_search_by_key(&key, |e| e.0) else {
            return;
        };
        let released = self.sync[i].1.clone();
        let t = self.thread_mut(thread);
        t.cur.join(&released);
        t.acq.join(&released);
        self.collect();
    }

    /// The object `object` is released: its locations and what was released to
    /// synchronisation objects in it are forgotten (the memory may be reused).
    pub fn forget_object(&mut self, object: u32) {
        let keys: Vec<LocKey> = self
            .locations
            .iter()
            .map(|l| l.key())
            .filter(|k| k.object == object)
            .collect();
        self.locations.retain(|l| l.range.addr.object != object);
        for key in keys {
            self.log.0.push(HistoryEvent::Forgotten { at: key });
            self.forget_location(key);
        }
        self.sync.retain(|(k, _)| k.object != object);
    }

    /// Every object this memory names (locations, synchronisation keys) and every
    /// pointer its messages hold.
    pub fn for_each_pointer(&self, f: &mut dyn FnMut(u64)) {
        let ptr = |k: LocKey| (u64::from(k.object) << 32) | u64::from(k.offset);
        for l in &self.locations {
            f(ptr(l.key()));
            for m in &l.messages {
                let mut payload = m.payload.clone();
                payload.for_each_pointer_mut(|p| f(*p));
            }
        }
        for (k, _) in &self.sync {
            f(ptr(*k));
        }
    }

    /// Whether no location, thread view or release is held beyond thread 0's empty start.
    pub fn is_initial(&self) -> bool {
        *self == C11Memory::new(self.history_bound)
    }

    /// The bound this memory was made with (0: unbounded).
    pub fn history_bound(&self) -> u32 {
        self.history_bound
    }

    /// The newest value of the location of exactly `range`, if it has one.
    pub fn newest(&self, range: Range) -> Option<&Payload> {
        self.find(range)
            .and_then(|i| self.locations[i].messages.last())
            .map(|m| &m.payload)
    }

    /// Forgets the location of exactly `range`: its next access starts it again from
    /// memory (which was written behind the machine's back).
    pub fn restart(&mut self, range: Range) {
        if let Some(i) = self.find(range) {
            let key = self.locations.remove(i).key();
            self.log.0.push(HistoryEvent::Forgotten { at: key });
            self.forget_location(key);
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

    /// How many messages the location `key` holds (`None`: no such location).
    pub fn message_count(&self, key: LocKey) -> Option<usize> {
        let i = self
            .locations
            .binary_search_by_key(&key, |l| l.key())
            .ok()?;
        Some(self.locations[i].messages.len())
    }

    /// The oldest message `thread` may read at `range` (index into [`Self::history`]).
    pub fn view_of(&self, thread: ThreadId, range: Range) -> u32 {
        self.seen(thread, key_of(range))
    }

    /// `child` starts: everything its parent has seen happens before it.
    pub fn spawn(&mut self, parent: ThreadId, child: ThreadId) {
        let cur = self.thread_mut(parent).cur.clone();
        let t = self.thread_mut(child);
        *t = ThreadViews {
            thread: child,
            acq: cur.clone(),
            cur,
            ..ThreadViews::default()
        };
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
        // A non-atomic load reads what a relaxed one could (module doc: one message
        // when race-free), without its synchronisation (`read_effect`).
        let cur = self.seen(thread, key);
        let mut outcomes = Vec::new();
        for j in cur..len {
            let mut next = self.clone();
            let before = next.before(thread, Some(key));
            let value = next.read_effect(li, thread, j, order);
            let event = Event {
                li: Some(li),
                read: Some(j),
                write: None,
            };
            for placed in next.order_event(thread, event, order, before) {
                outcomes.push((placed, value.clone()));
            }
        }
        self.decide(choice, outcomes).ok_or(C11Error::NoOutcome)
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
        if order == Order::NonAtomic && self.repeats_newest(li, thread, key, &payload) {
            // The same write again (module doc, "Non-atomic accesses"): an event at
            // `x` for the SC order's bookkeeping, no message.
            self.before(thread, Some(key));
            return self.write_through(mem, range);
        }
        // A non-atomic store takes the places a relaxed one could (module doc: only
        // the end when race-free); it releases nothing (`write_effect`).
        let first = self.seen(thread, key) + 1;
        let positions: Vec<u32> = (first..=len).filter(|&p| self.slot_free(li, p)).collect();
        let mut outcomes = Vec::new();
        for p in positions {
            let mut next = self.clone();
            let before = next.before(thread, Some(key));
            next.write_effect(li, thread, p, payload.clone(), order, None);
            let event = Event {
                li: Some(li),
                read: None,
                write: Some(p),
            };
            for placed in next.order_event(thread, event, order, before) {
                outcomes.push((placed, Payload::default()));
            }
        }
        self.decide(choice, outcomes).ok_or(C11Error::NoOutcome)?;
        self.write_through(mem, range)
    }

    /// A read-modify-write: `update` maps the value read to the value written, or to
    /// `None` for a failing compare-exchange, which is a load with `failure` order.
    /// Returns the value read and whether it wrote.
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
    ) -> Result<(Payload, bool), C11Error<M::Error>> {
        self.read_modify_write(mem, choice, thread, range, success, failure, update, false)
    }

    /// A weak compare-exchange (`atomic_compare_exchange_weak`): as [`Self::rmw`], and
    /// where the comparison succeeds it may also fail spuriously (LL/SC on ARM and
    /// POWER), a load with `failure` order of the same message. Returns the value read
    /// and whether it wrote.
    #[allow(clippy::too_many_arguments)]
    pub fn compare_exchange_weak<M: SharedMemory, C: Choice>(
        &mut self,
        mem: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
        success: Order,
        failure: Order,
        update: &dyn Fn(&Payload) -> Option<Payload>,
    ) -> Result<(Payload, bool), C11Error<M::Error>> {
        self.read_modify_write(mem, choice, thread, range, success, failure, update, true)
    }

    /// [`Self::rmw`], and with `weak` the spurious failures of
    /// [`Self::compare_exchange_weak`]: the value read and whether it wrote.
    #[allow(clippy::too_many_arguments)]
    fn read_modify_write<M: SharedMemory, C: Choice>(
        &mut self,
        mem: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
        success: Order,
        failure: Order,
        update: &dyn Fn(&Payload) -> Option<Payload>,
        weak: bool,
    ) -> Result<(Payload, bool), C11Error<M::Error>> {
        let (li, key, len) = self.access(mem, thread, range)?;
        let cur = self.seen(thread, key);
        let mut outcomes = Vec::new();
        for j in cur..len {
            let old = self.locations[li].messages[j as usize].payload.clone();
            let new = update(&old);
            // A spurious failure reads any message a failing one could: a failed
            // compare-exchange is a plain read, so even one whose successor is already
            // an RMW's (no success can read it).
            let spurious = new.is_some() && weak;
            let fails = new.is_none() || spurious;
            if let Some(new) = new.filter(|_| self.slot_free(li, j + 1)) {
                let mut next = self.clone();
                let before = next.before(thread, Some(key));
                let read_view = next.locations[li].messages[j as usize].view.clone();
                next.read_effect(li, thread, j, read_part(success));
                next.write_effect(li, thread, j + 1, new, success, Some(read_view));
                let event = Event {
                    li: Some(li),
                    read: Some(j),
                    write: Some(j + 1),
                };
                for placed in next.order_event(thread, event, success, before) {
                    outcomes.push((placed, (old.clone(), true)));
                }
            }
            if fails {
                let mut next = self.clone();
                let before = next.before(thread, Some(key));
                next.read_effect(li, thread, j, failure);
                let event = Event {
                    li: Some(li),
                    read: Some(j),
                    write: None,
                };
                for placed in next.order_event(thread, event, failure, before) {
                    outcomes.push((placed, (old.clone(), false)));
                }
            }
        }
        let done = self.decide(choice, outcomes).ok_or(C11Error::NoOutcome)?;
        self.write_through(mem, range)?;
        Ok(done)
    }

    /// `atomic_thread_fence(order)`; a seq_cst fence takes a place in the SC order,
    /// which may be a choice. False when it has none (see [`C11Error::NoOutcome`]).
    pub fn fence<C: Choice>(&mut self, choice: &mut C, thread: ThreadId, order: Order) -> bool {
        if !order.acquires() && !order.releases() {
            // A relaxed fence is no event at all.
            return true;
        }
        let mut next = self.clone();
        let before = next.before(thread, None);
        let t = next.thread_mut(thread);
        if order.acquires() {
            let acq = t.acq.clone();
            t.cur.join(&acq);
        }
        let event = Event {
            li: None,
            read: None,
            write: None,
        };
        let outcomes = next
            .order_event(thread, event, order, before)
            .into_iter()
            .map(|mut placed| {
                let t = placed.thread_mut(thread);
                if order.releases() {
                    t.rel = t.cur.clone();
                }
                placed.collect();
                (placed, Payload::default())
            })
            .collect();
        self.decide(choice, outcomes).is_some()
    }

    /// The canonical bytes of this memory: locations by address, threads by id,
    /// timestamps as positions among live messages.
    pub fn serialize_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.locations.len() as u32).to_le_bytes());
        for l in &self.locations {
            out.extend_from_slice(&l.range.addr.object.to_le_bytes());
            out.extend_from_slice(&l.range.addr.offset.to_le_bytes());
            out.extend_from_slice(&l.range.len.to_le_bytes());
            out.extend_from_slice(&l.dropped_left.to_le_bytes());
            out.extend_from_slice(&l.dropped_fence.to_le_bytes());
            out.extend_from_slice(&(l.messages.len() as u32).to_le_bytes());
            for m in &l.messages {
                m.payload.serialize_into(out);
                m.view.serialize_into(out);
                out.push(u8::from(m.rmw));
                let mut order = m.sc.clone();
                for p in order.positions_mut() {
                    out.extend_from_slice(&p.to_le_bytes());
                }
            }
        }
        out.extend_from_slice(&(self.threads.len() as u32).to_le_bytes());
        for t in &self.threads {
            out.extend_from_slice(&t.thread.to_le_bytes());
            t.cur.serialize_into(out);
            t.acq.serialize_into(out);
            t.rel.serialize_into(out);
            out.extend_from_slice(&t.last_sc.to_le_bytes());
            out.extend_from_slice(&t.anch_prev.to_le_bytes());
            out.extend_from_slice(&(t.own_sc.len() as u32).to_le_bytes());
            for (loc, p) in &t.own_sc {
                out.extend_from_slice(&loc.object.to_le_bytes());
                out.extend_from_slice(&loc.offset.to_le_bytes());
                out.extend_from_slice(&p.to_le_bytes());
            }
            match t.last_loc {
                None => out.push(0),
                Some(loc) => {
                    out.push(1);
                    out.extend_from_slice(&loc.object.to_le_bytes());
                    out.extend_from_slice(&loc.offset.to_le_bytes());
                }
            }
        }
        out.extend_from_slice(&(self.sync.len() as u32).to_le_bytes());
        for (k, v) in &self.sync {
            out.extend_from_slice(&k.object.to_le_bytes());
            out.extend_from_slice(&k.offset.to_le_bytes());
            v.serialize_into(out);
        }
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
            let (dropped_left, dropped_fence) = (r.u32()?, r.u32()?);
            let n = r.count(41)?;
            let mut messages = Vec::with_capacity(n);
            for _ in 0..n {
                let payload = Payload::decode_from(&mut r)?;
                let view = View::decode_from(&mut r)?;
                let rmw = r.bool()?;
                let mut sc = MessageOrder::default();
                for p in sc.positions_mut() {
                    *p = r.u32()?;
                }
                if payload.len() != range.len {
                    return None;
                }
                messages.push(Message {
                    payload,
                    view,
                    rmw,
                    sc,
                });
            }
            // As kept: ascending starts, no overlap (checking neighbours suffices).
            let sorted = locations
                .last()
                .is_none_or(|l| l.key() < key_of(range) && !l.range.overlaps(&range));
            if messages.is_empty() || !sorted {
                return None;
            }
            locations.push(Location {
                range,
                messages,
                dropped_left,
                dropped_fence,
            });
        }
        let count = r.count(33)?;
        let mut threads: Vec<ThreadViews> = Vec::with_capacity(count);
        for _ in 0..count {
            let thread = r.u32()?;
            let cur = View::decode_from(&mut r)?;
            let acq = View::decode_from(&mut r)?;
            let rel = View::decode_from(&mut r)?;
            let (last_sc, anch_prev) = (r.u32()?, r.u32()?);
            let n = r.count(12)?;
            let mut own_sc: Vec<(LocKey, u32)> = Vec::with_capacity(n);
            for _ in 0..n {
                let loc = LocKey {
                    object: r.u32()?,
                    offset: r.u32()?,
                };
                if own_sc.last().is_some_and(|&(last, _)| last >= loc) {
                    return None;
                }
                own_sc.push((loc, r.u32()?));
            }
            let last_loc = match r.u8()? {
                0 => None,
                1 => Some(LocKey {
                    object: r.u32()?,
                    offset: r.u32()?,
                }),
                _ => return None,
            };
            if threads.last().is_some_and(|t| t.thread >= thread) {
                return None;
            }
            threads.push(ThreadViews {
                thread,
                cur,
                acq,
                rel,
                last_sc,
                own_sc,
                last_loc,
                anch_prev,
            });
        }
        let n = r.count(16)?;
        let mut sync: Vec<(LocKey, View)> = Vec::with_capacity(n);
        for _ in 0..n {
            let key = LocKey {
                object: r.u32()?,
                offset: r.u32()?,
            };
            if sync.last().is_some_and(|&(last, _)| last >= key) {
                return None;
            }
            sync.push((key, View::decode_from(&mut r)?));
        }
        let bound_hit = r.bool()?;
        if !r.is_empty() {
            return None;
        }
        let memory = C11Memory {
            locations,
            threads,
            sync,
            history_bound,
            bound_hit,
            log: HistoryLog::default(),
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
            }
        }
        for t in &mut renamed.threads {
            for v in t.views_mut() {
                v.rename(&mut rename_key);
            }
            for (k, _) in &mut t.own_sc {
                *k = rename_key(*k);
            }
            t.own_sc.sort_by_key(|(k, _)| *k);
            t.last_loc = t.last_loc.map(&mut rename_key);
        }
        for (k, v) in &mut renamed.sync {
            *k = rename_key(*k);
            v.rename(&mut rename_key);
        }
        renamed.sync.sort_by_key(|(k, _)| *k);
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

    /// Whether a non-atomic store of `payload` by `thread` would repeat the newest
    /// message of location `li`, which the thread has seen: the same bytes, no view
    /// to acquire (non-atomic, or relaxed with nothing released), no place in the SC
    /// order.
    fn repeats_newest(&self, li: usize, thread: ThreadId, key: LocKey, payload: &Payload) -> bool {
        let messages = &self.locations[li].messages;
        let Some(newest) = messages.last() else {
            return false;
        };
        let at = messages.len() as u32 - 1;
        // What a message that releases nothing teaches: itself.
        let mut own = View::default();
        own.raise(key, at);
        self.seen(thread, key) == at
            && newest.payload == *payload
            && newest.view == own
            && newest.sc == MessageOrder::default()
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
        self.log.0.push(HistoryEvent::Read {
            at: key,
            index: j,
            order,
        });
        let t = self.thread_mut(thread);
        t.cur.raise(key, j);
        t.acq.raise(key, j);
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
        self.for_each_view(|v| {
            v.remap(key, |ts| if ts >= p { ts + 1 } else { ts });
            v.remap_hb(|k, e| match k {
                HbKey::Hbv(l) | HbKey::Hbr(l) if l == key && e > p => e + 1,
                _ => e,
            });
        });
        let t = self.thread_mut(thread);
        t.cur.raise(key, p);
        t.acq.raise(key, p);
        let mut view = if order.releases() {
            t.cur.clone()
        } else {
            // A non-atomic store releases nothing: reading it atomically is a race.
            let mut v = if order.is_atomic() {
                t.rel.clone()
            } else {
                View::default()
            };
            v.raise(key, p);
            v
        };
        let rmw = read_view.is_some();
        self.log.0.push(HistoryEvent::Wrote {
            at: key,
            index: p,
            order,
            rmw,
        });
        if let Some(r) = read_view {
            view.join(&r);
        }
        self.locations[li].messages.insert(
            p as usize,
            Message {
                payload,
                view,
                rmw,
                sc: MessageOrder::default(),
            },
        );
    }

    /// What the thread's state says before an event at `loc` (`None`: a fence),
    /// before the event acquires anything; also moves `anch_prev` on.
    fn before(&mut self, thread: ThreadId, loc: Option<LocKey>) -> Before {
        let t = self.thread_mut(thread);
        if loc.is_none() || t.last_loc != loc {
            t.anch_prev = t.cur.hb(HbKey::Anch);
        }
        t.last_loc = loc;
        Before {
            sb: t.last_sc.max(t.cur.hb(HbKey::Fen)),
            anch: t.anch_prev,
        }
    }

    /// Places `event` (its read and write already done, its acquisition too) in the
    /// SC order: every place it may take when seq_cst, none when it would close a
    /// `psc` cycle. Each memory returned is collected.
    fn order_event(
        mut self,
        thread: ThreadId,
        event: Event,
        order: Order,
        before: Before,
    ) -> Vec<C11Memory> {
        let key = event.li.map(|li| self.locations[li].key());
        let cur = &self.thread_mut(thread).cur;
        let fence = cur.hb(HbKey::Fen);
        // `psc` edges into the event: the newest source is the lower bound.
        let mut lower = before.sb;
        // `psc` edges out of it (when seq_cst), and out of the SC fences that happen
        // before it: the oldest target is the upper bound (0: none).
        let (mut upper, mut upper_fence) = (0, 0);
        if let (Some(li), Some(x)) = (event.li, key) {
            lower = lower.max(before.anch).max(cur.hb(HbKey::Hbl(x)));
            let loc = &self.locations[li];
            if let Some(p) = event.write {
                // mo and rb: writers and readers of messages mo-before the write.
                lower = lower.max(loc.dropped_left);
                for m in &loc.messages[..p as usize] {
                    lower = lower.max(m.sc.writer_left).max(m.sc.reader_left);
                }
            }
            let first_target = event.write.or(event.read).map_or(0, |i| i + 1);
            for m in &loc.messages[first_target as usize..] {
                upper = min_bound(upper, min_bound(m.sc.pos, m.sc.fence_after));
                upper_fence = min_bound(upper_fence, m.sc.fence_after_reader);
            }
            upper_fence = min_bound(upper_fence, upper);
        } else {
            // Sources that happen before a fence need no bound (module doc).
            let cur = cur.clone();
            lower = cur.hb(HbKey::Pre).max(self.fence_prefix(&cur));
        }
        if fence != 0 && upper_fence != 0 && fence >= upper_fence {
            return Vec::new();
        }
        if !order.is_sc() {
            self.apply(thread, &event, key, order, 0);
            self.collect();
            return vec![self];
        }
        let top = if upper == 0 {
            self.max_position()
        } else {
            upper - 1
        };
        (lower..=top)
            .map(|g| {
                let mut placed = self.clone();
                placed.for_each_position(&mut |v| if v > g { v + 1 } else { v });
                placed.apply(thread, &event, key, order, g + 1);
                placed.collect();
                placed
            })
            .collect()
    }

    /// The effects of an event at position `pos` (0: not seq_cst): what its thread,
    /// its messages and the SC fences learn.
    fn apply(
        &mut self,
        thread: ThreadId,
        event: &Event,
        key: Option<LocKey>,
        order: Order,
        pos: u32,
    ) {
        let t = self.thread_mut(thread);
        let fence = t.cur.hb(HbKey::Fen);
        let left = pos.max(fence);
        let anchored = t
            .own_sc
            .iter()
            .filter(|&&(l, _)| Some(l) != key)
            .map(|&(_, p)| p)
            .max()
            .unwrap_or(0);
        t.learn(HbKey::Anch, anchored);
        if pos != 0 {
            t.last_sc = pos;
        }
        let (Some(li), Some(x)) = (event.li, key) else {
            if pos != 0 {
                t.learn(HbKey::Fen, pos);
                let cur = t.cur.clone();
                self.mark_fence_after(&cur, pos);
            }
            return;
        };
        t.learn(HbKey::Hbl(x), left);
        if pos != 0 {
            match t.own_sc.binary_search_by_key(&x, |e| e.0) {
                Ok(i) => t.own_sc[i].1 = pos,
                Err(i) => t.own_sc.insert(i, (x, pos)),
            }
        }
        if let Some(j) = event.read {
            t.learn(HbKey::Hbr(x), j + 1);
        }
        if let Some(p) = event.write {
            t.learn(HbKey::Hbv(x), p + 1);
        }
        let cur = t.cur.clone();
        let messages = &mut self.locations[li].messages;
        if let Some(j) = event.read {
            let m = &mut messages[j as usize].sc;
            m.reader_left = m.reader_left.max(left);
            m.reader_fence = m.reader_fence.max(fence);
        }
        if let Some(p) = event.write {
            let m = &mut messages[p as usize];
            m.sc.pos = pos;
            m.sc.writer_left = left;
            m.sc.writer_fence = fence;
            if order.releases() {
                m.view.join(&cur);
            }
        }
    }

    /// The SC fence at `pos` with happens-before knowledge `cur`: the newest write and
    /// read of each location before it get it as a bound.
    fn mark_fence_after(&mut self, cur: &View, pos: u32) {
        for &(k, e) in cur.hb_entries() {
            let (HbKey::Hbv(x) | HbKey::Hbr(x)) = k else {
                continue;
            };
            let Ok(li) = self.locations.binary_search_by_key(&x, |l| l.key()) else {
                continue;
            };
            let m = &mut self.locations[li].messages[e as usize - 1].sc;
            if matches!(k, HbKey::Hbv(_)) {
                lower_to(&mut m.fence_after, pos);
            } else {
                lower_to(&mut m.fence_after_reader, pos);
            }
        }
    }

    /// For an SC fence with happens-before knowledge `cur`: the newest `psc` source
    /// through an `mo`/`rb` (or `eco`) edge into a write or read that happens before it.
    fn fence_prefix(&self, cur: &View) -> u32 {
        let mut lower = 0;
        for &(k, e) in cur.hb_entries() {
            if let HbKey::Hbv(x) | HbKey::Hbr(x) = k {
                if let Ok(li) = self.locations.binary_search_by_key(&x, |l| l.key()) {
                    lower = lower.max(self.prefix(li, k, e - 1));
                }
            }
        }
        lower
    }

    /// The newest `psc` source a fence learns from message `i` of location `li`
    /// being written (`Hbv`) or read (`Hbr`) happens-before it: the `Left` of writers
    /// and readers mo-before a write; the fences before writers up to and readers
    /// mo-before a read (`psc_F` through `eco`).
    fn prefix(&self, li: usize, kind: HbKey, i: u32) -> u32 {
        let loc = &self.locations[li];
        let i = i as usize;
        if matches!(kind, HbKey::Hbv(_)) {
            loc.messages[..i]
                .iter()
                .map(|m| m.sc.writer_left.max(m.sc.reader_left))
                .fold(loc.dropped_left, u32::max)
        } else {
            loc.messages[..i]
                .iter()
                .map(|m| m.sc.writer_fence.max(m.sc.reader_fence))
                .fold(loc.dropped_fence, u32::max)
                .max(loc.messages[i].sc.writer_fence)
        }
    }

    /// Before the oldest `drop` messages of `li` go: every `Hbv`/`Hbr` entry naming
    /// one of them turns into what it would give a fence (`Pre`), which can no longer
    /// change, and the others are renumbered.
    fn cut_history(&mut self, li: usize, drop: u32) {
        let key = self.locations[li].key();
        let bounds: Vec<(u32, u32)> = (0..drop)
            .map(|i| {
                (
                    self.prefix(li, HbKey::Hbv(key), i),
                    self.prefix(li, HbKey::Hbr(key), i),
                )
            })
            .collect();
        self.for_each_view(|v| {
            let mut pre = 0;
            v.remap_hb(|k, e| match k {
                HbKey::Hbv(l) | HbKey::Hbr(l) if l == key => {
                    if e > drop {
                        e - drop
                    } else {
                        let (written, read) = bounds[e as usize - 1];
                        pre = pre.max(if matches!(k, HbKey::Hbv(_)) {
                            written
                        } else {
                            read
                        });
                        0
                    }
                }
                _ => e,
            });
            v.raise_hb(HbKey::Pre, pre);
        });
        let loc = &mut self.locations[li];
        for m in &loc.messages[..drop as usize] {
            loc.dropped_left = loc.dropped_left.max(m.sc.writer_left.max(m.sc.reader_left));
            loc.dropped_fence = loc
                .dropped_fence
                .max(m.sc.writer_fence.max(m.sc.reader_fence));
        }
    }

    /// Drops every message no thread can read any more (older than every thread's
    /// view of its location) and, past the history bound, the oldest ones (noting
    /// the cut); renumbers the rest from 0. Then renumbers the SC order's positions
    /// still named anywhere from 1, densely.
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
            self.cut_history(li, drop);
            self.log.0.push(HistoryEvent::Dropped {
                at: key,
                count: drop,
            });
            let messages = &mut self.locations[li].messages;
            messages.drain(..drop as usize);
            messages[0].rmw = false;
            self.for_each_view(|v| v.remap(key, |ts| ts.saturating_sub(drop)));
        }
        let mut named = Vec::new();
        self.for_each_position(&mut |v| {
            named.push(v);
            v
        });
        named.sort_unstable();
        named.dedup();
        self.for_each_position(&mut |v| match named.binary_search(&v) {
            Ok(i) if v != 0 => i as u32 + u32::from(named[0] != 0),
            _ => 0,
        });
    }

    /// The newest position in the SC order named anywhere.
    fn max_position(&mut self) -> u32 {
        let mut max = 0;
        self.for_each_position(&mut |v| {
            max = max.max(v);
            v
        });
        max
    }

    /// Rewrites every position in the SC order with `f` (0, none, stays 0).
    fn for_each_position(&mut self, f: &mut dyn FnMut(u32) -> u32) {
        let mut g = |v: u32| if v == 0 { 0 } else { f(v) };
        for l in &mut self.locations {
            l.dropped_left = g(l.dropped_left);
            l.dropped_fence = g(l.dropped_fence);
            for m in &mut l.messages {
                for p in m.sc.positions_mut() {
                    *p = g(*p);
                }
                m.view
                    .remap_hb(|k, v| if k.is_position() { g(v) } else { v });
            }
        }
        for t in &mut self.threads {
            for p in t.positions_mut() {
                *p = g(*p);
            }
            for v in t.views_mut() {
                v.remap_hb(|k, v| if k.is_position() { g(v) } else { v });
            }
        }
        for (_, v) in &mut self.sync {
            v.remap_hb(|k, v| if k.is_position() { g(v) } else { v });
        }
    }

    fn for_each_view(&mut self, mut f: impl FnMut(&mut View)) {
        for l in &mut self.locations {
            for m in &mut l.messages {
                f(&mut m.view);
            }
        }
        for t in &mut self.threads {
            for v in t.views_mut() {
                f(v);
            }
        }
        for (_, v) in &mut self.sync {
            f(v);
        }
    }

    /// Keeps one of the outcomes, asking `choice` when they differ; `None` (and no
    /// change) when there is none.
    fn decide<C: Choice, V: OutcomeValue>(
        &mut self,
        choice: &mut C,
        outcomes: Vec<(C11Memory, V)>,
    ) -> Option<V> {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut distinct = Vec::new();
        for (m, value) in outcomes {
            let mut key = Vec::new();
            m.serialize_into(&mut key);
            value.serialize_into(&mut key);
            // Outcomes alike in state may differ in what a reader acquires.
            m.log.serialize_into(&mut key);
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
        let (m, value) = distinct.into_iter().nth(pick)?;
        *self = m;
        Some(value)
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
        let retired = overlapping
            .iter()
            .map(|&i| self.locations[i].key())
            .collect();
        self.log.0.push(HistoryEvent::Started {
            at: key_of(range),
            retired,
        });
        for &i in overlapping.iter().rev() {
            // What the SC order knew through this location is forgotten: RC11 has no
            // mixed sizes, and forgetting only drops `psc` edges (allows more).
            let retired = self.locations.remove(i);
            view.join(&retired.messages[0].view);
            let key = retired.key();
            view.forget(key);
            self.forget_location(key);
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
                    view,
                    rmw: false,
                    sc: MessageOrder::default(),
                }],
                dropped_left: 0,
                dropped_fence: 0,
            },
        );
        Ok(at)
    }

    /// Drops what views and threads record about the location `key` (gone or retired).
    fn forget_location(&mut self, key: LocKey) {
        self.for_each_view(|v| v.forget(key));
        for t in &mut self.threads {
            t.own_sc.retain(|(l, _)| *l != key);
            if t.last_loc == Some(key) {
                t.last_loc = None;
            }
        }
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

/// An access (or a fence: no location) as the SC order sees it; indices are
/// timestamps once its write is in place.
struct Event {
    li: Option<usize>,
    read: Option<u32>,
    write: Option<u32>,
}

/// A thread's state before an event, as the SC order needs it.
struct Before {
    /// The newest of its seq_cst events and of the SC fences happening before it so
    /// far (`psc` through `sb`).
    sb: u32,
    /// `Anch` as of its last event at another location (`sb|≠loc ; hb ; sb|≠loc`).
    anch: u32,
}

/// The read half of an RMW's order.
/// What an access returns besides the machine it leaves: part of what makes two
/// outcomes distinct.
trait OutcomeValue {
    fn serialize_into(&self, out: &mut Vec<u8>);
}

impl OutcomeValue for Payload {
    fn serialize_into(&self, out: &mut Vec<u8>) {
        Payload::serialize_into(self, out);
    }
}

/// The value a read-modify-write read and whether it wrote.
impl OutcomeValue for (Payload, bool) {
    fn serialize_into(&self, out: &mut Vec<u8>) {
        self.0.serialize_into(out);
        out.push(u8::from(self.1));
    }
}

fn read_part(order: Order) -> Order {
    match order {
        Order::Release => Order::Relaxed,
        Order::AcqRel => Order::Acquire,
        o => o,
    }
}
