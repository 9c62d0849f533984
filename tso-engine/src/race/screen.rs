//! The race screen: a search without race data that asks, in every state it reaches,
//! whether two threads' next transitions make conflicting accesses (the same bytes,
//! at least one a write, at least one not atomic, not both inside
//! `__VERIFIER_atomic_*` sections; a deallocation is a plain write of the whole
//! object, as `RaceState::dealloc` has it). `check` runs it before the history-based
//! search (`RaceState`) when races are looked for in a search of their own (the race
//! search of a TSO check, `MachineOptions::race_screen`): when it passes and finds no
//! such pair, the program has no race and the check is done; otherwise the
//! history-based search runs as before and gives the verdict and the reports. So
//! reports are always the history's, and the screen needs only be right when it finds
//! nothing.
//!
//! **Why no pair means no race** (`applies` says when). Suppose every reads-from
//! between two threads synchronises in the race model: atomic loads acquire, atomic
//! stores release, RMWs and compare-exchanges are acq_rel or seq_cst (the model takes
//! a failed exchange's order from its success order, the IR holds no other), and no
//! library call lets a thread learn what another did without acquiring (a failed
//! `trylock`, `trywait` or timed wait does). Take a racing pair (a, b), a in thread A
//! and b in thread B, at the least distance on some execution, and keep the events
//! before a and those between a and b that happen-before b, then a, then b. A kept
//! read reads the same write as before: its write is kept (program order, or a
//! synchronising reads-from), or the two race at a smaller distance. So every thread
//! is where it was, A at a and B at b: a and b touch an object both threads reach,
//! which is then marked shared, so both are visible actions, and the other threads'
//! invisible steps touch nothing shared. Such a state is one the search reaches, and
//! in it both next accesses are seen, with two exceptions, each covered:
//! - an access that sits in a transition after its visible action, where another
//!   thread may have synchronised with that action: with `race_screen`, a library call
//!   that would be invisible (printing from shared memory, `realloc` of a shared
//!   block) is visible when an argument points to shared memory; what remains is the
//!   end of stack objects at a return (or `longjmp`). For those, where a thread's next
//!   access touches a stack object of another thread, that thread's whole transition
//!   is run (`RaceScreen`), so a return that ends the object is seen; and a thread
//!   that synchronised first can only touch the object after it ended, which is a
//!   `use-after-free` the search fails on (then the history decides);
//! - a race through a channel that is itself racy (a pointer published by a plain
//!   store): the smaller-distance race on the channel is found instead. The screen
//!   only has to say whether there is a race; which races there are, the
//!   history-based search says.
//!
//! Conversely a pair found may be no race (the second access's bytes may change once
//! the first has run): the history decides.
//!
//! **Why relaxed atomics make it not apply.** Keeping instead the *causal* past of b's
//! thread (its events before b, closed under every reads-from, synchronising or not)
//! shows every race (a, b) with a outside that past as a pair, whatever the orders. A
//! race with a inside it has, on the path from a, a reads-from that does not happen
//! before; one with a plain side is a race whose second access comes earlier, so what
//! is left is an atomic reads-from that does not synchronise: a relaxed side, or no
//! release sequence (`race_oracle`'s `the_race_screen_rules` has one program of each
//! kind). Telling those races apart needs per-thread causal and happens-before
//! knowledge in the state, which splits states as much as access histories do on the
//! relaxed ticket lock (`bench/PERFORMANCE.md`, "Relaxed atomics").
//!
//! A `__VERIFIER_atomic_*` section runs as one transition, and an access in it is
//! after the section's start: a section that could release to another thread before
//! a later access of its own (an atomic operation or a library call inside it), or a
//! section opened by `__VERIFIER_atomic_begin`, whose body the scan cannot delimit,
//! makes the screen not apply.
//!
//! **Every reached state is asked.** The screen asks on each new state the search
//! stores (`explore::observers::RaceScreen`), computing each running thread's next
//! accesses itself: a load's, store's or atomic operation's address from its registers
//! (`Machine::screen_access`); no access for a visible call of a synchronisation
//! native (`Native::data_accesses` false: mutexes, condition variables, threads), whose
//! call notes none (its memory is the primitive's own) and whose transition's only other
//! notes are the ends of the thread's own stack objects, covered as for a load or store
//! (first exception above); anything else by running the transition on a copy under
//! every choice script with a `Probe` on (the race hooks of the interpreter note each
//! access to a shared object), except a thread's end with no key destructor to run,
//! whose only noted accesses are the deaths of its frame's shared stack objects
//! (`Machine::screen_thread_end`). No verdict can hang on those deaths alone: when a
//! thread's end and another running thread's next access to the same stack object
//! are co-enabled, the other order runs that access on a dead object, a memory error
//! the search reports, and a run that fails looks for races in full anyway. That is
//! why no test isolates the shortcut; `race_oracle`'s `stack_ends_with_thread` covers
//! the rule it follows. So what the
//! search's reductions skip does not matter as long as they keep every state: sleep
//! sets do (they skip transitions into known states); persistent sets do not and are
//! off in the screen; thread symmetry stores one state per orbit, and a pair in one
//! state is a pair, renamed, in every state of its orbit.
//!
//! **Asked in the TSO run** (`MachineOptions::answer_race_screen`, which `cargo tso`
//! sets on the TSO run of a check that looks for races). The race search runs the
//! program P without the TSO pass under SC; the TSO run explores P', the program the
//! pass rewrote, under TSO. When the TSO run asks the screen's question in every state
//! it stores, finds no pair, passes, and `applies(P')` holds, the screening search of P
//! would find no pair either, so P has no race and the race search is skipped (`cargo
//! tso`'s pipeline). Why:
//! - *`applies(P')` gives `applies(P)`.* The pass replaces each load, store,
//!   read-modify-write and compare-exchange by a call of a native that stands for it
//!   (`Native::program_accesses`) and passes the instruction's order as a constant
//!   argument (a compare-exchange's success order, the one the race model takes);
//!   `weak_native_access` rejects there what the instruction arms reject. What the
//!   pass leaves (static locals, "+s"; loads of constant globals) stays an instruction,
//!   checked as in P. Library calls keep their names. An atomic section of P' that
//!   accesses memory calls such a native, which `harmless_in_section` rejects: P' is
//!   rejected whenever P is, and more often.
//! - *Every state the screen reaches in P has its threads in a state the TSO run
//!   stores.* An SC execution of P is a TSO execution of P' whose stores leave the
//!   buffer before any other access (each later load can choose to see them), and
//!   along it every thread of P' makes the same accesses with the same values as in P
//!   (the pass adds only temporaries of its own). A `__tso_*` access is visible
//!   exactly when its memory is shared, as the instruction it stands for is in P
//!   (`Visibility::IfShared`; a locked operation also when the buffer holds entries);
//!   the pass's fences and evictions are visible only when they write something; and
//!   with `race_screen` set in the answering run as in the screening search, library
//!   calls are visible by the same rule in both. So each visible action of P is one of
//!   P', and P' may stop at more points: between any two, the thread can be run on by
//!   itself. The TSO search interleaves threads at every visible action and keeps
//!   every state (sleep sets; `check` turns persistent sets off; symmetry keeps one
//!   state per orbit, as above), so for a state s of P it stores a state with each
//!   thread at the visible action it has in s, with the same registers and the same
//!   shared objects: a stored pointer shares its target when the store is made, not
//!   when it leaves the buffer, and what sharing an object shares with it is read from
//!   memory no other thread reaches, which the runtime's "+d" bypass writes at once
//!   (`cargo tso` asks the TSO run only with the bypass on). Object numbers may
//!   differ (the pass's temporaries), but a pair is two accesses of one state.
//! - *The same next accesses are seen there.* A thread at a call of such a native
//!   has the access the native declares, with its order: the bytes the instruction of
//!   P accesses (the `_bytes` forms and `memcpy`/`memset` their length). Anything else
//!   is screened as in P (`Machine::screen_access`; whole transitions under a probe,
//!   where a library call reads and writes through `DataView` and notes its accesses
//!   as in P). The runtime's natives note nothing when a transition is probed (their
//!   reads and writes model memory, `Native::data_accesses` false), so when a thread's
//!   whole transition is run for the stack-object exception, its visible action's own
//!   accesses are kept beside what the probe notes. The end of a stack object is
//!   noted by the engine at the return in both programs; in P' the runtime's
//!   eviction of a shared object comes first and is a visible action of its own, so
//!   the pair is seen in the state where the thread stands at it, which the search
//!   stores beside the one where it stands at the access before.
//!
//! Only a pass counts: a TSO run that stops at an error or a limit has not stored every
//! state, and the race search runs. The argument needs every state the TSO search can
//! reach to be stored: a reduction that stores fewer (persistent sets, dynamic
//! partial-order reduction) must leave `answer_race_screen` off, unless it keeps, for
//! every two conflicting accesses enabled together in some reachable state, a stored
//! state where they are enabled together (which is all the screen asks).

use crate::ir::{Callee, Inst, MemOrder, Operand, Program};
use crate::memory::ObjId;
use crate::value::Val;
use std::cell::{Cell, RefCell};

/// One access of program memory a call makes: `len` bytes at `ptr`, a read, a write or
/// both (a read-modify-write), atomic with this order or plain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NativeAccess {
    pub ptr: u64,
    pub len: u64,
    pub read: bool,
    pub write: bool,
    pub order: MemOrder,
}

/// The accesses a call with these arguments makes.
pub type AccessesFn = fn(&[Val], &mut Vec<NativeAccess>);

/// How a native that stands for the program's own accesses says what it accesses.
#[derive(Clone, Copy)]
pub struct ProgramAccesses {
    pub accesses: AccessesFn,
    /// The argument that holds the access's memory order (`MemOrder::code`): a constant
    /// at every call, which `applies` reads from the program. None: its accesses are
    /// plain.
    pub order_arg: Option<usize>,
}

/// One access of a transition that another thread could make at the same time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProbeAccess {
    pub tid: u32,
    pub obj: ObjId,
    pub start: u32,
    pub end: u32,
    pub write: bool,
    pub atomic: bool,
    /// Inside a `__VERIFIER_atomic_*` section.
    pub section: bool,
}

impl ProbeAccess {
    /// Could the two race: different threads, overlapping bytes, a write, a plain
    /// access, not two sections?
    pub(crate) fn conflicts(&self, o: &ProbeAccess) -> bool {
        self.tid != o.tid
            && self.obj == o.obj
            && self.start < o.end
            && o.start < self.end
            && (self.write || o.write)
            && !(self.atomic && o.atomic)
            && !(self.section && o.section)
    }
}

/// Whether the screen decides this program's races exactly when it finds no pair:
/// `Err` names the first construct that makes it not apply (the history-based search
/// then runs alone).
/// `natives`: a function without a body's native, when it stands for the program's
/// own accesses.
pub(crate) fn applies(
    program: &Program,
    natives: &dyn Fn(&str) -> Option<ProgramAccesses>,
) -> Result<(), String> {
    let name = |f: u32| program.functions[f as usize].name.as_str();
    let weak_library = |n: &str| {
        [
            "trylock",
            "trywait",
            "timed",
            "clocklock",
            "tryjoin",
            "try_lock",
        ]
        .iter()
        .any(|w| n.contains(w))
            || n == "__VERIFIER_atomic_begin"
    };
    for f in &program.functions {
        if f.body.is_none() && weak_library(&f.name) {
            return Err(format!("it calls `{}`", f.name));
        }
        let Some(body) = f.body.as_ref() else {
            continue;
        };
        let section = f.name.starts_with("__VERIFIER_atomic_");
        for inst in body.blocks.iter().flat_map(|b| b.insts.iter()) {
            let weak = match inst {
                Inst::Load { order, .. } if order.is_atomic() && !order.acquires() => {
                    Some("an atomic load that does not acquire")
                }
                Inst::Store { order, .. } if order.is_atomic() && !order.releases() => {
                    Some("an atomic store that does not release")
                }
                Inst::CmpXchg { order, .. } | Inst::AtomicRmw { order, .. }
                    if !matches!(order, MemOrder::AcqRel | MemOrder::SeqCst) =>
                {
                    Some("a read-modify-write that is not acq_rel or seq_cst")
                }
                _ => None,
            };
            let weak = weak.or_else(|| weak_native_access(program, natives, inst));
            if let Some(what) = weak {
                return Err(format!("`{}` has {what}", f.name));
            }
            if !section {
                continue;
            }
            let inside = match inst {
                Inst::Load { order, .. } | Inst::Store { order, .. } if order.is_atomic() => {
                    Some("an atomic operation")
                }
                Inst::CmpXchg { .. } | Inst::AtomicRmw { .. } | Inst::Fence { .. } => {
                    Some("an atomic operation")
                }
                Inst::Call {
                    callee: Callee::Direct(g),
                    ..
                } if !harmless_in_section(name(*g)) => Some("a call"),
                Inst::Call {
                    callee: Callee::Indirect(_),
                    ..
                } => Some("a call"),
                _ => None,
            };
            if let Some(what) = inside {
                return Err(format!("the atomic section `{}` holds {what}", f.name));
            }
        }
    }
    Ok(())
}

/// For a call of a native that stands for the program's own accesses
/// (`Native::program_accesses`: the TSO runtime's loads and stores), what makes it an
/// access `applies` rejects: an atomic one that does not synchronise as an atomic
/// instruction must (a load acquires, a store releases, a read-modify-write both), or
/// an order that is not a constant.
fn weak_native_access(
    program: &Program,
    natives: &dyn Fn(&str) -> Option<ProgramAccesses>,
    inst: &Inst,
) -> Option<&'static str> {
    let Inst::Call {
        callee: Callee::Direct(g),
        args,
        ..
    } = inst
    else {
        return None;
    };
    let callee = &program.functions[*g as usize];
    if callee.body.is_some() {
        return None;
    }
    let shape = natives(&callee.name)?;
    let order_arg = shape.order_arg?;
    let order = match args.get(order_arg) {
        Some(Operand::Const(v)) => MemOrder::from_code(v.as_u64()),
        _ => None,
    };
    let Some(order) = order else {
        return Some("a memory access whose order is not a constant");
    };
    if !order.is_atomic() {
        return None;
    }
    let values: Vec<Val> = args
        .iter()
        .map(|a| match a {
            Operand::Const(v) => v.clone(),
            _ => Val::Int(0),
        })
        .collect();
    let mut made = Vec::new();
    (shape.accesses)(&values, &mut made);
    made.iter()
        .any(|a| (a.read && !order.acquires()) || (a.write && !order.releases()))
        .then_some("an atomic access that does not synchronise (acquire to read, release to write)")
}

/// Calls an atomic section may make without synchronising with another thread.
fn harmless_in_section(name: &str) -> bool {
    name.starts_with("__VERIFIER_nondet")
        || name.starts_with("llvm.")
        || matches!(
            name,
            "__VERIFIER_assume" | "__assert_fail" | "assert" | "reach_error" | "abort"
        )
}

thread_local! {
    static PROBING: Cell<bool> = const { Cell::new(false) };
    static PROBED: RefCell<Vec<ProbeAccess>> = const { RefCell::new(Vec::new()) };
}

/// Is a transition being probed for its accesses on this thread?
#[inline]
pub(crate) fn probing() -> bool {
    PROBING.with(Cell::get)
}

/// Note an access of the probed transition (only call when `probing()`).
pub(crate) fn note(a: ProbeAccess) {
    PROBED.with(|p| p.borrow_mut().push(a));
}

/// Thread `tid` deallocates `obj`: a plain write of all of it, when another thread can
/// reach it (only call when `probing()`); `section`: inside `tid`'s atomic section.
pub(crate) fn note_dealloc(memory: &crate::memory::Memory, tid: u32, obj: ObjId, section: bool) {
    if let Some(access) = dealloc_access(memory, tid, obj, section) {
        note(access);
    }
}

/// The access `note_dealloc` notes, if any.
pub(crate) fn dealloc_access(
    memory: &crate::memory::Memory,
    tid: u32,
    obj: ObjId,
    section: bool,
) -> Option<ProbeAccess> {
    memory
        .get(obj)
        .is_some_and(|o| o.shared && !o.freed)
        .then_some(ProbeAccess {
            tid,
            obj,
            start: 0,
            end: u32::MAX,
            write: true,
            atomic: false,
            section,
        })
}

/// Notes the accesses of the transitions run on this thread until `finish` (or drop).
pub(crate) struct Probe(());

impl Probe {
    pub(crate) fn start() -> Probe {
        PROBED.with(|p| p.borrow_mut().clear());
        PROBING.with(|p| p.set(true));
        Probe(())
    }

    /// The accesses of thread `tid` noted, appended to `out`.
    pub(crate) fn finish(self, tid: u32, out: &mut Vec<ProbeAccess>) {
        PROBING.with(|p| p.set(false));
        PROBED.with(|p| out.extend(p.borrow().iter().filter(|a| a.tid == tid)));
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        PROBING.with(|p| p.set(false));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(tid: u32, start: u32, write: bool, atomic: bool, section: bool) -> ProbeAccess {
        ProbeAccess {
            tid,
            obj: 3,
            start,
            end: start + 4,
            write,
            atomic,
            section,
        }
    }

    #[test]
    fn a_plain_write_conflicts_with_any_access_of_its_bytes() {
        let w = access(0, 0, true, false, false);
        assert!(w.conflicts(&access(1, 2, false, false, false)));
        assert!(w.conflicts(&access(1, 0, false, true, false)));
        assert!(w.conflicts(&access(1, 0, true, true, true)));
    }

    #[test]
    fn reads_atomics_disjoint_bytes_one_thread_and_two_sections_do_not() {
        assert!(!access(0, 0, false, false, false).conflicts(&access(1, 0, false, false, false)));
        assert!(!access(0, 0, true, true, false).conflicts(&access(1, 0, true, true, false)));
        assert!(!access(0, 0, true, false, false).conflicts(&access(1, 4, true, false, false)));
        assert!(!access(0, 0, true, false, false).conflicts(&access(0, 0, true, false, false)));
        assert!(!access(0, 0, true, false, true).conflicts(&access(1, 0, true, false, true)));
    }
}
