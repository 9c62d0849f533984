//! What one transition touched that another thread could observe, for partial-order
//! reduction (`sleep`): byte ranges of shared objects read and written, or
//! `everything` when the transition did something no range describes (an atomic
//! section, pthread keys, atexit handlers, anything the runtime cannot name). So do a
//! thread created or changed by another, the end that leaves one thread running alone
//! and the process's end, but under dynamic partial-order reduction
//! (`MachineOptions::dpor`, the one search that gains from naming them), which names
//! them by pseudo-objects: a thread's end object (`thread_object`, which its end writes
//! in either case) and its own state (`thread_state_object`, read by every step of the
//! thread); the rules and why they over-approximate are in `dpor`, "Thread
//! lifecycle". Two transitions are independent when neither writes what the other
//! reads or writes and neither touches everything: then both orders reach the same
//! state and neither changes whether the other can run. When in doubt a recorder says
//! `everything`.
//!
//! Race data. A state with race detection on also holds vector clocks and per-byte
//! access histories (`race/`), and two transitions with independent footprints must
//! commute on those too, and neither may read race data the other writes. What a
//! transition of thread t changes there: t's own clocks; the histories of the bytes it
//! accesses; the release clock of a synchronisation location, which is an atomic it
//! accesses (its bytes are in the footprint) or an object a pthread model names
//! (`NativeCx::race_acquire`/`race_release` note the location: an acquire reads its
//! clock, a release writes it). Reporting a race writes the race data of the access's
//! bytes: it marks them raced, which changes what any later access of them records, a
//! read's too (two reads racing with one write: the first to report stops the other's
//! bytes from being tracked), so it is noted as a write of those bytes. The marks touch
//! nothing else (other bytes' histories, clocks), and a report is not state: the
//! reduction keeps every state and still runs sleeping transitions, so every report
//! of the full search is made.
//! Creating a thread makes the child's clock from the parent's: the parent's own data
//! and the child's, which no other thread reads (named, the creation writes the child's
//! end object and own state, which the child's steps read); a join reads the clock of a
//! thread that has ended (its end is in both footprints). Two reads of one byte stay
//! independent: each adds itself to the byte's history and drops only accesses that
//! happen before it, and neither read is known to the other thread (a thread's current
//! epoch is known to no other thread: it ticks after every release), so both orders
//! leave the same set of accesses, which is what the store serialises (sorted,
//! `RaceState::serialize`). Which threads still run decides what is serialised, not
//! what is recorded, so a thread's end commutes.
//! A race is a property of a Mazurkiewicz trace (two accesses unordered by
//! happens-before) and so shows in every linearisation; sleep sets keep every state
//! and run every enabled transition from each (sleepers too), so every race the full
//! search reports is reported.
//!
//! Recording is per worker thread and only while a search with the reduction runs a
//! transition (`Machine::run_transition_recorded`): the machine reports through
//! `hooks::TransitionHook`, which `Recording` implements here; with no transition
//! watched, `Memory::check` and the other reports test one flag and return.

use crate::error::Failure;
use crate::hooks::TransitionHook;
use crate::interp::{Machine, Step};
use crate::natives::Chooser;
use crate::state::{State, ThreadId};
use std::any::Any;
use std::cell::RefCell;

/// A pseudo-object standing for the program's output (when output is part of the
/// state, printing threads are ordered).
pub(crate) const OUTPUT: u32 = u32::MAX;

/// A pseudo-object standing for every heap and stack object at once, in footprints
/// compared across object numberings (`Footprint::coarsened`). Object 0 is the null
/// object, which no access reaches.
pub(crate) const HEAP: u32 = 0;

/// A pseudo-object standing for whether thread `t` has ended (its exit writes it, a
/// join or cancellation of it reads it). Real objects lie below `FUNCTION_OBJECT_BASE`.
pub(crate) fn thread_object(t: crate::state::ThreadId) -> u32 {
    OUTPUT - 1 - t.min(0x03ff_fffe)
}

/// A pseudo-object for the shape of extension data kept for thread `t`
/// (`NativeCx::footprint_thread_data`), between function objects and thread objects.
pub(crate) fn thread_data_object(t: crate::state::ThreadId) -> u32 {
    0xF800_0000 + t.min(0x03ff_fffe)
}

/// A pseudo-object for thread `t`'s own state as the other threads' steps may change
/// it: its frames and flags, and where its transitions stop (whether it runs alone).
/// Every step of `t` reads it; a step of another thread that changes thread `t` (a
/// join or detach of it, or the end that leaves it running alone, which also runs its
/// next instructions: `Machine::run_transition_observed`) writes it. Between function
/// objects and the extension data's objects.
pub(crate) fn thread_state_object(t: crate::state::ThreadId) -> u32 {
    THREAD_STATE_BASE + t.min(0x03ff_fffe)
}

const THREAD_STATE_BASE: u32 = 0xF400_0000;

/// Is `obj` some thread's `thread_state_object`?
pub(crate) fn is_thread_state_object(obj: u32) -> bool {
    (THREAD_STATE_BASE..thread_data_object(0)).contains(&obj)
}

/// Accesses kept per footprint before it is coarsened to `everything`.
const MAX_ACCESSES: usize = 256;

/// One access: bytes `start..end` of object `obj`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Access {
    obj: u32,
    start: u32,
    end: u32,
    write: bool,
}

impl Access {
    fn conflicts(&self, o: &Access) -> bool {
        self.obj == o.obj && (self.write || o.write) && self.start < o.end && o.start < self.end
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    everything: bool,
    accesses: Vec<Access>,
}

impl Footprint {
    pub const EMPTY: Footprint = Footprint {
        everything: false,
        accesses: Vec::new(),
    };

    #[cfg(test)]
    pub fn everything() -> Footprint {
        Footprint {
            everything: true,
            accesses: Vec::new(),
        }
    }

    pub fn touches_everything(&self) -> bool {
        self.everything
    }

    pub fn set_everything(&mut self) {
        self.everything = true;
        self.accesses = Vec::new();
    }

    /// `len` bytes at `off` of object `obj` (ranges past `u32` are clamped, which only
    /// widens them).
    pub fn add(&mut self, obj: u32, off: u64, len: u64, write: bool) {
        if self.everything || len == 0 {
            return;
        }
        let start = off.min(u32::MAX as u64) as u32;
        let end = off.saturating_add(len).min(u32::MAX as u64) as u32;
        let a = Access {
            obj,
            start,
            end: end.max(start.saturating_add(1)),
            write,
        };
        // The common case: the same access again, or the last one grown.
        if let Some(last) = self.accesses.last_mut() {
            if last.obj == a.obj
                && last.write == a.write
                && a.start <= last.end
                && last.start <= a.end
            {
                last.start = last.start.min(a.start);
                last.end = last.end.max(a.end);
                return;
            }
        }
        if self.accesses.contains(&a) {
            return;
        }
        if self.accesses.len() >= MAX_ACCESSES {
            self.set_everything();
            return;
        }
        self.accesses.push(a);
    }

    /// The whole of object `obj`.
    pub fn add_object(&mut self, obj: u32, write: bool) {
        self.add(obj, 0, u32::MAX as u64, write);
    }

    /// Everything `other` touched too (the choice variants of one thread's transition).
    pub fn union(&mut self, other: &Footprint) {
        if other.everything {
            self.set_everything();
            return;
        }
        if self.everything {
            return;
        }
        self.accesses.reserve(other.accesses.len());
        for a in &other.accesses {
            self.add(a.obj, a.start as u64, (a.end - a.start) as u64, a.write);
        }
    }

    /// `union`, taking `other` whole when nothing was recorded yet (most transitions
    /// have one variant: their footprint is used as it is, without a copy).
    pub fn union_owned(&mut self, other: Footprint) {
        if !self.everything && self.accesses.is_empty() {
            *self = other;
        } else {
            self.union(&other);
        }
    }

    /// Does it create, end or change a thread (or touch everything)? Other threads'
    /// footprints may depend on which threads exist and run without reading it (the
    /// TSO runtime's flush decisions read every existing thread's buffer shape), so
    /// theirs may differ after it even where they commute with it.
    pub(crate) fn ends_a_thread(&self) -> bool {
        // Thread states lie below the extension data's objects, thread objects above:
        // a write of memory fails the first comparison, as it did before thread states.
        self.everything
            || self.accesses.iter().any(|a| {
                a.write
                    && a.obj >= THREAD_STATE_BASE
                    && a.obj != OUTPUT
                    && (a.obj >= thread_object(0x03ff_fffe) || a.obj < thread_data_object(0))
            })
    }

    /// Does any access satisfy `f(object, write)`? (`persistent` judges a footprint
    /// against what another thread may still do.)
    pub(crate) fn any_access(&self, mut f: impl FnMut(u32, bool) -> bool) -> bool {
        self.accesses.iter().any(|a| f(a.obj, a.write))
    }

    /// The byte ranges of real objects it reads, as (object, start, end), in order.
    pub(crate) fn object_reads(&self) -> Vec<(u32, u32, u32)> {
        let mut v: Vec<(u32, u32, u32)> = self
            .accesses
            .iter()
            .filter(|a| !a.write && a.obj < crate::ir::FUNCTION_OBJECT_BASE)
            .map(|a| (a.obj, a.start, a.end))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Does it write any byte of `obj`?
    fn writes(&self, obj: u32) -> bool {
        self.accesses.iter().any(|a| a.obj == obj && a.write)
    }

    /// The footprint named so that it compares across states whose heap and stack
    /// objects are numbered differently (`dpor`): globals (ids `1..=globals`), function
    /// objects and the pseudo-objects keep their names; every other object becomes
    /// [`HEAP`], whole. Only widens what it touches, so independence of two coarsened
    /// footprints implies independence of the originals. (The search uses
    /// `coarsened_in`, which names stack objects by their thread.)
    #[cfg(test)]
    pub(crate) fn coarsened(&self, globals: u32) -> Footprint {
        if self.everything {
            return self.clone();
        }
        let mut out = Footprint::default();
        for a in &self.accesses {
            if a.obj > globals && a.obj < crate::ir::FUNCTION_OBJECT_BASE {
                out.add_object(HEAP, a.write);
            } else {
                out.add(a.obj, a.start as u64, (a.end - a.start) as u64, a.write);
            }
        }
        out
    }

    /// `coarsened`, naming a stack object by the thread whose frames hold it rather than
    /// as [`HEAP`]: `state` is the one the transition of `tid` ran from. Which thread's
    /// frames hold a live stack object is part of the state (the frames' alloca lists
    /// are serialised) and does not change while it lives, so every numbering of a
    /// state names it alike, and so does every later step touching it while it lives.
    /// A stack object no frame holds (dead: touching it is an error) is named as
    /// everything; an object not in `state` was made by this transition, which makes
    /// heap objects or stack objects of its own thread: it is named as both.
    pub(crate) fn coarsened_in(&self, globals: u32, state: &State, tid: ThreadId) -> Footprint {
        if self.everything {
            return self.clone();
        }
        let stack_of = |t: ThreadId| globals.saturating_add(1).saturating_add(t);
        let mut out = Footprint::default();
        for a in &self.accesses {
            if a.obj <= globals || a.obj >= crate::ir::FUNCTION_OBJECT_BASE {
                out.add(a.obj, a.start as u64, (a.end - a.start) as u64, a.write);
                continue;
            }
            match state.memory.get(a.obj).map(|o| &o.kind) {
                Some(crate::memory::ObjKind::Stack) => {
                    let owner = state.threads.iter().position(|t| {
                        t.frames
                            .iter()
                            .any(|f| f.allocas.contains(&a.obj) || f.varargs == Some(a.obj))
                    });
                    match owner {
                        Some(t) => out.add_object(stack_of(t as ThreadId), a.write),
                        None => {
                            out.set_everything();
                            return out;
                        }
                    }
                }
                Some(_) => out.add_object(HEAP, a.write),
                None => {
                    out.add_object(HEAP, a.write);
                    out.add_object(stack_of(tid), a.write);
                }
            }
        }
        out
    }

    /// Does every transition dependent on `other` depend on this one too, by its own
    /// accesses: each of `other`'s lies within one of this one's, a write within a write?
    pub fn covers(&self, other: &Footprint) -> bool {
        if self.everything {
            return true;
        }
        if other.everything {
            return false;
        }
        other.accesses.iter().all(|b| {
            self.accesses.iter().any(|a| {
                (a.write || !b.write) && a.obj == b.obj && a.start <= b.start && b.end <= a.end
            })
        })
    }

    /// Does every transition dependent on `other` depend on this one too: this one
    /// touches everything, or writes every byte `other` touches?
    pub(crate) fn writes_all_of(&self, other: &Footprint) -> bool {
        if self.everything {
            return true;
        }
        if other.everything {
            return false;
        }
        other.accesses.iter().all(|b| {
            self.accesses
                .iter()
                .any(|a| a.write && a.obj == b.obj && a.start <= b.start && b.end <= a.end)
        })
    }

    /// Do the two transitions commute: neither writes what the other reads or writes,
    /// and neither touches everything?
    pub fn independent(&self, other: &Footprint) -> bool {
        if self.everything || other.everything {
            return false;
        }
        !self
            .accesses
            .iter()
            .any(|a| other.accesses.iter().any(|b| a.conflicts(b)))
    }
}

/// The search's hook on a transition: it records the transition's footprint.
struct Recording(Footprint);

impl TransitionHook for Recording {
    fn bytes(&mut self, obj: u32, off: u64, len: u64, write: bool) {
        self.0.add(obj, off, len, write);
    }
    fn object_changed(&mut self, obj: u32) {
        // A write already noted is exact; the whole object only when none was.
        if !self.0.writes(obj) {
            self.0.add_object(obj, true);
        }
    }
    fn thread_end(&mut self, t: u32, write: bool) {
        self.0.add_object(thread_object(t), write);
    }
    fn thread_data(&mut self, t: u32, write: bool) {
        self.0.add_object(thread_data_object(t), write);
    }
    fn thread_state(&mut self, t: u32, write: bool) {
        self.0.add_object(thread_state_object(t), write);
    }
    fn output(&mut self) {
        self.0.add_object(OUTPUT, true);
    }
    fn everything(&mut self) {
        self.0.set_everything();
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

thread_local! {
    /// This worker's recording, kept from one transition to the next: cleared, not
    /// replaced, its buffer keeps its capacity (growing it afresh each time was most of
    /// the recording's cost).
    static SCRATCH: RefCell<Option<Box<Recording>>> = const { RefCell::new(None) };
}

impl Machine<'_> {
    /// `run_transition`, and its footprint: what it touched that another thread could
    /// observe (`run_transition_observed` says what counts).
    pub(crate) fn run_transition_recorded(
        &self,
        before: &State,
        st: &mut State,
        tid: ThreadId,
        chooser: &mut dyn Chooser,
    ) -> (Result<Step, Failure>, Footprint) {
        let mut recording = SCRATCH
            .with(|s| s.borrow_mut().take())
            .unwrap_or_else(|| Box::new(Recording(Footprint::EMPTY)));
        recording.0.everything = false;
        recording.0.accesses.clear();
        let (r, recording) = self.run_transition_observed(before, st, tid, chooser, recording);
        // In one allocation of its exact size (none when empty).
        let footprint = recording.0.clone();
        SCRATCH.with(|s| *s.borrow_mut() = Some(recording));
        (r, footprint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(accesses: &[(u32, u64, u64, bool)]) -> Footprint {
        let mut f = Footprint::default();
        for &(o, off, len, w) in accesses {
            f.add(o, off, len, w);
        }
        f
    }

    #[test]
    fn two_reads_of_one_object_are_independent() {
        assert!(fp(&[(3, 0, 4, false)]).independent(&fp(&[(3, 0, 4, false)])));
    }

    #[test]
    fn a_write_and_a_read_of_the_same_bytes_are_dependent() {
        assert!(!fp(&[(3, 0, 4, true)]).independent(&fp(&[(3, 2, 4, false)])));
        assert!(!fp(&[(3, 2, 4, false)]).independent(&fp(&[(3, 0, 4, true)])));
        assert!(!fp(&[(3, 0, 4, true)]).independent(&fp(&[(3, 0, 4, true)])));
    }

    #[test]
    fn writes_to_disjoint_bytes_or_objects_are_independent() {
        assert!(fp(&[(3, 0, 4, true)]).independent(&fp(&[(3, 4, 4, true)])));
        assert!(fp(&[(3, 0, 4, true)]).independent(&fp(&[(4, 0, 4, true)])));
    }

    #[test]
    fn a_whole_object_access_meets_every_range_of_it() {
        let mut whole = Footprint::default();
        whole.add_object(3, false);
        assert!(!whole.independent(&fp(&[(3, 1000, 1, true)])));
        assert!(whole.independent(&fp(&[(5, 0, 1, true)])));
    }

    #[test]
    fn everything_is_dependent_on_everything() {
        assert!(!Footprint::everything().independent(&Footprint::default()));
        assert!(!Footprint::default().independent(&Footprint::everything()));
    }

    #[test]
    fn a_union_keeps_every_variant() {
        let mut u = fp(&[(3, 0, 4, false)]);
        u.union(&fp(&[(7, 0, 1, true)]));
        assert!(!u.independent(&fp(&[(7, 0, 1, false)])));
        u.union(&Footprint::everything());
        assert!(u.touches_everything());
    }

    #[test]
    fn too_many_accesses_become_everything() {
        let mut f = Footprint::default();
        for i in 0..=MAX_ACCESSES as u32 {
            f.add(i + 1, 0, 1, false);
        }
        assert!(f.touches_everything());
    }

    #[test]
    fn the_hook_records_only_while_it_is_installed() {
        crate::hooks::report(|h| h.bytes(9, 0, 8, true));
        assert!(!crate::hooks::observed());
        let ((), r) = crate::hooks::observe(Box::new(Recording(Footprint::EMPTY)), || {
            assert!(crate::hooks::observed());
            crate::hooks::report(|h| h.bytes(9, 0, 8, true));
        });
        assert!(!crate::hooks::observed());
        assert!(!r.0.independent(&fp(&[(9, 4, 1, false)])));
        assert!(r.0.independent(&fp(&[(10, 0, 1, true)])));
    }

    #[test]
    fn a_write_of_a_threads_end_or_own_state_ends_a_thread() {
        let write = |obj: u32| {
            let mut f = Footprint::default();
            f.add_object(obj, true);
            f
        };
        assert!(write(thread_object(1)).ends_a_thread());
        assert!(write(thread_state_object(1)).ends_a_thread());
        // Memory, the extension data's shape and the output are no thread's.
        assert!(!write(9).ends_a_thread());
        assert!(!write(thread_data_object(1)).ends_a_thread());
        assert!(!write(OUTPUT).ends_a_thread());
        let mut read = Footprint::default();
        read.add_object(thread_state_object(1), false);
        assert!(!read.ends_a_thread());
    }
}
