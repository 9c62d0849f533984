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
    RaceProgram {
        seed,
        globals,
        threads: out,
        args,
        ptr: rng.below(globals as u64) as usize,
    }
}

impl RaceProgram {
    /// The program as C: globals `g0..`, one function per thread, main creates and
    /// joins them. Loaded values go to locals no other thread can reach.
    pub fn to_c(&self) -> String {
        self.render(false)
    }

    /// The same program with each `g` a heap block main allocates (zeroed) before it
    /// creates the threads: every access then goes through a loaded pointer.
    pub fn to_c_heap(&self) -> String {
        self.render(true)
    }

    fn render(&self, heap: bool) -> String {
        let mut c = format!(
            "// race oracle program, seed {}\n#include <pthread.h>\n\
             void __VERIFIER_assume(int);\n\
             pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n",
            self.seed
        );
        if heap {
            c.push_str("#include <stdlib.h>\n");
        }
        for g in 0..self.globals {
            if heap {
                let _ = writeln!(c, "int *G{g};\n#define g{g} (*G{g})");
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
                };
                let _ = writeln!(c, "    {line}");
            }
            c.push_str("    return (void *)(long)r;\n}\n");
        }
        c.push_str("int main(void) {\n");
        if heap {
            for g in 0..self.globals {
                let _ = writeln!(c, "    G{g} = calloc(1, sizeof(int));");
            }
            let _ = writeln!(c, "    p = &g{};", self.ptr);
        }
        let n = self.threads.len();
        let _ = writeln!(c, "    pthread_t t[{n}];");
        for t in 0..n {
            let _ = writeln!(
                c,
                "    pthread_create(&t[{t}], 0, t{t}, &g{});",
                self.args[t]
            );
        }
        for t in 0..n {
            let _ = writeln!(c, "    pthread_join(t[{t}], 0);");
        }
        c.push_str("    return 0;\n}\n");
        c
    }

    /// The same program with its fences removed.
    pub fn without_fences(&self) -> RaceProgram {
        let mut p = self.clone();
        for ops in &mut p.threads {
            ops.retain(|op| !matches!(op, Op::Fence { .. }));
        }
        p
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
        let mut search = Search {
            program: self,
            pcs: vec![0; self.threads.len()],
            values: vec![0; self.globals],
            ptr: self.ptr,
            qs: self.args.clone(),
            lock_owner: None,
            trace: Vec::new(),
            racy: false,
        };
        search.explore();
        search.racy
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
    lock_owner: Option<usize>,
    trace: Vec<Event>,
    racy: bool,
}

impl Search<'_> {
    /// Depth-first over every interleaving; each maximal execution (all threads done,
    /// or stopped by a failed await, as the engine drops such a path) is judged.
    fn explore(&mut self) {
        if self.racy {
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
            let (saved_ptr, saved_q) = (self.ptr, self.qs[t]);
            let (event, feasible) = self.execute(t, &op);
            self.trace.push(event);
            self.pcs[t] += 1;
            if feasible {
                self.explore();
            } else if race_in(&self.trace) {
                self.racy = true;
            }
            self.pcs[t] -= 1;
            self.trace.pop();
            self.values = saved_values;
            self.lock_owner = saved_owner;
            (self.ptr, self.qs[t]) = (saved_ptr, saved_q);
            if self.racy {
                return;
            }
        }
        if !moved && race_in(&self.trace) {
            self.racy = true;
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

/// Whether the execution `trace` (events in the order they happened) has a race.
fn race_in(trace: &[Event]) -> bool {
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
    (0..n).any(|j| {
        (0..j).any(|i| {
            let (a, b) = (trace[i], trace[j]);
            a.thread != b.thread
                && a.g.is_some()
                && a.g == b.g
                && (a.writes || b.writes)
                && !(a.atomic && b.atomic)
                && !hb[i][j]
        })
    })
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
