//! Closed loops in the joint forest: the rows a loop repeats are left out once per step, and
//! joints that close loops between dynamic bodies are solved with their tree exactly.
//!
//! Dependent rows. A loop closed through the world (a four-bar, a crank–slider: a tree of
//! bodies with two joints to the world) or between dynamic bodies repeats rows: a planar
//! four-bar of hinges has 20 equality rows on the 18 degrees of freedom of its three bodies
//! and keeps one, so three rows say again what the others say. Solved as they are, the block
//! that holds them is singular, and its pivots come out as rounding, not zero (the four-bar's
//! out-of-plane point row showed a pivot of 1.7% of its size in the f32 elimination); 1/pivot
//! turns the rounding into impulses. So once per step, for every tree with a loop, the rows
//! are sorted out in f64 at the step's start pose: K = J M⁻¹ Jᵀ of all its equality rows, in
//! elimination order and then the closures', factored by Cholesky; a row whose pivot is at
//! most [`DEPENDENT_PIVOT`] of its own K_jj depends on the rows before it and is left out of
//! every solve of the step (its row is zeroed: it takes no impulse). A dependent row's error
//! follows from the kept rows' errors (the geometry repeats it), so holding them closes it.
//!
//! Loops between dynamic bodies (a ladder: two rails, rungs welded to both). The joints
//! that close a cycle of the graph over the dynamic bodies (found in creation order) are left
//! out of the tree and solved through the Schur complement of its elimination. With the
//! tree's rows T and the closure rows L, and the tree solved for any impulse μ on the closure
//! rows (the closure impulses enter the elimination as the bodies' starting bias velocity
//! s = W₀ J_Lᵀ μ):
//!
//! ```text
//! S = K_LL − K_LT K_TT⁻¹ K_TL     column j: J_L Δv for a unit μ_j, the tree holding its rows
//! ρ = r_L − J_L Δv⁰                the closure rows' demand after the tree's own solution
//! S μ = ρ                          dense Cholesky in f64 (dependent rows already left out)
//! ```
//!
//! and the tree's response to μ is added to its joints' λ. One column costs one pass over
//! the tree (forward and back through the stored factors); the ladder of 20 rungs has 114
//! closure rows. Trees with more than [`MAX_CLOSURE_ROWS`] closure rows (joint grids, nets)
//! stay iterative, as every loop did before. Closure joints' limits, springs and motors stay
//! in their joint's own pass.

use super::{side_blocks, JointForest, Mat6, Real, Target, Vec6, NONE};
use crate::dynamics::joints::{JointConstraint, JointSolver};
use crate::dynamics::parts::dense::{DEPENDENT_PIVOT, MAX_ROWS};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use glam::DVec3;

/// Most rows of loop-closing joints one tree takes: a tree with more (a joint grid, a net)
/// stays with the iterative solver. The Schur complement of k rows costs k passes over the
/// tree and k³/6 per solve; the 20-rung ladder has 114.
pub(super) const MAX_CLOSURE_ROWS: usize = 128;

/// A joint between two dynamic bodies of a tree that closes a loop (see the module comment).
#[derive(Clone, Copy, Debug)]
pub(super) struct ClosureJoint {
    /// Index in the step's joint constraints.
    pub constraint: u32,
    /// Index of its tree (in `JointForest::trees`).
    pub tree: u32,
    /// Local indices of body A and body B.
    pub local: [u32; 2],
    /// Number of equality rows.
    pub dim: usize,
    /// Rows left out this step as dependent (bit i: row i).
    pub dropped: u8,
    /// The rows of the last solve (zero where left out).
    pub rows: [JacobianRow; MAX_ROWS],
    /// λ of the last solve.
    pub lambda: Vec6,
}

impl ClosureJoint {
    /// The closure of `tree` for constraint `index` between the local bodies `local`.
    pub fn new(index: u32, tree: u32, local: [u32; 2], c: &JointConstraint) -> Self {
        let (rows, lambda) = ([JacobianRow::default(); MAX_ROWS], [0.0; MAX_ROWS]);
        Self { constraint: index, tree, local, dim: c.model.equality_dim().min(MAX_ROWS), dropped: 0, rows, lambda }
    }
}

/// Working arrays of the loop solves, kept between steps so that nothing is allocated once
/// the scene has reached its size.
#[derive(Default)]
pub(super) struct LoopScratch {
    /// The rows of one tree with a loop, and their Gram matrix (row-major, lower triangle).
    rows: Vec<LoopRow>,
    gram: Vec<f64>,
    /// Rows found dependent.
    dependent: Vec<usize>,
    /// (closure, row) of the kept closure rows of one loop solve, and its Schur complement.
    kept: Vec<(usize, usize)>,
    schur: Vec<f64>,
    /// (closure, μ) of one loop solve.
    impulses: Vec<(usize, Vec6)>,
}

/// Whose row a loop row is: a tree joint's (index in `order`) or a closure's.
#[derive(Clone, Copy)]
enum Owner {
    Tree(usize),
    Closure(usize),
}

/// One equality row of a loop in f64: its owner, its index there, its bodies (solver
/// indices) and its parts for A and B (linear, angular).
struct LoopRow {
    owner: Owner,
    index: usize,
    bodies: [u32; 2],
    parts: [(DVec3, DVec3); 2],
}

impl JointForest {
    /// Marks the dependent equality rows of every tree with a loop (two or more joints to
    /// the world, or a closure) as left out for this step (see the module comment).
    pub(super) fn leave_out_dependent_rows(&mut self, constraints: &[JointConstraint], bodies: &[SolverBody]) {
        for joint in &mut self.order {
            joint.dropped = 0;
        }
        for t in 0..self.trees.len().saturating_sub(1) {
            let range = self.trees[t] as usize..self.trees[t + 1] as usize;
            let world_joints = self.order[range.clone()].iter().filter(|j| j.child == NONE).count();
            let closures = self.closures_of(t);
            if world_joints >= 2 || !closures.is_empty() {
                self.leave_out_dependent_rows_of(range, closures, constraints, bodies);
            }
        }
    }

    /// [`Self::leave_out_dependent_rows`] for the tree joints `joints` of `order` and the
    /// closures `closures`.
    fn leave_out_dependent_rows_of(
        &mut self,
        joints: std::ops::Range<usize>,
        closures: std::ops::Range<usize>,
        constraints: &[JointConstraint],
        bodies: &[SolverBody],
    ) {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.rows.clear();
        let mut buffer = [JacobianRow::default(); MAX_ROWS];
        let mut error = [0.0; MAX_ROWS];
        let owners = joints.map(|k| (Owner::Tree(k), self.order[k].constraint, self.order[k].dim));
        let closure_owners = closures.map(|i| (Owner::Closure(i), self.closures[i].constraint, self.closures[i].dim));
        for (owner, constraint, dim) in owners.chain(closure_owners) {
            let c = &constraints[constraint as usize];
            let dim = c.model.equality_rows(&c.current_frames(bodies), &mut buffer, &mut error).min(dim);
            for (index, row) in buffer[..dim].iter().enumerate() {
                let parts = [(row.linear_a, row.angular_a), (row.linear_b, row.angular_b)]
                    .map(|(linear, angular)| (linear.as_dvec3(), angular.as_dvec3()));
                scratch.rows.push(LoopRow { owner, index, bodies: [c.body_a, c.body_b], parts });
            }
        }
        dependent_rows(&mut scratch, bodies);
        for &dependent in &scratch.dependent {
            let row = &scratch.rows[dependent];
            match row.owner {
                Owner::Tree(k) => self.order[k].dropped |= 1 << row.index,
                Owner::Closure(i) => self.closures[i].dropped |= 1 << row.index,
            }
        }
        self.scratch = scratch;
    }

    /// The closures of tree `t` (they are sorted by tree).
    pub(super) fn closures_of(&self, t: usize) -> std::ops::Range<usize> {
        let start = self.closures.partition_point(|c| (c.tree as usize) < t);
        let end = self.closures.partition_point(|c| (c.tree as usize) <= t);
        start..end
    }

    /// Solves the closure rows of every tree with loops after the tree's own
    /// back-substitution (its joints' `lambda`, the bodies' impulses `p` side 0): μ from
    /// S μ = ρ into the closures' `lambda`, and the tree's response to μ added to its joints'
    /// `lambda` (see the module comment).
    pub(super) fn close_loops(&mut self, constraints: &[JointConstraint], bodies: &[SolverBody], target: Target) {
        for t in 0..self.trees.len().saturating_sub(1) {
            let closures = self.closures_of(t);
            if !closures.is_empty() {
                self.close_loops_of(t, closures, constraints, bodies, target);
            }
        }
    }

    /// [`Self::close_loops`] for tree `t`.
    fn close_loops_of(
        &mut self,
        t: usize,
        closures: std::ops::Range<usize>,
        constraints: &[JointConstraint],
        bodies: &[SolverBody],
        target: Target,
    ) {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.closure_rows(closures.clone(), &mut scratch.kept, constraints, bodies, target);
        let m = scratch.kept.len();
        scratch.schur.clear();
        scratch.schur.resize(m * m, 0.0);
        for (j, &(closure, row)) in scratch.kept.iter().enumerate() {
            let mut unit = [0.0; MAX_ROWS];
            unit[row] = 1.0;
            self.tree_response(t, &[(closure, unit)], bodies, target, false);
            for (i, &(other, other_row)) in scratch.kept.iter().enumerate() {
                scratch.schur[i * m + j] = self.closure_change(other, other_row, bodies, target, true);
            }
        }
        solve_dense(&mut scratch.schur, &mut self.residual, &mut scratch.dependent, m);
        scratch.impulses.clear();
        scratch.impulses.extend(closures.clone().map(|c| (c, [0.0; MAX_ROWS])));
        for (&(closure, row), &value) in scratch.kept.iter().zip(&self.residual) {
            scratch.impulses[closure - closures.start].1[row] = value;
        }
        for &(closure, impulse) in &scratch.impulses {
            self.closures[closure].lambda = impulse;
        }
        self.tree_response(t, &scratch.impulses, bodies, target, true);
        self.scratch = scratch;
    }

    /// Fills the closures' rows, (closure, row) of each kept row into `kept`, and the residual
    /// ρ = r − J Δv⁰ of the kept rows (Δv⁰ = W₀ p, the tree's own solution).
    fn closure_rows(
        &mut self,
        closures: std::ops::Range<usize>,
        kept: &mut Vec<(usize, usize)>,
        constraints: &[JointConstraint],
        bodies: &[SolverBody],
        target: Target,
    ) {
        kept.clear();
        self.residual.clear();
        for index in closures {
            let closure = &mut self.closures[index];
            let c = &constraints[closure.constraint as usize];
            let (a, b) = (&bodies[c.body_a as usize], &bodies[c.body_b as usize]);
            let mut error = [0.0; MAX_ROWS];
            let frames = c.frames.current(a, b);
            closure.dim = c.model.equality_rows(&frames, &mut closure.rows, &mut error).min(closure.dim);
            for i in 0..closure.dim {
                if closure.dropped & (1 << i) != 0 {
                    closure.rows[i] = JacobianRow::default();
                } else {
                    kept.push((index, i));
                }
            }
            for &(_, i) in kept.iter().filter(|&&(owner, _)| owner == index) {
                let demand = super::row_target(&self.closures[index].rows[i], error[i], a, b, target);
                let change = self.closure_change(index, i, bodies, target, false);
                self.residual.push(demand - change);
            }
        }
    }

    /// J Δv of row `row` of closure `closure`: with Δv = W₀ p of the tree's own solution
    /// (`response` false), or W₀ (e + p) of the last [`Self::tree_response`].
    fn closure_change(
        &self,
        closure: usize,
        row: usize,
        bodies: &[SolverBody],
        target: Target,
        response: bool,
    ) -> Real {
        let closure = &self.closures[closure];
        let mut sum = 0.0;
        for (side, &local) in closure.local.iter().enumerate() {
            let impulse: Vec6 = if response {
                std::array::from_fn(|i| self.col_ext[local as usize][i] + self.col_p[local as usize][i])
            } else {
                self.p[local as usize][0]
            };
            let change = mat_vec(&self.metric(local, bodies, target), &impulse);
            let blocks = side_blocks(&closure.rows, row + 1, side == 0);
            sum += super::dot6(&blocks[row], &change);
        }
        sum
    }

    /// W₀ of local body `local` for `target`.
    fn metric(&self, local: u32, bodies: &[SolverBody], target: Target) -> Mat6 {
        super::metric(&bodies[self.bodies[local as usize] as usize], target)
    }

    /// The tree's solution for the closure impulses `impulses` ((closure, μ) pairs) and no
    /// other demand: forward through the stored factors from the bias s = W₀ Jᵀμ, then back.
    /// Leaves e = Jᵀμ in `col_ext` and the tree impulses in `col_p`; with `add` also adds
    /// the joints' λ to their `lambda`.
    fn tree_response(
        &mut self,
        t: usize,
        impulses: &[(usize, Vec6)],
        bodies: &[SolverBody],
        target: Target,
        add: bool,
    ) {
        let joints = self.trees[t] as usize..self.trees[t + 1] as usize;
        for k in joints.clone() {
            for local in [self.order[k].parent, self.order[k].child].into_iter().filter(|&l| l != NONE) {
                let l = local as usize;
                (self.col_ext[l], self.col_s[l], self.col_p[l]) = ([0.0; MAX_ROWS], [0.0; MAX_ROWS], [0.0; MAX_ROWS]);
            }
        }
        for &(closure, mu) in impulses {
            let closure = &self.closures[closure];
            for (side, &local) in closure.local.iter().enumerate() {
                super::add_side_transposed(
                    &mut self.col_ext[local as usize],
                    &closure.rows[..closure.dim],
                    &mu,
                    side == 0,
                );
            }
        }
        for &(closure, _) in impulses {
            for local in self.closures[closure].local {
                let w = self.metric(local, bodies, target);
                self.col_s[local as usize] = mat_vec(&w, &self.col_ext[local as usize]);
            }
        }
        for k in joints.clone() {
            let joint = &self.order[k];
            let t = super::forward(joint, &mut self.col_s);
            self.col_t[k] = t;
        }
        for k in joints.rev() {
            let lambda = super::backward(&self.order[k], &self.col_t[k], &mut self.col_p);
            if add {
                let joint = &mut self.order[k];
                for (total, part) in joint.lambda.iter_mut().zip(lambda) {
                    *total += part;
                }
            }
        }
    }
}

/// M v for a 6×6 block.
fn mat_vec(m: &Mat6, v: &Vec6) -> Vec6 {
    std::array::from_fn(|i| super::dot6(&m[i], v))
}

/// G_ij = J_i J_jᵀ of two loop rows in f64 over the dynamic bodies they share: the rows'
/// geometry, not their masses. Whether a row repeats others is a question of geometry; in
/// M⁻¹ a thin link's huge axial inverse inertia makes its own rows' pivots as small as a
/// repeated row's (10⁻⁵ of their size for a rail 10 m long and 2 cm thick).
fn coupling(i: &LoopRow, j: &LoopRow, bodies: &[SolverBody]) -> f64 {
    let mut sum = 0.0;
    for (side_i, &body_i) in i.bodies.iter().enumerate() {
        if body_i == 0 || bodies[body_i as usize].inv_mass <= 0.0 {
            continue;
        }
        for side_j in (0..2).filter(|&s| j.bodies[s] == body_i) {
            let ((li, ai), (lj, aj)) = (i.parts[side_i], j.parts[side_j]);
            sum += li.dot(lj) + ai.dot(aj);
        }
    }
    sum
}

/// The rows of `scratch.rows` that depend on the rows before them, into
/// `scratch.dependent`: Cholesky of G in f64, a row whose pivot is at most
/// [`DEPENDENT_PIVOT`] of its G_jj is dependent and left out of the factor.
fn dependent_rows(scratch: &mut LoopScratch, bodies: &[SolverBody]) {
    let (rows, n) = (&scratch.rows, scratch.rows.len());
    scratch.gram.clear();
    scratch.gram.resize(n * n, 0.0);
    for i in 0..n {
        for j in 0..=i {
            scratch.gram[i * n + j] = coupling(&rows[i], &rows[j], bodies);
        }
    }
    cholesky_in_place(&mut scratch.gram, n, &mut scratch.dependent);
}

/// Cholesky of the lower triangle of the n × n matrix `k` (row-major) in place, leaving out
/// (zero row, unit pivot) each row whose pivot is at most [`DEPENDENT_PIVOT`] of its diagonal;
/// the rows left out go into `dependent`.
fn cholesky_in_place(k: &mut [f64], n: usize, dependent: &mut Vec<usize>) {
    dependent.clear();
    for j in 0..n {
        let own = k[j * n + j];
        let pivot = own - (0..j).map(|p| k[j * n + p] * k[j * n + p]).sum::<f64>();
        if !(pivot > DEPENDENT_PIVOT as f64 * own) {
            dependent.push(j);
            k[j * n..j * n + j].fill(0.0);
            k[j * n + j] = 1.0;
            for i in j + 1..n {
                k[i * n + j] = 0.0;
            }
            continue;
        }
        let pivot = pivot.sqrt();
        k[j * n + j] = pivot;
        for i in j + 1..n {
            let above = (0..j).map(|p| k[i * n + p] * k[j * n + p]).sum::<f64>();
            k[i * n + j] = (k[i * n + j] - above) / pivot;
        }
    }
}

/// Solves S x = b in place (`y` holds b, then x) for the m × m matrix `s` (row-major,
/// overwritten by its factor); a row that turns out dependent (listed in `dependent`) takes
/// no impulse.
fn solve_dense(s: &mut [f64], y: &mut [f64], dependent: &mut Vec<usize>, m: usize) {
    cholesky_in_place(s, m, dependent);
    for &j in dependent.iter() {
        y[j] = 0.0;
    }
    for i in 0..m {
        let above = (0..i).map(|p| s[i * m + p] * y[p]).sum::<f64>();
        y[i] = (y[i] - above) / s[i * m + i];
    }
    for i in (0..m).rev() {
        let below = (i + 1..m).map(|p| s[p * m + i] * y[p]).sum::<f64>();
        y[i] = (y[i] - below) / s[i * m + i];
    }
}
