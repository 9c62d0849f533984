//! Converting register values to and from memory bytes, following the data layout
//! computed at load time.

use crate::ir::{Ty, TyId, TypeTable};
use crate::value::Val;
use std::sync::Arc;

/// Write `val` of type `ty` into `out` (exactly `types.size(ty)` bytes); pointer
/// starts (relative to `out`) are pushed to `ptrs` shifted by `base`.
pub(crate) fn encode(
    types: &TypeTable,
    ty: TyId,
    val: &Val,
    out: &mut [u8],
    base: u32,
    ptrs: &mut Vec<u32>,
) {
    match types.get(ty) {
        Ty::Int(bits) if *bits > 128 => {
            out.copy_from_slice(&crate::wide::to_bytes(
                &crate::wide::of(val, *bits),
                out.len(),
            ));
        }
        Ty::Int(_) | Ty::Ptr | Ty::F32 | Ty::F64 => {
            let n = out.len().min(16);
            let bits = val.bits().to_le_bytes();
            out[..n].copy_from_slice(&bits[..n]);
            // Each lane holding a pointer marks a pointer start, if the value's bytes
            // hold all 8 of its bytes.
            let lanes = val.ptr_lanes();
            for i in 0..2u32 {
                if lanes >> i & 1 != 0 && out.len() >= 8 * (i as usize + 1) {
                    ptrs.push(base + 8 * i);
                }
            }
        }
        Ty::Struct { fields, .. } => {
            let lanes = val.lanes();
            for (i, (off, fty)) in fields.iter().enumerate() {
                let sz = types.size(*fty) as usize;
                let off = *off as usize;
                if let Some(v) = lanes.get(i) {
                    encode(
                        types,
                        *fty,
                        v,
                        &mut out[off..off + sz],
                        base + off as u32,
                        ptrs,
                    );
                }
            }
        }
        Ty::Array { elem, len, stride } => {
            let lanes = val.lanes();
            let sz = types.size(*elem) as usize;
            for i in 0..*len as usize {
                let off = i * *stride as usize;
                if let Some(v) = lanes.get(i) {
                    encode(
                        types,
                        *elem,
                        v,
                        &mut out[off..off + sz],
                        base + off as u32,
                        ptrs,
                    );
                }
            }
        }
        Ty::Vector { elem, len } => {
            let lanes = val.lanes();
            let bits = types.int_bits(*elem);
            if bits == 1 {
                // <N x i1> is bit-packed in memory.
                for b in out.iter_mut() {
                    *b = 0;
                }
                for i in 0..*len as usize {
                    if lanes.get(i).is_some_and(|v| v.is_true()) {
                        out[i / 8] |= 1 << (i % 8);
                    }
                }
                return;
            }
            let sz = types.size(*elem) as usize;
            for i in 0..*len as usize {
                if let Some(v) = lanes.get(i) {
                    encode(
                        types,
                        *elem,
                        v,
                        &mut out[i * sz..(i + 1) * sz],
                        base + (i * sz) as u32,
                        ptrs,
                    );
                }
            }
        }
        Ty::Void | Ty::Other(_) => {}
    }
}

/// Read a value of type `ty` from `bytes`; `is_ptr(rel)` says whether a pointer with
/// provenance starts at that offset.
pub(crate) fn decode(
    types: &TypeTable,
    ty: TyId,
    bytes: &[u8],
    base: u32,
    is_ptr: &dyn Fn(u32) -> bool,
) -> Val {
    match types.get(ty) {
        Ty::Int(bits) if *bits > 128 => {
            crate::wide::val(crate::wide::from_bytes(bytes, *bits), *bits)
        }
        Ty::Int(bits) => {
            let mut buf = [0u8; 16];
            let n = bytes.len().min(16);
            buf[..n].copy_from_slice(&bytes[..n]);
            let v = u128::from_le_bytes(buf) & crate::value::mask(*bits);
            if *bits == 64 && is_ptr(base) {
                Val::Ptr(v as u64)
            } else if *bits > 64 {
                // A wider integer keeps the pointers of the lanes it holds whole.
                let lanes = is_ptr(base) as u8 | ((*bits == 128 && is_ptr(base + 8)) as u8) << 1;
                Val::with_ptr_lanes(v, lanes)
            } else {
                Val::Int(v)
            }
        }
        Ty::Ptr => {
            let mut buf = [0u8; 8];
            buf.copy_from_slice(&bytes[..8]);
            let v = u64::from_le_bytes(buf);
            if is_ptr(base) {
                Val::Ptr(v)
            } else {
                Val::Int(v as u128)
            }
        }
        Ty::F32 => Val::F32(u32::from_le_bytes(bytes[..4].try_into().unwrap_or([0; 4]))),
        Ty::F64 => Val::F64(u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))),
        Ty::Struct { fields, .. } => {
            let v: Vec<Val> = fields
                .iter()
                .map(|(off, fty)| {
                    let sz = types.size(*fty) as usize;
                    let off = *off as usize;
                    decode(
                        types,
                        *fty,
                        &bytes[off..off + sz],
                        base + off as u32,
                        is_ptr,
                    )
                })
                .collect();
            Val::Agg(Arc::from(v))
        }
        Ty::Array { elem, len, stride } => {
            let sz = types.size(*elem) as usize;
            let v: Vec<Val> = (0..*len as usize)
                .map(|i| {
                    let off = i * *stride as usize;
                    decode(
                        types,
                        *elem,
                        &bytes[off..off + sz],
                        base + off as u32,
                        is_ptr,
                    )
                })
                .collect();
            Val::Agg(Arc::from(v))
        }
        Ty::Vector { elem, len } => {
            if types.int_bits(*elem) == 1 {
                let v: Vec<Val> = (0..*len as usize)
                    .map(|i| Val::bool(bytes[i / 8] & (1 << (i % 8)) != 0))
                    .collect();
                return Val::Agg(Arc::from(v));
            }
            let sz = types.size(*elem) as usize;
            let v: Vec<Val> = (0..*len as usize)
                .map(|i| {
                    decode(
                        types,
                        *elem,
                        &bytes[i * sz..(i + 1) * sz],
                        base + (i * sz) as u32,
                        is_ptr,
                    )
                })
                .collect();
            Val::Agg(Arc::from(v))
        }
        Ty::Void | Ty::Other(_) => Val::Int(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::make_ptr;

    struct Types {
        t: TypeTable,
        i8: TyId,
        i32: TyId,
        i64: TyId,
        ptr: TyId,
        f64: TyId,
    }

    fn types() -> Types {
        let mut t = TypeTable::default();
        let i8 = t.intern(Ty::Int(8), 1);
        let i32 = t.intern(Ty::Int(32), 4);
        let i64 = t.intern(Ty::Int(64), 8);
        let ptr = t.intern(Ty::Ptr, 8);
        let f64 = t.intern(Ty::F64, 8);
        Types {
            t,
            i8,
            i32,
            i64,
            ptr,
            f64,
        }
    }

    /// Encode then decode, returning the bytes, pointer offsets and decoded value.
    fn round_trip(t: &TypeTable, ty: TyId, v: &Val) -> (Vec<u8>, Vec<u32>, Val) {
        let mut bytes = vec![0xAA; t.size(ty) as usize];
        let mut ptrs = Vec::new();
        encode(t, ty, v, &mut bytes, 0, &mut ptrs);
        let back = decode(t, ty, &bytes, 0, &|o| ptrs.contains(&o));
        (bytes, ptrs, back)
    }

    fn agg(v: Vec<Val>) -> Val {
        Val::Agg(Arc::from(v))
    }

    #[test]
    fn struct_with_padding_and_pointers_round_trips() {
        let mut ty = types();
        // struct { i8 tag; ptr p; i32 n; double d; ptr q } with C layout.
        let s = ty.t.intern(
            Ty::Struct {
                fields: Box::new([
                    (0, ty.i8),
                    (8, ty.ptr),
                    (16, ty.i32),
                    (24, ty.f64),
                    (32, ty.ptr),
                ]),
                size: 40,
            },
            40,
        );
        let v = agg(vec![
            Val::Int(7),
            Val::Ptr(make_ptr(3, 16)),
            Val::Int(0xdead_beef),
            Val::F64(2.5f64.to_bits()),
            Val::Ptr(make_ptr(9, 0)),
        ]);
        let (bytes, ptrs, back) = round_trip(&ty.t, s, &v);
        assert_eq!(ptrs, vec![8, 32]);
        assert_eq!(bytes[0], 7);
        assert_eq!(&bytes[8..16], &make_ptr(3, 16).to_le_bytes());
        assert_eq!(&bytes[16..20], &0xdead_beefu32.to_le_bytes());
        assert_eq!(back, v);
    }

    #[test]
    fn integers_without_provenance_stay_integers() {
        let ty = types();
        let (_, ptrs, back) = round_trip(&ty.t, ty.i64, &Val::Int(make_ptr(3, 4) as u128));
        assert!(ptrs.is_empty());
        assert_eq!(back, Val::Int(make_ptr(3, 4) as u128));
        // A pointer stored through an i64 keeps its provenance.
        let (_, ptrs, back) = round_trip(&ty.t, ty.i64, &Val::Ptr(make_ptr(5, 0)));
        assert_eq!(ptrs, vec![0]);
        assert_eq!(back, Val::Ptr(make_ptr(5, 0)));
        // Narrow integers are masked to their width.
        let (bytes, _, back) = round_trip(&ty.t, ty.i32, &Val::Int(0x1_2345_6789));
        assert_eq!(bytes, 0x2345_6789u32.to_le_bytes());
        assert_eq!(back, Val::Int(0x2345_6789));
    }

    #[test]
    fn arrays_of_structs_and_nested_offsets() {
        let mut ty = types();
        let pair = ty.t.intern(
            Ty::Struct {
                fields: Box::new([(0, ty.i32), (8, ty.ptr)]),
                size: 16,
            },
            16,
        );
        let arr = ty.t.intern(
            Ty::Array {
                elem: pair,
                len: 3,
                stride: 16,
            },
            48,
        );
        let v = agg((0..3)
            .map(|k| {
                agg(vec![
                    Val::Int(k),
                    Val::Ptr(make_ptr(10 + k as u32, 4 * k as u32)),
                ])
            })
            .collect());
        let (bytes, ptrs, back) = round_trip(&ty.t, arr, &v);
        assert_eq!(ptrs, vec![8, 24, 40]);
        assert_eq!(&bytes[40..48], &make_ptr(12, 8).to_le_bytes());
        assert_eq!(back, v);
        // Decoding with no provenance anywhere yields plain integers.
        let plain = decode(&ty.t, arr, &bytes, 0, &|_| false);
        assert_eq!(
            plain.lanes()[1].lanes()[1],
            Val::Int(make_ptr(11, 4) as u128)
        );
    }

    #[test]
    fn vectors_round_trip_and_i1_vectors_are_bit_packed() {
        let mut ty = types();
        let v4 = ty.t.intern(
            Ty::Vector {
                elem: ty.i32,
                len: 4,
            },
            16,
        );
        let v = agg(vec![
            Val::Int(1),
            Val::Int(0xffff_ffff),
            Val::Int(3),
            Val::Int(0x8000_0000),
        ]);
        let (bytes, _, back) = round_trip(&ty.t, v4, &v);
        assert_eq!(&bytes[4..8], &[0xff; 4]);
        assert_eq!(back, v);
        let i1 = ty.t.intern(Ty::Int(1), 1);
        let m8 = ty.t.intern(Ty::Vector { elem: i1, len: 8 }, 1);
        let bits: Vec<Val> = [1, 0, 1, 1, 0, 0, 0, 1]
            .iter()
            .map(|&b| Val::Int(b))
            .collect();
        let (bytes, _, back) = round_trip(&ty.t, m8, &agg(bits.clone()));
        assert_eq!(bytes, vec![0b1000_1101]);
        assert_eq!(back, agg(bits));
        let vp = ty.t.intern(
            Ty::Vector {
                elem: ty.ptr,
                len: 2,
            },
            16,
        );
        let v = agg(vec![Val::Ptr(make_ptr(4, 0)), Val::Ptr(make_ptr(6, 8))]);
        let (_, ptrs, back) = round_trip(&ty.t, vp, &v);
        assert_eq!(ptrs, vec![0, 8]);
        assert_eq!(back, v);
    }

    #[test]
    fn pointer_offsets_are_shifted_by_base() {
        let ty = types();
        let mut bytes = vec![0; 8];
        let mut ptrs = Vec::new();
        encode(
            &ty.t,
            ty.ptr,
            &Val::Ptr(make_ptr(2, 0)),
            &mut bytes,
            24,
            &mut ptrs,
        );
        assert_eq!(ptrs, vec![24]);
        assert_eq!(
            decode(&ty.t, ty.ptr, &bytes, 24, &|o| o == 24),
            Val::Ptr(make_ptr(2, 0))
        );
        assert_eq!(
            decode(&ty.t, ty.ptr, &bytes, 0, &|o| o == 24),
            Val::Int(make_ptr(2, 0) as u128)
        );
    }

    /// Memory keeps a pointer start whatever the width of the access: a 16-byte
    /// `{ ptr, i64 }` stored as a struct reads back as an `i128` with the pointer in its
    /// lane, and an `i128` holding a pointer in either lane stores pointer starts that a
    /// struct or pointer load finds.
    #[test]
    fn pointers_keep_provenance_through_accesses_of_any_width() {
        let mut ty = types();
        let i128 = ty.t.intern(Ty::Int(128), 16);
        let i96 = ty.t.intern(Ty::Int(96), 16);
        let head = |first, second| Ty::Struct {
            fields: Box::new([(0, first), (8, second)]),
            size: 16,
        };
        let (ptr_tag, tag_ptr) = (
            ty.t.intern(head(ty.ptr, ty.i64), 16),
            ty.t.intern(head(ty.i64, ty.ptr), 16),
        );
        let p = make_ptr(6, 8);
        for (s, lane) in [(ptr_tag, 0u32), (tag_ptr, 1)] {
            let fields = if lane == 0 {
                vec![Val::Ptr(p), Val::Int(3)]
            } else {
                vec![Val::Int(3), Val::Ptr(p)]
            };
            let mut bytes = vec![0; 16];
            let mut ptrs = Vec::new();
            encode(&ty.t, s, &agg(fields.clone()), &mut bytes, 0, &mut ptrs);
            assert_eq!(ptrs, vec![8 * lane]);
            let wide = decode(&ty.t, i128, &bytes, 0, &|o| ptrs.contains(&o));
            let want = (p as u128) << (64 * lane) | 3u128 << (64 * (1 - lane));
            assert_eq!(wide, Val::PtrLanes(want, 1 << lane));
            // And back: the i128 stored, the struct loaded.
            let (_, back_ptrs, _) = round_trip(&ty.t, i128, &wide);
            assert_eq!(back_ptrs, vec![8 * lane]);
            let back = decode(&ty.t, s, &bytes, 0, &|o| back_ptrs.contains(&o));
            assert_eq!(back, agg(fields));
            // An i96 holds lane 1 only in part: no pointer there.
            let narrow = decode(&ty.t, i96, &bytes, 0, &|o| ptrs.contains(&o));
            assert_eq!(narrow.ptr_lanes(), if lane == 0 { 1 } else { 0 });
        }
        // A pointer zero-extended to i128 (ptrtoint, zext) stores as a pointer start.
        let (bytes, ptrs, back) = round_trip(&ty.t, i128, &Val::Ptr(p));
        assert_eq!((ptrs, back), (vec![0], Val::Ptr(p)));
        assert_eq!(
            decode(&ty.t, ty.ptr, &bytes[..8], 0, &|o| o == 0),
            Val::Ptr(p)
        );
    }
}
