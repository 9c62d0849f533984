//! A run of bytes with the pointer provenance it carries: what natives and the TSO
//! runtime move between memory and store buffers.

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fragment {
    pub data: Vec<u8>,
    /// Offsets (relative to the start) at which an 8-byte pointer with provenance starts.
    pub ptrs: Vec<u32>,
    /// Per byte, the bits never written (1 = undefined); empty when every bit is
    /// defined (see `crate::definedness`).
    pub undef: Vec<u8>,
}

impl Fragment {
    pub fn from_bytes(data: Vec<u8>) -> Fragment {
        Fragment {
            data,
            ptrs: Vec::new(),
            undef: Vec::new(),
        }
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// Does any bit of the fragment hold a value never written?
    pub fn has_undefined(&self) -> bool {
        self.undef.iter().any(|&b| b != 0)
    }
    /// The pointer values this fragment holds.
    pub fn pointers(&self) -> impl Iterator<Item = u64> + '_ {
        self.ptrs.iter().map(|&o| super::read_u64(&self.data, o))
    }
}
