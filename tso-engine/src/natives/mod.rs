//! The interface through which functions implemented in Rust (libc, pthreads, the TSO
//! runtime) act on the program: they run atomically, may read and write program memory,
//! ask for nondeterministic choices, keep per-state data and block or call back.

mod args;
mod cx;
pub(crate) use args::require_defined_args;
pub(crate) use args::Pointee;
pub use args::{arg, arg_val, Access};
pub use cx::NativeCx;

use crate::error::Failure;
use crate::memory::Fragment;
pub use crate::race::screen::{AccessesFn, NativeAccess, ProgramAccesses};
pub use crate::race::{MessageEvent, MessageKey};
use crate::value::Val;
use std::collections::HashMap;
use std::sync::Arc;

/// What a native call did.
#[derive(Debug)]
pub enum NativeResult {
    /// Done; the call returns this value (ignored for void calls).
    Return(Val),
    /// Cannot proceed in this state (a locked mutex, an unfinished join): the thread is
    /// not enabled here. The call must not have changed anything.
    Block,
    /// Made progress but is not finished: the thread stays at this call with the phase
    /// the native set, and the transition ends.
    Yield,
    /// Run a program function (pthread_once routines, atexit handlers); the call is
    /// re-entered, with `NativeCx::callback_result` set, when it returns.
    CallBack { func: u64, args: Vec<Val> },
    /// The process exits with this status.
    Exit(i32),
    /// The calling thread terminates with this value (pthread_exit).
    ThreadExit(Val),
    /// The native moved the thread to an earlier call site (longjmp): execution goes on
    /// after that call, whose result the native has set; nothing is written for this call.
    Jumped,
    /// This execution is infeasible (`__VERIFIER_assume(0)`): drop the path silently.
    Prune,
}

/// A native's implementation; closures may capture configuration (e.g. a buffer bound).
pub(crate) type NativeFn =
    Arc<dyn Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure> + Send + Sync>;
/// Decides visibility from the state alone: (state, calling thread, arguments).
pub(crate) type VisibleFn = fn(&crate::state::State, crate::state::ThreadId, &[Val]) -> bool;

/// When a call must be a scheduling point of its own.
#[derive(Clone, Copy)]
pub enum Visibility {
    /// Only touches the calling thread's private data.
    Never,
    /// Synchronisation: always a scheduling point.
    Always,
    /// Asks for a nondeterministic value: always a scheduling point, even when no other
    /// thread runs (its answers split the state space).
    Choice,
    /// Writes the program's output: a scheduling point only when outputs are being
    /// collected (then the order of outputs is an observable outcome).
    Output,
    /// Accesses the memory its pointer argument `n` points to.
    IfShared(usize),
    /// Accesses the memory of either pointer argument.
    IfShared2(usize, usize),
    Custom(VisibleFn),
}

/// How a call reads in a counterexample trace (default: `name(args)`).
pub(crate) type DescribeFn = fn(&crate::ir::Program, &crate::state::State, &[Val]) -> String;

#[derive(Clone)]
pub struct Native {
    pub name: &'static str,
    pub visibility: Visibility,
    pub call: NativeFn,
    pub describe: Option<DescribeFn>,
    /// Its trace lines are the checker's own bookkeeping, not something the program
    /// wrote (shown only on request).
    pub detail: bool,
    /// Arguments (bit i = argument i) the native stores or passes on without
    /// inspecting them: they may hold undefined bits, which it gets through
    /// `NativeCx::arg_undefined`. Any other argument with an undefined bit is an
    /// `uninitialized` error before the call (`args::require_defined_args`).
    pub carries_undefined: u32,
    /// Its reads and writes of program memory are data accesses of the calling thread
    /// for race detection (library functions: `memcpy`, `strlen`, `printf`). Not for
    /// synchronisation primitives (pthreads, C++ threads: their memory is the
    /// primitive's own state, and their ordering is reported as synchronisation) nor
    /// for the TSO runtime (it models memory itself): see
    /// `Natives::without_data_accesses`.
    pub data_accesses: bool,
    /// Its only effects are reads of memory and drains of the caller's store buffer
    /// (writes a run may always delay): a loop iteration of such calls that changes
    /// nothing else can be deleted from a run (`ir::awaits`). Set with
    /// `Natives::mark_reads_only`.
    pub reads_only: bool,
    /// Called where the object its first argument points to dies (a memory model's
    /// eviction of a returning frame's slots): it neither reads nor writes the
    /// object's contents. Set with `Natives::mark_object_dies`.
    pub object_dies: bool,
    /// It stands for the program's own loads and stores (a memory model's natives,
    /// which the program calls where it accessed memory): what its call accesses, for
    /// the race screen (`race::screen`). Set with `Natives::set_program_accesses`.
    pub program_accesses: Option<ProgramAccesses>,
}

impl Native {
    fn new(
        name: &'static str,
        visibility: Visibility,
        describe: Option<DescribeFn>,
        call: impl Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure>
            + Send
            + Sync
            + 'static,
    ) -> Arc<Native> {
        Arc::new(Native {
            name,
            visibility,
            call: Arc::new(call),
            describe,
            detail: false,
            carries_undefined: 0,
            data_accesses: true,
            reads_only: false,
            object_dies: false,
            program_accesses: None,
        })
    }
}

/// The natives available to a program, by symbol name.
#[derive(Clone, Default)]
pub struct Natives {
    map: HashMap<String, Arc<Native>>,
    /// Called when a thread terminates (the TSO runtime drains the thread's buffer).
    pub(crate) thread_exit_hook: Option<Arc<Native>>,
    /// A full memory barrier for the calling thread, for natives that publish what the
    /// program wrote (pthread_once marking its routine done). None under SC.
    pub(crate) fence_hook: Option<Arc<Native>>,
    /// Called with a pointer to a stack object that dies without its frame returning
    /// normally (longjmp): the TSO runtime drops the caller's buffered stores to it, as
    /// it does before a return. None under SC.
    pub(crate) evict_hook: Option<Arc<Native>>,
    /// How library functions see shared memory (see [`DataView`]). None under SC:
    /// straight to memory.
    pub(crate) data_view: Option<Arc<dyn DataView>>,
    /// Told of every synchronisation the modelled primitives make (see [`SyncEvent`]).
    /// None under SC and TSO.
    pub(crate) sync_hook: Option<SyncHook>,
    /// Natives registered now make no data accesses (`Natives::without_data_accesses`).
    registering_without_data: bool,
}

/// A synchronisation a modelled primitive (pthreads, C++ threads, atomic sections)
/// makes: the events race detection records as happens-before, told to a memory
/// model that keeps its own happens-before (the C11 runtime's views). Keys are the
/// primitive's address (plus a constant per role), as race detection uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncEvent {
    /// The calling thread acquires what was released to the key.
    Acquire(u64),
    /// The calling thread releases all it did so far to the key.
    Release(u64),
    /// The calling thread started this thread: all it did so far happens before.
    Spawn(crate::state::ThreadId),
    /// The calling thread has seen this thread end.
    Join(crate::state::ThreadId),
}

/// What a memory model does on a [`SyncEvent`].
pub type SyncHook = Arc<dyn Fn(&mut NativeCx<'_>, SyncEvent) + Send + Sync>;

/// The memory a library function (a native with `data_accesses`) reads and writes,
/// when the memory model is not SC: each read through `NativeCx` is `read` (under
/// TSO: a load through the store buffers, which may make choices), each write `write`
/// (a buffered store), for unshared memory too (whether a load or store may bypass
/// the buffers is the implementation's rule). So `x = 1; strlen(y)` can read `y`
/// before `x = 1` is visible to others, as on x86, where these functions hold no
/// locked instruction. Synchronisation primitives never go through it.
pub trait DataView: Send + Sync {
    fn read(&self, cx: &mut NativeCx<'_>, ptr: u64, len: u64) -> Result<Fragment, Failure>;
    fn write(&self, cx: &mut NativeCx<'_>, ptr: u64, frag: &Fragment) -> Result<(), Failure>;
}

impl Natives {
    pub(crate) fn empty() -> Natives {
        Natives::default()
    }

    pub(crate) fn add(
        &mut self,
        name: &'static str,
        visibility: Visibility,
        call: impl Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure>
            + Send
            + Sync
            + 'static,
    ) {
        let native = self.mark(Native::new(name, visibility, None, call));
        self.map.insert(name.to_string(), native);
    }

    /// Register natives whose memory reads and writes are not data accesses
    /// (synchronisation primitives, the TSO runtime): `register`'s natives get
    /// `Native::data_accesses` false.
    pub fn without_data_accesses(&mut self, register: impl FnOnce(&mut Natives)) {
        self.registering_without_data = true;
        register(self);
        self.registering_without_data = false;
    }

    fn mark(&self, mut native: Arc<Native>) -> Arc<Native> {
        if self.registering_without_data {
            if let Some(n) = Arc::get_mut(&mut native) {
                n.data_accesses = false;
            }
        }
        native
    }

    /// Like [`Natives::add`], with a custom trace description.
    pub fn add_described(
        &mut self,
        name: &'static str,
        visibility: Visibility,
        describe: DescribeFn,
        call: impl Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure>
            + Send
            + Sync
            + 'static,
    ) {
        let native = self.mark(Native::new(name, visibility, Some(describe), call));
        self.map.insert(name.to_string(), native);
    }

    /// Set how library functions see shared memory (see [`DataView`]).
    pub fn set_data_view(&mut self, view: Arc<dyn DataView>) {
        self.data_view = Some(view);
    }

    /// Set the memory barrier natives can ask for (see [`NativeCx::fence`]).
    pub fn set_fence_hook(
        &mut self,
        call: impl Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure>
            + Send
            + Sync
            + 'static,
    ) {
        self.fence_hook = Some(Native::new("fence", Visibility::Never, None, call));
    }

    /// Set the hook told of every synchronisation of the modelled primitives.
    pub fn set_sync_hook(&mut self, hook: SyncHook) {
        self.sync_hook = Some(hook);
    }

    /// Set the hook natives call before killing stack objects (see [`NativeCx::evict`]).
    pub fn set_evict_hook(
        &mut self,
        call: impl Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure>
            + Send
            + Sync
            + 'static,
    ) {
        self.evict_hook = Some(Native::new("evict", Visibility::Never, None, call));
    }

    /// Set the hook run when a thread terminates; `visibility` says when it makes the
    /// thread's end a scheduling point of its own.
    pub fn set_thread_exit_hook(
        &mut self,
        visibility: Visibility,
        call: impl Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure>
            + Send
            + Sync
            + 'static,
    ) {
        self.thread_exit_hook = Some(Native::new("thread exit", visibility, None, call));
    }

    /// Mark a registered native's trace lines as the checker's bookkeeping.
    pub fn mark_detail(&mut self, name: &str) {
        if let Some(n) = self.map.get_mut(name) {
            let mut m = Native::clone(n);
            m.detail = true;
            *n = Arc::new(m);
        }
    }

    /// Let a registered native receive undefined bits in the arguments of `args`
    /// (bit i = argument i): it stores or passes them on without inspecting them.
    pub fn carry_undefined(&mut self, name: &str, args: u32) {
        if let Some(n) = self.map.get_mut(name) {
            let mut m = Native::clone(n);
            m.carries_undefined = args;
            *n = Arc::new(m);
        }
    }

    /// Mark a registered native as one called where its first argument's object dies
    /// (see `Native::object_dies`).
    pub fn mark_object_dies(&mut self, name: &str) {
        if let Some(n) = self.map.get_mut(name) {
            let mut m = Native::clone(n);
            m.object_dies = true;
            *n = Arc::new(m);
        }
    }

    /// Mark a registered native as one whose only effects are reads of memory and
    /// drains of the caller's buffer (see `Native::reads_only`).
    pub fn mark_reads_only(&mut self, name: &str) {
        if let Some(n) = self.map.get_mut(name) {
            let mut m = Native::clone(n);
            m.reads_only = true;
            *n = Arc::new(m);
        }
    }

    /// Mark a registered native as one that stands for the program's own accesses
    /// (see `Native::program_accesses`).
    pub fn set_program_accesses(&mut self, name: &str, accesses: ProgramAccesses) {
        if let Some(n) = self.map.get_mut(name) {
            let mut m = Native::clone(n);
            m.program_accesses = Some(accesses);
            *n = Arc::new(m);
        }
    }

    /// Register the same implementation under several names.
    pub(crate) fn alias(&mut self, alias: &'static str, of: &str) {
        if let Some(n) = self.map.get(of).cloned() {
            self.map.insert(alias.to_string(), n);
        }
    }

    /// Is `name` a native whose memory accesses are data accesses (see
    /// `Native::data_accesses`), which go through the data view?
    pub fn makes_data_accesses(&self, name: &str) -> bool {
        self.get(name).is_some_and(|n| n.data_accesses)
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Arc<Native>> {
        self.map.get(name)
    }
}

/// What a nondeterministic choice decides; every kind is explored exhaustively, the
/// kind says what a path's choice meant (`explore::Choice`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChoiceKind {
    /// Which thread runs next (made by the search, not by natives).
    Schedule,
    /// Which delayed stores are written to memory before an access (the TSO runtime).
    BufferFlush,
    /// A value the program asked for (`tso_choose`, `__VERIFIER_nondet_*`).
    User,
    /// Which waiting thread a signal wakes (`pthread_cond_signal`).
    Wakeup,
    /// Whether a condition wait returns without a signal (`pthread_cond_wait`).
    SpuriousWakeup,
}

/// Nondeterministic choices, explored exhaustively by the engine.
pub(crate) trait Chooser {
    fn choose(&mut self, n: usize, kind: ChoiceKind) -> usize;
    /// The choice just made left `n` stores delayed past later accesses; the search
    /// prefers, among equally short counterexamples, the one that delays fewest.
    fn delayed(&mut self, _n: u32) {}
}
