//! Threads and their call stacks.

use crate::definedness::Undef;
use crate::ir::FuncId;
use crate::memory::ObjId;
use crate::value::Val;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ThreadStatus {
    Running,
    /// Returned from its start routine or called pthread_exit, with this value.
    Finished(ExitValue),
    /// Caught in a loop no other thread can end (`--allow-nontermination`): it never
    /// moves again, and the program may end without it.
    Stuck,
}

impl ThreadStatus {
    /// The derived `==` compares exit values and is not inlined; this test runs for
    /// every thread at every step (`interp::is_visible`, `settle_others`, deadlock).
    #[inline]
    pub(crate) fn is_running(&self) -> bool {
        matches!(self, ThreadStatus::Running)
    }
}

/// What a thread ended with: its start routine's result or `pthread_exit`'s argument,
/// with the value's undefined bits, which `pthread_join` hands on (a start routine that
/// falls off its end returns an undefined value; that is only an error if it is used).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ExitValue {
    pub(crate) value: Val,
    pub(crate) undef: Option<Undef>,
}

#[derive(Clone, Debug)]
pub struct Frame {
    pub func: FuncId,
    pub block: u32,
    pub ip: u32,
    /// Shared with the parent state until written: a transition copies only the
    /// registers of the frames it changes.
    pub regs: std::sync::Arc<Vec<Val>>,
    /// The registers holding undefined bits, sorted by register; empty in the usual
    /// case where every value is defined (see `crate::definedness`).
    pub undef: Vec<(u32, Undef)>,
    /// Objects this frame allocated with alloca; they die when it returns.
    pub allocas: Vec<ObjId>,
    /// The overflow area of a variadic call, if any.
    pub varargs: Option<ObjId>,
    /// Where this frame's return value goes.
    pub(crate) ret: ReturnTo,
}

impl Frame {
    #[inline]
    pub(crate) fn set_reg(&mut self, r: u32, v: Val) {
        if std::sync::Arc::get_mut(&mut self.regs).is_none() {
            self.regs = std::sync::Arc::new(crate::value::copy_vals(&self.regs));
        }
        std::sync::Arc::get_mut(&mut self.regs).expect("just made unique")[r as usize] = v;
        if !self.undef.is_empty() {
            self.set_undef(r, None);
        }
    }

    /// The undefined bits of register `r`, if it holds any.
    #[inline]
    pub fn undef_of(&self, r: u32) -> Option<&Undef> {
        if self.undef.is_empty() {
            return None;
        }
        self.undef
            .binary_search_by_key(&r, |e| e.0)
            .ok()
            .map(|i| &self.undef[i].1)
    }

    /// Record register `r`'s undefined bits (None or an all-defined shadow: defined).
    pub fn set_undef(&mut self, r: u32, u: Option<Undef>) {
        let u = u.filter(|u| !crate::definedness::is_defined(&u.shadow));
        match (self.undef.binary_search_by_key(&r, |e| e.0), u) {
            (Ok(i), Some(u)) => self.undef[i].1 = u,
            (Ok(i), None) => {
                self.undef.remove(i);
            }
            (Err(i), Some(u)) => self.undef.insert(i, (r, u)),
            (Err(_), None) => {}
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReturnTo {
    /// The caller's current instruction is the call: set its result and move on.
    Caller,
    /// As `Caller`, and the atomic section this call opened ends (a function named
    /// `__VERIFIER_atomic_*` runs as one atomic step).
    CallerEndsAtomic,
    /// A native called into the program: keep the value for it and re-enter the native
    /// at `phase`, its progress when it called back (natives the callback calls start
    /// at phase 0 and must not disturb it).
    Native { phase: u32 },
    /// A static constructor or a thread's start routine: nothing to return into.
    Nothing,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub frames: Vec<Frame>,
    pub(crate) status: ThreadStatus,
    /// Progress of a multi-step native call (cond wait, join, once...) at the top frame.
    pub phase: u32,
    /// What the last program function called by a native returned.
    pub callback_result: Option<Val>,
    pub detached: bool,
    pub joined: bool,
    /// This thread's copies of `_Thread_local` globals: (global id, object).
    pub tls: Vec<(u32, ObjId)>,
    /// pthread_setspecific values: (key, value).
    pub specific: Vec<(u32, Val)>,
    /// The start routine's result while key destructors run after it returned.
    pub(crate) pending_exit: Option<ExitValue>,
    /// The object a pointer-valued `pthread_t` of this thread points to (0: none yet).
    /// Handles and mutex owners are such pointers, not thread numbers, so they are
    /// renamed with the objects when a state is canonicalised up to a permutation of
    /// threads (`store/symmetry.rs`).
    pub handle: ObjId,
    /// How many frames at the bottom of the stack have had their dead slots reset
    /// (`Machine::forget_dead_slots`) and have not been the top frame since. A
    /// frame-private slot is written only by its own frame's instructions, and a
    /// frame's position changes only while it is on top, so such a frame needs no
    /// second look. Lowered wherever frames are popped; 0 (look at every frame) in a
    /// thread built afresh. Not part of the state: it only spares work.
    pub(crate) settled_frames: usize,
}

impl Thread {
    pub fn new(frame: Frame) -> Thread {
        Thread {
            frames: vec![frame],
            status: ThreadStatus::Running,
            phase: 0,
            callback_result: None,
            detached: false,
            joined: false,
            tls: Vec::new(),
            specific: Vec::new(),
            pending_exit: None,
            handle: 0,
            settled_frames: 0,
        }
    }

    /// The frames were cut down to their current number: the new top frame runs again,
    /// so it is no longer settled (see `settled_frames`).
    #[inline]
    pub(crate) fn frames_popped(&mut self) {
        self.settled_frames = self.settled_frames.min(self.frames.len().saturating_sub(1));
    }
    #[inline]
    pub(crate) fn top(&self) -> &Frame {
        self.frames.last().expect("running thread has a frame")
    }
    #[inline]
    pub(crate) fn top_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("running thread has a frame")
    }
}
