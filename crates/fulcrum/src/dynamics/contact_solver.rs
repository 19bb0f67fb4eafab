//! Contact constraints: the math, the parameters of a velocity pass, and the ngs position
//! pass after the velocity iterations. There is one implementation of
//! the contact solve, in SIMD lanes, one manifold per lane: `contact_prepare_wide.rs` prepares
//! and stores, `contact_wide.rs` warm starts and solves; a pair that fits no colour is a
//! one-lane [`WideContact`], so a fix lands once.
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
//! substep, bias = s/h. An overlapping point gets the soft bias rate·s with the softness' mass
//! and impulse scales (soft step), or a Baumgarte bias (pgs); beyond the deep depth (where
//! the push would reach max_push, or the overlap max_push removes in a step) the velocity
//! push fades out and `push_out.rs` displaces the bodies instead.
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
//! K = n·(I_A⁻¹ + I_B⁻¹)n, |λ_twist| ≤ μ Σ λ_n,i · |r_i − c|. Where the pair has rolling
//! resistance c, two angular rows resist rolling, Cdot = T·(ω_B − ω_A),
//! K = T (I_A⁻¹ + I_B⁻¹) Tᵀ (2×2), |λ_roll| ≤ c ρ Σ λ_n (a disc), ρ the rolling radius (the
//! larger distance along n from a moving body's centre of mass to the friction centre): on
//! level ground a ball decelerates at 5/7·c·g, and it rests on slopes with tan θ ≤ c.
//! Friction is solved in the
//! unbiased pass (relax) of the soft step only: a friction bound taken from a normal impulse
//! that includes position correction would resist sliding in proportion to the overlap, and
//! it destabilises heavy-on-light stacks. In pgs, and when relax is off, it runs every pass.
//!
//! The normal rows of a manifold are solved together by the block solver (`block.rs`) when
//! `block_solver` is on (a lane whose exact search finds no solution falls back to the
//! sequential solve); otherwise one point at a time, alternating the visiting order between
//! passes so no point is always first.
//!
//! Restitution is not part of the solve: impacts are resolved before it, in both modes
//! (`impacts.rs`).
//!
//! Impulses are stored per step (the sum over substeps) so warm starting survives a change of
//! solver mode or substep count.

use super::contact_wide::{gather_motion, scatter_motion, NormalMotion, WideContact};
use super::simd::{F4, V3};
use super::solver_body::SolverBody;

/// What the velocity solve needs besides the constraints.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolveParams {
    /// 1 / (length of the solver step): substep in soft-step mode, step in pgs.
    pub inv_h: f32,
    /// Overlap tolerated without bias (pgs), m.
    pub slop: f32,
    /// Apply the position bias (false in the relax pass).
    pub use_bias: bool,
    /// Solve the friction rows in this pass.
    pub friction: bool,
    /// Visit the points of each manifold in reverse order. Alternating the order between
    /// passes keeps a symmetric contact symmetric: a single order favours the first point.
    pub reverse: bool,
    /// Solve each manifold's normal rows together (block solver).
    pub block: bool,
}

/// What the ngs position pass needs besides the constraints.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PositionParams {
    /// Fraction of the overlap removed per pass, β.
    pub baumgarte: f32,
    /// Overlap left alone, m.
    pub slop: f32,
    /// Largest correction of one point in one pass, m.
    pub max_correction: f32,
}

/// NGS position pass (pgs): pushes overlapping points apart by moving the bodies directly,
/// with each point's effective mass as a pseudo-mass; velocities are not changed. Point by
/// point, all lanes at once (a colour's lanes share no movable body), each point seeing the
/// corrections of the points before it:
///
/// ```text
/// C = clamp(β (s + slop), −max_correction, 0),   Δλ = −K⁻¹ C,
/// Δp_B += Δλ n / m_B,   Δq_B turned by I_B⁻¹ (r_B × Δλ n)      (and the opposite for A)
/// ```
///
/// K, the masses and the inertias are the lanes' (from the start of the step), like the
/// velocity passes'.
pub(crate) fn correct_positions(c: &WideContact, bodies: &mut [SolverBody], params: &PositionParams) {
    let (mut dpa, mut dqa) = gather_motion(bodies, &c.body_a);
    let (mut dpb, mut dqb) = gather_motion(bodies, &c.body_b);
    let (movable_a, movable_b) = (c.inv_mass_a.simd_gt(F4::ZERO), c.inv_mass_b.simd_gt(F4::ZERO));
    let (beta, slop) = (F4::splat(params.baumgarte), F4::splat(params.slop));
    let max_correction = F4::splat(-params.max_correction);
    for (i, p) in c.points[..c.max_points].iter().enumerate() {
        let s = NormalMotion::new(&c.normal, (&dpa, &dqa), (&dpb, &dqb)).separation(p);
        let error = (beta * (s + slop)).max(max_correction).min(F4::ZERO);
        // Padding points have no mass, so no impulse.
        let impulse: V3 = c.normal.scale(-(c.normal_mass(i) * error));
        dpa = dpa.add_scaled(&impulse, -c.inv_mass_a);
        dpb = dpb.add_scaled(&impulse, c.inv_mass_b);
        let turn_a = c.inv_inertia_a.mul(&p.anchor_a.cross(&impulse));
        let turn_b = c.inv_inertia_b.mul(&p.anchor_b.cross(&impulse));
        // Bodies that cannot move keep their rotation bit for bit (normalising would not).
        dqa = dqa.integrate(&turn_a.scale(-F4::ONE)).select(movable_a, &dqa);
        dqb = dqb.integrate(&turn_b).select(movable_b, &dqb);
    }
    scatter_motion(bodies, &c.body_a, &dpa, &dqa);
    scatter_motion(bodies, &c.body_b, &dpb, &dqb);
}
