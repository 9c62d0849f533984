//! setjmp/longjmp and sigsetjmp/siglongjmp within one thread.
//!
//! A `jmp_buf` holds a pointer to a marker object owned by the frame that called setjmp:
//! the marker is one of that frame's allocas, so it dies when the frame returns, and a
//! longjmp through a `jmp_buf` whose frame has returned is reported as such. The marker
//! records where setjmp was called (block, instruction); longjmp pops the frames above
//! the owner, like returns, and resumes after that call with the value passed. The
//! signal mask is not modelled (signals are out of scope), so the sig* forms are the same.
//! Liveness treats registers live after a setjmp call as live everywhere in the function
//! (see `ir::liveness::RETURNS_TWICE`), since the CFG does not show longjmp's edge back to it.

use super::hidden::SETJMP_MARK;
use crate::error::{ErrorKind, Failure};
use crate::ir::Inst;
use crate::memory::{ObjKind, Object};
use crate::natives::{arg, NativeCx, NativeResult, Natives, Pointee, Visibility};
use crate::state::ReturnTo;
use crate::value::{make_ptr, ptr_parts, Val};

/// `jmp_buf` and `sigjmp_buf` on x86-64 glibc (`struct __jmp_buf_tag[1]`).
const JMP_BUF: u64 = 200;
/// What `__sigsetjmp(env, 0)` writes: the registers and `__mask_was_saved`, not the
/// signal mask. `pthread_cleanup_push` passes such a shorter buffer (the
/// `cancel_jmp_buf` of a `__pthread_unwind_buf_t`).
const JMP_BUF_WITHOUT_MASK: u64 = 72;

pub(crate) fn register(n: &mut Natives) {
    n.add("_setjmp", Visibility::Never, |cx, a| setjmp(cx, a, JMP_BUF));
    n.alias("setjmp", "_setjmp");
    n.add("__sigsetjmp", Visibility::Never, |cx, a| {
        let size = match arg(a, 1)? {
            0 => JMP_BUF_WITHOUT_MASK,
            _ => JMP_BUF,
        };
        setjmp(cx, a, size)
    });
    n.alias("sigsetjmp", "__sigsetjmp");
    n.add("longjmp", Visibility::Never, longjmp);
    for name in ["_longjmp", "siglongjmp", "__longjmp_chk"] {
        n.alias(name, "longjmp");
    }
}

/// (block, instruction) of a call site, as a marker's 8 bytes.
fn site_bytes(block: u32, ip: u32) -> Vec<u8> {
    [block.to_le_bytes(), ip.to_le_bytes()].concat()
}

fn setjmp(cx: &mut NativeCx<'_>, a: &[Val], size: u64) -> Result<NativeResult, Failure> {
    let env = cx.ptr_arg(a, 0, Pointee::write(size))?;
    let frame = cx.state.thread(cx.tid).top();
    let site = site_bytes(frame.block, frame.ip);
    // One marker per setjmp call site and frame, so a setjmp in a loop adds no objects.
    let existing = frame.allocas.iter().copied().find(|&id| {
        cx.state.memory.get(id).is_some_and(|o| {
            o.kind == ObjKind::Internal && o.alloc_family == SETJMP_MARK && o.data == site
        })
    });
    let marker = match existing {
        Some(id) => id,
        None => {
            let mut o = Object::new(site.len(), ObjKind::Internal);
            o.data = site;
            o.alloc_family = SETJMP_MARK;
            let id = cx.state.memory.allocate(o);
            cx.state.thread_mut(cx.tid).top_mut().allocas.push(id);
            id
        }
    };
    cx.write_ptr(env, &Val::Ptr(make_ptr(marker, 0)))?;
    Ok(NativeResult::Return(Val::Int(0)))
}

fn longjmp(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let env = cx.ptr_arg(a, 0, Pointee::read(JMP_BUF))?;
    // longjmp(env, 0) makes setjmp return 1.
    let value = match arg(a, 1)? as u32 {
        0 => 1,
        v => v,
    };
    jump(cx, env, value)
}

/// Resume the calling thread after the setjmp that filled `env`, which now returns
/// `value`. Also how cancellation enters a cleanup handler (see `pthread::cancel`).
pub(crate) fn jump(cx: &mut NativeCx<'_>, env: u64, value: u32) -> Result<NativeResult, Failure> {
    let saved = cx.read_ptr(env)?;
    let (marker, _) = ptr_parts(saved.as_u64());
    let mark = match (&saved, cx.state.memory.get(marker)) {
        (Val::Ptr(_), Some(o)) if o.kind == ObjKind::Internal && o.alloc_family == SETJMP_MARK => o,
        _ => {
            return Err(Failure::new(
                ErrorKind::NullDereference,
                "longjmp through a jmp_buf that setjmp did not fill",
            ))
        }
    };
    if mark.freed {
        return Err(Failure::new(
            ErrorKind::UseAfterFree,
            "longjmp to a setjmp whose function has already returned",
        ));
    }
    let block = u32::from_le_bytes(mark.data[0..4].try_into().expect("marker site"));
    let ip = u32::from_le_bytes(mark.data[4..8].try_into().expect("marker site"));
    let frames = &cx.state.thread(cx.tid).frames;
    let Some(owner) = frames.iter().rposition(|f| f.allocas.contains(&marker)) else {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            "longjmp to a setjmp made by another thread",
        ));
    };
    if frames[owner + 1..]
        .iter()
        .any(|f| f.ret != ReturnTo::Caller)
    {
        return Err(Failure::unsupported(
            "unsupported: longjmp out of a function called back by a modelled library function (qsort, pthread_once, atexit, a key destructor)",
        ));
    }
    // The frames above the owner end as if they returned: their stack objects die.
    let dying: Vec<u32> = frames[owner + 1..]
        .iter()
        .flat_map(|f| f.allocas.iter().chain(f.varargs.iter()).copied())
        .collect();
    for &id in &dying {
        if cx.state.memory.get(id).is_some_and(|o| !o.freed) {
            cx.evict(make_ptr(id, 0))?;
        }
    }
    for id in dying {
        cx.dealloc(id);
    }
    let program = cx.program;
    let t = cx.state.thread_mut(cx.tid);
    t.frames.truncate(owner + 1);
    t.frames_popped();
    let frame = t.top_mut();
    frame.block = block;
    frame.ip = ip;
    // setjmp returns again, now with `value`; the interpreter then steps past the call.
    let body = program.functions[frame.func as usize]
        .body
        .as_ref()
        .expect("a frame runs a function with a body");
    if let Inst::Call { dst: Some(d), .. } = &body.blocks[block as usize].insts[ip as usize] {
        frame.set_reg(*d, Val::Int(value as u128));
    }
    cx.note(|_, _| format!("setjmp returns {value} again"));
    Ok(NativeResult::Jumped)
}
