//! Contact constraints: prepare, warm start, solve, relax, restitution, store.
//!
//! Normal rows, one per manifold point with anchors r_A, r_B (from each centre of mass) and
//! normal n (from A to B):
//!
//! ```text
//! C    = separation ≥ 0                        (inequality: the impulse only pushes)
//! Cdot = n · (v_B + ω_B × r_B − v_A − ω_A × r_A)
//! J    = [ −nᵀ, −(r_A × n)ᵀ, nᵀ, (r_B × n)ᵀ ]
//! K    = 1/m_A + 1/m_B + (r_A × n)·I_A⁻¹(r_A × n) + (r_B × n)·I_B⁻¹(r_B × n)
//! λ    = −K⁻¹ (Cdot + bias),  accumulated λ ≥ 0 (the sum is clamped, never the increment)
//! ```
//!
//! The separation is recomputed from the bodies' displacement since the start of the step,
//! `s = n·((Δp_B + Δq_B r_B) − (Δp_A + Δq_A r_A)) + s0 − n·(r_B − r_A)`, so substeps see the
//! current overlap without running collision again. A point still apart (s > 0) is
//! speculative: it only removes the approach speed that would close the gap within the
//! substep, bias = s/h. An overlapping point gets the soft bias max(rate·s, −max_push) with the
//! softness' mass and impulse scales (soft step), or a Baumgarte bias (pgs).
//!
//! Friction acts on the manifold as a whole, at its friction centre c (the mean of the point
//! anchors, points about to separate weighted less):
//!
//! ```text
//! Cdot_t = T · (v_B + ω_B × c_B − v_A − ω_A × c_A),   T = [t1 t2]ᵀ
//! K_t    = (1/m_A + 1/m_B) E₂ + T [c_A]ₓᵀ I_A⁻¹ [c_A]ₓ Tᵀ + (same for B)      (2×2)
//! |λ_t| ≤ μ Σ λ_n                                                       (Coulomb disc)
//! ```
//!
//! and a twist row resists spinning about the normal, Cdot = n·(ω_B − ω_A),
//! K = n·(I_A⁻¹ + I_B⁻¹)n, |λ_twist| ≤ μ Σ λ_n,i · |r_i − c|. Friction is solved in the
//! unbiased pass (relax) of the soft step only: a friction bound taken from a normal impulse
//! that includes position correction would resist sliding in proportion to the overlap, and
//! it destabilises heavy-on-light stacks. In pgs, and when relax is off, it runs every pass.
//!
//! The normal rows of a manifold are solved together by the block solver (`block.rs`) when
//! `block_solver` is on and the points share one softness; otherwise one point at a time,
//! alternating the visiting order between passes so no point is always first.
//!
//! Impulses are stored per step (the sum over substeps) so warm starting survives a change of
//! solver mode or substep count.

use super::block::{self, BlockFactor, BlockProblem, Sym4};
use super::softness::Softness;
use super::solver_body::SolverBody;
use crate::collision::contact::{Contact, FrictionImpulse, PointImpulse};
use crate::collision::manifold::MAX_MANIFOLD_POINTS;
use crate::math::{orthonormal_basis, Vec3, Vec3A};

/// Per-point solver data.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContactConstraintPoint {
    /// Anchor from A's centre of mass, world axes at the start of the step.
    pub anchor_a: Vec3,
    /// Anchor from B's centre of mass.
    pub anchor_b: Vec3,
    /// Separation minus n·(r_B − r_A), so the current separation is a single dot product.
    pub base_separation: f32,
    /// Normal velocity at the start of the step, or at impact if the point first pushes in a
    /// later substep (negative when approaching), m/s. Restitution reflects it.
    pub relative_velocity: f32,
    /// Target-velocity bias from restitution in pgs mode (≤ 0), m/s.
    pub restitution_bias: f32,
    /// Accumulated normal impulse of this substep / step, N·s.
    pub normal_impulse: f32,
    /// Largest normal impulse seen this step (restitution runs only where it was pushed).
    pub max_normal_impulse: f32,
    /// 1/K along the normal.
    pub normal_mass: f32,
    /// Distance from the friction centre, m (twist friction bound).
    pub lever_arm: f32,
}

/// Solver data of one manifold.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContactConstraint {
    pub body_a: u32,
    pub body_b: u32,
    pub normal: Vec3,
    pub tangent1: Vec3,
    pub tangent2: Vec3,
    /// Friction centre relative to A's and B's centres of mass.
    pub friction_anchor_a: Vec3,
    pub friction_anchor_b: Vec3,
    /// Inverse of the 2×2 tangent K: [k11, k12, k22].
    pub tangent_mass: [f32; 3],
    pub friction_impulse: [f32; 2],
    pub twist_mass: f32,
    pub twist_impulse: f32,
    pub friction: f32,
    pub restitution: f32,
    pub softness: Softness,
    pub point_count: usize,
    /// Index of the contact pair the impulses are stored back to.
    pub contact_index: u32,
    pub points: [ContactConstraintPoint; MAX_MANIFOLD_POINTS],
    /// K of the normal rows, for the block solver (packed upper triangle).
    pub normal_k: Sym4,
    /// Cholesky factor of the regularised K of the points expected to push.
    pub normal_factor: BlockFactor,
}

/// What the velocity solve needs besides the constraints.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolveParams {
    /// 1 / (length of the solver step): substep in soft-step mode, step in pgs.
    pub inv_h: f32,
    /// Largest push-out speed, m/s.
    pub max_push: f32,
    /// Overlap tolerated without bias (pgs), m.
    pub slop: f32,
    /// Apply the position bias (false in the relax pass).
    pub use_bias: bool,
    /// Solve the friction rows in this pass.
    pub friction: bool,
    /// Visit the points of each manifold in reverse order. Alternating the order between
    /// passes keeps a symmetric contact symmetric: a single order favours the first point.
    pub reverse: bool,
    /// Solve each manifold's normal rows together (block solver) when the pass is rigid.
    pub block: bool,
}

/// Inputs to [`prepare`] for one pair.
pub(crate) struct PrepareInput<'a> {
    pub contact: &'a Contact,
    pub contact_index: u32,
    pub body_a: u32,
    pub body_b: u32,
    pub center_a: Vec3,
    pub center_b: Vec3,
    pub softness: Softness,
    /// Multiplies stored per-step impulses into solver units (1/substeps), 0 without warm start.
    pub warm_scale: f32,
    /// Speculative distance, m: points this far apart no longer pull the friction centre.
    pub speculative_distance: f32,
}

/// Inverse of the 2×2 tangent K at anchors `ca`, `cb` (see the module comment).
fn tangent_mass(a: &SolverBody, b: &SolverBody, ca: Vec3, cb: Vec3, t1: Vec3, t2: Vec3) -> [f32; 3] {
    let (a1, a2, b1, b2) = (ca.cross(t1), ca.cross(t2), cb.cross(t1), cb.cross(t2));
    let m = a.inv_mass + b.inv_mass;
    let k11 = m + a1.dot(a.inv_inertia * a1) + b1.dot(b.inv_inertia * b1);
    let k12 = a1.dot(a.inv_inertia * a2) + b1.dot(b.inv_inertia * b2);
    let k22 = m + a2.dot(a.inv_inertia * a2) + b2.dot(b.inv_inertia * b2);
    let det = k11 * k22 - k12 * k12;
    if det > 0.0 {
        let inv = 1.0 / det;
        [k22 * inv, -k12 * inv, k11 * inv]
    } else {
        [0.0; 3]
    }
}

/// K_ij = J_i M⁻¹ J_jᵀ of the normal rows: 1/m_A + 1/m_B + (r_Ai×n)·I_A⁻¹(r_Aj×n) + (same for B).
fn normal_block_k(a: &SolverBody, b: &SolverBody, c: &ContactConstraint) -> Sym4 {
    let mut k = [0.0; 10];
    let n = c.normal;
    let arms: [(crate::math::Vec3, crate::math::Vec3); MAX_MANIFOLD_POINTS] =
        std::array::from_fn(|i| (c.points[i].anchor_a.cross(n), c.points[i].anchor_b.cross(n)));
    for i in 0..c.point_count {
        let (ia, ib) = (a.inv_inertia * arms[i].0, b.inv_inertia * arms[i].1);
        for j in i..c.point_count {
            k[block::sym_index(i, j)] = a.inv_mass + b.inv_mass + arms[j].0.dot(ia) + arms[j].1.dot(ib);
        }
    }
    k
}

/// Builds the constraint of one touching pair from its manifold.
pub(crate) fn prepare(input: &PrepareInput, bodies: &[SolverBody]) -> ContactConstraint {
    let contact = input.contact;
    let a = &bodies[input.body_a as usize];
    let b = &bodies[input.body_b as usize];
    let normal = contact.manifold.normal;
    let (tangent1, tangent2) = orthonormal_basis(normal);
    let mut c = ContactConstraint {
        body_a: input.body_a,
        body_b: input.body_b,
        normal,
        tangent1,
        tangent2,
        friction: contact.friction,
        restitution: contact.restitution,
        softness: input.softness,
        point_count: contact.manifold.count,
        contact_index: input.contact_index,
        ..Default::default()
    };
    let (mut sum_a, mut sum_b, mut total_weight) = (Vec3::ZERO, Vec3::ZERO, 0.0);
    for (i, mp) in contact.manifold.points().iter().enumerate() {
        let ra = mp.position - input.center_a;
        let rb = mp.position - input.center_b;
        c.points[i] = ContactConstraintPoint {
            anchor_a: ra,
            anchor_b: rb,
            base_separation: mp.separation - normal.dot(rb - ra),
            relative_velocity: normal.dot(b.velocity_at(rb) - a.velocity_at(ra)),
            normal_impulse: input.warm_scale * contact.impulses[i].normal,
            ..Default::default()
        };
        // Touching points count fully; speculative ones fade out over the speculative distance.
        let weight = (1.0 - mp.separation / input.speculative_distance.max(1e-6)).clamp(1e-3, 1.0);
        sum_a += weight * ra;
        sum_b += weight * rb;
        total_weight += weight;
    }
    c.normal_k = normal_block_k(a, b, &c);
    for (i, p) in c.points[..c.point_count].iter_mut().enumerate() {
        // The block's diagonal is each row's own K: its inverse is the point's effective mass.
        let k = c.normal_k[block::sym_index(i, i)];
        p.normal_mass = if k > 0.0 { 1.0 / k } else { 0.0 };
    }
    let full = block::full_mask(c.point_count);
    let mask = match contact.block_mask & full {
        0 => full,
        mask => mask,
    };
    c.normal_factor = BlockFactor::masked(&c.normal_k, c.point_count, mask);
    c.friction_anchor_a = sum_a / total_weight;
    c.friction_anchor_b = sum_b / total_weight;
    for p in &mut c.points[..c.point_count] {
        p.lever_arm = (p.anchor_a - c.friction_anchor_a).length();
    }
    c.tangent_mass = tangent_mass(a, b, c.friction_anchor_a, c.friction_anchor_b, tangent1, tangent2);
    let twist_k = normal.dot(a.inv_inertia * normal) + normal.dot(b.inv_inertia * normal);
    c.twist_mass = if twist_k > 0.0 { 1.0 / twist_k } else { 0.0 };
    let stored = contact.friction_impulse;
    c.friction_impulse =
        [input.warm_scale * stored.linear.dot(tangent1), input.warm_scale * stored.linear.dot(tangent2)];
    c.twist_impulse = input.warm_scale * stored.twist;
    c
}

/// Sets each point's restitution target (pgs mode): approaching faster than `threshold`
/// means the separating speed after the step should be `e` times the approach speed.
pub(crate) fn set_restitution_bias(constraint: &mut ContactConstraint, threshold: f32) {
    let e = constraint.restitution;
    for point in &mut constraint.points[..constraint.point_count] {
        point.restitution_bias =
            if e > 0.0 && point.relative_velocity < -threshold { e * point.relative_velocity } else { 0.0 };
    }
}

#[inline(always)]
fn load(bodies: &[SolverBody], c: &ContactConstraint) -> (SolverBody, SolverBody) {
    (bodies[c.body_a as usize], bodies[c.body_b as usize])
}

/// Writes the velocities back; the shared static body (index 0) is never written.
#[inline(always)]
fn store(bodies: &mut [SolverBody], c: &ContactConstraint, a: &SolverBody, b: &SolverBody) {
    if c.body_a != 0 {
        let target = &mut bodies[c.body_a as usize];
        target.linear_velocity = a.linear_velocity;
        target.angular_velocity = a.angular_velocity;
    }
    if c.body_b != 0 {
        let target = &mut bodies[c.body_b as usize];
        target.linear_velocity = b.linear_velocity;
        target.angular_velocity = b.angular_velocity;
    }
}

/// Applies an angular impulse `l` (no linear part) to both bodies: ω_A −= I_A⁻¹ l, ω_B += I_B⁻¹ l.
#[inline(always)]
fn apply_couple(a: &mut SolverBody, b: &mut SolverBody, l: Vec3) {
    a.angular_velocity -= Vec3A::from(a.inv_inertia * l);
    b.angular_velocity += Vec3A::from(b.inv_inertia * l);
}

/// Applies the accumulated impulses of one constraint as a first guess.
pub(crate) fn warm_start_one(c: &ContactConstraint, bodies: &mut [SolverBody]) {
    let (mut a, mut b) = load(bodies, c);
    for p in &c.points[..c.point_count] {
        let impulse = p.normal_impulse * c.normal;
        a.apply_impulse(p.anchor_a, -impulse);
        b.apply_impulse(p.anchor_b, impulse);
    }
    let friction = c.friction_impulse[0] * c.tangent1 + c.friction_impulse[1] * c.tangent2;
    a.apply_impulse(c.friction_anchor_a, -friction);
    b.apply_impulse(c.friction_anchor_b, friction);
    apply_couple(&mut a, &mut b, c.twist_impulse * c.normal);
    store(bodies, c, &a, &b);
}

/// One velocity pass over one constraint: normal rows, then (when asked) friction.
pub(crate) fn solve_one(c: &mut ContactConstraint, bodies: &mut [SolverBody], params: &SolveParams) {
    let (mut a, mut b) = load(bodies, c);
    let block = if params.block && c.point_count > 1 { solve_normal_block(c, &mut a, &mut b, params) } else { None };
    let total_normal = match block {
        Some(total) => total,
        None => solve_normal(c, &mut a, &mut b, params),
    };
    if params.friction {
        solve_twist(c, &mut a, &mut b);
        solve_friction(c, &mut a, &mut b, total_normal);
    }
    store(bodies, c, &a, &b);
}

/// Normal velocity bias of point `p` at separation `s`, and the soft scales (mass, impulse)
/// of its row in this pass.
#[inline(always)]
fn normal_bias(softness: &Softness, restitution_bias: f32, s: f32, params: &SolveParams) -> (f32, f32, f32) {
    let (mut bias, mut mass_scale, mut impulse_scale) = (0.0, 1.0, 0.0);
    if params.use_bias {
        // The whole manifold shares the pass's softness, speculative points included, so its
        // rows can be solved as one block.
        mass_scale = softness.mass_scale;
        impulse_scale = softness.impulse_scale;
    }
    if s > 0.0 {
        bias = s * params.inv_h;
    } else if params.use_bias {
        let error = (s + params.slop).min(0.0);
        bias = (softness.bias_rate * error).max(-params.max_push);
    }
    if restitution_bias < 0.0 {
        // pgs restitution: aim for the bounce speed when it asks for more than the bias.
        bias = bias.min(restitution_bias);
    }
    (bias, mass_scale, impulse_scale)
}

/// The normal rows of one manifold solved together (see `block.rs`). Returns the total
/// normal impulse, or `None` to fall back to the sequential solve.
///
/// A soft row's update Δλ = −s_m K⁻¹(v + bias) − s_i λ is, since 1 − s_i = s_m, the same
/// complementarity problem with w = (K/s_m) x + (v + bias − K λ): the block works for soft
/// passes too as long as every point of the manifold has the same softness (all overlapping,
/// or all rigid).
#[inline(always)]
fn solve_normal_block(
    c: &mut ContactConstraint,
    a: &mut SolverBody,
    b: &mut SolverBody,
    params: &SolveParams,
) -> Option<f32> {
    let n = c.normal;
    let count = c.point_count;
    let mut velocity = [0.0f32; 4];
    let mut shared_mass_scale = None;
    for (i, p) in c.points[..count].iter().enumerate() {
        let d = b.moved_anchor(p.anchor_b) - a.moved_anchor(p.anchor_a);
        let s = n.dot(d) + p.base_separation;
        let (bias, mass_scale, _) = normal_bias(&c.softness, p.restitution_bias, s, params);
        match shared_mass_scale {
            None => shared_mass_scale = Some(mass_scale),
            Some(m) if m != mass_scale => return None,
            Some(_) => {}
        }
        velocity[i] = n.dot(b.velocity_at(p.anchor_b) - a.velocity_at(p.anchor_a)) + bias;
    }
    let mass_scale = shared_mass_scale?;
    if !(mass_scale > 0.0) {
        return None;
    }
    let mut rhs = [0.0f32; 4];
    let mut prior = [0.0f32; 4];
    for i in 0..count {
        let applied: f32 = (0..count).map(|j| c.normal_k[block::sym_index(i, j)] * c.points[j].normal_impulse).sum();
        rhs[i] = velocity[i] - applied;
        prior[i] = c.points[i].normal_impulse;
    }
    let problem = BlockProblem { k: &c.normal_k, factor: &c.normal_factor, b: rhs, prior, mass_scale, n: count };
    let x = block::solve_lcp(&problem)?;
    remember_active_set(c, &x);
    let mut total = 0.0;
    for (i, p) in c.points[..count].iter_mut().enumerate() {
        let delta = x[i] - p.normal_impulse;
        p.normal_impulse = x[i];
        p.max_normal_impulse = p.max_normal_impulse.max(x[i]);
        total += x[i];
        a.apply_impulse(p.anchor_a, -delta * n);
        b.apply_impulse(p.anchor_b, delta * n);
    }
    Some(total)
}

/// Re-factors the block when the points that push changed (next passes and next step start
/// from the new set).
pub(crate) fn remember_active_set(c: &mut ContactConstraint, x: &[f32; 4]) {
    let n = c.point_count;
    let pushing = (0..n).filter(|&i| x[i] > 0.0).fold(0u8, |m, i| m | (1 << i));
    let mask = if pushing == 0 { block::full_mask(n) } else { pushing };
    if mask != c.normal_factor.parts().3 {
        c.normal_factor = BlockFactor::masked(&c.normal_k, n, mask);
    }
}

/// The normal rows; returns the manifold's total normal impulse.
#[inline(always)]
fn solve_normal(c: &mut ContactConstraint, a: &mut SolverBody, b: &mut SolverBody, params: &SolveParams) -> f32 {
    let n = c.normal;
    let softness = c.softness;
    let mut total = 0.0;
    let count = c.point_count;
    for k in 0..count {
        let index = if params.reverse { count - 1 - k } else { k };
        let p = &mut c.points[index];
        // Current separation from the displacement since the start of the step.
        let d = b.moved_anchor(p.anchor_b) - a.moved_anchor(p.anchor_a);
        let s = n.dot(d) + p.base_separation;
        let (bias, mass_scale, impulse_scale) = normal_bias(&softness, p.restitution_bias, s, params);
        let vn = n.dot(b.velocity_at(p.anchor_b) - a.velocity_at(p.anchor_a));
        if p.max_normal_impulse == 0.0 {
            // Until the point first pushes, track the approach speed at the moment of impact
            // (gravity keeps accelerating it during the substeps before).
            p.relative_velocity = p.relative_velocity.min(vn);
        }
        let impulse = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
        let new_impulse = (p.normal_impulse + impulse).max(0.0);
        let delta = new_impulse - p.normal_impulse;
        p.normal_impulse = new_impulse;
        p.max_normal_impulse = p.max_normal_impulse.max(new_impulse);
        total += new_impulse;
        a.apply_impulse(p.anchor_a, -delta * n);
        b.apply_impulse(p.anchor_b, delta * n);
    }
    total
}

/// Twist friction about the normal, bounded by μ Σ λ_n,i · lever_i.
#[inline(always)]
fn solve_twist(c: &mut ContactConstraint, a: &mut SolverBody, b: &mut SolverBody) {
    let limit: f32 = c.friction * c.points[..c.point_count].iter().map(|p| p.normal_impulse * p.lever_arm).sum::<f32>();
    let spin = c.normal.dot((b.angular_velocity - a.angular_velocity).into());
    let old = c.twist_impulse;
    c.twist_impulse = (old - c.twist_mass * spin).clamp(-limit, limit);
    apply_couple(a, b, (c.twist_impulse - old) * c.normal);
}

/// Central friction: a 2×2 block at the friction centre, clamped to the disc μ Σ λ_n.
#[inline(always)]
fn solve_friction(c: &mut ContactConstraint, a: &mut SolverBody, b: &mut SolverBody, total_normal: f32) {
    let (t1, t2) = (c.tangent1, c.tangent2);
    let dv = b.velocity_at(c.friction_anchor_b) - a.velocity_at(c.friction_anchor_a);
    let (vt1, vt2) = (t1.dot(dv), t2.dot(dv));
    let [m11, m12, m22] = c.tangent_mass;
    let old = c.friction_impulse;
    let mut new = [old[0] - (m11 * vt1 + m12 * vt2), old[1] - (m12 * vt1 + m22 * vt2)];
    let max_friction = c.friction * total_normal;
    let length_sq = new[0] * new[0] + new[1] * new[1];
    if length_sq > max_friction * max_friction {
        let scale = max_friction / length_sq.sqrt();
        new = [new[0] * scale, new[1] * scale];
    }
    c.friction_impulse = new;
    let impulse = (new[0] - old[0]) * t1 + (new[1] - old[1]) * t2;
    a.apply_impulse(c.friction_anchor_a, -impulse);
    b.apply_impulse(c.friction_anchor_b, impulse);
}

/// Restitution pass after the substeps: points that were approaching faster than
/// `threshold` and were pushed get the separating speed `e · approach speed`.
pub(crate) fn apply_restitution(constraints: &mut [ContactConstraint], bodies: &mut [SolverBody], threshold: f32) {
    for c in constraints.iter_mut() {
        if c.restitution == 0.0 {
            continue;
        }
        let (mut a, mut b) = load(bodies, c);
        let n = c.normal;
        for p in &mut c.points[..c.point_count] {
            if p.relative_velocity > -threshold || p.max_normal_impulse == 0.0 {
                continue;
            }
            let vn = n.dot(b.velocity_at(p.anchor_b) - a.velocity_at(p.anchor_a));
            let impulse = -p.normal_mass * (vn + c.restitution * p.relative_velocity);
            let new_impulse = (p.normal_impulse + impulse).max(0.0);
            let delta = new_impulse - p.normal_impulse;
            p.normal_impulse = new_impulse;
            p.max_normal_impulse = p.max_normal_impulse.max(new_impulse);
            a.apply_impulse(p.anchor_a, -delta * n);
            b.apply_impulse(p.anchor_b, delta * n);
        }
        store(bodies, c, &a, &b);
    }
}

/// NGS position pass (pgs mode): pushes overlapping points apart by moving the bodies
/// directly, using the constraint's effective mass as a pseudo-mass. No velocity changes.
///
/// C = clamp(β (s + slop), −max_correction, 0), Δλ = −K⁻¹ C, applied to Δp and Δq.
pub(crate) fn solve_positions(
    constraints: &[ContactConstraint],
    bodies: &mut [SolverBody],
    baumgarte: f32,
    slop: f32,
    max_correction: f32,
) {
    for c in constraints {
        let (mut a, mut b) = load(bodies, c);
        let n = c.normal;
        for p in &c.points[..c.point_count] {
            let d = b.moved_anchor(p.anchor_b) - a.moved_anchor(p.anchor_a);
            let s = n.dot(d) + p.base_separation;
            let error = (baumgarte * (s + slop)).clamp(-max_correction, 0.0);
            let impulse = -p.normal_mass * error * n;
            displace(&mut a, p.anchor_a, -impulse);
            displace(&mut b, p.anchor_b, impulse);
        }
        for (index, body) in [(c.body_a, &a), (c.body_b, &b)] {
            if index != 0 {
                let target = &mut bodies[index as usize];
                target.delta_position = body.delta_position;
                target.delta_rotation = body.delta_rotation;
            }
        }
    }
}

/// Moves a body by a pseudo-impulse `p` at offset `r`: Δp += p/m, Δq rotated by I⁻¹(r × p).
#[inline(always)]
fn displace(body: &mut SolverBody, r: Vec3, p: Vec3) {
    if body.inv_mass == 0.0 {
        return;
    }
    body.delta_position += Vec3A::from(body.inv_mass * p);
    let angle = body.inv_inertia * r.cross(p);
    body.delta_rotation = crate::math::integrate_rotation(body.delta_rotation, angle, 1.0);
}

/// Copies the accumulated impulses back into the contact pairs for the next step's warm
/// start and for readout, converted to per-step units by `step_scale` (substeps per step).
pub(crate) fn store_impulses(constraints: &[ContactConstraint], contacts: &mut [Contact], step_scale: f32) {
    for c in constraints {
        let contact = &mut contacts[c.contact_index as usize];
        for (i, p) in c.points[..c.point_count].iter().enumerate() {
            contact.impulses[i] =
                PointImpulse { normal: p.normal_impulse * step_scale, max_normal: p.max_normal_impulse * step_scale };
        }
        contact.block_mask = c.normal_factor.parts().3;
        contact.friction_impulse = FrictionImpulse {
            linear: (c.friction_impulse[0] * c.tangent1 + c.friction_impulse[1] * c.tangent2) * step_scale,
            twist: c.twist_impulse * step_scale,
        };
    }
}
