//! The interpreter: runs one thread from one visible action up to (not including) the
//! next, atomically. Everything between two visible actions is invisible to the other
//! threads, so it need not be interleaved (τ-reduction).

mod arith;
mod cycle;
pub(crate) mod future;
mod intrinsics;
mod races;
mod trace;

pub(crate) use races::take_unreported_race;
pub use races::{RaceAccess, RaceReport};
pub(crate) use trace::{attribute, describe_range, short};
pub use trace::{describe_address, describe_pointer, describe_scalar_at, TraceStep};

use crate::error::{ErrorKind, Failure};
use crate::hooks::{self, TransitionHook};
use crate::ir::{Callee, FuncId, Inst, Operand, Program, FUNCTION_OBJECT_BASE};
use crate::memory::{Memory, ObjKind, Object};
use crate::natives::{ChoiceKind, Chooser, Native, Natives, Visibility};
use crate::state::{Frame, ReturnTo, State, Thread, ThreadId, ThreadStatus};
use crate::value::{make_ptr, ptr_parts, Val};
use std::sync::Arc;

/// A caller's check for a reason to stop a search: `Some(reason)` ends it as
/// inconclusive with that reason. Asked about every tick and every 2^20 steps of a
/// long transition, from any worker.
#[derive(Clone)]
pub struct StopCheck(pub std::sync::Arc<dyn Fn() -> Option<String> + Send + Sync>);

impl std::fmt::Debug for StopCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StopCheck")
    }
}

/// The machine's options choose how a search's workers canonicalise (the store knows
/// no machine).
impl crate::store::Canonicalizer {
    /// The canonicaliser of a search's worker, incremental unless the options say not.
    pub fn for_search(opts: &MachineOptions) -> crate::store::Canonicalizer {
        Self::with_modes(opts.incremental_canon, opts.check_incremental_canon)
    }
}

#[derive(Clone, Debug)]
pub struct MachineOptions {
    /// Instructions one thread may run without a visible action.
    pub max_steps: u64,
    /// Call depth before "stack overflow".
    pub(crate) max_frames: usize,
    /// Largest total heap the program may allocate in one state (bytes).
    pub max_memory: u64,
    /// Output is part of the outcome (litmus outcome collection): printing interleaves.
    pub outputs_visible: bool,
    /// Condition waits may return without a signal, as POSIX allows (off: measurement).
    pub spurious_wakeups: bool,
    /// A thread in a loop no other thread can end stops there (that path ends for it)
    /// instead of failing as non-terminating (SV-COMP monitor threads).
    pub allow_nontermination: bool,
    /// Look for reachable states with no path to the program's end
    /// (`explore::liveness`): on by default; off in a search that only looks for
    /// something else (cargo-tso's race search, whose SC interleavings the TSO run
    /// already covers).
    pub hangs: bool,
    /// Track which bits were never written and report their uses (`uninitialized`);
    /// off (`--no-definedness`): no memory or value is ever undefined.
    pub definedness: bool,
    /// Data races: not tracked (the engine's default: `cargo tso` asks for `Warn`),
    /// reported beside the verdict, or failures.
    pub races: crate::race::RacePolicy,
    /// Partial-order reduction (sleep sets, `explore::sleep`); off: `--no-por`.
    pub por: bool,
    /// Store states up to a permutation of threads (`store/symmetry.rs`); off:
    /// `--no-symmetry`.
    pub symmetry: bool,
    /// With `symmetry`: states that differ only in which of `main`'s joined threads
    /// sits in which slot of its array of handles are stored once, where the program
    /// has the shape that makes it sound (`store/symmetry.rs`, "Joining the array in
    /// another order"); on by default, off: `--no-join-symmetry`. A search that uses
    /// it runs without sleep sets, and a failure is searched again without it.
    pub join_slots: bool,
    /// With `por`: persistent sets (`explore::persistent`), which store fewer states,
    /// instead of sleep sets; not with race tracking.
    pub persistent_sets: bool,
    /// Dynamic partial-order reduction with the state cache in the depth-first search
    /// (`explore::dpor`), instead of sleep sets and thread symmetry; off by default
    /// (experimental: hidden `--experimental-dpor`). `check` turns it off where a
    /// search needs every state (the race screen, a state observer).
    pub dpor: bool,
    /// Footprints of thread creation, joins, ends and the process's end name what they
    /// touch (`explore::dpor`, "Thread lifecycle") instead of touching everything. On
    /// with `dpor`; `check` keeps it when it turns `dpor` off for a state observer, so a
    /// test observer (`explore::commute`) sees the footprints the reduction takes.
    pub named_lifecycle: bool,
    /// With race tracking: leave out of the state the reads of heap memory that no
    /// running thread which has not seen them can still write, by the threads' static
    /// futures (`interp::races::update_race_writers`). On by default; off only to
    /// measure it.
    pub race_read_futures: bool,
    /// Screen for races before tracking them (`race::screen`): with races looked for,
    /// `check` first searches without race data, asking each state whether two
    /// threads' next accesses conflict, and tracks races only when two may (`cargo
    /// tso` asks for it in the race search of a TSO check). In the screening search
    /// itself (races `Allow`, set by `check`): a call of a library function that is
    /// otherwise invisible is visible when an argument points to shared memory.
    pub race_screen: bool,
    /// A search that does not track races (`Allow`) asks the race screen's question in
    /// every state too, without stopping at a pair, so that a search of races alone can
    /// be skipped when it finds none (`race::screen`, "Asked in the TSO run"; `cargo
    /// tso` sets it on the TSO run). Needs every state: `check` turns persistent sets
    /// off for it, and a reduction that stores fewer states must turn it off.
    pub answer_race_screen: bool,
    /// Canonicalise a successor incrementally from its parent's canonical form when the
    /// parent's numbering stays valid (`store/canon.rs`); off only to measure it
    /// (hidden `--no-incremental-canon`).
    pub incremental_canon: bool,
    /// Test mode: canonicalise every state canonicalised incrementally afresh too and
    /// panic if the two differ.
    pub check_incremental_canon: bool,
    /// Awaits (`ir::awaits`): a failing iteration of a loop that only reads gives no
    /// successor, as a blocked thread; off: `--no-awaits`. Not with persistent sets
    /// (their static futures know nothing of awaits).
    pub awaits: bool,
}

impl MachineOptions {
    /// The partial-order reduction the searches use: persistent sets (true) or sleep
    /// sets (false), when `por` is on.
    pub(crate) fn uses_persistent_sets(&self) -> bool {
        self.por && self.persistent_sets && self.races == crate::race::RacePolicy::Allow
    }

    /// Why a search with these options cannot conclude that every run ends, if it
    /// cannot (`explore::liveness`): a pass then says nothing about hangs.
    pub fn hangs_unchecked(&self) -> Option<&'static str> {
        (self.hangs && !self.allow_nontermination && self.uses_persistent_sets()).then_some(
            "--experimental-persistent-sets checks neither hangs nor awaits (persistent sets \
             may leave a cycle unexplored): a pass does not say that every run ends",
        )
    }
}

impl Default for MachineOptions {
    fn default() -> Self {
        MachineOptions {
            max_steps: 100_000_000,
            max_frames: 2_000,
            max_memory: 1 << 30,
            outputs_visible: false,
            spurious_wakeups: true,
            allow_nontermination: false,
            hangs: true,
            definedness: true,
            races: crate::race::RacePolicy::Allow,
            por: true,
            symmetry: true,
            join_slots: true,
            persistent_sets: false,
            dpor: false,
            named_lifecycle: false,
            race_read_futures: true,
            race_screen: false,
            answer_race_screen: false,
            incremental_canon: true,
            check_incremental_canon: false,
            awaits: true,
        }
    }
}

/// Result of running one transition.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Progress,
    /// The path is infeasible (a failed assumption): drop it.
    Pruned,
    /// A failing iteration of an await (`ir::awaits`): the thread cannot move in this
    /// state; no successor, as `Blocked`.
    Await,
    /// The thread's next action cannot happen in this state.
    Blocked,
}

pub struct Machine<'p> {
    pub program: &'p Program,
    natives: Vec<Option<Arc<Native>>>,
    thread_exit_hook: Option<Arc<Native>>,
    fence_hook: Option<Arc<Native>>,
    data_view: Option<Arc<dyn crate::natives::DataView>>,
    evict_hook: Option<Arc<Native>>,
    sync_hook: Option<crate::natives::SyncHook>,
    /// Per function: is it a `__VERIFIER_atomic_*` function whose calls run atomically?
    atomic_functions: Vec<bool>,
    pub(crate) opts: MachineOptions,
    /// Instructions executed so far (for throughput figures).
    pub(crate) instructions: std::sync::atomic::AtomicU64,
    /// When exploration must stop (--timeout), checked inside long transitions too.
    pub(crate) deadline: std::sync::Mutex<Option<std::time::Instant>>,
    /// The caller's reason to stop (`Limits::stop`), asked inside long transitions too.
    pub(crate) stop: std::sync::Mutex<Option<StopCheck>>,
    /// Races found so far under `RacePolicy::Warn`, one per memory location (the least
    /// report: the same race found on many paths, or by other threads in the other
    /// order, is one report, whatever order the workers find them in).
    pub(crate) races_found: std::sync::Mutex<std::collections::BTreeMap<String, RaceReport>>,
    /// The race screen found two threads whose next accesses conflict in some state
    /// (`race::screen`).
    pub(crate) screen_conflict: std::sync::atomic::AtomicBool,
    /// Per object id: a global only atomic operations name (`race::atomic_only`).
    atomic_only: Vec<bool>,
    /// The static futures judged by what threads write (`race_read_futures`), built
    /// on first use, and whether a thread's end, and main's, runs program code.
    race_futures: std::sync::OnceLock<(future::Futures, bool, bool)>,
    /// The await loops (`ir::awaits`), when awaits are on.
    awaits: Option<crate::ir::awaits::Awaits>,
    /// `main`'s array of joined handles whose slots are sorted before a successor is
    /// stored (`MachineOptions::join_slots`), set by `check`; and whether the present
    /// search sorts them (not the search again for a counterexample).
    pub(crate) join_array: Option<crate::store::symmetry::JoinArray>,
    pub(crate) join_slots_on: std::sync::atomic::AtomicBool,
}

/// A transition that started inside an await loop: where, and the thread as it was, to
/// judge whether the run was a failing iteration (`Machine::failing_iteration`).
struct AwaitStart {
    depth: usize,
    func: FuncId,
    header: u32,
    block: u32,
    ip: u32,
    thread: Arc<Thread>,
    /// The contents of the top frame's slots before the run.
    slots: Vec<Option<Arc<Object>>>,
}

/// Which instruction a thread is about to execute.
#[derive(PartialEq, Eq)]
struct Pc {
    func: FuncId,
    block: u32,
    ip: u32,
}

impl<'p> Machine<'p> {
    /// Sort the slots of `main`'s array of joined handles in `st` (see `join_array`),
    /// when the present search does. Whether it moved a handle.
    pub(crate) fn normalise_join_slots(
        &self,
        st: &mut State,
        keys: &mut crate::store::symmetry::Keys,
    ) -> bool {
        match &self.join_array {
            Some(j)
                if self
                    .join_slots_on
                    .load(std::sync::atomic::Ordering::Relaxed) =>
            {
                j.normalise(self.program, st, keys)
            }
            _ => false,
        }
    }

    /// How a call to function `f` (without a body) counts for
    /// `store::symmetry::JoinArray::find`: a native that only reads and accesses its
    /// first argument's memory is a load; one that only reads and takes no pointer is
    /// quiet.
    pub(crate) fn call_kind(&self, f: FuncId) -> crate::store::symmetry::CallKind {
        use crate::store::symmetry::CallKind;
        match self.natives.get(f as usize).and_then(Option::as_ref) {
            Some(n) if n.object_dies => CallKind::ObjectDies,
            Some(n) if n.reads_only => match n.visibility {
                Visibility::IfShared(0) => CallKind::Load,
                Visibility::Custom(_) => CallKind::Quiet,
                _ => CallKind::Other,
            },
            _ => CallKind::Other,
        }
    }

    pub fn new(program: &'p Program, natives: &Natives, opts: MachineOptions) -> Machine<'p> {
        let table: Vec<Option<Arc<Native>>> = program
            .functions
            .iter()
            .map(|f| {
                if f.body.is_none() {
                    natives.get(&f.name).cloned()
                } else {
                    None
                }
            })
            .collect();
        let atomic_functions = program
            .functions
            .iter()
            .map(|f| f.body.is_some() && f.name.starts_with(ATOMIC_FUNCTION_PREFIX))
            .collect();
        let atomic_only = if opts.races == crate::race::RacePolicy::Allow {
            Vec::new()
        } else {
            crate::race::atomic_only_globals(program)
        };
        let awaits = (opts.awaits && !opts.uses_persistent_sets())
            .then(|| crate::ir::awaits::Awaits::find(program, |f| table_reads_only(&table, f)));
        Machine {
            program,
            natives: table,
            atomic_functions,
            thread_exit_hook: natives.thread_exit_hook.clone(),
            fence_hook: natives.fence_hook.clone(),
            data_view: natives.data_view.clone(),
            evict_hook: natives.evict_hook.clone(),
            sync_hook: natives.sync_hook.clone(),
            opts,
            instructions: std::sync::atomic::AtomicU64::new(0),
            deadline: std::sync::Mutex::new(None),
            stop: std::sync::Mutex::new(None),
            races_found: Default::default(),
            screen_conflict: std::sync::atomic::AtomicBool::new(false),
            atomic_only,
            race_futures: std::sync::OnceLock::new(),
            join_array: None,
            join_slots_on: std::sync::atomic::AtomicBool::new(false),
            awaits,
        }
    }

    /// The await loops found, as (function name, source location of the loop), for
    /// `-v`; empty with awaits off.
    pub fn awaits_found(&self) -> Vec<(String, Option<crate::ir::Location>)> {
        let Some(a) = &self.awaits else {
            return Vec::new();
        };
        a.found
            .iter()
            .map(|&(f, h)| {
                let func = &self.program.functions[f as usize];
                (
                    crate::ir::debug::display_name(&func.name),
                    self.loop_location(f, h).cloned(),
                )
            })
            .collect()
    }

    /// The first source location in a loop's header block.
    fn loop_location(&self, func: FuncId, header: u32) -> Option<&crate::ir::Location> {
        let body = self.program.functions[func as usize].body.as_ref()?;
        let b = body.blocks.get(header as usize)?;
        b.locs.iter().find_map(|l| self.program.location(*l))
    }

    /// The await loop `tid` stands in (its header's source location), if any: a thread
    /// that cannot move there waits for a write that may never come.
    pub(crate) fn awaiting_at(
        &self,
        st: &State,
        tid: ThreadId,
    ) -> Option<Option<&crate::ir::Location>> {
        let a = self.awaits.as_ref()?;
        let pc = Self::pc(st, tid)?;
        let header = a.loop_of(pc.func, pc.block)?;
        Some(self.loop_location(pc.func, header))
    }

    /// `tid` is about to run from inside an await loop: remember where and how it was.
    fn await_start(&self, st: &State, tid: ThreadId) -> Option<AwaitStart> {
        let a = self.awaits.as_ref()?;
        let pc = Self::pc(st, tid)?;
        let header = a.loop_of(pc.func, pc.block)?;
        let thread = st.threads[tid as usize].clone();
        let slots = thread
            .top()
            .allocas
            .iter()
            .map(|&o| st.memory.get_arc(o).cloned())
            .collect();
        Some(AwaitStart {
            depth: thread.frames.len(),
            func: pc.func,
            header,
            block: pc.block,
            ip: pc.ip,
            thread,
            slots,
        })
    }

    /// Whether the thread is still inside the await loop it started in (or in a function
    /// called from it).
    #[inline]
    fn in_await_loop(&self, st: &State, tid: ThreadId, w: &AwaitStart) -> bool {
        let t = st.thread(tid);
        if !t.status.is_running() || t.frames.len() < w.depth {
            return false;
        }
        let f = &t.frames[w.depth - 1];
        f.func == w.func
            && self
                .awaits
                .as_ref()
                .and_then(|a| a.loop_of(f.func, f.block))
                == Some(w.header)
    }

    /// A run that stayed in its await loop and came back to the instruction it started
    /// at with the thread unchanged (live registers, slots, everything else) was a
    /// failing iteration: it had no effect (`ir::awaits`).
    fn failing_iteration(&self, st: &State, tid: ThreadId, w: &AwaitStart) -> bool {
        let t = st.thread(tid);
        let b = &*w.thread;
        if t.frames.len() != w.depth
            || t.status != b.status
            || t.phase != b.phase
            || t.callback_result != b.callback_result
            || t.detached != b.detached
            || t.joined != b.joined
            || t.tls != b.tls
            || t.specific != b.specific
            || t.pending_exit != b.pending_exit
            || t.handle != b.handle
            || st.atomic_owner.is_some()
        {
            return false;
        }
        let (f, g) = (t.top(), b.top());
        if f.func != w.func
            || f.block != w.block
            || f.ip != w.ip
            || f.allocas != g.allocas
            || f.varargs != g.varargs
            || f.ret != g.ret
        {
            return false;
        }
        // The frames below are untouched: the run never returned from the top one.
        let Some(body) = self.program.functions[f.func as usize].body.as_ref() else {
            return false;
        };
        for &r in body.live.live_at(f.block, f.ip) {
            if f.regs.get(r as usize) != g.regs.get(r as usize) || f.undef_of(r) != g.undef_of(r) {
                return false;
            }
        }
        f.allocas
            .iter()
            .zip(&w.slots)
            .all(|(&o, before)| match (st.memory.get_arc(o), before) {
                (Some(a), Some(b)) => {
                    Arc::ptr_eq(a, b)
                        || (a.data == b.data
                            && a.ptrs == b.ptrs
                            && a.undef == b.undef
                            && a.freed == b.freed
                            && a.shared == b.shared)
                }
                (None, None) => true,
                _ => false,
            })
    }

    /// Globals laid out, the entry function about to run (after static constructors).
    pub(crate) fn initial_state(&self, entry: FuncId) -> Result<State, Failure> {
        let mut memory = Memory::new();
        for g in &self.program.globals {
            let mut o = Object::new(g.size as usize, ObjKind::Global(0));
            o.data[..g.init.len()].copy_from_slice(&g.init);
            o.ptrs = g.init_ptrs.to_vec();
            o.constant = g.constant;
            o.shared = true;
            memory.allocate(o);
        }
        memory.globals = self.program.globals.len() as u32;
        let mut st = State::new(memory);
        if self.opts.races != crate::race::RacePolicy::Allow {
            st.races = Some(Arc::new(crate::race::RaceState::new()));
        }
        let f = &self.program.functions[entry as usize];
        if f.body.is_none() {
            return Err(Failure::unsupported(format!(
                "entry function `{}` has no body",
                f.name
            )));
        }
        let mut args = Vec::new();
        if f.params >= 2 {
            // argc = 1, argv = { "prog", NULL }
            let mut name = Object::new(5, ObjKind::Internal);
            name.data[..4].copy_from_slice(b"prog");
            let name_id = st.memory.allocate(name);
            let mut argv = Object::new(16, ObjKind::Internal);
            argv.data[..8].copy_from_slice(&make_ptr(name_id, 0).to_le_bytes());
            argv.ptrs.push(0);
            let argv_id = st.memory.allocate(argv);
            args.push(Val::Int(1));
            args.push(Val::Ptr(make_ptr(argv_id, 0)));
        }
        for _ in args.len()..f.params as usize {
            args.push(Val::Int(0));
        }
        let mut thread = Thread::new(self.frame(entry, args, ReturnTo::Nothing));
        for &ctor in self.program.constructors.iter().rev() {
            thread.frames.push(self.frame(
                ctor,
                vec![Val::Int(0); self.program.functions[ctor as usize].params as usize],
                ReturnTo::Nothing,
            ));
        }
        st.add_thread(thread);
        Ok(st)
    }

    fn frame(&self, func: FuncId, mut args: Vec<Val>, ret: ReturnTo) -> Frame {
        let f = &self.program.functions[func as usize];
        args.resize(f.num_regs as usize, Val::Int(0));
        Frame {
            func,
            block: 0,
            ip: 0,
            regs: Arc::new(args),
            undef: Vec::new(),
            allocas: Vec::new(),
            varargs: None,
            ret,
        }
    }

    fn pc(st: &State, tid: ThreadId) -> Option<Pc> {
        let t = st.thread(tid);
        if !t.status.is_running() {
            return None;
        }
        let f = t.frames.last()?;
        Some(Pc {
            func: f.func,
            block: f.block,
            ip: f.ip,
        })
    }

    #[inline]
    fn inst_at(&self, pc: &Pc) -> (&'p Inst, Option<u32>) {
        let body = self.program.functions[pc.func as usize]
            .body
            .as_ref()
            .expect("running function has a body");
        let b = &body.blocks[pc.block as usize];
        (&b.insts[pc.ip as usize], b.locs[pc.ip as usize])
    }

    /// The source location of the instruction a thread is at.
    pub fn location(&self, st: &State, tid: ThreadId) -> Option<u32> {
        Self::pc(st, tid).and_then(|pc| self.inst_at(&pc).1)
    }

    // Always: the interpreter's hottest call, which LLVM stops inlining into the larger
    // callers otherwise (measured with callgrind).
    #[inline(always)]
    fn eval(&self, frame: &Frame, op: &Operand) -> Val {
        match op {
            Operand::Reg(r) => frame.regs[*r as usize].clone(),
            Operand::Const(c) | Operand::Undef(c) => c.clone(),
        }
    }

    /// Is the instruction `tid` is at a visible action in `st`?
    pub(crate) fn is_visible(&self, st: &State, tid: ThreadId) -> bool {
        let Some(pc) = Self::pc(st, tid) else {
            return false;
        };
        let (inst, _) = self.inst_at(&pc);
        if matches!(inst, Inst::Ret { .. }) {
            if st.thread(tid).frames.len() != 1
                || st.at_most_one_running()
                || st.atomic_owner == Some(tid)
            {
                return false;
            }
            // Returning from main's outermost frame ends the process and kills the other
            // threads: a scheduling point of its own, so they can run between main's
            // last action and the exit. Another thread's end is seen by the others only
            // through what the thread-exit hook does (under TSO: draining its buffer).
            return tid == 0
                || self
                    .thread_exit_hook
                    .as_ref()
                    .is_some_and(|h| self.native_visible(st, tid, h, &[]));
        }
        // Cheap filter first: only memory accesses and calls can be visible.
        if !matches!(
            inst,
            Inst::Load { .. }
                | Inst::Store { .. }
                | Inst::CmpXchg { .. }
                | Inst::AtomicRmw { .. }
                | Inst::Call { .. }
        ) {
            return false;
        }
        if st.at_most_one_running() {
            // Nobody to interleave with; only nondeterministic natives split states.
            return matches!(inst, Inst::Call { .. })
                && self
                    .native_called(st, tid, inst)
                    .is_some_and(|(n, _)| matches!(n.visibility, Visibility::Choice));
        }
        if st.atomic_owner == Some(tid) {
            return false;
        }
        let frame = st.thread(tid).top();
        match inst {
            Inst::Load { ptr, .. }
            | Inst::Store { ptr, .. }
            | Inst::CmpXchg { ptr, .. }
            | Inst::AtomicRmw { ptr, .. } => st.memory.is_shared(self.eval(frame, ptr).as_u64()),
            Inst::Call {
                callee: Callee::Intrinsic(i),
                args,
                ..
            } => match i {
                crate::ir::Intrinsic::Memcpy | crate::ir::Intrinsic::Memmove => {
                    st.memory.is_shared(self.eval(frame, &args[0]).as_u64())
                        || st.memory.is_shared(self.eval(frame, &args[1]).as_u64())
                }
                crate::ir::Intrinsic::Memset => {
                    st.memory.is_shared(self.eval(frame, &args[0]).as_u64())
                }
                _ => false,
            },
            Inst::Call {
                callee: Callee::Direct(f),
                ..
            } if self.atomic_functions[*f as usize] => true,
            Inst::Call { .. } => match self.native_called(st, tid, inst) {
                Some((n, args)) => self.native_visible(st, tid, n, args),
                None => false,
            },
            _ => false,
        }
    }

    /// Whether calling `n` with the argument operands `args` (in `tid`'s top frame) is
    /// a visible action; only the arguments the test reads are evaluated.
    /// The native a declared function resolves to (static analyses, `explore::future`).
    pub(crate) fn native_of(&self, f: FuncId) -> Option<&Arc<Native>> {
        self.natives.get(f as usize)?.as_ref()
    }

    /// A thread-exit hook acts at threads' ends (a memory model keeping per-thread data).
    pub(crate) fn has_thread_exit_hook(&self) -> bool {
        self.thread_exit_hook.is_some()
    }

    fn native_visible(&self, st: &State, tid: ThreadId, n: &Native, args: &[Operand]) -> bool {
        let frame = st.thread(tid).top();
        let shared = |i: usize| {
            args.get(i)
                .is_some_and(|a| st.memory.is_shared(self.eval(frame, a).as_u64()))
        };
        match n.visibility {
            // The race screen: a call that may touch shared memory (printing from it,
            // realloc's release of a shared block) is an action of its own
            // (`race::screen`).
            Visibility::Never => self.opts.race_screen && (0..args.len()).any(shared),
            Visibility::Always | Visibility::Choice => true,
            Visibility::Output => {
                self.opts.outputs_visible || (self.opts.race_screen && (0..args.len()).any(shared))
            }
            Visibility::IfShared(i) => shared(i),
            Visibility::IfShared2(i, j) => shared(i) || shared(j),
            Visibility::Custom(f) => {
                // Asked before every step: no allocation for the usual few arguments.
                let values: smallvec::SmallVec<[Val; 4]> =
                    args.iter().map(|a| self.eval(frame, a)).collect();
                f(st, tid, &values)
            }
        }
    }

    /// The native a thread is about to call, with its arguments.
    pub(crate) fn at_native(&self, st: &State, tid: ThreadId) -> Option<(Arc<Native>, Vec<Val>)> {
        let (n, args) = self.native_call(st, tid)?;
        let frame = st.thread(tid).top();
        Some((
            n.clone(),
            args.iter().map(|a| self.eval(frame, a)).collect(),
        ))
    }

    /// The native a thread is about to call, and its arguments as numbers (0 past the
    /// last), each evaluated only when asked for: the deadlock analysis looks at every
    /// thread of every new state, and at the arguments of few calls.
    pub(crate) fn native_with_args<'s>(
        &'s self,
        st: &'s State,
        tid: ThreadId,
    ) -> Option<(&'s Native, impl Fn(usize) -> u64 + 's)> {
        let (n, args) = self.native_call(st, tid)?;
        let frame = st.thread(tid).top();
        let arg = move |i: usize| args.get(i).map_or(0, |a| self.eval(frame, a).as_u64());
        Some((&**n, arg))
    }

    /// The native a thread is about to call and its argument operands, not evaluated:
    /// the visibility tests run before every step and most need no argument, so they
    /// neither copy the native's `Arc` nor collect the arguments.
    fn native_call(&self, st: &State, tid: ThreadId) -> Option<(&Arc<Native>, &'p [Operand])> {
        let pc = Self::pc(st, tid)?;
        self.native_called(st, tid, self.inst_at(&pc).0)
    }

    /// `native_call` for `inst`, the instruction `tid` is known to be at (`is_visible`
    /// has found it already).
    #[inline]
    fn native_called(
        &self,
        st: &State,
        tid: ThreadId,
        inst: &'p Inst,
    ) -> Option<(&Arc<Native>, &'p [Operand])> {
        let Inst::Call { callee, args, .. } = inst else {
            return None;
        };
        let fid = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect(op) => self.indirect_target(st, tid, op)?,
            _ => return None,
        };
        Some((self.natives[fid as usize].as_ref()?, args))
    }

    /// The function an indirect call's operand points to; out of line so the direct
    /// calls of `native_called` (once per step) do not pay for a register value.
    #[inline(never)]
    fn indirect_target(&self, st: &State, tid: ThreadId, op: &Operand) -> Option<FuncId> {
        self.function_of(&self.eval(st.thread(tid).top(), op))
    }

    fn function_of(&self, v: &Val) -> Option<FuncId> {
        let (obj, off) = ptr_parts(v.as_u64());
        if obj >= FUNCTION_OBJECT_BASE
            && off == 0
            && ((obj - FUNCTION_OBJECT_BASE) as usize) < self.program.functions.len()
        {
            Some(obj - FUNCTION_OBJECT_BASE)
        } else {
            None
        }
    }

    /// Whether `run_transition(st, tid)` would surely return `Step::Blocked` at its first
    /// instruction, making no choice and changing nothing but the copy it runs on (the
    /// searches then skip copying the state for it; `skip_blocked_run` keeps the
    /// figures). Two cases, both cheap to decide exactly; `false` is always allowed:
    /// - another running thread holds the atomic section (`run_steps` blocks before
    ///   executing anything);
    /// - `tid` is at a direct call of the `pthread_join` model, every argument defined
    ///   and both present, and `pthread::thread::join_blocks` says it blocks (main
    ///   waiting for a worker: once per state of most tests);
    /// - the same for `pthread_mutex_lock` and `pthread::mutex::lock_blocks` (a mutex
    ///   another thread holds).
    pub(crate) fn blocks_at_once(&self, st: &State, tid: ThreadId) -> bool {
        if st.exit_code.is_some() {
            return false;
        }
        let Some(pc) = Self::pc(st, tid) else {
            return false;
        };
        if let Some(owner) = st.atomic_owner {
            if owner != tid && st.thread(owner).status.is_running() {
                return true;
            }
        }
        let (inst, _) = self.inst_at(&pc);
        let Inst::Call {
            callee: Callee::Direct(f),
            args,
            ..
        } = inst
        else {
            return false;
        };
        // No argument with undefined bits: `exec` would refuse them before the call.
        if self.opts.definedness && self.may_be_undefined(st, tid, inst) {
            return false;
        }
        let Some(native) = self.native_of(*f) else {
            return false;
        };
        let frame = st.thread(tid).top();
        // A missing argument is an error of the call, never a wait.
        let arg = |i: usize| args.get(i).map(|a| self.eval(frame, a).as_u64());
        match native.name {
            "pthread_join" => match (arg(0), arg(1)) {
                (Some(h), Some(out)) => crate::pthread::thread::join_blocks(st, tid, h, out),
                _ => false,
            },
            "pthread_mutex_lock" => {
                arg(0).is_some_and(|m| crate::pthread::mutex::lock_blocks(st, tid, m))
            }
            _ => false,
        }
    }

    /// A run `blocks_at_once` spared: counted as the one instruction it would have
    /// run, so the figures stay those of running it.
    pub(crate) fn skip_blocked_run(&self) {
        self.instructions
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Run thread `tid`: its pending (visible) action, then everything invisible after it.
    pub(crate) fn run_transition(
        &self,
        st: &mut State,
        tid: ThreadId,
        chooser: &mut dyn Chooser,
        trace: Option<&mut Vec<TraceStep>>,
    ) -> Result<Step, Failure> {
        let mut steps: u64 = 0;
        let mut trace = trace;
        let mut watch = self.await_start(st, tid);
        let mut r = self
            .run_steps(
                st,
                tid,
                chooser,
                trace.as_deref_mut(),
                &mut steps,
                Some(&mut watch),
            )
            .map_err(|f| f.in_thread(tid));
        self.forget_dead_slots(st, tid);
        if r == Ok(Step::Progress)
            && watch
                .as_ref()
                .is_some_and(|w| self.failing_iteration(st, tid, w))
        {
            r = Ok(Step::Await);
        }
        if r == Ok(Step::Progress) {
            r = self
                .settle_others(st, tid, chooser, trace, &mut steps)
                .map(|_| Step::Progress);
        }
        self.instructions
            .fetch_add(steps + 1, std::sync::atomic::Ordering::Relaxed);
        self.update_race_writers(st);
        r
    }

    /// `run_transition`, watched by `hook`: besides what the run reports as it goes, what
    /// it touched that another thread could observe (see `explore::footprint`). An atomic
    /// section, keys and atexit handlers make it dependent on everything. So, without
    /// dynamic partial-order reduction, does a thread created, ended or changed by
    /// another, or the process's end (`lifecycle_coarse`); with it, those are named
    /// (`lifecycle_named`). Sleep and persistent sets are sound with either; only the
    /// dynamic reduction gains from the names, and recording them costs every
    /// transition of the default search an access more, so the choice is made here
    /// once per transition by `MachineOptions::dpor` (or `named_lifecycle`).
    ///
    /// `before` is the state `st` was cloned from (the caller keeps it anyway; cloning
    /// it here, with every object's reference count, was a quarter of the recording's
    /// cost on small TSO programs).
    pub(crate) fn run_transition_observed<H: TransitionHook>(
        &self,
        before: &State,
        st: &mut State,
        tid: ThreadId,
        chooser: &mut dyn Chooser,
        hook: Box<H>,
    ) -> (Result<Step, Failure>, Box<H>) {
        let (r, mut hook) = hooks::observe(hook, || self.run_transition(st, tid, chooser, None));
        let named = if self.opts.dpor || self.opts.named_lifecycle {
            Self::lifecycle_named(before, st, tid, &mut *hook)
        } else {
            Self::lifecycle_coarse(before, st, tid, &mut *hook)
        };
        if !named {
            hook.everything();
            return (r, hook);
        }
        // A changed shared object that no hook may have seen written.
        for (id, old, new) in st.memory.changed_since(&before.memory) {
            if old.shared && !new.is_some_and(|new| Arc::ptr_eq(old, new)) {
                hook.object_changed(id);
            }
        }
        if self.opts.outputs_visible && st.output.len() != before.output.len() {
            hook.output();
        }
        if r == Ok(Step::Progress) && self.stops_at_custom_visibility(st, tid) {
            // Where this transition ended depends on extension data held for `tid`.
            match st.ext.as_ref().map(|e| e.objects_of_thread(tid)) {
                None => {}
                Some(None) => hook.everything(),
                Some(Some(objects)) => {
                    for o in objects {
                        hook.object(o, false);
                    }
                }
            }
        }
        (r, hook)
    }

    /// The thread lifecycle of a step of `tid` from `before` to `st` for the default
    /// search: a thread created, ended or changed by another, the process's end, an
    /// atomic section, keys and atexit handlers touch everything (false); a thread
    /// ending while another still runs writes its end object.
    fn lifecycle_coarse<H: TransitionHook>(
        before: &State,
        st: &State,
        tid: ThreadId,
        hook: &mut H,
    ) -> bool {
        let lifecycle = st.threads.len() != before.threads.len()
            || st
                .threads
                .iter()
                .zip(&before.threads)
                .enumerate()
                .any(|(u, (a, b))| u as ThreadId != tid && !Arc::ptr_eq(a, b))
            || st.exit_code.is_some()
            || st.atomic_owner.is_some()
            || before.atomic_owner.is_some()
            || st.next_key != before.next_key
            || st.atexit.len() != before.atexit.len();
        if lifecycle {
            return false;
        }
        if st.thread(tid).status != before.thread(tid).status {
            if st.at_most_one_running() {
                // The last other thread now runs alone: what is visible changes.
                return false;
            }
            // The thread ended: seen by joins (`NativeCx::footprint_thread`).
            hook.thread_end(tid, true);
        }
        true
    }

    /// The thread lifecycle of a step of `tid` from `before` to `st`, named for dynamic
    /// partial-order reduction (`dpor`, "Thread lifecycle"): only an atomic section,
    /// keys and atexit handlers touch everything (false).
    fn lifecycle_named<H: TransitionHook>(
        before: &State,
        st: &State,
        tid: ThreadId,
        hook: &mut H,
    ) -> bool {
        if st.atomic_owner.is_some()
            || before.atomic_owner.is_some()
            || st.next_key != before.next_key
            || st.atexit.len() != before.atexit.len()
        {
            return false;
        }
        // Every step of `tid` depends on its own state, which other threads' steps may
        // change (below).
        hook.thread_state(tid, false);
        // A thread created: it exists now (what a join, detach or cancel of it reads),
        // with its own state and empty extension data. Its steps come after this one
        // in program order (`dpor`: happens-before from a creation to the new thread).
        for c in before.threads.len()..st.threads.len() {
            let c = c as ThreadId;
            hook.thread_end(c, true);
            hook.thread_state(c, true);
            hook.thread_data(c, true);
        }
        // Another thread changed by this step: joined or detached (its flags), asked to
        // cancel, or left running alone (and so run on, `settle_others`, with its
        // accesses reported as this step's). Its end and its own state are written.
        for (u, (a, b)) in st.threads.iter().zip(&before.threads).enumerate() {
            let u = u as ThreadId;
            if u != tid && !Arc::ptr_eq(a, b) {
                hook.thread_end(u, true);
                hook.thread_state(u, true);
            }
        }
        if st.thread(tid).status != before.thread(tid).status {
            // The thread ended: seen by joins (`NativeCx::footprint_thread`).
            hook.thread_end(tid, true);
        }
        if st.exit_code.is_some() {
            // The process ended: every other thread that could still move stops (its
            // own state changes), ended threads are past any change. What the exit ran
            // (handlers, the rest of `main`) was reported as it ran.
            for (u, t) in before.threads.iter().enumerate() {
                if u as ThreadId != tid && t.status.is_running() {
                    hook.thread_end(u as ThreadId, true);
                    hook.thread_state(u as ThreadId, true);
                }
            }
        }
        if st.at_most_one_running() && !before.at_most_one_running() {
            // The thread left running alone stops its transitions elsewhere from now
            // on (only choices are visible): its own state changed.
            for (u, t) in st.threads.iter().enumerate() {
                if u as ThreadId != tid && t.status.is_running() {
                    hook.thread_state(u as ThreadId, true);
                }
            }
        }
        true
    }

    /// Is `tid` stopped at an action whose visibility a `Visibility::Custom` test or
    /// the thread-exit hook decides?
    fn stops_at_custom_visibility(&self, st: &State, tid: ThreadId) -> bool {
        let Some(pc) = Self::pc(st, tid) else {
            return false;
        };
        match self.inst_at(&pc).0 {
            Inst::Ret { .. } => st.thread(tid).frames.len() == 1 && self.thread_exit_hook.is_some(),
            Inst::Call { .. } => self
                .native_call(st, tid)
                .is_some_and(|(n, _)| matches!(n.visibility, Visibility::Custom(_))),
            _ => false,
        }
    }

    /// Resets each slot of `tid`'s frames whose contents no path can read any more
    /// (`ir::slots`: frame-private, overwritten whole before any load) to what its
    /// `alloca` made: zero bytes, no provenance, undefined when definedness is tracked.
    /// What a dead slot held cannot change the program's behaviour, so states that
    /// differ only there are one state.
    fn forget_dead_slots(&self, st: &mut State, tid: ThreadId) {
        let mut stale: smallvec::SmallVec<[crate::memory::ObjId; 4]> = smallvec::SmallVec::new();
        let t = st.thread(tid);
        // Frames that have not been on top since their slots were last reset are as
        // they were then (`Thread::settled_frames`).
        let settled = t.settled_frames.min(t.frames.len());
        let now_settled = t.frames.len().saturating_sub(1);
        for f in &t.frames[settled..] {
            let Some(body) = self.program.functions[f.func as usize].body.as_ref() else {
                continue;
            };
            // `dead_at` is empty at a position outside the body.
            for &r in body.dead_slots.dead_at(f.block, f.ip) {
                // Before its alloca ran, the register does not name the frame's slot.
                let Some(Val::Ptr(p)) = f.regs.get(r as usize) else {
                    continue;
                };
                let id = ptr_parts(*p).0;
                if !f.allocas.contains(&id) {
                    continue;
                }
                let fresh = |o: &Object| {
                    o.ptrs.is_empty()
                        && all_bytes_are(&o.data, 0)
                        && if self.opts.definedness {
                            o.undef.len() == o.data.len() && all_bytes_are(&o.undef, 0xff)
                        } else {
                            o.undef.is_empty()
                        }
                };
                if st.memory.get(id).is_some_and(|o| !o.freed && !fresh(o)) {
                    stale.push(id);
                }
            }
        }
        for id in stale {
            if let Some(o) = st.memory.get_mut(id) {
                o.data.fill(0);
                o.ptrs.clear();
                if self.opts.definedness {
                    // In place: most resets find the mask already as long as the slot.
                    o.undef.clear();
                    o.undef.resize(o.data.len(), 0xff);
                } else {
                    o.undef = Vec::new();
                }
            }
        }
        // Every frame is reset now; all but the top one, which runs next, are settled.
        if st.thread(tid).settled_frames != now_settled {
            st.thread_mut(tid).settled_frames = now_settled;
        }
    }

    /// Threads that are not at a visible action (a thread just created, or one left
    /// alone) run their invisible steps now, as part of this transition: those steps
    /// commute with everything, so interleaving them would only add states.
    fn settle_others(
        &self,
        st: &mut State,
        tid: ThreadId,
        chooser: &mut dyn Chooser,
        mut trace: Option<&mut Vec<TraceStep>>,
        steps: &mut u64,
    ) -> Result<(), Failure> {
        let mut u = 0;
        while (u as usize) < st.threads.len() {
            if u != tid
                && st.exit_code.is_none()
                && st.thread(u).status.is_running()
                && !self.is_visible(st, u)
            {
                self.run_steps(st, u, chooser, trace.as_deref_mut(), steps, None)
                    .map_err(|f| f.in_thread(u))?;
                self.forget_dead_slots(st, u);
            }
            u += 1;
        }
        Ok(())
    }

    /// Runs every thread's invisible steps until each is at a visible action (as
    /// judged in the state reached), in thread order, to a fixpoint: a canonical
    /// position for comparing states whose transitions ended at different points
    /// (robustness). Invisible steps make no choices; an error they hit is returned.
    pub fn settle_all(&self, st: &mut State) -> Result<(), Failure> {
        struct First;
        impl Chooser for First {
            fn choose(&mut self, _: usize, _: ChoiceKind) -> usize {
                0
            }
        }
        let mut steps = 0;
        loop {
            let mut ran = false;
            for u in 0..st.threads.len() as ThreadId {
                if st.exit_code.is_none()
                    && st.thread(u).status.is_running()
                    && !self.is_visible(st, u)
                {
                    let before = Self::pc(st, u);
                    self.run_steps(st, u, &mut First, None, &mut steps, None)
                        .map_err(|f| f.in_thread(u))?;
                    self.forget_dead_slots(st, u);
                    ran |= Self::pc(st, u) != before;
                }
            }
            if !ran {
                return Ok(());
            }
        }
    }

    fn run_steps(
        &self,
        st: &mut State,
        tid: ThreadId,
        chooser: &mut dyn Chooser,
        mut trace: Option<&mut Vec<TraceStep>>,
        steps: &mut u64,
        visible_first: Option<&mut Option<AwaitStart>>,
    ) -> Result<Step, Failure> {
        // `Some` for a transition's own thread, which starts with its visible action:
        // the await loop it started in, kept while it stays inside.
        let mut first = visible_first.is_some();
        let mut no_await = None;
        let in_await = visible_first.unwrap_or(&mut no_await);
        let mut watch = cycle::LongRun::new(self.opts.max_steps.saturating_sub(*steps));
        // Steps of this run (`steps` counts those of the whole transition).
        let mut ran: u64 = 0;
        let mut marks = TraceMarks::new(trace.as_deref());
        loop {
            if st.exit_code.is_some() {
                return Ok(Step::Progress);
            }
            let Some(pc) = Self::pc(st, tid) else {
                return Ok(Step::Progress);
            };
            if !first && self.is_visible(st, tid) {
                return Ok(Step::Progress);
            }
            // Another thread's atomic section excludes everyone else.
            if first {
                if let Some(owner) = st.atomic_owner {
                    if owner != tid && st.thread(owner).status.is_running() {
                        return Ok(Step::Blocked);
                    }
                }
            }
            let out_before = st.output.len();
            let mut notes = Vec::new();
            let (inst, loc) = self.inst_at(&pc);
            let want_notes = trace.is_some() && (first || self.interesting(st, tid, &pc));
            // Boxed: `Shown` is large, and moving an empty one on every step was a
            // `memcpy` per instruction when no trace is kept.
            let shown = trace.is_some().then(|| {
                Box::new(trace::Shown::before(
                    self, st, tid, inst, loc, first, want_notes,
                ))
            });
            let mut counting = CountingChooser {
                inner: &mut *chooser,
                asked: 0,
                value: false,
            };
            let r = self.exec(
                st,
                tid,
                inst,
                &mut counting,
                if want_notes { Some(&mut notes) } else { None },
            );
            let chose = counting.asked > 0;
            let chose_value = counting.value;
            let r = r.map_err(|mut f| {
                if f.message.is_empty() {
                    f.message = "error".into();
                }
                f
            })?;
            if let (Some(t), Some(shown)) = (trace.as_deref_mut(), shown) {
                let output = String::from_utf8_lossy(&st.output[out_before.min(st.output.len())..])
                    .into_owned();
                let blocked = r == Exec::Blocked;
                t.extend((*shown).step(st, tid, notes, output, chose_value, blocked));
            }
            match r {
                Exec::Next => {}
                Exec::Blocked => return Ok(if first { Step::Blocked } else { Step::Progress }),
                Exec::Pruned => return Ok(Step::Pruned),
                Exec::EndTransition => return Ok(Step::Progress),
            }
            // A choice made after the visible action branches the rest of the run: end
            // the transition here, so the branches become states that can merge again
            // instead of multiplying along one long invisible run.
            if chose && !first {
                return Ok(Step::Progress);
            }
            first = false;
            *steps += 1;
            ran += 1;
            if in_await
                .as_ref()
                .is_some_and(|w| !self.in_await_loop(st, tid, w))
            {
                *in_await = None;
            }
            if let Some(t) = trace.as_deref() {
                marks.note(t, ran, st);
            }
            if watch.due(st, tid, ran) {
                match watch.check(self, st, tid, ran) {
                    cycle::Verdict::Continue => {}
                    verdict => return self.long_run_ends(verdict, st, tid, trace, &marks),
                }
            }
        }
    }

    /// How a run of invisible steps ends when its watch gives `verdict` (anything but
    /// `Continue`): an error, or an endless loop, whose trace is cut to its entry and
    /// one turn.
    #[cold]
    fn long_run_ends(
        &self,
        verdict: cycle::Verdict,
        st: &mut State,
        tid: ThreadId,
        trace: Option<&mut Vec<TraceStep>>,
        marks: &TraceMarks,
    ) -> Result<Step, Failure> {
        let message = match verdict {
            cycle::Verdict::Continue => unreachable!("the run goes on"),
            cycle::Verdict::Timeout => "--timeout reached in the middle of a long step".into(),
            cycle::Verdict::Stopped(reason) => format!("{reason} in the middle of a long step"),
            cycle::Verdict::StepLimit => format!(
                "thread {tid} ran {} instructions without a visible action (--max-steps); it may not terminate",
                self.opts.max_steps
            ),
            cycle::Verdict::Cycle(found) => {
                if let (Some(t), Some(after_first)) = (trace, &marks.after_first) {
                    let length_after = |step: u64| marks.length_after(step);
                    self.cut_loop_trace(t, length_after, tid, after_first, st, &found);
                }
                return self.endless(st, tid);
            }
        };
        Err(Failure::new(ErrorKind::StepLimit, message))
    }

    /// `tid` loops forever without a visible action: it stops there with
    /// `--allow-nontermination` (the others go on), else the run fails.
    fn endless(&self, st: &mut State, tid: ThreadId) -> Result<Step, Failure> {
        if self.opts.allow_nontermination {
            st.thread_mut(tid).status = ThreadStatus::Stuck;
            if st.atomic_owner == Some(tid) {
                st.atomic_owner = None;
            }
            return Ok(Step::Progress);
        }
        Err(Failure::new(
            ErrorKind::NonTerminating,
            format!("thread {tid} is in an infinite loop: it returns to the same state without any visible action"),
        ))
    }

    /// A trace of a run that loops: only the way into the loop and one turn of it, then
    /// a line saying that it repeats. `length_after(k)` is the trace's length after the
    /// run's step k.
    fn cut_loop_trace(
        &self,
        trace: &mut Vec<TraceStep>,
        length_after: impl Fn(u64) -> usize,
        tid: ThreadId,
        after_first: &State,
        at_cycle: &State,
        found: &cycle::Cycle,
    ) {
        let Some((entry, period)) = self.loop_shape(tid, after_first, at_cycle, found) else {
            return;
        };
        // Steps 1..=1+entry lead into the loop; the next `period` steps are one turn.
        let end = length_after(1 + entry + period);
        let turn_start = length_after(1 + entry);
        let location = trace[turn_start..end]
            .iter()
            .find_map(|s| s.location.clone())
            .or_else(|| {
                let l = self.location(at_cycle, tid)?;
                self.program.locations.get(l as usize).cloned()
            });
        trace.truncate(end);
        trace.push(TraceStep {
            thread: tid,
            location,
            action: format!(
                "back in the state it was in {period} instruction{} ago, with no visible action in between: it repeats the last {period} forever",
                if period == 1 { "" } else { "s" }
            ),
            notes: Vec::new(),
            output: String::new(),
            detail: false,
        });
    }

    /// The name of the function a direct call calls, as the user spells it.
    fn at_native_name(&self, inst: &Inst) -> Option<String> {
        match inst {
            Inst::Call {
                callee: Callee::Direct(f),
                ..
            } => Some(crate::ir::debug::display_name(
                &self.program.functions[*f as usize].name,
            )),
            _ => None,
        }
    }

    /// Invisible instructions worth a trace line: calls to natives (output, malloc, ...).
    fn interesting(&self, st: &State, tid: ThreadId, _pc: &Pc) -> bool {
        self.native_call(st, tid).is_some()
    }
}

/// Whether the declared function `f` resolves to a native that only reads
/// (`Native::reads_only`).
/// Every byte of `bytes` is `b`. Whole words at a time and without an early exit, so
/// it compiles to a few vector operations: `forget_dead_slots` asks it of every dead
/// slot on every transition.
fn all_bytes_are(bytes: &[u8], b: u8) -> bool {
    let word = u64::from_ne_bytes([b; 8]);
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    words.fold(0, |acc, w| {
        acc | (u64::from_ne_bytes(w.try_into().expect("8 bytes")) ^ word)
    }) == 0
        && tail.iter().all(|&x| x == b)
}

fn table_reads_only(table: &[Option<Arc<Native>>], f: FuncId) -> bool {
    table
        .get(f as usize)
        .and_then(|n| n.as_ref())
        .is_some_and(|n| n.reads_only)
}

/// Counts the choices one instruction makes, and sees whether one chose a value.
struct CountingChooser<'c> {
    inner: &'c mut dyn Chooser,
    asked: usize,
    /// A choice of kind `User`: the instruction's result is the value chosen.
    value: bool,
}

impl Chooser for CountingChooser<'_> {
    fn choose(&mut self, n: usize, kind: ChoiceKind) -> usize {
        self.asked += 1;
        self.value |= kind == ChoiceKind::User;
        self.inner.choose(n, kind)
    }
    fn delayed(&mut self, n: u32) {
        self.inner.delayed(n)
    }
}

/// SV-COMP: a call to a program function with this name prefix is one atomic step.
const ATOMIC_FUNCTION_PREFIX: &str = "__VERIFIER_atomic_";

/// What executing one instruction did.
#[derive(Debug, PartialEq, Eq)]
enum Exec {
    Next,
    Blocked,
    Pruned,
    /// The thread stays (a native yielded or called back); the transition ends.
    EndTransition,
}

mod exec;
mod undef;

/// With a trace, what cutting a loop's trace down to its entry and one turn needs:
/// the trace's length after each step of the run that added lines (step, length), and
/// the state after the first step.
struct TraceMarks {
    start: usize,
    marks: Vec<(u64, usize)>,
    after_first: Option<State>,
}

impl TraceMarks {
    fn new(trace: Option<&Vec<TraceStep>>) -> TraceMarks {
        TraceMarks {
            start: trace.map_or(0, Vec::len),
            marks: Vec::new(),
            after_first: None,
        }
    }

    /// After step `ran` of the run, which reached `st`.
    fn note(&mut self, trace: &[TraceStep], ran: u64, st: &State) {
        if trace.len() != self.marks.last().map_or(self.start, |m| m.1) {
            self.marks.push((ran, trace.len()));
        }
        if ran == 1 {
            self.after_first = Some(st.clone());
        }
    }

    /// The trace's length after step `step`.
    fn length_after(&self, step: u64) -> usize {
        let i = self.marks.partition_point(|m| m.0 <= step);
        i.checked_sub(1).map_or(self.start, |i| self.marks[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::all_bytes_are;

    #[test]
    fn all_bytes_are_sees_a_differing_byte_anywhere() {
        for len in 0..40 {
            assert!(all_bytes_are(&vec![0; len], 0));
            assert!(all_bytes_are(&vec![0xff; len], 0xff));
            for at in 0..len {
                for other in [1u8, 0x80, 0xfe] {
                    let mut v = vec![0xff; len];
                    v[at] = other;
                    assert!(!all_bytes_are(&v, 0xff), "len {len}, byte {at}");
                    let mut v = vec![0; len];
                    v[at] = other;
                    assert!(!all_bytes_are(&v, 0), "len {len}, byte {at}");
                }
            }
        }
    }
}
