//! Deadlocks that leave other threads running: a wait-for graph over the threads that
//! are blocked in a state.
//!
//! A blocked thread waits either for *every* thread of a set (the holder of a mutex,
//! spin lock or pthread_once, the writer and readers of an rwlock, a thread it joins,
//! the owner of an atomic section) or for *any* other thread (a signal on a condition
//! variable, more arrivals at a barrier). Threads not blocked may still act, so they are
//! live; a blocked thread is live when every thread it waits for is live (or, for an
//! "any" wait, some other thread is). What is left after this least fixpoint can never
//! move again: a cycle of lock waits, a join of a thread that waits for the joiner, a
//! mutex held by a thread that has finished, a condition whose every possible
//! signaller is itself stuck. A thread blocked in a way this module does not know is
//! counted as live, so a reported deadlock is always real. A thread caught in an
//! endless loop (`ThreadStatus::Stuck`, `--allow-nontermination`) never acts: waiting
//! for it (a join, a lock it holds) is part of its non-termination, not a deadlock, but
//! it does not count as a thread that could signal or arrive.

use super::Move;
use crate::error::{ErrorKind, Failure};
use crate::interp::{describe_pointer, Machine};
use crate::pthread::{barrier, cond, mutex, once, rwlock, spin, thread_bit};
use crate::state::{State, ThreadId, ThreadStatus};

/// A deadlock found in a state: the verdict and the threads it is about.
pub(crate) struct Deadlock {
    pub failure: Failure,
    /// The threads of the cycle (or chain), in the order the message names them.
    pub threads: Vec<ThreadId>,
}

/// What one blocked thread waits for.
struct Wait {
    on: On,
    /// Whether the threads in `holders` hold `on` (locks) rather than being awaited.
    held: bool,
    need: Need,
}

/// The thing a wait is on. Named in words (`On::describe`) only once a deadlock is
/// found: `find` runs on every new state, and most waits end.
enum On {
    AtomicSection(ThreadId),
    /// A mutex, spin lock or rwlock (`what`) at an address.
    Lock(&'static str, u64),
    Finish(ThreadId),
    Signal(u64),
    Barrier(u64),
    Once(u64),
}

impl On {
    /// `mutex `a``, `thread 2 to finish`, ...
    fn describe(&self, machine: &Machine<'_>, st: &State) -> String {
        let name = |p: u64| format!("`{}`", describe_pointer(machine.program, st, p));
        match *self {
            On::AtomicSection(owner) => format!("the atomic section of thread {owner}"),
            On::Lock(what, p) => format!("{what} {}", name(p)),
            On::Finish(target) => format!("thread {target} to finish"),
            On::Signal(c) => format!("a signal on condition variable {}", name(c)),
            On::Barrier(b) => format!("other threads to reach barrier {}", name(b)),
            On::Once(o) => format!("the pthread_once routine of {} to return", name(o)),
        }
    }
}

/// Threads a wait needs: nearly always one.
type Threads = smallvec::SmallVec<[ThreadId; 2]>;

enum Need {
    /// Every one of these threads must act (release, finish).
    All(Threads),
    /// Some other thread must act (signal, arrive).
    AnyOther,
}

/// The deadlock in `st`, if some blocked thread can never move again.
pub(crate) fn find(machine: &Machine<'_>, st: &State) -> Option<Deadlock> {
    let mut waits = Waits::new();
    let mut fates = Fates::new();
    if !analyse(machine, st, &mut waits, &mut fates) {
        return None;
    }
    let dead: Vec<usize> = (0..fates.len())
        .filter(|&t| waits[t].is_some() && fates[t] == Fate::Dead)
        .collect();
    let &start = dead.first()?;
    Some(describe(machine, st, &waits, &dead, start))
}

/// Whether every thread still running in `st` waits, directly or through others'
/// waits, for a thread stuck in an endless loop (`--allow-nontermination`): then none
/// of them moves again, which is part of that non-termination, not a deadlock.
pub(crate) fn all_behind_stuck(machine: &Machine<'_>, st: &State) -> bool {
    if !st
        .threads
        .iter()
        .any(|t| matches!(t.status, ThreadStatus::Stuck))
    {
        return false;
    }
    let mut waits = Waits::new();
    let mut fates = Fates::new();
    analyse(machine, st, &mut waits, &mut fates)
        && (0..fates.len())
            .all(|t| !st.threads[t].status.is_running() || fates[t] == Fate::BehindStuck)
}

/// Each thread's wait; on the stack for the usual handful of threads: `find` runs for
/// every new state.
type Waits = smallvec::SmallVec<[Option<Wait>; 8]>;
type Fates = smallvec::SmallVec<[Fate; 16]>;

/// What becomes of a thread, by the least fixpoint over the waits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// It may still act: not blocked in a way modelled here, or everything it waits for
    /// may act.
    Live,
    /// Stuck in an endless loop, or waiting for every one of some threads of which none
    /// is dead and one at least is stuck or behind a stuck one.
    BehindStuck,
    Dead,
}

/// Each thread's wait in `st` and each thread's fate, into `waits` and `fates` (the
/// caller's, not moved out: this runs for every new state); false if no thread waits.
fn analyse(machine: &Machine<'_>, st: &State, waits: &mut Waits, fates: &mut Fates) -> bool {
    let n = st.threads.len();
    let running = |t: usize| st.threads[t].status.is_running();
    waits.extend((0..n).map(|t| {
        if running(t) && st.exit_code.is_none() {
            wait_of(machine, st, t as ThreadId)
        } else {
            None
        }
    }));
    if waits.iter().all(Option::is_none) {
        return false;
    }
    fates.extend((0..n).map(|t| match &st.threads[t].status {
        _ if running(t) && waits[t].is_none() => Fate::Live,
        ThreadStatus::Stuck => Fate::BehindStuck,
        _ => Fate::Dead,
    }));
    let mut changed = true;
    while changed {
        changed = false;
        for t in 0..n {
            let Some(w) = &waits[t] else { continue };
            if fates[t] == Fate::Live {
                continue;
            }
            let fate = match &w.need {
                Need::All(hs) => {
                    let of = |h: &ThreadId| fates.get(*h as usize).copied().unwrap_or(Fate::Dead);
                    if hs.iter().all(|h| of(h) == Fate::Live) {
                        Fate::Live
                    } else if hs.iter().all(|h| of(h) != Fate::Dead) {
                        Fate::BehindStuck
                    } else {
                        Fate::Dead
                    }
                }
                // A signal or an arrival may come from any thread that can act; a
                // stuck thread never acts, so it does not excuse the wait.
                Need::AnyOther => {
                    if (0..n).any(|u| u != t && fates[u] == Fate::Live) {
                        Fate::Live
                    } else {
                        Fate::Dead
                    }
                }
            };
            if fate != fates[t] && fate != Fate::Dead {
                fates[t] = fate;
                changed = true;
            }
        }
    }
    true
}

/// Follow the waits from `start` to a cycle, a finished thread or an "any" wait.
fn describe(
    machine: &Machine<'_>,
    st: &State,
    waits: &[Option<Wait>],
    dead: &[usize],
    start: usize,
) -> Deadlock {
    let wait = |t: usize| waits[t].as_ref().expect("dead threads wait");
    let on: Vec<String> = waits
        .iter()
        .map(|w| {
            w.as_ref()
                .map_or(String::new(), |w| w.on.describe(machine, st))
        })
        .collect();
    let mut chain = vec![start];
    let message = loop {
        let cur = *chain.last().expect("non-empty");
        let w = wait(cur);
        let next = match &w.need {
            Need::All(hs) => hs.iter().map(|&h| h as usize).find(|h| dead.contains(h)),
            Need::AnyOther => None,
        };
        match next {
            Some(h) if chain.contains(&h) => {
                let from = chain.iter().position(|&c| c == h).unwrap_or(0);
                chain.drain(..from);
                break cycle_message(waits, &on, &chain);
            }
            Some(h) => chain.push(h),
            None => break chain_message(st, waits, &on, &chain),
        }
    };
    let others: Vec<String> = (0..st.threads.len())
        .filter(|&t| st.threads[t].status.is_running() && !dead.contains(&t))
        .map(|t| t.to_string())
        .collect();
    let message = if others.is_empty() {
        message
    } else {
        format!(
            "{message} (while thread{} {} still run{})",
            if others.len() > 1 { "s" } else { "" },
            others.join(", "),
            if others.len() > 1 { "" } else { "s" }
        )
    };
    Deadlock {
        failure: Failure::new(ErrorKind::Deadlock, message),
        threads: chain.iter().map(|&t| t as ThreadId).collect(),
    }
}

fn cycle_message(waits: &[Option<Wait>], on: &[String], cycle: &[usize]) -> String {
    let names: Vec<String> = cycle.iter().map(|t| t.to_string()).collect();
    let mut parts = Vec::new();
    for (i, &t) in cycle.iter().enumerate() {
        let w = waits[t].as_ref().expect("cycle threads wait");
        let next = cycle[(i + 1) % cycle.len()];
        let prev = cycle[(i + cycle.len() - 1) % cycle.len()];
        let pw = waits[prev].as_ref().expect("cycle threads wait");
        let holds = if pw.held {
            format!(" holds {} and", on[prev])
        } else {
            String::new()
        };
        let by = if w.held {
            format!(", held by thread {next}")
        } else {
            String::new()
        };
        parts.push(format!("thread {t}{holds} waits for {}{by}", on[t]));
    }
    format!(
        "threads {} wait for each other: {}",
        join_and(&names),
        parts.join("; ")
    )
}

fn chain_message(st: &State, waits: &[Option<Wait>], on: &[String], chain: &[usize]) -> String {
    let mut parts = Vec::new();
    for (i, &t) in chain.iter().enumerate() {
        let w = waits[t].as_ref().expect("chain threads wait");
        let part = match (&w.need, chain.get(i + 1)) {
            (_, Some(next)) if w.held => {
                format!("thread {t} waits for {}, held by thread {next}", on[t])
            }
            (_, Some(_)) => format!("thread {t} waits for {}", on[t]),
            (Need::AnyOther, None) => format!(
                "thread {t} waits for {}, but every thread that could act on it is blocked or finished",
                on[t]
            ),
            (Need::All(hs), None) => {
                let gone: Vec<String> = hs
                    .iter()
                    .filter(|&&h| {
                        st.threads
                            .get(h as usize)
                            .is_none_or(|th| !th.status.is_running())
                    })
                    .map(|h| h.to_string())
                    .collect();
                if w.held {
                    format!(
                        "thread {t} waits for {}, held by thread {}, which has finished: nothing can release it",
                        on[t],
                        join_and(&gone)
                    )
                } else {
                    format!("thread {t} waits for {}, which can never happen", on[t])
                }
            }
        };
        parts.push(part);
    }
    format!("blocked forever: {}", parts.join("; "))
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Of the deadlocked threads, the one whose last step on `path` came last: its call
/// closed the cycle, so that is where the verdict points.
pub(crate) fn closing_thread(threads: &[ThreadId], path: &[Move]) -> Option<ThreadId> {
    threads
        .iter()
        .copied()
        .max_by_key(|&t| path.iter().rposition(|m| m.tid == t))
}

/// When `t` is blocked in `st` until one of the returned threads acts (releases,
/// finishes): those threads, and the objects the wait reads (the native's pointer
/// arguments: a plain write to them could end the wait too). None: not blocked in a
/// way modelled here, or woken by any thread (condition variables, barriers).
/// For partial-order reduction (`persistent`).
pub(crate) fn blocked_until(
    machine: &Machine<'_>,
    st: &State,
    t: ThreadId,
) -> Option<(Vec<ThreadId>, Vec<u32>)> {
    let wait = wait_of(machine, st, t)?;
    let Need::All(holders) = wait.need else {
        return None;
    };
    let objects = machine
        .at_native(st, t)
        .map(|(_, args)| {
            args.iter()
                .map(|a| crate::value::ptr_parts(a.as_u64()).0)
                .filter(|&o| o != 0 && o < crate::ir::FUNCTION_OBJECT_BASE)
                .collect()
        })
        .unwrap_or_default();
    Some((holders.into_vec(), objects))
}

/// What thread `t` is blocked on in `st`, if it is blocked in a way modelled here.
/// Mirrors the blocking conditions of the natives in `pthread/` and `cxx/`.
fn wait_of(machine: &Machine<'_>, st: &State, t: ThreadId) -> Option<Wait> {
    if let Some(owner) = st.atomic_owner {
        if owner != t && st.thread(owner).status.is_running() {
            return Some(Wait {
                on: On::AtomicSection(owner),
                held: false,
                need: Need::All(smallvec::smallvec![owner]),
            });
        }
    }
    let (native, arg) = machine.native_with_args(st, t)?;
    let locked = |what: &'static str, p: u64, owner: Option<ThreadId>| {
        let owner = owner.filter(|&o| o != t)?;
        Some(Wait {
            on: On::Lock(what, p),
            held: true,
            need: Need::All(smallvec::smallvec![owner]),
        })
    };
    let cancelled = || crate::pthread::cancel::acts_now(st, t);
    let joining = |h: u64| {
        if cancelled() {
            return None; // the join acts on the cancel request instead
        }
        let target = crate::pthread::thread::thread_of_handle(st, h)?;
        let th = st.threads.get(target as usize)?;
        // A stuck thread never finishes: joining it waits forever, behind its loop.
        if target == t || th.joined || th.detached || matches!(th.status, ThreadStatus::Finished(_))
        {
            return None;
        }
        Some(Wait {
            on: On::Finish(target),
            held: false,
            need: Need::All(smallvec::smallvec![target]),
        })
    };
    match native.name {
        "pthread_mutex_lock" => locked("mutex", arg(0), mutex::owner_in(st, arg(0))),
        "pthread_spin_lock" => locked("spin lock", arg(0), spin::owner_in(st, arg(0))),
        "pthread_rwlock_rdlock" | "pthread_rwlock_wrlock" => {
            let (readers, writer) = rwlock::holders_in(st, arg(0))?;
            let writer = crate::pthread::thread_of(writer);
            if writer == Some(t) {
                return None; // EDEADLK, not a wait
            }
            let mut holders: Threads = writer.into_iter().collect();
            if native.name == "pthread_rwlock_wrlock" {
                if writer.is_none() && readers == thread_bit(t).ok()? {
                    return None; // reported as an error by the call itself
                }
                // A reader that also waits to write waits for itself too: stuck for good.
                holders.extend(crate::pthread::threads_in(readers));
            }
            if holders.is_empty() {
                return None;
            }
            Some(Wait {
                on: On::Lock("rwlock", arg(0)),
                held: true,
                need: Need::All(holders),
            })
        }
        "pthread_join" | "thrd_join" => joining(arg(0)),
        "_ZNSt6thread4joinEv" => joining(crate::pthread::peek(st, arg(0), 8)?),
        "pthread_cond_wait"
        | "pthread_cond_timedwait"
        | "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE" => {
            if st.thread(t).phase != 1 {
                return None;
            }
            let c = arg(0);
            let m = if native.name.starts_with("_ZNSt") {
                crate::pthread::peek(st, arg(1), 8)?
            } else {
                arg(1)
            };
            let me = thread_bit(t).ok()?;
            let (waiters, signalled) = cond::masks_in(st, c)?;
            let timed = native.name == "pthread_cond_timedwait";
            if cancelled() || signalled & me != 0 || (timed && waiters & me != 0) {
                // Woken (or able to time out): it only needs the mutex back.
                locked("mutex", m, mutex::owner_in(st, m))
            } else if waiters & me != 0 {
                Some(Wait {
                    on: On::Signal(c),
                    held: false,
                    need: Need::AnyOther,
                })
            } else {
                None
            }
        }
        "pthread_barrier_wait" => {
            let me = thread_bit(t).ok()?;
            (st.thread(t).phase == 1 && barrier::waiting_in(st, arg(0))? & me != 0).then(|| Wait {
                on: On::Barrier(arg(0)),
                held: false,
                need: Need::AnyOther,
            })
        }
        "pthread_once" => {
            let runner = once::runner_in(st, arg(0)).filter(|&r| r != t)?;
            Some(Wait {
                on: On::Once(arg(0)),
                held: false,
                need: Need::All(smallvec::smallvec![runner]),
            })
        }
        _ => None,
    }
}
