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
use crate::dynamics::contact_wide::{gather_motion, WideBodies};
use crate::dynamics::parts::equality::RowScales;
use crate::dynamics::simd::{Sym3, F4, V3};
use crate::dynamics::solver_body::SolverBody;
use crate::math::{Mat3, Vec3};

/// Four ball joints in lanes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WidePointJoints {
    pub body_a: [u32; 4],
    pub body_b: [u32; 4],
    inv_mass_a: F4,
    inv_mass_b: F4,
    inv_inertia_a: Sym3,
    inv_inertia_b: Sym3,
    /// Anchor offsets from the centres of mass at the start of the step.
    r_a: V3,
    r_b: V3,
    /// c_B − c_A at the start of the step.
    centers: V3,
    /// K⁻¹ at the start of the step (zero for an empty lane), computed for the four lanes at
    /// once when they are packed.
    mass: Sym3,
    /// Accumulated impulse on B (world axes).
    impulse: V3,
}

impl WidePointJoints {
    /// Packs up to four joints (indices into `joints`) into lanes. Each field is gathered
    /// into an array of four and loaded whole (written lane by lane into the vectors, every
    /// field was read back through a stalled store), then K⁻¹ is found for the four at once.
    pub fn pack(indices: &[u32], joints: &[JointConstraint], bodies: &[SolverBody]) -> WidePointJoints {
        let (mut body_a, mut body_b) = ([0u32; 4], [0u32; 4]);
        let (mut inv_mass_a, mut inv_mass_b) = ([0.0f32; 4], [0.0f32; 4]);
        let (mut inv_inertia_a, mut inv_inertia_b) = ([Mat3::ZERO; 4], [Mat3::ZERO; 4]);
        let (mut r_a, mut r_b, mut centers, mut impulse) =
            ([Vec3::ZERO; 4], [Vec3::ZERO; 4], [Vec3::ZERO; 4], [Vec3::ZERO; 4]);
        for (lane, &index) in indices.iter().enumerate().take(4) {
            let c = &joints[index as usize];
            let JointModel::Ball(ball) = &c.model else { continue };
            let (a, b) = (&bodies[c.body_a as usize], &bodies[c.body_b as usize]);
            (body_a[lane], body_b[lane]) = (c.body_a, c.body_b);
            (inv_mass_a[lane], inv_mass_b[lane]) = (a.inv_mass, b.inv_mass);
            (inv_inertia_a[lane], inv_inertia_b[lane]) = (a.inv_inertia, b.inv_inertia);
            (r_a[lane], r_b[lane], centers[lane]) = (c.frames.r_a, c.frames.r_b, c.frames.centers);
            impulse[lane] = ball.point.impulse;
        }
        let mut w = WidePointJoints {
            body_a,
            body_b,
            inv_mass_a: F4::new(inv_mass_a),
            inv_mass_b: F4::new(inv_mass_b),
            inv_inertia_a: Sym3::from_lanes(inv_inertia_a),
            inv_inertia_b: Sym3::from_lanes(inv_inertia_b),
            r_a: V3::from_lanes(r_a),
            r_b: V3::from_lanes(r_b),
            centers: V3::from_lanes(centers),
            mass: Sym3::default(),
            impulse: V3::from_lanes(impulse),
        };
        w.mass = w.effective_mass().inverse();
        w
    }

    /// K of the four point parts (`parts/point.rs`), one per lane:
    /// K = (1/m_A + 1/m_B)·1 − [r_A]× I_A⁻¹ [r_A]× − [r_B]× I_B⁻¹ [r_B]×. An empty lane has
    /// no mass and K = 0, so its K⁻¹ is zero too.
    fn effective_mass(&self) -> Sym3 {
        let masses = self.inv_mass_a + self.inv_mass_b;
        let linear = Sym3 { xx: masses, yy: masses, zz: masses, ..Sym3::default() };
        linear.add(&self.inv_inertia_a.through_arm(&self.r_a)).add(&self.inv_inertia_b.through_arm(&self.r_b))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::contact_wide::{put, put3, put_sym};
    use crate::math::Quat;

    fn body(inv_mass: f32, turn: f32, diagonal: Vec3) -> SolverBody {
        let rotation = Mat3::from_quat(Quat::from_euler(glam::EulerRot::XYZ, turn, 0.7 * turn, -0.4 * turn));
        let inv_inertia = rotation * Mat3::from_diagonal(diagonal) * rotation.transpose();
        SolverBody { inv_mass, inv_inertia, ..SolverBody::STATIC }
    }

    /// K⁻¹ of four lanes at once equals each lane's own (`point_mass`) to rounding, for
    /// bodies of unlike masses, inertias and anchors, one of them the static world.
    #[test]
    fn four_lane_inverse_mass_matches_one_lane() {
        let cases = [
            (
                body(1.0, 0.3, Vec3::new(6.0, 2.0, 4.0)),
                body(0.5, -1.1, Vec3::new(1.0, 3.0, 2.0)),
                Vec3::new(0.5, -0.2, 0.1),
                Vec3::new(-0.4, 0.3, 0.0),
            ),
            (
                body(0.01, 1.7, Vec3::new(0.02, 0.05, 0.03)),
                body(2.0, 0.2, Vec3::new(9.0, 9.0, 9.0)),
                Vec3::new(2.0, 0.0, -1.0),
                Vec3::new(0.0, 0.1, 0.0),
            ),
            (
                SolverBody::STATIC,
                body(1.0, 0.9, Vec3::new(3.0, 1.0, 2.0)),
                Vec3::new(1.0, 2.0, 3.0),
                Vec3::new(0.0, -0.5, 0.25),
            ),
            (
                body(4.0, -2.3, Vec3::new(12.0, 30.0, 20.0)),
                body(4.0, 2.3, Vec3::new(12.0, 30.0, 20.0)),
                Vec3::new(0.05, 0.05, 0.0),
                Vec3::new(-0.05, -0.05, 0.0),
            ),
        ];
        let mut w = WidePointJoints::default();
        for (lane, (a, b, r_a, r_b)) in cases.iter().enumerate() {
            put(&mut w.inv_mass_a, lane, a.inv_mass);
            put(&mut w.inv_mass_b, lane, b.inv_mass);
            put_sym(&mut w.inv_inertia_a, lane, &a.inv_inertia);
            put_sym(&mut w.inv_inertia_b, lane, &b.inv_inertia);
            put3(&mut w.r_a, lane, *r_a);
            put3(&mut w.r_b, lane, *r_b);
        }
        let wide: Sym3 = w.effective_mass().inverse();
        for (lane, (a, b, r_a, r_b)) in cases.iter().enumerate() {
            let one = crate::dynamics::parts::point::point_mass(*r_a, *r_b, a, b);
            let four = wide.lane(lane);
            let size = one.abs().to_cols_array().into_iter().fold(0.0f32, f32::max);
            let worst = (four - one).abs().to_cols_array().into_iter().fold(0.0f32, f32::max);
            assert!(worst <= 1e-5 * size, "lane {lane}: {four:?} against {one:?}");
        }
    }
}
