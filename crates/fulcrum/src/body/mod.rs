//! Rigid bodies: their definition ([`BodyDef`]), their stored state ([`Body`]) and how mass
//! properties come from colliders (`body::mass`).

pub(crate) mod mass;

use crate::error::{check_above_zero, check_range, check_rotation, check_vec3_range, Result};
use crate::id::ColliderId;
use crate::math::{Mat3, Pose, Quat, Vec3};

/// Largest distance of a body's origin from the world origin along each axis, metres. At a
/// million metres a 32-bit float rounds to 6 cm; the bound keeps positions and the products
/// the solver forms with them finite.
pub const MAX_POSITION: f32 = 1.0e6;
/// Largest component of a body's linear velocity, m/s (thirty times the speed of a rifle
/// bullet).
pub const MAX_LINEAR_SPEED: f32 = 1.0e5;
/// Largest component of a body's angular velocity, rad/s (about 95,000 revolutions a minute).
pub const MAX_ANGULAR_SPEED: f32 = 1.0e4;
/// Largest linear or angular damping, 1/s.
pub const MAX_DAMPING: f32 = 1.0e6;
/// Largest magnitude of a body's gravity scale.
pub const MAX_GRAVITY_SCALE: f32 = 1.0e3;
/// Largest mass a body may be given, kg: about the mass of the largest, densest box
/// ([`MAX_SHAPE_SIZE`](crate::shape::MAX_SHAPE_SIZE), [`MAX_DENSITY`](crate::collider::MAX_DENSITY)).
pub const MAX_MASS: f32 = 1.0e18;

/// How a body moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyKind {
    /// Never moves; infinite mass.
    Static,
    /// Moved by forces, gravity and contacts.
    #[default]
    Dynamic,
    /// Moved only by its velocity (set by the user); pushes dynamic bodies, infinite mass.
    Kinematic,
}

/// Everything needed to create a body. Start from `BodyDef::default()` (a dynamic body at
/// the origin) and set what differs. Also a body's entry in scene files (with its `colliders`),
/// where omitted fields take these defaults.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BodyDef {
    /// A name for scene files, events and debugging (may be empty).
    pub name: String,
    /// Static, dynamic or kinematic.
    pub kind: BodyKind,
    /// World position of the body origin, metres (each component within ±[`MAX_POSITION`]).
    pub position: Vec3,
    /// World rotation (unit quaternion; in files also `{"axis": [x, y, z], "angle_deg": a}`).
    #[serde(with = "crate::json::rotation")]
    pub rotation: Quat,
    /// Velocity of the centre of mass, m/s (each component within ±[`MAX_LINEAR_SPEED`]).
    pub linear_velocity: Vec3,
    /// Angular velocity, rad/s, world axes (each component within ±[`MAX_ANGULAR_SPEED`]).
    pub angular_velocity: Vec3,
    /// Linear damping, 1/s: the velocity decays as `v / (1 + h·damping)` per step of `h` s
    /// (0 to [`MAX_DAMPING`]).
    pub linear_damping: f32,
    /// Angular damping, 1/s (0 to [`MAX_DAMPING`]).
    pub angular_damping: f32,
    /// Multiplies the world's gravity for this body (within ±[`MAX_GRAVITY_SCALE`]).
    pub gravity_scale: f32,
    /// Total mass override in kg, above 0 and at most [`MAX_MASS`]; the inertia is scaled by
    /// the same factor and the centre of mass stays where the colliders put it. `None`:
    /// computed from collider densities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mass: Option<f32>,
    /// May this body fall asleep when it rests?
    pub can_sleep: bool,
    /// Continuous collision (fast projectiles): after each step the body is swept from its
    /// start to its end pose against static, kinematic and non-bullet dynamic colliders and
    /// moved back to its first time of impact (see `world/ccd.rs`).
    pub bullet: bool,
    /// Created awake (true) or asleep.
    pub awake: bool,
}

impl Default for BodyDef {
    fn default() -> Self {
        Self {
            name: String::new(),
            kind: BodyKind::Dynamic,
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            mass: None,
            can_sleep: true,
            bullet: false,
            awake: true,
        }
    }
}

impl BodyDef {
    /// A body of `kind` at `position`.
    pub fn new(kind: BodyKind, position: Vec3) -> Self {
        Self { kind, position, ..Default::default() }
    }

    /// A dynamic body at `position`.
    pub fn dynamic(position: Vec3) -> Self {
        Self::new(BodyKind::Dynamic, position)
    }

    /// A static body at `position`.
    pub fn fixed(position: Vec3) -> Self {
        Self::new(BodyKind::Static, position)
    }

    /// A kinematic body at `position`.
    pub fn kinematic(position: Vec3) -> Self {
        Self::new(BodyKind::Kinematic, position)
    }

    /// Sets the rotation.
    pub fn with_rotation(mut self, rotation: Quat) -> Self {
        self.rotation = rotation;
        self
    }

    /// Sets the linear velocity.
    pub fn with_linear_velocity(mut self, v: Vec3) -> Self {
        self.linear_velocity = v;
        self
    }

    /// Sets the angular velocity.
    pub fn with_angular_velocity(mut self, w: Vec3) -> Self {
        self.angular_velocity = w;
        self
    }

    /// Sets continuous collision (see [`BodyDef::bullet`]).
    pub fn with_bullet(mut self, bullet: bool) -> Self {
        self.bullet = bullet;
        self
    }

    /// Sets the name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Checks every field; returns the definition with its rotation normalised.
    pub(crate) fn validated(&self) -> Result<BodyDef> {
        let mut def = self.clone();
        check_position(def.position)?;
        def.rotation = check_rotation("rotation", def.rotation)?;
        check_linear_velocity(def.linear_velocity)?;
        check_angular_velocity(def.angular_velocity)?;
        check_damping("linear_damping", def.linear_damping)?;
        check_damping("angular_damping", def.angular_damping)?;
        check_gravity_scale(def.gravity_scale)?;
        if let Some(mass) = def.mass {
            check_mass(mass)?;
        }
        if def.kind == BodyKind::Static {
            def.linear_velocity = Vec3::ZERO;
            def.angular_velocity = Vec3::ZERO;
        }
        Ok(def)
    }
}

/// Checks a body position against [`MAX_POSITION`].
pub(crate) fn check_position(position: Vec3) -> Result<()> {
    check_vec3_range("position", position, -MAX_POSITION, MAX_POSITION)
}

/// Checks a linear velocity against [`MAX_LINEAR_SPEED`].
pub(crate) fn check_linear_velocity(velocity: Vec3) -> Result<()> {
    check_vec3_range("linear_velocity", velocity, -MAX_LINEAR_SPEED, MAX_LINEAR_SPEED)
}

/// Checks an angular velocity against [`MAX_ANGULAR_SPEED`].
pub(crate) fn check_angular_velocity(velocity: Vec3) -> Result<()> {
    check_vec3_range("angular_velocity", velocity, -MAX_ANGULAR_SPEED, MAX_ANGULAR_SPEED)
}

/// Checks a damping coefficient `field` against [0, [`MAX_DAMPING`]].
pub(crate) fn check_damping(field: &str, damping: f32) -> Result<()> {
    check_range(field, damping, 0.0, MAX_DAMPING)
}

/// Checks a gravity scale against ±[`MAX_GRAVITY_SCALE`].
pub(crate) fn check_gravity_scale(scale: f32) -> Result<()> {
    check_range("gravity_scale", scale, -MAX_GRAVITY_SCALE, MAX_GRAVITY_SCALE)
}

/// Checks a mass override against (0, [`MAX_MASS`]].
pub(crate) fn check_mass(mass: f32) -> Result<()> {
    check_above_zero("mass", mass, MAX_MASS)
}

/// A rigid body as the world stores it. Read it through [`World::body`](crate::World::body);
/// change it through the world's setters so that sleeping, contacts and the broad phase stay
/// consistent.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Body {
    pub(crate) name: String,
    pub(crate) kind: BodyKind,
    /// Pose of the body origin.
    pub(crate) pose: Pose,
    /// World position of the centre of mass.
    pub(crate) center: Vec3,
    /// Centre of mass in the body frame.
    pub(crate) local_center: Vec3,
    pub(crate) linear_velocity: Vec3,
    pub(crate) angular_velocity: Vec3,
    pub(crate) force: Vec3,
    pub(crate) torque: Vec3,
    pub(crate) mass: f32,
    pub(crate) inv_mass: f32,
    /// Inertia about the centre of mass, body axes.
    pub(crate) inertia_local: Mat3,
    pub(crate) inv_inertia_local: Mat3,
    pub(crate) linear_damping: f32,
    pub(crate) angular_damping: f32,
    pub(crate) gravity_scale: f32,
    pub(crate) mass_override: Option<f32>,
    pub(crate) can_sleep: bool,
    pub(crate) bullet: bool,
    pub(crate) awake: bool,
    /// Seconds this body has been slow enough to sleep.
    pub(crate) sleep_time: f32,
    /// False once the body was taken out of the simulation (non-finite state).
    pub(crate) enabled: bool,
    pub(crate) colliders: Vec<ColliderId>,
    /// Joints attached to this body.
    pub(crate) joints: Vec<crate::id::JointId>,
    /// Index into the solver's body arrays this step (0 = not simulated).
    pub(crate) solver_index: u32,
    /// Which sleeping island the body belongs to while asleep.
    pub(crate) sleeping_island: u32,
    /// Largest distance from the centre of mass to any collider surface (for sleep speed).
    pub(crate) max_extent: f32,
}

impl Body {
    pub(crate) fn from_def(def: &BodyDef) -> Body {
        let pose = Pose::new(def.position, def.rotation);
        Body {
            name: def.name.clone(),
            kind: def.kind,
            pose,
            center: pose.position,
            local_center: Vec3::ZERO,
            linear_velocity: def.linear_velocity,
            angular_velocity: def.angular_velocity,
            force: Vec3::ZERO,
            torque: Vec3::ZERO,
            mass: 0.0,
            inv_mass: 0.0,
            inertia_local: Mat3::ZERO,
            inv_inertia_local: Mat3::ZERO,
            linear_damping: def.linear_damping,
            angular_damping: def.angular_damping,
            gravity_scale: def.gravity_scale,
            mass_override: def.mass,
            can_sleep: def.can_sleep,
            bullet: def.bullet,
            awake: def.awake || def.kind == BodyKind::Static,
            sleep_time: 0.0,
            enabled: true,
            colliders: Vec::new(),
            joints: Vec::new(),
            solver_index: 0,
            sleeping_island: u32::MAX,
            max_extent: 0.0,
        }
    }

    /// The body's name (may be empty).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Static, dynamic or kinematic.
    pub fn kind(&self) -> BodyKind {
        self.kind
    }

    /// Pose of the body origin.
    pub fn pose(&self) -> Pose {
        self.pose
    }

    /// World position of the body origin, metres.
    pub fn position(&self) -> Vec3 {
        self.pose.position
    }

    /// World rotation.
    pub fn rotation(&self) -> Quat {
        self.pose.rotation
    }

    /// World position of the centre of mass, metres.
    pub fn center_of_mass(&self) -> Vec3 {
        self.center
    }

    /// Centre of mass in the body frame, metres.
    pub fn local_center_of_mass(&self) -> Vec3 {
        self.local_center
    }

    /// Velocity of the centre of mass, m/s.
    pub fn linear_velocity(&self) -> Vec3 {
        self.linear_velocity
    }

    /// Angular velocity, rad/s (world axes).
    pub fn angular_velocity(&self) -> Vec3 {
        self.angular_velocity
    }

    /// Velocity of the material point at world position `point`, m/s.
    pub fn velocity_at_point(&self, point: Vec3) -> Vec3 {
        self.linear_velocity + self.angular_velocity.cross(point - self.center)
    }

    /// Mass in kg (0 for static and kinematic bodies).
    pub fn mass(&self) -> f32 {
        self.mass
    }

    /// Inertia tensor about the centre of mass in body axes, kg·m².
    pub fn inertia_local(&self) -> Mat3 {
        self.inertia_local
    }

    /// Inertia tensor about the centre of mass in world axes, kg·m².
    pub fn inertia_world(&self) -> Mat3 {
        let r = Mat3::from_quat(self.pose.rotation);
        r * self.inertia_local * r.transpose()
    }

    /// Inverse inertia in world axes (zero for static and kinematic bodies).
    pub fn inv_inertia_world(&self) -> Mat3 {
        let r = Mat3::from_quat(self.pose.rotation);
        r * self.inv_inertia_local * r.transpose()
    }

    /// Kinetic energy ½ m v² + ½ ωᵀ I ω, joules.
    pub fn kinetic_energy(&self) -> f32 {
        let w = self.angular_velocity;
        0.5 * self.mass * self.linear_velocity.length_squared() + 0.5 * w.dot(self.inertia_world() * w)
    }

    /// Angular momentum about the centre of mass, I ω, kg·m²/s.
    pub fn angular_momentum(&self) -> Vec3 {
        self.inertia_world() * self.angular_velocity
    }

    /// Linear damping, 1/s.
    pub fn linear_damping(&self) -> f32 {
        self.linear_damping
    }

    /// Angular damping, 1/s.
    pub fn angular_damping(&self) -> f32 {
        self.angular_damping
    }

    /// Gravity multiplier.
    pub fn gravity_scale(&self) -> f32 {
        self.gravity_scale
    }

    /// The mass override, if one was given.
    pub fn mass_override(&self) -> Option<f32> {
        self.mass_override
    }

    /// May the body sleep?
    pub fn can_sleep(&self) -> bool {
        self.can_sleep
    }

    /// Is continuous collision against dynamic bodies on?
    pub fn is_bullet(&self) -> bool {
        self.bullet
    }

    /// Is the body asleep?
    pub fn is_sleeping(&self) -> bool {
        !self.awake && self.kind != BodyKind::Static
    }

    /// False once the body was taken out of the simulation because its state became
    /// non-finite.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The body's colliders.
    pub fn colliders(&self) -> &[ColliderId] {
        &self.colliders
    }

    /// Accumulated force for the next step, newtons.
    pub fn force(&self) -> Vec3 {
        self.force
    }

    /// Accumulated torque for the next step, N·m.
    pub fn torque(&self) -> Vec3 {
        self.torque
    }

    /// True for dynamic bodies.
    pub fn is_dynamic(&self) -> bool {
        self.kind == BodyKind::Dynamic
    }

    /// Keeps the origin pose consistent with the centre of mass after `center`/rotation moved.
    pub(crate) fn sync_origin_from_center(&mut self) {
        self.pose.position = self.center - self.pose.rotation * self.local_center;
    }

    /// Keeps the centre of mass consistent with the origin pose.
    pub(crate) fn sync_center_from_origin(&mut self) {
        self.center = self.pose.transform_point(self.local_center);
    }
}
