//! Target (mouse) joint: pulls body B's anchor towards a world point with a soft spring and a
//! force cap, the way a testbed drags a body. Body A plays no part.
//!
//! ```text
//! C = p_B − target                                 3 rows (world axes), B only:
//! J_i = [ 0, 0, e_i, r_B × e_i ]
//! Δλ = −mass_scale K⁻¹ (J v + bias_rate C) − impulse_scale λ     soft at (hertz, ζ)
//! λ  ← λ clamped to |λ| ≤ max_force · h                          then applied
//! ```
//! The clamp is on the accumulated impulse of the step, so the force on the body never
//! exceeds `max_force`. Under a constant load F the spring settles F / (m ω²) short of the
//! target (g / ω² when it holds a body against gravity: 1 cm at 5 Hz).
//!
//! Spin damping: a body held by an anchor away from its centre of mass would otherwise swing
//! about the anchor for ever. Its angular velocity is damped at the rate
//! [`SPIN_DAMPING`] · 2π · hertz (the spin decays by e in about 1.6 spring periods), an
//! implicit damper on three angular rows: Δλ = −γ K⁻¹ ω − (1 − γ) λ, γ = h·rate / (1 + h·rate).
//! It only removes energy, and is reported as the joint's reaction torque.

use super::{rows_reaction, visit_point, JointSolver};
use crate::dynamics::parts::equality::{apply_weighted, equality_delta, PassContext, RowScales};
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::length::world_anchor;
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::Vec3;

/// Spin damping rate as a fraction of the spring's angular frequency.
pub(crate) const SPIN_DAMPING: f32 = 0.1;

/// Solver state of a target joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TargetJoint {
    /// World point the anchor is pulled to.
    pub target: Vec3,
    /// Spring frequency, Hz.
    pub hertz: f32,
    /// Spring damping ratio.
    pub damping_ratio: f32,
    /// Largest force, N.
    pub max_force: f32,
    /// B's centre of mass at the start of the step (world).
    pub start_center_b: Vec3,
    /// Accumulated linear impulse on B (world), N·s per solver step.
    pub impulse: Vec3,
    /// Accumulated angular impulse of the spin damping, N·m·s per solver step.
    pub spin_impulse: Vec3,
}

/// The three linear rows on B's anchor.
#[inline]
fn pull_rows(r_b: Vec3) -> [JacobianRow; 3] {
    [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| JacobianRow {
        linear_b: axis,
        angular_b: r_b.cross(axis),
        ..JacobianRow::default()
    })
}

/// The three angular rows on B.
#[inline]
fn spin_rows() -> [JacobianRow; 3] {
    [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| JacobianRow { angular_b: axis, ..JacobianRow::default() })
}

impl TargetJoint {
    /// A target joint with the given spring and force cap.
    pub fn new(target: Vec3, hertz: f32, damping_ratio: f32, max_force: f32) -> Self {
        Self {
            target,
            hertz,
            damping_ratio,
            max_force,
            start_center_b: Vec3::ZERO,
            impulse: Vec3::ZERO,
            spin_impulse: Vec3::ZERO,
        }
    }

    /// The pull towards the target, its accumulated impulse clamped to the force cap.
    fn solve_pull(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext) {
        let rows = pull_rows(frames.r_b);
        let weighted = rows.map(|row| row.weighted(a, b));
        let error = (world_anchor(self.start_center_b, b, frames.r_b) - self.target).to_array();
        let scales = ctx.spring(self.hertz, self.damping_ratio);
        let old = self.impulse;
        let Some(delta) = equality_delta(&rows, &weighted, &error, &old.to_array(), a, b, scales) else { return };
        self.impulse = (old + Vec3::from_array(delta)).clamp_length_max(self.max_force * ctx.h);
        let applied = self.impulse - old;
        for (w, lambda) in weighted.iter().zip(applied.to_array()) {
            apply_weighted(w, a, b, lambda);
        }
    }

    /// The implicit spin damper (see the module comment).
    fn solve_spin(&mut self, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext) {
        let rate = SPIN_DAMPING * std::f32::consts::TAU * self.hertz * ctx.h;
        let gamma = rate / (1.0 + rate);
        let scales = RowScales { bias_rate: 0.0, mass_scale: gamma, impulse_scale: 1.0 - gamma };
        let rows = spin_rows();
        let weighted = rows.map(|row| row.weighted(a, b));
        let old = self.spin_impulse.to_array();
        let Some(delta) = equality_delta(&rows, &weighted, &[0.0; 3], &old, a, b, scales) else { return };
        self.spin_impulse += Vec3::from_array(delta);
        for (w, lambda) in weighted.iter().zip(delta) {
            apply_weighted(w, a, b, lambda);
        }
    }
}

impl JointSolver for TargetJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        visit_point(&mut self.impulse, visit);
        visit_point(&mut self.spin_impulse, visit);
    }

    fn begin_step(&mut self, _center_a: Vec3, center_b: Vec3) {
        self.start_center_b = center_b;
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        for (row, lambda) in pull_rows(frames.r_b).iter().zip(self.impulse.to_array()) {
            row.apply(a, b, lambda);
        }
        for (row, lambda) in spin_rows().iter().zip(self.spin_impulse.to_array()) {
            row.apply(a, b, lambda);
        }
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, _in_tree: bool) {
        if b.inv_mass == 0.0 {
            return;
        }
        self.solve_spin(a, b, ctx);
        self.solve_pull(frames, a, b, ctx);
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let rows = pull_rows(frames.r_b);
        let (linear, angular) = rows_reaction(&rows, &self.impulse.to_array(), frames.r_b);
        (linear, angular + self.spin_impulse)
    }
}
