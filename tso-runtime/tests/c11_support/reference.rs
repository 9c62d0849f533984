//! The judge: every RC11-consistent execution of a straight-line program, by brute
//! force. An execution is a choice of reads-from (`rf`) for every read, a
//! modification order (`mo`) per location and success or failure for every
//! compare-exchange (a weak one may fail whatever it reads: its spurious failure is
//! a failed compare-exchange, a read with the failure order); it is kept when it
//! satisfies the conditions of "Repairing Sequential Consistency in C/C++11" (Lahav,
//! Vafeiadis, Kang, Hur, Dreyer, PLDI 2017), §3, with C++20's release sequences (see
//! `sw`):
//! - coherence: `hb` irreflexive and `hb ; eco` irreflexive;
//! - atomicity: an RMW reads from its immediate `mo` predecessor;
//! - SC: `psc = psc_base ∪ psc_F` acyclic;
//! - no thin air: `sb ∪ rf` acyclic (this is what rules out load buffering).
//!
//! RMWs are single events that both read and write; `rb = rf⁻¹ ; mo` minus identity.
//! Initial writes (value 0) are non-atomic events `sb`-before every other event.
//! Written for clarity, not speed: relations are boolean matrices, indexed as in
//! the paper's formulas.

#![allow(clippy::needless_range_loop)]

use super::{Op, Outcome, Program};
use std::collections::BTreeSet;
use tso_runtime::c11::Order;

#[derive(Clone, Copy, Debug)]
struct Event {
    /// `None` for an initial write.
    thread: Option<usize>,
    index: usize,
    loc: Option<usize>,
    order: Order,
    reads: bool,
    writes: bool,
    fence: bool,
    op: Option<Op>,
}

type Rel = Vec<Vec<bool>>;

fn empty(n: usize) -> Rel {
    vec![vec![false; n]; n]
}

fn closure(mut r: Rel) -> Rel {
    let n = r.len();
    for k in 0..n {
        for i in 0..n {
            if r[i][k] {
                for j in 0..n {
                    if r[k][j] {
                        r[i][j] = true;
                    }
                }
            }
        }
    }
    r
}

fn union(a: &Rel, b: &Rel) -> Rel {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.iter().zip(y).map(|(p, q)| *p || *q).collect())
        .collect()
}

fn compose(a: &Rel, b: &Rel) -> Rel {
    let n = a.len();
    let mut r = empty(n);
    for i in 0..n {
        for k in 0..n {
            if a[i][k] {
                for j in 0..n {
                    if b[k][j] {
                        r[i][j] = true;
                    }
                }
            }
        }
    }
    r
}

fn reflexive(mut a: Rel) -> Rel {
    for (i, row) in a.iter_mut().enumerate() {
        row[i] = true;
    }
    a
}

fn acyclic(r: &Rel) -> bool {
    let c = closure(r.clone());
    (0..c.len()).all(|i| !c[i][i])
}

fn at_least_release(o: Order) -> bool {
    matches!(o, Order::Release | Order::AcqRel | Order::SeqCst)
}

fn at_least_acquire(o: Order) -> bool {
    matches!(o, Order::Acquire | Order::AcqRel | Order::SeqCst)
}

/// Every outcome of an RC11-consistent execution of `program`.
pub fn outcomes(program: &Program) -> BTreeSet<Outcome> {
    let cas_count = program
        .threads
        .iter()
        .flatten()
        .filter(|op| matches!(op, Op::Cas { .. }))
        .count();
    let mut all = BTreeSet::new();
    for guesses in 0..(1u32 << cas_count) {
        let events = events(program, guesses);
        enumerate(program, &events, &mut all);
    }
    all
}

/// The events, with each compare-exchange succeeding or failing as bit `k` of
/// `guesses` says (for the `k`-th one).
fn events(program: &Program, guesses: u32) -> Vec<Event> {
    let mut events: Vec<Event> = (0..program.locations)
        .map(|l| Event {
            thread: None,
            index: 0,
            loc: Some(l),
            order: Order::NonAtomic,
            reads: false,
            writes: true,
            fence: false,
            op: None,
        })
        .collect();
    let mut cas = 0;
    for (t, ops) in program.threads.iter().enumerate() {
        for (index, op) in ops.iter().enumerate() {
            let (reads, writes, order) = match *op {
                Op::Load { order, .. } => (true, false, order),
                Op::Store { order, .. } => (false, true, order),
                Op::FetchAdd { order, .. } => (true, true, order),
                Op::Cas {
                    success, failure, ..
                } => {
                    let ok = guesses >> cas & 1 == 1;
                    cas += 1;
                    (true, ok, if ok { success } else { failure })
                }
                Op::Fence(order) => (false, false, order),
            };
            events.push(Event {
                thread: Some(t),
                index,
                loc: op.loc(),
                order,
                reads,
                writes,
                fence: matches!(op, Op::Fence(_)),
                op: Some(*op),
            });
        }
    }
    events
}

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.is_empty() {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            all.push(p);
        }
    }
    all
}

fn enumerate(program: &Program, ev: &[Event], out: &mut BTreeSet<Outcome>) {
    let n = ev.len();
    let mut sb = empty(n);
    for i in 0..n {
        for j in 0..n {
            sb[i][j] = match (ev[i].thread, ev[j].thread) {
                (None, Some(_)) => true,
                (Some(a), Some(b)) => a == b && ev[i].index < ev[j].index,
                _ => false,
            };
        }
    }
    let reads: Vec<usize> = (0..n).filter(|&i| ev[i].reads).collect();
    let sources: Vec<Vec<usize>> = reads
        .iter()
        .map(|&r| {
            (0..n)
                .filter(|&w| w != r && ev[w].writes && ev[w].loc == ev[r].loc)
                .collect()
        })
        .collect();
    // Per location, every mo: the initial write first, then a permutation.
    let mos: Vec<Vec<Vec<usize>>> = (0..program.locations)
        .map(|l| {
            let writes: Vec<usize> = (program.locations..n)
                .filter(|&w| ev[w].writes && ev[w].loc == Some(l))
                .collect();
            permutations(&writes)
                .into_iter()
                .map(|mut p| {
                    p.insert(0, l);
                    p
                })
                .collect()
        })
        .collect();
    let mut rf_pick = vec![0usize; reads.len()];
    loop {
        if sources.iter().all(|s| !s.is_empty()) {
            let mut rf_of = vec![usize::MAX; n];
            for (k, &r) in reads.iter().enumerate() {
                rf_of[r] = sources[k][rf_pick[k]];
            }
            let mut mo_pick = vec![0usize; program.locations];
            loop {
                let mo: Vec<&Vec<usize>> = (0..program.locations)
                    .map(|l| &mos[l][mo_pick[l]])
                    .collect();
                if let Some(outcome) = check(program, ev, &sb, &rf_of, &mo) {
                    out.insert(outcome);
                }
                if !advance(&mut mo_pick, |l| mos[l].len()) {
                    break;
                }
            }
        }
        if !advance(&mut rf_pick, |k| sources[k].len()) {
            break;
        }
    }
}

/// Odometer over `pick[i] < len(i)`; false once it wraps around.
fn advance(pick: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for i in 0..pick.len() {
        pick[i] += 1;
        if pick[i] < len(i) {
            return true;
        }
        pick[i] = 0;
    }
    false
}

/// The outcome of the execution (`rf_of[r]` the write `r` reads, `mo[l]` the order of
/// location `l`'s writes) when it is RC11-consistent.
fn check(
    program: &Program,
    ev: &[Event],
    sb: &Rel,
    rf_of: &[usize],
    mo: &[&Vec<usize>],
) -> Option<Outcome> {
    let n = ev.len();
    let mut rf = empty(n);
    for r in 0..n {
        if ev[r].reads {
            rf[rf_of[r]][r] = true;
        }
    }
    // No thin air, and an order to compute values in.
    let porf = union(sb, &rf);
    if !acyclic(&porf) {
        return None;
    }
    let values = values(ev, &porf, rf_of)?;
    let mut mo_rel = empty(n);
    for order in mo {
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                mo_rel[a][b] = true;
            }
        }
    }
    // Atomicity: an RMW reads from its immediate mo predecessor.
    for order in mo {
        for (i, &w) in order.iter().enumerate() {
            if ev[w].reads && (i == 0 || rf_of[w] != order[i - 1]) {
                return None;
            }
        }
    }
    let mut rb = empty(n);
    for r in 0..n {
        if ev[r].reads {
            for w in 0..n {
                if w != r && mo_rel[rf_of[r]][w] {
                    rb[r][w] = true;
                }
            }
        }
    }
    let eco = closure(union(&union(&rf, &mo_rel), &rb));
    let hb = closure(union(sb, &sw(ev, sb, &rf, rf_of)));
    // Coherence.
    let hb_eco = compose(&hb, &eco);
    if (0..n).any(|i| hb[i][i] || hb_eco[i][i]) {
        return None;
    }
    if !acyclic(&psc(ev, sb, &hb, &mo_rel, &rb, &eco)) {
        return None;
    }
    let reads = program
        .threads
        .iter()
        .enumerate()
        .map(|(t, ops)| {
            (0..ops.len())
                .filter_map(|index| {
                    let e = (0..n).find(|&e| ev[e].thread == Some(t) && ev[e].index == index)?;
                    ev[e].reads.then(|| values[rf_of[e]])
                })
                .collect()
        })
        .collect();
    let finals = mo
        .iter()
        .map(|order| values[*order.last().unwrap_or(&0)])
        .collect();
    Some(Outcome { reads, finals })
}

/// The value each write writes, computed along `porf`; `None` when a
/// compare-exchange's guessed success disagrees with the value it reads.
fn values(ev: &[Event], porf: &Rel, rf_of: &[usize]) -> Option<Vec<u8>> {
    let n = ev.len();
    let c = closure(porf.clone());
    let mut order: Vec<usize> = (0..n).collect();
    // A topological order: fewer predecessors first.
    order.sort_by_key(|&e| (0..n).filter(|&p| c[p][e]).count());
    let mut value = vec![0u8; n];
    for e in order {
        let read = if ev[e].reads { value[rf_of[e]] } else { 0 };
        match ev[e].op {
            Some(Op::Store { value: v, .. }) => value[e] = v,
            Some(Op::FetchAdd { add, .. }) => value[e] = read.wrapping_add(add),
            Some(Op::Cas {
                expected,
                new,
                weak,
                ..
            }) => {
                // A success reads the expected value; a strong failure reads another,
                // a weak one any (it may fail spuriously: LL/SC).
                if ev[e].writes && read != expected || !ev[e].writes && read == expected && !weak {
                    return None;
                }
                value[e] = new;
            }
            _ => {}
        }
    }
    Some(value)
}

/// `sw = [E⊒rel] ; ([F] ; sb)? ; rs ; rf ; [R⊒rlx] ; (sb ; [F])? ; [E⊒acq]`, with
/// C++20's release sequences, `rs = [W⊒rlx] ; (rf ; rmw)*`: the head (the release
/// write, or an atomic write after a release fence) and the RMWs continuing it.
/// RC11's original `rs = [W] ; sb|loc? ; [W⊒rlx] ; (rf ; rmw)*` also continued it
/// through the head thread's later writes to the location; C++20 dropped that
/// (P0982R1), and the checker takes the weaker reading.
fn sw(ev: &[Event], sb: &Rel, rf: &Rel, rf_of: &[usize]) -> Rel {
    let n = ev.len();
    let atomic = |e: usize| ev[e].order != Order::NonAtomic;
    let mut rs = empty(n);
    for w in 0..n {
        if ev[w].writes && atomic(w) {
            rs[w][w] = true;
        }
    }
    // (rf ; rmw)*: an RMW reading from the sequence continues it.
    loop {
        let mut grew = false;
        for w in 0..n {
            for e in 0..n {
                if ev[e].reads && ev[e].writes && !rs[w][e] && rs[w][rf_of[e]] {
                    rs[w][e] = true;
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    let mut sw = empty(n);
    for a in 0..n {
        if !at_least_release(ev[a].order) || !(ev[a].writes || ev[a].fence) {
            continue;
        }
        let heads: Vec<usize> = if ev[a].fence {
            (0..n).filter(|&w| sb[a][w] && ev[w].writes).collect()
        } else {
            vec![a]
        };
        for &head in &heads {
            for w in 0..n {
                if !rs[head][w] {
                    continue;
                }
                for r in 0..n {
                    if !rf[w][r] || !atomic(r) {
                        continue;
                    }
                    for b in 0..n {
                        let target = if b == r {
                            !ev[b].fence
                        } else {
                            ev[b].fence && sb[r][b]
                        };
                        if target && at_least_acquire(ev[b].order) {
                            sw[a][b] = true;
                        }
                    }
                }
            }
        }
    }
    sw
}

/// `psc_base ∪ psc_F` of RC11:
/// `scb = sb ∪ sb|≠loc ; hb ; sb|≠loc ∪ hb|loc ∪ mo ∪ rb`,
/// `psc_base = ([E^sc] ∪ [F^sc] ; hb?) ; scb ; ([E^sc] ∪ hb? ; [F^sc])`,
/// `psc_F = [F^sc] ; (hb ∪ hb ; eco ; hb) ; [F^sc]`.
fn psc(ev: &[Event], sb: &Rel, hb: &Rel, mo: &Rel, rb: &Rel, eco: &Rel) -> Rel {
    let n = ev.len();
    let same_loc = |a: usize, b: usize| ev[a].loc.is_some() && ev[a].loc == ev[b].loc;
    let mut sb_nloc = empty(n);
    let mut hb_loc = empty(n);
    for a in 0..n {
        for b in 0..n {
            sb_nloc[a][b] = sb[a][b] && !same_loc(a, b);
            hb_loc[a][b] = hb[a][b] && same_loc(a, b);
        }
    }
    let middle = compose(&compose(&sb_nloc, hb), &sb_nloc);
    let scb = union(&union(&union(sb, &middle), &union(&hb_loc, mo)), rb);
    let sc = |e: usize| ev[e].order == Order::SeqCst;
    let sc_fence = |e: usize| sc(e) && ev[e].fence;
    let hb_opt = reflexive(hb.clone());
    let mut left = empty(n);
    let mut right = empty(n);
    for a in 0..n {
        for b in 0..n {
            left[a][b] = (a == b && sc(a)) || (sc_fence(a) && hb_opt[a][b]);
            right[a][b] = (a == b && sc(b)) || (sc_fence(b) && hb_opt[a][b]);
        }
    }
    let base = compose(&compose(&left, &scb), &right);
    let hb_eco_hb = compose(&compose(hb, eco), hb);
    let mut psc = base;
    for a in 0..n {
        for b in 0..n {
            if sc_fence(a) && sc_fence(b) && (hb[a][b] || hb_eco_hb[a][b]) {
                psc[a][b] = true;
            }
        }
    }
    psc
}
