//! The joints of the bodies the particle stage moves, held in its substeps.
//!
//! The stage moves the bodies the particles pull without the rigid solve's rows. A beam
//! hinged to a post and pulled by a rope was moved there as a free body, off its hinge; the
//! rigid solve then pulled it back onto the hinge knowing no rope, and the soft hinge's
//! position bias fed energy in, step after step, until crate_on_rope blew up. So every joint
//! with a body the stage moves holds in the substeps too, from the joint's own rigid
//! equality rows J and errors C (those the exact tree solve takes) and its limit rows:
//!
//! ```text
//! equality   C = C(x) − C₀ = 0                 K = J W Jᵀ (one block, at most 6 × 6)
//!            Δλ = −K⁻¹ C                        A moved by W_A J_Aᵀ Δλ, B by W_B J_Bᵀ Δλ
//! limits     C = gap − min(0, gap₀) ≥ 0          Δλ = max(0, −C / K_ii), one row at a time
//! ```
//!
//! with W the bodies' inverse masses and inertias and a move turned into a velocity change
//! over the substep as every correction of the stage is (`coupling.rs`). C₀ is the error the
//! joint starts the stage with: the rigid solve leaves a soft joint a little apart, and
//! removing that in one substep of 1/960 s moved the body by all of it, a kick of C₀ / h
//! (as the body contacts' starting overlap did). Springs, motors and joints with no rigid
//! rows are the rigid solve's alone.

use super::coupling::CoupledBody;
use crate::dynamics::joints::{JointModel, JointSolver};
use crate::dynamics::parts::dense::{solve_spd, Mat6, Vec6, MAX_ROWS};
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::row::JacobianRow;
use crate::joint::Joint;
use crate::math::Pose;

/// A joint between two of the stage's bodies (one may be immovable: static, kinematic,
/// sleeping, or the static world).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StageJoint {
    /// Indices of the two bodies in the stage's coupled bodies.
    pub a: u32,
    pub b: u32,
    /// The joint frames in each body's frame (relative to its origin).
    frame_a: Pose,
    frame_b: Pose,
    /// The kind's rows (no impulses: the stage keeps none between substeps).
    model: JointModel,
    /// The equality rows' errors at the start of the stage.
    error_at_start: Vec6,
    /// The limit rows' gaps at the start of the stage, where negative (else 0).
    overlap_at_start: Vec6,
}

impl StageJoint {
    /// The joint `joint` between the coupled bodies `a` and `b` as they start the stage;
    /// `None` when it has no rigid rows for the stage to hold.
    pub fn new(joint: &Joint, a: u32, b: u32, bodies: &[CoupledBody]) -> Option<StageJoint> {
        let mut model = JointModel::new(&joint.kind, &joint.reference);
        let (body_a, body_b) = (&bodies[a as usize], &bodies[b as usize]);
        model.begin_step(body_a.center, body_b.center);
        let mut stage_joint = StageJoint {
            a,
            b,
            frame_a: joint.frame_a,
            frame_b: joint.frame_b,
            model,
            error_at_start: [0.0; MAX_ROWS],
            overlap_at_start: [0.0; MAX_ROWS],
        };
        let (equality, limits) = (stage_joint.equality_rows(bodies), stage_joint.limit_rows(bodies));
        if equality.count == 0 && limits.count == 0 {
            return None;
        }
        stage_joint.error_at_start = equality.error;
        stage_joint.overlap_at_start = limits.error.map(|gap| gap.min(0.0));
        Some(stage_joint)
    }

    /// The frames at the bodies' current poses in the stage.
    fn frames(&self, bodies: &[CoupledBody]) -> Frames {
        let (a, b) = (&bodies[self.a as usize], &bodies[self.b as usize]);
        let (anchor_a, r_a) = a.point(self.frame_a.position);
        let (anchor_b, r_b) = b.point(self.frame_b.position);
        Frames {
            r_a,
            r_b,
            separation: anchor_b - anchor_a,
            rotation_a: a.rotation * self.frame_a.rotation,
            rotation_b: b.rotation * self.frame_b.rotation,
        }
    }

    /// The equality rows and their errors at the current poses.
    fn equality_rows(&self, bodies: &[CoupledBody]) -> Rows {
        let mut equality = Rows::default();
        equality.count = self.model.equality_rows(&self.frames(bodies), &mut equality.rows, &mut equality.error);
        equality
    }

    /// The limit rows and their gaps at the current poses.
    fn limit_rows(&self, bodies: &[CoupledBody]) -> Rows {
        let mut limits = Rows::default();
        limits.count = self.model.limit_rows(&self.frames(bodies), &mut limits.rows, &mut limits.error);
        limits
    }

    /// One projection: the equality rows as one block, then each limit row that is closing
    /// (its rows taken after the block has moved the bodies).
    #[allow(clippy::needless_range_loop)] // K's entries read best by row and column
    pub fn solve(&self, bodies: &mut [CoupledBody]) {
        let equality = self.equality_rows(bodies);
        let n = equality.count;
        if n > 0 {
            let mut k: Mat6 = [[0.0; MAX_ROWS]; MAX_ROWS];
            for i in 0..n {
                for j in i..n {
                    k[i][j] = self.coupling(&equality.rows[i], &equality.rows[j], bodies);
                    k[j][i] = k[i][j];
                }
            }
            let c: Vec6 = std::array::from_fn(|i| self.error_at_start[i] - equality.error[i]);
            if let Some(lambda) = solve_spd(&k, &c, n) {
                (0..n).for_each(|i| self.apply(&equality.rows[i], lambda[i], bodies));
            }
        }
        let limits = self.limit_rows(bodies);
        for i in 0..limits.count {
            let row = &limits.rows[i];
            let gap = limits.error[i] - self.overlap_at_start[i];
            let k = self.coupling(row, row, bodies);
            if gap < 0.0 && k > 0.0 {
                self.apply(row, -gap / k, bodies);
            }
        }
    }

    /// K_ij = J_i W J_jᵀ.
    fn coupling(&self, i: &JacobianRow, j: &JacobianRow, bodies: &[CoupledBody]) -> f32 {
        let (a, b) = (&bodies[self.a as usize], &bodies[self.b as usize]);
        a.inv_mass * i.linear_a.dot(j.linear_a)
            + i.angular_a.dot(a.inv_inertia * j.angular_a)
            + b.inv_mass * i.linear_b.dot(j.linear_b)
            + i.angular_b.dot(b.inv_inertia * j.angular_b)
    }

    /// Moves both bodies by W Jᵀ λ along `row`.
    fn apply(&self, row: &JacobianRow, lambda: f32, bodies: &mut [CoupledBody]) {
        bodies[self.a as usize].apply_generalised(row.linear_a * lambda, row.angular_a * lambda);
        bodies[self.b as usize].apply_generalised(row.linear_b * lambda, row.angular_b * lambda);
    }
}

/// Rows of one kind with their errors (equality) or gaps (limits).
#[derive(Default)]
struct Rows {
    rows: [JacobianRow; MAX_ROWS],
    error: Vec6,
    count: usize,
}

/// One pass over the stage's joints.
pub(crate) fn solve_stage_joints(joints: &[StageJoint], bodies: &mut [CoupledBody]) {
    joints.iter().for_each(|joint| joint.solve(bodies));
}
