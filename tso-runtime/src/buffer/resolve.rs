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

#![allow(clippy::needless_range_loop)] // entries are addressed by index throughout

use std::collections::{HashMap, HashSet};

use super::entry::Entry;
use super::types::{Range, ThreadId};

/// Upper bound on explored placement orders per operation (a safety valve).
pub const MAX_SEARCH_NODES: usize = 1 << 20;

pub(crate) struct BufferView<'a> {
    pub thread: ThreadId,
    pub entries: &'a [Entry],
}

/// One distinct outcome.
pub(crate) struct Outcome {
    /// `[buffer][position]`: written to memory by this operation.
    pub written: Vec<Vec<bool>>,
    /// Order in which the written entries reach memory: `(buffer, position)`.
    pub order: Vec<(usize, usize)>,
    /// `[buffer][position]` for remaining entries: flushed flag afterwards.
    pub flushed: Vec<Vec<bool>>,
    /// `[buffer][position][other buffer]`: how many entries (counted in the
    /// positions before this operation) of the other buffer precede the entry.
    pub after: Vec<Vec<Vec<u32>>>,
}

pub(crate) enum ResolveError {
    TooManyOutcomes,
    NoConsistentOutcome,
}

/// What an operation has to decide.
pub(crate) enum Resolution {
    /// Nothing observable depends on a flush: leave the buffers alone.
    Nothing,
    /// The distinct outcomes (at least one).
    Outcomes(Vec<Outcome>),
}

struct Flat {
    buf: Vec<usize>,
    pos: Vec<usize>,
    range: Vec<Range>,
    flushed: Vec<bool>,
    /// `pred[e][b]`: entries of buffer b at positions < this count precede e.
    /// For e's own buffer it is e's position (FIFO).
    pred: Vec<Vec<u32>>,
    ids: Vec<Vec<usize>>,
}

fn flatten(views: &[BufferView<'_>]) -> Flat {
    let nbuf = views.len();
    let mut flat = Flat {
        buf: Vec::new(),
        pos: Vec::new(),
        range: Vec::new(),
        flushed: Vec::new(),
        pred: Vec::new(),
        ids: vec![Vec::new(); nbuf],
    };
    for (b, view) in views.iter().enumerate() {
        for (p, entry) in view.entries.iter().enumerate() {
            let id = flat.buf.len();
            flat.buf.push(b);
            flat.pos.push(p);
            flat.range.push(entry.range);
            flat.flushed.push(entry.flushed);
            let pred = views
                .iter()
                .enumerate()
                .map(|(other, other_view)| {
                    if other == b {
                        p as u32
                    } else {
                        entry.after_count(other_view.thread).min(other_view.entries.len() as u32)
                    }
                })
                .collect();
            flat.pred.push(pred);
            flat.ids[b].push(id);
        }
    }
    flat
}

fn precedes(flat: &Flat, x: usize, y: usize) -> bool {
    x != y && (flat.pos[x] as u32) < flat.pred[y][flat.buf[x]]
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
    let flat = flatten(views);
    let n = flat.buf.len();
    let nbuf = views.len();

    // Matching set C: overlap closure of the seeds and forced entries.
    let mut in_c = vec![false; n];
    let mut work: Vec<usize> = Vec::new();
    for &(b, p) in forced {
        if let Some(&id) = flat.ids.get(b).and_then(|ids| ids.get(p)) {
            if !in_c[id] {
                in_c[id] = true;
                work.push(id);
            }
        }
    }
    for id in 0..n {
        if !in_c[id] && seeds.iter().any(|s| s.overlaps(&flat.range[id])) {
            in_c[id] = true;
            work.push(id);
        }
    }
    while let Some(x) = work.pop() {
        for id in 0..n {
            if !in_c[id] && flat.range[id].overlaps(&flat.range[x]) {
                in_c[id] = true;
                work.push(id);
            }
        }
    }
    // Only the acting thread's own unflushed entries match and none must be
    // written: whether they reach memory now or later cannot be observed (the
    // bytes read are the same either way), so nothing is decided.
    if forced.is_empty() && (0..n).all(|id| !in_c[id] || (Some(flat.buf[id]) == acting && !flat.flushed[id])) {
        return Ok(Resolution::Nothing);
    }
    let mut is_forced = vec![false; n];
    for &(b, p) in forced {
        if let Some(&id) = flat.ids.get(b).and_then(|ids| ids.get(p)) {
            is_forced[id] = true;
        }
    }

    // Per buffer: C-members in FIFO order and the shortest admissible prefix.
    let c_members: Vec<Vec<usize>> = (0..nbuf)
        .map(|b| flat.ids[b].iter().copied().filter(|&id| in_c[id]).collect())
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
        .map(|b| flat.ids[b].iter().take_while(|&&id| flat.flushed[id]).count())
        .collect();

    let mut outcomes = Vec::new();
    let mut seen: HashMap<Vec<u32>, ()> = HashMap::new();
    let mut budget = MAX_SEARCH_NODES;
    let mut take: Vec<usize> = min_len.clone();
    loop {
        enumerate_orders(
            &flat,
            &c_members,
            &take,
            &in_c,
            &old_flushed_len,
            &mut outcomes,
            &mut seen,
            &mut budget,
        )?;
        if outcomes.len() > outcome_limit {
            return Err(ResolveError::TooManyOutcomes);
        }
        // Next combination of prefix lengths (odometer).
        let mut b = 0;
        loop {
            if b == nbuf {
                if outcomes.is_empty() {
                    return Err(ResolveError::NoConsistentOutcome);
                }
                return Ok(Resolution::Outcomes(outcomes));
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

struct Selection<'a> {
    flat: &'a Flat,
    /// Written entries, per buffer in FIFO order.
    chosen: Vec<Vec<usize>>,
    selected: Vec<bool>,
    /// Byte index of each `(object, offset)` touched by a written entry.
    bytes: Vec<(u32, u64)>,
    /// For each written entry, the byte indices it covers.
    covers: Vec<Vec<usize>>,
    /// Written entry whose "preceded by" set some remaining entry inherits.
    matters: Vec<bool>,
    committed: Vec<bool>,
    will_flush: Vec<bool>,
    written_prefix: Vec<u32>,
}

#[allow(clippy::too_many_arguments)]
fn enumerate_orders(
    flat: &Flat,
    c_members: &[Vec<usize>],
    take: &[usize],
    in_c: &[bool],
    old_flushed_len: &[usize],
    outcomes: &mut Vec<Outcome>,
    seen: &mut HashMap<Vec<u32>, ()>,
    budget: &mut usize,
) -> Result<(), ResolveError> {
    let n = flat.buf.len();
    let nbuf = c_members.len();
    let chosen: Vec<Vec<usize>> = (0..nbuf).map(|b| c_members[b][..take[b]].to_vec()).collect();
    let mut selected = vec![false; n];
    for &id in chosen.iter().flatten() {
        selected[id] = true;
    }
    // Everything older than a written entry is written (or becomes flushed).
    let mut written_prefix = vec![0u32; nbuf];
    let mut will_flush = vec![false; n];
    let mut committed = vec![false; n];
    for b in 0..nbuf {
        let newest = chosen[b].last().map_or(0, |&id| flat.pos[id] + 1);
        written_prefix[b] = newest.max(old_flushed_len[b]) as u32;
        for &id in &flat.ids[b] {
            if !selected[id] && (flat.flushed[id] || flat.pos[id] < newest) {
                will_flush[id] = true;
            }
        }
        // Unselected C-members and everything newer are written after the operation.
        if let Some(&first) = c_members[b].get(take[b]) {
            for &id in &flat.ids[b][flat.pos[first]..] {
                committed[id] = true;
            }
        }
    }
    // A written entry's known predecessors must all be written by now.
    for &s in chosen.iter().flatten() {
        if (0..nbuf).any(|b| b != flat.buf[s] && flat.pred[s][b] > written_prefix[b]) {
            return Ok(());
        }
    }
    let _ = in_c;
    let mut byte_index: HashMap<(u32, u64), usize> = HashMap::new();
    let mut bytes = Vec::new();
    let mut covers = vec![Vec::new(); n];
    for &s in chosen.iter().flatten() {
        let r = flat.range[s];
        for off in r.start()..r.end() {
            let key = (r.addr.object, off);
            let idx = *byte_index.entry(key).or_insert_with(|| {
                bytes.push(key);
                bytes.len() - 1
            });
            covers[s].push(idx);
        }
    }
    let matters: Vec<bool> = (0..n)
        .map(|s| selected[s] && (0..n).any(|y| !selected[y] && precedes(flat, s, y)))
        .collect();
    let sel = Selection {
        flat,
        chosen,
        selected,
        bytes,
        covers,
        matters,
        committed,
        will_flush,
        written_prefix,
    };
    let mut dfs = OrderSearch {
        sel: &sel,
        placed: vec![0; nbuf],
        order: Vec::new(),
        acc: vec![0; nbuf],
        writer: vec![u32::MAX; sel.bytes.len()],
        recorded: vec![None; n],
        visited: HashSet::new(),
        take: take.to_vec(),
    };
    dfs.run(outcomes, seen, budget)
}

struct OrderSearch<'a> {
    sel: &'a Selection<'a>,
    placed: Vec<usize>,
    order: Vec<usize>,
    /// Entries (per buffer, as a prefix count) preceding everything placed so far.
    acc: Vec<u32>,
    /// Last writer of each touched byte so far.
    writer: Vec<u32>,
    /// Predecessor prefix recorded when a `matters` entry was placed.
    recorded: Vec<Option<Vec<u32>>>,
    visited: HashSet<Vec<u32>>,
    take: Vec<usize>,
}

impl OrderSearch<'_> {
    fn key(&self) -> Vec<u32> {
        let mut key: Vec<u32> = self.placed.iter().map(|&p| p as u32).collect();
        key.extend_from_slice(&self.writer);
        for rec in self.recorded.iter().flatten() {
            key.extend_from_slice(rec);
        }
        key
    }

    fn run(
        &mut self,
        outcomes: &mut Vec<Outcome>,
        seen: &mut HashMap<Vec<u32>, ()>,
        budget: &mut usize,
    ) -> Result<(), ResolveError> {
        if *budget == 0 {
            return Err(ResolveError::TooManyOutcomes);
        }
        *budget -= 1;
        if !self.visited.insert(self.key()) {
            return Ok(());
        }
        let flat = self.sel.flat;
        let nbuf = self.placed.len();
        let mut any = false;
        for b in 0..nbuf {
            let Some(&s) = self.sel.chosen[b].get(self.placed[b]) else { continue };
            any = true;
            // Every written entry known to precede s must be placed already.
            let ready = (0..nbuf).all(|other| {
                other == b
                    || self.sel.chosen[other][self.placed[other]..]
                        .iter()
                        .all(|&x| !precedes(flat, x, s))
            });
            if !ready {
                continue;
            }
            let saved_acc = self.acc.clone();
            let saved_writer: Vec<(usize, u32)> =
                self.sel.covers[s].iter().map(|&i| (i, self.writer[i])).collect();
            for other in 0..nbuf {
                let own = if other == b { flat.pos[s] as u32 + 1 } else { flat.pred[s][other] };
                self.acc[other] = self.acc[other].max(own);
            }
            for &i in &self.sel.covers[s] {
                self.writer[i] = s as u32;
            }
            if self.sel.matters[s] {
                self.recorded[s] = Some(self.acc.clone());
            }
            self.placed[b] += 1;
            self.order.push(s);
            let result = self.run(outcomes, seen, budget);
            self.order.pop();
            self.placed[b] -= 1;
            self.recorded[s] = None;
            for (i, w) in saved_writer {
                self.writer[i] = w;
            }
            self.acc = saved_acc;
            result?;
        }
        if !any {
            self.finish(outcomes, seen);
        }
        Ok(())
    }

    fn finish(&self, outcomes: &mut Vec<Outcome>, seen: &mut HashMap<Vec<u32>, ()>) {
        let sel = self.sel;
        let flat = sel.flat;
        let nbuf = self.placed.len();
        let n = flat.buf.len();
        let mut after: Vec<Vec<Vec<u32>>> =
            (0..nbuf).map(|b| vec![Vec::new(); flat.ids[b].len()]).collect();
        let mut signature: Vec<u32> = self.take.iter().map(|&t| t as u32).collect();
        signature.extend_from_slice(&self.writer);
        for y in 0..n {
            if sel.selected[y] {
                continue;
            }
            let by = flat.buf[y];
            let mut preds = flat.pred[y].clone();
            if sel.committed[y] {
                for b in 0..nbuf {
                    if b != by {
                        preds[b] = preds[b].max(sel.written_prefix[b]);
                    }
                }
            }
            for s in 0..n {
                if let Some(rec) = &self.recorded[s] {
                    if precedes(flat, s, y) {
                        for b in 0..nbuf {
                            if b != by {
                                preds[b] = preds[b].max(rec[b]);
                            }
                        }
                    }
                }
            }
            preds[by] = flat.pos[y] as u32;
            signature.extend_from_slice(&preds);
            after[by][flat.pos[y]] = preds;
        }
        if seen.insert(signature, ()).is_some() {
            return;
        }
        let written = (0..nbuf)
            .map(|b| flat.ids[b].iter().map(|&id| sel.selected[id]).collect())
            .collect();
        let flushed = (0..nbuf)
            .map(|b| flat.ids[b].iter().map(|&id| sel.will_flush[id]).collect())
            .collect();
        let order = self.order.iter().map(|&s| (flat.buf[s], flat.pos[s])).collect();
        outcomes.push(Outcome { written, order, flushed, after });
    }
}
