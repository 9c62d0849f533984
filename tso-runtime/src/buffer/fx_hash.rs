//! A small, fast, deterministic hasher for the buffers' internal maps (the
//! keys are short integer vectors built by the flush search; SipHash's
//! DoS resistance buys nothing there), and a set of fixed-width `u32` keys
//! stored in one arena so the search does not allocate per visited node.

use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing in the style of Firefox's FxHash.
#[derive(Clone, Copy, Default)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // Fold the well-mixed high bits down: tables index with the low ones.
        self.hash ^ (self.hash >> 29)
    }
}

pub(crate) type FxBuildHasher = BuildHasherDefault<FxHasher>;

pub(crate) fn hash_words(words: &[u32]) -> u64 {
    let mut hasher = FxHasher::default();
    let mut pairs = words.chunks_exact(2);
    for pair in &mut pairs {
        hasher.add(u64::from(pair[0]) | (u64::from(pair[1]) << 32));
    }
    if let [last] = pairs.remainder() {
        hasher.add(u64::from(*last) | (1 << 63));
    }
    hasher.finish()
}

/// A set of `u32` keys that all have the same width, kept in one arena
/// (open addressing, linear probing).
#[derive(Default)]
pub(crate) struct KeySet {
    width: usize,
    arena: Vec<u32>,
    /// 0 = empty, else the key's index + 1.
    slots: Vec<u32>,
    count: usize,
}

impl KeySet {
    /// Empties the set (keeping its memory) for keys of `width` words.
    pub(crate) fn reset(&mut self, width: usize) {
        self.width = width;
        self.arena.clear();
        self.slots.clear();
        self.slots.resize(64, 0);
        self.count = 0;
    }

    /// Inserts `key` (of the set's width); false if it was already present.
    pub(crate) fn insert(&mut self, key: &[u32]) -> bool {
        debug_assert_eq!(key.len(), self.width);
        if (self.count + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = hash_words(key) as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                self.arena.extend_from_slice(key);
                self.count += 1;
                self.slots[i] = self.count as u32;
                return true;
            }
            let k = (slot - 1) as usize;
            if &self.arena[k * self.width..(k + 1) * self.width] == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        self.slots.clear();
        self.slots.resize(size, 0);
        let mask = size - 1;
        for k in 0..self.count {
            let key = &self.arena[k * self.width..(k + 1) * self.width];
            let mut i = hash_words(key) as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = k as u32 + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn key_set_agrees_with_std_set() {
        let mut ours = KeySet::default();
        ours.reset(3);
        let mut std_set = HashSet::new();
        let mut x: u32 = 12345;
        for _ in 0..5000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let key = [x % 7, (x >> 8) % 5, (x >> 16) % 11];
            assert_eq!(ours.insert(&key), std_set.insert(key));
        }
        assert_eq!(ours.count, std_set.len());
    }

    #[test]
    fn fx_hasher_is_deterministic_and_spreads() {
        let a = hash_words(&[1, 2, 3]);
        assert_eq!(a, hash_words(&[1, 2, 3]));
        assert_ne!(a, hash_words(&[1, 2, 4]));
        assert_ne!(hash_words(&[1, 2]), hash_words(&[1, 2, 0]));
    }
}
