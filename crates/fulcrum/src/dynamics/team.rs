//! A team for the step: the world's other workers stay awake between the step's many small
//! parallel loops (above all the solver passes) and take their work from a shared ticket,
//! instead of being handed each loop through the pool.
//!
//! A pass over one colour is a few hundred microseconds of work at most, and a step runs
//! dozens of them with short serial stretches between (the joints outside lanes, the tree
//! solve, the exact contact islands). Through rayon every loop is a fork and a join, and a
//! worker idle for some tens of microseconds goes to sleep in the kernel, to be woken by a
//! system call at the next loop: on the 2,000-body terrain scene with two threads, 9% of the
//! time was spent in the scheduler and the solver's passes took longer than with one thread.
//! Box3D's solver keeps its workers spinning through its stages for the same reason.
//!
//! The protocol. The calling thread publishes a job (a function of a chunk index) and then
//! the ticket `epoch | chunks | next`; every member, the caller included, claims chunks by
//! advancing `next` with a compare-and-swap that also checks the epoch, runs the chunk, and
//! counts it in `done`. The caller returns once `done` reaches `chunks`, so the job, which
//! borrows from its stack, outlives every call of it, and the next job is published only after
//! the last chunk of this one is counted (a member that read an old ticket fails its swap).
//! Which member runs which chunk does not matter: the chunks of one job never touch the same
//! data (see the callers in `workers.rs`), so the results are the same bits for every count.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// A published job: chunk index → work (its lifetime is erased; see the module docs).
type Job = *const (dyn Fn(usize) + Sync);

/// Bits of the ticket's `front` and `back` fields (the epoch takes the rest).
const INDEX_BITS: u32 = 20;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;

/// Most chunks of one job.
pub(crate) const MAX_CHUNKS: usize = INDEX_MASK as usize;

/// Idle rounds a member spins before it starts yielding its core to other threads.
const SPINS_BEFORE_YIELD: u32 = 4096;

/// The shared state of one team (see the module docs).
pub(crate) struct Team {
    /// epoch << 40 | front << 20 | back: the chunks front..back are left.
    ticket: AtomicU64,
    /// Chunks of the current job run to the end.
    done: AtomicUsize,
    /// The current job; written only by the caller while no chunk is claimed and unfinished.
    job: UnsafeCell<Option<Job>>,
    /// Some chunk panicked (the caller panics in turn once the job is over).
    panicked: AtomicBool,
    /// The members leave.
    stop: AtomicBool,
}

// SAFETY: `job` is written by the calling thread only between jobs (no chunk claimed and
// unfinished, see `run`), and read by a member only after a successful claim of a chunk of
// the job it belongs to; the ticket's release/acquire orders the two.
unsafe impl Sync for Team {}
unsafe impl Send for Team {}

impl Team {
    pub(crate) fn new() -> Team {
        Team {
            ticket: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            job: UnsafeCell::new(None),
            panicked: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        }
    }

    /// Runs `job(k)` for every k in 0..chunks (at most [`MAX_CHUNKS`]) on the members and
    /// this thread; returns when all have run.
    pub(crate) fn run(&self, chunks: usize, job: &(dyn Fn(usize) + Sync)) {
        assert!(chunks <= MAX_CHUNKS, "a team job of {chunks} chunks");
        if chunks == 0 {
            return;
        }
        // SAFETY: only the lifetime is erased; `job` is not called after this returns.
        let erased: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(job) };
        // SAFETY: between jobs (the last one's chunks are all counted), nobody reads `job`.
        unsafe { *self.job.get() = Some(erased) };
        self.done.store(0, Ordering::Relaxed);
        let epoch = (self.ticket.load(Ordering::Relaxed) >> (2 * INDEX_BITS)) + 1;
        let ticket = epoch << (2 * INDEX_BITS) | chunks as u64;
        self.ticket.store(ticket, Ordering::Release);
        while self.claim_and_run(true) {}
        let mut idle = 0;
        while self.done.load(Ordering::Acquire) < chunks {
            back_off(&mut idle);
        }
        // SAFETY: every chunk is counted: no member reads `job` until the next publication.
        unsafe { *self.job.get() = None };
        if self.panicked.swap(false, Ordering::Relaxed) {
            panic!("a worker of the solver's team panicked");
        }
    }

    /// Claims a chunk of the current job, if one is left, and runs it: the lowest one left
    /// from the front, else the highest from the back.
    fn claim_and_run(&self, from_front: bool) -> bool {
        let ticket = self.ticket.load(Ordering::Acquire);
        let (front, back) = ((ticket >> INDEX_BITS) & INDEX_MASK, ticket & INDEX_MASK);
        if front >= back {
            return false;
        }
        let (claimed, chunk) = if from_front { (ticket + (1 << INDEX_BITS), front) } else { (ticket - 1, back - 1) };
        if self.ticket.compare_exchange_weak(ticket, claimed, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            return true;
        }
        // SAFETY: the claim succeeded, so this chunk's job is the published one and stays
        // alive and published until this chunk is counted below.
        let job = unsafe { (*self.job.get()).expect("a claimed chunk has its job") };
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*job)(chunk as usize) }));
        if ran.is_err() {
            self.panicked.store(true, Ordering::Relaxed);
        }
        self.done.fetch_add(1, Ordering::Release);
        true
    }

    /// A member's loop: claims chunks while jobs come, until [`Self::stop`].
    pub(crate) fn help(&self) {
        let mut idle = 0;
        while !self.stop.load(Ordering::Acquire) {
            if self.claim_and_run(false) {
                idle = 0;
            } else {
                back_off(&mut idle);
            }
        }
    }

    /// Sends the members home (a member that has not started yet returns at once).
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// Waits a little: spins first, then yields the core (more workers than cores, or a long
/// serial stretch on the calling thread).
fn back_off(idle: &mut u32) {
    if *idle < SPINS_BEFORE_YIELD {
        *idle += 1;
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Three members and the caller run 1,000 jobs of up to 40 chunks: every chunk of every
    /// job runs exactly once, before its `run` returns.
    #[test]
    fn every_chunk_runs_once_per_job() {
        let team = Arc::new(Team::new());
        let members: Vec<_> = (0..3)
            .map(|_| {
                let team = team.clone();
                std::thread::spawn(move || team.help())
            })
            .collect();
        for round in 0..1000usize {
            let chunks = round % 41;
            let counts: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
            team.run(chunks, &|k| {
                counts[k].fetch_add(1, Ordering::Relaxed);
            });
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1), "round {round}");
        }
        team.stop();
        members.into_iter().for_each(|m| m.join().unwrap());
    }

    /// A chunk that panics makes `run` panic once every other chunk has run, and the team
    /// takes the next job as before.
    #[test]
    fn a_panicking_chunk_panics_the_caller_after_the_others() {
        let team = Arc::new(Team::new());
        let member = {
            let team = team.clone();
            std::thread::spawn(move || team.help())
        };
        let ran = AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            team.run(20, &|k| {
                ran.fetch_add(1, Ordering::Relaxed);
                assert!(k != 7, "chunk 7 fails");
            })
        }));
        assert!(outcome.is_err(), "the panic was lost");
        assert_eq!(ran.load(Ordering::Relaxed), 20);
        let after = AtomicUsize::new(0);
        team.run(10, &|_| {
            after.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(after.load(Ordering::Relaxed), 10);
        team.stop();
        member.join().unwrap();
    }
}
