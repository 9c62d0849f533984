//! Enumerates the distinct ways the buffers may have been flushed before an
//! operation observes (or orders) memory: the heart of the delayed-flush encoding.
//!
//! Knowledge kept in a state: memory holds the writes already placed in the
//! global store order; every entry still in a buffer comes after every placed
//! write it overlaps; `flushed` entries are written but unplaced; and
//! `Entry::after` records which flushed entries of other buffers must precede
//! an entry. An operation at time T:
//! - the *matching* set C is the overlap closure of the seed ranges (and the
//!   forced entries) over all buffered entries;
//! - the set S written before T is, per buffer, a prefix of that buffer's
//!   C-members containing every forced and every flushed C-member;
//! - S is placed in memory in some order σ consistent with FIFO and `after`;
//! - non-matching entries older than a written one become `flushed`;
//! - unselected C-members (and everything newer in their buffer) are written
//!   after T, hence after every entry written by then;
//! - anything that followed a written entry now also follows whatever σ put
//!   before it.
//!
//! Outcomes are deduplicated by their effect (which entries are written, which
//! entry wrote each byte last, the resulting ordering facts), so the engine is
//! asked to choose only among genuinely different successors.

//! Cost: the search keys and signatures hold only what can differ between
//! two orders of the same selection (bytes written by entries of several
//! buffers, and the recorded prefixes); with at most one buffer writing there
//! is a single order and no search state at all. All scratch is flat.

#![allow(clippy::needless_range_loop)] // entries are addressed by index throughout

use std::collections::HashSet;

use super::byte_spans::ByteSpans;
use super::entry_list::EntryList;
use super::fx_hash::{FxBuildHasher, KeySet};
use super::types::{Range, ThreadId};

/// Upper bound on explored placement orders per operation (a safety valve).
pub(crate) const MAX_SEARCH_NODES: usize = 1 << 20;

pub(crate) struct BufferView<'a> {
    pub thread: ThreadId,
    pub entries: &'a EntryList,
}

/// One distinct outcome. Entries are numbered buffer by buffer, oldest first:
/// entry `p` of buffer `b` has id `first[b] + p` (see [`Resolution`]).
pub(crate) struct FlushOutcome {
    /// By id: written to memory by this operation.
    pub written: Vec<bool>,
    /// Ids of the written entries, in the order they reach memory.
    pub order: Vec<usize>,
    /// By id, for remaining entries: flushed flag afterwards.
    pub flushed: Vec<bool>,
    /// `[id * buffers + other]` for remaining entries: how many entries
    /// (counted in the positions before this operation) of the other buffer
    /// precede the entry.
    pub after: Vec<u32>,
}

pub(crate) enum ResolveError {
    TooManyOutcomes,
    NoConsistentOutcome,
}

/// What an operation has to decide.
pub(crate) enum Resolution {
    /// Nothing observable depends on a flush: leave the buffers alone.
    Nothing,
    /// The distinct outcomes (at least one); `first[b]` is the id of buffer
    /// b's oldest entry (`first[buffers]` = number of entries).
    Outcomes {
        first: Vec<usize>,
        outcomes: Vec<FlushOutcome>,
    },
}

struct Flat {
    nbuf: usize,
    first: Vec<usize>,
    buf: Vec<usize>,
    pos: Vec<usize>,
    range: Vec<Range>,
    flushed: Vec<bool>,
    /// `pred[e * nbuf + b]`: entries of buffer b at positions < this count
    /// precede e. For e's own buffer it is e's position (FIFO).
    pred: Vec<u32>,
}

impl Flat {
    fn new(views: &[BufferView<'_>]) -> Flat {
        let nbuf = views.len();
        let n: usize = views.iter().map(|v| v.entries.len()).sum();
        let mut flat = Flat {
            nbuf,
            first: Vec::with_capacity(nbuf + 1),
            buf: Vec::with_capacity(n),
            pos: Vec::with_capacity(n),
            range: Vec::with_capacity(n),
            flushed: Vec::with_capacity(n),
            pred: Vec::with_capacity(n * nbuf),
        };
        for (b, view) in views.iter().enumerate() {
            flat.first.push(flat.buf.len());
            for (p, entry) in view.entries.iter().enumerate() {
                flat.buf.push(b);
                flat.pos.push(p);
                flat.range.push(entry.range);
                flat.flushed.push(entry.flushed);
                for (other, other_view) in views.iter().enumerate() {
                    flat.pred.push(if other == b {
                        p as u32
                    } else {
                        entry
                            .after_count(other_view.thread)
                            .min(other_view.entries.len() as u32)
                    });
                }
            }
        }
        flat.first.push(flat.buf.len());
        flat
    }

    fn len(&self) -> usize {
        self.buf.len()
    }

    fn ids(&self, b: usize) -> std::ops::Range<usize> {
        self.first[b]..self.first[b + 1]
    }

    fn preds(&self, e: usize) -> &[u32] {
        &self.pred[e * self.nbuf..(e + 1) * self.nbuf]
    }
}

/// All distinct outcomes of an operation that observes `seeds` and must write
/// `forced` (as `(buffer, position)`) before it takes effect; `acting` is the
/// buffer of the thread performing the operation.
pub(crate) fn resolve(
    views: &[BufferView<'_>],
    acting: Option<usize>,
    seeds: &[Range],
    forced: &[(usize, usize)],
    outcome_limit: usize,
) -> Result<Resolution, ResolveError> {
    let flat = Flat::new(views);
    let n = flat.len();
    let nbuf = views.len();
    let id_of =
        |(b, p): (usize, usize)| (b < nbuf && p < flat.ids(b).len()).then(|| flat.first[b] + p);

    // Matching set C: overlap closure of the seeds and forced entries. An entry
    // joins when it shares a byte with the seeds or a member, so passes over the
    // entries against the union of their bytes reach the same fixpoint.
    let mut in_c = vec![false; n];
    let mut closure = ByteSpans::default();
    for &f in forced {
        if let Some(id) = id_of(f) {
            in_c[id] = true;
            closure.add(flat.range[id]);
        }
    }
    for s in seeds {
        closure.add(*s);
    }
    loop {
        let mut grew = false;
        for id in 0..n {
            if !in_c[id] && closure.overlaps(&flat.range[id]) {
                in_c[id] = true;
                grew |= closure.add(flat.range[id]);
            }
        }
        if !grew {
            break;
        }
    }
    // Only the acting thread's own unflushed entries match and none must be
    // written: whether they reach memory now or later cannot be observed (the
    // bytes read are the same either way), so nothing is decided.
    if forced.is_empty()
        && (0..n).all(|id| !in_c[id] || (Some(flat.buf[id]) == acting && !flat.flushed[id]))
    {
        return Ok(Resolution::Nothing);
    }
    let mut is_forced = vec![false; n];
    for &f in forced {
        if let Some(id) = id_of(f) {
            is_forced[id] = true;
        }
    }

    // Per buffer: C-members in FIFO order and the shortest admissible prefix.
    let c_members: Vec<Vec<usize>> = (0..nbuf)
        .map(|b| flat.ids(b).filter(|&id| in_c[id]).collect())
        .collect();
    let min_len: Vec<usize> = c_members
        .iter()
        .map(|members| {
            members
                .iter()
                .rposition(|&id| is_forced[id] || flat.flushed[id])
                .map_or(0, |i| i + 1)
        })
        .collect();
    let old_flushed_len: Vec<usize> = (0..nbuf)
        .map(|b| flat.ids(b).take_while(|&id| flat.flushed[id]).count())
        .collect();

    let mut search = Search::new(&flat, &c_members, &old_flushed_len);
    let mut take: Vec<usize> = min_len.clone();
    loop {
        search.enumerate_orders(&take)?;
        if search.outcomes.len() > outcome_limit {
            return Err(ResolveError::TooManyOutcomes);
        }
        // Next combination of prefix lengths (odometer).
        let mut b = 0;
        loop {
            if b == nbuf {
                if search.outcomes.is_empty() {
                    return Err(ResolveError::NoConsistentOutcome);
                }
                let first = flat.first.clone();
                return Ok(Resolution::Outcomes {
                    first,
                    outcomes: search.outcomes,
                });
            }
            if take[b] < c_members[b].len() {
                take[b] += 1;
                break;
            }
            take[b] = min_len[b];
            b += 1;
        }
    }
}

/// The search over placement orders of one selection (one prefix length per
/// buffer), with scratch reused across selections.
struct Search<'a> {
    flat: &'a Flat,
    c_members: &'a [Vec<usize>],
    old_flushed_len: &'a [usize],
    outcomes: Vec<FlushOutcome>,
    /// Signatures of the outcomes found (across all selections).
    seen: HashSet<Vec<u32>, FxBuildHasher>,
    budget: usize,
    /// Distinct `(object, offset)` of all C-members, sorted: a C-member covers
    /// the consecutive indices from `cover_start[entry]`.
    bytes: Vec<(u32, u64)>,
    cover_start: Vec<usize>,

    // --- The current selection.
    take: Vec<usize>,
    /// Written entries, per buffer in FIFO order.
    chosen: Vec<Vec<usize>>,
    selected: Vec<bool>,
    committed: Vec<bool>,
    will_flush: Vec<bool>,
    written_prefix: Vec<u32>,
    /// Bytes written by entries of more than one buffer: the only ones whose
    /// last writer is not fixed by how many entries of each buffer are placed.
    contested: Vec<usize>,
    byte_owner: Vec<usize>,
    /// `[b * nbuf + o]`: the largest "preceded by" count on buffer b among the
    /// unselected entries of buffer o (for o = b: 1 + the newest unselected
    /// position). A written entry of b at a smaller position is followed by
    /// a remaining entry of o.
    follow_bound: Vec<u32>,
    /// Written entries whose "preceded by" set some remaining entry inherits,
    /// ascending; `matters_slot[entry]` is the index in it.
    matters: Vec<usize>,
    matters_slot: Vec<usize>,
    /// `[slot * nbuf + b]`: some remaining entry of a buffer other than b
    /// follows the `matters` entry, so the entry's recorded prefix for b is
    /// inherited. The other components are never read: they are recorded as 0
    /// so that orders differing only there count as the same search state.
    inherited: Vec<bool>,
    /// Whether the search state needs a visited set (several buffers write).
    interleaves: bool,

    // --- Search state.
    placed: Vec<usize>,
    order: Vec<usize>,
    /// Entries (per buffer, as a prefix count) preceding everything placed so far.
    acc: Vec<u32>,
    acc_saved: Vec<u32>,
    /// Last writer of each byte so far.
    writer: Vec<u32>,
    writer_saved: Vec<u32>,
    /// Predecessor prefix recorded when a `matters` entry was placed
    /// (`[slot * nbuf + buffer]`, zero while unplaced).
    recorded: Vec<u32>,
    visited: KeySet,
    key: Vec<u32>,
}

impl<'a> Search<'a> {
    fn new(flat: &'a Flat, c_members: &'a [Vec<usize>], old_flushed_len: &'a [usize]) -> Self {
        let n = flat.len();
        let nbuf = flat.nbuf;
        let mut bytes: Vec<(u32, u64)> = Vec::new();
        for &s in c_members.iter().flatten() {
            let r = flat.range[s];
            bytes.extend((r.start()..r.end()).map(|off| (r.addr.object, off)));
        }
        bytes.sort_unstable();
        bytes.dedup();
        let mut cover_start = vec![0; n];
        for &s in c_members.iter().flatten() {
            let r = flat.range[s];
            cover_start[s] = bytes.partition_point(|&k| k < (r.addr.object, r.start()));
        }
        Search {
            flat,
            c_members,
            old_flushed_len,
            outcomes: Vec::new(),
            seen: HashSet::default(),
            budget: MAX_SEARCH_NODES,
            byte_owner: vec![usize::MAX; bytes.len()],
            writer: vec![u32::MAX; bytes.len()],
            bytes,
            cover_start,
            take: Vec::with_capacity(nbuf),
            chosen: vec![Vec::new(); nbuf],
            selected: vec![false; n],
            committed: vec![false; n],
            will_flush: vec![false; n],
            written_prefix: vec![0; nbuf],
            contested: Vec::new(),
            follow_bound: vec![0; nbuf * nbuf],
            matters: Vec::new(),
            matters_slot: vec![usize::MAX; n],
            inherited: Vec::new(),
            interleaves: false,
            placed: vec![0; nbuf],
            order: Vec::new(),
            acc: vec![0; nbuf],
            acc_saved: Vec::new(),
            writer_saved: Vec::new(),
            recorded: Vec::new(),
            visited: KeySet::default(),
            key: Vec::new(),
        }
    }

    fn covers(&self, s: usize) -> std::ops::Range<usize> {
        self.cover_start[s]..self.cover_start[s] + self.flat.range[s].len as usize
    }

    fn enumerate_orders(&mut self, take: &[usize]) -> Result<(), ResolveError> {
        let flat = self.flat;
        let n = flat.len();
        let nbuf = flat.nbuf;
        self.take.clear();
        self.take.extend_from_slice(take);
        self.selected.fill(false);
        self.committed.fill(false);
        self.will_flush.fill(false);
        for b in 0..nbuf {
            self.chosen[b].clear();
            self.chosen[b].extend_from_slice(&self.c_members[b][..take[b]]);
            for &id in &self.chosen[b] {
                self.selected[id] = true;
            }
        }
        // Everything older than a written entry is written (or becomes flushed).
        for b in 0..nbuf {
            let newest = self.chosen[b].last().map_or(0, |&id| flat.pos[id] + 1);
            self.written_prefix[b] = newest.max(self.old_flushed_len[b]) as u32;
            for id in flat.ids(b) {
                if !self.selected[id] && (flat.flushed[id] || flat.pos[id] < newest) {
                    self.will_flush[id] = true;
                }
            }
            // Unselected C-members and everything newer are written after the operation.
            if let Some(&first) = self.c_members[b].get(take[b]) {
                for id in first..flat.first[b + 1] {
                    self.committed[id] = true;
                }
            }
        }
        // A written entry's known predecessors must all be written by now.
        for b in 0..nbuf {
            for &s in &self.chosen[b] {
                let preds = flat.preds(s);
                if (0..nbuf).any(|o| o != b && preds[o] > self.written_prefix[o]) {
                    return Ok(());
                }
            }
        }

        // Bytes written by more than one buffer.
        const MANY: usize = usize::MAX - 1;
        self.byte_owner.fill(usize::MAX);
        let mut writing_buffers = 0;
        for b in 0..nbuf {
            if !self.chosen[b].is_empty() {
                writing_buffers += 1;
            }
            for k in 0..self.chosen[b].len() {
                for i in self.covers(self.chosen[b][k]) {
                    let owner = &mut self.byte_owner[i];
                    if *owner == usize::MAX {
                        *owner = b;
                    } else if *owner != b {
                        *owner = MANY;
                    }
                }
            }
        }
        self.contested.clear();
        self.contested
            .extend((0..self.bytes.len()).filter(|&i| self.byte_owner[i] == MANY));
        self.interleaves = writing_buffers > 1;

        // Which written entries are followed by a remaining one, and in which buffers.
        self.follow_bound.fill(0);
        for y in 0..n {
            if self.selected[y] {
                continue;
            }
            let o = flat.buf[y];
            let preds = flat.preds(y);
            for b in 0..nbuf {
                let bound = if b == o {
                    flat.pos[y] as u32 + 1
                } else {
                    preds[b]
                };
                let slot = &mut self.follow_bound[b * nbuf + o];
                *slot = (*slot).max(bound);
            }
        }
        self.matters.clear();
        self.inherited.clear();
        for b in 0..nbuf {
            for k in 0..self.chosen[b].len() {
                let s = self.chosen[b][k];
                self.matters_slot[s] = usize::MAX;
                let pos = flat.pos[s] as u32;
                let followed_in = |o: usize| {
                    let bound = self.follow_bound[b * nbuf + o];
                    if o == b {
                        bound > pos + 1
                    } else {
                        bound > pos
                    }
                };
                let mut followers = (0..nbuf).filter(|&o| followed_in(o));
                let Some(follower) = followers.next() else {
                    continue;
                };
                let several = followers.next().is_some();
                self.matters_slot[s] = self.matters.len();
                self.matters.push(s);
                for c in 0..nbuf {
                    self.inherited.push(several || follower != c);
                }
            }
        }
        // `matters` ascending by id, as the recorded prefixes are laid out.
        debug_assert!(self.matters.windows(2).all(|w| w[0] < w[1]));

        self.placed.fill(0);
        self.order.clear();
        self.acc.fill(0);
        self.acc_saved.clear();
        self.writer.fill(u32::MAX);
        self.writer_saved.clear();
        self.recorded.clear();
        self.recorded.resize(self.matters.len() * nbuf, 0);
        if self.interleaves {
            self.visited
                .reset(nbuf + self.contested.len() + self.recorded.len());
        }
        self.run()
    }

    /// The state of the search as far as any continuation can tell.
    fn fill_key(&mut self) {
        self.key.clear();
        self.key.extend(self.placed.iter().map(|&p| p as u32));
        self.key
            .extend(self.contested.iter().map(|&i| self.writer[i]));
        self.key.extend_from_slice(&self.recorded);
    }

    fn run(&mut self) -> Result<(), ResolveError> {
        if self.budget == 0 {
            return Err(ResolveError::TooManyOutcomes);
        }
        self.budget -= 1;
        if self.interleaves {
            self.fill_key();
            if !self.visited.insert(&self.key) {
                return Ok(());
            }
        }
        let flat = self.flat;
        let nbuf = flat.nbuf;
        let mut any = false;
        for b in 0..nbuf {
            let Some(&s) = self.chosen[b].get(self.placed[b]) else {
                continue;
            };
            any = true;
            // Every written entry known to precede s must be placed already:
            // the oldest unplaced one of each other buffer must not precede s.
            let preds = flat.preds(s);
            let ready = (0..nbuf).all(|other| {
                other == b
                    || self.chosen[other]
                        .get(self.placed[other])
                        .is_none_or(|&x| flat.pos[x] as u32 >= preds[other])
            });
            if !ready {
                continue;
            }
            let acc_mark = self.acc_saved.len();
            self.acc_saved.extend_from_slice(&self.acc);
            let covers = self.covers(s);
            let writer_mark = self.writer_saved.len();
            self.writer_saved
                .extend_from_slice(&self.writer[covers.clone()]);
            for other in 0..nbuf {
                let own = if other == b {
                    flat.pos[s] as u32 + 1
                } else {
                    preds[other]
                };
                self.acc[other] = self.acc[other].max(own);
            }
            self.writer[covers.clone()].fill(s as u32);
            let slot = self.matters_slot[s];
            if slot != usize::MAX {
                for c in 0..nbuf {
                    let i = slot * nbuf + c;
                    self.recorded[i] = if self.inherited[i] { self.acc[c] } else { 0 };
                }
            }
            self.placed[b] += 1;
            self.order.push(s);
            let result = self.run();
            self.order.pop();
            self.placed[b] -= 1;
            if slot != usize::MAX {
                self.recorded[slot * nbuf..(slot + 1) * nbuf].fill(0);
            }
            self.writer[covers].copy_from_slice(&self.writer_saved[writer_mark..]);
            self.writer_saved.truncate(writer_mark);
            self.acc.copy_from_slice(&self.acc_saved[acc_mark..]);
            self.acc_saved.truncate(acc_mark);
            result?;
        }
        if !any {
            self.finish();
        }
        Ok(())
    }

    fn finish(&mut self) {
        let flat = self.flat;
        let nbuf = flat.nbuf;
        let n = flat.len();
        let mut after: Vec<u32> = vec![0; n * nbuf];
        let mut signature: Vec<u32> = Vec::with_capacity(nbuf + self.contested.len() + n * nbuf);
        signature.extend(self.take.iter().map(|&t| t as u32));
        signature.extend(self.contested.iter().map(|&i| self.writer[i]));
        for y in 0..n {
            if self.selected[y] {
                continue;
            }
            let by = flat.buf[y];
            let preds = &mut after[y * nbuf..(y + 1) * nbuf];
            preds.copy_from_slice(flat.preds(y));
            if self.committed[y] {
                for b in 0..nbuf {
                    if b != by {
                        preds[b] = preds[b].max(self.written_prefix[b]);
                    }
                }
            }
            // y inherits what preceded the written entries preceding it. Per
            // buffer those form a prefix of the FIFO-placed written entries, so
            // the newest of them recorded the largest prefix (placement only
            // grows `acc`).
            for b in 0..nbuf {
                let bound = flat.pred[y * nbuf + b];
                let chosen = &self.chosen[b];
                let k = chosen.partition_point(|&s| (flat.pos[s] as u32) < bound);
                let Some(&s) = k.checked_sub(1).map(|k| &chosen[k]) else {
                    continue;
                };
                let slot = self.matters_slot[s];
                // Followed by y, so it is a `matters` entry.
                if slot == usize::MAX {
                    debug_assert!(
                        false,
                        "a written entry preceding a remaining one is not recorded"
                    );
                    continue;
                }
                let rec = &self.recorded[slot * nbuf..(slot + 1) * nbuf];
                for c in 0..nbuf {
                    if c != by {
                        preds[c] = preds[c].max(rec[c]);
                    }
                }
            }
            preds[by] = flat.pos[y] as u32;
            signature.extend_from_slice(preds);
        }
        if !self.seen.insert(signature) {
            return;
        }
        self.outcomes.push(FlushOutcome {
            written: self.selected.clone(),
            order: self.order.clone(),
            flushed: self.will_flush.clone(),
            after,
        });
    }
}
