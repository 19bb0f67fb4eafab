//! Closed loops in the joint forest: which rows of a loop are left out, once per step.
//!
//! A loop closed through the world (a four-bar, a crank–slider: a tree of bodies with two
//! joints to the world) or between dynamic bodies repeats rows: a planar four-bar of hinges
//! has 20 equality rows on 18 degrees of freedom of its three bodies and keeps one, so three
//! rows say again what the others say. Solved as they are, the block that holds them is
//! singular, and in f32 the repeated rows' pivots come out as rounding, not zero: a thin
//! link's inverse inertia about its long axis is 10⁴ times its inverse mass, the reduced
//! effective masses of the elimination lose about 2% of a row's size to cancellation, and the
//! four-bar's out-of-plane point row showed a pivot of 1.7% where it should have none. Its
//! 1/pivot turned rounding into impulses and the linkage blew up within a second.
//!
//! So once per step, for every tree with a loop, the rows are sorted out in f64 at the
//! step's start pose: K = J M⁻¹ Jᵀ of all its equality rows, in elimination order, factored
//! by Cholesky; a row whose pivot is at most [`DEPENDENT_PIVOT`] of its own K_jj is dependent
//! on the rows before it and is left out of every solve of the step (its row is zeroed, so
//! it takes no impulse). The rows kept are independent, and the f32 elimination of them is
//! well posed. A dependent row's error follows from the kept rows' errors (the geometry
//! repeats it), so holding the kept rows closes it too.

use super::{JointForest, NONE};
use crate::dynamics::joints::{JointConstraint, JointSolver};
use crate::dynamics::parts::dense::{DEPENDENT_PIVOT, MAX_ROWS};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use glam::DVec3;

/// One equality row of a loop in f64: its tree joint, its index in the joint, its bodies
/// (solver indices) and its parts for A and B (linear, angular).
struct LoopRow {
    joint: usize,
    index: usize,
    bodies: [u32; 2],
    parts: [(DVec3, DVec3); 2],
}

impl JointForest {
    /// Marks the dependent equality rows of every tree with a loop (two or more joints to
    /// the world) as left out for this step (see the module comment).
    pub(super) fn leave_out_dependent_rows(&mut self, constraints: &[JointConstraint], bodies: &[SolverBody]) {
        for joint in &mut self.order {
            joint.dropped = 0;
        }
        for t in 0..self.trees.len().saturating_sub(1) {
            let range = self.trees[t] as usize..self.trees[t + 1] as usize;
            let world_joints = self.order[range.clone()].iter().filter(|j| j.child == NONE).count();
            if world_joints >= 2 {
                self.leave_out_dependent_rows_of(range, constraints, bodies);
            }
        }
    }

    /// [`Self::leave_out_dependent_rows`] for the tree joints `range` of `order`.
    fn leave_out_dependent_rows_of(
        &mut self,
        range: std::ops::Range<usize>,
        constraints: &[JointConstraint],
        bodies: &[SolverBody],
    ) {
        let mut rows: Vec<LoopRow> = Vec::new();
        let mut buffer = [JacobianRow::default(); MAX_ROWS];
        let mut error = [0.0; MAX_ROWS];
        for k in range {
            let c = &constraints[self.order[k].constraint as usize];
            let dim = c.model.equality_rows(&c.current_frames(bodies), &mut buffer, &mut error).min(self.order[k].dim);
            for (index, row) in buffer[..dim].iter().enumerate() {
                let parts = [(row.linear_a, row.angular_a), (row.linear_b, row.angular_b)]
                    .map(|(linear, angular)| (linear.as_dvec3(), angular.as_dvec3()));
                rows.push(LoopRow { joint: k, index, bodies: [c.body_a, c.body_b], parts });
            }
        }
        for dependent in dependent_rows(&rows, bodies) {
            let row = &rows[dependent];
            self.order[row.joint].dropped |= 1 << row.index;
        }
    }
}

/// K_ij = J_i M⁻¹ J_jᵀ of two loop rows in f64 (only the bodies they share count).
fn coupling(i: &LoopRow, j: &LoopRow, bodies: &[SolverBody]) -> f64 {
    let mut sum = 0.0;
    for (side_i, &body_i) in i.bodies.iter().enumerate() {
        let body = &bodies[body_i as usize];
        if body_i == 0 || body.inv_mass <= 0.0 {
            continue;
        }
        let inv_inertia = body.inv_inertia.as_dmat3();
        for side_j in (0..2).filter(|&s| j.bodies[s] == body_i) {
            let ((li, ai), (lj, aj)) = (i.parts[side_i], j.parts[side_j]);
            sum += body.inv_mass as f64 * li.dot(lj) + ai.dot(inv_inertia * aj);
        }
    }
    sum
}

/// The rows that depend on the rows before them: Cholesky of K in f64, a row whose pivot is
/// at most [`DEPENDENT_PIVOT`] of its K_jj is dependent and left out of the factor.
fn dependent_rows(rows: &[LoopRow], bodies: &[SolverBody]) -> Vec<usize> {
    let n = rows.len();
    let mut l = vec![0.0f64; n * n];
    let mut dependent = Vec::new();
    for j in 0..n {
        let own = coupling(&rows[j], &rows[j], bodies);
        let pivot = own - (0..j).map(|p| l[j * n + p] * l[j * n + p]).sum::<f64>();
        if pivot <= DEPENDENT_PIVOT as f64 * own {
            dependent.push(j);
            continue;
        }
        let pivot = pivot.sqrt();
        l[j * n + j] = pivot;
        for i in j + 1..n {
            let k_ij = coupling(&rows[i], &rows[j], bodies);
            let above = (0..j).map(|p| l[i * n + p] * l[j * n + p]).sum::<f64>();
            l[i * n + j] = (k_ij - above) / pivot;
        }
    }
    dependent
}
