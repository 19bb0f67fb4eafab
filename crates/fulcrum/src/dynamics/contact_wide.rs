//! The contact constraints in four SIMD lanes, one manifold per lane: the data, the warm
//! start and the velocity passes. The equations (C, J, K, bias, friction) are written out in
//! `contact_solver.rs`; this is their only implementation. The lanes of a [`WideContact`] come
//! from one graph colour, so they share no movable body and their velocity updates can be
//! written back independently; a pair that fits no colour gets a `WideContact` of its own
//! (one active lane).
//!
//! Manifolds with fewer than four points are padded with inactive points (`active` 0, no mass,
//! decoupled identity rows in the block), empty lanes with the shared static body: they apply
//! no impulse.
// Small fixed-size matrices read best with explicit row/column indices.
#![allow(clippy::needless_range_loop)]

use super::block;
use super::contact_solver::SolveParams;
use super::simd::{lane_bits, Lanes, Sym3, F4, Q4, V3};
use super::solver_body::SolverBody;
use crate::collision::manifold::MAX_MANIFOLD_POINTS;
use crate::math::{Mat3, Vec3};

/// Approach speed (m/s) below which a manifold whose points would all be at rest without any
/// impulse is treated as not touching in this pass.
const APPROACH_TOLERANCE: f32 = 1e-5;

/// One manifold point in four lanes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WidePoint<F: Lanes = F4> {
    /// Anchor from A's centre of mass, world axes at the start of the step, m.
    pub anchor_a: V3<F>,
    /// Anchor from B's centre of mass, m.
    pub anchor_b: V3<F>,
    /// Separation minus n·(r_B − r_A), so the current separation is a dot product per body, m.
    pub base_separation: F,
    /// Accumulated normal impulse of this substep / step, N·s.
    pub normal_impulse: F,
}

impl<F: Lanes> WidePoint<F> {
    /// r_A × n and r_B × n: the angular parts of the normal row's Jacobian. Computed where they
    /// are used rather than stored: two cross products cost less than streaming 96 more bytes
    /// per point through every pass (the constraints of a big scene do not fit in the caches).
    #[inline(always)]
    pub(crate) fn arms(&self, normal: &V3<F>) -> (V3<F>, V3<F>) {
        (self.anchor_a.cross(normal), self.anchor_b.cross(normal))
    }
}

/// Up to four contact constraints of one colour, or one pair that fits no colour.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WideContact<F: Lanes = F4> {
    pub body_a: F::Indices,
    pub body_b: F::Indices,
    /// Inverse masses and world inverse inertias at the start of the step.
    pub inv_mass_a: F,
    pub inv_mass_b: F,
    pub inv_inertia_a: Sym3<F>,
    pub inv_inertia_b: Sym3<F>,
    /// Contact normal from A to B (the tangents that complete the basis are
    /// [`WideContact::tangents`]).
    pub normal: V3<F>,
    /// Friction centre relative to A's and B's centres of mass, m.
    pub friction_anchor_a: V3<F>,
    pub friction_anchor_b: V3<F>,
    /// Inverse of the 2×2 tangent K: [k11, k12, k22].
    pub tangent_mass: [F; 3],
    /// Accumulated friction impulse along tangent1 and tangent2, N·s.
    pub friction_impulse: [F; 2],
    /// 1/K of the twist row, and its accumulated angular impulse, N·m·s.
    pub twist_mass: F,
    pub twist_impulse: F,
    /// Rolling resistance: the torque bound per newton of normal force, c·ρ (m; 0 in lanes
    /// without), and the accumulated angular impulse along the tangents, N·m·s (the rows'
    /// mass is [`WideContact::rolling_mass`]).
    pub rolling_lever: F,
    pub rolling_impulse: [F; 2],
    /// Some lane resists rolling (otherwise its rows are skipped).
    pub rolling: bool,
    /// Friction coefficient μ and restitution e of the pair.
    pub friction: F,
    pub restitution: F,
    /// The pair's softness (bias rate, mass and impulse scales of the biased pass).
    pub bias_rate: F,
    pub mass_scale: F,
    pub impulse_scale: F,
    /// Overlap beyond which a point is deep (`push_out.rs`), m.
    pub deep_depth: F,
    /// Some lane has a point deeper than its deep depth at the start of the step.
    pub starts_deep: bool,
    /// Block K (padded rows are identity rows).
    pub k: [F; 10],
    /// Its Cholesky factor (diagonal stored inverted) and regularisation.
    pub factor: [F; 10],
    pub epsilon: F,
    /// Lanes whose factor is valid (bit per lane).
    pub factor_valid: u32,
    /// Each lane's block active set (bit i = point i).
    pub mask: F::Indices,
    /// Points in each lane (0 in an empty lane): point i is real where this is above i.
    pub point_count: F,
    /// Most points in any lane: loops stop there (1 for sphere contacts, 4 for box faces).
    pub max_points: usize,
    pub points: [WidePoint<F>; MAX_MANIFOLD_POINTS],
}

/// Velocity state of the A (or B) bodies of the lanes.
#[derive(Clone, Copy)]
pub(crate) struct WideBodies<F: Lanes = F4> {
    pub v: V3<F>,
    pub w: V3<F>,
}

impl<F: Lanes> WideBodies<F> {
    #[inline(always)]
    pub(crate) fn gather(bodies: &[SolverBody], index: &F::Indices) -> WideBodies<F> {
        let index = index.as_ref();
        WideBodies {
            v: F::vectors(|lane| bodies[index[lane] as usize].linear_velocity),
            w: F::vectors(|lane| bodies[index[lane] as usize].angular_velocity),
        }
    }

    /// Writes velocities back to the movable bodies; lanes on the shared static body or a
    /// kinematic body are skipped (no impulse changes them, and the lanes of one colour may
    /// share them: skipping keeps the writes of one colour disjoint, `workers.rs`).
    #[inline(always)]
    pub(crate) fn scatter(&self, bodies: &mut [SolverBody], index: &F::Indices) {
        let index = index.as_ref();
        F::each_vector_pair(&self.v, &self.w, |lane, v, w| {
            let body = &mut bodies[index[lane] as usize];
            if body.movable() {
                body.linear_velocity = v;
                body.angular_velocity = w;
            }
        });
    }

    #[inline(always)]
    pub(crate) fn velocity_at(&self, r: &V3<F>) -> V3<F> {
        self.v.add(&self.w.cross(r))
    }
}

/// Displacement of the bodies since the start of the step (for current separations).
#[inline(always)]
pub(crate) fn gather_motion<F: Lanes>(bodies: &[SolverBody], index: &F::Indices) -> (V3<F>, Q4<F>) {
    let index = index.as_ref();
    (
        F::vectors(|lane| bodies[index[lane] as usize].delta_position),
        F::quats(|lane| bodies[index[lane] as usize].delta_rotation),
    )
}

/// Writes displacements back to the movable bodies (as [`WideBodies::scatter`]).
#[inline(always)]
pub(crate) fn scatter_motion(bodies: &mut [SolverBody], index: &[u32; 4], dp: &V3, dq: &Q4) {
    let (dp, dq) = (dp.to_aligned(), dq.to_aligned());
    for (lane, &i) in index.iter().enumerate() {
        let body = &mut bodies[i as usize];
        if body.movable() {
            body.delta_position = dp[lane];
            body.delta_rotation = dq[lane];
        }
    }
}

/// Applies impulse `p` at `r` to A (negative) and B (positive).
#[inline(always)]
pub(crate) fn apply<F: Lanes>(
    c: &WideContact<F>,
    a: &mut WideBodies<F>,
    b: &mut WideBodies<F>,
    ra: &V3<F>,
    rb: &V3<F>,
    p: &V3<F>,
) {
    a.v = a.v.add_scaled(p, -c.inv_mass_a);
    a.w = a.w.sub(&c.inv_inertia_a.mul(&ra.cross(p)));
    b.v = b.v.add_scaled(p, c.inv_mass_b);
    b.w = b.w.add(&c.inv_inertia_b.mul(&rb.cross(p)));
}

#[inline(always)]
pub(crate) fn put<F: Lanes>(target: &mut F, lane: usize, value: f32) {
    target.set(lane, value);
}

#[inline(always)]
pub(crate) fn put3<F: Lanes>(target: &mut V3<F>, lane: usize, value: Vec3) {
    put(&mut target.x, lane, value.x);
    put(&mut target.y, lane, value.y);
    put(&mut target.z, lane, value.z);
}

#[inline(always)]
pub(crate) fn put_sym<F: Lanes>(target: &mut Sym3<F>, lane: usize, m: &Mat3) {
    put(&mut target.xx, lane, m.x_axis.x);
    put(&mut target.xy, lane, m.y_axis.x);
    put(&mut target.xz, lane, m.z_axis.x);
    put(&mut target.yy, lane, m.y_axis.y);
    put(&mut target.yz, lane, m.z_axis.y);
    put(&mut target.zz, lane, m.z_axis.z);
}

impl<F: Lanes> WideContact<F> {
    /// Four empty lanes: the shared static body, no points, identity blocks.
    #[inline(always)]
    pub(crate) fn empty() -> WideContact<F> {
        let identity: [F; 10] = std::array::from_fn(|e| {
            let diagonal = [0, 4, 7, 9].contains(&e);
            F::fill(if diagonal { 1.0 } else { 0.0 })
        });
        let mut w = WideContact {
            mass_scale: F::fill(1.0),
            k: identity,
            factor: identity,
            factor_valid: lane_bits::<F>(),
            ..Default::default()
        };
        w.normal.y = F::fill(1.0);
        w
    }

    // What follows is derived in every pass from what is stored, not stored: the
    // constraints of a big scene do not fit in the caches and stream from memory in each of
    // a step's passes, and these take a few operations per lane group.

    /// 1 where the lane has a point `i`, 0 where `i` is padding.
    #[inline(always)]
    pub(crate) fn active(&self, i: usize) -> F {
        self.point_count.above(F::fill(i as f32)).choose(F::fill(1.0), F::fill(0.0))
    }

    /// The tangents that complete the normal's basis (`math::orthonormal_basis`, lane by lane
    /// in the same operations, so the same bits).
    #[inline(always)]
    pub(crate) fn tangents(&self) -> (V3<F>, V3<F>) {
        let n = &self.normal;
        // copysign(1, n.z): the sign bit of n.z on 1.
        let sign = (n.z & F::fill(-0.0)) | F::fill(1.0);
        let a = F::fill(-1.0) / (sign + n.z);
        let b = n.x * n.y * a;
        let t1 = V3 { x: F::fill(1.0) + sign * n.x * n.x * a, y: sign * b, z: -sign * n.x };
        let t2 = V3 { x: b, y: sign + n.y * n.y * a, z: -n.y };
        (t1, t2)
    }

    /// 1 where point `i` is in the lane's block active set (expected to push, `mask`), else 0.
    #[inline(always)]
    pub(crate) fn in_set(&self, i: usize) -> F {
        F::flag(&self.mask, i as u32)
    }

    /// 1/K of point `i`'s normal row alone (0 for padding).
    #[inline(always)]
    pub(crate) fn normal_mass(&self, i: usize) -> F {
        self.active(i) * (F::fill(1.0) / self.k[block::sym_index(i, i)])
    }

    /// Point `i`'s distance from the friction centre, m (the twist friction's lever; 0 for
    /// padding).
    #[inline(always)]
    pub(crate) fn lever_arm(&self, i: usize) -> F {
        let offset = self.points[i].anchor_a.sub(&self.friction_anchor_a);
        offset.dot(&offset).sqrt() * self.active(i)
    }

    /// The inverse of the rolling rows' 2×2 angular K in the tangent basis (t₁, t₂):
    /// K_ij = t_i·(I_A⁻¹ + I_B⁻¹) t_j.
    #[inline(always)]
    pub(crate) fn rolling_mass(&self, (t1, t2): (&V3<F>, &V3<F>)) -> [F; 3] {
        let (i1, i2) = (
            self.inv_inertia_a.mul(t1).add(&self.inv_inertia_b.mul(t1)),
            self.inv_inertia_a.mul(t2).add(&self.inv_inertia_b.mul(t2)),
        );
        inverse_2x2(t1.dot(&i1), t1.dot(&i2), t2.dot(&i2))
    }

    /// After an exact solve of `lane`: when the points that push changed, re-factor the lane's
    /// block for the new set so the next passes take the fast path again.
    fn adopt_active_set(&mut self, lane: usize, k: &block::Sym4, x: &[f32; 4]) {
        let real = self.point_count.get(lane) as usize;
        let pushing = (0..real).filter(|&i| x[i] > 0.0).fold(0u8, |m, i| m | (1 << i));
        let mask = if pushing == 0 { block::full_mask(real) } else { pushing };
        if mask as u32 == self.mask.as_ref()[lane] {
            return;
        }
        let (packed, epsilon, valid, _) = block::BlockFactor::masked(k, 4, mask).parts();
        self.mask.as_mut()[lane] = mask as u32;
        self.factor_valid = (self.factor_valid & !(1 << lane)) | ((valid as u32) << lane);
        put(&mut self.epsilon, lane, epsilon);
        for (e, value) in packed.iter().enumerate() {
            put(&mut self.factor[e], lane, *value);
        }
    }
}

/// Applies the accumulated impulses of every lane as a first guess.
pub(crate) fn warm_start<F: Lanes>(c: &WideContact<F>, bodies: &mut [SolverBody]) {
    warm_start_lanes(c, bodies)
}

/// [`warm_start`], inlined where it is used (in four lanes into `warm_start`, in eight into
/// the AVX2 entry points of `contact_kernels.rs`).
#[inline(always)]
pub(crate) fn warm_start_lanes<F: Lanes>(c: &WideContact<F>, bodies: &mut [SolverBody]) {
    match c.max_points {
        0 | 1 => warm_start_points::<F, 1>(c, bodies),
        2 => warm_start_points::<F, 2>(c, bodies),
        3 => warm_start_points::<F, 3>(c, bodies),
        _ => warm_start_points::<F, 4>(c, bodies),
    }
}

/// [`warm_start`] for manifolds of at most `M` points (loops unrolled per count).
#[inline(always)]
fn warm_start_points<F: Lanes, const M: usize>(c: &WideContact<F>, bodies: &mut [SolverBody]) {
    let mut a = WideBodies::gather(bodies, &c.body_a);
    let mut b = WideBodies::gather(bodies, &c.body_b);
    let mut normal_sum = F::fill(0.0);
    let (mut arm_sum_a, mut arm_sum_b) = (c.normal.scale(c.twist_impulse), c.normal.scale(c.twist_impulse));
    for p in &c.points[..M] {
        let (arm_a, arm_b) = p.arms(&c.normal);
        normal_sum += p.normal_impulse;
        arm_sum_a = arm_sum_a.add_scaled(&arm_a, p.normal_impulse);
        arm_sum_b = arm_sum_b.add_scaled(&arm_b, p.normal_impulse);
    }
    let (tangent1, tangent2) = c.tangents();
    let friction = tangent1.scale(c.friction_impulse[0]).add_scaled(&tangent2, c.friction_impulse[1]);
    arm_sum_a = arm_sum_a.add(&c.friction_anchor_a.cross(&friction));
    arm_sum_b = arm_sum_b.add(&c.friction_anchor_b.cross(&friction));
    if c.rolling {
        let rolling = tangent1.scale(c.rolling_impulse[0]).add_scaled(&tangent2, c.rolling_impulse[1]);
        arm_sum_a = arm_sum_a.add(&rolling);
        arm_sum_b = arm_sum_b.add(&rolling);
    }
    let linear = c.normal.scale(normal_sum).add(&friction);
    a.v = a.v.add_scaled(&linear, -c.inv_mass_a);
    a.w = a.w.sub(&c.inv_inertia_a.mul(&arm_sum_a));
    b.v = b.v.add_scaled(&linear, c.inv_mass_b);
    b.w = b.w.add(&c.inv_inertia_b.mul(&arm_sum_b));
    a.scatter(bodies, &c.body_a);
    b.scatter(bodies, &c.body_b);
}

/// Applies the normal impulse changes `delta` of all points at once:
/// Δv = ∓ m⁻¹ n Σδ, Δω = ∓ I⁻¹ Σ δ_i (r_i × n).
#[inline(always)]
fn apply_normal_deltas<F: Lanes, const M: usize>(
    c: &WideContact<F>,
    arms: &[(V3<F>, V3<F>); 4],
    a: &mut WideBodies<F>,
    b: &mut WideBodies<F>,
    delta: &[F; 4],
) {
    let mut sum = F::fill(0.0);
    let mut arm_a = V3::default();
    let mut arm_b = V3::default();
    for ((point_a, point_b), d) in arms[..M].iter().zip(delta) {
        sum += *d;
        arm_a = arm_a.add_scaled(point_a, *d);
        arm_b = arm_b.add_scaled(point_b, *d);
    }
    let linear = c.normal.scale(sum);
    a.v = a.v.add_scaled(&linear, -c.inv_mass_a);
    a.w = a.w.sub(&c.inv_inertia_a.mul(&arm_a));
    b.v = b.v.add_scaled(&linear, c.inv_mass_b);
    b.w = b.w.add(&c.inv_inertia_b.mul(&arm_b));
}

/// One velocity pass over four constraints: normal rows (block or sequential), then friction.
pub(crate) fn solve<F: Lanes>(c: &mut WideContact<F>, bodies: &mut [SolverBody], params: &SolveParams) {
    solve_lanes(c, bodies, params)
}

/// [`solve`], inlined where it is used (as [`warm_start_lanes`]).
#[inline(always)]
pub(crate) fn solve_lanes<F: Lanes>(c: &mut WideContact<F>, bodies: &mut [SolverBody], params: &SolveParams) {
    match c.max_points {
        0 | 1 => solve_points::<F, 1>(c, bodies, params),
        2 => solve_points::<F, 2>(c, bodies, params),
        3 => solve_points::<F, 3>(c, bodies, params),
        _ => solve_points::<F, 4>(c, bodies, params),
    }
}

/// [`solve`] for manifolds of at most `M` points (loops unrolled per count).
#[inline(always)]
fn solve_points<F: Lanes, const M: usize>(c: &mut WideContact<F>, bodies: &mut [SolverBody], params: &SolveParams) {
    let mut a = WideBodies::gather(bodies, &c.body_a);
    let mut b = WideBodies::gather(bodies, &c.body_b);
    let motion = NormalMotion::gather(&c.normal, bodies, &c.body_a, &c.body_b);
    let pass = normal_pass::<F, M>(c, &motion, params);
    // The switches are copied out first: read through `params` at the branches, they made
    // LLVM unpack the struct bit by bit in every call (measured: +20% instructions here).
    let SolveParams { block, reverse, friction, .. } = *params;
    let total_normal = if block {
        let (total, unsolved) = solve_normal_block::<F, M>(c, &mut a, &mut b, &pass);
        match unsolved {
            0 => total,
            _ => solve_unsolved_lanes::<F, M>(c, &mut a, &mut b, &pass, reverse, unsolved, total),
        }
    } else {
        solve_normal_sequential::<F, M>(c, &mut a, &mut b, &pass, reverse, all_lanes())
    };
    if friction {
        solve_twist::<F, M>(c, &mut a, &mut b);
        solve_tangent_rows(c, &mut a, &mut b, total_normal);
    }
    a.scatter(bodies, &c.body_a);
    b.scatter(bodies, &c.body_b);
}

/// Lane 0's per-point velocity biases and soft mass and impulse scales in this pass (for the
/// exact solve of contact islands, whose manifolds each sit alone in lane 0 of a constraint).
#[inline(always)]
pub(crate) fn lane_zero_biases<F: Lanes>(
    c: &WideContact<F>,
    bodies: &[SolverBody],
    params: &SolveParams,
) -> ([f32; 4], f32, f32) {
    let motion = NormalMotion::gather(&c.normal, bodies, &c.body_a, &c.body_b);
    let pass = normal_pass::<F, 4>(c, &motion, params);
    (pass.bias.map(|b| b.get(0)), pass.mass_scale.get(0), pass.impulse_scale.get(0))
}

/// The friction rows alone (twist, rolling, tangent), bounded by the normal impulses as they
/// stand: for manifolds whose normal rows the island solve has just solved.
#[inline(always)]
pub(crate) fn solve_friction_rows<F: Lanes>(c: &mut WideContact<F>, bodies: &mut [SolverBody]) {
    let mut a = WideBodies::gather(bodies, &c.body_a);
    let mut b = WideBodies::gather(bodies, &c.body_b);
    let total_normal = c.points.iter().fold(F::fill(0.0), |sum, p| sum + p.normal_impulse);
    solve_twist::<F, 4>(c, &mut a, &mut b);
    solve_tangent_rows(c, &mut a, &mut b, total_normal);
    a.scatter(bodies, &c.body_a);
    b.scatter(bodies, &c.body_b);
}

/// Lanes whose block problem found no solution (bit mask `unsolved`) are solved one point at
/// a time instead; returns the total normal impulse with theirs in place of `total`'s.
#[cold]
#[inline(never)]
fn solve_unsolved_lanes<F: Lanes, const M: usize>(
    c: &mut WideContact<F>,
    a: &mut WideBodies<F>,
    b: &mut WideBodies<F>,
    pass: &NormalPass<F>,
    reverse: bool,
    unsolved: u32,
    total: F,
) -> F {
    let lanes = F::build(|lane| if unsolved & (1 << lane) != 0 { 1.0 } else { 0.0 });
    let lanes = lanes.above(F::fill(0.0));
    let sequential = solve_normal_sequential::<F, M>(c, a, b, pass, reverse, lanes);
    lanes.choose(sequential, total)
}

/// A lane mask with every lane set.
#[inline(always)]
fn all_lanes<F: Lanes>() -> F {
    F::fill(0.0).at_least(F::fill(0.0))
}

/// The bodies' motion since the start of the step as each lane's normal sees it, so that a
/// point's current separation is one dot product per body:
///
/// ```text
/// s = n·((Δp_B + Δq_B r_B) − (Δp_A + Δq_A r_A)) + s₀ − n·(r_B − r_A)
///   = n·(Δp_B − Δp_A) + (Δq_B⁻¹ n)·r_B − (Δq_A⁻¹ n)·r_A + base_separation
/// ```
///
/// (n·(Δq r) = (Δq⁻¹ n)·r: the shared normal is rotated once per body instead of every anchor.)
pub(crate) struct NormalMotion<F: Lanes = F4> {
    moved_centres: F,
    normal_in_a: V3<F>,
    normal_in_b: V3<F>,
}

impl<F: Lanes> NormalMotion<F> {
    /// From the displacements (Δp, Δq) of the A and B bodies.
    #[inline(always)]
    pub(crate) fn new(normal: &V3<F>, (dpa, dqa): (&V3<F>, &Q4<F>), (dpb, dqb): (&V3<F>, &Q4<F>)) -> NormalMotion<F> {
        NormalMotion {
            moved_centres: normal.dot(&dpb.sub(dpa)),
            normal_in_a: dqa.conjugate().rotate(normal),
            normal_in_b: dqb.conjugate().rotate(normal),
        }
    }

    /// From the solver bodies of each lane.
    #[inline(always)]
    pub(crate) fn gather(
        normal: &V3<F>,
        bodies: &[SolverBody],
        body_a: &F::Indices,
        body_b: &F::Indices,
    ) -> NormalMotion<F> {
        let (dpa, dqa) = gather_motion(bodies, body_a);
        let (dpb, dqb) = gather_motion(bodies, body_b);
        NormalMotion::new(normal, (&dpa, &dqa), (&dpb, &dqb))
    }

    /// The current separation of point `p`, m (negative when overlapping).
    #[inline(always)]
    pub(crate) fn separation(&self, p: &WidePoint<F>) -> F {
        self.moved_centres + self.normal_in_b.dot(&p.anchor_b) - self.normal_in_a.dot(&p.anchor_a) + p.base_separation
    }
}

/// The normal rows' terms in one pass: each point's velocity bias, and the soft scales.
struct NormalPass<F: Lanes = F4> {
    bias: [F; 4],
    mass_scale: F,
    impulse_scale: F,
}

/// The velocity bias of an overlapping point whose spring asks for `demand` (≤ 0): the
/// demand up to the deep demand D, then fading to 0 where the demand is 2D. D is the demand
/// at the depth where the point counts as deep (`push_out.rs`). Deeper overlap is recovered
/// by displacement, so velocity pushes cannot add up along chains of deeply overlapping
/// bodies:
///
/// ```text
/// bias = max(demand, min(0, −demand − 2D))
/// ```
#[inline(always)]
fn faded_push<F: Lanes>(demand: F, deep_demand: F) -> F {
    demand.max((F::fill(0.0) - demand - deep_demand - deep_demand).min(F::fill(0.0)))
}

/// Per point: the velocity bias at the current separation (speculative, soft or Baumgarte);
/// and the pass's soft scales.
#[inline(always)]
fn normal_pass<F: Lanes, const M: usize>(
    c: &WideContact<F>,
    motion: &NormalMotion<F>,
    params: &SolveParams,
) -> NormalPass<F> {
    let (mass_scale, impulse_scale) =
        if params.use_bias { (c.mass_scale, c.impulse_scale) } else { (F::fill(1.0), F::fill(0.0)) };
    let inv_h = F::fill(params.inv_h);
    let slop = F::fill(params.slop);
    let deep_demand = c.bias_rate * c.deep_depth;
    let mut bias = [F::fill(0.0); 4];
    for (i, bias) in bias.iter_mut().enumerate().take(M) {
        let p = &c.points[i];
        let s = motion.separation(p);
        let soft = if params.use_bias {
            faded_push(c.bias_rate * (s + slop).min(F::fill(0.0)), deep_demand)
        } else {
            F::fill(0.0)
        };
        *bias = s.above(F::fill(0.0)).choose(s * inv_h, soft) * c.active(i);
    }
    NormalPass { bias, mass_scale, impulse_scale }
}

/// Normal velocities (with bias) of the points before this pass's update.
#[inline(always)]
fn normal_velocities<F: Lanes, const M: usize>(
    c: &WideContact<F>,
    arms: &[(V3<F>, V3<F>); 4],
    a: &WideBodies<F>,
    b: &WideBodies<F>,
    bias: &[F; 4],
) -> [F; 4] {
    // n·(v_B + ω_B × r_B − v_A − ω_A × r_A) = n·(v_B − v_A) + (r_B × n)·ω_B − (r_A × n)·ω_A
    let linear = c.normal.dot(&b.v.sub(&a.v));
    let mut velocity = [F::fill(0.0); 4];
    for (i, (arm_a, arm_b)) in arms[..M].iter().enumerate() {
        velocity[i] = (linear + arm_b.dot(&b.w) - arm_a.dot(&a.w) + bias[i]) * c.active(i);
    }
    velocity
}

/// The block solve, lane-parallel: lanes where nobody approaches get x = 0, lanes where
/// the full block gives every point a push take it; the remaining lanes (some points
/// separating) get the exact small LCP one lane at a time. Returns the total normal impulse
/// and the bit mask of lanes left unsolved (the exact search found no solution; their
/// impulses are unchanged).
#[inline(always)]
fn solve_normal_block<F: Lanes, const M: usize>(
    c: &mut WideContact<F>,
    a: &mut WideBodies<F>,
    b: &mut WideBodies<F>,
    pass: &NormalPass<F>,
) -> (F, u32) {
    let mass_scale = pass.mass_scale;
    let arms: [(V3<F>, V3<F>); 4] =
        std::array::from_fn(|i| if i < M { c.points[i].arms(&c.normal) } else { Default::default() });
    let velocity = normal_velocities::<F, M>(c, &arms, a, b, &pass.bias);
    let prior: [F; 4] = std::array::from_fn(|i| c.points[i].normal_impulse);
    // b = v − K λ: the velocities without any accumulated impulse.
    let m = M;
    let mut rhs = [F::fill(0.0); 4];
    let mut target = [F::fill(0.0); 4];
    for i in 0..m {
        let applied = (0..m).fold(F::fill(0.0), |sum, j| sum + c.k[block::sym_index(i, j)] * prior[j]);
        rhs[i] = (velocity[i] - applied) * c.active(i);
        target[i] = (-(mass_scale * rhs[i]) + c.epsilon * prior[i]) * c.in_set(i);
    }
    let x = cholesky_solve(&c.factor, &target, m);
    // Points outside the active set get nothing; they must not be approaching then.
    let all_true = all_lanes::<F>();
    let outside: [F; 4] = std::array::from_fn(|i| c.in_set(i).below(F::fill(0.5)));
    let mut outside_ok = all_true;
    if outside[..m].iter().any(|o| o.bits() != 0) {
        let inv_mass_scale = F::fill(1.0) / mass_scale;
        for i in 0..m {
            let kx = (0..m).fold(F::fill(0.0), |sum, j| sum + c.k[block::sym_index(i, j)] * x[j]);
            let w = kx * inv_mass_scale + rhs[i];
            outside_ok &= !outside[i] | w.at_least(F::fill(-APPROACH_TOLERANCE));
        }
    }
    // Side-by-side faces hover around zero approach speed; below APPROACH_TOLERANCE (well
    // under a micrometre of overlap per step, corrected by the next pass) they count as apart.
    let tolerance = F::fill(-APPROACH_TOLERANCE);
    let nobody_approaches = rhs.iter().fold(all_true, |m, r| m & r.at_least(tolerance));
    let all_push = x.iter().fold(all_true, |m, v| m & v.at_least(F::fill(0.0)));
    let valid = F::build(|lane| if c.factor_valid & (1 << lane) != 0 { 1.0 } else { 0.0 }).above(F::fill(0.0));
    let accepted = (nobody_approaches | (all_push & outside_ok)) & valid;
    let mut solution: [F; 4] = std::array::from_fn(|i| nobody_approaches.choose(F::fill(0.0), x[i]));
    let accepted = accepted.bits();
    let unsolved = if accepted == lane_bits::<F>() {
        0
    } else {
        c.solve_exactly(accepted, &rhs, &prior, mass_scale, &mut solution)
    };
    let mut total = F::fill(0.0);
    let mut delta = [F::fill(0.0); 4];
    for i in 0..m {
        let new = solution[i] * c.active(i);
        let p = &mut c.points[i];
        delta[i] = new - p.normal_impulse;
        p.normal_impulse = new;
        total += new;
    }
    apply_normal_deltas::<F, M>(c, &arms, a, b, &delta);
    (total, unsolved)
}

impl<F: Lanes> WideContact<F> {
    /// The exact small LCP (`block::solve_lcp`) for each lane not in `accepted` (a bit mask),
    /// written into `solution`; a lane whose points that push changed adopts the new set.
    /// Returns the bit mask of lanes without a solution (their `solution` is `prior`).
    fn solve_exactly(
        &mut self,
        accepted: u32,
        rhs: &[F; 4],
        prior: &[F; 4],
        mass_scale: F,
        solution: &mut [F; 4],
    ) -> u32 {
        let mut unsolved = 0;
        for lane in (0..F::COUNT).filter(|&l| accepted & (1 << l) == 0) {
            let k: block::Sym4 = std::array::from_fn(|e| self.k[e].get(lane));
            let l: block::Sym4 = std::array::from_fn(|e| self.factor[e].get(lane));
            let valid = self.factor_valid & (1 << lane) != 0;
            let (epsilon, mask) = (self.epsilon.get(lane), self.mask.as_ref()[lane] as u8);
            let factor = block::BlockFactor::from_parts(l, epsilon, valid, mask);
            let problem = block::BlockProblem {
                k: &k,
                factor: &factor,
                b: std::array::from_fn(|i| rhs[i].get(lane)),
                prior: std::array::from_fn(|i| prior[i].get(lane)),
                mass_scale: mass_scale.get(lane),
                n: 4,
            };
            let exact = match block::solve_lcp(&problem) {
                Some(x) => {
                    self.adopt_active_set(lane, &k, &x);
                    x
                }
                None => {
                    unsolved |= 1 << lane;
                    problem.prior
                }
            };
            for i in 0..4 {
                put(&mut solution[i], lane, exact[i]);
            }
        }
        unsolved
    }
}

/// (L Lᵀ) x = r with the packed factor (inverted diagonal), lane-parallel.
#[inline(always)]
fn cholesky_solve<F: Lanes>(l: &[F; 10], r: &[F; 4], m: usize) -> [F; 4] {
    let at = |i: usize, j: usize| l[block::sym_index(i, j)];
    let mut y = [F::fill(0.0); 4];
    for i in 0..m {
        let mut v = r[i];
        for p in 0..i {
            v -= at(p, i) * y[p];
        }
        y[i] = v * at(i, i);
    }
    let mut x = [F::fill(0.0); 4];
    for i in (0..m).rev() {
        let mut v = y[i];
        for p in i + 1..m {
            v -= at(i, p) * x[p];
        }
        x[i] = v * at(i, i);
    }
    x
}

/// One point at a time, alternating the order between passes, in the lanes of the mask
/// `lanes` (all of them with the block solver off; those the block left unsolved with it on).
#[inline(always)]
fn solve_normal_sequential<F: Lanes, const M: usize>(
    c: &mut WideContact<F>,
    a: &mut WideBodies<F>,
    b: &mut WideBodies<F>,
    pass: &NormalPass<F>,
    reverse: bool,
    lanes: F,
) -> F {
    let mut total = F::fill(0.0);
    let m = M;
    for k in 0..m {
        let i = if reverse { m - 1 - k } else { k };
        let (ra, rb) = (c.points[i].anchor_a, c.points[i].anchor_b);
        let dv = b.velocity_at(&rb).sub(&a.velocity_at(&ra));
        let vn = c.normal.dot(&dv);
        let (normal_mass, active) = (c.normal_mass(i), c.active(i));
        let p = &mut c.points[i];
        let impulse = -(normal_mass * pass.mass_scale * (vn + pass.bias[i])) - pass.impulse_scale * p.normal_impulse;
        let new = lanes.choose((p.normal_impulse + impulse).max(F::fill(0.0)) * active, p.normal_impulse);
        let delta = new - p.normal_impulse;
        p.normal_impulse = new;
        total += new;
        let impulse = c.normal.scale(delta);
        apply(c, a, b, &ra, &rb, &impulse);
    }
    total
}

/// Twist friction about the normal: the spread points' friction μ Σ λ_i·lever_i, plus the
/// contact patch's c·ρ·Σλ_i where the pair has rolling resistance (the patch that resists
/// rolling resists spinning too; a lone point has no spread, so without it a ball spins on
/// its contact point for ever).
#[inline(always)]
fn solve_twist<F: Lanes, const M: usize>(c: &mut WideContact<F>, a: &mut WideBodies<F>, b: &mut WideBodies<F>) {
    let (mut spread, mut total) = (F::fill(0.0), F::fill(0.0));
    for (i, p) in c.points[..M].iter().enumerate() {
        spread += p.normal_impulse * c.lever_arm(i);
        total += p.normal_impulse;
    }
    let limit = c.friction * spread + c.rolling_lever * total;
    let spin = c.normal.dot(&b.w.sub(&a.w));
    let old = c.twist_impulse;
    c.twist_impulse = (old - c.twist_mass * spin).max(-limit).min(limit);
    let couple = c.normal.scale(c.twist_impulse - old);
    a.w = a.w.sub(&c.inv_inertia_a.mul(&couple));
    b.w = b.w.add(&c.inv_inertia_b.mul(&couple));
}

/// The rows in the tangent plane, rolling resistance (where a lane has it) then friction,
/// with the tangents derived once for both.
#[inline(always)]
fn solve_tangent_rows<F: Lanes>(c: &mut WideContact<F>, a: &mut WideBodies<F>, b: &mut WideBodies<F>, total_normal: F) {
    let tangents = c.tangents();
    if c.rolling {
        solve_rolling(c, a, b, total_normal, &tangents);
    }
    solve_friction(c, a, b, total_normal, &tangents);
}

/// Central friction: 2×2 block at the friction centre, clamped to the disc μ Σ λ_n.
#[inline(always)]
fn solve_friction<F: Lanes>(
    c: &mut WideContact<F>,
    a: &mut WideBodies<F>,
    b: &mut WideBodies<F>,
    total_normal: F,
    (tangent1, tangent2): &(V3<F>, V3<F>),
) {
    let (ca, cb) = (c.friction_anchor_a, c.friction_anchor_b);
    let dv = b.velocity_at(&cb).sub(&a.velocity_at(&ca));
    let (vt1, vt2) = (tangent1.dot(&dv), tangent2.dot(&dv));
    let old = c.friction_impulse;
    let new = disc_bounded_step(old, &c.tangent_mass, [vt1, vt2], c.friction * total_normal);
    c.friction_impulse = new;
    let impulse = tangent1.scale(new[0] - old[0]).add_scaled(tangent2, new[1] - old[1]);
    apply(c, a, b, &ca, &cb, &impulse);
}

/// Rolling resistance: the relative angular velocity in the tangent plane,
/// ω_t = (t₁·(ω_B − ω_A), t₂·(ω_B − ω_A)), is driven to zero by an angular impulse in that
/// plane, Δλ = −K⁻¹ ω_t with K_ij = t_i·(I_A⁻¹ + I_B⁻¹) t_j, its accumulated value bounded by
/// the disc c·ρ·Σλ_n (a torque of at most c·ρ·N).
#[inline(always)]
fn solve_rolling<F: Lanes>(
    c: &mut WideContact<F>,
    a: &mut WideBodies<F>,
    b: &mut WideBodies<F>,
    total_normal: F,
    (tangent1, tangent2): &(V3<F>, V3<F>),
) {
    let spin = b.w.sub(&a.w);
    let (w1, w2) = (tangent1.dot(&spin), tangent2.dot(&spin));
    let old = c.rolling_impulse;
    let mass = c.rolling_mass((tangent1, tangent2));
    let new = disc_bounded_step(old, &mass, [w1, w2], c.rolling_lever * total_normal);
    c.rolling_impulse = new;
    let couple = tangent1.scale(new[0] - old[0]).add_scaled(tangent2, new[1] - old[1]);
    a.w = a.w.sub(&c.inv_inertia_a.mul(&couple));
    b.w = b.w.add(&c.inv_inertia_b.mul(&couple));
}

/// Inverse of the symmetric 2×2 matrix [[k11, k12], [k12, k22]] as [m11, m12, m22] (zero when
/// singular).
#[inline(always)]
pub(crate) fn inverse_2x2<F: Lanes>(k11: F, k12: F, k22: F) -> [F; 3] {
    let det = k11 * k22 - k12 * k12;
    let inv = det.above(F::fill(0.0)).choose(F::fill(1.0) / det, F::fill(0.0));
    [k22 * inv, -(k12 * inv), k11 * inv]
}

/// One step of a two-row block with a disc bound: the accumulated impulse `old` moves by
/// −M·v (M the symmetric inverse mass [m11, m12, m22], v the rows' velocities) and is scaled
/// back onto the disc of radius `radius`.
#[inline(always)]
fn disc_bounded_step<F: Lanes>(old: [F; 2], mass: &[F; 3], v: [F; 2], radius: F) -> [F; 2] {
    let [m11, m12, m22] = *mass;
    clamp_to_disc([old[0] - (m11 * v[0] + m12 * v[1]), old[1] - (m12 * v[0] + m22 * v[1])], radius)
}

/// The 2-vector `value` scaled back onto the disc of radius `radius` when it lies outside.
#[inline(always)]
fn clamp_to_disc<F: Lanes>(value: [F; 2], radius: F) -> [F; 2] {
    let length_sq = value[0] * value[0] + value[1] * value[1];
    let over = length_sq.above(radius * radius);
    let scale = over.choose(radius / length_sq.max(F::fill(1e-30)).sqrt(), F::fill(1.0));
    [value[0] * scale, value[1] * scale]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::orthonormal_basis;

    /// Unit normals: the axes both ways (with a negative zero where the basis switches
    /// sign), and a spread of directions.
    fn normals() -> Vec<Vec3> {
        let mut normals = vec![Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z, Vec3::new(0.0, 1.0, -0.0)];
        normals.extend((0..200).map(|k| {
            let (theta, phi) = (k as f32 * 0.7549, k as f32 * 0.5698 * std::f32::consts::TAU);
            Vec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin()).normalize()
        }));
        normals
    }

    /// The tangents the passes derive are, lane by lane, the bits of the scalar basis that
    /// `store_lane` and the rest of the engine use.
    fn derived_tangents_match<F: Lanes>() {
        for chunk in normals().chunks(F::COUNT) {
            let mut c = WideContact::<F>::empty();
            for (lane, n) in chunk.iter().enumerate() {
                put3(&mut c.normal, lane, *n);
            }
            let (t1, t2) = c.tangents();
            for (lane, n) in chunk.iter().enumerate() {
                let (s1, s2) = orthonormal_basis(*n);
                assert_eq!(t1.lane(lane).to_array().map(f32::to_bits), s1.to_array().map(f32::to_bits), "{n}");
                assert_eq!(t2.lane(lane).to_array().map(f32::to_bits), s2.to_array().map(f32::to_bits), "{n}");
            }
        }
    }

    #[test]
    fn derived_tangents_are_the_scalar_basis_bit_for_bit() {
        derived_tangents_match::<F4>();
        #[cfg(target_arch = "x86_64")]
        if crate::dynamics::simd_avx::eight_lanes_available() {
            // SAFETY: checked above that the CPU has AVX2.
            unsafe { eight() }
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn eight() {
            derived_tangents_match::<crate::dynamics::simd_avx::F8>();
        }
    }

    /// A lane's points are real up to its count and padding after, and padding has no mass
    /// and no lever.
    #[test]
    fn points_past_a_lanes_count_are_padding() {
        let mut c = WideContact::<F4>::empty();
        for (lane, count) in [0, 1, 3, 4].into_iter().enumerate() {
            put(&mut c.point_count, lane, count as f32);
        }
        c.points[2].anchor_a = V3::build(|_| Vec3::new(1.0, 2.0, 2.0));
        for i in 0..4 {
            for (lane, count) in [0, 1, 3, 4].into_iter().enumerate() {
                let real = if i < count { 1.0 } else { 0.0 };
                assert_eq!(c.active(i).get(lane), real, "point {i} of lane {lane}");
                assert_eq!(c.normal_mass(i).get(lane), real, "identity row: K = 1");
                let lever = if i == 2 { 3.0 * real } else { 0.0 };
                assert_eq!(c.lever_arm(i).get(lane), lever);
            }
        }
    }
}
