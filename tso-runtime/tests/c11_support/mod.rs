//! Straight-line litmus programs for the C11 model, run two ways: on the operational
//! view machine (`tso_runtime::c11`, every interleaving and every choice it asks),
//! and on [`reference`], an axiomatic enumerator of RC11-consistent executions.

#![allow(dead_code)]

pub mod litmus;
pub mod reference;

use std::collections::{BTreeSet, HashSet};
use tso_runtime::buffer::{Choice, FlatMemory, Payload, Range};
use tso_runtime::c11::{C11Memory, Order};

/// The object holding every location; location `i` is byte `i`, initially 0.
const OBJECT: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Load {
        loc: usize,
        order: Order,
    },
    Store {
        loc: usize,
        value: u8,
        order: Order,
    },
    /// `atomic_fetch_add`: reads the old value, writes old + `add`.
    FetchAdd {
        loc: usize,
        add: u8,
        order: Order,
    },
    /// `atomic_compare_exchange_strong`: reads the old value; writes `new` when it
    /// equals `expected`. With `weak`, `atomic_compare_exchange_weak`: it may also
    /// fail when the values are equal.
    Cas {
        loc: usize,
        expected: u8,
        new: u8,
        success: Order,
        failure: Order,
        weak: bool,
    },
    Fence(Order),
}

impl Op {
    pub fn loc(&self) -> Option<usize> {
        match *self {
            Op::Load { loc, .. }
            | Op::Store { loc, .. }
            | Op::FetchAdd { loc, .. }
            | Op::Cas { loc, .. } => Some(loc),
            Op::Fence(_) => None,
        }
    }

    pub fn reads(&self) -> bool {
        !matches!(self, Op::Store { .. } | Op::Fence(_))
    }

    fn orders(&self) -> Vec<Order> {
        match *self {
            Op::Load { order, .. }
            | Op::Store { order, .. }
            | Op::FetchAdd { order, .. }
            | Op::Fence(order) => vec![order],
            Op::Cas {
                success, failure, ..
            } => vec![success, failure],
        }
    }
}

#[derive(Clone, Debug)]
pub struct Program {
    pub threads: Vec<Vec<Op>>,
    pub locations: usize,
}

impl Program {
    pub fn has_sc(&self) -> bool {
        self.threads
            .iter()
            .flatten()
            .any(|op| op.orders().contains(&Order::SeqCst))
    }
}

/// The values each thread read (in program order), then the final value of each
/// location.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Outcome {
    pub reads: Vec<Vec<u8>>,
    pub finals: Vec<u8>,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reads: Vec<String> = self.reads.iter().map(|r| format!("{r:?}")).collect();
        write!(f, "reads {} final {:?}", reads.join(" "), self.finals)
    }
}

fn range(loc: usize) -> Range {
    Range::new(OBJECT, loc as u32, 1)
}

/// Answers a scripted choice, recording how many options were asked.
struct Scripted {
    answer: Option<usize>,
    asked: Option<usize>,
}

impl Choice for Scripted {
    fn choose(&mut self, n: usize) -> usize {
        assert!(n >= 2, "a choice with fewer than two options was asked");
        assert!(self.asked.is_none(), "one access asked for two choices");
        self.asked = Some(n);
        self.answer.unwrap_or(0)
    }
}

#[derive(Clone)]
struct Config {
    memory: C11Memory,
    flat: FlatMemory,
    pcs: Vec<usize>,
    reads: Vec<Vec<u8>>,
}

impl Config {
    fn key(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.memory.serialize_into(&mut out);
        for (pc, reads) in self.pcs.iter().zip(&self.reads) {
            out.push(*pc as u8);
            out.push(reads.len() as u8);
            out.extend_from_slice(reads);
        }
        out
    }
}

/// Runs one op of `thread` (its id in the model is `thread + 1`).
fn step(cfg: &mut Config, program: &Program, thread: usize, choice: &mut Scripted) {
    let op = program.threads[thread][cfg.pcs[thread]];
    let tid = thread as u32 + 1;
    let m = &mut cfg.memory;
    let flat = &mut cfg.flat;
    let read = match op {
        Op::Load { loc, order } => Some(m.load(flat, choice, tid, range(loc), order)),
        Op::Store { loc, value, order } => {
            m.store(
                flat,
                choice,
                tid,
                range(loc),
                Payload::from_int(value.into(), 1),
                order,
            )
            .map(|()| Payload::default())
            .expect("store");
            None
        }
        Op::FetchAdd { loc, add, order } => Some(
            m.rmw(flat, choice, tid, range(loc), order, order, &|old| {
                Some(Payload::from_int(
                    u64::from((old.to_int() as u8).wrapping_add(add)),
                    1,
                ))
            })
            .map(|(old, _)| old),
        ),
        Op::Cas {
            loc,
            expected,
            new,
            success,
            failure,
            weak,
        } => {
            let update = |old: &Payload| {
                (old.to_int() as u8 == expected).then(|| Payload::from_int(new.into(), 1))
            };
            let done = if weak {
                m.compare_exchange_weak(flat, choice, tid, range(loc), success, failure, &update)
            } else {
                m.rmw(flat, choice, tid, range(loc), success, failure, &update)
            };
            Some(done.map(|(old, _)| old))
        }
        Op::Fence(order) => {
            assert!(m.fence(choice, tid, order), "a fence always has a place");
            None
        }
    };
    if let Some(value) = read {
        cfg.reads[thread].push(value.expect("access").to_int() as u8);
    }
    cfg.pcs[thread] += 1;
}

/// Every outcome of the operational model (with `history_bound`), and whether the
/// bound was hit on some path.
pub fn operational(program: &Program, history_bound: u32) -> (BTreeSet<Outcome>, bool) {
    let mut memory = C11Memory::new(history_bound);
    for t in 0..program.threads.len() {
        memory.spawn(0, t as u32 + 1);
    }
    // The spawner does nothing more: without it, messages every thread is past are
    // collected, so collection is checked too.
    memory.forget_thread(0);
    let mut flat = FlatMemory::new();
    flat.add_object(OBJECT, program.locations as u32);
    let start = Config {
        memory,
        flat,
        pcs: vec![0; program.threads.len()],
        reads: vec![Vec::new(); program.threads.len()],
    };
    let mut outcomes = BTreeSet::new();
    let mut seen = HashSet::new();
    let mut stack = vec![start];
    let mut bound_hit = false;
    while let Some(cfg) = stack.pop() {
        if !seen.insert(cfg.key()) {
            continue;
        }
        bound_hit |= cfg.memory.bound_hit();
        let mut done = true;
        for t in 0..program.threads.len() {
            if cfg.pcs[t] == program.threads[t].len() {
                continue;
            }
            done = false;
            let mut first = cfg.clone();
            let mut probe = Scripted {
                answer: None,
                asked: None,
            };
            step(&mut first, program, t, &mut probe);
            stack.push(first);
            for answer in 1..probe.asked.unwrap_or(1) {
                let mut next = cfg.clone();
                let mut scripted = Scripted {
                    answer: Some(answer),
                    asked: None,
                };
                step(&mut next, program, t, &mut scripted);
                stack.push(next);
            }
        }
        if done {
            let finals = (0..program.locations)
                .map(|l| {
                    let bytes = cfg.flat.object(OBJECT).expect("object").data.clone();
                    bytes[l]
                })
                .collect();
            outcomes.insert(Outcome {
                reads: cfg.reads.clone(),
                finals,
            });
        }
    }
    (outcomes, bound_hit)
}

/// xorshift, for generated programs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn below(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }

    /// One of `orders`, never seq_cst unless `sc`.
    fn pick(&mut self, orders: &[Order], sc: bool) -> Order {
        let allowed: Vec<Order> = orders
            .iter()
            .copied()
            .filter(|&o| sc || o != Order::SeqCst)
            .collect();
        allowed[self.below(allowed.len())]
    }
}

pub const LOAD_ORDERS: [Order; 3] = [Order::Relaxed, Order::Acquire, Order::SeqCst];
pub const STORE_ORDERS: [Order; 3] = [Order::Relaxed, Order::Release, Order::SeqCst];
pub const RMW_ORDERS: [Order; 5] = [
    Order::Relaxed,
    Order::Acquire,
    Order::Release,
    Order::AcqRel,
    Order::SeqCst,
];
pub const FENCE_ORDERS: [Order; 4] = [Order::Acquire, Order::Release, Order::AcqRel, Order::SeqCst];

/// A random program: 2 or 3 threads, at most `max_ops` operations in all, over 2
/// locations; each store writes a value no other store writes; seq_cst only when
/// `sc`.
pub fn random_program(rng: &mut Rng, max_ops: usize, sc: bool) -> Program {
    let threads = 2 + rng.below(2);
    let locations = 2;
    let mut next_value = 1u8;
    let mut program = Program {
        threads: vec![Vec::new(); threads],
        locations,
    };
    let total = threads + rng.below(max_ops + 1 - threads);
    for i in 0..total {
        let t = if i < threads { i } else { rng.below(threads) };
        let loc = rng.below(locations);
        let op = match rng.below(10) {
            0..=2 => Op::Load {
                loc,
                order: rng.pick(&LOAD_ORDERS, sc),
            },
            3..=5 => {
                next_value += 1;
                Op::Store {
                    loc,
                    value: next_value,
                    order: rng.pick(&STORE_ORDERS, sc),
                }
            }
            6 => Op::FetchAdd {
                loc,
                add: 1,
                order: rng.pick(&RMW_ORDERS, sc),
            },
            7 => {
                next_value += 1;
                Op::Cas {
                    loc,
                    expected: rng.below(2) as u8,
                    new: next_value,
                    success: rng.pick(&RMW_ORDERS, sc),
                    failure: rng.pick(&LOAD_ORDERS, sc),
                    weak: rng.below(2) == 0,
                }
            }
            _ => Op::Fence(rng.pick(&FENCE_ORDERS, sc)),
        };
        program.threads[t].push(op);
    }
    program
}

/// Classic litmus shapes as (thread → accesses): `(true, loc)` a write, `(false,
/// loc)` a read.
const SHAPES: [&[&[(bool, usize)]]; 12] = [
    &[&[(true, 0), (true, 1)], &[(false, 1), (false, 0)]], // MP
    &[&[(true, 0), (false, 1)], &[(true, 1), (false, 0)]], // SB
    &[&[(false, 0), (true, 1)], &[(false, 1), (true, 0)]], // LB
    &[&[(true, 0), (true, 1)], &[(false, 1), (true, 0)]],  // S
    &[&[(true, 0), (true, 1)], &[(true, 1), (false, 0)]],  // R
    &[&[(true, 0), (true, 1)], &[(true, 1), (true, 0)]],   // 2+2W
    &[
        &[(true, 0)],
        &[(false, 0), (true, 1)],
        &[(false, 1), (false, 0)],
    ], // WRC
    &[
        &[(true, 0)],
        &[(false, 0), (false, 1)],
        &[(true, 1), (false, 0)],
    ], // RWC
    &[
        &[(true, 0), (true, 1)],
        &[(false, 1), (true, 2)],
        &[(false, 2), (false, 0)],
    ], // ISA2
    &[
        &[(true, 0)],
        &[(true, 1)],
        &[(false, 0), (false, 1)],
        &[(false, 1), (false, 0)],
    ], // IRIW
    &[&[(true, 0)], &[(false, 0), (false, 0)]],            // CoRR
    &[&[(false, 0), (true, 0)], &[(true, 0), (false, 0)]], // CoRW + CoWR
];

/// A classic shape with random orders, some accesses made RMWs (a fetch-add, or a
/// compare-exchange of the initial value, weak or strong) and a fence between
/// accesses now and then: the synchronisation patterns random programs rarely hit.
pub fn random_shape(rng: &mut Rng, sc: bool) -> Program {
    let shape = SHAPES[rng.below(SHAPES.len())];
    let mut next_value = 1u8;
    let mut locations = 0;
    let mut threads = Vec::new();
    for accesses in shape {
        let mut ops = Vec::new();
        for (i, &(write, loc)) in accesses.iter().enumerate() {
            locations = locations.max(loc + 1);
            if i > 0 && rng.below(3) == 0 {
                ops.push(Op::Fence(rng.pick(&FENCE_ORDERS, sc)));
            }
            let rmw = rng.below(6) == 0;
            ops.push(match (write, rmw) {
                // A compare-exchange of the initial value, weak or strong, now and then.
                (_, true) if rng.below(3) == 0 => {
                    next_value += 1;
                    Op::Cas {
                        loc,
                        expected: 0,
                        new: next_value,
                        success: rng.pick(&RMW_ORDERS, sc),
                        failure: rng.pick(&LOAD_ORDERS, sc),
                        weak: rng.below(2) == 0,
                    }
                }
                (_, true) => Op::FetchAdd {
                    loc,
                    add: 1,
                    order: rng.pick(&RMW_ORDERS, sc),
                },
                (true, false) => {
                    next_value += 1;
                    Op::Store {
                        loc,
                        value: next_value,
                        order: rng.pick(&STORE_ORDERS, sc),
                    }
                }
                (false, false) => Op::Load {
                    loc,
                    order: rng.pick(&LOAD_ORDERS, sc),
                },
            });
        }
        threads.push(ops);
    }
    Program { threads, locations }
}
