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
//! The protocol. The calling thread publishes a job (a function of a chunk index), then cuts
//! its chunks into one contiguous part per worker and publishes each part as a ticket
//! `epoch | next | end`. Every worker, the caller included (worker 0), claims the chunks of
//! its own part by advancing `next` with a compare-and-swap (which also checks the epoch),
//! runs them, then claims what is left of the others' parts in turn; when it finds none left
//! it adds how many it ran to `done`, once. The caller returns once `done` reaches `chunks`,
//! so the job, which borrows from its stack, outlives every call of it, and the next job is
//! published only after the last chunk of this one is counted (a member that read an old
//! ticket fails its swap; a member counts a job's chunks before it can see the next job, which
//! waits for that count).
//!
//! How far a worker that has finished its own part goes depends on the job ([`Stealing`]).
//! Loops whose chunks differ in cost (the narrow phase's pairs) take what is left of any
//! part. The solver's passes over one colour, and the bodies' integration, take only parts
//! whose owner has not started: their chunks cost the same, and each worker's part of them
//! covers the same bodies in every colour (`coloring.rs`), which stay in its core's cache.
//! A stolen chunk moved its bodies to the thief's core, and in the next colour their owner
//! had to fetch them back: on terrain with two workers one chunk in seven was stolen, and a
//! colour took as long as with one worker. A part whose owner has not started is still
//! taken, so a worker the system has descheduled does not hold up the step.
//!
//! Each part's ticket and the count have a cache line of their own. With one ticket for the
//! whole job, every claim was a swap on a line both cores wanted: a job of 78 empty chunks (a
//! colour of large_pyramid) cost 5.3 µs with two workers, 68 ns a chunk. A worker's own part
//! stays in its core until another worker comes to take what is left of it. Each worker
//! also keeps the same part of every colour, so the bodies it writes stay in its core.
//! Which member runs which chunk does not matter: the chunks of one job never touch the same
//! data (see the callers in `workers.rs`), so the results are the same bits for every count.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

pub(crate) use super::workers::Stealing;

/// A published job: chunk index → work (its lifetime is erased; see the module docs).
type Job = *const (dyn Fn(usize) + Sync);

/// Bits of the ticket's `front` and `back` fields (the epoch takes the rest).
const INDEX_BITS: u32 = 20;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;

/// Most chunks of one job.
pub(crate) const MAX_CHUNKS: usize = INDEX_MASK as usize;

/// Idle rounds a member spins before it starts yielding its core to other threads.
const SPINS_BEFORE_YIELD: u32 = 4096;

/// A value on a cache line of its own (64 bytes), so that writes to it do not take the line
/// of its neighbours from the other cores.
#[repr(align(64))]
struct OwnLine<T>(T);

impl<T> std::ops::Deref for OwnLine<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// What one attempt to claim a chunk did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Claim {
    /// Claimed this many chunks and ran them.
    Ran(usize),
    /// None is left in the current job (or there is none).
    Empty,
    /// Another member claimed the chunk first: try again.
    Lost,
}

/// One worker's part of the current job.
struct Part {
    /// epoch << 40 | next << 20 | end: the chunks next..end are left.
    ticket: AtomicU64,
    /// The part's first chunk (written before the ticket that publishes it).
    start: AtomicU64,
}

/// The shared state of one team (see the module docs).
pub(crate) struct Team {
    /// Per worker (the caller first), the part of the current job it starts on.
    parts: Box<[OwnLine<Part>]>,
    /// [`Stealing::Unstarted`] for the current job (written before its parts).
    unstarted_only: AtomicBool,
    /// Chunks of the current job run to the end (each worker adds its own once).
    done: OwnLine<AtomicUsize>,
    /// Jobs published so far (the epoch of the current one; written by the caller only).
    jobs: AtomicU64,
    /// The current job; written only by the caller while no chunk is claimed and unfinished.
    job: UnsafeCell<Option<Job>>,
    /// Some chunk panicked (the caller panics in turn once the job is over).
    panicked: AtomicBool,
    /// The members leave.
    stop: AtomicBool,
}

// SAFETY: `job` is written by the calling thread only between jobs (no chunk claimed and
// unfinished, see `run`), and read by a member only after a successful claim of a chunk of
// the job it belongs to; the parts' release/acquire orders the two.
unsafe impl Sync for Team {}
unsafe impl Send for Team {}

impl Team {
    /// A team of `workers` (the caller and `workers` − 1 members, at least one).
    pub(crate) fn new(workers: usize) -> Team {
        Team {
            parts: (0..workers.max(1))
                .map(|_| OwnLine(Part { ticket: AtomicU64::new(0), start: AtomicU64::new(0) }))
                .collect(),
            unstarted_only: AtomicBool::new(false),
            done: OwnLine(AtomicUsize::new(0)),
            jobs: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            panicked: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        }
    }

    /// Runs `job(k)` for every k in 0..chunks (at most [`MAX_CHUNKS`]) on the members and
    /// this thread, their parts shared out as `stealing` says; returns when all have run.
    pub(crate) fn run(&self, chunks: usize, stealing: Stealing, job: &(dyn Fn(usize) + Sync)) {
        assert!(chunks <= MAX_CHUNKS, "a team job of {chunks} chunks");
        if chunks == 0 {
            return;
        }
        // SAFETY: only the lifetime is erased; `job` is not called after this returns.
        let erased: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(job) };
        // SAFETY: between jobs (the last one's chunks are all counted), nobody reads `job`.
        unsafe { *self.job.get() = Some(erased) };
        self.done.store(0, Ordering::Relaxed);
        let epoch = self.jobs.load(Ordering::Relaxed) + 1;
        self.jobs.store(epoch, Ordering::Relaxed);
        self.unstarted_only.store(stealing == Stealing::Unstarted, Ordering::Relaxed);
        let workers = self.parts.len();
        // Part w starts at ⌈w·chunks/workers⌉: when the chunks do not divide evenly, the
        // first parts take the extra ones, and the caller, first to start, the first of them
        // (the other way round, a member that learns of the job later also had more to do:
        // three chunks split one and two).
        let cut = |w: usize| (w * chunks).div_ceil(workers);
        for (w, part) in self.parts.iter().enumerate() {
            let (start, end) = (cut(w), cut(w + 1));
            part.start.store(start as u64, Ordering::Relaxed);
            let ticket = epoch << (2 * INDEX_BITS) | (start as u64) << INDEX_BITS | end as u64;
            part.ticket.store(ticket, Ordering::Release);
        }
        let ran = self.work(0);
        self.done.fetch_add(ran, Ordering::AcqRel);
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

    /// Worker `w` runs chunks of the current job until none is left: its own part from the
    /// front, then what is left of the others' parts from their backs (so that the owner and
    /// a thief meet only at the last chunk); returns how many it ran.
    fn work(&self, w: usize) -> usize {
        let workers = self.parts.len();
        let mut ran = 0;
        for k in 0..workers {
            let (part, own) = (&self.parts[(w + k) % workers], k == 0);
            loop {
                match self.claim_and_run(part, own) {
                    Claim::Ran(chunks) => ran += chunks,
                    Claim::Lost => {}
                    Claim::Empty => break,
                }
            }
        }
        ran
    }

    /// Claims a chunk of `part`, if one is left, and runs it: the first one left for its
    /// owner (`own`), the last one for the others.
    fn claim_and_run(&self, part: &Part, own: bool) -> Claim {
        let ticket = part.ticket.load(Ordering::Acquire);
        let (next, end) = ((ticket >> INDEX_BITS) & INDEX_MASK, ticket & INDEX_MASK);
        if next >= end {
            return Claim::Empty;
        }
        // (Read after the ticket: both are this job's, or the ticket is stale and the swap
        // below fails.)
        let unstarted_only = self.unstarted_only.load(Ordering::Relaxed);
        if !own && unstarted_only && next != part.start.load(Ordering::Relaxed) {
            return Claim::Empty;
        }
        // The owner of a part nobody may take once started claims all of it at once.
        let (claimed, chunks) = match (own, unstarted_only) {
            (true, true) => (ticket + ((end - next) << INDEX_BITS), next..end),
            (true, false) => (ticket + (1 << INDEX_BITS), next..next + 1),
            (false, _) => (ticket - 1, end - 1..end),
        };
        if part.ticket.compare_exchange_weak(ticket, claimed, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            return Claim::Lost;
        }
        // SAFETY: the claim succeeded, so this job is the published one and stays alive and
        // published until these chunks are counted.
        let job = unsafe { (*self.job.get()).expect("a claimed chunk has its job") };
        let count = chunks.end - chunks.start;
        for chunk in chunks {
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*job)(chunk as usize) }));
            if ran.is_err() {
                self.panicked.store(true, Ordering::Relaxed);
            }
        }
        Claim::Ran(count as usize)
    }

    /// Member `w`'s loop (1 ≤ w < workers): runs chunks while jobs come, until
    /// [`Self::stop`]; counts those of a job in `done` once it finds none left.
    pub(crate) fn help(&self, w: usize) {
        let mut idle = 0;
        while !self.stop.load(Ordering::Acquire) {
            let ran = self.work(w);
            if ran > 0 {
                self.done.fetch_add(ran, Ordering::AcqRel);
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

    /// Three members and the caller run 1,000 jobs of up to 40 chunks, stealing from any part
    /// or from unstarted ones in turn: every chunk of every job runs exactly once, before its
    /// `run` returns.
    #[test]
    fn every_chunk_runs_once_per_job() {
        let team = Arc::new(Team::new(4));
        let members: Vec<_> = (0..3usize)
            .map(|w| {
                let team = team.clone();
                std::thread::spawn(move || team.help(w + 1))
            })
            .collect();
        for round in 0..1000usize {
            let chunks = round % 41;
            let counts: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
            let stealing = if round % 2 == 0 { Stealing::Any } else { Stealing::Unstarted };
            team.run(chunks, stealing, &|k| {
                counts[k].fetch_add(1, Ordering::Relaxed);
            });
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1), "round {round}");
        }
        team.stop();
        members.into_iter().for_each(|m| m.join().unwrap());
    }

    /// Members that never come (descheduled, or gone): the caller takes their unstarted parts
    /// and finishes every job, in either mode.
    #[test]
    fn the_caller_takes_the_parts_of_members_that_never_start() {
        let team = Team::new(3);
        for stealing in [Stealing::Any, Stealing::Unstarted] {
            let counts: Vec<AtomicUsize> = (0..30).map(|_| AtomicUsize::new(0)).collect();
            team.run(30, stealing, &|k| {
                counts[k].fetch_add(1, Ordering::Relaxed);
            });
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1), "{stealing:?}");
        }
    }

    /// With [`Stealing::Unstarted`], a member that has started its part is left to finish it:
    /// the caller, done with its own part, does not take the member's remaining chunks.
    #[test]
    fn a_started_part_is_left_to_its_owner_when_stealing_only_unstarted_parts() {
        let team = Arc::new(Team::new(2));
        // Chunks 0..10 are the caller's part, 10..20 the member's. The member (driven by hand
        // here) starts only once the caller has claimed chunk 0, so it cannot take from the
        // caller's part; the caller's chunk 0 waits until the member has started chunk 10,
        // and chunk 10 waits until the caller's part is done, so the caller, once done,
        // finds the member's part started with nine chunks left.
        let (caller_claimed, member_started, caller_done) =
            (Arc::new(AtomicBool::new(false)), AtomicBool::new(false), AtomicUsize::new(0));
        let member = {
            let (team, caller_claimed) = (team.clone(), caller_claimed.clone());
            std::thread::spawn(move || {
                while !caller_claimed.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
                let ran = team.work(1);
                team.done.fetch_add(ran, Ordering::AcqRel);
                ran
            })
        };
        let ran_by_caller = AtomicUsize::new(0);
        let caller = std::thread::current().id();
        team.run(20, Stealing::Unstarted, &|k| {
            if std::thread::current().id() == caller {
                ran_by_caller.fetch_add(1, Ordering::Relaxed);
            }
            if k == 0 {
                caller_claimed.store(true, Ordering::Release);
                while !member_started.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
            }
            if k == 10 {
                member_started.store(true, Ordering::Release);
                while caller_done.load(Ordering::Acquire) < 10 {
                    std::hint::spin_loop();
                }
            }
            if k < 10 {
                caller_done.fetch_add(1, Ordering::AcqRel);
            }
        });
        assert_eq!(member.join().unwrap(), 10);
        assert_eq!(ran_by_caller.load(Ordering::Relaxed), 10);
    }

    /// A chunk that panics makes `run` panic once every other chunk has run, and the team
    /// takes the next job as before.
    #[test]
    fn a_panicking_chunk_panics_the_caller_after_the_others() {
        let team = Arc::new(Team::new(2));
        let member = {
            let team = team.clone();
            std::thread::spawn(move || team.help(1))
        };
        let ran = AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            team.run(20, Stealing::Any, &|k| {
                ran.fetch_add(1, Ordering::Relaxed);
                assert!(k != 7, "chunk 7 fails");
            })
        }));
        assert!(outcome.is_err(), "the panic was lost");
        assert_eq!(ran.load(Ordering::Relaxed), 20);
        let after = AtomicUsize::new(0);
        team.run(10, Stealing::Any, &|_| {
            after.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(after.load(Ordering::Relaxed), 10);
        team.stop();
        member.join().unwrap();
    }

    /// What one job costs beyond its work, with one member and the caller (as with two
    /// threads): jobs of 1 and 78 empty chunks (a colour of large_pyramid is about 78 chunks).
    #[test]
    #[ignore = "micro-benchmark; run in release with --ignored --nocapture"]
    fn bench_job_overhead() {
        let team = Arc::new(Team::new(2));
        let member = {
            let team = team.clone();
            std::thread::spawn(move || team.help(1))
        };
        for stealing in [Stealing::Any, Stealing::Unstarted] {
            for chunks in [1, 8, 78] {
                let jobs = 20_000;
                let start = std::time::Instant::now();
                for _ in 0..jobs {
                    team.run(chunks, stealing, &|k| {
                        std::hint::black_box(k);
                    });
                }
                let per_job = start.elapsed().as_secs_f64() * 1e6 / jobs as f64;
                eprintln!("{stealing:?}: {chunks} empty chunks: {per_job:.2} us per job");
            }
        }
        team.stop();
        member.join().unwrap();
    }
}
