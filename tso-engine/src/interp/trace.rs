//! Human-readable descriptions of actions, for counterexample traces.

use super::Machine;
use crate::ir::debug::{display_name, is_reserved, is_system_header, DiTypeId, Encoding};
use crate::ir::{Callee, Inst, Location, Program, Reg};
use crate::memory::ObjKind;
use crate::natives::Visibility;
use crate::state::{State, ThreadId};
use crate::value::{ptr_parts, Val};

/// One step of a counterexample trace, from the interpreter to the reporters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    pub thread: ThreadId,
    /// Where the step happened in the source, when debug info says.
    pub location: Option<Location>,
    /// What the thread did, e.g. `load x → 1`.
    pub action: String,
    /// Extra lines from natives (store buffer contents, flushes).
    pub notes: Vec<String>,
    /// What the program printed during this step.
    pub output: String,
    /// The checker's own bookkeeping (fences around library calls, copies of thread
    /// handles): left out of traces unless asked for.
    pub detail: bool,
}

/// The memory a pointer designates, as the source expression of what an access there
/// touches: `lock.interested[1]`, `main::t`, `node#3->next`; without debug info the
/// object's own name and a byte offset: `x+4`, `local@file.c:12`, `heap#2+8`.
pub fn describe_pointer(program: &Program, st: &State, p: u64) -> String {
    name_memory(program, st, p, true)
}

/// A pointer as a value: `NULL`, `&pool[2]`, `node#3` (a heap block is its own name),
/// a function's name.
pub fn describe_address(program: &Program, st: &State, p: u64) -> String {
    if p == 0 {
        return "NULL".into();
    }
    let (obj, off) = ptr_parts(p);
    if obj >= crate::ir::FUNCTION_OBJECT_BASE {
        return name_memory(program, st, p, false);
    }
    // A `pthread_t` points to its thread's handle object (`pthread::thread::handle`).
    if let Some(t) = crate::pthread::thread::thread_of_handle(st, p) {
        return format!("thread {t}");
    }
    let name = name_memory(program, st, p, false);
    let heap_start = off == 0 && st.memory.get(obj).is_some_and(|o| o.kind == ObjKind::Heap);
    if heap_start {
        name
    } else {
        format!("&{name}")
    }
}

/// Bytes `start..end` of object `obj`, as source: the whole object by its name
/// (`flag`), else the element or field at `start` (`flag[1]`).
pub(crate) fn describe_range(
    program: &Program,
    st: &State,
    obj: u32,
    start: u32,
    end: u32,
) -> String {
    let whole = start == 0
        && st
            .memory
            .get(obj)
            .is_some_and(|o| end as usize >= o.data.len());
    name_memory(program, st, crate::value::make_ptr(obj, start), !whole)
}

fn name_memory(program: &Program, st: &State, p: u64, leaf: bool) -> String {
    let m = program;
    let (obj, off) = ptr_parts(p);
    if p == 0 {
        return "NULL".into();
    }
    let debug = &m.debug;
    let named = |base: String, var: Option<&crate::ir::debug::DebugVar>| match var {
        Some(v) => debug.path(&base, v.ty, off as u64, leaf),
        None if off == 0 => base,
        None => format!("{base}+{off}"),
    };
    match st.memory.get(obj) {
        Some(o) => match o.kind {
            ObjKind::Global(_) if obj >= 1 && obj as usize <= m.globals.len() => {
                let g = obj as usize - 1;
                match debug.globals.get(g).and_then(|v| v.as_ref()) {
                    Some(v) => named(scoped(v), Some(v)),
                    None => named(m.globals[g].name.clone(), None),
                }
            }
            ObjKind::ThreadLocal(g) if g >= 1 && g as usize <= m.globals.len() => {
                let g = g as usize - 1;
                match debug.globals.get(g).and_then(|v| v.as_ref()) {
                    Some(v) => named(format!("{}(tls)", scoped(v)), Some(v)),
                    None => named(format!("{}(tls)", m.globals[g].name), None),
                }
            }
            ObjKind::Stack => match o.var.and_then(|v| debug.locals.get(v as usize)) {
                Some(v) => named(scoped(v), Some(v)),
                None => named(
                    match m.location(o.site) {
                        Some(l) => format!("local@{}:{}", short(&l.file), l.line),
                        None => format!("local#{obj}"),
                    },
                    None,
                ),
            },
            ObjKind::Heap => match o.var.and_then(|t| debug.record_name(t).map(|n| (t, n))) {
                // A block known to hold a record (a typed pointer to it was stored):
                // `node#3->next`.
                Some((ty, record)) => {
                    let base = format!("{record}#{obj}");
                    let path = debug.path(&base, Some(ty), off as u64, leaf);
                    match path.strip_prefix(&format!("{base}.")) {
                        Some(rest) => format!("{base}->{rest}"),
                        None => path,
                    }
                }
                None => named(format!("heap#{obj}"), None),
            },
            _ => named(format!("obj#{obj}"), None),
        },
        None if obj >= crate::ir::FUNCTION_OBJECT_BASE => m
            .functions
            .get((obj - crate::ir::FUNCTION_OBJECT_BASE) as usize)
            .map(|f| crate::ir::debug::display_name(&f.name))
            .unwrap_or_default(),
        None if off == 0 => format!("{p:#x}"),
        None => format!("{:#x}+{off}", p - off as u64),
    }
}

/// A variable's name, with its function for locals and function-scope statics, in
/// the debugger's `function::name` form.
fn scoped(v: &crate::ir::debug::DebugVar) -> String {
    match &v.function {
        Some(f) => format!("{f}::{}", v.name),
        None => v.name.to_string(),
    }
}

pub(crate) use crate::ir::debug::short;

/// An integer of `bytes` bytes (at most 8) that is or goes to the memory at `p`, read
/// as the type the debug info declares there: `4294967295` for an `unsigned`, `-1` for
/// an `int`, `true` for a `bool`. Where no type is declared (or the access covers no
/// whole scalar) it reads as signed, C's default.
pub fn describe_scalar_at(program: &Program, st: &State, p: u64, value: u64, bytes: u32) -> String {
    let (obj, off) = ptr_parts(p);
    declared_type(program, st, obj)
        .and_then(|ty| program.debug.encoding_at(ty, off as u64, bytes))
        .unwrap_or(Encoding::Unknown)
        .show(value, bytes)
}

/// The source type of the whole of object `obj`: its variable's, or the record a heap
/// block is known to hold.
fn declared_type(program: &Program, st: &State, obj: u32) -> Option<DiTypeId> {
    let o = st.memory.get(obj)?;
    let global = |g: u32| {
        program
            .debug
            .globals
            .get((g as usize).wrapping_sub(1))?
            .as_ref()?
            .ty
    };
    match o.kind {
        ObjKind::Global(_) => global(obj),
        ObjKind::ThreadLocal(g) => global(g),
        ObjKind::Stack => program.debug.locals.get(o.var? as usize)?.ty,
        ObjKind::Heap => o.var,
        _ => None,
    }
}

/// A value loaded from or stored to `p` as an `ir` type of `bytes` bytes: integers in
/// the declared type there, anything else as [`describe_value`] shows it.
fn describe_value_at(m: &Machine<'_>, st: &State, p: u64, v: &Val, bytes: u64) -> String {
    match v {
        Val::Int(x) if bytes <= 8 && *x <= u64::MAX as u128 => {
            describe_scalar_at(m.program, st, p, *x as u64, bytes as u32)
        }
        other => describe_value(m, st, other),
    }
}

pub(crate) fn describe_value(m: &Machine<'_>, st: &State, v: &Val) -> String {
    match v {
        Val::Int(x) if *x <= u64::MAX as u128 => format!("{}", *x as i128 as i64),
        // Wider than 64 bits (the width is not known here): the bits in hexadecimal.
        Val::Int(x) => format!("{x:#x}"),
        Val::Wide(l) => {
            let top = l.iter().rposition(|&x| x != 0).unwrap_or(0);
            let mut s = format!("{:#x}", l[top]);
            for x in l[..top].iter().rev() {
                s.push_str(&format!("{x:016x}"));
            }
            s
        }
        Val::Ptr(p) => describe_address(m.program, st, *p),
        Val::PtrLanes(x, l) => {
            let lane = |i: u32| {
                let v = (x >> (64 * i)) as u64;
                if l >> i & 1 != 0 {
                    describe_address(m.program, st, v)
                } else {
                    format!("{v:#x}")
                }
            };
            format!("{} | ({}) << 64", lane(0), lane(1))
        }
        Val::F32(b) => format!("{}", f32::from_bits(*b)),
        Val::F64(b) => format!("{}", f64::from_bits(*b)),
        Val::Agg(l) => format!(
            "{{{}}}",
            l.iter()
                .map(|x| describe_value(m, st, x))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Describe the instruction `tid` is about to execute; None for steps not worth a
/// trace line (arithmetic, branches, markers).
pub(super) fn describe(m: &Machine<'_>, st: &State, tid: ThreadId, inst: &Inst) -> Option<String> {
    let fr = st.thread(tid).top();
    let ev = |op| m.eval(fr, op);
    let size = |ty: &crate::ir::TyId| m.program.types.size(*ty);
    Some(match inst {
        Inst::Load { ptr, ty, .. } => {
            let p = ev(ptr).as_u64();
            match m.load(st, p, *ty) {
                Ok(v) => format!(
                    "load {} → {}",
                    describe_pointer(m.program, st, p),
                    describe_value_at(m, st, p, &v, size(ty))
                ),
                Err(_) => format!("load {}", describe_pointer(m.program, st, p)),
            }
        }
        Inst::Store { ptr, val, ty, .. } => {
            let p = ev(ptr).as_u64();
            format!(
                "store {} := {}",
                describe_pointer(m.program, st, p),
                describe_value_at(m, st, p, &ev(val), size(ty))
            )
        }
        Inst::CmpXchg {
            ptr,
            expected,
            new,
            ty,
            ..
        } => {
            let p = ev(ptr).as_u64();
            format!(
                "cmpxchg {} (expect {}, new {})",
                describe_pointer(m.program, st, p),
                describe_value_at(m, st, p, &ev(expected), size(ty)),
                describe_value_at(m, st, p, &ev(new), size(ty))
            )
        }
        Inst::AtomicRmw {
            op, ptr, val, ty, ..
        } => {
            let p = ev(ptr).as_u64();
            format!(
                "atomic {:?} {} {}",
                op,
                describe_pointer(m.program, st, p),
                describe_value_at(m, st, p, &ev(val), size(ty))
            )
        }
        Inst::Call { callee, args, .. } => {
            if let Some((native, argv)) = m.at_native(st, tid) {
                if let Some(d) = native.describe {
                    return Some(d(m.program, st, &argv));
                }
            }
            let name = match callee {
                Callee::Direct(f) => m.program.functions[*f as usize].name.clone(),
                Callee::Indirect(op) => match m.function_of(&ev(op)) {
                    Some(f) => m.program.functions[f as usize].name.clone(),
                    None => "<indirect>".into(),
                },
                Callee::Intrinsic(i) => format!("{i:?}"),
                Callee::AsmFence => "asm fence".into(),
            };
            let a: Vec<String> = args.iter().map(|a| describe_value(m, st, &ev(a))).collect();
            if matches!(callee, Callee::Intrinsic(crate::ir::Intrinsic::NoOp)) {
                return None;
            }
            format!(
                "{}({})",
                crate::ir::debug::display_name(&name),
                a.join(", ")
            )
        }
        _ => return None,
    })
}

/// Under tracing, how one step will be shown: decided on the stack as it is before the
/// instruction runs.
pub(super) struct Shown {
    location: Option<Location>,
    /// The library function the step happened in, when the user's code called it.
    library: Option<String>,
    /// What the step does, in source terms; None for steps not worth a line.
    description: Option<String>,
    /// A native that prints, by name: the step shows what it printed.
    printer: Option<String>,
    /// A call to a native: its result register, which the step shows when the native
    /// chose a value (a choice of kind `User`).
    chooses: Option<Reg>,
    detail: bool,
    /// A described native after the visible action (a fence with nothing to write):
    /// shown only when it did something worth seeing.
    quiet: bool,
    /// What a heap block holds, learnt from this step (see `heap_typing`).
    typing: Option<(u32, crate::ir::debug::DiTypeId)>,
}

impl Shown {
    /// `described`: whether this step is worth describing (the visible action, or an
    /// interesting invisible one).
    pub(super) fn before(
        m: &Machine<'_>,
        st: &State,
        tid: ThreadId,
        inst: &Inst,
        loc: Option<u32>,
        first: bool,
        described: bool,
    ) -> Shown {
        let place = attribute(m.program, st, tid, loc);
        let detail = is_detail(m, st, tid, inst, &place);
        let (loc, library) = match place {
            Place::User(l, library) => (l, library),
            other => (other.location(), None),
        };
        let native = m.at_native(st, tid);
        let prints = native
            .as_ref()
            .is_some_and(|(n, _)| matches!(n.visibility, Visibility::Output));
        let chooses = match inst {
            Inst::Call { dst: Some(d), .. } if native.is_some() => Some(*d),
            _ => None,
        };
        let printer = if prints {
            Some(m.at_native_name(inst).unwrap_or_default())
        } else {
            None
        };
        Shown {
            location: loc.and_then(|l| m.program.locations.get(l as usize).cloned()),
            library,
            description: if described {
                describe(m, st, tid, inst)
            } else {
                None
            },
            printer,
            chooses,
            detail,
            quiet: !first && native.is_some_and(|(n, _)| n.describe.is_some()),
            typing: heap_typing(m, st, tid, inst),
        }
    }

    /// The trace step once the instruction ran without error: its `notes` and
    /// `output`, whether it `chose` a value (`ChoiceKind::User`), whether it `blocked`. None when there is
    /// nothing to show. A heap block the step typed is named by its type from now on.
    pub(super) fn step(
        self,
        st: &mut State,
        tid: ThreadId,
        notes: Vec<String>,
        output: String,
        chose: bool,
        blocked: bool,
    ) -> Option<TraceStep> {
        if let Some((block, ty)) = self.typing {
            if let Some(o) = st.memory.get_mut(block) {
                if o.var.is_none() {
                    o.var = Some(ty);
                }
            }
        }
        let silent = self.quiet && notes.is_empty() && output.is_empty();
        let action = match self.description {
            Some(_) if self.printer.is_some() && !output.is_empty() => {
                let name = self.printer.unwrap_or_default();
                Some(format!("{name} {output:?}"))
            }
            Some(d) => Some(
                match self.chooses.filter(|_| chose).and_then(|dst| {
                    st.thread(tid)
                        .frames
                        .last()
                        .and_then(|f| f.regs.get(dst as usize))
                        .map(Val::as_u64)
                }) {
                    Some(v) => format!("{d} → {v}"),
                    None => d,
                },
            ),
            None => None,
        };
        let action = action.map(|a| match self.library {
            Some(lib) if !a.is_empty() => format!("{a} [{lib}]"),
            _ => a,
        });
        let action = match action {
            Some(action) if !blocked && !silent => action,
            None if !output.is_empty() => String::new(),
            _ => return None,
        };
        Some(TraceStep {
            thread: tid,
            location: self.location,
            action,
            notes,
            output,
            detail: self.detail,
        })
    }
}

/// Where a step is shown to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// In the user's own files: the location and, when the step happened inside a
    /// library function the user's code called, that function.
    User(Option<u32>, Option<String>),
    /// Library code with no user frame below it (a thread's start-up inside the C++
    /// library): nothing the user wrote.
    LibraryOnly(Option<u32>),
    /// No debug information says anything: shown as it is.
    Unknown(Option<u32>),
}

impl Place {
    pub fn location(&self) -> Option<u32> {
        match self {
            Place::User(l, _) | Place::LibraryOnly(l) | Place::Unknown(l) => *l,
        }
    }
}

/// Where to show a step of thread `tid` at `loc`: the innermost place in the user's
/// own files (following inlining, then the call stack), and, when that is not `loc`
/// itself, the library function the step happened in (the one the user's code called).
pub(crate) fn attribute(program: &Program, st: &State, tid: ThreadId, loc: Option<u32>) -> Place {
    let known = |l: u32| program.locations.get(l as usize);
    if let Some(l) = loc.and_then(known) {
        if !l.system {
            return Place::User(loc, None);
        }
    }
    let frames = &st.thread(tid).frames;
    // (location, the function it is in), innermost first.
    let mut places: Vec<(Option<u32>, u32)> = Vec::new();
    let mut push_chain = |start: Option<u32>, func: u32| {
        let mut cur = start;
        let mut none_pushed = true;
        while let Some(l) = cur {
            let Some(at) = known(l) else { break };
            places.push((Some(l), func));
            cur = at.inlined_at;
            none_pushed = false;
            if places.len() > 4096 {
                break;
            }
        }
        if none_pushed {
            places.push((None, func));
        }
    };
    if let Some(top) = frames.last() {
        push_chain(loc, top.func);
    }
    for f in frames.iter().rev().skip(1) {
        let at = program.functions[f.func as usize]
            .body
            .as_ref()
            .and_then(|b| b.blocks.get(f.block as usize))
            .and_then(|b| b.locs.get(f.ip as usize).copied().flatten());
        push_chain(at, f.func);
    }
    let mut library: Option<(Option<u32>, u32)> = None;
    let mut saw_system = false;
    for (l, func) in places {
        match l.and_then(|l| known(l).map(|at| (l, at))) {
            Some((l, at)) if !at.system => {
                let name = library.map(|(ll, f)| {
                    ll.and_then(known)
                        .and_then(|at| at.function.as_deref().map(str::to_owned))
                        .unwrap_or_else(|| display_name(&program.functions[f as usize].name))
                });
                return Place::User(Some(l), name);
            }
            Some(_) => {
                saw_system = true;
                library = Some((l, func));
            }
            None => library = Some((l, func)),
        }
    }
    if saw_system {
        Place::LibraryOnly(loc)
    } else {
        Place::Unknown(loc)
    }
}

/// Steps the user did not write as such: natives marked as the checker's bookkeeping,
/// accesses to variables that only hold thread handles, and, inside library code, the
/// library's work on its own private memory and helpers.
pub(super) fn is_detail(
    m: &Machine<'_>,
    st: &State,
    tid: ThreadId,
    inst: &Inst,
    place: &Place,
) -> bool {
    let in_library = match place {
        Place::LibraryOnly(_) => return true,
        Place::User(_, library) => library.is_some(),
        Place::Unknown(_) => false,
    };
    let fr = st.thread(tid).top();
    let native = match inst {
        Inst::Call { .. } => m.at_native(st, tid),
        _ => None,
    };
    let accessed = match inst {
        Inst::Load { ptr, .. } | Inst::Store { ptr, .. } => Some(m.eval(fr, ptr).as_u64()),
        _ => native.as_ref().and_then(|(n, argv)| match n.visibility {
            Visibility::IfShared(i) | Visibility::IfShared2(i, _) => argv.get(i).map(Val::as_u64),
            _ => None,
        }),
    };
    if native.as_ref().is_some_and(|(n, _)| n.detail) {
        return true;
    }
    if let Some(p) = accessed {
        if holds_thread_handle(m.program, st, p)
            || (in_library && library_bookkeeping(m.program, st, p))
            || captures(m.program, st, p)
        {
            return true;
        }
    }
    in_library && native.is_some_and(|(n, _)| matches!(n.visibility, Visibility::Never))
}

fn holds_thread_handle(program: &Program, st: &State, p: u64) -> bool {
    variable(program, st, p).is_some_and(|v| v.thread_handle)
}

/// What a library function's access to the memory at `p` does for the library only,
/// not as the user's step:
/// - a stack slot that is no variable of the user's (the library's local or temporary);
/// - memory no other thread can reach: the library's own state in the user's object
///   (`std::unique_lock`'s mutex pointer and owns flag), which no other thread can see
///   (and which an SC run, where such an access is no step, does not show either);
/// - an object of one of the library's own types (a reserved name such as
///   `_State_impl<…>`, the state `std::thread` hands to the new thread).
///
/// What remains is the library call's effect on shared memory of the user's types (the
/// store of a `std::atomic`), and its natives (lock, unlock, wait).
fn library_bookkeeping(program: &Program, st: &State, p: u64) -> bool {
    let (obj, _) = ptr_parts(p);
    let Some(o) = st.memory.get(obj) else {
        return false;
    };
    let private = match o.kind {
        ObjKind::Stack => variable(program, st, p).is_none_or(|v| is_system_header(&v.file)),
        ObjKind::Internal => true,
        _ => false,
    };
    private || library_object(program, st, p) || !st.memory.is_shared(p)
}

/// The memory at `p` is an object of one of the library's own types (a reserved name:
/// `_State_impl<…>`, which holds a new thread's function).
fn library_object(program: &Program, st: &State, p: u64) -> bool {
    declared_type(program, st, ptr_parts(p).0)
        .and_then(|ty| program.debug.record_name(ty))
        .is_some_and(is_reserved)
}

/// The memory at `p` is a lambda's closure kept in an object of the library's (the
/// lambda `std::thread` runs, inside its `_State_impl<…>`): the lambda's body reading a
/// capture is no access the user wrote, wherever the code that reads it is.
fn captures(program: &Program, st: &State, p: u64) -> bool {
    let (obj, off) = ptr_parts(p);
    library_object(program, st, p)
        && declared_type(program, st, obj)
            .is_some_and(|ty| program.debug.in_unnamed_record(ty, off as u64))
}

/// The source variable the memory at `p` belongs to.
fn variable<'p>(
    program: &'p Program,
    st: &State,
    p: u64,
) -> Option<&'p crate::ir::debug::DebugVar> {
    let (obj, _) = ptr_parts(p);
    let o = st.memory.get(obj)?;
    match o.kind {
        ObjKind::Stack => o.var.and_then(|v| program.debug.locals.get(v as usize)),
        ObjKind::Global(_) => program
            .debug
            .globals
            .get((obj as usize).wrapping_sub(1))
            .and_then(|v| v.as_ref()),
        _ => None,
    }
}

/// Under tracing: a store of a pointer to the start of a heap block into memory the
/// debug info types as `T *` (a record `T`) tells what the block holds, so the trace
/// can name it `T#N`. Returns the block and the record type.
pub(super) fn heap_typing(
    m: &Machine<'_>,
    st: &State,
    tid: ThreadId,
    inst: &Inst,
) -> Option<(u32, crate::ir::debug::DiTypeId)> {
    let fr = st.thread(tid).top();
    let (dst, val) = match inst {
        Inst::Store { ptr, val, .. } => (m.eval(fr, ptr).as_u64(), m.eval(fr, val)),
        Inst::Call { .. } => {
            let (n, argv) = m.at_native(st, tid)?;
            if !matches!(n.visibility, Visibility::IfShared(0)) {
                return None;
            }
            (argv.first()?.as_u64(), argv.get(1)?.clone())
        }
        _ => return None,
    };
    let Val::Ptr(p) = val else { return None };
    let (block, at) = ptr_parts(p);
    if at != 0 || st.memory.get(block)?.kind != ObjKind::Heap {
        return None;
    }
    let (obj, off) = ptr_parts(dst);
    let var_ty = match st.memory.get(obj)?.kind {
        ObjKind::Stack => {
            st.memory
                .get(obj)?
                .var
                .and_then(|v| m.program.debug.locals.get(v as usize))?
                .ty?
        }
        ObjKind::Global(_) => {
            m.program
                .debug
                .globals
                .get((obj as usize).wrapping_sub(1))?
                .as_ref()?
                .ty?
        }
        // A field of a block already known: `n->next = other`.
        ObjKind::Heap => st.memory.get(obj)?.var?,
        _ => return None,
    };
    let debug = &m.program.debug;
    let pointee = debug.pointee(debug.leaf_type(var_ty, off as u64)?)?;
    debug.record_name(pointee)?;
    Some((block, pointee))
}
