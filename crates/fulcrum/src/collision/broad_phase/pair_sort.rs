//! Sorting the pair list: a least-significant-digit radix sort of packed keys.
//!
//! A pair `(a, b)` packs into the integer key `k = a · 2^bits_b + b`, where `bits_b` is the
//! bit length of the largest `b` in the list; then `k` orders exactly as `(a, b)` does
//! lexicographically. With `bits` = bits_a + bits_b key bits in all, the keys are sorted
//! by `passes = ceil(bits / max_digit_bits)` stable counting-sort passes over digits of
//! `ceil(bits / passes)` bits, lowest digit first (each pass keeps the order of equal
//! digits, so after the last pass the keys are ordered by all digits).
//!
//! Cost: O(passes · (n + 2^digit_bits)), so a digit has at most log2(n) bits (a histogram
//! no longer than the list) and at most [`MAX_DIGIT_BITS`]. On the `balls` bench scene
//! (4,000 colliders: 12-bit users, 24-bit keys, two passes of 12 bits; about 10,000 pairs
//! a step) this took about 80 instructions per pair (callgrind), `sort_unstable` plus
//! `dedup` about 250.

/// Largest digit, bits: a 4,096-entry histogram (16 KiB) stays in the first-level cache.
const MAX_DIGIT_BITS: u32 = 12;

/// Lists shorter than this are sorted by comparison (no histogram to clear).
const RADIX_MIN_LEN: usize = 256;

/// Reusable buffers for [`sort_and_dedup`]; no allocation once they have grown to the
/// longest list sorted.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairSortScratch {
    keys: Vec<u64>,
    spare: Vec<u64>,
    counts: Vec<u32>,
}

/// Sorts `pairs` in increasing lexicographic order and removes repeated pairs. The result
/// is the same as `sort_unstable` followed by `dedup`.
pub(crate) fn sort_and_dedup(pairs: &mut Vec<(u32, u32)>, scratch: &mut PairSortScratch) {
    if pairs.len() < RADIX_MIN_LEN {
        pairs.sort_unstable();
        pairs.dedup();
        return;
    }
    let (max_a, max_b) = pairs.iter().fold((0, 0), |(a, b), p| (p.0.max(a), p.1.max(b)));
    let bits_b = u32::BITS - max_b.leading_zeros();
    let bits = (u32::BITS - max_a.leading_zeros()) + bits_b;
    scratch.keys.clear();
    scratch.keys.extend(pairs.iter().map(|&(a, b)| (u64::from(a) << bits_b) | u64::from(b)));
    radix_sort(scratch, bits);
    pairs.clear();
    let mask_b = (1u64 << bits_b) - 1;
    let mut last = None;
    for &key in &scratch.keys {
        if last != Some(key) {
            pairs.push(((key >> bits_b) as u32, (key & mask_b) as u32));
            last = Some(key);
        }
    }
}

/// Sorts `scratch.keys`, all below 2^`bits`, in increasing order (stable passes, lowest
/// digit first; see the module docs).
fn radix_sort(scratch: &mut PairSortScratch, bits: u32) {
    if bits == 0 {
        return;
    }
    let len_bits = usize::BITS - scratch.keys.len().leading_zeros();
    let passes = bits.div_ceil(len_bits.clamp(8, MAX_DIGIT_BITS));
    let digit_bits = bits.div_ceil(passes);
    let buckets = 1usize << digit_bits;
    let mask = (buckets - 1) as u64;
    let PairSortScratch { keys, spare, counts } = scratch;
    spare.resize(keys.len(), 0);
    for pass in 0..passes {
        let shift = pass * digit_bits;
        let digit = |key: u64| ((key >> shift) & mask) as usize;
        // counts[d] becomes the number of keys with a smaller digit: where digit d starts.
        counts.clear();
        counts.resize(buckets, 0);
        for &key in keys.iter() {
            counts[digit(key)] += 1;
        }
        let mut start = 0;
        for count in counts.iter_mut() {
            (*count, start) = (start, start + *count);
        }
        for &key in keys.iter() {
            let slot = &mut counts[digit(key)];
            spare[*slot as usize] = key;
            *slot += 1;
        }
        std::mem::swap(keys, spare);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fixed-seed xorshift generator.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> u32 {
            (self.next() % n) as u32
        }
    }

    /// Random lists of every size class (comparison path, one to several radix passes,
    /// users up to u32::MAX, many repeats) sort exactly like `sort_unstable` + `dedup`.
    #[test]
    fn radix_sort_matches_comparison_sort() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let mut scratch = PairSortScratch::default();
        let cases: [(usize, u64); 7] =
            [(0, 10), (100, 50), (300, 1), (1000, 16), (5000, 4001), (20_000, 1 << 20), (3000, 1 << 32)];
        for (len, users) in cases {
            let mut pairs: Vec<(u32, u32)> = (0..len)
                .map(|_| {
                    let (x, y) = (rng.below(users), rng.below(users));
                    (x.min(y), x.max(y))
                })
                .collect();
            let mut expected = pairs.clone();
            expected.sort_unstable();
            expected.dedup();
            sort_and_dedup(&mut pairs, &mut scratch);
            assert_eq!(pairs, expected, "{len} pairs of users below {users}");
        }
    }

    /// Keys needing every bit (a = b = u32::MAX: 64-bit keys, the most passes) and lists where
    /// every key is zero (no pass at all) come out right.
    #[test]
    fn radix_sort_extreme_keys() {
        let mut scratch = PairSortScratch::default();
        let mut pairs: Vec<(u32, u32)> =
            (0..600u32).map(|i| if i % 3 == 0 { (u32::MAX, u32::MAX) } else { (i, u32::MAX - i) }).collect();
        let mut expected = pairs.clone();
        expected.sort_unstable();
        expected.dedup();
        sort_and_dedup(&mut pairs, &mut scratch);
        assert_eq!(pairs, expected);

        let mut zeros = vec![(0u32, 0u32); 500];
        sort_and_dedup(&mut zeros, &mut scratch);
        assert_eq!(zeros, vec![(0, 0)]);
    }
}
