//! Island batches: the soft step solved island by island while the islands are small.
//!
//! The substeps of the soft step sweep every contact constraint twelve times a step (four
//! substeps of warm start, solve and relax). Colour by colour over the whole scene, each
//! sweep streams all the constraints from memory once they outgrow the caches: at 50,000
//! bodies in small piles a step's constraints are tens of megabytes, and a body's
//! cost in the passes doubled. Bodies of different islands (sets joined by contacts between
//! movable bodies) never meet in a constraint, so an island can run all its substeps on its
//! own: its constraints and bodies are read from memory once and stay in the cache for the
//! other eleven sweeps. Islands are packed in order into batches of about [`BATCH_PAIRS`]
//! pairs; a worker takes a batch and runs the whole step's substeps on it, with no barrier
//! between colours (the batches' order does not matter: they share no movable body).
//!
//! Within a batch the pairs are coloured and ordered as in the scene-wide pass (the same
//! colouring, colour by colour), and every body sees its constraints, its integration and its
//! substeps in the same order, so a batched step gives the same bits as the scene-wide one.
//!
//! Batching applies when nothing couples islands or needs the scene-wide passes: the soft step
//! with symplectic Euler, no joints or user constraints, no exact contact islands, no
//! kinematic bodies, every pair in a colour, and no island above [`MAX_ISLAND_PAIRS`] (one big
//! pile is split among the workers colour by colour instead). The decision reads only the
//! scene, never the worker count, so the lane order, and with it every result, is the same
//! for any number of threads.

use super::coloring::{self, Coloring, LaneGroup, MAX_COLORS};
use super::contact_prepare_wide::PairInput;
use super::island::UnionFind;
use super::solver_body::SolverBody;

/// Pairs a batch is filled to (islands are not split): about 150 KB of eight-lane
/// constraints, within a core's L2 cache with their bodies.
pub(crate) const BATCH_PAIRS: usize = 384;

/// An island with more pairs than this is solved colour by colour over the scene (its
/// colours are split among the workers; as one batch it would be one worker's alone).
pub(crate) const MAX_ISLAND_PAIRS: usize = 2048;

/// Fewest pairs a batched step has. Below this the constraints (about 400 bytes a pair in
/// eight lanes) stay in the cache through the scene-wide passes, which then cost no more,
/// and the planning (a union-find over the pairs, some 25 ns a pair, serial, again whenever
/// the pairs change) would be added to the step: terrain's 5,300 changing pairs took 0.13 ms
/// a step to plan and its passes were no faster.
pub(crate) const MIN_PAIRS: usize = 8192;

/// Marks a root without a batch yet.
const NONE: u32 = u32::MAX;

/// The batches of one step (buffers kept between steps).
#[derive(Default)]
pub(crate) struct Batches {
    /// The lane groups are laid out batch by batch (else colour by colour over the scene); set
    /// by the caller from what `plan` returns.
    pub active: bool,
    union: UnionFind,
    /// Per solver body: its island's root.
    root_of: Vec<u32>,
    /// Per solver body: pairs of its island (at its root), then its batch (at its root).
    island_pairs: Vec<u32>,
    root_batch: Vec<u32>,
    /// Per pair: its batch.
    pair_batch: Vec<u32>,
    /// The movable bodies, batch after batch, each batch's in index order; `body_ends[b]`
    /// is where batch b's end.
    bodies: Vec<u32>,
    body_ends: Vec<usize>,
    /// Where each colour's lane groups end, batch after batch; `colour_ends_of[b]` is where
    /// batch b's entries end in it.
    colour_ends: Vec<usize>,
    colour_ends_of: Vec<usize>,
    /// Per batch and colour (batch · MAX_COLORS + colour) where its pairs end in `sorted`,
    /// and the pairs in that order (working lists of the lane groups).
    key_ends: Vec<usize>,
    sorted: Vec<u32>,
    /// Per solver body its batch, and per batch its count of bodies (working lists).
    batch_of: Vec<u32>,
    counts: Vec<usize>,
}

impl Batches {
    /// Finds the islands of `pairs` and packs them into batches; false (and no batches) when
    /// there are fewer pairs than `min_pairs` (default [`MIN_PAIRS`]), some body is not
    /// movable or an island is too big.
    pub(crate) fn plan(&mut self, bodies: &[SolverBody], pairs: &[PairInput], min_pairs: Option<usize>) -> bool {
        let n = bodies.len();
        if pairs.len() < min_pairs.unwrap_or(MIN_PAIRS) || bodies.iter().skip(1).any(|b| !b.movable()) {
            return false;
        }
        self.union.reset(n);
        for p in pairs {
            if p.body_a != 0 && p.body_b != 0 {
                self.union.union(p.body_a, p.body_b);
            }
        }
        self.root_of.clear();
        self.root_of.extend((0..n as u32).map(|i| self.union.find(i)));
        self.island_pairs.clear();
        self.island_pairs.resize(n, 0);
        for p in pairs {
            let root = self.root_of[first_movable(p) as usize] as usize;
            self.island_pairs[root] += 1;
            if self.island_pairs[root] as usize > MAX_ISLAND_PAIRS {
                return false;
            }
        }
        self.pack(n);
        self.pair_batch.clear();
        let (root_of, root_batch) = (&self.root_of, &self.root_batch);
        self.pair_batch.extend(pairs.iter().map(|p| root_batch[root_of[first_movable(p) as usize] as usize]));
        true
    }

    /// Islands in the order of their first body, packed into batches of about
    /// [`BATCH_PAIRS`] pairs; each batch's bodies listed in index order.
    fn pack(&mut self, n: usize) {
        self.root_batch.clear();
        self.root_batch.resize(n, NONE);
        let (mut batches, mut filled) = (0u32, 0usize);
        let batch_of = &mut self.batch_of;
        batch_of.clear();
        batch_of.resize(n, 0);
        for (i, &root) in self.root_of.iter().enumerate().skip(1) {
            let root = root as usize;
            if self.root_batch[root] == NONE {
                let pairs = self.island_pairs[root] as usize;
                if batches == 0 || (filled > 0 && filled + pairs > BATCH_PAIRS) {
                    batches += 1;
                    filled = 0;
                }
                self.root_batch[root] = batches - 1;
                filled += pairs;
            }
            batch_of[i] = self.root_batch[root];
        }
        let counts = &mut self.counts;
        counts.clear();
        counts.resize(batches as usize, 0);
        batch_of[1..].iter().for_each(|&b| counts[b as usize] += 1);
        self.body_ends.clear();
        let mut end = 0;
        for count in counts.iter() {
            end += count;
            self.body_ends.push(end);
        }
        // Each batch's next free place (reusing the counts).
        for (count, end) in counts.iter_mut().zip(&self.body_ends) {
            *count = end - *count;
        }
        self.bodies.clear();
        self.bodies.resize(end, 0);
        for (i, &b) in batch_of.iter().enumerate().skip(1) {
            self.bodies[counts[b as usize]] = i as u32;
            counts[b as usize] += 1;
        }
    }

    /// The lane groups of `width` lanes, batch by batch and within each batch colour by
    /// colour in `coloring`'s order, appended to `groups` (a counting sort of the pairs by
    /// batch and colour: the pairs of moving piles change every step).
    pub(crate) fn lane_groups(&mut self, coloring: &Coloring, width: usize, groups: &mut Vec<LaneGroup>) {
        let key = |batch: u32, colour: usize| batch as usize * MAX_COLORS + colour;
        let batches = self.len();
        let ends = &mut self.key_ends;
        ends.clear();
        ends.resize(batches * MAX_COLORS, 0);
        for k in 0..MAX_COLORS {
            coloring.colour(k).for_each(|i| ends[key(self.pair_batch[i as usize], k)] += 1);
        }
        let mut total = 0;
        for end in ends.iter_mut() {
            let count = *end;
            *end = total;
            total += count;
        }
        // Each key's next free place, then (after the pass) where its run ends.
        self.sorted.clear();
        self.sorted.resize(total, 0);
        for k in 0..MAX_COLORS {
            for i in coloring.colour(k) {
                let at = &mut ends[key(self.pair_batch[i as usize], k)];
                self.sorted[*at] = i;
                *at += 1;
            }
        }
        self.colour_ends.clear();
        self.colour_ends_of.clear();
        let mut start = 0;
        for batch_ends in ends.chunks(MAX_COLORS) {
            for &end in batch_ends {
                if end > start {
                    groups.extend(coloring::lane_groups(self.sorted[start..end].iter().copied(), width));
                    self.colour_ends.push(groups.len());
                }
                start = end;
            }
            self.colour_ends_of.push(self.colour_ends.len());
        }
    }

    /// How many batches.
    pub(crate) fn len(&self) -> usize {
        self.body_ends.len()
    }

    /// Batch `b`'s bodies, the lane group its first colour starts at, and where its colours
    /// end.
    pub(crate) fn batch(&self, b: usize) -> (&[u32], usize, &[usize]) {
        let bodies = &self.bodies[if b == 0 { 0 } else { self.body_ends[b - 1] }..self.body_ends[b]];
        let colours_from = if b == 0 { 0 } else { self.colour_ends_of[b - 1] };
        let colours = &self.colour_ends[colours_from..self.colour_ends_of[b]];
        let first_group = if colours_from == 0 { 0 } else { self.colour_ends[colours_from - 1] };
        (bodies, first_group, colours)
    }
}

/// The pair's first movable body (a pair has at least one).
fn first_movable(p: &PairInput) -> u32 {
    if p.body_a != 0 {
        p.body_a
    } else {
        p.body_b
    }
}
