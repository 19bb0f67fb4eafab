//! [`JointDef`]: everything needed to create a joint, with constructors per kind and
//! validation of every field.

use crate::error::{check_finite, check_non_negative, check_positive, check_rotation, check_vec3, Error, Result};
use crate::id::{BodyId, JointId};
use crate::math::{Quat, Vec3};

/// Limits of a joint's free degree of freedom: metres for slides, radians for turns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Lower limit.
    pub lower: f32,
    /// Upper limit (≥ lower).
    pub upper: f32,
}

impl Limits {
    /// Limits `[lower, upper]`.
    pub fn new(lower: f32, upper: f32) -> Self {
        Self { lower, upper }
    }

    fn validate(&self, field: &str) -> Result<()> {
        check_finite(&format!("{field}.lower"), self.lower)?;
        check_finite(&format!("{field}.upper"), self.upper)?;
        if self.lower > self.upper {
            return Err(Error::new(field, format!("lower ({}) must not exceed upper ({})", self.lower, self.upper)));
        }
        Ok(())
    }
}

/// A motor on a joint's free degree of freedom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motor {
    /// Drives the relative velocity (m/s or rad/s) towards `target_velocity` with at most
    /// `max_force` (N or N·m).
    Velocity {
        /// Target relative velocity.
        target_velocity: f32,
        /// Largest force or torque.
        max_force: f32,
    },
    /// Pulls the relative position (m or rad) towards `target_position` like a spring of
    /// `frequency_hz` and `damping_ratio`, with at most `max_force`.
    Position {
        /// Target relative position.
        target_position: f32,
        /// Stiffness, Hz.
        frequency_hz: f32,
        /// Damping ratio (1 = critical).
        damping_ratio: f32,
        /// Largest force or torque.
        max_force: f32,
    },
}

impl Motor {
    fn validate(&self, field: &str) -> Result<()> {
        match *self {
            Motor::Velocity { target_velocity, max_force } => {
                check_finite(&format!("{field}.target_velocity"), target_velocity)?;
                check_non_negative(&format!("{field}.max_force"), max_force)
            }
            Motor::Position { target_position, frequency_hz, damping_ratio, max_force } => {
                check_finite(&format!("{field}.target_position"), target_position)?;
                check_positive(&format!("{field}.frequency_hz"), frequency_hz)?;
                check_non_negative(&format!("{field}.damping_ratio"), damping_ratio)?;
                check_non_negative(&format!("{field}.max_force"), max_force)
            }
        }
    }
}

/// A spring that makes a joint's constraint soft: it oscillates at `frequency_hz` with
/// `damping_ratio` (relative to the joint's effective mass).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// Frequency, Hz (> 0).
    pub frequency_hz: f32,
    /// Damping ratio (≥ 0; 1 = critical).
    pub damping_ratio: f32,
}

impl Spring {
    /// A spring of `frequency_hz` and `damping_ratio`.
    pub fn new(frequency_hz: f32, damping_ratio: f32) -> Self {
        Self { frequency_hz, damping_ratio }
    }

    fn validate(&self, field: &str) -> Result<()> {
        check_positive(&format!("{field}.frequency_hz"), self.frequency_hz)?;
        check_non_negative(&format!("{field}.damping_ratio"), self.damping_ratio)
    }
}

/// How a six-DOF joint treats one axis of its frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AxisMotion {
    /// No relative motion along or about the axis.
    Locked,
    /// Unconstrained.
    #[default]
    Free,
    /// Limited to `[lower, upper]` (m or rad).
    Limited(f32, f32),
}

/// The kind of a joint with its kind-specific parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// Ball-and-socket: the anchors coincide; rotation free, optionally limited to a swing
    /// cone about the axis and a twist range about it (ragdoll shoulders and hips).
    Ball {
        /// Half-angle of the swing cone about the axis, radians.
        cone_limit: Option<f32>,
        /// Twist range about the axis, radians.
        twist_limits: Option<Limits>,
    },
    /// Revolute: the anchors coincide and the bodies turn about the axis only.
    Hinge {
        /// Angle limits, radians.
        limits: Option<Limits>,
        /// Motor on the angle.
        motor: Option<Motor>,
        /// Spring pulling the angle back to zero.
        spring: Option<Spring>,
    },
    /// Slider: B slides along A's axis without relative rotation.
    Prismatic {
        /// Slide limits, metres.
        limits: Option<Limits>,
        /// Motor on the slide.
        motor: Option<Motor>,
        /// Spring pulling the slide back to zero.
        spring: Option<Spring>,
    },
    /// Point on a line: B's anchor slides along A's axis, rotation free (a wheel on its
    /// suspension).
    Line {
        /// Slide limits, metres.
        limits: Option<Limits>,
        /// Motor on the slide.
        motor: Option<Motor>,
        /// Spring on the slide (the suspension).
        spring: Option<Spring>,
    },
    /// Keeps the distance between two anchors: a rod (`min = max = rest`), a rope (only
    /// `max_length`), a range, or a spring around `rest_length`.
    Distance {
        /// Rest length, metres; `None`: the distance at creation.
        rest_length: Option<f32>,
        /// Shortest allowed length; `None`: the rest length unless only a maximum is given.
        min_length: Option<f32>,
        /// Longest allowed length; `None`: the rest length unless only a minimum is given.
        max_length: Option<f32>,
        /// Spring around the rest length (inside [min, max]).
        spring: Option<Spring>,
    },
    /// All six degrees of freedom locked; soft with a spring.
    Weld {
        /// Makes the weld soft.
        spring: Option<Spring>,
    },
    /// Relative rotation locked, translation free.
    Angle {
        /// Makes the lock soft.
        spring: Option<Spring>,
    },
    /// Two bodies hung from two fixed points: `len_a + ratio · len_b` stays constant.
    Pulley {
        /// World point the rope from anchor A runs to.
        ground_anchor_a: Vec3,
        /// World point the rope from anchor B runs to.
        ground_anchor_b: Vec3,
        /// Block-and-tackle ratio (> 0).
        ratio: f32,
    },
    /// Couples the angles of two hinges: θ_b = −ratio · θ_a. Acts on the two hinges' B
    /// bodies.
    Gear {
        /// The first hinge.
        hinge_a: JointId,
        /// The second hinge.
        hinge_b: JointId,
        /// Gear ratio (non-zero).
        ratio: f32,
    },
    /// Each axis of the joint frame locked, free or limited (X, Y, Z translation, then
    /// rotation about X, Y, Z).
    SixDof {
        /// Translation along X, Y, Z, then rotation about X, Y, Z.
        axes: [AxisMotion; 6],
    },
    /// Pulls body B's anchor towards a moving world `target` with a soft spring and a force
    /// cap (dragging a body with the mouse).
    Target {
        /// World point the anchor is pulled to.
        target: Vec3,
        /// Stiffness, Hz.
        frequency_hz: f32,
        /// Damping ratio.
        damping_ratio: f32,
        /// Largest force, N.
        max_force: f32,
    },
}

impl JointKind {
    /// The kind's name as the scene format spells it.
    pub fn name(&self) -> &'static str {
        match self {
            JointKind::Ball { .. } => "ball",
            JointKind::Hinge { .. } => "hinge",
            JointKind::Prismatic { .. } => "prismatic",
            JointKind::Line { .. } => "line",
            JointKind::Distance { .. } => "distance",
            JointKind::Weld { .. } => "weld",
            JointKind::Angle { .. } => "angle",
            JointKind::Pulley { .. } => "pulley",
            JointKind::Gear { .. } => "gear",
            JointKind::SixDof { .. } => "six_dof",
            JointKind::Target { .. } => "target",
        }
    }
}

/// Where the joint attaches to its bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Anchors {
    /// One world point shared by both bodies (at creation).
    Shared(Vec3),
    /// A world point on each body (at creation).
    World {
        /// Anchor on body A, world.
        a: Vec3,
        /// Anchor on body B, world.
        b: Vec3,
    },
    /// A point in each body's own frame (relative to the body origin; for the static world,
    /// a world point).
    Local {
        /// Anchor in A's frame.
        a: Vec3,
        /// Anchor in B's frame.
        b: Vec3,
    },
}

/// The joint axis (X axis of the joint frames).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointAxes {
    /// A world direction at creation.
    World(Vec3),
    /// A direction in each body's frame.
    Local {
        /// Axis in A's frame.
        a: Vec3,
        /// Axis in B's frame.
        b: Vec3,
    },
    /// The whole joint frame in each body's frame: X is the axis, Y and Z fix where angles
    /// (hinge angle, twist, six-DOF rotations) are measured from. The frames need not
    /// coincide when the joint is created, so a saved world comes back with its joints at the
    /// angles they had.
    LocalFrames {
        /// Rotation of A's joint frame in A's frame (world for the static world).
        a: Quat,
        /// Rotation of B's joint frame in B's frame.
        b: Quat,
    },
}

/// Everything needed to create a joint. Start from a constructor (`JointDef::hinge`, …) and
/// add what differs with the `with_*` methods.
#[derive(Clone, Debug, PartialEq)]
pub struct JointDef {
    /// Kind and kind-specific parameters.
    pub kind: JointKind,
    /// First body; `None` attaches to the static world.
    pub body_a: Option<BodyId>,
    /// Second body (gears take their hinges' bodies and ignore it).
    pub body_b: BodyId,
    /// Where the joint attaches.
    pub anchors: Anchors,
    /// The joint axis.
    pub axes: JointAxes,
    /// Do the two bodies collide with each other? (default false)
    pub collide_connected: bool,
    /// Reaction force (N) above which the joint breaks.
    pub break_force: Option<f32>,
    /// Reaction torque (N·m) above which the joint breaks.
    pub break_torque: Option<f32>,
    /// Does the joint act? (default true)
    pub enabled: bool,
    /// A name for scene files and events (may be empty).
    pub name: String,
    /// An option a builder method was given that the kind does not have (reported by the
    /// world when the joint is created, since builder methods cannot fail).
    refused_option: Option<&'static str>,
}

impl JointDef {
    /// A joint of `kind` between `body_a` (or the world) and `body_b`, at the shared world
    /// point `anchor`, axis X.
    pub fn new(kind: JointKind, body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3) -> Self {
        Self {
            kind,
            body_a,
            body_b,
            anchors: Anchors::Shared(anchor),
            axes: JointAxes::World(Vec3::X),
            collide_connected: false,
            break_force: None,
            break_torque: None,
            enabled: true,
            name: String::new(),
            refused_option: None,
        }
    }

    /// Ball-and-socket at the world point `anchor`.
    pub fn ball(body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3) -> Self {
        Self::new(JointKind::Ball { cone_limit: None, twist_limits: None }, body_a, body_b, anchor)
    }

    /// Hinge about the world `axis` through `anchor`.
    pub fn hinge(body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3, axis: Vec3) -> Self {
        Self::new(JointKind::Hinge { limits: None, motor: None, spring: None }, body_a, body_b, anchor).with_axis(axis)
    }

    /// Slider along the world `axis` through `anchor`.
    pub fn prismatic(body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3, axis: Vec3) -> Self {
        Self::new(JointKind::Prismatic { limits: None, motor: None, spring: None }, body_a, body_b, anchor)
            .with_axis(axis)
    }

    /// Point on a line along the world `axis` through `anchor`.
    pub fn line(body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3, axis: Vec3) -> Self {
        Self::new(JointKind::Line { limits: None, motor: None, spring: None }, body_a, body_b, anchor).with_axis(axis)
    }

    /// Rigid rod between the world points `anchor_a` and `anchor_b` (length: their distance).
    pub fn distance(body_a: Option<BodyId>, body_b: BodyId, anchor_a: Vec3, anchor_b: Vec3) -> Self {
        let kind = JointKind::Distance { rest_length: None, min_length: None, max_length: None, spring: None };
        Self::new(kind, body_a, body_b, anchor_a).with_world_anchors(anchor_a, anchor_b)
    }

    /// Rope between the world points `anchor_a` and `anchor_b`: pulls when longer than
    /// `max_length`, never pushes.
    pub fn rope(body_a: Option<BodyId>, body_b: BodyId, anchor_a: Vec3, anchor_b: Vec3, max_length: f32) -> Self {
        let kind = JointKind::Distance {
            rest_length: None,
            min_length: Some(0.0),
            max_length: Some(max_length),
            spring: None,
        };
        Self::new(kind, body_a, body_b, anchor_a).with_world_anchors(anchor_a, anchor_b)
    }

    /// Weld at the world point `anchor`.
    pub fn weld(body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3) -> Self {
        Self::new(JointKind::Weld { spring: None }, body_a, body_b, anchor)
    }

    /// Relative rotation locked (anchor irrelevant: B's origin).
    pub fn angle(body_a: Option<BodyId>, body_b: BodyId) -> Self {
        Self::new(JointKind::Angle { spring: None }, body_a, body_b, Vec3::ZERO)
            .with_local_anchors(Vec3::ZERO, Vec3::ZERO)
    }

    /// Pulley: anchor A hangs from `ground_a`, anchor B from `ground_b` (world points).
    pub fn pulley(
        body_a: Option<BodyId>,
        body_b: BodyId,
        (ground_a, ground_b): (Vec3, Vec3),
        (anchor_a, anchor_b): (Vec3, Vec3),
        ratio: f32,
    ) -> Self {
        let kind = JointKind::Pulley { ground_anchor_a: ground_a, ground_anchor_b: ground_b, ratio };
        Self::new(kind, body_a, body_b, anchor_a).with_world_anchors(anchor_a, anchor_b)
    }

    /// Gear between two hinges (their B bodies turn at `ratio`). `body_b` is a placeholder:
    /// the world takes the bodies from the hinges.
    pub fn gear(hinge_a: JointId, hinge_b: JointId, ratio: f32, placeholder_body: BodyId) -> Self {
        Self::new(JointKind::Gear { hinge_a, hinge_b, ratio }, None, placeholder_body, Vec3::ZERO)
    }

    /// Six-DOF joint at `anchor` with frame X along the world `axis`.
    pub fn six_dof(body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3, axis: Vec3, axes: [AxisMotion; 6]) -> Self {
        Self::new(JointKind::SixDof { axes }, body_a, body_b, anchor).with_axis(axis)
    }

    /// Pulls the world point `anchor` of `body` towards `target` (mouse drag).
    pub fn target(
        body: BodyId,
        anchor: Vec3,
        target: Vec3,
        frequency_hz: f32,
        damping_ratio: f32,
        max_force: f32,
    ) -> Self {
        let kind = JointKind::Target { target, frequency_hz, damping_ratio, max_force };
        Self::new(kind, None, body, anchor)
    }

    /// Sets the name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the world axis.
    pub fn with_axis(mut self, axis: Vec3) -> Self {
        self.axes = JointAxes::World(axis);
        self
    }

    /// Sets the axis in each body's frame.
    pub fn with_local_axes(mut self, a: Vec3, b: Vec3) -> Self {
        self.axes = JointAxes::Local { a, b };
        self
    }

    /// Sets the whole joint frame rotation in each body's frame (see
    /// [`JointAxes::LocalFrames`]).
    pub fn with_local_frames(mut self, a: Quat, b: Quat) -> Self {
        self.axes = JointAxes::LocalFrames { a, b };
        self
    }

    /// Sets a world anchor on each body.
    pub fn with_world_anchors(mut self, a: Vec3, b: Vec3) -> Self {
        self.anchors = Anchors::World { a, b };
        self
    }

    /// Sets the anchors in each body's frame.
    pub fn with_local_anchors(mut self, a: Vec3, b: Vec3) -> Self {
        self.anchors = Anchors::Local { a, b };
        self
    }

    /// Lets the two bodies collide.
    pub fn with_collide_connected(mut self, collide: bool) -> Self {
        self.collide_connected = collide;
        self
    }

    /// Breaks the joint above this reaction force (N).
    pub fn with_break_force(mut self, force: f32) -> Self {
        self.break_force = Some(force);
        self
    }

    /// Breaks the joint above this reaction torque (N·m).
    pub fn with_break_torque(mut self, torque: f32) -> Self {
        self.break_torque = Some(torque);
        self
    }

    /// Creates the joint disabled (`false`) or enabled.
    pub fn with_enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Sets the limits (hinge, prismatic, line; twist limits of a ball). Kinds without
    /// limits are refused when the joint is created.
    pub fn with_limits(mut self, new: Limits) -> Self {
        match &mut self.kind {
            JointKind::Hinge { limits, .. } | JointKind::Prismatic { limits, .. } | JointKind::Line { limits, .. } => {
                *limits = Some(new)
            }
            JointKind::Ball { twist_limits, .. } => *twist_limits = Some(new),
            _ => self.refused_option = Some("limits"),
        }
        self
    }

    /// Sets the motor (hinge, prismatic, line).
    pub fn with_motor(mut self, new: Motor) -> Self {
        match &mut self.kind {
            JointKind::Hinge { motor, .. } | JointKind::Prismatic { motor, .. } | JointKind::Line { motor, .. } => {
                *motor = Some(new)
            }
            _ => self.refused_option = Some("motor"),
        }
        self
    }

    /// Sets the spring (hinge, prismatic, line, distance, weld, angle).
    pub fn with_spring(mut self, new: Spring) -> Self {
        match &mut self.kind {
            JointKind::Hinge { spring, .. }
            | JointKind::Prismatic { spring, .. }
            | JointKind::Line { spring, .. }
            | JointKind::Distance { spring, .. }
            | JointKind::Weld { spring }
            | JointKind::Angle { spring } => *spring = Some(new),
            _ => self.refused_option = Some("spring"),
        }
        self
    }

    /// Sets the swing cone half-angle of a ball joint (radians).
    pub fn with_cone_limit(mut self, angle: f32) -> Self {
        match &mut self.kind {
            JointKind::Ball { cone_limit, .. } => *cone_limit = Some(angle),
            _ => self.refused_option = Some("cone_limit"),
        }
        self
    }

    /// Sets the length range of a distance joint (metres).
    pub fn with_length_range(mut self, min: f32, max: f32) -> Self {
        match &mut self.kind {
            JointKind::Distance { min_length, max_length, .. } => {
                *min_length = Some(min);
                *max_length = Some(max);
            }
            _ => self.refused_option = Some("length_range"),
        }
        self
    }

    /// Sets the rest length of a distance joint (metres).
    pub fn with_rest_length(mut self, length: f32) -> Self {
        match &mut self.kind {
            JointKind::Distance { rest_length, .. } => *rest_length = Some(length),
            _ => self.refused_option = Some("rest_length"),
        }
        self
    }

    /// Checks every field that does not need the world (bodies and hinges are checked by
    /// the world).
    pub(crate) fn validate(&self) -> Result<()> {
        if let Some(option) = self.refused_option {
            return Err(Error::new(option, format!("a {} joint has no {option}", self.kind.name())));
        }
        match self.anchors {
            Anchors::Shared(p) => check_vec3("anchors", p)?,
            Anchors::World { a, b } | Anchors::Local { a, b } => {
                check_vec3("anchors.a", a)?;
                check_vec3("anchors.b", b)?;
            }
        }
        match self.axes {
            JointAxes::World(axis) => check_axis("axes", axis)?,
            JointAxes::Local { a, b } => {
                check_axis("axes.a", a)?;
                check_axis("axes.b", b)?;
            }
            JointAxes::LocalFrames { a, b } => {
                check_rotation("axes.a", a)?;
                check_rotation("axes.b", b)?;
            }
        }
        if let Some(force) = self.break_force {
            check_positive("break_force", force)?;
        }
        if let Some(torque) = self.break_torque {
            check_positive("break_torque", torque)?;
        }
        if self.body_a == Some(self.body_b) && !matches!(self.kind, JointKind::Gear { .. }) {
            return Err(Error::new("body_b", "a joint needs two different bodies"));
        }
        validate_kind(&self.kind)
    }
}

fn check_axis(field: &str, axis: Vec3) -> Result<()> {
    check_vec3(field, axis)?;
    if axis.length_squared() < 1e-12 {
        return Err(Error::new(field, "must not be the zero vector"));
    }
    Ok(())
}

/// Angle limits must lie within [−π, π]: the angle is measured in (−π, π], so a limit
/// beyond a half turn would be met at the wrong end.
fn check_half_turn(field: &str, limits: &Limits) -> Result<()> {
    use std::f32::consts::PI;
    if limits.lower < -PI || limits.upper > PI {
        return Err(Error::new(
            field,
            format!("angles must lie within [-π, π] ({}, {} rad)", limits.lower, limits.upper),
        ));
    }
    Ok(())
}

fn validate_dof(limits: &Option<Limits>, motor: &Option<Motor>, spring: &Option<Spring>) -> Result<()> {
    if let Some(limits) = limits {
        limits.validate("limits")?;
    }
    if let Some(motor) = motor {
        motor.validate("motor")?;
    }
    if let Some(spring) = spring {
        spring.validate("spring")?;
    }
    Ok(())
}

fn validate_kind(kind: &JointKind) -> Result<()> {
    match kind {
        JointKind::Ball { cone_limit, twist_limits } => {
            if let Some(angle) = cone_limit {
                check_non_negative("cone_limit", *angle)?;
                if *angle > std::f32::consts::PI {
                    return Err(Error::new("cone_limit", format!("must not exceed π ({angle} rad)")));
                }
            }
            if let Some(limits) = twist_limits {
                limits.validate("twist_limits")?;
                check_half_turn("twist_limits", limits)?;
            }
            Ok(())
        }
        JointKind::Hinge { limits, motor, spring } => {
            if let Some(limits) = limits {
                check_half_turn("limits", limits)?;
            }
            validate_dof(limits, motor, spring)
        }
        JointKind::Prismatic { limits, motor, spring } | JointKind::Line { limits, motor, spring } => {
            validate_dof(limits, motor, spring)
        }
        JointKind::Distance { rest_length, min_length, max_length, spring } => {
            validate_distance(*rest_length, *min_length, *max_length, spring)
        }
        JointKind::Weld { spring } | JointKind::Angle { spring } => validate_dof(&None, &None, spring),
        JointKind::Pulley { ground_anchor_a, ground_anchor_b, ratio } => {
            check_vec3("ground_anchor_a", *ground_anchor_a)?;
            check_vec3("ground_anchor_b", *ground_anchor_b)?;
            check_positive("ratio", *ratio)
        }
        JointKind::Gear { ratio, .. } => {
            check_finite("ratio", *ratio)?;
            if *ratio == 0.0 {
                return Err(Error::new("ratio", "must not be zero"));
            }
            Ok(())
        }
        JointKind::SixDof { axes } => {
            const NAMES: [&str; 6] = ["x", "y", "z", "rx", "ry", "rz"];
            for (motion, name) in axes.iter().zip(NAMES) {
                if let AxisMotion::Limited(lower, upper) = *motion {
                    Limits::new(lower, upper).validate(&format!("axes.{name}"))?;
                }
            }
            Ok(())
        }
        JointKind::Target { target, frequency_hz, damping_ratio, max_force } => {
            check_vec3("target", *target)?;
            check_positive("frequency_hz", *frequency_hz)?;
            check_non_negative("damping_ratio", *damping_ratio)?;
            check_non_negative("max_force", *max_force)
        }
    }
}

fn validate_distance(
    rest_length: Option<f32>,
    min_length: Option<f32>,
    max_length: Option<f32>,
    spring: &Option<Spring>,
) -> Result<()> {
    if let Some(rest) = rest_length {
        check_non_negative("rest_length", rest)?;
    }
    if let Some(min) = min_length {
        check_non_negative("min_length", min)?;
    }
    if let Some(max) = max_length {
        check_non_negative("max_length", max)?;
    }
    if let (Some(min), Some(max)) = (min_length, max_length) {
        if min > max {
            return Err(Error::new("min_length", format!("must not exceed max_length ({min} > {max})")));
        }
    }
    validate_dof(&None, &None, spring)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::RawId;

    fn body(index: u32) -> BodyId {
        BodyId(RawId { index, generation: 1 })
    }

    #[test]
    fn bad_fields_are_named() {
        let cases: Vec<(JointDef, &str)> = vec![
            (JointDef::hinge(None, body(0), Vec3::ZERO, Vec3::ZERO), "axes"),
            (JointDef::ball(None, body(0), Vec3::new(f32::NAN, 0.0, 0.0)), "anchors.x"),
            (JointDef::hinge(None, body(0), Vec3::ZERO, Vec3::Y).with_limits(Limits::new(1.0, -1.0)), "limits"),
            (
                JointDef::ball(None, body(0), Vec3::ZERO)
                    .with_motor(Motor::Velocity { target_velocity: 1.0, max_force: 1.0 }),
                "motor",
            ),
            (JointDef::weld(None, body(0), Vec3::ZERO).with_spring(Spring::new(0.0, 1.0)), "spring.frequency_hz"),
            (JointDef::distance(None, body(0), Vec3::ZERO, Vec3::X).with_length_range(2.0, 1.0), "min_length"),
            (JointDef::ball(Some(body(0)), body(0), Vec3::ZERO), "body_b"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_break_force(-1.0), "break_force"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_cone_limit(-0.1), "cone_limit"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_cone_limit(4.0), "cone_limit"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_limits(Limits::new(-4.0, 1.0)), "twist_limits"),
            (JointDef::hinge(None, body(0), Vec3::ZERO, Vec3::Y).with_limits(Limits::new(0.0, 4.0)), "limits"),
        ];
        for (def, field) in cases {
            let error = def.validate().unwrap_err();
            assert_eq!(error.field, field, "{error}");
        }
        assert!(JointDef::hinge(None, body(0), Vec3::ZERO, Vec3::Y)
            .with_limits(Limits::new(-1.0, 1.0))
            .validate()
            .is_ok());
    }
}
