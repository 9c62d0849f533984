//! Small straight-line programs for the data-race oracle, and an independent oracle
//! that decides whether one of their executions has a C11 data race.
//!
//! The oracle never looks at C, LLVM or the engine, and shares no code or method with
//! the engine's detector (vector clocks with epochs, history pruning, canonical
//! states): it enumerates every interleaving of the threads' operations on plain
//! integers, and for each execution builds happens-before from its definition, as a
//! graph (program order; unlock → next lock; a release write, or the head of the
//! release sequence a read-from write belongs to → an acquire read of it), closes it
//! transitively, and compares every pair of conflicting accesses.

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
}

#[derive(Clone, Debug)]
pub struct RaceProgram {
    pub seed: u64,
    pub globals: usize,
    pub threads: Vec<Vec<Op>>,
}

/// The program of `seed`: 2–3 threads of 1–4 operations (a locked section counts as
/// one) on 2 globals.
pub fn generate(seed: u64) -> RaceProgram {
    let mut rng = Rng::new(seed);
    let globals = 2;
    let threads: usize = rng.range(2, 3) as usize;
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
    let mut out = Vec::new();
    for _ in 0..threads {
        let mut ops = Vec::new();
        for _ in 0..rng.range(1, if threads == 3 { 3 } else { 4 }) {
            let g = rng.below(globals as u64) as usize;
            match rng.below(7) {
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
                _ => {
                    ops.push(Op::Lock);
                    for _ in 0..rng.range(1, 2) {
                        ops.push(plain(&mut rng));
                    }
                    ops.push(Op::Unlock);
                }
            }
        }
        out.push(ops);
    }
    RaceProgram {
        seed,
        globals,
        threads: out,
    }
}

impl RaceProgram {
    /// The program as C: globals `g0..`, one function per thread, main creates and
    /// joins them. Loaded values go to locals no other thread can reach.
    pub fn to_c(&self) -> String {
        let mut c = format!(
            "// race oracle program, seed {}\n#include <pthread.h>\n\
             void __VERIFIER_assume(int);\n\
             pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n",
            self.seed
        );
        for g in 0..self.globals {
            let _ = writeln!(c, "int g{g};");
        }
        for (t, ops) in self.threads.iter().enumerate() {
            let _ = writeln!(c, "void *t{t}(void *arg) {{\n    int r = 0;");
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
                };
                let _ = writeln!(c, "    {line}");
            }
            c.push_str("    return (void *)(long)r;\n}\n");
        }
        c.push_str("int main(void) {\n");
        let n = self.threads.len();
        let _ = writeln!(c, "    pthread_t t[{n}];");
        for t in 0..n {
            let _ = writeln!(c, "    pthread_create(&t[{t}], 0, t{t}, 0);");
        }
        for t in 0..n {
            let _ = writeln!(c, "    pthread_join(t[{t}], 0);");
        }
        c.push_str("    return 0;\n}\n");
        c
    }

    /// Whether some execution has a data race: two accesses of different threads to
    /// the same global, at least one a write and one not atomic, that happens-before
    /// does not order.
    pub fn has_race(&self) -> bool {
        let mut search = Search {
            program: self,
            pcs: vec![0; self.threads.len()],
            values: vec![0; self.globals],
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
    /// The global accessed, if any (lock and unlock access none).
    g: Option<usize>,
    reads: bool,
    writes: bool,
    atomic: bool,
    acquire: bool,
    release: bool,
    lock: bool,
    unlock: bool,
}

struct Search<'p> {
    program: &'p RaceProgram,
    pcs: Vec<usize>,
    values: Vec<i32>,
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
        }
        (e, feasible)
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
        // An acquire read synchronises with the release heads of the release sequence
        // the write it reads from belongs to (C++20: a release write followed by
        // read-modify-writes only).
        if b.reads && b.atomic && b.acquire {
            let g = b.g;
            let writes: Vec<usize> = (0..j)
                .filter(|&i| trace[i].g == g && trace[i].writes)
                .collect();
            for &w in writes.iter().rev() {
                let write = trace[w];
                if !write.atomic {
                    break;
                }
                if write.release {
                    hb[w][j] = true;
                }
                // A read-modify-write continues the sequence of the write before it.
                if !write.reads {
                    break;
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
            threads,
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
}
