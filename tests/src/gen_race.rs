//! Small straight-line programs for the data-race oracle, and an independent oracle
//! that decides whether one of their executions has a C11 data race.
//!
//! The oracle never looks at C, LLVM or the engine, and shares no code or method with
//! the engine's detector (vector clocks with epochs, history pruning, canonical
//! states): it enumerates every interleaving of the threads' operations on plain
//! integers, and for each execution builds happens-before from its definition, as a
//! graph (program order; unlock → next lock; thread creation and join; the C11
//! synchronises-with rules of release/acquire operations and fences, spelled out in
//! `race_in`), closes it transitively, and compares every pair of conflicting accesses.
//! Accesses through pointers name the global the pointer holds when they run.

use crate::prng::Rng;
use std::fmt::Write;

/// A C11 memory order, as far as the generator uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl Order {
    fn c_name(self) -> &'static str {
        match self {
            Order::Relaxed => "__ATOMIC_RELAXED",
            Order::Acquire => "__ATOMIC_ACQUIRE",
            Order::Release => "__ATOMIC_RELEASE",
            Order::AcqRel => "__ATOMIC_ACQ_REL",
            Order::SeqCst => "__ATOMIC_SEQ_CST",
        }
    }
    fn acquires(self) -> bool {
        matches!(self, Order::Acquire | Order::AcqRel | Order::SeqCst)
    }
    fn releases(self) -> bool {
        matches!(self, Order::Release | Order::AcqRel | Order::SeqCst)
    }
}

/// One operation of a thread on global `g`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `r = gG;`
    Load { g: usize },
    /// `gG = v;`
    Store { g: usize, v: i32 },
    /// `r = __atomic_load_n(&gG, order);`
    AtomicLoad { g: usize, order: Order },
    /// `__atomic_store_n(&gG, v, order);`
    AtomicStore { g: usize, v: i32, order: Order },
    /// `__atomic_fetch_add(&gG, v, order);`
    FetchAdd { g: usize, v: i32, order: Order },
    /// `__VERIFIER_assume(__atomic_load_n(&gG, order) == v);`: the execution goes on
    /// only if the load reads `v`.
    Await { g: usize, v: i32, order: Order },
    /// `pthread_mutex_lock(&m);`
    Lock,
    /// `pthread_mutex_unlock(&m);`
    Unlock,
    /// `__atomic_thread_fence(order);`
    Fence { order: Order },
    /// `q = p;`: the thread's local pointer `q` (it starts as the thread's argument)
    /// takes the shared pointer `p` (a plain read of `p`).
    LoadPtr,
    /// `p = &gG;` (a plain write of `p`).
    SetPtr { g: usize },
    /// `r += *q;`
    LoadVia,
    /// `*q = v;`
    StoreVia { v: i32 },
    /// `if (__VERIFIER_nondet_bool()) { yes } else { no }`: both branches are explored,
    /// and the thread goes on after them from one point (the generator of
    /// [`generate_merging`] makes paths that meet there differ in who saw a read).
    Choose { yes: Vec<Op>, no: Vec<Op> },
    /// `for (int i = 0; i < times; i++) { body }`.
    Repeat { times: u32, body: Vec<Op> },
    /// Drop this thread's reference to the data, its last operation:
    /// `if (__atomic_fetch_sub(&rc, 1, order) == 1) { fence; release }`, where `rc`
    /// starts at the number of threads. The last thread releases every data global: on
    /// the heap (`to_c_heap`) it frees each block, as globals (`to_c`) it writes each
    /// (a deallocation is a plain write of the whole object). Atomic ones race too.
    Put { order: Order, fence: Option<Order> },
}

#[derive(Clone, Debug)]
pub struct RaceProgram {
    pub seed: u64,
    pub globals: usize,
    pub threads: Vec<Vec<Op>>,
    /// The global each thread's argument points to (its `q` at the start).
    pub args: Vec<usize>,
    /// The global `p` points to at the start.
    pub ptr: usize,
}

/// The program of `seed`: 2–3 threads of 1–4 operations (a locked section, and a fence
/// with the relaxed operation it orders, count as one) on 2 globals and a pointer; or
/// message passing with fences between two threads.
pub fn generate(seed: u64) -> RaceProgram {
    let mut rng = Rng::new(seed);
    let globals = 2;
    // One program in three is message passing between two threads, each side with or
    // without a fence of some order (random threads almost never line up a fence with
    // the write and the read it would order).
    let message_passing = rng.below(3) == 0;
    let threads: usize = if message_passing {
        2
    } else {
        rng.range(2, 3) as usize
    };
    let loads = [Order::Relaxed, Order::Acquire, Order::SeqCst];
    let stores = [Order::Relaxed, Order::Release, Order::SeqCst];
    let rmws = [
        Order::Relaxed,
        Order::Acquire,
        Order::Release,
        Order::AcqRel,
        Order::SeqCst,
    ];
    let plain = |rng: &mut Rng| {
        let g = rng.below(globals as u64) as usize;
        if rng.below(2) == 0 {
            Op::Load { g }
        } else {
            Op::Store {
                g,
                v: rng.range(1, 2) as i32,
            }
        }
    };
    let fences = [
        Order::Relaxed,
        Order::Acquire,
        Order::Release,
        Order::AcqRel,
        Order::SeqCst,
    ];
    let mut out = Vec::new();
    let mut args = Vec::new();
    for t in 0..threads {
        let mut ops = Vec::new();
        args.push(rng.below(globals as u64) as usize);
        if message_passing {
            let fence = |rng: &mut Rng| {
                (rng.below(4) != 0).then(|| Op::Fence {
                    order: *rng.pick(&fences),
                })
            };
            if t == 0 {
                ops.push(Op::Store { g: 0, v: 1 });
                ops.extend(fence(&mut rng));
                ops.push(match rng.below(3) {
                    0 => Op::FetchAdd {
                        g: 1,
                        v: 1,
                        order: Order::Relaxed,
                    },
                    1 => Op::AtomicStore {
                        g: 1,
                        v: 1,
                        order: Order::Release,
                    },
                    _ => Op::AtomicStore {
                        g: 1,
                        v: 1,
                        order: Order::Relaxed,
                    },
                });
            } else {
                ops.push(Op::Await {
                    g: 1,
                    v: 1,
                    order: *rng.pick(&[Order::Relaxed, Order::Relaxed, Order::Acquire]),
                });
                ops.extend(fence(&mut rng));
                ops.push(if rng.below(2) == 0 {
                    Op::Load { g: 0 }
                } else {
                    Op::Store { g: 0, v: 2 }
                });
            }
            out.push(ops);
            continue;
        }
        for _ in 0..rng.range(1, if threads == 3 { 3 } else { 4 }) {
            let g = rng.below(globals as u64) as usize;
            match rng.below(11) {
                0 | 1 => ops.push(plain(&mut rng)),
                2 => ops.push(Op::AtomicLoad {
                    g,
                    order: *rng.pick(&loads),
                }),
                3 => ops.push(Op::AtomicStore {
                    g,
                    v: rng.range(1, 2) as i32,
                    order: *rng.pick(&stores),
                }),
                4 => ops.push(Op::FetchAdd {
                    g,
                    v: 1,
                    order: *rng.pick(&rmws),
                }),
                5 => ops.push(Op::Await {
                    g,
                    v: rng.range(1, 2) as i32,
                    order: *rng.pick(&loads),
                }),
                6 => {
                    ops.push(Op::Lock);
                    for _ in 0..rng.range(1, 2) {
                        ops.push(plain(&mut rng));
                    }
                    ops.push(Op::Unlock);
                }
                // A fence before a relaxed write (release fence publication), or alone.
                7 => {
                    ops.push(Op::Fence {
                        order: *rng.pick(&fences),
                    });
                    match rng.below(3) {
                        0 => ops.push(Op::AtomicStore {
                            g,
                            v: rng.range(1, 2) as i32,
                            order: Order::Relaxed,
                        }),
                        1 => ops.push(Op::FetchAdd {
                            g,
                            v: 1,
                            order: Order::Relaxed,
                        }),
                        _ => {}
                    }
                }
                // A relaxed read before a fence (acquire fence reception).
                8 => {
                    let v = rng.range(1, 2) as i32;
                    ops.push(if rng.below(2) == 0 {
                        Op::Await {
                            g,
                            v,
                            order: Order::Relaxed,
                        }
                    } else {
                        Op::AtomicLoad {
                            g,
                            order: Order::Relaxed,
                        }
                    });
                    ops.push(Op::Fence {
                        order: *rng.pick(&fences),
                    });
                }
                // Through pointers: the thread's argument, or the shared pointer.
                9 => ops.push(if rng.below(2) == 0 {
                    Op::LoadVia
                } else {
                    Op::StoreVia {
                        v: rng.range(1, 2) as i32,
                    }
                }),
                _ => {
                    if rng.below(3) == 0 {
                        ops.push(Op::SetPtr { g });
                    } else {
                        ops.push(Op::LoadPtr);
                        ops.push(if rng.below(2) == 0 {
                            Op::LoadVia
                        } else {
                            Op::StoreVia {
                                v: rng.range(1, 2) as i32,
                            }
                        });
                    }
                }
            }
        }
        out.push(ops);
    }
    let ptr = rng.below(globals as u64) as usize;
    // One program in three ends with each thread dropping a reference, the last one
    // releasing the data: the refcount shape, relaxed (the release races with what the
    // others did), acquire-fenced or acq_rel. Drawn apart, so that the rest of each
    // program is what the seed gave before.
    let mut put = Rng::new(seed ^ 0x7075_745f_7265_6673);
    if put.below(3) == 0 {
        let order = *put.pick(&[Order::Relaxed, Order::Release, Order::AcqRel, Order::SeqCst]);
        let fence = (put.below(2) == 0).then(|| *put.pick(&[Order::Acquire, Order::Release]));
        for ops in &mut out {
            ops.push(Op::Put { order, fence });
        }
    }
    RaceProgram {
        seed,
        globals,
        threads: out,
        args,
        ptr,
    }
}

/// A program whose paths meet in one state after differing in who saw a read: 2–3
/// threads on two data globals (`g0`, mostly, and `g1`) and a flag `g2`, with reads on
/// branches that rejoin (`Op::Choose`), a read followed by a write that may or may not
/// happen, locked sections taken in either order, a flag raised by a relaxed or
/// release operation and awaited relaxed or acquiring, and loops of two rounds. A
/// reduction that forgot a read another thread can still race with (the engine's
/// `race_read_futures`, on heap memory) would merge such paths and lose the race when
/// the path without the read comes first; so these programs check it, and the race
/// oracle checks them with every location's races (`racy_locations`).
pub fn generate_merging(seed: u64) -> RaceProgram {
    let mut rng = Rng::new(seed ^ 0x6d65_7267_696e_6721);
    let threads: usize = rng.range(2, 3) as usize;
    // Longest straight-line run of a thread, and ways it can branch: the oracle
    // enumerates every interleaving of every combination.
    let (longest, ways) = if threads == 3 { (3, 2) } else { (5, 4) };
    let mut out = Vec::new();
    for t in 0..threads {
        loop {
            let mut ops = Vec::new();
            // Thread 0 may read a location on one path and not on another, then lets
            // thread 1 on; thread 1 may then write it (by a flag or the lock, relaxed
            // or synchronising): the paths meet, and only the one that read races.
            match (t, rng.below(3)) {
                (0, 0 | 1) => ops.extend(maybe_read_then_signal(&mut rng)),
                (1, 0 | 1) => ops.extend(wait_then_maybe_write(&mut rng)),
                _ => {
                    for _ in 0..rng.range(1, 3) {
                        ops.extend(merging_segment(&mut rng));
                    }
                }
            }
            let flat = flatten(&ops);
            if flat.len() <= ways && flat.iter().all(|w| w.len() <= longest) {
                out.push(ops);
                break;
            }
        }
    }
    RaceProgram {
        seed,
        globals: 3,
        args: vec![0; threads],
        threads: out,
        ptr: 0,
    }
}

/// A read of `g0` on one branch, or in one round of two, and not on the other; then
/// the flag raised or the lock released.
fn maybe_read_then_signal(rng: &mut Rng) -> Vec<Op> {
    let read = vec![Op::Load { g: 0 }];
    let other = if rng.below(2) == 0 {
        Vec::new()
    } else {
        vec![small(rng)]
    };
    let (yes, no) = if rng.below(2) == 0 {
        (read, other)
    } else {
        (other, read)
    };
    let choose = Op::Choose { yes, no };
    let maybe = if rng.below(4) == 0 {
        Op::Repeat {
            times: 2,
            body: vec![choose],
        }
    } else {
        choose
    };
    match rng.below(4) {
        0 => vec![Op::Lock, maybe, Op::Unlock],
        1 => vec![maybe],
        _ => vec![
            maybe,
            Op::AtomicStore {
                g: 2,
                v: 1,
                order: *rng.pick(&[Order::Relaxed, Order::Relaxed, Order::Release]),
            },
        ],
    }
}

/// The flag awaited or the lock taken (or neither), then `g0` written, maybe.
fn wait_then_maybe_write(rng: &mut Rng) -> Vec<Op> {
    let mut ops = match rng.below(4) {
        0 => vec![Op::Lock, Op::Unlock],
        1 => Vec::new(),
        _ => vec![Op::Await {
            g: 2,
            v: 1,
            order: *rng.pick(&[Order::Relaxed, Order::Acquire]),
        }],
    };
    let write = vec![Op::Store { g: 0, v: 2 }];
    ops.push(match rng.below(3) {
        0 => Op::Store { g: 0, v: 2 },
        1 => Op::Choose {
            yes: write,
            no: Vec::new(),
        },
        _ => Op::Choose {
            yes: Vec::new(),
            no: write,
        },
    });
    ops
}

/// A data global: `g0` three times in four.
fn data(rng: &mut Rng) -> usize {
    (rng.below(4) == 0) as usize
}

/// A read (mostly) or write of a data global.
fn small(rng: &mut Rng) -> Op {
    let g = data(rng);
    if rng.below(3) == 0 {
        Op::Store {
            g,
            v: rng.range(1, 2) as i32,
        }
    } else {
        Op::Load { g }
    }
}

/// One piece of a [`generate_merging`] thread.
fn merging_segment(rng: &mut Rng) -> Vec<Op> {
    let flag = 2;
    let branch = |rng: &mut Rng| -> Vec<Op> { (0..rng.below(2)).map(|_| small(rng)).collect() };
    match rng.below(9) {
        0 | 1 => vec![Op::Choose {
            yes: branch(rng),
            no: branch(rng),
        }],
        // Read, then maybe write what was read.
        2 => {
            let g = data(rng);
            let write = vec![Op::Store { g, v: 2 }];
            let (yes, no) = if rng.below(2) == 0 {
                (write, Vec::new())
            } else {
                (Vec::new(), write)
            };
            vec![Op::Load { g }, Op::Choose { yes, no }]
        }
        3 => {
            let mut ops = vec![Op::Lock];
            ops.extend((0..rng.range(0, 1)).map(|_| small(rng)));
            ops.push(Op::Unlock);
            ops
        }
        4 => vec![match rng.below(3) {
            0 => Op::AtomicStore {
                g: flag,
                v: 1,
                order: *rng.pick(&[Order::Relaxed, Order::Release]),
            },
            _ => Op::FetchAdd {
                g: flag,
                v: 1,
                order: *rng.pick(&[Order::Relaxed, Order::Release, Order::AcqRel]),
            },
        }],
        5 => vec![Op::Await {
            g: flag,
            v: 1,
            order: *rng.pick(&[Order::Relaxed, Order::Acquire]),
        }],
        6 => vec![Op::Repeat {
            times: 2,
            body: if rng.below(2) == 0 {
                vec![small(rng)]
            } else {
                vec![Op::Choose {
                    yes: vec![small(rng)],
                    no: Vec::new(),
                }]
            },
        }],
        _ => vec![small(rng)],
    }
}

impl RaceProgram {
    /// The program as C: globals `g0..`, one function per thread, main creates and
    /// joins them. Loaded values go to locals no other thread can reach.
    pub fn to_c(&self) -> String {
        self.render(false)
    }

    /// The same program with each `g` a heap block main allocates (zeroed) before it
    /// creates the threads: every access then goes through a pointer each thread
    /// loaded at its start.
    pub fn to_c_heap(&self) -> String {
        self.render(true)
    }

    fn render(&self, heap: bool) -> String {
        let mut c = format!(
            "// race oracle program, seed {}\n#include <pthread.h>\n\
             void __VERIFIER_assume(int);\n_Bool __VERIFIER_nondet_bool(void);\n\
             pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n",
            self.seed
        );
        if heap {
            c.push_str("#include <stdlib.h>\n");
        }
        if self.puts() {
            c.push_str("int rc;\n");
        }
        for g in 0..self.globals {
            if heap {
                // Threads reach the block through a local copy of the pointer, read
                // once at their start: a read of `G{g}` at each access would be a
                // record of its own on every path.
                let _ = writeln!(c, "int *G{g};\n#define g{g} (*h{g})");
            } else {
                let _ = writeln!(c, "int g{g};");
            }
        }
        if heap {
            c.push_str("int *p;\n");
        } else {
            let _ = writeln!(c, "int *p = &g{};", self.ptr);
        }
        for (t, ops) in self.threads.iter().enumerate() {
            let _ = writeln!(
                c,
                "void *t{t}(void *arg) {{\n    int r = 0;\n    int *q = arg;"
            );
            if heap {
                for g in 0..self.globals {
                    let _ = writeln!(c, "    int *h{g} = G{g};");
                }
            }
            render_ops(&mut c, ops, 1, self.globals, heap);
            c.push_str("    return (void *)(long)r;\n}\n");
        }
        self.render_main(&mut c, heap);
        c
    }

    fn render_main(&self, c: &mut String, heap: bool) {
        c.push_str("int main(void) {\n");
        if heap {
            for g in 0..self.globals {
                let _ = writeln!(c, "    G{g} = calloc(1, sizeof(int));");
            }
            let _ = writeln!(c, "    p = G{};", self.ptr);
        }
        let n = self.threads.len();
        if self.puts() {
            let _ = writeln!(c, "    rc = {n};");
        }
        let _ = writeln!(c, "    pthread_t t[{n}];");
        for t in 0..n {
            let arg = if heap { "G" } else { "&g" };
            let _ = writeln!(
                c,
                "    pthread_create(&t[{t}], 0, t{t}, {arg}{});",
                self.args[t]
            );
        }
        for t in 0..n {
            let _ = writeln!(c, "    pthread_join(t[{t}], 0);");
        }
        c.push_str("    return 0;\n}\n");
    }

    /// The same program with its fences removed.
    pub fn without_fences(&self) -> RaceProgram {
        let mut p = self.clone();
        for ops in &mut p.threads {
            ops.retain(|op| !matches!(op, Op::Fence { .. }));
        }
        p
    }

    /// The same program with every atomic operation one that synchronises: loads
    /// acquire, stores release, read-modify-writes are acq_rel or seq_cst (fences stay
    /// as they are). Such programs are the ones whose races the engine's race screen
    /// decides (`tso_engine::race::screen`).
    pub fn synchronising(&self) -> RaceProgram {
        fn strengthen(ops: &mut [Op]) {
            for op in ops {
                match op {
                    Op::AtomicLoad { order, .. } | Op::Await { order, .. } if !order.acquires() => {
                        *order = Order::Acquire
                    }
                    Op::AtomicStore { order, .. } if !order.releases() => *order = Order::Release,
                    Op::FetchAdd { order, .. } | Op::Put { order, .. }
                        if *order != Order::SeqCst =>
                    {
                        *order = Order::AcqRel
                    }
                    Op::Choose { yes, no } => {
                        strengthen(yes);
                        strengthen(no);
                    }
                    Op::Repeat { body, .. } => strengthen(body),
                    _ => {}
                }
            }
        }
        let mut p = self.clone();
        for ops in &mut p.threads {
            strengthen(ops);
        }
        p
    }

    /// The same program without its `Op::Put`s (no release).
    pub fn without_puts(&self) -> RaceProgram {
        let mut p = self.clone();
        for ops in &mut p.threads {
            ops.retain(|op| !matches!(op, Op::Put { .. }));
        }
        p
    }

    /// Whether the threads drop references (`Op::Put`).
    pub fn puts(&self) -> bool {
        self.threads
            .iter()
            .flatten()
            .any(|op| matches!(op, Op::Put { .. }))
    }

    /// Whether a thread accesses memory through a pointer.
    pub fn uses_pointers(&self) -> bool {
        self.threads.iter().flatten().any(|op| {
            matches!(
                op,
                Op::LoadPtr | Op::SetPtr { .. } | Op::LoadVia | Op::StoreVia { .. }
            )
        })
    }

    /// Whether some execution has a data race: two accesses of different threads to
    /// the same global (or to `p`), at least one a write and one not atomic, that
    /// happens-before does not order.
    pub fn has_race(&self) -> bool {
        self.straight_lines()
            .iter()
            .any(|p| p.search_races(false) != 0)
    }

    /// The locations some execution has a race on, as a set of bits: bit `g` for
    /// global `g`, bit `globals` for `p`.
    pub fn racy_locations(&self) -> u32 {
        self.straight_lines()
            .iter()
            .fold(0, |racy, p| racy | p.search_races(true))
    }

    /// The same program once per way its threads can take their branches, with loops
    /// unrolled: straight-line programs whose executions are this program's.
    fn straight_lines(&self) -> Vec<RaceProgram> {
        let mut out = vec![RaceProgram {
            threads: Vec::new(),
            ..self.clone()
        }];
        for ops in &self.threads {
            let ways = flatten(ops);
            out = out
                .iter()
                .flat_map(|p| {
                    ways.iter().map(move |w| {
                        let mut p = p.clone();
                        p.threads.push(w.clone());
                        p
                    })
                })
                .collect();
        }
        out
    }

    /// For a straight-line program: the racy locations (see [`Self::racy_locations`]),
    /// or with `all` false, any one of them.
    fn search_races(&self, all: bool) -> u32 {
        let mut search = Search {
            program: self,
            pcs: vec![0; self.threads.len()],
            values: vec![0; self.globals],
            ptr: self.ptr,
            refs: self.threads.len() as i32,
            qs: self.args.clone(),
            lock_owner: None,
            trace: Vec::new(),
            racy: 0,
            done: if all {
                (1 << (self.globals + 1)) - 1
            } else {
                1
            },
        };
        search.explore();
        search.racy
    }

    /// Whether a thread branches (`Op::Choose`).
    pub fn branches(&self) -> bool {
        fn any(ops: &[Op]) -> bool {
            ops.iter().any(|op| match op {
                Op::Choose { .. } => true,
                Op::Repeat { body, .. } => any(body),
                _ => false,
            })
        }
        self.threads.iter().any(|ops| any(ops))
    }
}

/// Every straight-line sequence `ops` can run as (each branch taken, loops unrolled).
fn flatten(ops: &[Op]) -> Vec<Vec<Op>> {
    let mut ways: Vec<Vec<Op>> = vec![Vec::new()];
    for op in ops {
        let tails: Vec<Vec<Op>> = match op {
            Op::Choose { yes, no } => {
                let mut t = flatten(yes);
                t.extend(flatten(no));
                t
            }
            Op::Repeat { times, body } => {
                let once = flatten(body);
                (0..*times).fold(vec![Vec::new()], |t, _| then(&t, &once))
            }
            op => vec![vec![op.clone()]],
        };
        ways = then(&ways, &tails);
    }
    ways
}

/// Each of `heads` followed by each of `tails`.
fn then(heads: &[Vec<Op>], tails: &[Vec<Op>]) -> Vec<Vec<Op>> {
    heads
        .iter()
        .flat_map(|h| {
            tails.iter().map(move |t| {
                let mut h = h.clone();
                h.extend(t.iter().cloned());
                h
            })
        })
        .collect()
}

/// Write `ops` as statements at `depth` levels of indentation; `globals` data globals,
/// on the heap or not (what `Op::Put` releases).
fn render_ops(c: &mut String, ops: &[Op], depth: usize, globals: usize, heap: bool) {
    let pad = "    ".repeat(depth);
    for op in ops {
        let line = match op {
            Op::Load { g } => format!("r += g{g};"),
            Op::Store { g, v } => format!("g{g} = {v};"),
            Op::AtomicLoad { g, order } => {
                format!("r += __atomic_load_n(&g{g}, {});", order.c_name())
            }
            Op::AtomicStore { g, v, order } => {
                format!("__atomic_store_n(&g{g}, {v}, {});", order.c_name())
            }
            Op::FetchAdd { g, v, order } => {
                format!("__atomic_fetch_add(&g{g}, {v}, {});", order.c_name())
            }
            Op::Await { g, v, order } => format!(
                "__VERIFIER_assume(__atomic_load_n(&g{g}, {}) == {v});",
                order.c_name()
            ),
            Op::Lock => "pthread_mutex_lock(&m);".to_owned(),
            Op::Unlock => "pthread_mutex_unlock(&m);".to_owned(),
            Op::Fence { order } => {
                format!("__atomic_thread_fence({});", order.c_name())
            }
            Op::LoadPtr => "q = p;".to_owned(),
            Op::SetPtr { g } => format!("p = &g{g};"),
            Op::LoadVia => "r += *q;".to_owned(),
            Op::StoreVia { v } => format!("*q = {v};"),
            Op::Choose { yes, no } => {
                let _ = writeln!(c, "{pad}if (__VERIFIER_nondet_bool()) {{");
                render_ops(c, yes, depth + 1, globals, heap);
                let _ = writeln!(c, "{pad}}} else {{");
                render_ops(c, no, depth + 1, globals, heap);
                let _ = writeln!(c, "{pad}}}");
                continue;
            }
            Op::Repeat { times, body } => {
                let i = format!("i{depth}");
                let _ = writeln!(c, "{pad}for (int {i} = 0; {i} < {times}; {i}++) {{");
                render_ops(c, body, depth + 1, globals, heap);
                let _ = writeln!(c, "{pad}}}");
                continue;
            }
            Op::Put { order, fence } => {
                let _ = writeln!(
                    c,
                    "{pad}if (__atomic_fetch_sub(&rc, 1, {}) == 1) {{",
                    order.c_name()
                );
                if let Some(f) = fence {
                    let _ = writeln!(c, "{pad}    __atomic_thread_fence({});", f.c_name());
                }
                for g in 0..globals {
                    if heap {
                        let _ = writeln!(c, "{pad}    free(h{g});");
                    } else {
                        let _ = writeln!(c, "{pad}    g{g} = 0;");
                    }
                }
                let _ = writeln!(c, "{pad}}}");
                continue;
            }
        };
        let _ = writeln!(c, "{pad}{line}");
    }
}

/// One executed operation, as happens-before needs it.
#[derive(Clone, Copy, Debug)]
struct Event {
    thread: usize,
    /// The location accessed, if any (lock, unlock and fences access none): a global's
    /// index, or the number of globals for `p`.
    g: Option<usize>,
    reads: bool,
    writes: bool,
    atomic: bool,
    acquire: bool,
    release: bool,
    lock: bool,
    unlock: bool,
    fence_acquire: bool,
    fence_release: bool,
}

struct Search<'p> {
    program: &'p RaceProgram,
    pcs: Vec<usize>,
    values: Vec<i32>,
    /// The global `p` points to.
    ptr: usize,
    /// The global each thread's `q` points to.
    qs: Vec<usize>,
    /// The reference count `Op::Put` drops.
    refs: i32,
    lock_owner: Option<usize>,
    trace: Vec<Event>,
    /// The racy locations found (bits, see `RaceProgram::racy_locations`).
    racy: u32,
    /// The search may stop once `racy` has all of these.
    done: u32,
}

impl Search<'_> {
    /// Depth-first over every interleaving; each maximal execution (all threads done,
    /// or stopped by a failed await, as the engine drops such a path) is judged.
    fn explore(&mut self) {
        if self.racy & self.done == self.done {
            return;
        }
        let mut moved = false;
        for t in 0..self.program.threads.len() {
            let Some(op) = self.program.threads[t].get(self.pcs[t]).cloned() else {
                continue;
            };
            if op == Op::Lock && self.lock_owner.is_some() {
                continue;
            }
            moved = true;
            let (saved_values, saved_owner) = (self.values.clone(), self.lock_owner);
            let (saved_ptr, saved_q, saved_refs) = (self.ptr, self.qs[t], self.refs);
            let events = self.trace.len();
            let (event, feasible) = self.execute(t, &op);
            self.trace.push(event);
            if let Op::Put { fence, .. } = op {
                if saved_refs == 1 {
                    self.release(t, fence);
                }
            }
            self.pcs[t] += 1;
            if feasible {
                self.explore();
            } else {
                self.racy |= race_in(&self.trace);
            }
            self.pcs[t] -= 1;
            self.trace.truncate(events);
            self.values = saved_values;
            self.lock_owner = saved_owner;
            (self.ptr, self.qs[t], self.refs) = (saved_ptr, saved_q, saved_refs);
            if self.racy & self.done == self.done {
                return;
            }
        }
        if !moved {
            self.racy |= race_in(&self.trace);
        }
    }

    /// Thread `t` dropped the last reference: its fence, then a plain write of every
    /// data global (the release).
    fn release(&mut self, t: usize, fence: Option<Order>) {
        let event = |g: Option<usize>| Event {
            thread: t,
            g,
            reads: false,
            writes: g.is_some(),
            atomic: false,
            acquire: false,
            release: false,
            lock: false,
            unlock: false,
            fence_acquire: false,
            fence_release: false,
        };
        if let Some(order) = fence {
            self.trace.push(Event {
                fence_acquire: order.acquires(),
                fence_release: order.releases(),
                ..event(None)
            });
        }
        for g in 0..self.program.globals {
            self.trace.push(event(Some(g)));
        }
    }

    /// Run `op` for thread `t`: its event, and whether the execution goes on.
    fn execute(&mut self, t: usize, op: &Op) -> (Event, bool) {
        let mut e = Event {
            thread: t,
            g: None,
            reads: false,
            writes: false,
            atomic: false,
            acquire: false,
            release: false,
            lock: false,
            unlock: false,
            fence_acquire: false,
            fence_release: false,
        };
        let mut feasible = true;
        match *op {
            Op::Load { g } => {
                e.g = Some(g);
                e.reads = true;
            }
            Op::Store { g, v } => {
                e.g = Some(g);
                e.writes = true;
                self.values[g] = v;
            }
            Op::AtomicLoad { g, order } => {
                e.g = Some(g);
                e.reads = true;
                e.atomic = true;
                e.acquire = order.acquires();
            }
            Op::AtomicStore { g, v, order } => {
                e.g = Some(g);
                e.writes = true;
                e.atomic = true;
                e.release = order.releases();
                self.values[g] = v;
            }
            Op::FetchAdd { g, v, order } => {
                e.g = Some(g);
                e.reads = true;
                e.writes = true;
                e.atomic = true;
                e.acquire = order.acquires();
                e.release = order.releases();
                self.values[g] += v;
            }
            Op::Await { g, v, order } => {
                e.g = Some(g);
                e.reads = true;
                e.atomic = true;
                e.acquire = order.acquires();
                feasible = self.values[g] == v;
            }
            Op::Lock => {
                e.lock = true;
                self.lock_owner = Some(t);
            }
            Op::Unlock => {
                e.unlock = true;
                self.lock_owner = None;
            }
            Op::Fence { order } => {
                e.fence_acquire = order.acquires();
                e.fence_release = order.releases();
            }
            Op::LoadPtr => {
                e.g = Some(self.program.globals);
                e.reads = true;
                self.qs[t] = self.ptr;
            }
            Op::SetPtr { g } => {
                e.g = Some(self.program.globals);
                e.writes = true;
                self.ptr = g;
            }
            Op::LoadVia => {
                e.g = Some(self.qs[t]);
                e.reads = true;
            }
            Op::StoreVia { v } => {
                e.g = Some(self.qs[t]);
                e.writes = true;
                self.values[self.qs[t]] = v;
            }
            Op::Put { order, .. } => {
                // An RMW of `rc`, the location after `p`.
                e.g = Some(self.program.globals + 1);
                e.reads = true;
                e.writes = true;
                e.atomic = true;
                e.acquire = order.acquires();
                e.release = order.releases();
                self.refs -= 1;
            }
            Op::Choose { .. } | Op::Repeat { .. } => {
                unreachable!("straight-line programs only (`straight_lines`)")
            }
        }
        (e, feasible)
    }
}

/// The writes X whose (hypothetical, C++20) release sequence holds the write the read
/// `r` reads from: that write, and while it is a read-modify-write the write before it,
/// back to an atomic store that is not one. None past a non-atomic write.
fn heads(trace: &[Event], r: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for w in (0..r).rev() {
        let write = trace[w];
        if write.g != trace[r].g || !write.writes {
            continue;
        }
        if !write.atomic {
            break;
        }
        out.push(w);
        if !write.reads {
            break;
        }
    }
    out
}

/// `x`, a write read by (or before) the acquire `to`, makes `to` synchronise with `x`
/// if `x` releases, and with every release fence sequenced before `x`.
fn synchronises(trace: &[Event], x: usize, to: usize, hb: &mut [Vec<bool>]) {
    if trace[x].release {
        hb[x][to] = true;
    }
    for a in 0..x {
        if trace[a].thread == trace[x].thread && trace[a].fence_release {
            hb[a][to] = true;
        }
    }
}

/// The locations the execution `trace` (events in the order they happened) has a race
/// on, as bits (see `RaceProgram::racy_locations`).
fn race_in(trace: &[Event]) -> u32 {
    let n = trace.len();
    // hb[i][j]: event i happens-before event j (i < j in the trace).
    let mut hb = vec![vec![false; n]; n];
    for j in 0..n {
        let b = trace[j];
        // Program order: the thread's previous event.
        if let Some(i) = (0..j).rev().find(|&i| trace[i].thread == b.thread) {
            hb[i][j] = true;
        }
        // Unlock → the next lock.
        if b.lock {
            if let Some(i) = (0..j).rev().find(|&i| trace[i].unlock) {
                hb[i][j] = true;
            }
        }
        // An acquire read synchronises with each release write X whose release
        // sequence holds the write it reads from, and with each release fence
        // sequenced before such an X even if X is relaxed (C11 fences rule 2).
        if b.reads && b.atomic && b.acquire {
            for x in heads(trace, j) {
                synchronises(trace, x, j, &mut hb);
            }
        }
        // An acquire fence does so for every atomic read sequenced before it (rules 1
        // and 3): what a relaxed read saw becomes ordered at the fence.
        if b.fence_acquire {
            for y in (0..j).filter(|&y| {
                let e = trace[y];
                e.thread == b.thread && e.reads && e.atomic
            }) {
                for x in heads(trace, y) {
                    synchronises(trace, x, j, &mut hb);
                }
            }
        }
    }
    // Transitive closure, in trace order (every edge goes forward).
    for j in 0..n {
        for i in (0..j).rev() {
            if hb[i][j] {
                let before_i: Vec<usize> = (0..i).filter(|&k| hb[k][i]).collect();
                for k in before_i {
                    hb[k][j] = true;
                }
            }
        }
    }
    let mut racy = 0;
    for j in 0..n {
        for i in 0..j {
            let (a, b) = (trace[i], trace[j]);
            if let Some(g) = a.g.filter(|_| {
                a.thread != b.thread
                    && a.g == b.g
                    && (a.writes || b.writes)
                    && !(a.atomic && b.atomic)
                    && !hb[i][j]
            }) {
                racy |= 1 << g;
            }
        }
    }
    racy
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(threads: Vec<Vec<Op>>) -> RaceProgram {
        RaceProgram {
            seed: 0,
            globals: 2,
            args: vec![0; threads.len()],
            threads,
            ptr: 0,
        }
    }

    #[test]
    fn oracle_on_message_passing() {
        let publish = |store: Order, load: Order| {
            program(vec![
                vec![
                    Op::Store { g: 0, v: 1 },
                    Op::AtomicStore {
                        g: 1,
                        v: 1,
                        order: store,
                    },
                ],
                vec![
                    Op::Await {
                        g: 1,
                        v: 1,
                        order: load,
                    },
                    Op::Load { g: 0 },
                ],
            ])
        };
        assert!(!publish(Order::Release, Order::Acquire).has_race());
        assert!(!publish(Order::SeqCst, Order::SeqCst).has_race());
        assert!(publish(Order::Relaxed, Order::Acquire).has_race());
        assert!(publish(Order::Release, Order::Relaxed).has_race());
    }

    #[test]
    fn oracle_on_branches_and_loops() {
        // A read on one branch, then a flag; the other thread awaits it and writes.
        let publish = |store: Order, load: Order| RaceProgram {
            globals: 3,
            ..program(vec![
                vec![
                    Op::Choose {
                        yes: vec![Op::Load { g: 0 }],
                        no: Vec::new(),
                    },
                    Op::AtomicStore {
                        g: 2,
                        v: 1,
                        order: store,
                    },
                ],
                vec![
                    Op::Await {
                        g: 2,
                        v: 1,
                        order: load,
                    },
                    Op::Store { g: 0, v: 1 },
                ],
            ])
        };
        assert_eq!(
            publish(Order::Relaxed, Order::Acquire).racy_locations(),
            0b1
        );
        assert_eq!(publish(Order::Release, Order::Acquire).racy_locations(), 0);
        assert!(publish(Order::Relaxed, Order::Relaxed).branches());
        // Two rounds of a write in one thread against a read in the other: g1 only.
        let looped = program(vec![
            vec![Op::Repeat {
                times: 2,
                body: vec![Op::Store { g: 1, v: 1 }],
            }],
            vec![Op::Load { g: 1 }, Op::Load { g: 0 }],
        ]);
        assert_eq!(flatten(&looped.threads[0]).len(), 1);
        assert_eq!(flatten(&looped.threads[0])[0].len(), 2);
        assert_eq!(looped.racy_locations(), 0b10);
    }

    #[test]
    fn oracle_on_locks_and_atomics() {
        let locked = vec![Op::Lock, Op::Store { g: 0, v: 1 }, Op::Unlock];
        assert!(!program(vec![locked.clone(), locked.clone()]).has_race());
        assert!(program(vec![locked, vec![Op::Load { g: 0 }]]).has_race());
        let add = Op::FetchAdd {
            g: 0,
            v: 1,
            order: Order::Relaxed,
        };
        assert!(!program(vec![vec![add.clone()], vec![add]]).has_race());
        // Different globals never race.
        assert!(!program(vec![
            vec![Op::Store { g: 0, v: 1 }],
            vec![Op::Store { g: 1, v: 1 }]
        ])
        .has_race());
    }

    #[test]
    fn a_relaxed_rmw_continues_a_release_sequence_and_a_store_ends_it() {
        let with_middle = |middle: Op| {
            program(vec![
                vec![
                    Op::Store { g: 0, v: 1 },
                    Op::AtomicStore {
                        g: 1,
                        v: 1,
                        order: Order::Release,
                    },
                ],
                vec![
                    Op::Await {
                        g: 1,
                        v: 2,
                        order: Order::Acquire,
                    },
                    Op::Load { g: 0 },
                ],
                vec![
                    Op::Await {
                        g: 1,
                        v: 1,
                        order: Order::Relaxed,
                    },
                    middle,
                ],
            ])
        };
        let rmw = Op::FetchAdd {
            g: 1,
            v: 1,
            order: Order::Relaxed,
        };
        let store = Op::AtomicStore {
            g: 1,
            v: 2,
            order: Order::Relaxed,
        };
        assert!(!with_middle(rmw).has_race());
        assert!(with_middle(store).has_race());
    }

    #[test]
    fn oracle_on_fences() {
        // Thread 0 writes g0, fences, sets g1 relaxed; thread 1 waits for g1 relaxed,
        // fences, reads g0.
        let publish = |release: Option<Order>, acquire: Option<Order>, rmw: bool| {
            let mut writer = vec![Op::Store { g: 0, v: 1 }];
            writer.extend(release.map(|order| Op::Fence { order }));
            writer.push(if rmw {
                Op::FetchAdd {
                    g: 1,
                    v: 1,
                    order: Order::Relaxed,
                }
            } else {
                Op::AtomicStore {
                    g: 1,
                    v: 1,
                    order: Order::Relaxed,
                }
            });
            let mut reader = vec![Op::Await {
                g: 1,
                v: 1,
                order: Order::Relaxed,
            }];
            reader.extend(acquire.map(|order| Op::Fence { order }));
            reader.push(Op::Load { g: 0 });
            program(vec![writer, reader])
        };
        let (rel, acq) = (Some(Order::Release), Some(Order::Acquire));
        assert!(!publish(rel, acq, false).has_race());
        assert!(!publish(rel, acq, true).has_race());
        assert!(!publish(Some(Order::SeqCst), Some(Order::AcqRel), false).has_race());
        assert!(publish(None, acq, false).has_race());
        assert!(publish(rel, None, false).has_race());
        assert!(publish(Some(Order::Acquire), Some(Order::Release), false).has_race());
        assert!(publish(Some(Order::Relaxed), Some(Order::Relaxed), false).has_race());
        // A release fence and an acquire read (rule 2); a release write and an acquire
        // fence (rule 3).
        let mixed = |store: Order, fence: Option<Order>, load: Order, fence2: Option<Order>| {
            let mut writer = vec![Op::Store { g: 0, v: 1 }];
            writer.extend(fence.map(|order| Op::Fence { order }));
            writer.push(Op::AtomicStore {
                g: 1,
                v: 1,
                order: store,
            });
            let mut reader = vec![Op::Await {
                g: 1,
                v: 1,
                order: load,
            }];
            reader.extend(fence2.map(|order| Op::Fence { order }));
            reader.push(Op::Load { g: 0 });
            program(vec![writer, reader])
        };
        assert!(!mixed(Order::Relaxed, rel, Order::Acquire, None).has_race());
        assert!(!mixed(Order::Release, None, Order::Relaxed, acq).has_race());
        assert!(mixed(Order::Relaxed, None, Order::Relaxed, acq).has_race());
        // A fence after the relaxed store publishes nothing.
        let late = program(vec![
            vec![
                Op::Store { g: 0, v: 1 },
                Op::AtomicStore {
                    g: 1,
                    v: 1,
                    order: Order::Relaxed,
                },
                Op::Fence {
                    order: Order::Release,
                },
            ],
            vec![
                Op::Await {
                    g: 1,
                    v: 1,
                    order: Order::Acquire,
                },
                Op::Load { g: 0 },
            ],
        ]);
        assert!(late.has_race());
    }

    #[test]
    fn oracle_on_dropping_the_last_reference() {
        // Each thread reads g0 (or g1) then drops its reference; the last one releases
        // both globals, a write of each.
        let refcount = |read: usize, order: Order, fence: Option<Order>| {
            let put = Op::Put { order, fence };
            program(vec![
                vec![Op::Load { g: read }, put.clone()],
                vec![Op::Load { g: 0 }, put],
            ])
        };
        let acquire = Some(Order::Acquire);
        assert!(refcount(0, Order::Relaxed, None).has_race());
        assert!(refcount(1, Order::Relaxed, None).has_race());
        assert!(refcount(0, Order::Release, None).has_race());
        assert!(refcount(0, Order::Relaxed, acquire).has_race());
        assert!(!refcount(0, Order::Release, acquire).has_race());
        assert!(!refcount(0, Order::AcqRel, None).has_race());
        assert!(!refcount(1, Order::SeqCst, None).has_race());
        // An atomic access races with the release too.
        let atomic = program(vec![
            vec![
                Op::AtomicLoad {
                    g: 1,
                    order: Order::Acquire,
                },
                Op::Put {
                    order: Order::Relaxed,
                    fence: None,
                },
            ],
            vec![Op::Put {
                order: Order::Relaxed,
                fence: None,
            }],
        ]);
        assert!(atomic.has_race());
        // The release reaches C as frees or writes after the last decrement.
        let c = refcount(0, Order::AcqRel, acquire).to_c_heap();
        assert!(c.contains("if (__atomic_fetch_sub(&rc, 1, __ATOMIC_ACQ_REL) == 1) {"));
        assert!(c.contains("free(h1);") && c.contains("rc = 2;"));
        assert!(refcount(0, Order::AcqRel, None).to_c().contains("g1 = 0;"));
    }

    #[test]
    fn oracle_on_pointers() {
        // Through the threads' arguments: the same global races, different ones do not.
        let mut p = program(vec![vec![Op::StoreVia { v: 1 }], vec![Op::LoadVia]]);
        assert!(p.has_race());
        p.args = vec![0, 1];
        assert!(!p.has_race());
        // Through the shared pointer: a write of g1 races with a read through `p` only
        // once `p` may point to g1; setting `p` races with reading it.
        let through_p = |ptr: usize| RaceProgram {
            ptr,
            ..program(vec![
                vec![Op::Store { g: 1, v: 1 }],
                vec![Op::LoadPtr, Op::LoadVia],
            ])
        };
        assert!(!through_p(0).has_race());
        assert!(through_p(1).has_race());
        let set = program(vec![vec![Op::SetPtr { g: 1 }], vec![Op::LoadPtr]]);
        assert!(set.has_race());
        // Reading `p` after a lock-protected set is ordered, and follows the new target.
        let locked = program(vec![
            vec![Op::Lock, Op::SetPtr { g: 1 }, Op::Unlock],
            vec![Op::Lock, Op::LoadPtr, Op::Unlock, Op::StoreVia { v: 1 }],
            vec![Op::Load { g: 1 }],
        ]);
        assert!(locked.has_race());
        let mut locked_other = locked.clone();
        locked_other.threads[2] = vec![Op::Load { g: 0 }];
        // g0 is written through `q` only when thread 1 read `p` before the set.
        assert!(locked_other.has_race());
        locked_other.threads[1].insert(
            0,
            Op::Await {
                g: 0,
                v: 7,
                order: Order::Relaxed,
            },
        );
        assert!(!locked_other.has_race());
    }
}
