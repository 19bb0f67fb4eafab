//! [`JointKind`]: which joint, with the options of its kind ([`Limits`], [`Motor`], [`Spring`],
//! [`AxisMotion`]), each with its valid ranges checked by one `validate`.

use std::f32::consts::PI;

use serde::{Deserialize, Serialize};

use crate::error::{check_finite, check_positive, check_range, check_vec3, component, Error, Result};
use crate::id::JointId;
use crate::math::Vec3;

/// Largest length, distance or position a joint option may give, metres (and the largest
/// angle-free magnitude, e.g. a slide limit). Beyond it f32 positions lose millimetres.
pub const MAX_JOINT_LENGTH: f32 = 1.0e6;

/// Largest spring or motor frequency, Hz (far above any solver rate: stiffer is rigid).
pub const MAX_FREQUENCY_HZ: f32 = 1.0e6;

/// Largest damping ratio (far past critical, 1: more only slows the response).
pub const MAX_DAMPING_RATIO: f32 = 1.0e6;

/// Largest motor force or torque, N or N·m (an effectively unbounded motor).
pub const MAX_MOTOR_FORCE: f32 = 1.0e30;

/// Limits of a joint's free degree of freedom: metres for slides, radians for turns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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

    /// Both finite, within ±[`MAX_JOINT_LENGTH`], lower ≤ upper.
    pub(crate) fn validate(&self, field: &str) -> Result<()> {
        check_length(&format!("{field}.lower"), self.lower)?;
        check_length(&format!("{field}.upper"), self.upper)?;
        if self.lower > self.upper {
            return Err(Error::new(
                format!("{field}.upper"),
                format!("must not be below the lower limit ({} > {})", self.lower, self.upper),
            ));
        }
        Ok(())
    }

    /// Angle limits lie within [−π, π]: the angle is measured in (−π, π], so a limit beyond a
    /// half turn would be met at the wrong end.
    pub(crate) fn validate_angles(&self, field: &str) -> Result<()> {
        self.validate(field)?;
        for (end, value) in [("lower", self.lower), ("upper", self.upper)] {
            if value.abs() > PI {
                return Err(Error::new(format!("{field}.{end}"), format!("must lie within [-π, π], got {value} rad")));
            }
        }
        Ok(())
    }
}

/// A motor on a joint's free degree of freedom. In files: `{"target_velocity": v, "max_force":
/// f}` or `{"target_position": x, "frequency_hz": f, "damping_ratio": z, "max_force": f}`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Motor {
    /// Drives the relative velocity (m/s or rad/s) towards `target_velocity` with at most
    /// `max_force` (N or N·m).
    Velocity {
        /// Target relative velocity, m/s or rad/s (finite, within ±[`MAX_JOINT_LENGTH`]).
        target_velocity: f32,
        /// Largest force or torque, N or N·m (0 to [`MAX_MOTOR_FORCE`]).
        max_force: f32,
    },
    /// Pulls the relative position (m or rad) towards `target_position` like a spring of
    /// `frequency_hz` and `damping_ratio`, with at most `max_force`.
    Position {
        /// Target relative position, m or rad (within ±[`MAX_JOINT_LENGTH`]).
        target_position: f32,
        /// Stiffness, Hz (above 0, at most [`MAX_FREQUENCY_HZ`]).
        frequency_hz: f32,
        /// Damping ratio (0 to [`MAX_DAMPING_RATIO`]; 1 = critical).
        damping_ratio: f32,
        /// Largest force or torque, N or N·m (0 to [`MAX_MOTOR_FORCE`]).
        max_force: f32,
    },
}

impl Motor {
    pub(crate) fn validate(&self, field: &str) -> Result<()> {
        let at = |name: &str| format!("{field}.{name}");
        match *self {
            Motor::Velocity { target_velocity, max_force } => {
                check_length(&at("target_velocity"), target_velocity)?;
                check_range(&at("max_force"), max_force, 0.0, MAX_MOTOR_FORCE)
            }
            Motor::Position { target_position, frequency_hz, damping_ratio, max_force } => {
                check_length(&at("target_position"), target_position)?;
                Spring::new(frequency_hz, damping_ratio).validate(field)?;
                check_range(&at("max_force"), max_force, 0.0, MAX_MOTOR_FORCE)
            }
        }
    }
}

/// A spring that makes a joint's constraint soft: it oscillates at `frequency_hz` with
/// `damping_ratio` (relative to the joint's effective mass).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spring {
    /// Frequency, Hz (above 0, at most [`MAX_FREQUENCY_HZ`]).
    pub frequency_hz: f32,
    /// Damping ratio (0 to [`MAX_DAMPING_RATIO`]; 1 = critical).
    pub damping_ratio: f32,
}

impl Spring {
    /// A spring of `frequency_hz` and `damping_ratio`.
    pub fn new(frequency_hz: f32, damping_ratio: f32) -> Self {
        Self { frequency_hz, damping_ratio }
    }

    pub(crate) fn validate(&self, field: &str) -> Result<()> {
        let frequency = format!("{field}.frequency_hz");
        check_positive(&frequency, self.frequency_hz)?;
        check_range(&frequency, self.frequency_hz, 0.0, MAX_FREQUENCY_HZ)?;
        check_range(&format!("{field}.damping_ratio"), self.damping_ratio, 0.0, MAX_DAMPING_RATIO)
    }
}

/// How a six-DOF joint treats one axis of its frame; in files `"locked"`, `"free"` or
/// `[lower, upper]`.
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

/// The names of a six-DOF joint's axes, in the order of its `axes` array: translation along
/// the joint frame's X, Y, Z, then rotation about them.
pub const SIX_DOF_AXES: [&str; 6] = ["x", "y", "z", "rx", "ry", "rz"];

/// The kind of a joint with its kind-specific parameters. `J` names other joints (a gear's
/// hinges): [`JointId`] in the engine, joint names in scene files. Serde gives each variant's
/// options as the scene format names them (externally tagged; a scene joint flattens it under
/// `kind`, see `file_form.rs`): angles of a ball in degrees, omitted options `None`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum JointKind<J = JointId> {
    /// Ball-and-socket: the anchors coincide; rotation free, optionally limited to a swing
    /// cone about the axis and a twist range about it (ragdoll shoulders and hips).
    Ball {
        /// Half-angle of the swing cone about the axis, radians (0 to π).
        #[serde(
            rename = "cone_limit_deg",
            default,
            with = "super::file_form::degrees",
            skip_serializing_if = "Option::is_none"
        )]
        cone_limit: Option<f32>,
        /// Twist range about the axis, radians (within [−π, π]).
        #[serde(
            rename = "twist_limits_deg",
            default,
            with = "super::file_form::degree_limits",
            skip_serializing_if = "Option::is_none"
        )]
        twist_limits: Option<Limits>,
        /// Friction in the rotation: the largest torque, N·m (0 to [`MAX_MOTOR_FORCE`]), the
        /// joint resists turning with (a ragdoll's shoulders and hips come to rest).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        friction_torque: Option<f32>,
    },
    /// Revolute: the anchors coincide and the bodies turn about the axis only.
    Hinge {
        /// Angle limits, radians (within [−π, π]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limits: Option<Limits>,
        /// Motor on the angle.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        motor: Option<Motor>,
        /// Spring pulling the angle back to zero.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spring: Option<Spring>,
    },
    /// Slider: B slides along A's axis without relative rotation.
    Prismatic {
        /// Slide limits, metres.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limits: Option<Limits>,
        /// Motor on the slide.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        motor: Option<Motor>,
        /// Spring pulling the slide back to zero.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spring: Option<Spring>,
    },
    /// Point on a line: B's anchor slides along A's axis, rotation free (a wheel on its
    /// suspension).
    Line {
        /// Slide limits, metres.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limits: Option<Limits>,
        /// Motor on the slide.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        motor: Option<Motor>,
        /// Spring on the slide (the suspension).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spring: Option<Spring>,
    },
    /// Keeps the distance between two anchors: a rod (`min = max = rest`), a rope (only
    /// `max_length`), a range, or a spring around `rest_length`. Lengths are 0 to
    /// [`MAX_JOINT_LENGTH`] metres; a given rest length lies within the given limits.
    Distance {
        /// Rest length, metres; `None`: the distance at creation (kept within the limits).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rest_length: Option<f32>,
        /// Shortest allowed length; `None`: the rest length unless only a maximum is given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_length: Option<f32>,
        /// Longest allowed length; `None`: the rest length unless only a minimum is given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<f32>,
        /// Spring around the rest length (inside [min, max]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spring: Option<Spring>,
    },
    /// All six degrees of freedom locked; soft with a spring.
    Weld {
        /// Makes the weld soft.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spring: Option<Spring>,
    },
    /// Relative rotation locked, translation free.
    Angle {
        /// Makes the lock soft.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spring: Option<Spring>,
    },
    /// Two bodies hung from two fixed points: `len_a + ratio · len_b` stays constant.
    Pulley {
        /// World point the rope from anchor A runs to.
        ground_anchor_a: Vec3,
        /// World point the rope from anchor B runs to.
        ground_anchor_b: Vec3,
        /// Block-and-tackle ratio (above 0, at most 1e6; 1 when omitted in files).
        #[serde(default = "super::file_form::one")]
        ratio: f32,
    },
    /// Couples the angles of two hinges: θ_b = −ratio · θ_a. Acts on the two hinges' B
    /// bodies.
    Gear {
        /// The first hinge.
        hinge_a: J,
        /// The second hinge.
        hinge_b: J,
        /// Gear ratio (non-zero, magnitude 1e-6 to 1e6).
        ratio: f32,
    },
    /// Each axis of the joint frame locked, free or limited (X, Y, Z translation, then
    /// rotation about X, Y, Z: [`SIX_DOF_AXES`]).
    SixDof {
        /// Translation along X, Y, Z, then rotation about X, Y, Z (in files an object keyed by
        /// [`SIX_DOF_AXES`]; an omitted axis is free).
        #[serde(default, with = "super::file_form::six_dof_axes")]
        axes: [AxisMotion; 6],
    },
    /// Pulls body B's anchor towards a moving world `target` with a soft spring and a force
    /// cap (dragging a body with the mouse).
    Target {
        /// World point the anchor is pulled to.
        target: Vec3,
        /// Stiffness and damping of the pull.
        spring: Spring,
        /// Largest force, N (0 to [`MAX_MOTOR_FORCE`]).
        max_force: f32,
    },
}

impl<J> JointKind<J> {
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

    /// Joints that join two different points (`anchor_a`, `anchor_b` in scene files) rather than
    /// pinning one point shared by both bodies.
    pub fn joins_two_points(&self) -> bool {
        matches!(self, JointKind::Distance { .. } | JointKind::Pulley { .. })
    }

    /// The same kind with its joint references replaced through `f` (names to ids and back).
    pub fn map_joints<K, E>(
        self,
        mut f: impl FnMut(&str, J) -> std::result::Result<K, E>,
    ) -> std::result::Result<JointKind<K>, E> {
        Ok(match self {
            JointKind::Ball { cone_limit, twist_limits, friction_torque } => {
                JointKind::Ball { cone_limit, twist_limits, friction_torque }
            }
            JointKind::Hinge { limits, motor, spring } => JointKind::Hinge { limits, motor, spring },
            JointKind::Prismatic { limits, motor, spring } => JointKind::Prismatic { limits, motor, spring },
            JointKind::Line { limits, motor, spring } => JointKind::Line { limits, motor, spring },
            JointKind::Distance { rest_length, min_length, max_length, spring } => {
                JointKind::Distance { rest_length, min_length, max_length, spring }
            }
            JointKind::Weld { spring } => JointKind::Weld { spring },
            JointKind::Angle { spring } => JointKind::Angle { spring },
            JointKind::Pulley { ground_anchor_a, ground_anchor_b, ratio } => {
                JointKind::Pulley { ground_anchor_a, ground_anchor_b, ratio }
            }
            JointKind::Gear { hinge_a, hinge_b, ratio } => {
                JointKind::Gear { hinge_a: f("hinge_a", hinge_a)?, hinge_b: f("hinge_b", hinge_b)?, ratio }
            }
            JointKind::SixDof { axes } => JointKind::SixDof { axes },
            JointKind::Target { target, spring, max_force } => JointKind::Target { target, spring, max_force },
        })
    }

    /// Checks every option against its valid range; error fields are the options' names
    /// (`limits.lower`, `spring.frequency_hz`, ...).
    pub(crate) fn validate(&self) -> Result<()> {
        match self {
            JointKind::Ball { cone_limit, twist_limits, friction_torque } => {
                validate_ball(*cone_limit, twist_limits, *friction_torque)
            }
            JointKind::Hinge { limits, motor, spring } => {
                if let Some(limits) = limits {
                    limits.validate_angles("limits")?;
                }
                validate_options(&None, motor, spring)
            }
            JointKind::Prismatic { limits, motor, spring } | JointKind::Line { limits, motor, spring } => {
                validate_options(limits, motor, spring)
            }
            JointKind::Distance { rest_length, min_length, max_length, spring } => {
                validate_lengths(*rest_length, *min_length, *max_length)?;
                validate_options(&None, &None, spring)
            }
            JointKind::Weld { spring } | JointKind::Angle { spring } => validate_options(&None, &None, spring),
            JointKind::Pulley { ground_anchor_a, ground_anchor_b, ratio } => {
                check_point("ground_anchor_a", *ground_anchor_a)?;
                check_point("ground_anchor_b", *ground_anchor_b)?;
                check_positive("ratio", *ratio)?;
                check_range("ratio", *ratio, 1e-6, 1e6)
            }
            JointKind::Gear { ratio, .. } => {
                check_finite("ratio", *ratio)?;
                if !(1e-6..=1e6).contains(&ratio.abs()) {
                    return Err(Error::new(
                        "ratio",
                        format!("must be non-zero with a magnitude from 1e-6 to 1e6, got {ratio}"),
                    ));
                }
                Ok(())
            }
            JointKind::SixDof { axes } => {
                for (motion, name) in axes.iter().zip(SIX_DOF_AXES) {
                    if let AxisMotion::Limited(lower, upper) = *motion {
                        Limits::new(lower, upper).validate(&format!("axes.{name}"))?;
                    }
                }
                Ok(())
            }
            JointKind::Target { target, spring, max_force } => {
                check_point("target", *target)?;
                spring.validate("spring")?;
                check_range("max_force", *max_force, 0.0, MAX_MOTOR_FORCE)
            }
        }
    }
}

fn validate_ball(cone_limit: Option<f32>, twist_limits: &Option<Limits>, friction_torque: Option<f32>) -> Result<()> {
    if let Some(angle) = cone_limit {
        check_range("cone_limit", angle, 0.0, PI)?;
    }
    if let Some(torque) = friction_torque {
        check_range("friction_torque", torque, 0.0, MAX_MOTOR_FORCE)?;
    }
    if let Some(limits) = twist_limits {
        limits.validate_angles("twist_limits")?;
    }
    Ok(())
}

fn validate_options(limits: &Option<Limits>, motor: &Option<Motor>, spring: &Option<Spring>) -> Result<()> {
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

/// Lengths 0 to [`MAX_JOINT_LENGTH`], ordered min ≤ rest ≤ max where given.
fn validate_lengths(rest: Option<f32>, min: Option<f32>, max: Option<f32>) -> Result<()> {
    let lengths = [("min_length", min), ("rest_length", rest), ("max_length", max)];
    for (field, value) in lengths {
        if let Some(length) = value {
            check_range(field, length, 0.0, MAX_JOINT_LENGTH)?;
        }
    }
    let given: Vec<(&str, f32)> = lengths.iter().filter_map(|(f, v)| v.map(|v| (*f, v))).collect();
    for pair in given.windows(2) {
        let ((low_field, low), (field, value)) = (pair[0], pair[1]);
        if low > value {
            return Err(Error::new(field, format!("must not be below {low_field} ({low} > {value})")));
        }
    }
    Ok(())
}

/// `value` is finite and within [`MAX_JOINT_LENGTH`] of zero.
pub(crate) fn check_length(field: &str, value: f32) -> Result<()> {
    check_range(field, value, -MAX_JOINT_LENGTH, MAX_JOINT_LENGTH)
}

/// Every component of a point is finite and within [`MAX_JOINT_LENGTH`] of the origin.
pub(crate) fn check_point(field: &str, point: Vec3) -> Result<()> {
    check_vec3(field, point)?;
    for (i, value) in point.to_array().into_iter().enumerate() {
        check_length(&component(field, i), value)?;
    }
    Ok(())
}
