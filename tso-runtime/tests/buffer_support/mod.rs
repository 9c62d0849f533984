//! A tiny explicit-state explorer over straight-line abstract programs, run
//! under three memory machines: SC (no buffers), the conventional TSO
//! reference machine (explicit flush actions) and the delayed-flush buffers
//! (every choice enumerated). It collects the reachable final outcomes.

#![allow(dead_code)]

use std::collections::{BTreeSet, HashSet};
use std::fmt;

use tso_runtime::buffer::{
    BufferError, Choice, FlatMemory, FlatMemoryError, Payload, Range, ReferenceBuffers,
    StoreBuffers,
};

pub const OBJECT: u32 = 7;
pub const OBJECT_SIZE: u32 = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    pub offset: u32,
    pub len: u32,
}

impl Loc {
    pub fn range(self) -> Range {
        Range::new(OBJECT, self.offset, self.len)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Store {
        loc: Loc,
        value: u128,
    },
    Load {
        loc: Loc,
    },
    Fence,
    Xchg {
        loc: Loc,
        value: u128,
    },
    /// A locked compare-exchange; at 16 bytes, `lock cmpxchg16b`.
    Cas {
        loc: Loc,
        expected: u128,
        desired: u128,
    },
}

#[derive(Clone, Debug)]
pub struct Program {
    pub threads: Vec<Vec<Op>>,
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (t, ops) in self.threads.iter().enumerate() {
            write!(f, "T{t}:")?;
            for op in ops {
                match op {
                    Op::Store { loc, value } => {
                        write!(f, " [{}+{}]={:#x};", loc.offset, loc.len, value)?
                    }
                    Op::Load { loc } => write!(f, " r=[{}+{}];", loc.offset, loc.len)?,
                    Op::Fence => write!(f, " mfence;")?,
                    Op::Xchg { loc, value } => {
                        write!(f, " r=xchg([{}+{}],{:#x});", loc.offset, loc.len, value)?
                    }
                    Op::Cas {
                        loc,
                        expected,
                        desired,
                    } => write!(
                        f,
                        " r=cas([{}+{}],{:#x},{:#x});",
                        loc.offset, loc.len, expected, desired
                    )?,
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Registers (one per op that returns a value) and final memory bytes.
pub type Outcome = (Vec<u128>, Vec<u8>);

/// Answers choices from a script; records the arity of every choice asked.
pub struct Replay {
    pub script: Vec<usize>,
    pub next: usize,
    pub arities: Vec<usize>,
}

impl Choice for Replay {
    fn choose(&mut self, n: usize) -> usize {
        assert!(n >= 2, "a choice with fewer than two options was asked");
        let answer = self.script.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        self.arities.push(n);
        answer
    }
}

/// Runs `step` once per distinct answer sequence; returns every result.
pub fn all_choices<S: Clone, R>(
    start: &S,
    mut step: impl FnMut(&mut S, &mut Replay) -> R,
) -> Vec<(S, R, Vec<usize>)> {
    let mut results = Vec::new();
    let mut script: Vec<usize> = Vec::new();
    loop {
        let mut state = start.clone();
        let mut replay = Replay {
            script: script.clone(),
            next: 0,
            arities: Vec::new(),
        };
        let r = step(&mut state, &mut replay);
        let asked = replay.arities.clone();
        let mut used = script.clone();
        used.resize(asked.len(), 0);
        results.push((state, r, asked.clone()));
        // Odometer over the answers, last choice fastest.
        let mut next = used;
        loop {
            match next.pop() {
                None => return results,
                Some(a) => {
                    let arity = asked[next.len()];
                    if a + 1 < arity {
                        next.push(a + 1);
                        break;
                    }
                }
            }
        }
        script = next;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    Sc,
    Reference,
    Lazy,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct State<B> {
    memory: FlatMemory,
    pcs: Vec<usize>,
    exited: Vec<bool>,
    regs: Vec<Vec<u128>>,
    buffers: B,
}

fn initial<B: Default>(program: &Program) -> State<B> {
    let mut memory = FlatMemory::new();
    memory.add_object(OBJECT, OBJECT_SIZE);
    let n = program.threads.len();
    State {
        memory,
        pcs: vec![0; n],
        exited: vec![false; n],
        regs: vec![Vec::new(); n],
        buffers: B::default(),
    }
}

fn outcome<B>(state: &State<B>) -> Outcome {
    let regs = state.regs.iter().flatten().copied().collect();
    let mem = state
        .memory
        .object(OBJECT)
        .map(|p| p.data.clone())
        .unwrap_or_default();
    (regs, mem)
}

type MemErr = BufferError<FlatMemoryError>;

impl Op {
    /// For xchg and CAS, the location and the update of the read-modify-write: xchg
    /// always writes its value, CAS its desired value when the old one is the expected.
    fn read_modify_write(&self) -> Option<(Loc, impl FnOnce(&Payload) -> Option<Payload>)> {
        let (loc, expected, new) = match *self {
            Op::Xchg { loc, value } => (loc, None, value),
            Op::Cas {
                loc,
                expected,
                desired,
            } => (loc, Some(expected), desired),
            Op::Store { .. } | Op::Load { .. } | Op::Fence => return None,
        };
        let update = move |old: &Payload| {
            expected
                .is_none_or(|e| old.to_u128() == e)
                .then(|| Payload::from_u128(new, loc.len))
        };
        Some((loc, update))
    }
}

/// Every reachable final outcome of `program` under `model` with store-buffer
/// `bound` (0 = unbounded; ignored for SC). Also returns the largest choice arity seen.
pub fn outcomes(program: &Program, model: Model, bound: u32) -> (BTreeSet<Outcome>, usize) {
    let (set, widest, _) = explore_model(program, model, bound);
    (set, widest)
}

/// Like [`outcomes`], plus the number of distinct states visited.
pub fn explore_model(
    program: &Program,
    model: Model,
    bound: u32,
) -> (BTreeSet<Outcome>, usize, usize) {
    match model {
        Model::Sc => explore::<()>(program, sc_step, |_| Vec::new()),
        Model::Reference => explore_reference(program, bound),
        Model::Lazy => explore_lazy(program, bound),
    }
}

fn sc_step(state: &mut State<()>, t: usize, op: Option<&Op>) -> Result<(), MemErr> {
    use tso_runtime::buffer::SharedMemory;
    let mem = &mut state.memory;
    match op {
        None => {}
        Some(Op::Store { loc, value }) => mem
            .write(loc.range().addr, &Payload::from_u128(*value, loc.len))
            .map_err(BufferError::Memory)?,
        Some(Op::Load { loc }) => {
            let v = mem.read(loc.range()).map_err(BufferError::Memory)?;
            state.regs[t].push(v.to_u128());
        }
        Some(Op::Fence) => {}
        Some(op @ (Op::Xchg { .. } | Op::Cas { .. })) => {
            let (loc, update) = op
                .read_modify_write()
                .expect("xchg and CAS are read-modify-writes");
            let old = mem.read(loc.range()).map_err(BufferError::Memory)?;
            if let Some(new) = update(&old) {
                mem.write(loc.range().addr, &new)
                    .map_err(BufferError::Memory)?;
            }
            state.regs[t].push(old.to_u128());
        }
    }
    Ok(())
}

/// Explorer of machines whose operations are deterministic steps (SC and the
/// reference machine): the successors of a state are its `flushes` (states after one
/// buffer flush) and each live thread's next operation; a state with every thread
/// exited and nothing to flush is final.
fn explore<B: Clone + Eq + std::hash::Hash + Default>(
    program: &Program,
    mut step: impl FnMut(&mut State<B>, usize, Option<&Op>) -> Result<(), MemErr>,
    flushes: impl Fn(&State<B>) -> Vec<State<B>>,
) -> (BTreeSet<Outcome>, usize, usize) {
    let mut seen = HashSet::new();
    let mut stack = vec![initial::<B>(program)];
    let mut results = BTreeSet::new();
    while let Some(state) = stack.pop() {
        if !seen.insert(state.clone()) {
            continue;
        }
        let flushed = flushes(&state);
        if state.exited.iter().all(|e| *e) && flushed.is_empty() {
            results.insert(outcome(&state));
            continue;
        }
        stack.extend(flushed);
        for t in 0..program.threads.len() {
            if state.exited[t] {
                continue;
            }
            let mut next = state.clone();
            let op = program.threads[t].get(state.pcs[t]);
            step(&mut next, t, op).expect("memory error in test program");
            advance(&mut next, t, op.is_some());
            stack.push(next);
        }
    }
    let states = seen.len();
    (results, 0, states)
}

fn advance<B>(state: &mut State<B>, t: usize, had_op: bool) {
    if had_op {
        state.pcs[t] += 1;
    } else {
        state.exited[t] = true;
    }
}

fn explore_reference(program: &Program, bound: u32) -> (BTreeSet<Outcome>, usize, usize) {
    explore(
        program,
        |state, t, op| reference_step(state, t, op, bound),
        |state: &State<ReferenceBuffers>| {
            state
                .buffers
                .threads()
                .map(|bt| {
                    let mut next = state.clone();
                    next.buffers.flush_one(&mut next.memory, bt).expect("flush");
                    next
                })
                .collect()
        },
    )
}

fn reference_step(
    state: &mut State<ReferenceBuffers>,
    t: usize,
    op: Option<&Op>,
    bound: u32,
) -> Result<(), MemErr> {
    let tid = t as u32;
    let (bufs, mem) = (&mut state.buffers, &mut state.memory);
    match op {
        None => bufs.drain(mem, tid)?,
        Some(Op::Store { loc, value }) => bufs.store(
            mem,
            tid,
            loc.range(),
            Payload::from_u128(*value, loc.len),
            0,
            bound,
        )?,
        Some(Op::Load { loc }) => {
            let v = bufs.load(mem, tid, loc.range())?;
            state.regs[t].push(v.to_u128());
        }
        Some(Op::Fence) => bufs.drain(mem, tid)?,
        Some(op @ (Op::Xchg { .. } | Op::Cas { .. })) => {
            let (loc, update) = op
                .read_modify_write()
                .expect("xchg and CAS are read-modify-writes");
            let old = bufs.locked_rmw(mem, tid, loc.range(), update)?;
            state.regs[t].push(old.to_u128());
        }
    }
    Ok(())
}

pub fn lazy_step(
    state: &mut (StoreBuffers, FlatMemory, Vec<Vec<u128>>),
    choice: &mut Replay,
    t: usize,
    op: Option<&Op>,
    bound: u32,
) -> Result<(), MemErr> {
    let tid = t as u32;
    let (bufs, mem, regs) = state;
    match op {
        None => bufs.thread_exit(mem, choice, tid)?,
        Some(Op::Store { loc, value }) => bufs.store(
            mem,
            choice,
            tid,
            loc.range(),
            Payload::from_u128(*value, loc.len),
            0,
            bound,
        )?,
        Some(Op::Load { loc }) => {
            let v = bufs.load(mem, choice, tid, loc.range())?;
            regs[t].push(v.to_u128());
        }
        Some(Op::Fence) => bufs.fence(mem, choice, tid)?,
        Some(op @ (Op::Xchg { .. } | Op::Cas { .. })) => {
            let (loc, update) = op
                .read_modify_write()
                .expect("xchg and CAS are read-modify-writes");
            let old = bufs.locked_rmw(mem, choice, tid, loc.range(), update)?;
            regs[t].push(old.to_u128());
        }
    }
    Ok(())
}

fn explore_lazy(program: &Program, bound: u32) -> (BTreeSet<Outcome>, usize, usize) {
    let mut seen = HashSet::new();
    let mut stack = vec![initial::<StoreBuffers>(program)];
    let mut results = BTreeSet::new();
    let mut widest = 0;
    while let Some(state) = stack.pop() {
        if !seen.insert(state.clone()) {
            continue;
        }
        if state.exited.iter().all(|e| *e) {
            assert!(
                state.buffers.threads().next().is_none(),
                "buffers not empty after all threads exited"
            );
            results.insert(outcome(&state));
            continue;
        }
        for t in 0..program.threads.len() {
            if state.exited[t] {
                continue;
            }
            let op = program.threads[t].get(state.pcs[t]);
            let start = (
                state.buffers.clone(),
                state.memory.clone(),
                state.regs.clone(),
            );
            for ((bufs, memory, regs), result, asked) in
                all_choices(&start, |s, c| lazy_step(s, c, t, op, bound))
            {
                result.expect("memory error in test program");
                assert!(
                    asked.len() <= 1,
                    "one operation asked {} choices",
                    asked.len()
                );
                widest = widest.max(asked.iter().copied().max().unwrap_or(0));
                let mut next = State {
                    memory,
                    pcs: state.pcs.clone(),
                    exited: state.exited.clone(),
                    regs,
                    buffers: bufs,
                };
                advance(&mut next, t, op.is_some());
                stack.push(next);
            }
        }
    }
    let states = seen.len();
    (results, widest, states)
}

/// Deterministic pseudo-random numbers (xorshift64*), so failures replay.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Value whose bytes say which store wrote them: byte i is `id*16 + i + 1`.
fn tagged_value(id: u64, len: u32) -> u128 {
    (0..u64::from(len)).fold(0, |acc, i| {
        acc | (u128::from((id * 16 + i + 1) & 0xff) << (8 * i))
    })
}

/// Location widths of [`random_program`]: the plain accesses of x86.
pub const WIDTHS: [u32; 4] = [1, 2, 4, 8];
/// With the whole 16-byte object too, as `cmpxchg16b` (and a 16-byte copy) use it.
pub const WIDTHS_16: [u32; 5] = [1, 2, 4, 8, 16];

pub fn random_program(rng: &mut Rng, max_ops: usize) -> Program {
    random_program_of(rng, max_ops, &WIDTHS)
}

/// A random program whose locations have widths from `lens`.
pub fn random_program_of(rng: &mut Rng, max_ops: usize, lens: &[u32]) -> Program {
    let nthreads = 2 + rng.below(2) as usize;
    let nlocs = 2 + rng.below(2) as usize;
    let locs: Vec<Loc> = (0..nlocs)
        .map(|_| {
            let len = lens[rng.below(lens.len() as u64) as usize];
            // Offsets 0..8 make overlaps between differently sized locations common.
            let offset = rng.below(u64::from(OBJECT_SIZE - len).min(8) + 1) as u32;
            Loc { offset, len }
        })
        .collect();
    let mut next_id = 1u64;
    let mut stored: Vec<(Loc, u128)> = Vec::new();
    let total = 2 + rng.below(max_ops as u64 - 1) as usize;
    let mut threads = vec![Vec::new(); nthreads];
    for k in 0..total {
        let t = if k < nthreads {
            k
        } else {
            rng.below(nthreads as u64) as usize
        };
        let loc = locs[rng.below(nlocs as u64) as usize];
        let roll = rng.below(100);
        let op = if roll < 40 {
            let value = tagged_value(next_id, loc.len);
            next_id += 1;
            stored.push((loc, value));
            Op::Store { loc, value }
        } else if roll < 75 {
            Op::Load { loc }
        } else if roll < 83 {
            Op::Fence
        } else if roll < 91 {
            let value = tagged_value(next_id, loc.len);
            next_id += 1;
            Op::Xchg { loc, value }
        } else {
            let same: Vec<u128> = stored
                .iter()
                .filter(|(l, _)| *l == loc)
                .map(|(_, v)| *v)
                .collect();
            let expected = if same.is_empty() || rng.below(3) == 0 {
                0
            } else {
                same[rng.below(same.len() as u64) as usize]
            };
            let desired = tagged_value(next_id, loc.len);
            next_id += 1;
            Op::Cas {
                loc,
                expected,
                desired,
            }
        };
        threads[t].push(op);
    }
    Program { threads }
}

/// Compares the machines on one program; returns a report on mismatch.
pub fn check_program(program: &Program, bounds: &[u32]) -> Result<Stats, String> {
    let (sc, _) = outcomes(program, Model::Sc, 0);
    let mut stats = Stats::default();
    for &bound in bounds {
        let (reference, _, reference_states) = explore_model(program, Model::Reference, bound);
        let (lazy, w, lazy_states) = explore_model(program, Model::Lazy, bound);
        stats.widest_choice = stats.widest_choice.max(w);
        stats.reference_states += reference_states;
        stats.lazy_states += lazy_states;
        if reference != lazy {
            let missing: Vec<_> = reference.difference(&lazy).collect();
            let extra: Vec<_> = lazy.difference(&reference).collect();
            return Err(format!(
                "bound {bound}: lazy != reference\nprogram:\n{program}missing in lazy: {missing:x?}\nextra in lazy: {extra:x?}"
            ));
        }
        if !sc.is_subset(&reference) {
            let missing: Vec<_> = sc.difference(&reference).collect();
            return Err(format!("bound {bound}: SC outcome not reachable under TSO\nprogram:\n{program}{missing:x?}"));
        }
    }
    Ok(stats)
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub widest_choice: usize,
    pub reference_states: usize,
    pub lazy_states: usize,
}
