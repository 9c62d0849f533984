//! The reader of serialised state: little-endian numbers, LEB128 lengths and values.
//! The store decodes states with it (`store/decode.rs`), and race data decodes its own
//! part (`RaceState::decode`).

use crate::value::Val;

/// Reads the bytes of one chunk; every read fails (None) past its end.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    pub(crate) fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(crate) fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
    /// A LEB128 length (`canon::write_len`).
    pub(crate) fn len(&mut self) -> Option<usize> {
        let mut n = 0usize;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            n |= ((b & 0x7f) as usize).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(n);
            }
            shift += 7;
        }
    }
    pub(crate) fn val(&mut self) -> Option<Val> {
        Some(match self.u8()? {
            1 => Val::Int(self.u64()? as u128),
            2 => Val::Int(self.u128()?),
            3 => Val::Ptr(self.u64()?),
            4 => Val::F32(self.u32()?),
            5 => Val::F64(self.u64()?),
            6 => {
                let n = self.len()?;
                let mut l = Vec::with_capacity(n.min(self.bytes.len()));
                for _ in 0..n {
                    l.push(self.val()?);
                }
                Val::Agg(l.into())
            }
            7 => {
                let n = self.len()?;
                let mut l = Vec::with_capacity(n.min(self.bytes.len()));
                for _ in 0..n {
                    l.push(self.u64()?);
                }
                Val::Wide(l.into())
            }
            8 => {
                let lanes = self.u8()?;
                let lo = self.u64()? as u128;
                let hi = self.u64()? as u128;
                Val::PtrLanes(hi << 64 | lo, lanes)
            }
            _ => return None,
        })
    }
    pub(crate) fn opt_val(&mut self) -> Option<Option<Val>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.val()?)),
            _ => None,
        }
    }
    pub(crate) fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}
