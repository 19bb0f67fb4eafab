//! User constraints: constraints whose rows you describe yourself, solved by the same parts
//! as the built-in joints.
//!
//! A constraint between body A (or the static world) and body B is a set of at most six
//! scalar rows. For each row you give, at the bodies' current state:
//!
//! ```text
//! the Jacobian  J = [ l_A, a_A, l_B, a_B ]      Ċ = l_A·v_A + a_A·ω_A + l_B·v_B + a_B·ω_B
//! the error     C                               (metres, radians, or your own unit)
//! the bounds    equality     C = 0,  λ free
//!               inequality   C ≥ 0,  λ ≥ 0      (pushes only; speculative while C > 0)
//!               bounded      λ/h in [min_force, max_force]   (friction, motors)
//! optionally    a softness (frequency, damping ratio) and a target velocity for Ċ
//! ```
//!
//! The engine solves the rows with the joints' parts: an impulse λ along a row changes the
//! velocities by M⁻¹ Jᵀ λ, the accumulated impulses are clamped to the bounds and warm
//! started, rigid rows get the joint softness (soft step) or Baumgarte / NGS correction (pgs)
//! and a relax pass, and the rigid equality rows are solved together as one block. The
//! rows are asked for again in every solver pass (several times per step), so curved
//! constraints follow the bodies within the step: keep [`UserConstraint::rows`] cheap and
//! free of side effects other than caching.
//!
//! A bead on a vertical wire circle of radius 1 m around the origin (x–y plane), with the
//! bead's centre as the constrained point:
//!
//! ```
//! use fulcrum::prelude::*;
//! use fulcrum::joint::{UserBody, UserConstraint, UserRow, UserRows};
//!
//! struct WireCircle {
//!     radius: f32,
//! }
//!
//! impl UserConstraint for WireCircle {
//!     fn rows(&mut self, world: &UserBody, bead: &UserBody, rows: &mut UserRows) -> fulcrum::Result<()> {
//!         let p = bead.center_of_mass();
//!         // In the plane: C = distance from the centre − radius, along the outward normal.
//!         let in_plane = Vec3::new(p.x, p.y, 0.0);
//!         let normal = in_plane.try_normalize().unwrap_or(Vec3::X);
//!         let closest = normal * self.radius;
//!         rows.push(UserRow::between_points(normal, closest, p, world, bead))?;
//!         // Out of the plane: C = z.
//!         rows.push(UserRow::between_points(Vec3::Z, closest, p, world, bead))
//!     }
//! }
//!
//! let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
//! let bead = world.create_body(&BodyDef::dynamic(Vec3::new(1.0, 0.0, 0.0))).unwrap();
//! world.create_collider(bead, &ColliderDef::new(Shape::sphere(0.05).unwrap())).unwrap();
//! let wire = world.create_user_constraint(None, bead, Box::new(WireCircle { radius: 1.0 })).unwrap();
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0).unwrap();
//! }
//! let p = world.body(bead).unwrap().center_of_mass();
//! assert!((p.length() - 1.0).abs() < 1e-3 && p.z.abs() < 1e-3);
//! // Change a parameter through the world (the bead wakes up); read the reaction.
//! world.user_constraint_mut(wire).unwrap().downcast_mut::<WireCircle>().unwrap().radius = 0.9;
//! let reaction = world.user_constraint(wire).unwrap().reaction();
//! assert!(reaction.force_b.length() > 0.0);
//! ```
//!
//! Errors in the rows (a non-finite number, bad bounds, more than six rows, or an `Err`
//! returned by your code) never reach the bodies: the constraint stops acting for the rest
//! of that step and is reported in [`Events::user_constraint_failures`](crate::Events).

use std::any::Any;

use super::kind::Spring;
use crate::body::{Body, BodyKind};
use crate::error::{check_finite, check_non_negative, check_positive, check_vec3, Error, Result};
use crate::id::{BodyId, UserConstraintId};
use crate::math::{Mat3, Quat, Vec3};

/// Most rows one user constraint may have.
pub const MAX_USER_ROWS: usize = 6;

/// A constraint described by its rows. See the [module documentation](self).
///
/// The world calls [`rows`](UserConstraint::rows) in every solver pass of a step with the
/// bodies' state at that moment; the implementation fills `rows` (at most
/// [`MAX_USER_ROWS`]). Returning no rows is allowed (the constraint is inactive then).
/// Row `i` keeps its accumulated impulse from one call to the next (warm starting), so keep
/// the meaning of each row index stable.
pub trait UserConstraint: UserConstraintAny + Send + Sync {
    /// Describes the rows at the current state of body A (`a`: the static world when the
    /// constraint has no body A) and body B.
    fn rows(&mut self, a: &UserBody, b: &UserBody, rows: &mut UserRows) -> Result<()>;
}

/// Gives the world access to the concrete type behind a `dyn` [`UserConstraint`]
/// ([`downcast_ref`](trait.UserConstraint.html#method.downcast_ref)). Implemented for every
/// `'static` type; nothing to implement.
pub trait UserConstraintAny: Any {
    /// `self` as `Any`.
    fn as_any(&self) -> &dyn Any;
    /// `self` as mutable `Any`.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> UserConstraintAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl dyn UserConstraint {
    /// The constraint as its concrete type `T`, if it is one.
    pub fn downcast_ref<T: UserConstraint>(&self) -> Option<&T> {
        self.as_any().downcast_ref()
    }

    /// The constraint as its concrete type `T`, mutably, if it is one.
    pub fn downcast_mut<T: UserConstraint>(&mut self) -> Option<&mut T> {
        self.as_any_mut().downcast_mut()
    }
}

/// What a user constraint may read of a body while the solver runs: its pose, centre of
/// mass, velocities and inverse mass, at the current point of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UserBody {
    pub(crate) position: Vec3,
    pub(crate) rotation: Quat,
    pub(crate) center_of_mass: Vec3,
    pub(crate) linear_velocity: Vec3,
    pub(crate) angular_velocity: Vec3,
    pub(crate) inv_mass: f32,
    pub(crate) inv_inertia: Mat3,
}

impl UserBody {
    /// The static world: at the origin, not moving, immovable.
    pub const WORLD: UserBody = UserBody {
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        center_of_mass: Vec3::ZERO,
        linear_velocity: Vec3::ZERO,
        angular_velocity: Vec3::ZERO,
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
    };

    /// The view of a stored body as the solver would see it at the start of a step (useful
    /// to test a constraint's rows outside the world). Static and kinematic bodies are
    /// immovable (zero inverse mass).
    pub fn from_body(body: &Body) -> UserBody {
        let dynamic = body.kind() == BodyKind::Dynamic;
        UserBody {
            position: body.position(),
            rotation: body.rotation(),
            center_of_mass: body.center_of_mass(),
            linear_velocity: body.linear_velocity(),
            angular_velocity: body.angular_velocity(),
            inv_mass: if dynamic { body.inv_mass } else { 0.0 },
            inv_inertia: if dynamic { body.inv_inertia_world() } else { Mat3::ZERO },
        }
    }

    /// World position of the body origin, metres.
    pub fn position(&self) -> Vec3 {
        self.position
    }

    /// World rotation.
    pub fn rotation(&self) -> Quat {
        self.rotation
    }

    /// World position of the centre of mass, metres.
    pub fn center_of_mass(&self) -> Vec3 {
        self.center_of_mass
    }

    /// Velocity of the centre of mass, m/s.
    pub fn linear_velocity(&self) -> Vec3 {
        self.linear_velocity
    }

    /// Angular velocity, rad/s (world axes).
    pub fn angular_velocity(&self) -> Vec3 {
        self.angular_velocity
    }

    /// 1 / mass, 1/kg (0 for the world, static and kinematic bodies).
    pub fn inv_mass(&self) -> f32 {
        self.inv_mass
    }

    /// Inverse inertia about the centre of mass in world axes, 1/(kg·m²).
    pub fn inv_inertia(&self) -> Mat3 {
        self.inv_inertia
    }

    /// Is the body immovable (the world, a static or kinematic body)?
    pub fn is_immovable(&self) -> bool {
        self.inv_mass == 0.0
    }

    /// Maps a point from the body frame (origin frame) to world space.
    pub fn transform_point(&self, local: Vec3) -> Vec3 {
        self.position + self.rotation * local
    }

    /// Velocity of the material point at `world_point`, m/s.
    pub fn point_velocity(&self, world_point: Vec3) -> Vec3 {
        self.linear_velocity + self.angular_velocity.cross(world_point - self.center_of_mass)
    }
}

/// How a row's impulse is bounded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum RowBounds {
    /// C = 0: the row pushes and pulls (λ of either sign).
    #[default]
    Equality,
    /// C ≥ 0: the row only pushes (λ ≥ 0, i.e. towards larger C), like a contact. While
    /// C > 0 it is speculative: it lets C close within the step but not go below zero.
    Inequality,
    /// Friction-like: the row's force λ/h stays within `[min_force, max_force]` (N, or N·m
    /// for angular rows; min ≤ 0 ≤ max for a row that only resists, infinite for no bound).
    Bounded {
        /// Lowest force.
        min_force: f32,
        /// Highest force.
        max_force: f32,
    },
}

/// One scalar row of a user constraint: its Jacobian, position error, bounds, and optional
/// softness and target velocity. See the [module documentation](self).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UserRow {
    /// l_A, multiplies A's linear velocity (world axes).
    pub linear_a: Vec3,
    /// a_A, multiplies A's angular velocity.
    pub angular_a: Vec3,
    /// l_B, multiplies B's linear velocity.
    pub linear_b: Vec3,
    /// a_B, multiplies B's angular velocity.
    pub angular_b: Vec3,
    /// The position error C at the current state (corrected towards 0 for equality rows,
    /// kept ≥ 0 for inequality rows).
    pub error: f32,
    /// The velocity Ċ the row drives towards (0 unless set: a velocity motor, a conveyor).
    pub target_velocity: f32,
    /// Equality (default), inequality or bounded.
    pub bounds: RowBounds,
    /// `None` (default): rigid, with the solver's joint softness or position correction.
    /// `Some`: a spring of this frequency and damping ratio on C, acting in every pass (not
    /// position-corrected by NGS).
    pub softness: Option<Spring>,
}

impl UserRow {
    /// An equality row from its Jacobian parts and error C.
    pub fn new(linear_a: Vec3, angular_a: Vec3, linear_b: Vec3, angular_b: Vec3, error: f32) -> Self {
        Self {
            linear_a,
            angular_a,
            linear_b,
            angular_b,
            error,
            target_velocity: 0.0,
            bounds: RowBounds::Equality,
            softness: None,
        }
    }

    /// The equality row C = axis·(p_B − p_A) between a material point `point_a` of A and
    /// `point_b` of B (world positions), with `axis` a unit vector:
    /// J = [ −axis, −(r_A × axis), axis, r_B × axis ], r the points' offsets from the centres
    /// of mass. (A turning axis adds a term this row leaves out; it is exact when the axis is
    /// the gradient of C, as a surface normal through the closest point is.)
    pub fn between_points(axis: Vec3, point_a: Vec3, point_b: Vec3, a: &UserBody, b: &UserBody) -> Self {
        let r_a = point_a - a.center_of_mass;
        let r_b = point_b - b.center_of_mass;
        Self::new(-axis, -r_a.cross(axis), axis, r_b.cross(axis), axis.dot(point_b - point_a))
    }

    /// The equality row of a relative turn about the unit `axis` (world): Ċ = axis·(ω_B − ω_A),
    /// with `angle_error` the current C in radians.
    pub fn angular(axis: Vec3, angle_error: f32) -> Self {
        Self::new(Vec3::ZERO, -axis, Vec3::ZERO, axis, angle_error)
    }

    /// The row as an inequality C ≥ 0 (pushes only).
    pub fn inequality(mut self) -> Self {
        self.bounds = RowBounds::Inequality;
        self
    }

    /// The row with its force bounded to `[min_force, max_force]`.
    pub fn bounded(mut self, min_force: f32, max_force: f32) -> Self {
        self.bounds = RowBounds::Bounded { min_force, max_force };
        self
    }

    /// The row made soft: a spring of `frequency_hz` and `damping_ratio` on C.
    pub fn soft(mut self, frequency_hz: f32, damping_ratio: f32) -> Self {
        self.softness = Some(Spring::new(frequency_hz, damping_ratio));
        self
    }

    /// The row driving Ċ towards `velocity`.
    pub fn with_target_velocity(mut self, velocity: f32) -> Self {
        self.target_velocity = velocity;
        self
    }

    /// Checks every number: the Jacobian, error and target finite; the bounds ordered and
    /// not NaN; the softness positive. The `Err` names the field.
    pub fn validate(&self) -> Result<()> {
        check_vec3("linear_a", self.linear_a)?;
        check_vec3("angular_a", self.angular_a)?;
        check_vec3("linear_b", self.linear_b)?;
        check_vec3("angular_b", self.angular_b)?;
        check_finite("error", self.error)?;
        check_finite("target_velocity", self.target_velocity)?;
        if let RowBounds::Bounded { min_force, max_force } = self.bounds {
            if min_force.is_nan() || max_force.is_nan() || min_force > max_force {
                return Err(Error::new(
                    "bounds",
                    format!("min_force ({min_force}) and max_force ({max_force}) must be ordered numbers"),
                ));
            }
        }
        if let Some(spring) = self.softness {
            check_positive("softness.frequency_hz", spring.frequency_hz)?;
            check_non_negative("softness.damping_ratio", spring.damping_ratio)?;
        }
        Ok(())
    }
}

/// The rows a [`UserConstraint`] fills in one call, with what the solver knows about them
/// so far in this step.
#[derive(Clone, Debug)]
pub struct UserRows {
    rows: [UserRow; MAX_USER_ROWS],
    len: usize,
    forces: [f32; MAX_USER_ROWS],
    step_length: f32,
    overflow: bool,
}

impl Default for UserRows {
    fn default() -> Self {
        Self::new()
    }
}

impl UserRows {
    /// No rows, no forces yet (for testing a constraint outside the world).
    pub fn new() -> Self {
        Self::with_forces([0.0; MAX_USER_ROWS], 0.0)
    }

    pub(crate) fn with_forces(forces: [f32; MAX_USER_ROWS], step_length: f32) -> Self {
        let empty = UserRow::new(Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, 0.0);
        Self { rows: [empty; MAX_USER_ROWS], len: 0, forces, step_length, overflow: false }
    }

    /// Appends a row; `Err` when there are already [`MAX_USER_ROWS`] (the constraint then
    /// fails for the step even if the `Err` is ignored).
    pub fn push(&mut self, row: UserRow) -> Result<()> {
        if self.len == MAX_USER_ROWS {
            self.overflow = true;
            return Err(Error::new("rows", format!("a user constraint has at most {MAX_USER_ROWS} rows")));
        }
        self.rows[self.len] = row;
        self.len += 1;
        Ok(())
    }

    /// The rows pushed so far.
    pub fn rows(&self) -> &[UserRow] {
        &self.rows[..self.len]
    }

    /// Number of rows pushed so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no row was pushed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The force row `index` applies in the current solver step so far (its accumulated
    /// impulse over the step length), N or N·m; 0 before it was first solved. A
    /// friction-like row can bound itself by μ times a normal row's force.
    pub fn force(&self, index: usize) -> f32 {
        self.forces.get(index).copied().unwrap_or(0.0)
    }

    /// Length of the solver step the rows are solved over (the substep in soft-step mode),
    /// seconds; 0 outside a step.
    pub fn step_length(&self) -> f32 {
        self.step_length
    }

    /// The rows, checked: an `Err` naming the row and field for anything invalid.
    pub(crate) fn checked(&self) -> Result<&[UserRow]> {
        if self.overflow {
            return Err(Error::new("rows", format!("more than {MAX_USER_ROWS} rows were pushed")));
        }
        for (i, row) in self.rows().iter().enumerate() {
            row.validate().map_err(|e| e.within(&format!("rows[{i}]")))?;
        }
        Ok(self.rows())
    }
}

/// What a user constraint applied in the last step it was solved in.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UserConstraintReaction {
    /// Number of rows in the last evaluation.
    pub row_count: usize,
    /// Force of each row (λ/h; the first `row_count` entries), N or N·m.
    pub row_forces: [f32; MAX_USER_ROWS],
    /// Force on body A, N (world axes): Σ l_A λ/h.
    pub force_a: Vec3,
    /// Torque on body A about its centre of mass, N·m: Σ a_A λ/h.
    pub torque_a: Vec3,
    /// Force on body B, N: Σ l_B λ/h.
    pub force_b: Vec3,
    /// Torque on body B about its centre of mass, N·m: Σ a_B λ/h.
    pub torque_b: Vec3,
}

impl UserConstraintReaction {
    /// The reaction of rows with accumulated impulses `impulse` over a solver step of `h`
    /// seconds.
    pub(crate) fn of(rows: &[UserRow], impulse: &[f32], h: f32) -> Self {
        let mut reaction = UserConstraintReaction { row_count: rows.len(), ..Default::default() };
        if !(h > 0.0) {
            return reaction;
        }
        for (i, (row, &lambda)) in rows.iter().zip(impulse).enumerate() {
            let force = lambda / h;
            reaction.row_forces[i] = force;
            reaction.force_a += row.linear_a * force;
            reaction.torque_a += row.angular_a * force;
            reaction.force_b += row.linear_b * force;
            reaction.torque_b += row.angular_b * force;
        }
        reaction
    }
}

/// A user constraint as the world stores it. Read it through
/// [`World::user_constraint`](crate::World::user_constraint); change it through
/// [`World::user_constraint_mut`](crate::World::user_constraint_mut) so its bodies wake.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct UserConstraintEntry {
    pub(crate) body_a: Option<BodyId>,
    pub(crate) body_b: BodyId,
    /// Code, not data: a snapshot leaves it out and its restore asks for it again.
    #[serde(skip, default = "crate::world::snapshot::missing_constraint")]
    pub(crate) constraint: Box<dyn UserConstraint>,
    pub(crate) enabled: bool,
    /// Accumulated impulses per row, kept between steps for warm starting.
    pub(crate) impulse: [f32; MAX_USER_ROWS],
    /// The reaction of the last step it was solved in.
    pub(crate) reaction: UserConstraintReaction,
}

impl std::fmt::Debug for UserConstraintEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserConstraintEntry")
            .field("body_a", &self.body_a)
            .field("body_b", &self.body_b)
            .field("enabled", &self.enabled)
            .field("reaction", &self.reaction)
            .finish_non_exhaustive()
    }
}

impl UserConstraintEntry {
    /// Body A, or `None` for the static world.
    pub fn body_a(&self) -> Option<BodyId> {
        self.body_a
    }

    /// Body B.
    pub fn body_b(&self) -> BodyId {
        self.body_b
    }

    /// Does the constraint act?
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The constraint (downcast it with `downcast_ref::<T>()`).
    pub fn constraint(&self) -> &dyn UserConstraint {
        self.constraint.as_ref()
    }

    /// Forces and torques of the last step it was solved in (zero before the first step,
    /// and after a step it failed in).
    pub fn reaction(&self) -> UserConstraintReaction {
        self.reaction
    }
}

/// A user constraint that was skipped for (the rest of) a step because its rows were
/// invalid or its code returned an error. Its bodies were not touched by the bad rows.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UserConstraintFailure {
    /// The constraint.
    pub constraint: UserConstraintId,
    /// What was wrong, e.g. `rows[0].error: must be a finite number, got NaN`.
    pub error: Error,
}
