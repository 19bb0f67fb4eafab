//! [`JointDef`]: everything needed to create a joint, with constructors per kind and one
//! validation of every field, used by the API and by scene files alike.

use super::kind::{check_point, AxisMotion, JointKind, Limits, Motor, Spring};
use crate::error::{check_positive, check_rotation, check_vec3, Error, Result};
use crate::id::{BodyId, JointId};
use crate::math::{Quat, Vec3};

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
/// add what differs with the `with_*` methods. `B` and `J` name bodies and joints: ids in the
/// engine, names in scene files (where this type is the joint entry, see [`crate::scene`]).
#[derive(Clone, Debug, PartialEq)]
pub struct JointDef<B = BodyId, J = JointId> {
    /// Kind and kind-specific parameters.
    pub kind: JointKind<J>,
    /// First body; `None` attaches to the static world.
    pub body_a: Option<B>,
    /// Second body; `None` only for a gear, which acts on its hinges' bodies.
    pub body_b: Option<B>,
    /// Where the joint attaches (coordinates within 1e6 m of the origin).
    pub anchors: Anchors,
    /// The joint axis.
    pub axes: JointAxes,
    /// Do the two bodies collide with each other? (default false)
    pub collide_connected: bool,
    /// Reaction force (N, above 0) above which the joint breaks.
    pub break_force: Option<f32>,
    /// Reaction torque (N·m, above 0) above which the joint breaks.
    pub break_torque: Option<f32>,
    /// Does the joint act? (default true)
    pub enabled: bool,
    /// A name for scene files and events (may be empty).
    pub name: String,
    /// An option a builder method was given that the kind does not have (reported by the
    /// world when the joint is created, since builder methods cannot fail).
    pub(crate) refused_option: Option<&'static str>,
}

impl JointDef {
    /// A joint of `kind` between `body_a` (or the world) and `body_b`, at the shared world
    /// point `anchor`, axis X.
    pub fn new(kind: JointKind, body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3) -> Self {
        Self::with_parts(kind, body_a, Some(body_b), Anchors::Shared(anchor))
    }

    /// Ball-and-socket at the world point `anchor`.
    pub fn ball(body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3) -> Self {
        Self::new(
            JointKind::Ball { cone_limit: None, twist_limits: None, friction_torque: None },
            body_a,
            body_b,
            anchor,
        )
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

    /// Gear between two hinges: their B bodies turn at `ratio` (θ_b = −ratio · θ_a). The
    /// world takes the bodies from the hinges.
    pub fn gear(hinge_a: JointId, hinge_b: JointId, ratio: f32) -> Self {
        Self::with_parts(JointKind::Gear { hinge_a, hinge_b, ratio }, None, None, Anchors::Shared(Vec3::ZERO))
    }

    /// Six-DOF joint at `anchor` with frame X along the world `axis`.
    pub fn six_dof(body_a: Option<BodyId>, body_b: BodyId, anchor: Vec3, axis: Vec3, axes: [AxisMotion; 6]) -> Self {
        Self::new(JointKind::SixDof { axes }, body_a, body_b, anchor).with_axis(axis)
    }

    /// Pulls the world point `anchor` of `body` towards `target` with a soft `spring` and at
    /// most `max_force` newtons (mouse drag).
    pub fn target(body: BodyId, anchor: Vec3, target: Vec3, spring: Spring, max_force: f32) -> Self {
        Self::new(JointKind::Target { target, spring, max_force }, None, body, anchor)
    }
}

impl<B, J> JointDef<B, J> {
    /// A definition with every option at its default.
    pub(crate) fn with_parts(kind: JointKind<J>, body_a: Option<B>, body_b: Option<B>, anchors: Anchors) -> Self {
        Self {
            kind,
            body_a,
            body_b,
            anchors,
            axes: JointAxes::World(Vec3::X),
            collide_connected: false,
            break_force: None,
            break_torque: None,
            enabled: true,
            name: String::new(),
            refused_option: None,
        }
    }

    /// The same definition with its body and joint references replaced through `body` and
    /// `joint` (scene names to ids and back); each is given the field name it converts.
    pub fn map_references<C, K, E>(
        self,
        mut body: impl FnMut(&str, B) -> std::result::Result<C, E>,
        joint: impl FnMut(&str, J) -> std::result::Result<K, E>,
    ) -> std::result::Result<JointDef<C, K>, E> {
        Ok(JointDef {
            kind: self.kind.map_joints(joint)?,
            body_a: self.body_a.map(|b| body("body_a", b)).transpose()?,
            body_b: self.body_b.map(|b| body("body_b", b)).transpose()?,
            anchors: self.anchors,
            axes: self.axes,
            collide_connected: self.collide_connected,
            break_force: self.break_force,
            break_torque: self.break_torque,
            enabled: self.enabled,
            name: self.name,
            refused_option: self.refused_option,
        })
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

    /// Sets the spring (hinge, prismatic, line, distance, weld, angle, target).
    pub fn with_spring(mut self, new: Spring) -> Self {
        match &mut self.kind {
            JointKind::Hinge { spring, .. }
            | JointKind::Prismatic { spring, .. }
            | JointKind::Line { spring, .. }
            | JointKind::Distance { spring, .. }
            | JointKind::Weld { spring }
            | JointKind::Angle { spring } => *spring = Some(new),
            JointKind::Target { spring, .. } => *spring = new,
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

    /// Sets the friction torque of a ball joint (N·m): the largest torque it resists turning
    /// with.
    pub fn with_friction_torque(mut self, torque: f32) -> Self {
        match &mut self.kind {
            JointKind::Ball { friction_torque, .. } => *friction_torque = Some(torque),
            _ => self.refused_option = Some("friction_torque"),
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
}

impl<B: PartialEq, J> JointDef<B, J> {
    /// Checks every field that does not need the world (that the bodies and hinges exist is
    /// checked by the world). Error fields name the definition's fields (`anchors.a.x`,
    /// `limits.lower`, ...).
    pub fn validate(&self) -> Result<()> {
        if let Some(option) = self.refused_option {
            return Err(Error::new(option, format!("a {} joint has no {option}", self.kind.name())));
        }
        self.validate_bodies()?;
        self.validate_anchors()?;
        self.validate_axes()?;
        if let Some(force) = self.break_force {
            check_positive("break_force", force)?;
        }
        if let Some(torque) = self.break_torque {
            check_positive("break_torque", torque)?;
        }
        self.kind.validate()
    }

    /// Body B is given (except for a gear) and differs from body A; a target joint has no
    /// body A (it pulls body B towards a world point).
    fn validate_bodies(&self) -> Result<()> {
        if matches!(self.kind, JointKind::Gear { .. }) {
            return Ok(());
        }
        if matches!(self.kind, JointKind::Target { .. }) && self.body_a.is_some() {
            return Err(Error::new("body_a", "a target joint pulls body_b towards a world point: it has no body_a"));
        }
        match &self.body_b {
            None => Err(Error::new("body_b", "is required (the body the joint moves)")),
            Some(b) if self.body_a.as_ref() == Some(b) => {
                Err(Error::new("body_b", "must differ from body_a (a joint needs two different bodies)"))
            }
            Some(_) => Ok(()),
        }
    }

    /// Anchors within range; a joint that pins one point has one world anchor (or two that
    /// coincide), a joint between two points has two.
    fn validate_anchors(&self) -> Result<()> {
        match self.anchors {
            Anchors::Shared(p) => check_point("anchors", p)?,
            Anchors::World { a, b } | Anchors::Local { a, b } => {
                check_point("anchors.a", a)?;
                check_point("anchors.b", b)?;
            }
        }
        let name = self.kind.name();
        match self.anchors {
            Anchors::Shared(_) if self.kind.joins_two_points() => Err(Error::new(
                "anchors",
                format!("a {name} joint joins two points: give a world anchor on each body, or local anchors"),
            )),
            Anchors::World { a, b } if a != b && !self.kind.joins_two_points() && !self.is_gear() => Err(Error::new(
                "anchors",
                format!("a {name} joint pins one point: its world anchors must coincide (or give local anchors)"),
            )),
            _ => Ok(()),
        }
    }

    fn is_gear(&self) -> bool {
        matches!(self.kind, JointKind::Gear { .. })
    }

    fn validate_axes(&self) -> Result<()> {
        match self.axes {
            JointAxes::World(axis) => check_axis("axes", axis),
            JointAxes::Local { a, b } => {
                check_axis("axes.a", a)?;
                check_axis("axes.b", b)
            }
            JointAxes::LocalFrames { a, b } => {
                check_rotation("axes.a", a)?;
                check_rotation("axes.b", b).map(|_| ())
            }
        }
    }
}

fn check_axis(field: &str, axis: Vec3) -> Result<()> {
    check_vec3(field, axis)?;
    if axis.length_squared() < 1e-12 || !axis.length_squared().is_finite() {
        return Err(Error::new(field, "must not be the zero vector"));
    }
    Ok(())
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
            (JointDef::ball(None, body(0), Vec3::new(f32::NAN, 0.0, 0.0)), "anchors[0]"),
            (JointDef::hinge(None, body(0), Vec3::ZERO, Vec3::Y).with_limits(Limits::new(1.0, -1.0)), "limits.upper"),
            (
                JointDef::ball(None, body(0), Vec3::ZERO)
                    .with_motor(Motor::Velocity { target_velocity: 1.0, max_force: 1.0 }),
                "motor",
            ),
            (JointDef::weld(None, body(0), Vec3::ZERO).with_spring(Spring::new(0.0, 1.0)), "spring.frequency_hz"),
            (JointDef::distance(None, body(0), Vec3::ZERO, Vec3::X).with_length_range(2.0, 1.0), "max_length"),
            (
                JointDef::distance(None, body(0), Vec3::ZERO, Vec3::X)
                    .with_length_range(1.0, 2.0)
                    .with_rest_length(3.0),
                "max_length",
            ),
            (JointDef::ball(Some(body(0)), body(0), Vec3::ZERO), "body_b"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_break_force(-1.0), "break_force"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_cone_limit(-0.1), "cone_limit"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_cone_limit(4.0), "cone_limit"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_limits(Limits::new(-4.0, 1.0)), "twist_limits.lower"),
            (JointDef::hinge(None, body(0), Vec3::ZERO, Vec3::Y).with_limits(Limits::new(0.0, 4.0)), "limits.upper"),
            (JointDef::ball(None, body(0), Vec3::new(0.0, 2e6, 0.0)), "anchors[1]"),
            (JointDef::ball(None, body(0), Vec3::ZERO).with_world_anchors(Vec3::ZERO, Vec3::X), "anchors"),
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
