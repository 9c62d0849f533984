//! A run of bytes with the pointer provenance it carries: what natives and the TSO
//! runtime move between memory and store buffers.

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fragment {
    pub data: Vec<u8>,
    /// Offsets (relative to the start) at which an 8-byte pointer with provenance starts.
    pub ptrs: Vec<u32>,
}

impl Fragment {
    pub fn from_bytes(data: Vec<u8>) -> Fragment {
        Fragment {
            data,
            ptrs: Vec::new(),
        }
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// The pointer values this fragment holds.
    pub fn pointers(&self) -> impl Iterator<Item = u64> + '_ {
        self.ptrs.iter().map(|&o| super::read_u64(&self.data, o))
    }
    /// Rewrite every pointer (used when states are canonicalised).
    pub fn map_pointers(&mut self, mut f: impl FnMut(u64) -> u64) {
        for &o in &self.ptrs {
            let v = f(super::read_u64(&self.data, o));
            self.data[o as usize..o as usize + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
}
