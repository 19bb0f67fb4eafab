//! The world's worker threads and the two ways the step hands work to them.
//!
//! A world owns a rayon pool of `threads` workers (built at the first step that needs it,
//! rebuilt when the count changes; one thread runs the plain loops with no pool). The whole
//! step runs inside the pool, so the parallel loops below split their work among its workers
//! without crossing threads to start.
//!
//! Results never depend on how the work is split: every item is computed by the same
//! function from the same inputs whichever task runs it, items of one loop never read what
//! another item of the loop writes, and nothing is summed across tasks. So every thread count
//! gives the same bits as one thread.
//!
//! Without the `parallel` feature there is no pool and every loop runs in order on the
//! calling thread.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::solver_body::SolverBody;
#[cfg(feature = "parallel")]
use super::team::{Team, MAX_CHUNKS};

/// How many worker threads step a world, and their pool.
#[derive(Default)]
pub(crate) struct Workers {
    /// Requested count; 0 stands for the default, 1.
    threads: usize,
    #[cfg(feature = "parallel")]
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// Nanoseconds spent in the loops below since the last `take_parallel_ms` (the work that
    /// can be split, whether it was or not).
    parallel_ns: AtomicU64,
    /// The solver passes' team while they run (`team.rs`): the loops below go through it
    /// instead of the pool.
    #[cfg(feature = "parallel")]
    team: Option<std::sync::Arc<Team>>,
}

impl Workers {
    /// The worker count (at least 1).
    pub(crate) fn threads(&self) -> usize {
        self.threads.max(1)
    }

    /// Sets the worker count (at least 1); the pool is rebuilt at the next step.
    pub(crate) fn set_threads(&mut self, threads: usize) {
        if threads != self.threads() {
            self.threads = threads;
            #[cfg(feature = "parallel")]
            {
                self.pool = None;
            }
        }
    }

    /// Whether loops split their work among several threads.
    #[cfg(feature = "parallel")]
    fn parallel(&self) -> bool {
        self.threads() > 1
    }

    /// Runs `op`, a loop whose work can be split among the workers, and adds its wall-clock
    /// time to the parallel time.
    pub(crate) fn timed<R>(&self, op: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let result = op();
        self.parallel_ns.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        result
    }

    /// Milliseconds spent in loops that can be split since the last call; resets the count.
    pub(crate) fn take_parallel_ms(&self) -> f64 {
        self.parallel_ns.swap(0, Ordering::Relaxed) as f64 * 1e-6
    }

    /// Keeps the other workers spinning for the loops that follow (see `team.rs`) until the
    /// returned guard is dropped, which sends them home; nothing with one worker or outside
    /// the pool. Dropping the guard on a panic too keeps them from spinning on for ever (the
    /// loops still run on a team whose members left: the caller then takes every chunk).
    pub(crate) fn begin_team(&mut self) -> TeamGuard {
        #[cfg(feature = "parallel")]
        if let (true, Some(pool)) = (self.parallel(), &self.pool) {
            let team = std::sync::Arc::new(Team::new(self.threads()));
            for w in 1..self.threads() {
                let member = team.clone();
                pool.spawn(move || member.help(w));
            }
            self.team = Some(team.clone());
            return TeamGuard { team: Some(team) };
        }
        TeamGuard {
            #[cfg(feature = "parallel")]
            team: None,
        }
    }

    /// Forgets the team of [`Self::begin_team`] (its guard sends it home).
    pub(crate) fn end_team(&mut self) {
        #[cfg(feature = "parallel")]
        {
            self.team = None;
        }
    }

    /// What runs a step on these workers: the pool (built now if missing), or nothing with
    /// one worker.
    pub(crate) fn runner(&mut self) -> Runner {
        #[cfg(feature = "parallel")]
        {
            if !self.parallel() {
                return Runner { pool: None };
            }
            let threads = self.threads();
            let pool = self.pool.get_or_insert_with(|| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("fulcrum-worker-{i}"))
                    .start_handler(|_| super::denormals::flush_denormals_on_this_thread())
                    .build()
                    .expect("the operating system refused to start the world's worker threads");
                std::sync::Arc::new(pool)
            });
            Runner { pool: Some(pool.clone()) }
        }
        #[cfg(not(feature = "parallel"))]
        Runner {}
    }
}

/// Sends a team home when dropped (see [`Workers::begin_team`]).
pub(crate) struct TeamGuard {
    #[cfg(feature = "parallel")]
    team: Option<std::sync::Arc<Team>>,
}

impl Drop for TeamGuard {
    fn drop(&mut self) {
        #[cfg(feature = "parallel")]
        if let Some(team) = &self.team {
            team.stop();
        }
    }
}

/// Runs a step inside the world's pool (see [`Workers::runner`]).
pub(crate) struct Runner {
    #[cfg(feature = "parallel")]
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

impl Runner {
    /// Runs `op` on a worker of the pool, so the parallel loops inside start without crossing
    /// threads; on this thread without a pool.
    #[cfg(feature = "parallel")]
    pub(crate) fn run<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(op),
            None => op(),
        }
    }

    /// Runs `op` on this thread.
    #[cfg(not(feature = "parallel"))]
    pub(crate) fn run<R>(&self, op: impl FnOnce() -> R) -> R {
        op()
    }
}

/// Which parts of a loop a worker takes once its own part is done (see `team.rs`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Stealing {
    /// Any part with chunks left: for chunks of uneven cost.
    Any,
    /// Only parts whose owner has not claimed a chunk yet: for chunks of even cost whose
    /// data should stay in its owner's cache (see the module docs).
    Unstarted,
}

/// The shape of every loop below: fewer than two tasks' worth of items (`len` against
/// `min_len`) run `serial` on this thread and do not count as parallel time; otherwise the
/// loop is timed as parallel work and runs `parallel` (with rayon's traits in scope) when
/// the world has several workers, `serial` when it has one or without the feature.
macro_rules! split_loop {
    ($workers:expr, $len:expr, $min_len:expr, team: |$team:ident| $on_team:expr, serial: $serial:expr,
     parallel: $parallel:expr $(,)?) => {{
        if $len < 2 * $min_len {
            $serial
        } else {
            $workers.timed(|| {
                #[cfg(feature = "parallel")]
                if let Some($team) = &$workers.team {
                    return $on_team;
                }
                #[cfg(feature = "parallel")]
                if $workers.parallel() {
                    use rayon::prelude::*;
                    return $parallel;
                }
                $serial
            })
        }
    }};
}

/// Calls `f` on every item: in tasks of at least `min_len` items when the world has several
/// workers; on this thread alone, and not counted as parallel time, when there are fewer
/// than two tasks' worth.
pub(crate) fn for_each<T: Send>(workers: &Workers, items: &mut [T], min_len: usize, f: impl Fn(&mut T) + Sync + Send) {
    for_each_indexed_with(workers, items, min_len, Stealing::Any, |_, item| f(item))
}

/// Calls `f` on every item, split as [`for_each`], for items of even cost whose data should
/// stay with the worker that had them in the last such loop (the bodies, and the colours of
/// the solver: see `team.rs`): a worker takes the part of another only if that one has not
/// started.
pub(crate) fn for_each_even<T: Send>(
    workers: &Workers,
    items: &mut [T],
    min_len: usize,
    f: impl Fn(&mut T) + Sync + Send,
) {
    for_each_indexed_with(workers, items, min_len, Stealing::Unstarted, |_, item| f(item))
}

/// Calls `f(index, item)` on every item, split as [`for_each_even`].
pub(crate) fn for_each_indexed_even<T: Send>(
    workers: &Workers,
    items: &mut [T],
    min_len: usize,
    f: impl Fn(usize, &mut T) + Sync + Send,
) {
    for_each_indexed_with(workers, items, min_len, Stealing::Unstarted, f)
}

/// Calls `f(index, item)` on every item, split as [`for_each`].
pub(crate) fn for_each_indexed<T: Send>(
    workers: &Workers,
    items: &mut [T],
    min_len: usize,
    f: impl Fn(usize, &mut T) + Sync + Send,
) {
    for_each_indexed_with(workers, items, min_len, Stealing::Any, f)
}

/// [`for_each_indexed`], its parts shared out as `stealing` says.
#[cfg_attr(not(feature = "parallel"), allow(unused_variables))]
fn for_each_indexed_with<T: Send>(
    workers: &Workers,
    items: &mut [T],
    min_len: usize,
    stealing: Stealing,
    f: impl Fn(usize, &mut T) + Sync + Send,
) {
    split_loop!(workers, items.len(), min_len,
        team: |team| team_for_each(team, items, min_len, stealing, &f),
        serial: items.iter_mut().enumerate().for_each(|(i, item)| f(i, item)),
        parallel: items.par_iter_mut().enumerate().with_min_len(min_len).for_each(|(i, item)| f(i, item)))
}

/// Calls `f` on every pair of an item and its partner in `with` (same length), split as
/// [`for_each_even`] (the bodies with their parameters).
pub(crate) fn for_each_zipped<T: Send, U: Sync>(
    workers: &Workers,
    items: &mut [T],
    with: &[U],
    min_len: usize,
    f: impl Fn(&mut T, &U) + Sync + Send,
) {
    split_loop!(workers, items.len(), min_len,
        team: |team| team_for_each(team, items, min_len, Stealing::Unstarted, |i, item| f(item, &with[i])),
        serial: items.iter_mut().zip(with).for_each(|(item, partner)| f(item, partner)),
        parallel: items.par_iter_mut().zip(with).with_min_len(min_len).for_each(|(item, partner)| f(item, partner)))
}

/// Sets `out` to `f(item)` of every item, in order; split as [`for_each`].
pub(crate) fn map_mut<T: Send, R: Send>(
    workers: &Workers,
    items: &mut [T],
    out: &mut Vec<R>,
    min_len: usize,
    f: impl Fn(&mut T) -> R + Sync + Send,
) {
    out.clear();
    split_loop!(workers, items.len(), min_len,
        team: |team| {
            let shared = SharedItems::new(items);
            // SAFETY: each index is taken by exactly one call.
            team_extend(team, out, shared.len, min_len, Stealing::Any, |i| f(unsafe { shared.item(i) }))
        },
        serial: out.extend(items.iter_mut().map(&f)),
        parallel: out.par_extend(items.par_iter_mut().with_min_len(min_len).map(&f)))
}

/// Appends `f(source)` for every source to `out`, in order; split as [`for_each`].
pub(crate) fn extend_mapped<S: Sync, T: Send>(
    workers: &Workers,
    out: &mut Vec<T>,
    sources: &[S],
    min_len: usize,
    f: impl Fn(&S) -> T + Sync + Send,
) {
    extend_mapped_indexed_with(workers, out, sources, min_len, Stealing::Any, |_, s| f(s))
}

/// Appends `f(index, source)` for every source to `out`, in order; split as [`for_each`].
pub(crate) fn extend_mapped_indexed<S: Sync, T: Send>(
    workers: &Workers,
    out: &mut Vec<T>,
    sources: &[S],
    min_len: usize,
    f: impl Fn(usize, &S) -> T + Sync + Send,
) {
    extend_mapped_indexed_with(workers, out, sources, min_len, Stealing::Any, f)
}

/// [`extend_mapped_indexed`], its parts shared out as `stealing` says.
#[cfg_attr(not(feature = "parallel"), allow(unused_variables))]
fn extend_mapped_indexed_with<S: Sync, T: Send>(
    workers: &Workers,
    out: &mut Vec<T>,
    sources: &[S],
    min_len: usize,
    stealing: Stealing,
    f: impl Fn(usize, &S) -> T + Sync + Send,
) {
    split_loop!(workers, sources.len(), min_len,
        team: |team| team_extend(team, out, sources.len(), min_len, stealing, |i| f(i, &sources[i])),
        serial: out.extend(sources.iter().enumerate().map(|(i, s)| f(i, s))),
        parallel: out.par_extend(sources.par_iter().enumerate().with_min_len(min_len).map(|(i, s)| f(i, s))))
}

/// [`extend_mapped`] for sources of even cost, split as [`for_each_even`] (so the worker
/// that computes an item is the one that has it in the loops over the same range after).
pub(crate) fn extend_mapped_even<S: Sync, T: Send>(
    workers: &Workers,
    out: &mut Vec<T>,
    sources: &[S],
    min_len: usize,
    f: impl Fn(&S) -> T + Sync + Send,
) {
    extend_mapped_indexed_with(workers, out, sources, min_len, Stealing::Unstarted, |_, s| f(s))
}

/// Appends `f(index, source)` for every source where it is `Some`, in order; split as
/// [`for_each`].
pub(crate) fn extend_filter_mapped<S: Sync, T: Send>(
    workers: &Workers,
    out: &mut Vec<T>,
    sources: &[S],
    min_len: usize,
    f: impl Fn(usize, &S) -> Option<T> + Sync + Send,
) {
    split_loop!(workers, sources.len(), min_len,
        team: |team| team_filter_extend(team, out, sources.len(), min_len, |i| f(i, &sources[i])),
        serial: out.extend(sources.iter().enumerate().filter_map(|(i, s)| f(i, s))),
        parallel: out.par_extend(sources.par_iter().enumerate().with_min_len(min_len).filter_map(|(i, s)| f(i, s))))
}

/// Appends everything `f(index, source)` yields for every source, in order; split as
/// [`for_each`].
pub(crate) fn extend_flat_mapped<'a, S: Sync, T: Send, I>(
    workers: &Workers,
    out: &mut Vec<T>,
    sources: &'a [S],
    min_len: usize,
    f: impl Fn(usize, &'a S) -> I + Sync + Send,
) where
    I: IntoIterator<Item = T>,
    I::IntoIter: Send,
{
    split_loop!(workers, sources.len(), min_len,
        team: |team| team_collect(team, out, sources.len(), min_len, |range, part| {
            range.for_each(|i| part.extend(f(i, &sources[i])))
        }),
        serial: out.extend(sources.iter().enumerate().flat_map(|(i, s)| f(i, s))),
        parallel: out.par_extend(sources.par_iter().enumerate().with_min_len(min_len).flat_map_iter(|(i, s)| f(i, s))))
}

/// Appends what `f(index, source, out)` appends for every source, in order; split as
/// [`for_each`] (each task appends to a list of its own, joined in order at the end).
pub(crate) fn extend_by<S: Sync, T: Send>(
    workers: &Workers,
    out: &mut Vec<T>,
    sources: &[S],
    min_len: usize,
    f: impl Fn(usize, &S, &mut Vec<T>) + Sync + Send,
) {
    split_loop!(workers, sources.len(), min_len,
    team: |team| team_collect(team, out, sources.len(), min_len, |range, part| {
        range.for_each(|i| f(i, &sources[i], part))
    }),
    serial: sources.iter().enumerate().for_each(|(i, s)| f(i, s, out)),
    parallel: {
        let parts: Vec<Vec<T>> = sources
            .par_chunks(min_len)
            .enumerate()
            .map(|(chunk_index, chunk)| {
                let mut part = Vec::new();
                let first = chunk_index * min_len;
                chunk.iter().enumerate().for_each(|(k, s)| f(first + k, s, &mut part));
                part
            })
            .collect();
        parts.into_iter().for_each(|mut part| out.append(&mut part))
    })
}

/// [`extend_filter_mapped`] over items `f` may change.
pub(crate) fn extend_filter_mapped_mut<S: Send, T: Send>(
    workers: &Workers,
    out: &mut Vec<T>,
    items: &mut [S],
    min_len: usize,
    f: impl Fn(usize, &mut S) -> Option<T> + Sync + Send,
) {
    split_loop!(workers, items.len(), min_len,
        team: |team| {
            let shared = SharedItems::new(items);
            // SAFETY: each index is taken by exactly one chunk.
            team_filter_extend(team, out, shared.len, min_len, |i| f(i, unsafe { shared.item(i) }))
        },
        serial: out.extend(items.iter_mut().enumerate().filter_map(|(i, s)| f(i, s))),
        parallel: out.par_extend(items.par_iter_mut().enumerate().with_min_len(min_len).filter_map(|(i, s)| f(i, s))))
}

/// Fewest lane groups of one colour per task: a group's pass costs a fraction of a
/// microsecond, so smaller tasks would cost more to hand out than they save.
pub(crate) const MIN_GROUPS_PER_TASK: usize = 32;

/// Calls `f(b, bodies, items)` for every batch b below `count`, one batch a task, each task
/// with the whole of `bodies` and `items`: the batches of `batches.rs` touch disjoint movable
/// bodies and disjoint items (their own lane groups), and only read the bodies no task writes
/// (the static body). Batches differ in cost, so a worker done with its own takes any left.
pub(crate) fn for_each_batch<T: Send>(
    workers: &Workers,
    count: usize,
    bodies: &mut [SolverBody],
    items: &mut [T],
    f: impl Fn(usize, &mut [SolverBody], &mut [T]) + Sync + Send,
) {
    if count < 2 {
        (0..count).for_each(|b| f(b, bodies, items));
        return;
    }
    workers.timed(|| {
        #[cfg(feature = "parallel")]
        if workers.parallel() {
            let (shared_bodies, shared_items) = (SharedItems::new(bodies), SharedItems::new(items));
            // SAFETY: as the function notes: no body or item written by one batch is read or
            // written by another while they are lent out here.
            let run = |b: usize| unsafe {
                f(b, shared_bodies.range(0, shared_bodies.len), shared_items.range(0, shared_items.len))
            };
            match &workers.team {
                Some(team) => team.run(count, Stealing::Any, &run),
                None => {
                    use rayon::prelude::*;
                    (0..count).into_par_iter().for_each(run)
                }
            }
            return;
        }
        (0..count).for_each(|b| f(b, bodies, items))
    })
}

/// Calls `f(item, bodies)` on every item of one colour (constraints that share no movable
/// body), in parallel tasks when the world has several workers and the colour is big enough
/// (a small colour runs on this thread and counts as serial time).
///
/// Each `f` may read any body but write only the movable bodies of its own item (those with
/// inverse mass > 0; the shared static body 0 and kinematic bodies are never written, see
/// `WideBodies::scatter`).
pub(crate) fn for_each_in_colour<T: Send>(
    workers: &Workers,
    items: &mut [T],
    bodies: &mut [SolverBody],
    f: impl Fn(&mut T, &mut [SolverBody]) + Sync + Send,
) {
    #[cfg(feature = "parallel")]
    if workers.parallel() {
        let per_task = if workers.team.is_some() { GROUPS_PER_TEAM_CHUNK } else { MIN_GROUPS_PER_TASK };
        if items.len() >= 2 * per_task {
            let shared = SharedItems::new(bodies);
            // SAFETY: the items are of one colour, so no movable body belongs to two of them;
            // each task writes only the movable bodies of its own items and reads, besides
            // them, only bodies no task writes (static and kinematic ones). So no body written
            // by one task is read or written by another while `bodies` is lent out here.
            for_each_even(workers, items, per_task, |item| f(item, unsafe { shared.range(0, shared.len) }));
            return;
        }
    }
    if items.len() < 2 * MIN_GROUPS_PER_TASK {
        items.iter_mut().for_each(|item| f(item, bodies));
        return;
    }
    workers.timed(|| items.iter_mut().for_each(|item| f(item, bodies)));
}

/// Fewest lane groups of one colour per chunk of the team (`team.rs`), whose chunks cost
/// far less to hand out than the pool's tasks.
#[cfg(feature = "parallel")]
const GROUPS_PER_TEAM_CHUNK: usize = 8;

/// The chunks of `per_chunk` indices (or more, so they stay within [`MAX_CHUNKS`]) that
/// cover 0..len.
#[cfg(feature = "parallel")]
fn chunking(len: usize, per_chunk: usize) -> (usize, impl Fn(usize) -> std::ops::Range<usize> + Sync) {
    let per_chunk = per_chunk.max(len.div_ceil(MAX_CHUNKS)).max(1);
    (len.div_ceil(per_chunk), move |chunk| chunk * per_chunk..((chunk + 1) * per_chunk).min(len))
}

/// Runs `f(index, item)` on every item through `team` (see [`chunking`]).
#[cfg(feature = "parallel")]
fn team_for_each<T: Send>(
    team: &Team,
    items: &mut [T],
    per_chunk: usize,
    stealing: Stealing,
    f: impl Fn(usize, &mut T) + Sync,
) {
    let (chunks, range_of) = chunking(items.len(), per_chunk);
    let shared = SharedItems::new(items);
    team.run(chunks, stealing, &|chunk| {
        let range = range_of(chunk);
        // SAFETY: the chunks are disjoint ranges of `items`, which is lent out until `run`
        // returns, after the last chunk.
        let part = unsafe { shared.range(range.start, range.end) };
        part.iter_mut().enumerate().for_each(|(i, item)| f(range.start + i, item));
    });
}

/// Appends `f(i)` for i in 0..len to `out`, in order, computed through `team`.
#[cfg(feature = "parallel")]
fn team_extend<T: Send>(
    team: &Team,
    out: &mut Vec<T>,
    len: usize,
    per_chunk: usize,
    stealing: Stealing,
    f: impl Fn(usize) -> T + Sync,
) {
    out.reserve(len);
    let base = out.len();
    let spare = SharedItems { start: out.spare_capacity_mut().as_mut_ptr().cast::<T>(), len };
    let (chunks, range_of) = chunking(len, per_chunk);
    // SAFETY: every index below `len` of the reserved spare capacity is written by exactly
    // one chunk; the length is set only after all have run (a panic leaks what was written).
    team.run(chunks, stealing, &|chunk| range_of(chunk).for_each(|i| unsafe { spare.write(i, f(i)) }));
    unsafe { out.set_len(base + len) };
}

/// Appends `f(i)` for i in 0..len where it is `Some`, in order, computed through `team`:
/// each chunk writes what it keeps straight into the reserved tail of `out` from its own
/// first index on, then the chunks' runs are moved down over the gaps, in order. So when
/// (nearly) everything is kept, as with the joints each step, nothing is copied a second time
/// (through a list per chunk, the 20,000 joint inputs were written twice, and two threads
/// gathered them only 1.3x faster than one).
#[cfg(feature = "parallel")]
fn team_filter_extend<T: Send>(
    team: &Team,
    out: &mut Vec<T>,
    len: usize,
    per_chunk: usize,
    f: impl Fn(usize) -> Option<T> + Sync,
) {
    out.reserve(len);
    let base = out.len();
    let spare = SharedItems { start: out.spare_capacity_mut().as_mut_ptr().cast::<T>(), len };
    let (chunks, range_of) = chunking(len, per_chunk);
    let mut kept = vec![0usize; chunks];
    let counts = SharedItems::new(&mut kept);
    team.run(chunks, Stealing::Any, &|chunk| {
        let range = range_of(chunk);
        let mut at = range.start;
        for i in range {
            if let Some(value) = f(i) {
                // SAFETY: a chunk writes only within its own range of the reserved tail,
                // at most one value per index of the range.
                unsafe { spare.write(at, value) };
                at += 1;
            }
        }
        // SAFETY: chunk k alone writes count k.
        unsafe { *counts.item(chunk) = at - range_of(chunk).start };
    });
    let mut end = 0;
    for (chunk, &count) in kept.iter().enumerate() {
        let start = range_of(chunk).start;
        if start != end {
            // SAFETY: the `count` values written from `start` move down to `end` (at most
            // `start`; the ranges may overlap, hence `copy`), after the values kept before.
            unsafe { std::ptr::copy(spare.at(start), spare.at(end), count) };
        }
        end += count;
    }
    // SAFETY: the first `end` items of the tail now hold every value kept, in order.
    unsafe { out.set_len(base + end) };
}

/// Appends, in chunk order, what `f(range, part)` appends for the chunks of 0..len,
/// computed through `team`.
#[cfg(feature = "parallel")]
fn team_collect<T: Send>(
    team: &Team,
    out: &mut Vec<T>,
    len: usize,
    per_chunk: usize,
    f: impl Fn(std::ops::Range<usize>, &mut Vec<T>) + Sync,
) {
    let (chunks, range_of) = chunking(len, per_chunk);
    let mut parts: Vec<Vec<T>> = Vec::new();
    parts.resize_with(chunks, Vec::new);
    let shared = SharedItems::new(&mut parts);
    team.run(chunks, Stealing::Any, &|chunk| {
        // SAFETY: chunk k alone takes part k.
        let part = unsafe { shared.item(chunk) };
        let range = range_of(chunk);
        part.reserve(range.len());
        f(range, part);
    });
    append_parts(team, out, &mut parts);
}

/// Bytes of parts below which [`append_parts`] copies them on this thread.
#[cfg(feature = "parallel")]
const SERIAL_APPEND_BYTES: usize = 64 * 1024;

/// Moves the parts, in order, to the end of `out`; big ones are copied by the team, each
/// part to its offset (one copy of 20,000 joint inputs on one thread took 0.4 ms).
#[cfg(feature = "parallel")]
fn append_parts<T: Send>(team: &Team, out: &mut Vec<T>, parts: &mut [Vec<T>]) {
    let total: usize = parts.iter().map(Vec::len).sum();
    if total * std::mem::size_of::<T>() < SERIAL_APPEND_BYTES {
        parts.iter_mut().for_each(|part| out.append(part));
        return;
    }
    out.reserve(total);
    let base = out.len();
    let offsets: Vec<usize> = parts
        .iter()
        .scan(0, |offset, part| {
            let at = *offset;
            *offset += part.len();
            Some(at)
        })
        .collect();
    let spare = SharedItems { start: out.spare_capacity_mut().as_mut_ptr().cast::<T>(), len: total };
    let shared = SharedItems::new(parts);
    team.run(shared.len, Stealing::Any, &|k| {
        // SAFETY: part k alone is read and emptied by chunk k, and copied to the reserved
        // spare capacity at offset k, which no other part's range overlaps; its items are
        // moved (the part forgets them), and `out` takes them when every chunk has run.
        unsafe {
            let part = shared.item(k);
            std::ptr::copy_nonoverlapping(part.as_ptr(), spare.at(offsets[k]), part.len());
            part.set_len(0);
        }
    });
    // SAFETY: the `total` items after `base` were all written above.
    unsafe { out.set_len(base + total) };
}

/// Items lent to the chunks of a team job (see [`team_for_each`]), or the solver bodies to
/// the tasks of one colour (see [`for_each_in_colour`]).
#[cfg(feature = "parallel")]
struct SharedItems<T> {
    start: *mut T,
    len: usize,
}

// SAFETY: only used by the team loops above, whose chunks touch disjoint items, and by
// `for_each_in_colour`, whose tasks touch disjoint movable bodies.
#[cfg(feature = "parallel")]
unsafe impl<T: Send> Sync for SharedItems<T> {}

#[cfg(feature = "parallel")]
impl<T> SharedItems<T> {
    fn new(items: &mut [T]) -> Self {
        SharedItems { start: items.as_mut_ptr(), len: items.len() }
    }

    /// # Safety
    /// `start..end` is within the items and no other chunk touches it meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn range(&self, start: usize, end: usize) -> &mut [T] {
        debug_assert!(start <= end && end <= self.len);
        std::slice::from_raw_parts_mut(self.start.add(start), end - start)
    }

    /// # Safety
    /// `i` is within the items and no other chunk touches it meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn item(&self, i: usize) -> &mut T {
        debug_assert!(i < self.len);
        &mut *self.start.add(i)
    }

    /// Where item `i` is (`i` at most the length).
    ///
    /// # Safety
    /// `i` is at most the length.
    unsafe fn at(&self, i: usize) -> *mut T {
        debug_assert!(i <= self.len);
        self.start.add(i)
    }

    /// # Safety
    /// `i` is within the (uninitialised) items and no other chunk touches it meanwhile.
    unsafe fn write(&self, i: usize, value: T) {
        debug_assert!(i < self.len);
        self.start.add(i).write(value);
    }
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::*;

    /// `op` with three workers, inside their team as the step runs its loops.
    fn on_team(op: impl FnOnce(&Workers) + Send) {
        let mut workers = Workers::default();
        workers.set_threads(3);
        let runner = workers.runner();
        runner.run(|| {
            let _team = workers.begin_team();
            op(&workers);
            workers.end_team();
        });
    }

    /// The collecting loops give, with a team of three, what they give on one thread: lists
    /// of uneven length per source, and a filtered list big enough to be joined in parallel.
    #[test]
    fn collected_lists_come_out_in_source_order() {
        let sources: Vec<u64> = (0..20_000).collect();
        // Each source's index and value, as often as the value modulo 4 says.
        let repeat = |i: usize, &s: &u64, out: &mut Vec<u64>| {
            out.extend(std::iter::repeat_n(s ^ (i as u64) << 32, (s % 4) as usize))
        };
        let wide = |i: usize, &s: &u64| (s % 3 != 0 || s > 15_000).then_some([s, i as u64, s * s, 7]);
        let (mut serial_by, mut serial_filtered) = (vec![1], vec![[0; 4]]);
        sources.iter().enumerate().for_each(|(i, s)| repeat(i, s, &mut serial_by));
        serial_filtered.extend(sources.iter().enumerate().filter_map(|(i, s)| wide(i, s)));
        assert!(serial_filtered.len() * std::mem::size_of::<[u64; 4]>() > SERIAL_APPEND_BYTES);
        on_team(|workers| {
            let (mut by, mut filtered) = (vec![1], vec![[0; 4]]);
            extend_by(workers, &mut by, &sources, 64, repeat);
            extend_filter_mapped(workers, &mut filtered, &sources, 64, wide);
            assert_eq!(by, serial_by);
            assert_eq!(filtered, serial_filtered);
        });
    }
}
