//! A fast hash for the engine's lookup maps, whose keys are its own ids and grid cells, never an
//! adversary's: the SplitMix64 finaliser over each integer written. SipHash made a large mesh's
//! welding several times slower, and the pair map's lookups for every pair the broad phase
//! finds cost about 70 ns each (balls, 7,700 pairs a step, 0.54 ms on one thread).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// SplitMix64 finaliser state (see the module).
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u32(&mut self, key: u32) {
        self.write_u64(u64::from(key));
    }

    fn write_u64(&mut self, key: u64) {
        let mut x = self.0 ^ key;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.0 = x ^ (x >> 31);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hash map with [`KeyHasher`]; lookups only where results must not depend on the order
/// (it is never iterated for results).
pub(crate) type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;
