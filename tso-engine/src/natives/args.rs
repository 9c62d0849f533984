//! Arguments of native calls, and the pointer checks every native applies to them.
//!
//! A modelled function reads and writes program memory the way the real one does, so a
//! bad pointer must end in the same verdict as a bad load or store in the program:
//! null-dereference, out-of-bounds, use-after-free or a write to read-only memory. Every
//! native memory access goes through [`super::NativeCx`]'s accessors, which check; a
//! pointer to a fixed-size object (a `pthread_mutex_t*`, a `pthread_t*` result) is
//! checked whole on entry with [`super::NativeCx::ptr_arg`], before the call has any
//! effect, so a call on a NULL, freed or too-small object fails even where the model
//! itself would not touch every byte. No modelled function checks alignment: on x86-64
//! glibc none of them faults on a misaligned object (plain and `lock`-prefixed accesses
//! both work unaligned).

use crate::error::{ErrorKind, Failure};
use crate::value::Val;

/// Argument `i` of a native call as passed (a pointer keeps its provenance). Reading an
/// argument the call did not pass is an error: the program declared the function with
/// fewer parameters than the real one reads.
pub fn arg_val(a: &[Val], i: usize) -> Result<Val, Failure> {
    a.get(i).cloned().ok_or_else(|| {
        Failure::new(
            ErrorKind::OutOfBounds,
            format!(
                "a modelled function reads argument {} but the call passes only {}",
                i + 1,
                a.len()
            ),
        )
    })
}

/// Argument `i` of a native call as a 64-bit integer (see [`arg_val`]).
pub fn arg(a: &[Val], i: usize) -> Result<u64, Failure> {
    arg_val(a, i).map(|v| v.as_u64())
}

/// Undefined bits in an argument a native inspects are an `uninitialized` error,
/// raised before the call has any effect; `undef[i]` is argument i's shadow, if it has
/// undefined bits (see `crate::definedness`). Arguments the native declared as carried
/// (`Native::carries_undefined`: values stored or passed on, never looked at) may hold
/// them.
pub(crate) fn require_defined_args(
    native: &super::Native,
    undef: &[Option<crate::definedness::Undef>],
    origin: impl Fn(Option<crate::definedness::Origin>) -> Option<String>,
) -> Result<(), Failure> {
    for (i, u) in undef.iter().enumerate() {
        let Some(u) = u else { continue };
        if i < 32 && native.carries_undefined & (1 << i) != 0 {
            continue;
        }
        return Err(crate::definedness::error(
            &format!("argument {} of `{}`", i + 1, native.name),
            origin(u.origin).as_deref(),
        ));
    }
    Ok(())
}

/// Whether a native reads or writes the memory a pointer argument points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    /// Writes (and possibly reads): read-only memory is refused too.
    Write,
}

/// The object a pointer parameter must point to: `size` bytes, read or written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pointee {
    pub size: u64,
    pub access: Access,
}

impl Pointee {
    pub(crate) const fn read(size: u64) -> Pointee {
        Pointee {
            size,
            access: Access::Read,
        }
    }
    pub(crate) const fn write(size: u64) -> Pointee {
        Pointee {
            size,
            access: Access::Write,
        }
    }
}
