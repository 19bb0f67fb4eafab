//! Contact constraints: prepare, warm start, solve, relax, restitution, store.
//!
//! For a manifold point with anchors r_A, r_B (from each centre of mass) and normal n (A to B):
//!
//! ```text
//! C    = separation ≥ 0                        (inequality: the impulse only pushes)
//! Cdot = n · (v_B + ω_B × r_B − v_A − ω_A × r_A)
//! J    = [ −nᵀ, −(r_A × n)ᵀ, nᵀ, (r_B × n)ᵀ ]
//! K    = 1/m_A + 1/m_B + (r_A × n)·I_A⁻¹(r_A × n) + (r_B × n)·I_B⁻¹(r_B × n)
//! λ    = −K⁻¹ (Cdot + bias),  accumulated λ ≥ 0 (the sum is clamped, never the increment)
//! ```
//!
//! Friction uses the same rows along two tangents t1, t2, and the accumulated friction
//! impulse (λ1, λ2) is clamped to the disc |λ| ≤ μ λ_n of the point's normal impulse.
//!
//! The separation is recomputed from the bodies' displacement since the start of the step,
//! `s = n·((Δp_B + Δq_B r_B) − (Δp_A + Δq_A r_A)) + s0 − n·(r_B − r_A)`, so substeps see the
//! current overlap without running collision again. A point still apart (s > 0) is
//! speculative: it only removes the approach speed that would close the gap within the step,
//! bias = s/h. An overlapping point gets the soft bias max(rate·s, −max_push) with the
//! softness' mass and impulse scales (soft step), or a Baumgarte bias (pgs).
//!
//! Impulses are stored per step (the sum over substeps) so warm starting survives a change of
//! solver mode or substep count.

use super::softness::Softness;
use super::solver_body::SolverBody;
use crate::collision::contact::{Contact, PointImpulse};
use crate::collision::manifold::MAX_MANIFOLD_POINTS;
use crate::math::{orthonormal_basis, Vec3};

/// Per-point solver data.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContactConstraintPoint {
    /// Anchor from A's centre of mass, world axes at the start of the step.
    pub anchor_a: Vec3,
    /// Anchor from B's centre of mass.
    pub anchor_b: Vec3,
    /// Separation minus n·(r_B − r_A), so the current separation is a single dot product.
    pub base_separation: f32,
    /// Normal velocity at the start of the step (negative when approaching), m/s.
    pub relative_velocity: f32,
    /// Target-velocity bias from restitution in pgs mode (≤ 0), m/s.
    pub restitution_bias: f32,
    /// Accumulated normal impulse of this substep / step, N·s.
    pub normal_impulse: f32,
    /// Accumulated friction impulses along t1, t2.
    pub tangent_impulse: [f32; 2],
    /// Largest normal impulse seen this step (restitution runs only where it was pushed).
    pub max_normal_impulse: f32,
    /// 1/K along the normal.
    pub normal_mass: f32,
    /// 1/K along each tangent.
    pub tangent_mass: [f32; 2],
}

/// Solver data of one manifold.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContactConstraint {
    pub body_a: u32,
    pub body_b: u32,
    pub normal: Vec3,
    pub tangent1: Vec3,
    pub tangent2: Vec3,
    pub friction: f32,
    pub restitution: f32,
    pub softness: Softness,
    pub point_count: usize,
    /// Index of the contact pair the impulses are stored back to.
    pub contact_index: u32,
    pub points: [ContactConstraintPoint; MAX_MANIFOLD_POINTS],
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
}

/// 1 / (m_A + m_B + (r_A×d)·I_A⁻¹(r_A×d) + (r_B×d)·I_B⁻¹(r_B×d)) for direction `d`.
#[inline(always)]
fn effective_mass(a: &SolverBody, b: &SolverBody, ra: Vec3, rb: Vec3, d: Vec3) -> f32 {
    let rad = ra.cross(d);
    let rbd = rb.cross(d);
    let k = a.inv_mass + b.inv_mass + rad.dot(a.inv_inertia * rad) + rbd.dot(b.inv_inertia * rbd);
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// Builds the constraint of one touching pair from its manifold.
pub(crate) fn prepare(input: &PrepareInput, bodies: &[SolverBody]) -> ContactConstraint {
    let contact = input.contact;
    let a = &bodies[input.body_a as usize];
    let b = &bodies[input.body_b as usize];
    let normal = contact.manifold.normal;
    let (tangent1, tangent2) = orthonormal_basis(normal);
    let mut constraint = ContactConstraint {
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
        points: [ContactConstraintPoint::default(); MAX_MANIFOLD_POINTS],
    };
    for (i, mp) in contact.manifold.points().iter().enumerate() {
        let ra = mp.position - input.center_a;
        let rb = mp.position - input.center_b;
        let stored = contact.impulses[i];
        constraint.points[i] = ContactConstraintPoint {
            anchor_a: ra,
            anchor_b: rb,
            base_separation: mp.separation - normal.dot(rb - ra),
            relative_velocity: normal.dot(b.velocity_at(rb) - a.velocity_at(ra)),
            restitution_bias: 0.0,
            normal_impulse: input.warm_scale * stored.normal,
            tangent_impulse: [
                input.warm_scale * stored.friction.dot(tangent1),
                input.warm_scale * stored.friction.dot(tangent2),
            ],
            max_normal_impulse: 0.0,
            normal_mass: effective_mass(a, b, ra, rb, normal),
            tangent_mass: [effective_mass(a, b, ra, rb, tangent1), effective_mass(a, b, ra, rb, tangent2)],
        };
    }
    constraint
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

/// Applies the accumulated impulses as a first guess.
pub(crate) fn warm_start(constraints: &[ContactConstraint], bodies: &mut [SolverBody]) {
    for c in constraints {
        let (mut a, mut b) = load(bodies, c);
        for p in &c.points[..c.point_count] {
            let impulse =
                p.normal_impulse * c.normal + p.tangent_impulse[0] * c.tangent1 + p.tangent_impulse[1] * c.tangent2;
            a.apply_impulse(p.anchor_a, -impulse);
            b.apply_impulse(p.anchor_b, impulse);
        }
        store(bodies, c, &a, &b);
    }
}

/// One velocity pass over every constraint: normal rows, then friction.
pub(crate) fn solve(constraints: &mut [ContactConstraint], bodies: &mut [SolverBody], params: &SolveParams) {
    for c in constraints.iter_mut() {
        let (mut a, mut b) = load(bodies, c);
        solve_normal(c, &mut a, &mut b, params);
        solve_friction(c, &mut a, &mut b);
        store(bodies, c, &a, &b);
    }
}

#[inline(always)]
fn solve_normal(c: &mut ContactConstraint, a: &mut SolverBody, b: &mut SolverBody, params: &SolveParams) {
    let n = c.normal;
    for p in &mut c.points[..c.point_count] {
        // Current separation from the displacement since the start of the step.
        let d = b.moved_anchor(p.anchor_b) - a.moved_anchor(p.anchor_a);
        let s = n.dot(d) + p.base_separation;
        let (mut bias, mut mass_scale, mut impulse_scale) = (0.0, 1.0, 0.0);
        if s > 0.0 {
            bias = s * params.inv_h;
        } else if params.use_bias {
            let error = (s + params.slop).min(0.0);
            bias = (c.softness.bias_rate * error).max(-params.max_push);
            mass_scale = c.softness.mass_scale;
            impulse_scale = c.softness.impulse_scale;
        }
        bias = bias.min(p.restitution_bias);
        let vn = n.dot(b.velocity_at(p.anchor_b) - a.velocity_at(p.anchor_a));
        let impulse = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
        let new_impulse = (p.normal_impulse + impulse).max(0.0);
        let delta = new_impulse - p.normal_impulse;
        p.normal_impulse = new_impulse;
        p.max_normal_impulse = p.max_normal_impulse.max(new_impulse);
        a.apply_impulse(p.anchor_a, -delta * n);
        b.apply_impulse(p.anchor_b, delta * n);
    }
}

#[inline(always)]
fn solve_friction(c: &mut ContactConstraint, a: &mut SolverBody, b: &mut SolverBody) {
    let (t1, t2) = (c.tangent1, c.tangent2);
    for p in &mut c.points[..c.point_count] {
        let dv = b.velocity_at(p.anchor_b) - a.velocity_at(p.anchor_a);
        let old = p.tangent_impulse;
        let mut new = [old[0] - p.tangent_mass[0] * t1.dot(dv), old[1] - p.tangent_mass[1] * t2.dot(dv)];
        // Coulomb: the friction impulse lies in the disc of radius μ λn.
        let max_friction = c.friction * p.normal_impulse;
        let length_sq = new[0] * new[0] + new[1] * new[1];
        if length_sq > max_friction * max_friction {
            let scale = max_friction / length_sq.sqrt();
            new = [new[0] * scale, new[1] * scale];
        }
        p.tangent_impulse = new;
        let impulse = (new[0] - old[0]) * t1 + (new[1] - old[1]) * t2;
        a.apply_impulse(p.anchor_a, -impulse);
        b.apply_impulse(p.anchor_b, impulse);
    }
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
        if c.body_a != 0 {
            let t = &mut bodies[c.body_a as usize];
            t.delta_position = a.delta_position;
            t.delta_rotation = a.delta_rotation;
        }
        if c.body_b != 0 {
            let t = &mut bodies[c.body_b as usize];
            t.delta_position = b.delta_position;
            t.delta_rotation = b.delta_rotation;
        }
    }
}

/// Moves a body by a pseudo-impulse `p` at offset `r`: Δp += p/m, Δq rotated by I⁻¹(r × p).
#[inline(always)]
fn displace(body: &mut SolverBody, r: Vec3, p: Vec3) {
    if body.inv_mass == 0.0 {
        return;
    }
    body.delta_position += body.inv_mass * p;
    let angle = body.inv_inertia * r.cross(p);
    body.delta_rotation = crate::math::integrate_rotation(body.delta_rotation, angle, 1.0);
}

/// Copies the accumulated impulses back into the contact pairs for the next step's warm
/// start and for readout, converted to per-step units by `step_scale` (substeps per step).
pub(crate) fn store_impulses(constraints: &[ContactConstraint], contacts: &mut [Contact], step_scale: f32) {
    for c in constraints {
        let contact = &mut contacts[c.contact_index as usize];
        for (i, p) in c.points[..c.point_count].iter().enumerate() {
            contact.impulses[i] = PointImpulse {
                normal: p.normal_impulse * step_scale,
                friction: (p.tangent_impulse[0] * c.tangent1 + p.tangent_impulse[1] * c.tangent2) * step_scale,
                max_normal: p.max_normal_impulse * step_scale,
            };
        }
    }
}
