//! Reading back the bytes the buffers' `serialize_into` methods write (states rebuilt
//! from the engine's store). Every read is checked: malformed bytes give `None`.

pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A length prefix, refused when it claims more items (of at least `min_size`
    /// bytes each) than bytes remain, so malformed input cannot allocate much.
    pub(crate) fn count(&mut self, min_size: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n.saturating_mul(min_size.max(1)) <= self.bytes.len()).then_some(n)
    }

    pub(crate) fn bool(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}
