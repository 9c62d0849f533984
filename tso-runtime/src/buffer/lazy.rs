//! The delayed-flush x86-TSO store buffers (ARCHITECTURE.md, "Semantics"; §3.1–3.2 of
//! "Model Checking of C++ Programs under the x86-TSO Memory Model", Štill and Barnat).

use std::rc::Rc;

use super::byte_spans::ByteSpans;
use super::bytes::Reader;
use super::entry::Entry;
use super::entry_list::{self, EntryList};
use super::error::{rmw_unbuffered, write_unbuffered, BufferError};
use super::memo::{self, Resolved};
use super::resolve::{resolve, BufferView, FlushOutcome, Resolution, ResolveError};
use super::types::{
    assemble, Addr, ByteOrigin, Choice, Payload, Range, SharedMemory, ThreadId, POINTER_SIZE,
};

/// Most distinct flush outcomes one operation may offer before it is refused.
pub const MAX_OUTCOMES: usize = 1 << 16;

type Result<T, M> = std::result::Result<T, BufferError<<M as SharedMemory>::Error>>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ThreadBuffer {
    thread: ThreadId,
    /// Oldest first. Shared between cloned states chunk by chunk.
    entries: EntryList,
}

/// The store buffers of all threads. Cheap to clone (buffers are shared
/// copy-on-write, chunk by chunk); `Hash`/`Eq` compare contents. Empty buffers are not stored,
/// so equal contents always give equal values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StoreBuffers {
    /// Sorted by thread id; no empty buffer.
    buffers: Vec<ThreadBuffer>,
}

impl StoreBuffers {
    pub fn new() -> Self {
        StoreBuffers::default()
    }

    /// The thread's buffer, oldest entry first (empty if it has none).
    pub fn entries(&self, thread: ThreadId) -> &EntryList {
        self.index(thread)
            .map_or(&entry_list::EMPTY, |i| &self.buffers[i].entries)
    }

    /// True when the thread has no buffered entry at all (flushed ones included).
    pub fn is_empty(&self, thread: ThreadId) -> bool {
        self.index(thread).is_none()
    }

    /// Threads that have buffered entries, ascending.
    pub fn threads(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.buffers.iter().map(|b| b.thread)
    }

    /// Number of entries of `thread` not yet known to be in memory.
    pub(crate) fn unflushed_len(&self, thread: ThreadId) -> usize {
        self.entries(thread).iter().filter(|e| !e.flushed).count()
    }

    /// True if any buffered entry (of any thread) overlaps `range`.
    pub(crate) fn has_overlapping(&self, range: Range) -> bool {
        self.buffers.iter().any(|b| {
            b.entries
                .of_object(range.addr.object)
                .any(|(_, e)| e.range.overlaps(&range))
        })
    }

    /// Loads `range` as `thread` sees it (TSO load).
    pub fn load<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
    ) -> Result<Payload, M> {
        self.settle(memory, choice, &[range], Forced::None, thread)?;
        self.read_through(memory, thread, range)
    }

    /// Appends a store; with `bound` > 0 first evicts the thread's oldest
    /// unflushed entry when it already has `bound` of them.
    #[allow(clippy::too_many_arguments)]
    pub fn store<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
        payload: Payload,
        origin: u32,
        bound: u32,
    ) -> Result<(), M> {
        BufferError::check_length(range, &payload)?;
        if bound > 0 && self.unflushed_len(thread) >= bound as usize {
            self.settle(memory, choice, &[], Forced::OldestUnflushed, thread)?;
        }
        let mut entry = Entry::new(range, payload, origin);
        // Every flushed entry is already in memory; this store comes later.
        entry.after = self
            .buffers
            .iter()
            .filter(|b| b.thread != thread)
            .map(|b| {
                (
                    b.thread,
                    b.entries.iter().take_while(|e| e.flushed).count() as u32,
                )
            })
            .filter(|&(_, count)| count > 0)
            .collect();
        let i = self.index_or_insert(thread);
        self.buffers[i].entries.push(entry);
        Ok(())
    }

    /// mfence: the thread's whole buffer reaches memory.
    pub fn fence<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
        thread: ThreadId,
    ) -> Result<(), M> {
        if !self.is_empty(thread) {
            self.settle(memory, choice, &[], Forced::All, thread)?;
        }
        Ok(())
    }

    /// A terminating thread drains its buffer.
    pub fn thread_exit<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
        thread: ThreadId,
    ) -> Result<(), M> {
        self.fence(memory, choice, thread)
    }

    /// Locked read-modify-write (xchg, lock-prefixed ops, cmpxchg): drains the
    /// thread's buffer, settles other buffers' entries for `range` as a load
    /// would, then reads memory and writes `update(old)` if it returns `Some`
    /// (a failed compare-exchange returns `None`). Returns the old value.
    pub fn locked_rmw<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
        update: impl FnOnce(&Payload) -> Option<Payload>,
    ) -> Result<Payload, M> {
        self.settle(memory, choice, &[range], Forced::All, thread)?;
        rmw_unbuffered(memory, range, update)
    }

    /// Load of an object the engine knows no other thread can reach ("+d").
    /// Goes straight to memory unless some buffer still holds an entry for
    /// these bytes (from before the object stopped being shared, or the
    /// thread's own), in which case it is an ordinary load.
    pub fn load_unshared<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
    ) -> Result<Payload, M> {
        if self.has_overlapping(range) {
            return self.load(memory, choice, thread, range);
        }
        memory.read(range).map_err(BufferError::Memory)
    }

    /// Store to an object no other thread can reach ("+d"): written to memory
    /// at once, unless a buffered entry overlaps it (then an ordinary store,
    /// so the thread's own older entries cannot overwrite it later).
    #[allow(clippy::too_many_arguments)]
    pub fn store_unshared<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
        thread: ThreadId,
        range: Range,
        payload: Payload,
        origin: u32,
        bound: u32,
    ) -> Result<(), M> {
        if self.has_overlapping(range) {
            return self.store(memory, choice, thread, range, payload, origin, bound);
        }
        write_unbuffered(memory, range, &payload)
    }

    /// The memory of `object` is about to be released by `thread` (free, or
    /// a function returning). Drops the thread's own entries for it and the
    /// flushed entries for it of every buffer (they are already in memory).
    /// Another thread's unflushed entry for it is a store that may still be
    /// pending when the memory dies: a race, reported as
    /// `StoreToReleasedMemory` (the state is left unchanged).
    pub fn evict<E: std::error::Error + 'static>(
        &mut self,
        thread: ThreadId,
        object: u32,
    ) -> std::result::Result<(), BufferError<E>> {
        for buffer in &self.buffers {
            if buffer.thread == thread {
                continue;
            }
            if let Some((_, e)) = buffer.entries.of_object(object).find(|(_, e)| !e.flushed) {
                return Err(BufferError::StoreToReleasedMemory {
                    thread: buffer.thread,
                    origin: e.origin,
                });
            }
        }
        if !self.buffers.iter().any(|b| b.entries.writes_object(object)) {
            return Ok(());
        }
        let doomed: Vec<Vec<bool>> = self
            .buffers
            .iter()
            .map(|b| {
                b.entries
                    .iter()
                    .map(|e| e.range.addr.object == object)
                    .collect()
            })
            .collect();
        self.remove_entries(&doomed);
        Ok(())
    }

    /// Calls `f` on every pointer value stored in a buffered payload.
    /// A buffer shared with other states is copied only if a value changes.
    pub fn for_each_pointer_mut(&mut self, mut f: impl FnMut(&mut u64)) {
        for buffer in &mut self.buffers {
            buffer.entries.update(|e| {
                if e.payload.ptr_offsets.is_empty() {
                    return None;
                }
                let mut payload = e.payload.clone();
                payload.for_each_pointer_mut(&mut f);
                (payload != e.payload).then(|| Entry {
                    payload,
                    ..e.clone()
                })
            });
        }
    }

    /// Calls `f` on the object id of every buffered entry's address. A buffer
    /// shared with other states is copied only if an id changes.
    pub fn for_each_object_mut(&mut self, mut f: impl FnMut(&mut u32)) {
        for buffer in &mut self.buffers {
            buffer.entries.update(|e| {
                let mut object = e.range.addr.object;
                f(&mut object);
                (object != e.range.addr.object).then(|| {
                    let mut e = e.clone();
                    e.range.addr.object = object;
                    e
                })
            });
        }
    }

    /// Deterministic serialisation (for state hashing and storage).
    pub fn serialize_into(&self, out: &mut Vec<u8>) {
        self.serialize_mapped(&mut |p| p, out);
    }

    /// [`Self::serialize_into`] of the buffers with every stored pointer, and every
    /// entry's object (as the pointer to its start), renamed by `pointer`, without
    /// copying the buffers first.
    pub fn serialize_mapped(&self, pointer: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.buffers.len() as u32).to_le_bytes());
        for buffer in &self.buffers {
            out.extend_from_slice(&buffer.thread.to_le_bytes());
            out.extend_from_slice(&(buffer.entries.len() as u32).to_le_bytes());
            for entry in buffer.entries.iter() {
                entry.serialize_mapped(pointer, out);
            }
        }
    }

    /// These buffers with thread `t` renamed `new_of[t]`: each buffer's owner and the
    /// threads the entries' ordering facts name (thread symmetry).
    pub fn permute_threads(&self, new_of: &[ThreadId]) -> Option<StoreBuffers> {
        let rename = |t: ThreadId| new_of.get(t as usize).copied();
        let mut buffers = Vec::with_capacity(self.buffers.len());
        for b in &self.buffers {
            let entries = if b.entries.iter().all(|e| e.after.is_empty()) {
                b.entries.clone()
            } else {
                let mut list = Vec::new();
                for e in b.entries.iter() {
                    let mut e = e.clone();
                    for (t, _) in e.after.iter_mut() {
                        *t = rename(*t)?;
                    }
                    e.after.sort_unstable();
                    list.push(e);
                }
                list.into_iter().collect()
            };
            buffers.push(ThreadBuffer {
                thread: rename(b.thread)?,
                entries,
            });
        }
        buffers.sort_by_key(|b| b.thread);
        Some(StoreBuffers { buffers })
    }

    /// The buffers [`Self::serialize_into`] wrote as `bytes` (all of them), or `None`
    /// when they are not such bytes.
    pub fn decode(bytes: &[u8]) -> Option<StoreBuffers> {
        let mut r = Reader::new(bytes);
        let nbuf = r.count(8)?;
        let mut buffers: Vec<ThreadBuffer> = Vec::with_capacity(nbuf);
        for _ in 0..nbuf {
            let thread = r.u32()?;
            let len = r.count(Entry::MIN_SERIALIZED)?;
            let entries: EntryList = (0..len)
                .map(|_| Entry::decode_from(&mut r))
                .collect::<Option<EntryList>>()?;
            // As kept: ascending threads, no empty buffer.
            if entries.is_empty() || buffers.last().is_some_and(|b| b.thread >= thread) {
                return None;
            }
            buffers.push(ThreadBuffer { thread, entries });
        }
        r.is_empty().then_some(StoreBuffers { buffers })
    }

    /// For the step-by-step tests (`buffer/tests.rs`):
    /// `[x=1 (origin 12), y=1 (flushed)]`, oldest first; `name` names a range.
    #[cfg(test)]
    pub(crate) fn describe(&self, thread: ThreadId, name: impl Fn(Range) -> String) -> String {
        let items: Vec<String> = self
            .entries(thread)
            .iter()
            .map(|e| {
                let note = if e.flushed {
                    "flushed".to_string()
                } else {
                    format!("origin {}", e.origin)
                };
                format!(
                    "{}={} ({})",
                    name(e.range),
                    describe_value(&e.payload),
                    note
                )
            })
            .collect();
        format!("[{}]", items.join(", "))
    }

    fn index(&self, thread: ThreadId) -> Option<usize> {
        self.buffers
            .binary_search_by_key(&thread, |b| b.thread)
            .ok()
    }

    fn index_or_insert(&mut self, thread: ThreadId) -> usize {
        match self.buffers.binary_search_by_key(&thread, |b| b.thread) {
            Ok(i) => i,
            Err(i) => {
                self.buffers.insert(
                    i,
                    ThreadBuffer {
                        thread,
                        entries: EntryList::default(),
                    },
                );
                i
            }
        }
    }

    /// Reads `range`: bytes of the thread's newest unflushed entries, the rest from memory.
    fn read_through<M: SharedMemory>(
        &self,
        memory: &M,
        thread: ThreadId,
        range: Range,
    ) -> Result<Payload, M> {
        let from_memory = memory.read(range).map_err(BufferError::Memory)?;
        let own = self.entries(thread);
        if from_memory.len() == range.len
            && !own
                .of_object(range.addr.object)
                .any(|(_, e)| !e.flushed && e.range.overlaps(&range))
            && is_well_formed(&from_memory)
        {
            // Assembling from memory alone would rebuild the same payload.
            return Ok(from_memory);
        }
        let mut sources: Vec<&Payload> = vec![&from_memory];
        let mut origins: Vec<ByteOrigin> = Vec::with_capacity(range.len as usize);
        // (position in the buffer, source index) of the entries read so far.
        let mut source_of_entry: Vec<(usize, usize)> = Vec::new();
        for i in 0..range.len {
            let off = range.start() + u64::from(i);
            let newest = own
                .of_object(range.addr.object)
                .rev()
                .find(|(_, e)| !e.flushed && e.range.contains_byte(range.addr.object, off));
            match newest {
                Some((k, e)) => {
                    let source = match source_of_entry.iter().find(|(p, _)| *p == k) {
                        Some(&(_, source)) => source,
                        None => {
                            sources.push(&e.payload);
                            source_of_entry.push((k, sources.len() - 1));
                            sources.len() - 1
                        }
                    };
                    origins.push((source, (off - e.range.start()) as u32));
                }
                None => origins.push((0, i)),
            }
        }
        Ok(assemble(&sources, &origins))
    }

    /// Enumerates the distinct flush outcomes, asks the engine to pick one
    /// (only if there are several) and applies it.
    fn settle<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
        seeds: &[Range],
        forced: Forced,
        thread: ThreadId,
    ) -> Result<(), M> {
        let forced_entries: Vec<(usize, usize)> = match (forced, self.index(thread)) {
            (_, None) | (Forced::None, _) => Vec::new(),
            (Forced::All, Some(b)) => (0..self.buffers[b].entries.len()).map(|p| (b, p)).collect(),
            (Forced::OldestUnflushed, Some(b)) => self.buffers[b]
                .entries
                .iter()
                .position(|e| !e.flushed)
                .map(|p| (b, p))
                .into_iter()
                .collect(),
        };
        if matches!(forced, Forced::None) && self.observes_only_own_unflushed(thread, seeds) {
            return Ok(());
        }
        let forced_code = match forced {
            Forced::None => 0,
            Forced::All => 1,
            Forced::OldestUnflushed => 2,
        };
        let remembered = memo::lookup(|key| {
            memo::build_key(
                key,
                self.buffers.iter().map(|b| (b.thread, &b.entries)),
                thread,
                seeds,
                forced_code,
            )
        });
        let resolved = match remembered {
            Some(resolved) => resolved,
            None => {
                let views: Vec<BufferView<'_>> = self
                    .buffers
                    .iter()
                    .map(|b| BufferView {
                        thread: b.thread,
                        entries: &b.entries,
                    })
                    .collect();
                let resolution = resolve(
                    &views,
                    self.index(thread),
                    seeds,
                    &forced_entries,
                    MAX_OUTCOMES,
                )
                .map_err(|e| match e {
                    ResolveError::TooManyOutcomes => BufferError::TooManyOutcomes {
                        limit: MAX_OUTCOMES,
                    },
                    ResolveError::NoConsistentOutcome => BufferError::NoConsistentOutcome,
                })?;
                let resolved = match resolution {
                    Resolution::Nothing => return Ok(()),
                    Resolution::Outcomes { first, outcomes } => {
                        Rc::new(Resolved::new(first, outcomes))
                    }
                };
                // A choice is replayed by the engine; a drain's layout recurs.
                if resolved.outcomes.len() > 1 || forced_code == 1 {
                    memo::remember(Rc::clone(&resolved));
                }
                resolved
            }
        };
        let picked = match resolved.outcomes.len() {
            0 | 1 => 0,
            n => choice.choose_flush(&resolved.delayed).min(n - 1),
        };
        match resolved.outcomes.get(picked) {
            Some(outcome) => self.apply(memory, &resolved.first, outcome),
            None => Err(BufferError::NoConsistentOutcome),
        }
    }

    /// True when the overlap closure of `seeds` holds only unflushed entries
    /// of `thread` (no other thread's and no flushed entry): then a load
    /// decides nothing (the `Nothing` case of `resolve`, found without it).
    fn observes_only_own_unflushed(&self, thread: ThreadId, seeds: &[Range]) -> bool {
        let own = self.entries(thread);
        // The bytes of the closure within the thread's unflushed entries (an entry
        // joins when it shares a byte with them)...
        let mut closure = ByteSpans::default();
        for s in seeds {
            closure.add(*s);
        }
        let objects = closure.objects();
        loop {
            let mut grew = false;
            for &object in &objects {
                for (_, e) in own.of_object(object) {
                    if !e.flushed && closure.overlaps(&e.range) {
                        grew |= closure.add(e.range);
                    }
                }
            }
            if !grew {
                break;
            }
        }
        // ...are the whole closure's when no other entry shares a byte with them.
        objects.iter().all(|&object| {
            self.buffers.iter().all(|b| {
                b.entries
                    .of_object(object)
                    .all(|(_, e)| (b.thread == thread && !e.flushed) || !closure.overlaps(&e.range))
            })
        })
    }

    fn apply<M: SharedMemory>(
        &mut self,
        memory: &mut M,
        first: &[usize],
        outcome: &FlushOutcome,
    ) -> Result<(), M> {
        self.write_in_order(memory, first, &outcome.order)?;
        let nbuf = self.buffers.len();
        // `kept_before[first[b] + b + k]`: entries of buffer b among its first k that remain.
        let mut kept_before: Vec<u32> = Vec::with_capacity(first[nbuf] + nbuf);
        for b in 0..nbuf {
            let mut kept = 0;
            kept_before.push(0);
            for id in first[b]..first[b + 1] {
                kept += u32::from(!outcome.written[id]);
                kept_before.push(kept);
            }
        }
        let mut rebuilt: Vec<ThreadBuffer> = Vec::with_capacity(nbuf);
        let mut after: Vec<(ThreadId, u32)> = Vec::new();
        for (b, buffer) in self.buffers.iter().enumerate() {
            let ids = first[b]..first[b + 1];
            let mut entries: Option<EntryList> = None;
            for (p, entry) in buffer.entries.iter().enumerate() {
                let id = ids.start + p;
                let written = outcome.written[id];
                if !written {
                    // Recount "preceded by" prefixes among the entries that remain.
                    after.clear();
                    for (other, other_buffer) in self.buffers.iter().enumerate() {
                        if other == b {
                            continue;
                        }
                        let len = first[other + 1] - first[other];
                        let limit = (outcome.after[id * nbuf + other] as usize).min(len);
                        let count = kept_before[first[other] + other + limit];
                        if count > 0 {
                            after.push((other_buffer.thread, count));
                        }
                    }
                }
                let flushed = outcome.flushed[id];
                let changed = written || flushed != entry.flushed || after != entry.after;
                if changed && entries.is_none() {
                    // First difference in this buffer: copy what came before it.
                    entries = Some(buffer.entries.iter().take(p).cloned().collect());
                }
                if written {
                    continue;
                }
                if let Some(entries) = &mut entries {
                    let mut kept = entry.clone();
                    kept.flushed = flushed;
                    kept.after.clone_from(&after);
                    entries.push(kept);
                }
            }
            match entries {
                None => rebuilt.push(buffer.clone()),
                Some(entries) if entries.is_empty() => {}
                Some(entries) => rebuilt.push(ThreadBuffer {
                    thread: buffer.thread,
                    entries,
                }),
            }
        }
        self.buffers = rebuilt;
        self.drop_shadowed_flushed();
        Ok(())
    }

    /// Writes entries to memory in the given order, composing each contiguous
    /// run of touched bytes once (the last writer of each byte wins).
    fn write_in_order<M: SharedMemory>(
        &self,
        memory: &mut M,
        first: &[usize],
        order: &[usize],
    ) -> Result<(), M> {
        let entry_of = |id: usize| {
            let b = first.partition_point(|&f| f <= id) - 1;
            &self.buffers[b].entries[id - first[b]]
        };
        let written: Vec<&Entry> = order.iter().map(|&id| entry_of(id)).collect();
        // A lone entry whose pointers all lie inside it is written as it is.
        if let [entry] = written[..] {
            if !entry.payload.is_empty() && is_well_formed(&entry.payload) {
                return memory
                    .write(entry.range.addr, &entry.payload)
                    .map_err(BufferError::Memory);
            }
        }
        // Every written byte once, from its last writer, as (object, offset, writer
        // rank, offset in writer): newest writers first, so a writer whose bytes are
        // all overwritten later (a location stored in a loop) costs one lookup.
        let mut bytes: Vec<(u32, u64, usize, u32)> = Vec::new();
        let mut covered = ByteSpans::default();
        for (k, entry) in written.iter().enumerate().rev() {
            let r = entry.range;
            if covered.contains(&r) {
                continue;
            }
            bytes.extend(
                (r.start()..r.end())
                    .filter(|&off| !covered.contains_byte(r.addr.object, off))
                    .map(|off| (r.addr.object, off, k, (off - r.start()) as u32)),
            );
            covered.add(r);
        }
        bytes.sort_unstable();
        let sources: Vec<&Payload> = written.iter().map(|e| &e.payload).collect();
        let mut run: Vec<ByteOrigin> = Vec::new();
        let mut run_start: Option<(u32, u64)> = None;
        let mut prev: Option<(u32, u64)> = None;
        for (i, &(object, off, k, at)) in bytes.iter().enumerate() {
            if bytes
                .get(i + 1)
                .is_some_and(|next| next.0 == object && next.1 == off)
            {
                continue; // a later writer of this byte follows
            }
            let contiguous = prev.is_some_and(|(po, poff)| po == object && poff + 1 == off);
            if !contiguous {
                if let Some((o, start)) = run_start {
                    memory
                        .write(Addr::new(o, start as u32), &assemble(&sources, &run))
                        .map_err(BufferError::Memory)?;
                }
                run.clear();
                run_start = Some((object, off));
            }
            run.push((k, at));
            prev = Some((object, off));
        }
        if let Some((o, start)) = run_start {
            memory
                .write(Addr::new(o, start as u32), &assemble(&sources, &run))
                .map_err(BufferError::Memory)?;
        }
        Ok(())
    }

    /// A flushed entry whose bytes are all overwritten by newer flushed entries
    /// of the same buffer can never be observed again: forget it (keeps the
    /// state space finite when a location is stored to in a loop).
    fn drop_shadowed_flushed(&mut self) {
        // Flushed entries form each buffer's oldest part; only a buffer with two
        // of them can hold a shadowed one.
        let shadowed = |entries: &[&Entry], p: usize| {
            let e = &entries[p];
            e.flushed
                && (e.range.start()..e.range.end()).all(|off| {
                    entries[p + 1..]
                        .iter()
                        .any(|n| n.flushed && n.range.contains_byte(e.range.addr.object, off))
                })
        };
        let candidates =
            |entries: &EntryList| entries.iter().filter(|e| e.flushed).take(2).count() == 2;
        let doomed: Vec<Vec<bool>> = self
            .buffers
            .iter()
            .map(|b| {
                if !candidates(&b.entries) {
                    return Vec::new();
                }
                let entries: Vec<&Entry> = b.entries.iter().collect();
                (0..entries.len()).map(|p| shadowed(&entries, p)).collect()
            })
            .collect();
        if !doomed.iter().flatten().any(|d| *d) {
            return;
        }
        self.remove_entries(&doomed);
    }

    /// Removes entries (`doomed[buffer][position]`, missing = kept), keeping the
    /// ordering facts of the others (counts are prefix lengths, so they shrink).
    fn remove_entries(&mut self, doomed: &[Vec<bool>]) {
        let threads: Vec<ThreadId> = self.buffers.iter().map(|b| b.thread).collect();
        let mut rebuilt = Vec::with_capacity(self.buffers.len());
        for (b, buffer) in self.buffers.iter().enumerate() {
            if !doomed[b].iter().any(|d| *d) && buffer.entries.iter().all(|e| e.after.is_empty()) {
                rebuilt.push(buffer.clone());
                continue;
            }
            let mut entries = EntryList::default();
            for (p, entry) in buffer.entries.iter().enumerate() {
                if doomed[b].get(p).copied().unwrap_or(false) {
                    continue;
                }
                let mut kept = entry.clone();
                kept.after = entry
                    .after
                    .iter()
                    .filter_map(|&(t, count)| {
                        let other = threads.iter().position(|&x| x == t)?;
                        let removed = doomed[other]
                            .iter()
                            .take(count as usize)
                            .filter(|d| **d)
                            .count() as u32;
                        Some((t, count - removed))
                    })
                    .filter(|&(_, count)| count > 0)
                    .collect();
                entries.push(kept);
            }
            if !entries.is_empty() {
                rebuilt.push(ThreadBuffer {
                    thread: buffer.thread,
                    entries,
                });
            }
        }
        self.buffers = rebuilt;
    }
}

#[derive(Clone, Copy)]
enum Forced {
    None,
    All,
    OldestUnflushed,
}

/// True when `assemble` of the payload alone gives the payload back: pointer
/// offsets ascending, each pointer wholly inside.
fn is_well_formed(payload: &Payload) -> bool {
    payload.ptr_offsets.windows(2).all(|w| w[0] < w[1])
        && payload
            .ptr_offsets
            .iter()
            .all(|&o| u64::from(o) + u64::from(POINTER_SIZE) <= u64::from(payload.len()))
}

#[cfg(test)]
fn describe_value(payload: &Payload) -> String {
    if payload.ptr_offsets == [0] && payload.len() == 8 {
        return format!("ptr({:#x})", payload.to_int());
    }
    if payload.len() <= 8 && payload.ptr_offsets.is_empty() {
        return payload.to_int().to_string();
    }
    let hex: Vec<String> = payload.data.iter().map(|b| format!("{b:02x}")).collect();
    format!("0x[{}]", hex.join(" "))
}
