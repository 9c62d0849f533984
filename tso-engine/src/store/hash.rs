//! A fast 64-bit hash for state chunks (word at a time, multiply-xorshift mixing).
//! Collisions cost only a byte comparison, never correctness.

const K: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline]
fn mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(K).rotate_left(29)
}

pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64 ^ (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h = mix(h, u64::from_le_bytes(buf));
    }
    // final avalanche
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_length_sensitive() {
        assert_eq!(hash_bytes(b"state"), hash_bytes(b"state"));
        assert_ne!(hash_bytes(b""), hash_bytes(&[0]));
        assert_ne!(hash_bytes(&[0; 7]), hash_bytes(&[0; 8]));
        assert_ne!(hash_bytes(&[0; 8]), hash_bytes(&[0; 16]));
        assert_ne!(hash_bytes(b"ab"), hash_bytes(b"ba"));
    }

    #[test]
    fn single_bit_flips_change_about_half_the_bits() {
        let base = [0x5Au8; 24];
        let h0 = hash_bytes(&base);
        let mut total = 0u32;
        for bit in 0..base.len() * 8 {
            let mut b = base;
            b[bit / 8] ^= 1 << (bit % 8);
            let d = (hash_bytes(&b) ^ h0).count_ones();
            assert!(d >= 12, "flipping bit {bit} changed only {d} bits");
            total += d;
        }
        let avg = total as f64 / (base.len() * 8) as f64;
        assert!((26.0..38.0).contains(&avg), "average {avg}");
    }

    #[test]
    fn sequential_keys_spread_over_buckets() {
        // Counters (as states often differ only in a small integer) must fill the low bits
        // that hash tables index with.
        let buckets = 256usize;
        let mut count = vec![0u32; buckets];
        let n = 64 * buckets as u64;
        for i in 0..n {
            count[(hash_bytes(&i.to_le_bytes()) as usize) % buckets] += 1;
        }
        let max = *count.iter().max().unwrap_or(&0);
        let min = *count.iter().min().unwrap_or(&0);
        assert!(max < 110 && min > 25, "bucket loads {min}..{max}");
        let distinct: std::collections::HashSet<u64> =
            (0..n).map(|i| hash_bytes(&i.to_le_bytes())).collect();
        assert_eq!(distinct.len() as u64, n);
    }
}
