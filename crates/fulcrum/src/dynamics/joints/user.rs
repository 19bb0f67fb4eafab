//! User constraints in the solver: the rows a [`UserConstraint`] describes, solved with the
//! joints' parts in every pass.
//!
//! Each pass first asks the constraint for its rows at the bodies' current state, then:
//!
//! ```text
//! scalar rows (inequality, bounded, soft, or with a target velocity), in the given order:
//!   m  = 1 / (J M⁻¹ Jᵀ)
//!   Δλ = −mass_scale · m (J v − v* + bias_rate · C) − impulse_scale · λ
//!   λ  = clamp(λ + Δλ, bounds),   v += M⁻¹ Jᵀ (λ_new − λ_old)
//!   scales: soft row          the row's spring in every pass
//!           inequality, C > 0 speculative: bias 1/h, rigid (closes the gap, no more)
//!           otherwise         the joint softness (solve pass) / rigid (relax pass)
//!   bounds: equality (−∞, ∞), inequality [0, ∞), bounded [min_force·h, max_force·h]
//! rigid equality rows (no softness, no target velocity): one block, K = J M⁻¹ Jᵀ, last, so
//!   they hold exactly while the others act (solve_equality, the joints' block solve)
//! ```
//!
//! Warm starting applies the accumulated impulses along the rows of that moment; NGS (pgs)
//! corrects the rigid equality rows (with or without a target velocity: the target is what
//! Ċ should be, C is still meant to be 0) as one block, after the violated rigid inequality
//! rows. Rows that cannot act
//! (J M⁻¹ Jᵀ = 0: they touch only immovable bodies) are skipped. Invalid rows, an `Err` from
//! the constraint, or a non-finite impulse stop the constraint for the rest of the step
//! before anything bad is applied; its impulses are dropped and the failure is reported.

use super::with_bodies;
use crate::dynamics::parts::dense::MAX_ROWS;
use crate::dynamics::parts::equality::{correct_positions, solve_equality, PassContext, RowScales};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::error::Error;
use crate::joint::user::MAX_USER_ROWS;
use crate::joint::user::{RowBounds, UserBody, UserConstraint, UserConstraintReaction, UserRow, UserRows};
use crate::math::{Quat, Vec3};

/// Where a body was at the start of the step; with the solver body's motion since, it gives
/// the user's view of the body at any point of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BodyStart {
    /// Centre of mass, world.
    pub center: Vec3,
    /// Rotation, world.
    pub rotation: Quat,
    /// Centre of mass in the body frame.
    pub local_center: Vec3,
}

impl BodyStart {
    /// The static world.
    pub const WORLD: BodyStart = BodyStart { center: Vec3::ZERO, rotation: Quat::IDENTITY, local_center: Vec3::ZERO };

    /// The body as the user sees it now: c = c₀ + Δp, q = Δq q₀, origin = c − q·c_local.
    fn view(&self, body: &SolverBody) -> UserBody {
        let center = self.center + Vec3::from(body.delta_position);
        let rotation = (body.delta_rotation * self.rotation).normalize();
        UserBody {
            position: center - rotation * self.local_center,
            rotation,
            center_of_mass: center,
            linear_velocity: body.linear_velocity.into(),
            angular_velocity: body.angular_velocity.into(),
            inv_mass: body.inv_mass,
            inv_inertia: body.inv_inertia,
        }
    }
}

/// One active user constraint in this step's solver arrays.
pub(crate) struct ActiveUserConstraint {
    /// Slot of the constraint in the world's arena.
    pub slot: u32,
    /// Solver index of body A (0: the static world or a static body).
    pub body_a: u32,
    /// Solver index of body B.
    pub body_b: u32,
    /// Body A at the start of the step (the world: [`BodyStart::WORLD`]).
    pub start_a: BodyStart,
    /// Body B at the start of the step.
    pub start_b: BodyStart,
    /// Solver step length, seconds.
    pub h: f32,
    /// The user's constraint, moved here for the step and back into the world after it.
    pub constraint: Box<dyn UserConstraint>,
    /// Accumulated impulse per row.
    pub impulse: [f32; MAX_USER_ROWS],
    /// The rows of the last evaluation.
    pub rows: UserRows,
    /// Why the constraint stopped acting in this step.
    pub failure: Option<Error>,
}

impl ActiveUserConstraint {
    /// The reaction of this step (zero when it failed).
    pub fn reaction(&self) -> UserConstraintReaction {
        if self.failure.is_some() {
            return UserConstraintReaction::default();
        }
        UserConstraintReaction::of(self.rows.rows(), &self.impulse, self.h)
    }

    /// Stops the constraint for the rest of the step (the first failure is kept).
    fn fail(&mut self, error: Error) {
        self.impulse = [0.0; MAX_USER_ROWS];
        self.failure.get_or_insert(error);
    }

    /// Asks the constraint for its rows at the bodies' current state and checks them. Drops
    /// the impulses of rows that no longer exist and clamps the others into their (possibly
    /// new) bounds. False when the constraint failed (now or earlier in the step).
    fn evaluate(&mut self, a: &SolverBody, b: &SolverBody) -> bool {
        if self.failure.is_some() {
            return false;
        }
        let forces = self.impulse.map(|lambda| if self.h > 0.0 { lambda / self.h } else { 0.0 });
        let mut rows = UserRows::with_forces(forces, self.h);
        let outcome = self.constraint.rows(&self.start_a.view(a), &self.start_b.view(b), &mut rows);
        if let Err(error) = outcome.and_then(|_| rows.checked().map(|_| ())) {
            self.fail(error);
            return false;
        }
        for (i, lambda) in self.impulse.iter_mut().enumerate() {
            *lambda = match rows.rows().get(i) {
                Some(row) => clamp_impulse(row, *lambda, self.h),
                None => 0.0,
            };
        }
        self.rows = rows;
        true
    }

    /// Applies the accumulated impulses along the current rows.
    pub fn warm_start(&mut self, bodies: &mut [SolverBody]) {
        let (ia, ib) = (self.body_a, self.body_b);
        with_bodies(bodies, ia, ib, |a, b| {
            if self.evaluate(a, b) {
                for (row, &lambda) in self.rows.rows().iter().zip(&self.impulse) {
                    jacobian(row).apply(a, b, lambda);
                }
            }
        });
    }

    /// One pass: the scalar rows in order, then the rigid equality rows as one block.
    pub fn solve(&mut self, bodies: &mut [SolverBody], ctx: &PassContext) {
        let (ia, ib) = (self.body_a, self.body_b);
        with_bodies(bodies, ia, ib, |a, b| {
            if !self.evaluate(a, b) {
                return;
            }
            let rows = self.rows.clone();
            for (i, row) in rows.rows().iter().enumerate() {
                if !in_velocity_block(row) && !solve_scalar(row, &mut self.impulse[i], a, b, ctx) {
                    return self.fail(Error::new(format!("rows[{i}]"), "the impulse became non-finite"));
                }
            }
            let mut block = Block::of(rows.rows(), in_velocity_block, a, b);
            block.gather_impulse(&self.impulse);
            if !block.solve(a, b, ctx.rigid()) {
                return self.fail(Error::new("rows", "the equality block could not be solved (non-finite)"));
            }
            block.scatter_impulse(&mut self.impulse);
        });
    }

    /// One NGS position pass (pgs): violated rigid inequality rows, then the rigid equality
    /// block, all from the rows at the start of the pass.
    pub fn correct_positions(&mut self, bodies: &mut [SolverBody], beta: f32, max_correction: f32) {
        let (ia, ib) = (self.body_a, self.body_b);
        with_bodies(bodies, ia, ib, |a, b| {
            if !self.evaluate(a, b) {
                return;
            }
            let rows = self.rows.rows();
            for row in rows.iter().filter(|r| r.bounds == RowBounds::Inequality && r.softness.is_none()) {
                let j = jacobian(row);
                if row.error < 0.0 && effective_inverse_mass(&j, a, b) > 0.0 {
                    correct_positions(&[j], &[row.error], a, b, beta, max_correction);
                }
            }
            Block::of(rows, is_rigid_equality, a, b).correct(a, b, beta, max_correction);
        });
    }
}

/// The solver's Jacobian row of a user row.
#[inline]
fn jacobian(row: &UserRow) -> JacobianRow {
    JacobianRow { linear_a: row.linear_a, angular_a: row.angular_a, linear_b: row.linear_b, angular_b: row.angular_b }
}

/// J M⁻¹ Jᵀ of one row (0 when it touches only immovable bodies).
#[inline]
fn effective_inverse_mass(j: &JacobianRow, a: &SolverBody, b: &SolverBody) -> f32 {
    j.dot(&j.weighted(a, b))
}

/// A rigid equality row: position-corrected by NGS as part of the block.
#[inline]
fn is_rigid_equality(row: &UserRow) -> bool {
    row.bounds == RowBounds::Equality && row.softness.is_none()
}

/// Rigid equality rows without a target velocity are solved as one block in the velocity
/// passes (the block solve has no target term); the others one at a time.
#[inline]
fn in_velocity_block(row: &UserRow) -> bool {
    is_rigid_equality(row) && row.target_velocity == 0.0
}

/// The accumulated impulse λ kept inside the row's bounds over a step of `h` seconds.
fn clamp_impulse(row: &UserRow, lambda: f32, h: f32) -> f32 {
    match row.bounds {
        RowBounds::Equality => lambda,
        RowBounds::Inequality => lambda.max(0.0),
        RowBounds::Bounded { min_force, max_force } => lambda.clamp(min_force * h, max_force * h),
    }
}

/// The soft coefficients of a scalar row in this pass (see the module comment).
fn scalar_scales(row: &UserRow, ctx: &PassContext) -> RowScales {
    let speculative = row.bounds == RowBounds::Inequality && row.error > 0.0;
    if speculative {
        RowScales { bias_rate: ctx.inv_h, ..RowScales::RIGID }
    } else {
        ctx.spring_or_rigid(row.softness)
    }
}

/// One scalar row (see the module comment); false when the impulse would not be finite.
fn solve_scalar(row: &UserRow, impulse: &mut f32, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext) -> bool {
    let j = jacobian(row);
    let k = effective_inverse_mass(&j, a, b);
    if !(k > 0.0) {
        // A row that touches only immovable bodies cannot act; a NaN is a failure.
        return !k.is_nan();
    }
    let scales = scalar_scales(row, ctx);
    let velocity_error = j.velocity(a, b) - row.target_velocity + scales.bias_rate * row.error;
    let delta = -scales.mass_scale * velocity_error / k - scales.impulse_scale * *impulse;
    let new = clamp_impulse(row, *impulse + delta, ctx.h);
    if !new.is_finite() {
        return false;
    }
    j.apply(a, b, new - *impulse);
    *impulse = new;
    true
}

/// The rigid equality rows of one evaluation gathered into a block (those that can act).
struct Block {
    rows: [JacobianRow; MAX_ROWS],
    error: [f32; MAX_ROWS],
    impulse: [f32; MAX_ROWS],
    /// Index of each block row among the user's rows.
    index: [usize; MAX_ROWS],
    len: usize,
}

impl Block {
    /// The rows that pass `filter` and can act.
    fn of(rows: &[UserRow], filter: fn(&UserRow) -> bool, a: &SolverBody, b: &SolverBody) -> Block {
        let mut block = Block {
            rows: [JacobianRow::default(); MAX_ROWS],
            error: [0.0; MAX_ROWS],
            impulse: [0.0; MAX_ROWS],
            index: [0; MAX_ROWS],
            len: 0,
        };
        for (i, row) in rows.iter().enumerate().filter(|(_, r)| filter(r)) {
            let j = jacobian(row);
            if effective_inverse_mass(&j, a, b) > 0.0 {
                block.rows[block.len] = j;
                block.error[block.len] = row.error;
                block.index[block.len] = i;
                block.len += 1;
            }
        }
        block
    }

    fn gather_impulse(&mut self, impulse: &[f32; MAX_USER_ROWS]) {
        for k in 0..self.len {
            self.impulse[k] = impulse[self.index[k]];
        }
    }

    fn scatter_impulse(&self, impulse: &mut [f32; MAX_USER_ROWS]) {
        for k in 0..self.len {
            impulse[self.index[k]] = self.impulse[k];
        }
    }

    /// One soft solve of the block; false when it cannot be factored (non-finite).
    fn solve(&mut self, a: &mut SolverBody, b: &mut SolverBody, scales: RowScales) -> bool {
        match self.len {
            1 => self.solve_sized::<1>(a, b, scales),
            2 => self.solve_sized::<2>(a, b, scales),
            3 => self.solve_sized::<3>(a, b, scales),
            4 => self.solve_sized::<4>(a, b, scales),
            5 => self.solve_sized::<5>(a, b, scales),
            6 => self.solve_sized::<6>(a, b, scales),
            _ => true,
        }
    }

    fn solve_sized<const N: usize>(&mut self, a: &mut SolverBody, b: &mut SolverBody, scales: RowScales) -> bool {
        let (Some(rows), Some(error), Some(impulse)) =
            (self.rows.first_chunk::<N>(), self.error.first_chunk::<N>(), self.impulse.first_chunk_mut::<N>())
        else {
            return false;
        };
        solve_equality(rows, error, impulse, a, b, scales)
    }

    /// One NGS pass over the block.
    fn correct(&self, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max_correction: f32) {
        match self.len {
            1 => self.correct_sized::<1>(a, b, beta, max_correction),
            2 => self.correct_sized::<2>(a, b, beta, max_correction),
            3 => self.correct_sized::<3>(a, b, beta, max_correction),
            4 => self.correct_sized::<4>(a, b, beta, max_correction),
            5 => self.correct_sized::<5>(a, b, beta, max_correction),
            6 => self.correct_sized::<6>(a, b, beta, max_correction),
            _ => {}
        }
    }

    fn correct_sized<const N: usize>(&self, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max_correction: f32) {
        if let (Some(rows), Some(error)) = (self.rows.first_chunk::<N>(), self.error.first_chunk::<N>()) {
            correct_positions(rows, error, a, b, beta, max_correction);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::softness::Softness;
    use crate::math::{Mat3, Vec3A};

    fn moving_body(velocity: Vec3) -> SolverBody {
        SolverBody {
            linear_velocity: velocity.into(),
            inv_mass: 0.5,
            inv_inertia: Mat3::from_diagonal(Vec3::splat(2.0)),
            ..SolverBody::STATIC
        }
    }

    fn pass(h: f32) -> PassContext {
        let rigid = Softness::RIGID;
        PassContext {
            h,
            inv_h: 1.0 / h,
            use_bias: true,
            joint_softness: rigid,
            tree_softness: rigid,
            look_ahead: false,
            step: 1,
        }
    }

    /// The user's view of a body that moved and turned since the start of the step: the
    /// centre moved by Δp, the rotation is Δq q₀, and the origin sits at c − q·c_local.
    #[test]
    fn view_follows_the_motion_since_the_start() {
        let start = BodyStart {
            center: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_rotation_z(0.3),
            local_center: Vec3::new(0.5, 0.0, 0.0),
        };
        let mut body = moving_body(Vec3::X);
        body.delta_position = Vec3A::new(0.1, -0.2, 0.0);
        body.delta_rotation = Quat::from_rotation_y(0.2);
        let view = start.view(&body);
        let rotation = Quat::from_rotation_y(0.2) * Quat::from_rotation_z(0.3);
        assert!((view.center_of_mass() - Vec3::new(1.1, 1.8, 3.0)).length() < 1e-6);
        assert!(view.rotation().angle_between(rotation) < 1e-5);
        let origin = view.center_of_mass() - rotation * Vec3::new(0.5, 0.0, 0.0);
        assert!((view.position() - origin).length() < 1e-6);
        assert_eq!((view.linear_velocity(), view.inv_mass()), (Vec3::X, 0.5));
    }

    /// A bounded row stops at its force bound: a 2 kg body at 10 m/s held by a row bounded
    /// to ±5 N for h = 0.01 s loses exactly 5·h/m of speed, and its impulse is 5·h.
    #[test]
    fn bounded_row_stops_at_its_bound() {
        let (mut world, mut body) = (SolverBody::STATIC, moving_body(Vec3::new(10.0, 0.0, 0.0)));
        let row = UserRow::new(-Vec3::X, Vec3::ZERO, Vec3::X, Vec3::ZERO, 0.0).bounded(-5.0, 5.0);
        let mut impulse = 0.0;
        assert!(solve_scalar(&row, &mut impulse, &mut world, &mut body, &pass(0.01)));
        assert!((impulse + 0.05).abs() < 1e-7, "{impulse}");
        assert!((body.linear_velocity.x - (10.0 - 0.05 * 0.5)).abs() < 1e-6);
    }

    /// A row that touches only immovable bodies cannot act: it is skipped, not a failure.
    #[test]
    fn a_row_on_immovable_bodies_is_skipped() {
        let (mut a, mut b) = (SolverBody::STATIC, SolverBody::STATIC);
        let row = UserRow::new(-Vec3::Y, Vec3::ZERO, Vec3::Y, Vec3::ZERO, 0.3);
        let mut impulse = 0.0;
        assert!(solve_scalar(&row.inequality(), &mut impulse, &mut a, &mut b, &pass(0.01)));
        assert_eq!(impulse, 0.0);
        assert_eq!(Block::of(&[row], in_velocity_block, &a, &b).len, 0);
    }
}
