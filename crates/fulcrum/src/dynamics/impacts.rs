//! Impacts: restitution as a phase of its own, before the contact solve of the step.
//!
//! At the start of the step a manifold point whose bodies approach faster than the
//! restitution threshold, and whose gap closes within the step, is an impact. The impact of
//! one manifold is resolved at once, all of its closing points together, as the small
//! complementarity problem
//!
//! ```text
//! find Δλ ≥ 0 with   w = v_n + K Δλ − t ≥ 0,   Δλᵢ wᵢ = 0,
//! tᵢ = −e v_n,i at an impacting point,   tᵢ = 0 at a closing point that approaches slower
//! ```
//!
//! (K the manifold's normal block, v_n the normal velocities before the impact), solved
//! exactly by trying the active sets. Every impacting point then separates at e times its
//! approach speed. The speed is reflected where the bodies are when the step starts, up to a
//! step's travel before they touch: the kinetic energy is e² times what it was whatever the gap
//! left, so a ball bounces back to e² times its drop height exactly.
//!
//! Impacts of different manifolds are resolved one after another, in sweeps over the contacts
//! until none approaches faster than the threshold (at most [`MAX_SWEEPS`]): a blow passed
//! down a row of touching balls (Newton's cradle) travels one contact per impact, each an
//! exchange of speeds, as in the real one, instead of being shared at once by the whole row.
//! Whatever still approaches after the last sweep is stopped by the contact solve.
//! Both solver modes resolve impacts the same way.

// Small fixed-size systems read best with explicit indices.
#![allow(clippy::needless_range_loop)]

use super::block::sym_index;
use super::contact_wide::{apply, WideBodies, WideContact};
use super::parts::dense::{self, Mat6, Vec6};
use super::simd::{Lanes, V3};
use super::solver_body::{SolverBody, SolverBodyParams};
use crate::collision::manifold::MAX_MANIFOLD_POINTS;

/// Most sweeps over the contacts: a blow crosses at least one contact per sweep, so a row of
/// this many touching bodies passes it on completely.
pub(crate) const MAX_SWEEPS: usize = 16;

/// What the impact phase reads besides the contacts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ImpactParams {
    /// Approach speed above which a closing point bounces, m/s.
    pub threshold: f32,
    /// Length of the step, s.
    pub dt: f32,
    /// Length of one solver step (substep in soft step), s.
    pub h: f32,
}

/// Resolves the impacts of all contacts with restitution (see the module documentation).
#[inline(always)]
pub(crate) fn resolve_impacts<F: Lanes>(
    contacts: &mut [WideContact<F>],
    bodies: &mut [SolverBody],
    params: &[SolverBodyParams],
    settings: &ImpactParams,
) {
    for _ in 0..MAX_SWEEPS {
        let mut struck = false;
        for c in contacts.iter_mut().filter(|c| c.restitution.above(F::fill(0.0)).bits() != 0) {
            struck |= strike(c, bodies, params, settings);
        }
        if !struck {
            return;
        }
    }
}

/// The normal velocity and closing state of one lane's points.
struct LanePoints {
    velocity: [f32; MAX_MANIFOLD_POINTS],
    target: [f32; MAX_MANIFOLD_POINTS],
    /// Bit i: point i closes within the step.
    closing: u8,
    /// Bit i: point i approaches faster than the threshold.
    impacting: u8,
}

/// Resolves the impacts of one group of lanes; true if any lane had one.
#[inline(always)]
fn strike<F: Lanes>(
    c: &mut WideContact<F>,
    bodies: &mut [SolverBody],
    params: &[SolverBodyParams],
    settings: &ImpactParams,
) -> bool {
    let mut a = WideBodies::gather(bodies, &c.body_a);
    let mut b = WideBodies::gather(bodies, &c.body_b);
    let lanes = lane_points(c, &a, &b, params, settings);
    if lanes.iter().all(|lane| lane.impacting == 0) {
        return false;
    }
    let mut impulse = [[0.0f32; 8]; MAX_MANIFOLD_POINTS];
    for (lane, points) in lanes.iter().enumerate().filter(|(_, points)| points.impacting != 0) {
        let k: Mat6 = std::array::from_fn(|i| {
            std::array::from_fn(|j| if i < 4 && j < 4 { c.k[sym_index(i, j)].get(lane) } else { 0.0 })
        });
        let x = solve_impact(&k, points, c.max_points);
        for i in 0..c.max_points {
            impulse[i][lane] = x[i];
        }
    }
    for i in 0..c.max_points {
        let delta = F::build(|lane| impulse[i][lane]);
        let (ra, rb) = (c.points[i].anchor_a, c.points[i].anchor_b);
        apply(c, &mut a, &mut b, &ra, &rb, &c.normal.scale(delta));
    }
    a.scatter(bodies, &c.body_a);
    b.scatter(bodies, &c.body_b);
    true
}

/// Per lane: each point's normal velocity, whether it closes within the step and whether it
/// strikes. A gap s closes when s + v̄ dt < 0, v̄ the mean normal velocity over the step with
/// the bodies' accelerations (gravity) taken in.
#[inline(always)]
fn lane_points<F: Lanes>(
    c: &WideContact<F>,
    a: &WideBodies<F>,
    b: &WideBodies<F>,
    params: &[SolverBodyParams],
    settings: &ImpactParams,
) -> [LanePoints; 8] {
    let acceleration = |ids: &F::Indices| V3::build(|lane| params[ids.as_ref()[lane] as usize].linear_acceleration);
    let relative_acceleration = c.normal.dot(&acceleration(&c.body_b).sub(&acceleration(&c.body_a)));
    // The solve passes remove approach speed one solver step ahead (speculative contacts), so
    // a gap counts as closing if it closes by the end of the next step's first solver step.
    let horizon = F::fill(settings.dt + settings.h);
    let mut lanes: [LanePoints; 8] =
        std::array::from_fn(|_| LanePoints { velocity: [0.0; 4], target: [0.0; 4], closing: 0, impacting: 0 });
    let linear = c.normal.dot(&b.v.sub(&a.v));
    for i in 0..c.max_points {
        let p = &c.points[i];
        let (arm_a, arm_b) = p.arms(&c.normal);
        let velocity = linear + arm_b.dot(&b.w) - arm_a.dot(&a.w);
        let gap = p.base_separation + c.normal.dot(&p.anchor_b.sub(&p.anchor_a));
        // The contact speed c* of a gap s closing at c under the closing acceleration α, and
        // the speed u back at the gap after a bounce at contact: c*² = c² + 2αs,
        // u² = e² c*² − 2αs (u = e c when touching).
        let (speed, gap) = (-velocity, gap.max(F::fill(0.0)));
        let closing_acceleration = -relative_acceleration;
        let contact_speed_squared = speed * speed + F::fill(2.0) * closing_acceleration * gap;
        let mean_velocity = velocity + F::fill(0.5) * horizon * relative_acceleration;
        let closing = (gap + mean_velocity * horizon).below(F::fill(0.0))
            & contact_speed_squared.above(F::fill(0.0))
            & c.active(i).above(F::fill(0.0));
        let fast = velocity.below(F::fill(-settings.threshold)) & c.restitution.above(F::fill(0.0));
        let bounce_squared =
            c.restitution * c.restitution * contact_speed_squared - F::fill(2.0) * closing_acceleration * gap;
        // The integrator takes α h off the speed in the solver step that follows (before
        // it moves the bodies), so the bounce is handed over with it added back: symplectic
        // Euler's own energy, ½v² − α s − ½ α h v, is then kept through the bounce.
        let bounce = bounce_squared.max(F::fill(0.0)).sqrt();
        let target = bounce
            .above(F::fill(0.0))
            .choose((bounce + closing_acceleration * F::fill(settings.h)).max(F::fill(0.0)), F::fill(0.0));
        let (closing, impacting) = (closing.bits(), (closing & fast).bits());
        for (lane, points) in lanes.iter_mut().enumerate().take(F::COUNT) {
            points.velocity[i] = velocity.get(lane);
            points.closing |= (((closing >> lane) & 1) as u8) << i;
            if (impacting >> lane) & 1 != 0 {
                points.impacting |= 1 << i;
                points.target[i] = target.get(lane);
            }
        }
    }
    lanes
}

/// The impulses Δλ ≥ 0 of one manifold's impact: the active set S (points that push) is
/// found by trying the subsets of the closing points, largest first; on S, K_SS Δλ_S = t_S − v_S,
/// and every closing point outside S must not approach faster than its target allows. A
/// face's K is singular (four coplanar points constrain three degrees of freedom), so the
/// full set may fail where a three-point subset gives the same velocities.
fn solve_impact(k: &Mat6, points: &LanePoints, count: usize) -> [f32; MAX_MANIFOLD_POINTS] {
    let closing = points.closing;
    let scale = points.velocity.iter().chain(&points.target).fold(1.0f32, |m, v| m.max(v.abs()));
    let tolerance = 1e-4 * scale;
    for size in (1..=count as u32).rev() {
        for set in (1..16u8).filter(|&s| s.count_ones() == size && s & !closing == 0) {
            if let Some(impulse) = try_active_set(k, points, count, set, tolerance) {
                return impulse;
            }
        }
    }
    [0.0; MAX_MANIFOLD_POINTS]
}

/// The impulses with exactly the points of `set` pushing, if they are all non-negative and no
/// other closing point is left approaching past its target.
fn try_active_set(
    k: &Mat6,
    points: &LanePoints,
    count: usize,
    set: u8,
    tolerance: f32,
) -> Option<[f32; MAX_MANIFOLD_POINTS]> {
    let mut rows = [0usize; MAX_MANIFOLD_POINTS];
    let mut n = 0;
    for i in (0..count).filter(|&i| set & (1 << i) != 0) {
        rows[n] = i;
        n += 1;
    }
    let sub: Mat6 =
        std::array::from_fn(|r| std::array::from_fn(|s| if r < n && s < n { k[rows[r]][rows[s]] } else { 0.0 }));
    let rhs: Vec6 =
        std::array::from_fn(|r| if r < n { points.target[rows[r]] - points.velocity[rows[r]] } else { 0.0 });
    let x = dense::solve_spd(&sub, &rhs, n)?;
    if x[..n].iter().any(|&v| v < -tolerance) {
        return None;
    }
    let mut impulse = [0.0; MAX_MANIFOLD_POINTS];
    for r in 0..n {
        impulse[rows[r]] = x[r].max(0.0);
    }
    let outside = points.closing & !set;
    let separating = (0..count).filter(|&j| outside & (1 << j) != 0).all(|j| {
        let w = points.velocity[j] + (0..count).map(|i| k[j][i] * impulse[i]).sum::<f32>() - points.target[j];
        w >= -tolerance
    });
    separating.then_some(impulse)
}
