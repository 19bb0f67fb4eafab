//! One degree of freedom along a Jacobian row (a slide along an axis or a turn about it)
//! with an optional spring, motor and limits: the part hinges, sliders, wheels and distance
//! joints share.
//!
//! With x the position along the row (metres or radians), ẋ = J v and m = 1/(J M⁻¹ Jᵀ) (or,
//! through `solve_with_mass`, the row's mass while the joint's equality rows hold; see
//! `equality::constrained_mass`):
//!
//! ```text
//! spring          a force on x − rest at (hertz, ζ), once per solver step (below)
//! velocity motor  Δλ = −m (ẋ − target),           |λ| ≤ max_force · h
//! position motor  C = x − target, soft at (hertz, ζ), |λ| ≤ max_force · h
//! lower limit     C = x − lower ≥ 0,  λ ≥ 0
//! upper limit     C = upper − x ≥ 0,  λ ≥ 0       (the row negated)
//! ```
//!
//! A limit that is not yet reached is speculative: its bias is C/h, so the solver lets the
//! joint approach the limit but not cross it within the step. A limit that is violated is
//! pushed back with the joint softness in the solve pass and held rigidly in the relax pass.
//! Accumulated impulses are clamped (never the increments).
//!
//! The spring is a force, integrated once per solver step (in the biased pass; the relax
//! pass leaves it alone) by the exact discretisation of the damped oscillator
//! ẍ = −ω² x − 2ζω ẋ. Sampled at steps of h its motion obeys
//! x_{n+1} = α x_n − β x_{n−1} with α = e^{s₁h} + e^{s₂h}, β = e^{−2ζωh} (s₁, s₂ the roots of
//! s² + 2ζω s + ω²), and with the integrator's ẋ_{n+1} = (x_{n+1} − x_n)/h that is the impulse
//!
//! ```text
//! λ = m [(β − 1) ẋ − (1 + β − α)/h · (x − rest)]      ẋ without the spring's own impulse
//! ```
//!
//! so a lone spring keeps its set frequency and damping exactly at any step (an undamped one
//! keeps its amplitude; the backward-Euler spring it replaces lost 20% a period at 1.5 Hz).
//! A spring stiffer than ωh = 1 (38 Hz at 240 Hz substeps) is meant to be nearly rigid and
//! keeps the implicit soft row in every pass: coupled to its neighbours (five 60 Hz hinge
//! springs in a chain, soft welds) an explicit force that stiff would be unstable, and the
//! relax pass's second sweep is what settles them.

use super::equality::{constrained_mass, FreeRow, PassContext, RowScales};
use super::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;

/// A motor driving the degree of freedom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum DofMotor {
    /// Drive ẋ towards `target` (m/s or rad/s) with at most `max_force` (N or N·m).
    Velocity { target: f32, max_force: f32 },
    /// Pull x towards `target` (m or rad) like a spring of `hertz` and `damping_ratio`, with
    /// at most `max_force`.
    Position { target: f32, hertz: f32, damping_ratio: f32, max_force: f32 },
}

/// A spring on the degree of freedom, relaxed at `rest`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DofSpring {
    /// Frequency, Hz.
    pub hertz: f32,
    /// Damping ratio (1 = critical).
    pub damping_ratio: f32,
    /// Position where the spring is relaxed (m or rad).
    pub rest: f32,
}

/// Spring, motor and limits of one degree of freedom with their accumulated impulses.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Dof {
    pub spring: Option<DofSpring>,
    pub motor: Option<DofMotor>,
    /// (lower, upper), lower ≤ upper. An infinite bound is no limit on that side (a rope
    /// has only an upper one).
    pub limits: Option<(f32, f32)>,
    pub spring_impulse: f32,
    pub motor_impulse: f32,
    pub lower_impulse: f32,
    pub upper_impulse: f32,
}

impl Dof {
    /// True when the part does anything.
    pub fn is_active(&self) -> bool {
        self.spring.is_some() || self.motor.is_some() || self.limits.is_some()
    }

    /// Net accumulated impulse along the row.
    pub fn total_impulse(&self) -> f32 {
        self.spring_impulse + self.motor_impulse + self.lower_impulse - self.upper_impulse
    }

    /// Visits the impulse slots (spring, motor, lower limit, upper limit), tagged 1 where
    /// the part is present (see `JointSolver::impulses`).
    pub fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        let limits = u8::from(self.limits.is_some());
        visit(u8::from(self.spring.is_some()), &mut self.spring_impulse);
        visit(u8::from(self.motor.is_some()), &mut self.motor_impulse);
        visit(limits, &mut self.lower_impulse);
        visit(limits, &mut self.upper_impulse);
    }

    /// Applies the accumulated impulses.
    pub fn warm_start(&self, row: &JacobianRow, a: &mut SolverBody, b: &mut SolverBody) {
        row.apply(a, b, self.total_impulse());
    }

    /// One pass: spring, then motor, then limits (the limits last so they win). `position`
    /// is x at the bodies' current positions.
    pub fn solve(
        &mut self,
        row: &JacobianRow,
        position: f32,
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
    ) {
        let k = row.dot(&row.weighted(a, b));
        if k > 0.0 {
            self.solve_with_mass(row, position, 1.0 / k, a, b, ctx);
        }
    }

    /// [`Dof::solve`] with the effective mass the row has while the joint's `equality` rows
    /// hold (see `equality::constrained_mass`); the row's own mass when that cannot be formed.
    pub fn solve_constrained(
        &mut self,
        row: &JacobianRow,
        position: f32,
        equality: &[JacobianRow],
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
    ) {
        match constrained_mass(row, equality, a, b) {
            Some(mass) => self.solve_with_mass(row, position, mass, a, b, ctx),
            None => self.solve(row, position, a, b, ctx),
        }
    }

    /// [`Dof::solve`] with the row's effective mass `mass` given (kg or kg·m²), e.g. the mass
    /// the degree of freedom has while the joint's equality rows hold.
    pub fn solve_with_mass(
        &mut self,
        row: &JacobianRow,
        position: f32,
        mass: f32,
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
    ) {
        if !(mass > 0.0) || !mass.is_finite() {
            return;
        }
        if let Some(spring) = self.spring {
            let delta = self.spring_delta(spring, row, position, mass, a, b, ctx);
            self.spring_impulse += delta;
            row.apply(a, b, delta);
        }
        if let Some(motor) = self.motor {
            self.solve_motor(motor, row, position, mass, a, b, ctx);
        }
        if let Some((lower, upper)) = self.limits {
            if lower > f32::NEG_INFINITY {
                let delta = limit_impulse(row, a, b, mass, position - lower, ctx, &mut self.lower_impulse);
                row.apply(a, b, delta);
            }
            if upper < f32::INFINITY {
                let upper_row = row.negated();
                let delta = limit_impulse(&upper_row, a, b, mass, upper - position, ctx, &mut self.upper_impulse);
                upper_row.apply(a, b, delta);
            }
        }
    }

    /// [`Dof::solve`] along the free row of `row` within the joint's equality rows
    /// `equality` (see [`FreeRow`]), so the spring, motor and limits see the inertia the
    /// degree of freedom really has. Returns the equality impulses that came with it, to be
    /// added to those rows' accumulated impulses. Warm start with the plain `row`.
    pub fn solve_within<const N: usize>(
        &mut self,
        row: &JacobianRow,
        equality: &[JacobianRow; N],
        position: f32,
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
    ) -> [f32; N] {
        let free = FreeRow::new(row, equality, a, b);
        let before = self.total_impulse();
        self.solve(&free.row, position, a, b, ctx);
        let mut booked = [0.0; N];
        free.book(self.total_impulse() - before, &mut booked);
        booked
    }

    /// Both sides of the limits as one-sided rows for the tree solve: the lower side along
    /// `row` with gap x − lower, the upper side along −`row` with gap upper − x.
    pub fn limit_rows(&self, row: &JacobianRow, position: f32) -> Option<[(JacobianRow, f32); 2]> {
        let (lower, upper) = self.limits?;
        Some([(*row, position - lower), (row.negated(), upper - position)])
    }

    /// The accumulated impulse of limit side `side` (0: lower, 1: upper).
    pub fn limit_impulse(&self, side: usize) -> f32 {
        if side == 0 {
            self.lower_impulse
        } else {
            self.upper_impulse
        }
    }

    /// Adds `delta` to the accumulated impulse of limit side `side` (0: lower, 1: upper).
    pub fn add_limit_impulse(&mut self, side: usize, delta: f32) {
        if side == 0 {
            self.lower_impulse += delta;
        } else {
            self.upper_impulse += delta;
        }
    }

    /// The change of the spring's impulse in this pass (see the module comment): the exact
    /// discrete spring in the biased pass (nothing in the relax pass), or the implicit soft row
    /// in every pass for a spring stiffer than [`EXACT_SPRING_LIMIT`].
    #[allow(clippy::too_many_arguments)]
    fn spring_delta(
        &self,
        spring: DofSpring,
        row: &JacobianRow,
        position: f32,
        mass: f32,
        a: &SolverBody,
        b: &SolverBody,
        ctx: &PassContext,
    ) -> f32 {
        let omega = 2.0 * std::f32::consts::PI * spring.hertz;
        let error = position - spring.rest;
        if omega * ctx.h > EXACT_SPRING_LIMIT {
            let scales = ctx.spring(spring.hertz, spring.damping_ratio);
            return soft_impulse(row, a, b, mass, error, scales, self.spring_impulse);
        }
        if !ctx.use_bias {
            return 0.0;
        }
        let (alpha, beta) = oscillator_recurrence(omega, spring.damping_ratio, ctx.h);
        let free_velocity = row.velocity(a, b) - self.spring_impulse / mass;
        let impulse = mass * ((beta - 1.0) * free_velocity - (1.0 + beta - alpha) * ctx.inv_h * error);
        impulse - self.spring_impulse
    }

    #[allow(clippy::too_many_arguments)]
    fn solve_motor(
        &mut self,
        motor: DofMotor,
        row: &JacobianRow,
        position: f32,
        mass: f32,
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
    ) {
        let (delta, max_force) = match motor {
            DofMotor::Velocity { target, max_force } => (-mass * (row.velocity(a, b) - target), max_force),
            DofMotor::Position { target, hertz, damping_ratio, max_force } => {
                let scales = ctx.spring(hertz, damping_ratio);
                (soft_impulse(row, a, b, mass, position - target, scales, self.motor_impulse), max_force)
            }
        };
        let max_impulse = max_force * ctx.h;
        let old = self.motor_impulse;
        self.motor_impulse = (old + delta).clamp(-max_impulse, max_impulse);
        row.apply(a, b, self.motor_impulse - old);
    }
}

/// Largest ωh of a spring integrated exactly (see the module comment).
const EXACT_SPRING_LIMIT: f32 = 1.0;

/// (α, β) of the damped oscillator's recurrence x_{n+1} = α x_n − β x_{n−1} at steps of `h`:
/// α = e^{s₁h} + e^{s₂h} = 2 e^{−ζωh} cos(ωh √(1 − ζ²)) (cosh(ωh √(ζ² − 1)) when ζ > 1),
/// β = e^{s₁h} e^{s₂h} = e^{−2ζωh}.
fn oscillator_recurrence(omega: f32, zeta: f32, h: f32) -> (f32, f32) {
    let decay = (-zeta * omega * h).exp();
    let q = zeta * zeta - 1.0;
    let wave = if q < 0.0 { (omega * h * (-q).sqrt()).cos() } else { (omega * h * q.sqrt()).cosh() };
    (2.0 * decay * wave, decay * decay)
}

/// Δλ = −mass_scale · m (ẋ + bias_rate · C) − impulse_scale · λ.
#[inline]
fn soft_impulse(
    row: &JacobianRow,
    a: &SolverBody,
    b: &SolverBody,
    mass: f32,
    error: f32,
    scales: RowScales,
    accumulated: f32,
) -> f32 {
    -scales.mass_scale * mass * (row.velocity(a, b) + scales.bias_rate * error) - scales.impulse_scale * accumulated
}

/// One side of a limit with C = `gap` ≥ 0 along `row` (effective mass `mass`); updates the
/// accumulated impulse (kept ≥ 0) and returns its change (not yet applied).
#[inline]
pub(crate) fn limit_impulse(
    row: &JacobianRow,
    a: &SolverBody,
    b: &SolverBody,
    mass: f32,
    gap: f32,
    ctx: &PassContext,
    accumulated: &mut f32,
) -> f32 {
    let scales = if gap > 0.0 {
        // Not reached: allow closing the gap within this step, not more.
        RowScales { bias_rate: ctx.inv_h, ..RowScales::RIGID }
    } else {
        ctx.rigid()
    };
    let delta = soft_impulse(row, a, b, mass, gap, scales, *accumulated);
    let old = *accumulated;
    *accumulated = (old + delta).max(0.0);
    *accumulated - old
}
