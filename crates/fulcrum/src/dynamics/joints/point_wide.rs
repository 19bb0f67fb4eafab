//! Ball joints four (or eight) at a time: the point part of `parts/point.rs` (read its header
//! for C, J and K) with one joint per lane. The joints of a [`WidePointJoints`] come from one
//! graph colour, so they share no movable body and their velocity updates can be written
//! back independently. Eight lanes are used where the CPU has AVX2 (`simd_avx.rs`); each
//! lane gives the same bits in either width.
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

use super::{anchor_offsets, JointAnchors, JointConstraint, JointModel};
use crate::dynamics::contact_wide::{gather_motion, WideBodies};
use crate::dynamics::parts::equality::RowScales;
use crate::dynamics::simd::{Lanes, Sym3, F4, V3};
#[cfg(target_arch = "x86_64")]
use crate::dynamics::simd_avx::F8;
use crate::dynamics::solver_body::SolverBody;
use crate::math::{Mat3, Pose, Vec3};

/// Ball joints in lanes (four, or eight with [`F8`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WidePointJoints<F: Lanes = F4> {
    pub body_a: F::Indices,
    pub body_b: F::Indices,
    inv_mass_a: F,
    inv_mass_b: F,
    inv_inertia_a: Sym3<F>,
    inv_inertia_b: Sym3<F>,
    /// Anchor offsets from the centres of mass at the start of the step.
    r_a: V3<F>,
    r_b: V3<F>,
    /// c_B − c_A at the start of the step.
    centers: V3<F>,
    /// K⁻¹ at the start of the step (zero for an empty lane), computed for all lanes at once
    /// when they are packed.
    mass: Sym3<F>,
    /// Accumulated impulse on B (world axes).
    impulse: V3<F>,
}

/// Most lanes of any width.
const MAX_LANES: usize = 8;

/// One ball joint as a lane takes it: its solver bodies (A, B), the offsets (r_A, r_B,
/// c_B − c_A) at the start of the step, and its accumulated impulse.
struct PointLane {
    bodies: (u32, u32),
    offsets: (Vec3, Vec3, Vec3),
    impulse: Vec3,
}

impl<F: Lanes> WidePointJoints<F> {
    /// Packs up to `F::COUNT` joints (indices into `joints`) into lanes, with the frames and
    /// impulses their constraints hold.
    #[inline(always)]
    pub fn pack(indices: &[u32], joints: &[JointConstraint], bodies: &[SolverBody]) -> WidePointJoints<F> {
        Self::from_lanes(bodies, |lane| {
            let c = &joints[*indices.get(lane)? as usize];
            let JointModel::Ball(ball) = &c.model else { return None };
            let offsets = (c.frames.r_a, c.frames.r_b, c.frames.centers);
            Some(PointLane { bodies: (c.body_a, c.body_b), offsets, impulse: ball.point.impulse })
        })
    }

    /// Starts the step of lanes kept from the last one (the same joints between the same
    /// bodies; the first `count` lanes in use): the anchors' offsets come from `anchors`
    /// (one per lane) and the step's `poses` (`SolverData::slot_poses`), and each lane keeps
    /// its impulse, which is the one its constraint holds. The same bits as
    /// [`WidePointJoints::pack`] from the constraints, without reading them.
    #[inline(always)]
    pub fn refresh(&mut self, count: usize, anchors: &[JointAnchors], poses: &[(Pose, Vec3)], bodies: &[SolverBody]) {
        let (body_a, body_b, impulse) = (self.body_a, self.body_b, self.impulse);
        *self = Self::from_lanes(bodies, |lane| {
            let at = anchors.get(lane).filter(|_| lane < count)?;
            let ((pose_a, center_a), (pose_b, center_b)) = (&poses[at.pose_a as usize], &poses[at.pose_b as usize]);
            let offsets = anchor_offsets((pose_a, pose_b), (*center_a, *center_b), (at.anchor_a, at.anchor_b));
            let bodies = (body_a.as_ref()[lane], body_b.as_ref()[lane]);
            Some(PointLane { bodies, offsets, impulse: impulse.lane(lane) })
        });
    }

    /// Lanes filled from `lane(i)` (`None`: an empty lane) and the bodies' masses. Each
    /// field is gathered into an array and loaded whole (written lane by lane into the
    /// vectors, every field was read back through a stalled store), then K⁻¹ is found for
    /// all lanes at once.
    #[inline(always)]
    fn from_lanes(bodies: &[SolverBody], lane: impl Fn(usize) -> Option<PointLane>) -> WidePointJoints<F> {
        let (mut body_a, mut body_b) = (F::Indices::default(), F::Indices::default());
        let (mut inv_mass_a, mut inv_mass_b) = ([0.0f32; MAX_LANES], [0.0f32; MAX_LANES]);
        let (mut inv_inertia_a, mut inv_inertia_b) = ([Mat3::ZERO; MAX_LANES], [Mat3::ZERO; MAX_LANES]);
        let (mut r_a, mut r_b, mut centers, mut impulse) =
            ([Vec3::ZERO; MAX_LANES], [Vec3::ZERO; MAX_LANES], [Vec3::ZERO; MAX_LANES], [Vec3::ZERO; MAX_LANES]);
        for i in 0..F::COUNT {
            let Some(PointLane { bodies: (index_a, index_b), offsets, impulse: carried }) = lane(i) else { continue };
            let (a, b) = (&bodies[index_a as usize], &bodies[index_b as usize]);
            (body_a.as_mut()[i], body_b.as_mut()[i]) = (index_a, index_b);
            (inv_mass_a[i], inv_mass_b[i]) = (a.inv_mass, b.inv_mass);
            (inv_inertia_a[i], inv_inertia_b[i]) = (a.inv_inertia, b.inv_inertia);
            (r_a[i], r_b[i], centers[i]) = offsets;
            impulse[i] = carried;
        }
        let mut w = WidePointJoints {
            body_a,
            body_b,
            inv_mass_a: F::build(|i| inv_mass_a[i]),
            inv_mass_b: F::build(|i| inv_mass_b[i]),
            inv_inertia_a: Sym3::build(|i| inv_inertia_a[i]),
            inv_inertia_b: Sym3::build(|i| inv_inertia_b[i]),
            r_a: V3::build(|i| r_a[i]),
            r_b: V3::build(|i| r_b[i]),
            centers: V3::build(|i| centers[i]),
            mass: Sym3::default(),
            impulse: V3::build(|i| impulse[i]),
        };
        w.mass = w.effective_mass().inverse();
        w
    }

    /// K of the four point parts (`parts/point.rs`), one per lane:
    /// K = (1/m_A + 1/m_B)·1 − [r_A]× I_A⁻¹ [r_A]× − [r_B]× I_B⁻¹ [r_B]×. An empty lane has
    /// no mass and K = 0, so its K⁻¹ is zero too.
    #[inline(always)]
    fn effective_mass(&self) -> Sym3<F> {
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
    fn apply(&self, a: &mut WideBodies<F>, b: &mut WideBodies<F>, r_a: &V3<F>, r_b: &V3<F>, p: &V3<F>) {
        a.v = a.v.add_scaled(p, -self.inv_mass_a);
        a.w = a.w.sub(&self.inv_inertia_a.mul(&r_a.cross(p)));
        b.v = b.v.add_scaled(p, self.inv_mass_b);
        b.w = b.w.add(&self.inv_inertia_b.mul(&r_b.cross(p)));
    }

    /// Applies the accumulated impulses.
    #[inline(always)]
    pub fn warm_start(&self, bodies: &mut [SolverBody]) {
        let (mut a, mut b) = (WideBodies::gather(bodies, &self.body_a), WideBodies::gather(bodies, &self.body_b));
        let ((_, turn_a), (_, turn_b)) =
            (gather_motion::<F>(bodies, &self.body_a), gather_motion::<F>(bodies, &self.body_b));
        let (r_a, r_b) = (turn_a.rotate(&self.r_a), turn_b.rotate(&self.r_b));
        self.apply(&mut a, &mut b, &r_a, &r_b, &self.impulse);
        a.scatter(bodies, &self.body_a);
        b.scatter(bodies, &self.body_b);
    }

    /// One block solve of the lanes' point parts with `scales`.
    #[inline(always)]
    pub fn solve(&mut self, bodies: &mut [SolverBody], scales: RowScales) {
        let (mut a, mut b) = (WideBodies::gather(bodies, &self.body_a), WideBodies::gather(bodies, &self.body_b));
        let ((shift_a, turn_a), (shift_b, turn_b)) =
            (gather_motion::<F>(bodies, &self.body_a), gather_motion::<F>(bodies, &self.body_b));
        let (r_a, r_b) = (turn_a.rotate(&self.r_a), turn_b.rotate(&self.r_b));
        let separation = self.centers.add(&shift_b).sub(&shift_a).add(&r_b).sub(&r_a);
        let velocity = b.velocity_at(&r_b).sub(&a.velocity_at(&r_a));
        let target = velocity.add_scaled(&separation, F::fill(scales.bias_rate));
        let delta = self
            .mass
            .mul(&target)
            .scale(F::fill(-scales.mass_scale))
            .add_scaled(&self.impulse, F::fill(-scales.impulse_scale));
        self.impulse = self.impulse.add(&delta);
        self.apply(&mut a, &mut b, &r_a, &r_b, &delta);
        a.scatter(bodies, &self.body_a);
        b.scatter(bodies, &self.body_b);
    }
}

/// The ball-joint lane groups of a step: four lanes to a group, or eight where the CPU has
/// AVX2. Either width gives the same bits (`simd_avx.rs`).
#[derive(Default)]
pub(crate) struct BallLanes {
    /// Lanes per group (4 or 8).
    pub width: usize,
    pub four: Vec<WidePointJoints>,
    #[cfg(target_arch = "x86_64")]
    pub eight: Vec<WidePointJoints<F8>>,
}

impl BallLanes {
    /// Chooses the width for the next groups: eight when `allow_eight` and the CPU has AVX2.
    pub fn choose_width(&mut self, allow_eight: bool) {
        let eight = allow_eight && crate::dynamics::simd_avx::eight_lanes_available();
        self.width = if eight { 8 } else { 4 };
    }

    /// Forgets the last step's groups.
    pub fn clear(&mut self) {
        self.four.clear();
        #[cfg(target_arch = "x86_64")]
        self.eight.clear();
    }

    /// Copies the impulse of lane `at` (group × width + lane) back into its joint `c`.
    pub fn unpack(&self, at: usize, c: &mut JointConstraint) {
        let (group, lane) = (at / self.width.max(1), at % self.width.max(1));
        #[cfg(target_arch = "x86_64")]
        if self.width == 8 {
            if let Some(wide) = self.eight.get(group) {
                wide.unpack(lane, c);
            }
            return;
        }
        if let Some(wide) = self.four.get(group) {
            wide.unpack(lane, c);
        }
    }
}

/// The eight-lane kernels compiled for AVX2, everything above inlined into them.
#[cfg(target_arch = "x86_64")]
impl WidePointJoints<F8> {
    /// [`WidePointJoints::pack`] in eight lanes.
    ///
    /// # Safety
    /// The CPU has AVX2 (`simd_avx::eight_lanes_available`).
    #[target_feature(enable = "avx2")]
    pub unsafe fn pack_avx2(indices: &[u32], joints: &[JointConstraint], bodies: &[SolverBody]) -> Self {
        Self::pack(indices, joints, bodies)
    }

    /// [`WidePointJoints::refresh`] in eight lanes.
    ///
    /// # Safety
    /// As [`WidePointJoints::pack_avx2`].
    #[target_feature(enable = "avx2")]
    pub unsafe fn refresh_avx2(
        &mut self,
        count: usize,
        anchors: &[JointAnchors],
        poses: &[(Pose, Vec3)],
        bodies: &[SolverBody],
    ) {
        self.refresh(count, anchors, poses, bodies)
    }

    /// [`WidePointJoints::warm_start`] in eight lanes.
    ///
    /// # Safety
    /// As [`WidePointJoints::pack_avx2`].
    #[target_feature(enable = "avx2")]
    pub unsafe fn warm_start_avx2(&self, bodies: &mut [SolverBody]) {
        self.warm_start(bodies)
    }

    /// [`WidePointJoints::solve`] in eight lanes.
    ///
    /// # Safety
    /// As [`WidePointJoints::pack_avx2`].
    #[target_feature(enable = "avx2")]
    pub unsafe fn solve_avx2(&mut self, bodies: &mut [SolverBody], scales: RowScales) {
        self.solve(bodies, scales)
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

    /// A 20 × 20 net of spheres joined by ball joints (760 of them in lanes), pinned at two
    /// corners, swinging and folding onto a ground box for 240 steps: every body's position,
    /// rotation and velocities, as bits.
    fn swinging_net(four_lanes_only: bool) -> (Vec<u32>, usize) {
        use crate::prelude::*;
        let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
        world.solver.four_lanes_only = four_lanes_only;
        let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -0.5, 0.0))).unwrap();
        world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap())).unwrap();
        let side = 20;
        let net: Vec<BodyId> = (0..side * side)
            .map(|n| {
                let position =
                    Vec3::new(0.5 * (n % side) as f32, 6.0 + 0.1 * (n / side) as f32, 0.5 * (n / side) as f32);
                let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
                world.create_collider(body, &ColliderDef::new(Shape::sphere(0.15).unwrap())).unwrap();
                body
            })
            .collect();
        for n in 0..side * side {
            let here = world.body(net[n]).unwrap().position();
            if n % side < side - 1 {
                world
                    .create_joint(&JointDef::ball(Some(net[n]), net[n + 1], here + Vec3::new(0.25, 0.0, 0.0)))
                    .unwrap();
            }
            if n / side < side - 1 {
                let next = world.body(net[n + side]).unwrap().position();
                world.create_joint(&JointDef::ball(Some(net[n]), net[n + side], 0.5 * (here + next))).unwrap();
            }
        }
        for corner in [0, side - 1] {
            let anchor = world.body(net[corner]).unwrap().position();
            world.create_joint(&JointDef::ball(None, net[corner], anchor)).unwrap();
        }
        let mut bits = Vec::new();
        for step in 0..240 {
            world.step(1.0 / 60.0).unwrap();
            if step % 40 == 39 {
                crate::dynamics::contact_kernels::tests::state_bits(&world, &net, &mut bits);
            }
        }
        let lanes = &world.solver.ball_lanes;
        #[cfg(target_arch = "x86_64")]
        let groups = lanes.four.len() + lanes.eight.len();
        #[cfg(not(target_arch = "x86_64"))]
        let groups = lanes.four.len();
        assert!(groups * lanes.width >= 700, "{groups} groups of {}", lanes.width);
        (bits, lanes.width)
    }

    /// Ball joints solved eight to a group (on a CPU with AVX2) give the bits they give four
    /// to a group: each lane does the same IEEE operations in the same order.
    #[test]
    fn eight_lanes_give_the_bits_of_four() {
        let (four, four_width) = swinging_net(true);
        let (eight, eight_width) = swinging_net(false);
        assert_eq!(four_width, 4);
        let expected = if crate::dynamics::simd_avx::eight_lanes_available() { 8 } else { 4 };
        assert_eq!(eight_width, expected);
        assert_eq!(four.len(), eight.len());
        crate::dynamics::contact_kernels::tests::assert_same_bits(&four, &eight, "the widths");
        // The net moved: the comparison is not of bodies at rest.
        assert!(four.chunks(13).any(|body| f32::from_bits(body[7]).abs() > 0.5));
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
