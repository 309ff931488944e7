//! Random streams keyed by what they are for, never by thread or position: an order's stream is keyed by
//! (seed, tested name, baseline name, order kind, order index), a bootstrap's by (seed, the observed
//! counts). Keys hash with FNV-1a (stable across platforms and releases) and seed a Xoshiro256++
//! generator, whose output rand guarantees to be reproducible.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};

/// An FNV-1a hash under construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamKey(u64);

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl StreamKey {
    pub fn new(seed: u64, purpose: &str) -> Self {
        StreamKey(FNV_OFFSET).u64(seed).str(purpose)
    }

    pub fn bytes(self, bytes: &[u8]) -> Self {
        let mut hash = self.0;
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(FNV_PRIME);
        }
        StreamKey(hash)
    }

    /// A string followed by 0xFF, which never occurs in UTF-8, so ("ab","c") and ("a","bc") differ.
    pub fn str(self, text: &str) -> Self {
        self.bytes(text.as_bytes()).bytes(&[0xFF])
    }

    pub fn u64(self, value: u64) -> Self {
        self.bytes(&value.to_le_bytes())
    }

    pub fn rng(self) -> Stream {
        Stream(Xoshiro256PlusPlus::seed_from_u64(self.0))
    }
}

/// A seeded generator with the draws the engine needs.
#[derive(Clone)]
pub struct Stream(Xoshiro256PlusPlus);

impl Stream {
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform integer in 0..n (n ≥ 1), unbiased, by Lemire's multiply-and-reject method (a division
    /// only in the rare rejection branch).
    #[inline(always)]
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let mut product = u128::from(self.0.next_u64()) * u128::from(n);
        let mut low = product as u64;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                product = u128::from(self.0.next_u64()) * u128::from(n);
                low = product as u64;
            }
        }
        (product >> 64) as usize
    }

    /// Forward Fisher–Yates on the first `limit` positions: they become a uniform random sample in uniform
    /// random order, and a longer `limit` extends the same prefix (the draws so far do not change).
    pub fn shuffle_prefix<T>(&mut self, items: &mut [T], limit: usize) {
        let n = items.len();
        for i in 0..limit.min(n.saturating_sub(1)) {
            let j = i + self.below(n - i);
            items.swap(i, j);
        }
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_separate_fields() {
        let a = StreamKey::new(1, "order").str("ab").str("c");
        let b = StreamKey::new(1, "order").str("a").str("bc");
        assert_ne!(a, b);
        assert_ne!(StreamKey::new(1, "x"), StreamKey::new(2, "x"));
    }

    #[test]
    fn streams_are_reproducible() {
        let draw = || {
            let mut s = StreamKey::new(7, "t").rng();
            (0..5).map(|_| s.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(), draw());
    }

    #[test]
    fn below_is_in_range_and_covers_all_values() {
        let mut s = StreamKey::new(3, "below").rng();
        let mut seen = [0; 7];
        for _ in 0..7000 {
            seen[s.below(7)] += 1;
        }
        assert!(seen.iter().all(|&c| c > 850 && c < 1150), "{seen:?}");
    }
}
