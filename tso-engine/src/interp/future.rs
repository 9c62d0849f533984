//! What a thread may still do, from the program text: for partial-order reduction by
//! persistent sets (`persistent`), which must know everything another thread can do
//! before a chosen transition runs. Computed once per search from the IR.
//!
//! `Effects` over-approximate the footprints (`footprint`) of every transition a
//! thread can still make: the globals it may read or write, "any memory" when an
//! access goes through a pointer not derived from a global (a constant address, or a
//! register computed from one by `getelementptr`, casts, `select` and φ), output, and
//! `everything` for what no object describes (thread lifecycle, synchronisation
//! natives, atomic sections, indirect calls, callbacks, `longjmp`). Natives are judged
//! by their `Visibility`, which is their contract with the interpreter: `Never` and
//! `Choice` touch only what their pointer arguments point to (by parameter type),
//! `Output` may read and write any memory (`%n`), `IfShared` any memory, `Always` and
//! `Custom` everything; the mutex natives, for persistent sets, their mutex alone
//! (`Effects::mutexes`; unless the program can cancel a thread). A call to a program
//! function adds that function's whole
//! summary (a fixpoint over the call graph); a frame's future is what the blocks
//! reachable from its block do (the whole block: a little more than from its
//! instruction on).
//!
//! A thread's future may also stop at the blocking locks of mutexes at constant
//! addresses that stay held (`add_frames_until_held`; the rule is in `persistent`): a
//! walk of the frame's blocks from its instruction that does not go past such a lock.
//!
//! It also ranks each function's blocks in reverse postorder of a depth-first walk
//! from the entry: every control-flow cycle has an edge that does not go up in rank
//! (a retreating edge), which the cycle proviso of `persistent` uses.

use crate::interp::Machine;
use crate::ir::liveness::successors;
use crate::ir::{Callee, FuncId, Inst, Intrinsic, Operand, Program, Reg, Ty};
use crate::natives::Visibility;
use crate::state::{Frame, ReturnTo};
use crate::value::ptr_parts;

/// A set of global ids, as a bitmask.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Globals(Vec<u64>);

impl Globals {
    pub(crate) fn insert(&mut self, g: u32) {
        let (w, b) = (g as usize / 64, g % 64);
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << b;
    }

    pub(crate) fn contains(&self, g: u32) -> bool {
        self.0
            .get(g as usize / 64)
            .is_some_and(|w| w & (1 << (g % 64)) != 0)
    }

    /// Add `o`; true when something was new.
    fn union(&mut self, o: &Globals) -> bool {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
}

/// What a piece of code may do that another thread could observe (see the module
/// documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Effects {
    pub(crate) everything: bool,
    pub(crate) read_any: bool,
    pub(crate) write_any: bool,
    pub(crate) output: bool,
    pub(crate) reads: Globals,
    pub(crate) writes: Globals,
    /// Globals passed to the mutex natives (`MUTEX_NATIVES`): read and written, but
    /// only as a mutex, which changes nothing while another thread holds it.
    pub(crate) mutexes: Globals,
}

impl Effects {
    pub(crate) fn everything() -> Effects {
        Effects {
            everything: true,
            ..Effects::default()
        }
    }

    /// Add `o`; true when something was new.
    pub(crate) fn union(&mut self, o: &Effects) -> bool {
        let before = (self.everything, self.read_any, self.write_any, self.output);
        self.everything |= o.everything;
        self.read_any |= o.read_any;
        self.write_any |= o.write_any;
        self.output |= o.output;
        let r = self.reads.union(&o.reads);
        let w = self.writes.union(&o.writes);
        let m = self.mutexes.union(&o.mutexes);
        r || w || m || before != (self.everything, self.read_any, self.write_any, self.output)
    }

    fn access(&mut self, target: Target, read: bool, write: bool) {
        match target {
            Target::Private => {}
            Target::Global(g) => {
                if read {
                    self.reads.insert(g);
                }
                if write {
                    self.writes.insert(g);
                }
            }
            Target::Unknown => {
                self.read_any |= read;
                self.write_any |= write;
            }
        }
    }
}

/// What a pointer operand may point into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// A stack slot whose address never leaves its frame, or no object (null).
    Private,
    Global(u32),
    Unknown,
}

/// Natives that call back into the program or move control to another point of an
/// outer frame: their effect is not in any summary.
const UNSUMMARISED_NATIVES: &[&str] = &[
    "qsort",
    "bsearch",
    "longjmp",
    "_longjmp",
    "siglongjmp",
    "__longjmp_chk",
];

/// Synchronisation natives (visible, so "everything" to persistent sets) that write
/// no program memory but what their pointer arguments point to (a join's result, a
/// lock's or semaphore's own object) and call no program code, unless a thread is
/// cancelled (`Futures::for_race_writes`).
const WRITE_ONLY_ARGUMENTS: &[&str] = &[
    "pthread_join",
    "thrd_join",
    "_ZNSt6thread4joinEv",
    "pthread_mutex_lock",
    "pthread_mutex_trylock",
    "pthread_mutex_timedlock",
    "pthread_mutex_clocklock",
    "pthread_mutex_unlock",
    "pthread_spin_lock",
    "pthread_spin_trylock",
    "pthread_spin_unlock",
    "mtx_trylock",
    "mtx_timedlock",
    "sem_post",
    "sem_wait",
    "sem_trywait",
    "sem_timedwait",
    "sem_getvalue",
    "sched_yield",
];

/// The mutex natives (names of their models; `mtx_lock` and `mtx_unlock` share the
/// pthread ones): they read and write nothing but their mutex (and a timed lock's
/// timeout), and call no program code. A lock of a mutex another thread holds blocks
/// (or fails, or times out) without writing it; an unlock by another thread than the
/// holder is an error that writes nothing (`pthread/mutex.rs`). So persistent sets
/// count them as accesses of the mutex alone (`Effects::mutexes`).
const MUTEX_NATIVES: &[&str] = &[
    "pthread_mutex_lock",
    "pthread_mutex_trylock",
    "pthread_mutex_timedlock",
    "pthread_mutex_clocklock",
    "pthread_mutex_unlock",
    "mtx_trylock",
    "mtx_timedlock",
];

/// The native that blocks until its mutex is free (also `mtx_lock`).
const BLOCKING_LOCK: &str = "pthread_mutex_lock";

/// How the futures judge synchronisation natives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SyncNatives {
    /// As their `Visibility` says (everything).
    Everything,
    /// `WRITE_ONLY_ARGUMENTS` by their pointer arguments (race detection's writers).
    ByWrites,
    /// `MUTEX_NATIVES` by their mutex (persistent sets).
    Mutexes,
}

/// The static futures of a program: per function, each block's reachable effects and
/// rank.
pub(crate) struct Futures {
    /// `after[f][b]`: what running function `f` from the successors of block `b` on
    /// may do (calls included).
    after: Vec<Vec<Effects>>,
    /// `effects_at[f][b]`: block `b`'s instructions that do something, with what
    /// (calls included).
    effects_at: Vec<Vec<Vec<(u32, Effects)>>>,
    /// `rank[f][b]`: the block's position in reverse postorder.
    rank: Vec<Vec<u32>>,
    /// A thread's end runs program code (key destructors) or touches everything.
    pub(crate) exit_runs_code: bool,
    /// `lock_sites[f][b]`: the blocking locks of block `b` of function `f` whose mutex
    /// is a constant address, as (instruction, address).
    lock_sites: Vec<Vec<Vec<(u32, u64)>>>,
    /// `succs[f][b]`: the successors of block `b` of function `f`.
    succs: Vec<Vec<Vec<u32>>>,
    /// Every constant address some blocking lock takes, sorted.
    pub(crate) lock_addresses: Vec<u64>,
}

impl Futures {
    pub(crate) fn new(machine: &Machine<'_>) -> Futures {
        let sync = if cancels(machine) {
            SyncNatives::Everything
        } else {
            SyncNatives::Mutexes
        };
        Futures::build(machine, sync)
    }

    /// Futures that judge the synchronisation natives (`WRITE_ONLY_ARGUMENTS`) by what
    /// they write, for race detection (`interp::races::update_race_writers`): only their
    /// pointer arguments' memory, unless the program can cancel a thread (each is a
    /// cancellation point, and cleanup handlers run program code).
    pub(crate) fn for_race_writes(machine: &Machine<'_>) -> Futures {
        let sync = if cancels(machine) {
            SyncNatives::Everything
        } else {
            SyncNatives::ByWrites
        };
        Futures::build(machine, sync)
    }

    fn build(machine: &Machine<'_>, sync: SyncNatives) -> Futures {
        let program = machine.program;
        let n = program.functions.len();
        let mut own = Vec::with_capacity(n);
        let mut lock_sites = Vec::with_capacity(n);
        for func in program.functions.iter() {
            match &func.body {
                Some(body) => {
                    lock_sites.push(lock_sites_of(machine, sync, body));
                    own.push(OwnEffects::of(machine, sync, body));
                }
                None => {
                    lock_sites.push(Vec::new());
                    own.push(OwnEffects::default());
                }
            }
        }
        let summary = function_summaries(&own);
        let mut reach = Vec::with_capacity(n);
        let mut rank = Vec::with_capacity(n);
        let mut after = Vec::with_capacity(n);
        let mut effects_at = Vec::with_capacity(n);
        let mut all_succs = Vec::with_capacity(n);
        for (f, own) in own.iter().enumerate() {
            let Some(body) = &program.functions[f].body else {
                all_succs.push(Vec::new());
                reach.push(Vec::new());
                rank.push(Vec::new());
                after.push(Vec::new());
                effects_at.push(Vec::new());
                continue;
            };
            effects_at.push(own.with_callees(&summary));
            let succs: Vec<Vec<u32>> = body.blocks.iter().map(successors).collect();
            let r = own.reachable(&summary, &succs);
            after.push(after_blocks(&r, &succs));
            reach.push(r);
            rank.push(reverse_postorder(&succs));
            all_succs.push(succs);
        }
        let exit_runs_code = ["pthread_key_create", "tss_create"]
            .iter()
            .any(|name| program.function(name).is_some());
        let mut lock_addresses: Vec<u64> = lock_sites
            .iter()
            .flatten()
            .flatten()
            .map(|&(_, a)| a)
            .collect();
        lock_addresses.sort_unstable();
        lock_addresses.dedup();
        Futures {
            after,
            effects_at,
            rank,
            exit_runs_code,
            lock_sites,
            succs: all_succs,
            lock_addresses,
        }
    }

    /// What the successors of block `b` of function `f` may do, and the block's own
    /// effectful instructions; `None` when unknown.
    fn block(&self, f: FuncId, b: u32) -> Option<(&Effects, &[(u32, Effects)])> {
        let after = self.after.get(f as usize)?.get(b as usize)?;
        let at = self.effects_at.get(f as usize)?.get(b as usize)?;
        Some((after, at))
    }

    /// Add to `e` what a frame of function `f` at instruction `ip` of block `b` may
    /// still do (that instruction included); false when unknown.
    pub(crate) fn add_from(&self, f: FuncId, b: u32, ip: u32, e: &mut Effects) -> bool {
        let Some((after, at)) = self.block(f, b) else {
            return false;
        };
        e.union(after);
        for (_, x) in at.iter().filter(|(i, _)| *i >= ip) {
            e.union(x);
        }
        true
    }

    /// Add to `e` what a thread with these frames may still do (its end aside) before
    /// it gets past a blocking lock of a mutex `held` says true of (its holder does not
    /// move): a frame that cannot return without such a lock hides the frames below
    /// it. False when that is unknown or everything.
    pub(crate) fn add_frames_until_held(
        &self,
        frames: &[Frame],
        held: &dyn Fn(u64) -> bool,
        e: &mut Effects,
    ) -> bool {
        let points: Vec<(FuncId, u32, u32)> = resume_points(frames).collect();
        for &(f, b, ip) in points.iter().rev() {
            let cuts = self
                .lock_sites
                .get(f as usize)
                .is_some_and(|bs| bs.iter().flatten().any(|&(_, a)| held(a)));
            if !cuts {
                if !self.add_from(f, b, ip, e) || e.everything {
                    return false;
                }
                continue;
            }
            match self.walk_until_held(f, b, ip, held, e) {
                None => return false,
                Some(_) if e.everything => return false,
                Some(false) => return true,
                Some(true) => {}
            }
        }
        true
    }

    /// Add what function `f` may do from instruction `ip` of block `b` on, stopping at
    /// the blocking locks of held mutexes; whether it may return (None: unknown).
    fn walk_until_held(
        &self,
        f: FuncId,
        b: u32,
        ip: u32,
        held: &dyn Fn(u64) -> bool,
        e: &mut Effects,
    ) -> Option<bool> {
        let (f, n) = (f as usize, self.succs.get(f as usize)?.len());
        let mut seen = vec![false; n];
        let mut stack = vec![(b as usize, ip)];
        let mut returns = false;
        while let Some((b, from)) = stack.pop() {
            let at = self.effects_at.get(f)?.get(b)?;
            let cut = self.lock_sites[f][b]
                .iter()
                .filter(|&&(i, a)| i >= from && held(a))
                .map(|&(i, _)| i)
                .min();
            for (_, x) in at
                .iter()
                .filter(|(i, _)| *i >= from && cut.is_none_or(|c| *i < c))
            {
                e.union(x);
            }
            if cut.is_some() {
                continue;
            }
            let succs = &self.succs[f][b];
            returns |= succs.is_empty();
            for &s in succs {
                let s = s as usize;
                if s < n && !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            }
        }
        Some(returns)
    }

    /// Whether a thread with these frames may still write through a pointer not
    /// derived from a global, or do everything (or that is unknown): `add_frames`
    /// without building the effects.
    pub(crate) fn may_write_any(&self, frames: &[Frame]) -> bool {
        let writes = |e: &Effects| e.everything || e.write_any;
        resume_points(frames).any(|(f, b, ip)| match self.block(f, b) {
            Some((after, at)) => writes(after) || at.iter().any(|(i, e)| *i >= ip && writes(e)),
            None => true,
        })
    }

    /// The rank of block `b` of function `f` (see the module documentation).
    pub(crate) fn rank(&self, f: FuncId, b: u32) -> u32 {
        self.rank
            .get(f as usize)
            .and_then(|r| r.get(b as usize))
            .copied()
            .unwrap_or(0)
    }
}

/// The constant address of the mutex a call to the blocking lock takes, if it is one.
fn blocking_lock_of(machine: &Machine<'_>, inst: &Inst) -> Option<u64> {
    let Inst::Call {
        callee: Callee::Direct(fid),
        args,
        ..
    } = inst
    else {
        return None;
    };
    if machine.program.functions[*fid as usize].body.is_some()
        || machine.native_of(*fid)?.name != BLOCKING_LOCK
    {
        return None;
    }
    match args.first()? {
        Operand::Const(v) if ptr_parts(v.as_u64()).0 != 0 => Some(v.as_u64()),
        _ => None,
    }
}

/// Whether the program can cancel a thread (each blocking native is then a
/// cancellation point, and cleanup handlers run program code).
fn cancels(machine: &Machine<'_>) -> bool {
    ["pthread_cancel", "pthread_testcancel"]
        .iter()
        .any(|name| machine.program.function(name).is_some())
}

/// Where each frame of a thread goes on, as (function, block, instruction): a caller
/// after its call, unless a native called back (the native goes on where it is).
fn resume_points(frames: &[Frame]) -> impl Iterator<Item = (FuncId, u32, u32)> + '_ {
    frames.iter().enumerate().map(|(i, f)| {
        let resumes_after = frames
            .get(i + 1)
            .is_some_and(|above| !matches!(above.ret, ReturnTo::Native { .. }));
        (f.func, f.block, if resumes_after { f.ip + 1 } else { f.ip })
    })
}

/// One instruction's position, effects and calls to program functions.
type InstEffects = (u32, Effects, Vec<FuncId>);

/// Per block of a function, the `(ip, address)` of its blocking lock calls (none
/// unless `sync` is `Mutexes`).
fn lock_sites_of(
    machine: &Machine<'_>,
    sync: SyncNatives,
    body: &crate::ir::Body,
) -> Vec<Vec<(u32, u64)>> {
    body.blocks
        .iter()
        .map(|block| {
            let mut sites = Vec::new();
            if sync == SyncNatives::Mutexes {
                for (ip, inst) in block.insts.iter().enumerate() {
                    if let Some(addr) = blocking_lock_of(machine, inst) {
                        sites.push((ip as u32, addr));
                    }
                }
            }
            sites
        })
        .collect()
}

/// One function's blocks' own effects, without what their callees do.
#[derive(Default)]
struct OwnEffects {
    /// Per block, the union of its instructions' effects.
    blocks: Vec<Effects>,
    /// Per block, the program functions it calls.
    calls: Vec<Vec<FuncId>>,
    /// Per block, its effectful instructions.
    insts: Vec<Vec<InstEffects>>,
}

impl OwnEffects {
    fn of(machine: &Machine<'_>, sync: SyncNatives, body: &crate::ir::Body) -> OwnEffects {
        let defs = Defs::new(body);
        let mut own = OwnEffects {
            blocks: Vec::with_capacity(body.blocks.len()),
            calls: Vec::with_capacity(body.blocks.len()),
            insts: Vec::with_capacity(body.blocks.len()),
        };
        for block in body.blocks.iter() {
            let mut e = Effects::default();
            let mut c = Vec::new();
            let mut per_inst = Vec::new();
            for (ip, inst) in block.insts.iter().enumerate() {
                let mut one = Effects::default();
                let mut one_calls = Vec::new();
                inst_effects(machine, sync, &defs, inst, &mut one, &mut one_calls);
                if one != Effects::default() || !one_calls.is_empty() {
                    e.union(&one);
                    c.extend(one_calls.iter().copied());
                    per_inst.push((ip as u32, one, one_calls));
                }
            }
            own.blocks.push(e);
            own.calls.push(c);
            own.insts.push(per_inst);
        }
        own
    }

    /// Each effectful instruction, with its callees' summaries.
    fn with_callees(&self, summary: &[Effects]) -> Vec<Vec<(u32, Effects)>> {
        self.insts
            .iter()
            .map(|per_inst| {
                per_inst
                    .iter()
                    .map(|(ip, e, cs)| {
                        let mut e = e.clone();
                        for c in cs {
                            e.union(&summary[*c as usize]);
                        }
                        (*ip, e)
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    }

    /// Per block: its own effects and its callees', then everything reachable from it
    /// (to a fixpoint over `succs`).
    fn reachable(&self, summary: &[Effects], succs: &[Vec<u32>]) -> Vec<Effects> {
        let mut r: Vec<Effects> = self.blocks.clone();
        for (b, cs) in self.calls.iter().enumerate() {
            for c in cs {
                let callee = summary[*c as usize].clone();
                r[b].union(&callee);
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..r.len()).rev() {
                for &s in &succs[b] {
                    if s as usize != b && (s as usize) < r.len() {
                        let next = r[s as usize].clone();
                        changed |= r[b].union(&next);
                    }
                }
            }
        }
        r
    }
}

/// Whole-function summaries, to a fixpoint over the call graph.
fn function_summaries(own: &[OwnEffects]) -> Vec<Effects> {
    let mut summary: Vec<Effects> = own
        .iter()
        .map(|o| {
            let mut e = Effects::default();
            for b in &o.blocks {
                e.union(b);
            }
            e
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (f, o) in own.iter().enumerate() {
            for c in o.calls.iter().flatten() {
                if *c as usize == f {
                    continue;
                }
                let callee = summary[*c as usize].clone();
                changed |= summary[f].union(&callee);
            }
        }
    }
    summary
}

/// What the successors of each block may do, from what each block reaches.
fn after_blocks(reach: &[Effects], succs: &[Vec<u32>]) -> Vec<Effects> {
    succs
        .iter()
        .map(|ss| {
            let mut e = Effects::default();
            for &s in ss {
                if let Some(x) = reach.get(s as usize) {
                    e.union(x);
                }
            }
            e
        })
        .collect()
}

/// Each register's defining instruction (`None`: a parameter or φ), and the φs.
struct Defs<'b> {
    insts: std::collections::HashMap<Reg, &'b Inst>,
    phis: std::collections::HashMap<Reg, Vec<&'b Operand>>,
}

impl<'b> Defs<'b> {
    fn new(body: &'b crate::ir::Body) -> Defs<'b> {
        let mut insts = std::collections::HashMap::new();
        let mut phis = std::collections::HashMap::new();
        for block in body.blocks.iter() {
            for phi in block.phis.iter() {
                phis.insert(phi.dst, phi.incoming.iter().map(|(_, o)| o).collect());
            }
            for inst in block.insts.iter() {
                let dst = match inst {
                    Inst::Gep { dst, .. }
                    | Inst::Cast { dst, .. }
                    | Inst::Select { dst, .. }
                    | Inst::Alloca { dst, .. } => *dst,
                    _ => continue,
                };
                insts.insert(dst, inst);
            }
        }
        Defs { insts, phis }
    }

    /// What `op` may point into (`depth` bounds the walk through φ cycles).
    fn target(&self, program: &Program, op: &Operand, depth: u32) -> Target {
        match op {
            Operand::Const(v) | Operand::Undef(v) => {
                let (obj, _) = ptr_parts(v.as_u64());
                if obj == 0 {
                    Target::Private
                } else if (obj as usize) <= program.globals.len() {
                    Target::Global(obj - 1)
                } else {
                    Target::Unknown
                }
            }
            Operand::Reg(r) if depth > 0 => {
                if let Some(ins) = self.phis.get(r) {
                    return self.join(program, ins.iter().copied(), depth - 1);
                }
                match self.insts.get(r) {
                    Some(Inst::Alloca { escapes: false, .. }) => Target::Private,
                    Some(Inst::Gep { base, .. }) => self.target(program, base, depth - 1),
                    Some(Inst::Cast {
                        op: crate::ir::CastOp::Bitcast | crate::ir::CastOp::AddrSpace,
                        a,
                        ..
                    }) => self.target(program, a, depth - 1),
                    Some(Inst::Select { a, b, .. }) => self.join(program, [a, b], depth - 1),
                    _ => Target::Unknown,
                }
            }
            Operand::Reg(_) => Target::Unknown,
        }
    }

    fn join<'o>(
        &self,
        program: &Program,
        ops: impl IntoIterator<Item = &'o Operand>,
        depth: u32,
    ) -> Target {
        let mut out: Option<Target> = None;
        for op in ops {
            let t = self.target(program, op, depth);
            out = match (out, t) {
                (None, t) => Some(t),
                (Some(a), b) if a == b => Some(a),
                (Some(Target::Private), b) => Some(b),
                (Some(a), Target::Private) => Some(a),
                _ => return Target::Unknown,
            };
        }
        out.unwrap_or(Target::Unknown)
    }
}

/// The effects of one instruction; calls to program functions go to `calls`.
fn inst_effects(
    machine: &Machine<'_>,
    sync: SyncNatives,
    defs: &Defs<'_>,
    inst: &Inst,
    e: &mut Effects,
    calls: &mut Vec<FuncId>,
) {
    let program = machine.program;
    let target = |op: &Operand| defs.target(program, op, 16);
    match inst {
        Inst::Load { ptr, .. } => e.access(target(ptr), true, false),
        Inst::Store { ptr, .. } => e.access(target(ptr), false, true),
        Inst::CmpXchg { ptr, .. } | Inst::AtomicRmw { ptr, .. } => {
            e.access(target(ptr), true, true)
        }
        Inst::Call { callee, args, .. } => match callee {
            Callee::AsmFence => {}
            Callee::Indirect(_) => e.everything = true,
            Callee::Intrinsic(i) => match i {
                Intrinsic::Memcpy | Intrinsic::Memmove => {
                    if let (Some(d), Some(s)) = (args.first(), args.get(1)) {
                        e.access(target(d), false, true);
                        e.access(target(s), true, false);
                    }
                }
                Intrinsic::Memset | Intrinsic::VaStart | Intrinsic::VaCopy => {
                    if let Some(d) = args.first() {
                        e.access(target(d), true, true);
                    }
                }
                Intrinsic::VaEnd => {
                    if let Some(d) = args.first() {
                        e.access(target(d), true, false);
                    }
                }
                _ => {}
            },
            Callee::Direct(fid) => {
                let func = &program.functions[*fid as usize];
                if func.name.starts_with("__VERIFIER_atomic_") {
                    // An atomic section stops every other thread.
                    e.everything = true;
                } else if func.body.is_some() {
                    calls.push(*fid);
                } else {
                    native_effects(machine, sync, *fid, args, &target, e);
                }
            }
        },
        _ => {}
    }
}

fn native_effects(
    machine: &Machine<'_>,
    sync: SyncNatives,
    fid: FuncId,
    args: &[Operand],
    target: &dyn Fn(&Operand) -> Target,
    e: &mut Effects,
) {
    let program = machine.program;
    let Some(native) = machine.native_of(fid) else {
        // No model: calling it is an error, but be safe.
        e.everything = true;
        return;
    };
    if UNSUMMARISED_NATIVES.contains(&native.name) {
        e.everything = true;
        return;
    }
    if sync == SyncNatives::Mutexes && MUTEX_NATIVES.contains(&native.name) {
        // The mutex by itself; the other pointers (a timeout) as plain accesses.
        native_arguments(program, fid, args, 1, target, e);
        match args.first().map(target) {
            Some(Target::Global(g)) => e.mutexes.insert(g),
            Some(Target::Private) => {}
            _ => {
                e.read_any = true;
                e.write_any = true;
            }
        }
        return;
    }
    let by_arguments = sync == SyncNatives::ByWrites && WRITE_ONLY_ARGUMENTS.contains(&native.name);
    match native.visibility {
        Visibility::Never | Visibility::Choice => {
            native_arguments(program, fid, args, 0, target, e)
        }
        _ if by_arguments => native_arguments(program, fid, args, 0, target, e),
        Visibility::Output => {
            e.output = true;
            e.read_any = true;
            e.write_any = true;
        }
        Visibility::IfShared(_) | Visibility::IfShared2(..) => {
            e.read_any = true;
            e.write_any = true;
        }
        Visibility::Always | Visibility::Custom(_) => e.everything = true,
    }
}

/// A native that touches only what its pointer arguments (from the `from`th on) point
/// to (by parameter type; a variadic argument's type is not at hand: it counts as a
/// pointer).
fn native_arguments(
    program: &Program,
    fid: FuncId,
    args: &[Operand],
    from: usize,
    target: &dyn Fn(&Operand) -> Target,
    e: &mut Effects,
) {
    let func = &program.functions[fid as usize];
    for (i, a) in args.iter().enumerate().skip(from) {
        let pointer = match func.param_tys.get(i) {
            Some(&ty) => matches!(program.types.get(ty), Ty::Ptr),
            None => true,
        };
        if pointer {
            e.access(target(a), true, true);
        }
    }
}

/// Each block's index in reverse postorder from block 0 (unreachable blocks after).
fn reverse_postorder(succs: &[Vec<u32>]) -> Vec<u32> {
    let n = succs.len();
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    if n > 0 {
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some((b, i)) = stack.last_mut() {
            if let Some(&s) = succs[*b].get(*i) {
                *i += 1;
                let s = s as usize;
                if s < n && !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
    }
    let mut rank = vec![u32::MAX; n];
    for (i, &b) in post.iter().rev().enumerate() {
        rank[b] = i as u32;
    }
    for (next, r) in (post.len() as u32..).zip(rank.iter_mut().filter(|r| **r == u32::MAX)) {
        *r = next;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cycle_has_an_edge_that_does_not_go_up_in_rank() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3, 0 -> 3
        let succs = vec![vec![1, 3], vec![2], vec![1, 3], vec![]];
        let r = reverse_postorder(&succs);
        assert!(r[0] < r[1] && r[1] < r[2] && r[2] < r[3]);
        assert!(r[1] <= r[2], "the back edge 2 -> 1 goes down");
    }

    #[test]
    fn a_union_reports_change() {
        let mut a = Effects::default();
        let mut b = Effects::default();
        b.writes.insert(70);
        assert!(a.union(&b));
        assert!(!a.union(&b));
        assert!(a.writes.contains(70) && !a.writes.contains(6));
    }
}
