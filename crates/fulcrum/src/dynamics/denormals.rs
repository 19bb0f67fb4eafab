//! Denormal numbers flushed to zero while a step runs.
//!
//! A float below 2⁻¹²⁶ in magnitude (a denormal) makes an x86 core finish the instruction
//! in microcode, about a hundred cycles instead of four. Physics meets few denormals that
//! matter (a resting box's sideways spin decays to 10⁻³⁷ rad/s), but where a loop meets
//! them depends on inlining and register choice as much as on the numbers: unrelated changes
//! moved the collider update after the solve from 0.33 to 1.0 ms per step on large_pyramid
//! with the same bits, and flushing took joint_grid's step from 10.6 to 8.5 ms in that build.
//!
//! So every thread that computes a step runs with denormals flushed to zero: the thread
//! that calls `World::step` for the step's duration ([`FlushDenormals`], which restores the
//! caller's mode after), and the world's worker threads for their lifetime
//! ([`flush_denormals_on_this_thread`], from the pool's start handler). Jolt's worker
//! threads do the same. x86-64: MXCSR's flush-to-zero and denormals-are-zero bits;
//! AArch64: FPCR's flush-to-zero bit; elsewhere nothing changes.
//!
//! Results differ from unflushed arithmetic only where a denormal would have been used,
//! values far below anything physical; every worker runs in the same mode, so results stay
//! the same for every thread count.

/// Sets the flush mode on this thread until dropped, then restores the mode it found.
pub(crate) struct FlushDenormals {
    saved: Option<u64>,
}

impl FlushDenormals {
    /// Flushes denormals on this thread until the guard is dropped.
    pub(crate) fn new() -> Self {
        let saved = mode::read();
        if let Some(saved) = saved {
            mode::write(saved | mode::FLUSH_BITS);
        }
        Self { saved }
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        if let Some(saved) = self.saved {
            mode::write(saved);
        }
    }
}

/// Flushes denormals on this thread for good (for the world's own worker threads).
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) fn flush_denormals_on_this_thread() {
    if let Some(current) = mode::read() {
        mode::write(current | mode::FLUSH_BITS);
    }
}

#[cfg(target_arch = "x86_64")]
mod mode {
    /// MXCSR: flush to zero (bit 15) and denormals are zero (bit 6).
    pub(super) const FLUSH_BITS: u64 = (1 << 15) | (1 << 6);

    pub(super) fn read() -> Option<u64> {
        let mut csr: u32 = 0;
        // SAFETY: stores the 32-bit MXCSR into `csr`, which lives for the instruction.
        unsafe { core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags)) };
        Some(u64::from(csr))
    }

    pub(super) fn write(value: u64) {
        let csr = value as u32;
        // SAFETY: loads MXCSR from `csr`; the value is one read from MXCSR with only the
        // flush bits added, which every x86-64 processor accepts.
        unsafe { core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags, readonly)) };
    }
}

#[cfg(target_arch = "aarch64")]
mod mode {
    /// FPCR: flush to zero (bit 24).
    pub(super) const FLUSH_BITS: u64 = 1 << 24;

    pub(super) fn read() -> Option<u64> {
        let fpcr: u64;
        // SAFETY: reads the floating-point control register.
        unsafe { core::arch::asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags)) };
        Some(fpcr)
    }

    pub(super) fn write(value: u64) {
        // SAFETY: writes back a value read from FPCR with only the flush bit added.
        unsafe { core::arch::asm!("msr fpcr, {}", in(reg) value, options(nomem, nostack, preserves_flags)) };
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod mode {
    pub(super) const FLUSH_BITS: u64 = 0;

    pub(super) fn read() -> Option<u64> {
        None
    }

    pub(super) fn write(_: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps the compiler from folding the arithmetic below at compile time.
    fn opaque(x: f32) -> f32 {
        std::hint::black_box(x)
    }

    #[test]
    fn denormals_are_flushed_while_the_guard_lives_and_not_after() {
        let smallest_normal = opaque(f32::MIN_POSITIVE);
        let halved = |x: f32| opaque(x) * opaque(0.5);
        assert!(halved(smallest_normal) > 0.0, "denormals already flushed before the guard");
        {
            let _guard = FlushDenormals::new();
            if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
                assert_eq!(halved(smallest_normal), 0.0, "a denormal result was kept under the guard");
            }
        }
        assert!(halved(smallest_normal) > 0.0, "the guard did not restore the mode");
    }
}
