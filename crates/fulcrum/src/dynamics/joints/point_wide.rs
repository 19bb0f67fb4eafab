//! Ball joints four at a time: the point part of `parts/point.rs` (read its header for C, J
//! and K) with one joint per lane. The four joints of a [`WidePointJoints`] come from one
//! graph colour, so they share no movable body and their velocity updates can be written
//! back independently.
//!
//! Which joints go here: plain ball joints (no cone or twist limit) that the exact tree
//! solve does not take, which is what large loopy structures (grids, nets, cloth-like
//! meshes of bodies) are made of. Per step each lane keeps the anchors' offsets, the
//! bodies' inverse masses and inertias and K⁻¹ from the start of the step, like the wide
//! contacts; the offsets are turned with the bodies' rotation since then in every pass:
//!
//! ```text
//! r_A = Δq_A r_A0,  r_B = Δq_B r_B0,   d = (c_B − c_A)₀ + Δp_B − Δp_A + r_B − r_A
//! Δλ = s_m K⁻¹ (−(v_B + ω_B × r_B − v_A − ω_A × r_A) − β d) − s_i λ
//! ```
//! with (β, s_m, s_i) the pass's rigid-row softness.

use super::{JointConstraint, JointModel};
use crate::dynamics::contact_wide::{gather_motion, put, put3, put_sym, WideBodies};
use crate::dynamics::parts::equality::RowScales;
use crate::dynamics::parts::point::point_mass;
use crate::dynamics::simd::{Sym3, F4, V3};
use crate::dynamics::solver_body::SolverBody;

/// Four ball joints in lanes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WidePointJoints {
    pub body_a: [u32; 4],
    pub body_b: [u32; 4],
    /// Index of each lane's joint in the step's joint constraints (`u32::MAX`: empty lane).
    pub joint: [u32; 4],
    inv_mass_a: F4,
    inv_mass_b: F4,
    inv_inertia_a: Sym3,
    inv_inertia_b: Sym3,
    /// Anchor offsets from the centres of mass at the start of the step.
    r_a: V3,
    r_b: V3,
    /// c_B − c_A at the start of the step.
    centers: V3,
    /// K⁻¹ at the start of the step (zero for an empty lane).
    mass: Sym3,
    /// Accumulated impulse on B (world axes).
    impulse: V3,
}

impl WidePointJoints {
    /// Packs up to four joints (indices into `joints`) into lanes.
    pub fn pack(indices: &[u32], joints: &[JointConstraint], bodies: &[SolverBody]) -> WidePointJoints {
        let mut w = WidePointJoints { joint: [u32::MAX; 4], ..Default::default() };
        for (lane, &index) in indices.iter().enumerate().take(4) {
            w.set_lane(lane, index, &joints[index as usize], bodies);
        }
        w
    }

    fn set_lane(&mut self, lane: usize, index: u32, c: &JointConstraint, bodies: &[SolverBody]) {
        let (a, b) = (&bodies[c.body_a as usize], &bodies[c.body_b as usize]);
        let JointModel::Ball(ball) = &c.model else { return };
        self.joint[lane] = index;
        self.body_a[lane] = c.body_a;
        self.body_b[lane] = c.body_b;
        put(&mut self.inv_mass_a, lane, a.inv_mass);
        put(&mut self.inv_mass_b, lane, b.inv_mass);
        put_sym(&mut self.inv_inertia_a, lane, &a.inv_inertia);
        put_sym(&mut self.inv_inertia_b, lane, &b.inv_inertia);
        put3(&mut self.r_a, lane, c.frames.r_a);
        put3(&mut self.r_b, lane, c.frames.r_b);
        put3(&mut self.centers, lane, c.frames.centers);
        put_sym(&mut self.mass, lane, &point_mass(c.frames.r_a, c.frames.r_b, a, b));
        put3(&mut self.impulse, lane, ball.point.impulse);
    }

    /// Copies lane `lane`'s impulse back into its joint `c`.
    pub fn unpack(&self, lane: usize, c: &mut JointConstraint) {
        if let JointModel::Ball(ball) = &mut c.model {
            ball.point.impulse = self.impulse.lane(lane);
        }
    }

    /// Applies impulse `p` at `r_a` to A (negative) and at `r_b` to B (positive).
    #[inline(always)]
    fn apply(&self, a: &mut WideBodies, b: &mut WideBodies, r_a: &V3, r_b: &V3, p: &V3) {
        a.v = a.v.add_scaled(p, -self.inv_mass_a);
        a.w = a.w.sub(&self.inv_inertia_a.mul(&r_a.cross(p)));
        b.v = b.v.add_scaled(p, self.inv_mass_b);
        b.w = b.w.add(&self.inv_inertia_b.mul(&r_b.cross(p)));
    }

    /// Applies the accumulated impulses.
    pub fn warm_start(&self, bodies: &mut [SolverBody]) {
        let (mut a, mut b) = (WideBodies::gather(bodies, &self.body_a), WideBodies::gather(bodies, &self.body_b));
        let ((_, turn_a), (_, turn_b)) = (gather_motion(bodies, &self.body_a), gather_motion(bodies, &self.body_b));
        let (r_a, r_b) = (turn_a.rotate(&self.r_a), turn_b.rotate(&self.r_b));
        self.apply(&mut a, &mut b, &r_a, &r_b, &self.impulse);
        a.scatter(bodies, &self.body_a);
        b.scatter(bodies, &self.body_b);
    }

    /// One block solve of the four point parts with `scales`.
    pub fn solve(&mut self, bodies: &mut [SolverBody], scales: RowScales) {
        let (mut a, mut b) = (WideBodies::gather(bodies, &self.body_a), WideBodies::gather(bodies, &self.body_b));
        let ((shift_a, turn_a), (shift_b, turn_b)) =
            (gather_motion(bodies, &self.body_a), gather_motion(bodies, &self.body_b));
        let (r_a, r_b) = (turn_a.rotate(&self.r_a), turn_b.rotate(&self.r_b));
        let separation = self.centers.add(&shift_b).sub(&shift_a).add(&r_b).sub(&r_a);
        let velocity = b.velocity_at(&r_b).sub(&a.velocity_at(&r_a));
        let target = velocity.add_scaled(&separation, F4::splat(scales.bias_rate));
        let delta = self
            .mass
            .mul(&target)
            .scale(F4::splat(-scales.mass_scale))
            .add_scaled(&self.impulse, F4::splat(-scales.impulse_scale));
        self.impulse = self.impulse.add(&delta);
        self.apply(&mut a, &mut b, &r_a, &r_b, &delta);
        a.scatter(bodies, &self.body_a);
        b.scatter(bodies, &self.body_b);
    }
}
