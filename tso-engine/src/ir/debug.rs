//! What the program's DWARF (clang's `-g`) says about its variables and types, reduced
//! to what a counterexample needs: the source expression for a byte of memory
//! (`q.slots[1]`, `lock.interested[1]`, `main::t`), and which variables only hold thread
//! handles. Read once by the loader (`loader/debuginfo.rs`); empty without debug info,
//! and then every name falls back to the object's own (`x+4`, `local#3`).

use std::sync::Arc;

/// Index into [`DebugInfo::types`].
pub(crate) type DiTypeId = u32;

/// A source type, with typedefs and qualifiers resolved away (their names are kept
/// where they matter: see [`DebugVar::thread_handle`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DiType {
    /// int, char, double, enums and anything without inner structure; `encoding` says
    /// how its bits read (DWARF's base type encoding).
    Scalar { size: u64, encoding: Encoding },
    /// A pointer; `pointee` is None for `void *` and function pointers.
    Pointer { pointee: Option<DiTypeId> },
    /// struct, class or union; members sorted by offset (bytes).
    Record {
        name: Arc<str>,
        size: u64,
        members: Vec<DiMember>,
    },
    /// `elem[count]`; `stride` is the element size in bytes.
    Array {
        elem: DiTypeId,
        stride: u64,
        count: u64,
    },
}

/// How a scalar's bits read, from the DWARF base type's `DW_AT_encoding` (an enum
/// reads as its underlying type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Signed,
    Unsigned,
    Boolean,
    Float,
    /// Not said (no base type underneath): read as signed, C's default for integers.
    Unknown,
}

impl Encoding {
    /// `value`, the low `bytes` bytes of which are a scalar of this encoding, as the
    /// source would print it: `-1`, `4294967295`, `true`, `0.5`.
    pub(crate) fn show(self, value: u64, bytes: u32) -> String {
        let bits = (bytes * 8).clamp(1, 64);
        let low = if bits == 64 {
            value
        } else {
            value & ((1u64 << bits) - 1)
        };
        let signed = ((low << (64 - bits)) as i64) >> (64 - bits);
        match self {
            Encoding::Unsigned => low.to_string(),
            Encoding::Boolean if low <= 1 => (low == 1).to_string(),
            Encoding::Float if bits == 32 => f32::from_bits(low as u32).to_string(),
            Encoding::Float if bits == 64 => f64::from_bits(low).to_string(),
            _ => signed.to_string(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DiMember {
    pub name: Arc<str>,
    pub offset: u64,
    pub ty: DiTypeId,
}

/// A named variable: a global, or a local that lives in memory (an `alloca` with a
/// `llvm.dbg.declare`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DebugVar {
    pub name: Arc<str>,
    /// The function a local belongs to (as the user spelled it), None for globals.
    pub function: Option<Arc<str>>,
    pub ty: Option<DiTypeId>,
    pub file: Arc<str>,
    pub line: u32,
    /// Holds only `pthread_t` / `std::thread` handles (or arrays of them): reading it is
    /// bookkeeping the user did not write as a memory access worth showing.
    pub thread_handle: bool,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct DebugInfo {
    pub(crate) types: Vec<DiType>,
    /// Per global (by `GlobalId`).
    pub globals: Vec<Option<DebugVar>>,
    /// Locals, referenced by `Inst::Alloca::var`.
    pub locals: Vec<DebugVar>,
}

impl DebugInfo {
    pub(crate) fn ty(&self, id: DiTypeId) -> Option<&DiType> {
        self.types.get(id as usize)
    }

    /// The source expression for `size` bytes at `offset` inside a variable of type
    /// `ty` whose own name is `base`: `base.field[2]`. With `leaf` the path goes down
    /// to the scalar the access touches (for loads and stores); without it, it stops as
    /// soon as `offset` is reached (for addresses: `&lock`, not `&lock.interested[0]`).
    /// What the type cannot explain stays a byte offset: `base.field+3`.
    pub(crate) fn path(&self, base: &str, ty: Option<DiTypeId>, offset: u64, leaf: bool) -> String {
        let mut out = base.to_owned();
        let mut rest = offset;
        let mut cur = ty;
        // Types are acyclic below a record (members are by value), but stay bounded anyway.
        for _ in 0..64 {
            let Some(t) = cur.and_then(|c| self.ty(c)) else {
                break;
            };
            if rest == 0 && !leaf {
                break;
            }
            match t {
                DiType::Record { members, size, .. } => {
                    // The last member starting at or before `rest` that still covers it.
                    let member = members.iter().rev().find(|m| {
                        m.offset <= rest
                            && rest < m.offset + self.size(m.ty).unwrap_or(*size).max(1)
                    });
                    let Some(m) = member else { break };
                    // The library's own fields (`std::atomic`'s `_M_i`): the user's name
                    // for the whole is the name they know.
                    if is_reserved(&m.name) {
                        break;
                    }
                    if m.name.is_empty() {
                        // An anonymous struct or union member: its fields belong to us.
                    } else {
                        out.push('.');
                        out.push_str(&m.name);
                    }
                    rest -= m.offset;
                    cur = Some(m.ty);
                }
                DiType::Array {
                    elem,
                    stride,
                    count,
                } => {
                    let stride = (*stride).max(1);
                    let index = rest / stride;
                    if *count != 0 && index >= *count {
                        break;
                    }
                    out.push_str(&format!("[{index}]"));
                    rest -= index * stride;
                    cur = Some(*elem);
                }
                DiType::Scalar { .. } | DiType::Pointer { .. } => break,
            }
        }
        if rest != 0 {
            out.push_str(&format!("+{rest}"));
        }
        out
    }

    pub(crate) fn size(&self, ty: DiTypeId) -> Option<u64> {
        match self.ty(ty)? {
            DiType::Scalar { size, .. } | DiType::Record { size, .. } => Some(*size),
            DiType::Pointer { .. } => Some(8),
            DiType::Array { stride, count, .. } => Some(stride * count),
        }
    }

    /// The record type a pointer of type `ty` points to, for naming heap blocks.
    pub(crate) fn pointee(&self, ty: DiTypeId) -> Option<DiTypeId> {
        match self.ty(ty)? {
            DiType::Pointer { pointee } => *pointee,
            _ => None,
        }
    }

    /// The type of the scalar at `offset` inside `ty` (the leaf [`DebugInfo::path`] reaches).
    pub(crate) fn leaf_type(&self, ty: DiTypeId, offset: u64) -> Option<DiTypeId> {
        let mut rest = offset;
        let mut cur = ty;
        for _ in 0..64 {
            match self.ty(cur)? {
                DiType::Record { members, .. } => {
                    let m = members.iter().rev().find(|m| {
                        m.offset <= rest && rest < m.offset + self.size(m.ty).unwrap_or(1).max(1)
                    })?;
                    rest -= m.offset;
                    cur = m.ty;
                }
                DiType::Array { elem, stride, .. } => {
                    rest %= (*stride).max(1);
                    cur = *elem;
                }
                DiType::Scalar { .. } | DiType::Pointer { .. } => {
                    return (rest == 0).then_some(cur);
                }
            }
        }
        None
    }

    /// Whether byte `offset` of a value of type `ty` lies inside a record with no name
    /// (what clang emits for a lambda's closure, whose members are its captures).
    pub(crate) fn in_unnamed_record(&self, ty: DiTypeId, offset: u64) -> bool {
        let mut rest = offset;
        let mut cur = ty;
        for _ in 0..64 {
            match self.ty(cur) {
                Some(DiType::Record { name, members, .. }) => {
                    if name.is_empty() {
                        return true;
                    }
                    let Some(m) = members.iter().rev().find(|m| {
                        m.offset <= rest && rest < m.offset + self.size(m.ty).unwrap_or(1).max(1)
                    }) else {
                        return false;
                    };
                    rest -= m.offset;
                    cur = m.ty;
                }
                Some(DiType::Array { elem, stride, .. }) => {
                    rest %= (*stride).max(1);
                    cur = *elem;
                }
                _ => return false,
            }
        }
        false
    }

    /// How the scalar of `bytes` bytes at `offset` inside a variable of type `ty` reads:
    /// its leaf's encoding when the access covers that leaf exactly.
    pub(crate) fn encoding_at(&self, ty: DiTypeId, offset: u64, bytes: u32) -> Option<Encoding> {
        match self.ty(self.leaf_type(ty, offset)?)? {
            DiType::Scalar { size, encoding } if *size == u64::from(bytes) => Some(*encoding),
            _ => None,
        }
    }

    /// The name of a record type, for `node#3`.
    pub(crate) fn record_name(&self, ty: DiTypeId) -> Option<&str> {
        match self.ty(ty)? {
            DiType::Record { name, .. } if !name.is_empty() => Some(name),
            _ => None,
        }
    }
}

/// Identifiers reserved for the implementation (C11 7.1.3): `__x`, `_X`.
pub(crate) fn is_reserved(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() >= 2 && b[0] == b'_' && (b[1] == b'_' || b[1].is_ascii_uppercase())
}

/// A source path's file name, as messages show it.
pub(crate) fn short(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Headers of the C and C++ libraries and the compiler, as opposed to the user's own
/// files: steps there are shown at the user's line that led to them.
pub fn is_system_header(path: &str) -> bool {
    const SYSTEM_DIRS: &[&str] = &["/usr/include/", "/usr/lib/", "/usr/local/include/", "/lib/"];
    SYSTEM_DIRS.iter().any(|d| path.starts_with(d)) || path.contains("/include/c++/")
}

/// A function's name as its author wrote it: C++ symbols demangled without parameters
/// (`std::thread::join`), C names unchanged.
pub(crate) fn display_name(symbol: &str) -> String {
    match symbol {
        "_Znwm" | "_Znam" => return "operator new".into(),
        "_ZdlPv" | "_ZdlPvm" | "_ZdaPv" | "_ZdaPvm" => return "operator delete".into(),
        _ => {}
    }
    if !symbol.starts_with("_Z") {
        return symbol.to_owned();
    }
    let options = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle_with_options(&options).ok())
        .unwrap_or_else(|| symbol.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_headers_are_system_headers_and_the_users_files_are_not() {
        assert!(is_system_header("/usr/include/c++/12/bits/atomic_base.h"));
        assert!(is_system_header(
            "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/thread"
        ));
        assert!(is_system_header(
            "/usr/include/x86_64-linux-gnu/bits/pthreadtypes.h"
        ));
        assert!(!is_system_header("/home/me/ring/csrc/ring.c"));
        assert!(!is_system_header("tso-tests/fifo.c"));
    }

    #[test]
    fn cxx_names_are_demangled_without_parameters() {
        assert_eq!(
            display_name("_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE"),
            "std::thread::_M_start_thread"
        );
        assert_eq!(display_name("worker"), "worker");
        assert_eq!(display_name("_Znwm"), "operator new");
    }

    /// struct peterson_lock { int interested[2]; int turn; } and a pointer to it.
    fn peterson() -> (DebugInfo, DiTypeId) {
        let mut d = DebugInfo::default();
        d.types.push(DiType::Scalar {
            size: 4,
            encoding: Encoding::Signed,
        }); // 0: int
        d.types.push(DiType::Array {
            elem: 0,
            stride: 4,
            count: 2,
        }); // 1: int[2]
        d.types.push(DiType::Record {
            name: "peterson_lock".into(),
            size: 12,
            members: vec![
                DiMember {
                    name: "interested".into(),
                    offset: 0,
                    ty: 1,
                },
                DiMember {
                    name: "turn".into(),
                    offset: 8,
                    ty: 0,
                },
            ],
        }); // 2
        (d, 2)
    }

    #[test]
    fn fields_and_elements_are_named_down_to_the_scalar() {
        let (d, t) = peterson();
        assert_eq!(d.path("lock", Some(t), 0, true), "lock.interested[0]");
        assert_eq!(d.path("lock", Some(t), 4, true), "lock.interested[1]");
        assert_eq!(d.path("lock", Some(t), 8, true), "lock.turn");
    }

    #[test]
    fn addresses_stop_where_the_offset_is_reached() {
        let (d, t) = peterson();
        assert_eq!(d.path("lock", Some(t), 0, false), "lock");
        assert_eq!(d.path("lock", Some(t), 4, false), "lock.interested[1]");
    }

    #[test]
    fn the_librarys_own_fields_are_not_shown() {
        let mut d = DebugInfo::default();
        d.types.push(DiType::Scalar {
            size: 8,
            encoding: Encoding::Signed,
        }); // 0
        d.types.push(DiType::Record {
            name: "__atomic_base<int>".into(),
            size: 8,
            members: vec![DiMember {
                name: "_M_i".into(),
                offset: 0,
                ty: 0,
            }],
        }); // 1: std::atomic<long>
        d.types.push(DiType::Record {
            name: "queue".into(),
            size: 16,
            members: vec![
                DiMember {
                    name: "head".into(),
                    offset: 0,
                    ty: 1,
                },
                DiMember {
                    name: "tail".into(),
                    offset: 8,
                    ty: 1,
                },
            ],
        }); // 2
        assert_eq!(d.path("q", Some(2), 8, true), "q.tail");
        assert_eq!(d.path("top", Some(1), 0, true), "top");
    }

    #[test]
    fn what_the_type_cannot_explain_stays_an_offset() {
        let (d, t) = peterson();
        assert_eq!(d.path("lock", Some(t), 6, true), "lock.interested[1]+2");
        assert_eq!(d.path("lock", Some(t), 40, true), "lock+40");
        assert_eq!(d.path("x", None, 8, true), "x+8");
    }

    #[test]
    fn values_read_in_their_declared_encoding() {
        assert_eq!(Encoding::Unsigned.show(0xffff_ffff, 4), "4294967295");
        assert_eq!(Encoding::Signed.show(0xffff_ffff, 4), "-1");
        assert_eq!(Encoding::Unknown.show(0xff, 1), "-1");
        assert_eq!(Encoding::Boolean.show(1, 1), "true");
        assert_eq!(Encoding::Boolean.show(0, 1), "false");
        assert_eq!(Encoding::Boolean.show(2, 1), "2");
        assert_eq!(Encoding::Float.show(0.5f32.to_bits().into(), 4), "0.5");
        assert_eq!(Encoding::Float.show((-2.25f64).to_bits(), 8), "-2.25");
        assert_eq!(Encoding::Unsigned.show(u64::MAX, 8), u64::MAX.to_string());
        let (d, t) = peterson();
        assert_eq!(d.encoding_at(t, 8, 4), Some(Encoding::Signed));
        // A part of the int, or more than it: the type does not say.
        assert_eq!(d.encoding_at(t, 8, 2), None);
        assert_eq!(d.encoding_at(t, 0, 8), None);
    }

    #[test]
    fn a_closure_inside_a_library_record_is_found() {
        let (mut d, t) = peterson();
        d.types.push(DiType::Record {
            name: "".into(),
            size: 12,
            members: vec![DiMember {
                name: "lock".into(),
                offset: 0,
                ty: t,
            }],
        }); // 3: [&lock] { ... }
        d.types.push(DiType::Record {
            name: "_State_impl<...>".into(),
            size: 20,
            members: vec![DiMember {
                name: "_M_func".into(),
                offset: 8,
                ty: 3,
            }],
        }); // 4
        assert!(d.in_unnamed_record(4, 12));
        assert!(!d.in_unnamed_record(4, 0));
        assert!(!d.in_unnamed_record(t, 4));
    }

    #[test]
    fn leaf_types_follow_members_and_elements() {
        let (d, t) = peterson();
        assert_eq!(d.leaf_type(t, 4), Some(0));
        assert_eq!(d.leaf_type(t, 2), None);
    }
}
