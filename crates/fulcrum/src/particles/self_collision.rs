//! Cloth self-collision: particles are spheres of radius `thickness`, and two particles that
//! are not neighbours in the mesh (joined by a stretch or bending link) may not come closer
//! than two thicknesses.
//!
//! Once per step a spatial hash of the particles (cells of the search distance, hashed into a
//! table of 2n entries, filled by a counting sort into buffers kept between steps) gives each
//! particle the others within the search distance, 2·thickness plus twice the furthest any
//! particle can move over the step; the substeps then only visit those pairs, allocating
//! nothing. For a pair at distance d with inverse masses w_i, w_j:
//!
//! ```text
//! C = d − 2·thickness < 0           n = (x_i − x_j) / d
//! x_i += w_i·(−C)/(w_i + w_j)·n     x_j −= w_j·(−C)/(w_i + w_j)·n
//! ```
//!
//! and their relative slip over the substep, t (the tangential part of
//! (x_i − x_prev_i) − (x_j − x_prev_j)), is taken out up to μ·|C|, shared the same way.
//!
//! The pairs are solved after the contacts with the rigid shapes (whose static friction,
//! measured from the start of the substep, would otherwise undo a push apart of two particles
//! lying on the ground: 21.6 mm for 24 in the collapsing-cloth test), and a particle lying on
//! an immovable obstacle does not give way towards it, as against a body (`contact.rs`): its
//! w is scaled by 1 − max(0, −push·n_support).

use glam::{DVec3, IVec3};

use super::constraints::Link;

/// The mesh neighbours of each particle and the pairs that may touch this step.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct SelfCollision {
    /// Neighbours of particle i: `neighbours[first[i]..first[i + 1]]`.
    first: Vec<u32>,
    neighbours: Vec<u32>,
    /// Spatial hash: the particles of table entry k are `sorted[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    sorted: Vec<u32>,
    /// Pairs (i < j) within the search distance at the start of the step.
    pub pairs: Vec<[u32; 2]>,
    /// The normal of the immovable obstacle each particle lies on this substep (zero if none).
    pub support: Vec<DVec3>,
}

/// Teschner et al.'s hash of an integer cell, into a table of `size` entries.
fn cell_hash(cell: IVec3, size: usize) -> usize {
    let h = cell.x.wrapping_mul(92_837_111) ^ cell.y.wrapping_mul(689_287_499) ^ cell.z.wrapping_mul(283_923_481);
    h.unsigned_abs() as usize % size
}

impl SelfCollision {
    /// The neighbour lists of `count` particles joined by `links`.
    pub fn new(count: usize, links: &[Link]) -> Self {
        let mut lists = vec![Vec::new(); count];
        for link in links {
            lists[link.a as usize].push(link.b);
            lists[link.b as usize].push(link.a);
        }
        let mut first = Vec::with_capacity(count + 1);
        let mut neighbours = Vec::new();
        for list in &lists {
            first.push(neighbours.len() as u32);
            neighbours.extend_from_slice(list);
        }
        first.push(neighbours.len() as u32);
        SelfCollision { first, neighbours, ..Default::default() }
    }

    /// Checks neighbour lists restored from a snapshot: they must be the ones
    /// [`SelfCollision::new`] builds for `count` particles and `links`, and the pairs of the
    /// last step must name particles (the hash is rebuilt every step).
    pub fn check_stored(&self, count: usize, links: &[Link]) -> crate::Result<()> {
        let fresh = SelfCollision::new(count, links);
        if fresh.first != self.first || fresh.neighbours != self.neighbours {
            return Err(crate::Error::new("self_collision", "the neighbour lists do not match the links"));
        }
        if self.pairs.iter().flatten().any(|&i| i as usize >= count) {
            return Err(crate::Error::new("self_collision.pairs", "index out of range"));
        }
        Ok(())
    }

    fn are_neighbours(&self, i: usize, j: u32) -> bool {
        self.neighbours[self.first[i] as usize..self.first[i + 1] as usize].contains(&j)
    }

    /// The pairs of particles (at `x`) closer than `reach` that are not neighbours.
    pub fn find_pairs(&mut self, x: &[DVec3], reach: f64) {
        self.support.clear();
        self.support.resize(x.len(), DVec3::ZERO);
        self.fill_hash(x, reach);
        self.pairs.clear();
        let size = self.start.len() - 1;
        let reach_squared = reach * reach;
        for (i, &p) in x.iter().enumerate() {
            let cell = (p / reach).floor().as_ivec3();
            let mut entries = [0usize; 27];
            for (n, entry) in entries.iter_mut().enumerate() {
                let offset = IVec3::new(n as i32 % 3, n as i32 / 3 % 3, n as i32 / 9) - IVec3::ONE;
                *entry = cell_hash(cell.wrapping_add(offset), size);
            }
            entries.sort_unstable();
            for (n, &k) in entries.iter().enumerate() {
                if n > 0 && entries[n - 1] == k {
                    continue;
                }
                for &j in &self.sorted[self.start[k] as usize..self.start[k + 1] as usize] {
                    let near = (j as usize) > i && (x[j as usize] - p).length_squared() < reach_squared;
                    if near && !self.are_neighbours(i, j) {
                        self.pairs.push([i as u32, j]);
                    }
                }
            }
        }
    }

    /// The spatial hash of the particles at `x` in cells of side `cell`: a counting sort of
    /// the particles by table entry into `sorted`, entry k's run starting at `start[k]`.
    fn fill_hash(&mut self, x: &[DVec3], cell: f64) {
        let size = 2 * x.len().max(1);
        let entry = |p: DVec3| cell_hash((p / cell).floor().as_ivec3(), size);
        self.start.clear();
        self.start.resize(size + 1, 0);
        for &p in x {
            self.start[entry(p)] += 1;
        }
        for k in 1..=size {
            self.start[k] += self.start[k - 1];
        }
        self.sorted.clear();
        self.sorted.resize(x.len(), 0);
        for (i, &p) in x.iter().enumerate() {
            let k = entry(p);
            self.start[k] -= 1;
            self.sorted[self.start[k] as usize] = i as u32;
        }
    }

    /// One pass over the pairs (module docs): positions `x`, at the start of the substep
    /// `previous`, inverse masses `w`.
    pub fn solve(&self, x: &mut [DVec3], previous: &[DVec3], w: &[f64], thickness: f64, friction: f64) {
        for &[i, j] in &self.pairs {
            let (i, j) = (i as usize, j as usize);
            let delta = x[i] - x[j];
            let distance = delta.length();
            let error = distance - 2.0 * thickness;
            if error >= 0.0 || distance < 1e-12 {
                continue;
            }
            let normal = delta / distance;
            let give = |k: usize, push: DVec3| 1.0 - (-push.dot(self.support[k])).max(0.0);
            let (w_i, w_j) = (w[i] * give(i, normal), w[j] * give(j, -normal));
            let total = w_i + w_j;
            if total <= 0.0 {
                continue;
            }
            let push = normal * (-error / total);
            x[i] += w_i * push;
            x[j] -= w_j * push;
            let slip = (x[i] - previous[i]) - (x[j] - previous[j]);
            let tangential = slip - normal * normal.dot(slip);
            let length = tangential.length();
            if length > 1e-12 {
                let hold = tangential * (length.min(friction * -error) / (length * total));
                x[i] -= w_i * hold;
                x[j] += w_j * hold;
            }
        }
    }
}
