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
    pub(crate) fn from_bytes(data: Vec<u8>) -> Fragment {
        Fragment {
            data,
            ptrs: Vec::new(),
            undef: Vec::new(),
        }
    }
    /// The pointer values this fragment holds.
    pub(crate) fn pointers(&self) -> impl Iterator<Item = u64> + '_ {
        self.ptrs.iter().map(|&o| super::read_u64(&self.data, o))
    }
}
