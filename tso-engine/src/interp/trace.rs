//! Human-readable descriptions of actions, for counterexample traces.

use super::Machine;
use crate::ir::{Callee, Inst, Program};
use crate::memory::ObjKind;
use crate::state::{State, ThreadId};
use crate::value::{ptr_parts, Val};

/// One step of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub tid: ThreadId,
    pub loc: Option<u32>,
    /// What the thread did, e.g. `load x → 1`.
    pub action: String,
    /// Extra lines from natives (store buffer contents, flushes).
    pub notes: Vec<String>,
    /// What the program printed during this step.
    pub output: String,
}

/// `x`, `x+4`, `heap#2+8`, `local@file.c:12`.
pub fn describe_pointer(program: &Program, st: &State, p: u64) -> String {
    let m = program;
    let (obj, off) = ptr_parts(p);
    if p == 0 {
        return "NULL".into();
    }
    let base = match st.memory.get(obj) {
        Some(o) => match o.kind {
            ObjKind::Global(_) if obj >= 1 && obj as usize <= m.globals.len() => {
                m.globals[obj as usize - 1].name.clone()
            }
            ObjKind::ThreadLocal(g) if g >= 1 && g as usize <= m.globals.len() => {
                format!("{}(tls)", m.globals[g as usize - 1].name)
            }
            ObjKind::Stack => match m.location(o.site) {
                Some(l) => format!("local@{}:{}", short(&l.file), l.line),
                None => format!("local#{obj}"),
            },
            ObjKind::Heap => format!("heap#{obj}"),
            _ => format!("obj#{obj}"),
        },
        None if obj >= crate::ir::FUNCTION_OBJECT_BASE => {
            return m
                .functions
                .get((obj - crate::ir::FUNCTION_OBJECT_BASE) as usize)
                .map(|f| f.name.clone())
                .unwrap_or_default();
        }
        None => format!("{p:#x}"),
    };
    if off == 0 {
        base
    } else {
        format!("{base}+{off}")
    }
}

pub fn short(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

pub fn describe_value(m: &Machine<'_>, st: &State, v: &Val) -> String {
    match v {
        Val::Int(x) => format!("{}", *x as i128 as i64),
        Val::Ptr(p) => format!("&{}", describe_pointer(m.program, st, *p)),
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
    Some(match inst {
        Inst::Load { ptr, ty, .. } => {
            let p = ev(ptr).as_u64();
            match m.load(st, p, *ty) {
                Ok(v) => format!(
                    "load {} → {}",
                    describe_pointer(m.program, st, p),
                    describe_value(m, st, &v)
                ),
                Err(_) => format!("load {}", describe_pointer(m.program, st, p)),
            }
        }
        Inst::Store { ptr, val, .. } => format!(
            "store {} := {}",
            describe_pointer(m.program, st, ev(ptr).as_u64()),
            describe_value(m, st, &ev(val))
        ),
        Inst::CmpXchg {
            ptr, expected, new, ..
        } => format!(
            "cmpxchg {} (expect {}, new {})",
            describe_pointer(m.program, st, ev(ptr).as_u64()),
            describe_value(m, st, &ev(expected)),
            describe_value(m, st, &ev(new))
        ),
        Inst::AtomicRmw { op, ptr, val, .. } => format!(
            "atomic {:?} {} {}",
            op,
            describe_pointer(m.program, st, ev(ptr).as_u64()),
            describe_value(m, st, &ev(val))
        ),
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
            format!("{}({})", demangle_hint(&name), a.join(", "))
        }
        _ => return None,
    })
}

/// A few well-known C++ runtime names, spelled the way people write them.
fn demangle_hint(name: &str) -> String {
    match name {
        "_Znwm" => "operator new".into(),
        "_ZdlPv" | "_ZdlPvm" => "operator delete".into(),
        _ => name.to_string(),
    }
}
