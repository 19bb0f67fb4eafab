//! The solver's view of a body: the hot state every constraint reads and writes, in one
//! contiguous array indexed by a dense solver index. Index 0 is a shared static body (zero
//! inverse mass, zero velocity) that static colliders' constraints read.
//!
//! The vectors are 16-byte aligned (`Vec3A`, `Quat`) so the wide solver loads each with one
//! instruction and transposes four bodies into lanes.

use crate::math::{integrate_rotation, Mat3, Quat, Vec3, Vec3A};

/// Hot per-body solver state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverBody {
    /// Rotation accumulated since the start of the step.
    pub delta_rotation: Quat,
    /// Velocity of the centre of mass, m/s.
    pub linear_velocity: Vec3A,
    /// Angular velocity, rad/s.
    pub angular_velocity: Vec3A,
    /// Displacement of the centre of mass since the start of the step, m.
    pub delta_position: Vec3A,
    /// 1/mass (0 for static and kinematic bodies).
    pub inv_mass: f32,
    /// Inverse inertia in world axes at the start of the step.
    pub inv_inertia: Mat3,
}

impl SolverBody {
    /// The shared static body.
    pub const STATIC: SolverBody = SolverBody {
        delta_rotation: Quat::IDENTITY,
        linear_velocity: Vec3A::ZERO,
        angular_velocity: Vec3A::ZERO,
        delta_position: Vec3A::ZERO,
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
    };

    /// Whether constraints move the body: dynamic ones (inverse mass > 0), never the shared
    /// static body nor kinematic bodies. The graph colouring counts only these.
    #[inline(always)]
    pub fn movable(&self) -> bool {
        self.inv_mass > 0.0
    }

    /// Velocity of the material point at offset `r` from the centre of mass.
    #[inline(always)]
    pub fn velocity_at(&self, r: Vec3) -> Vec3 {
        Vec3::from(self.linear_velocity + self.angular_velocity.cross(r.into()))
    }

    /// Applies the impulse `p` at offset `r` from the centre of mass:
    /// v += p/m, ω += I⁻¹ (r × p).
    #[inline(always)]
    pub fn apply_impulse(&mut self, r: Vec3, p: Vec3) {
        self.linear_velocity += Vec3A::from(self.inv_mass * p);
        self.angular_velocity += Vec3A::from(self.inv_inertia * r.cross(p));
    }

    /// Moves the body on for `h` seconds at its current velocities: Δp += h v,
    /// Δq = normalize(Δq + h/2 ω Δq).
    #[inline]
    pub fn advance(&mut self, h: f32) {
        self.delta_position += h * self.linear_velocity;
        let w = Vec3::from(self.angular_velocity);
        if w != Vec3::ZERO {
            self.delta_rotation = integrate_rotation(self.delta_rotation, w, h);
        }
    }

    /// The body as [`Self::advance`] would leave it after `h` seconds.
    #[inline]
    pub fn advanced(&self, h: f32) -> SolverBody {
        let mut ahead = *self;
        ahead.advance(h);
        ahead
    }
}

/// Cold per-body data the integrator needs (same indices as the solver bodies).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverBodyParams {
    /// Constant acceleration from gravity and applied force: g·scale + F/m, m/s².
    pub linear_acceleration: Vec3,
    /// Angular acceleration from applied torque, I⁻¹ τ, rad/s².
    pub angular_acceleration: Vec3,
    /// Linear damping, 1/s.
    pub linear_damping: f32,
    /// Angular damping, 1/s.
    pub angular_damping: f32,
    /// Inertia in world axes at the start of the step (read by the gyroscopic term only;
    /// zero for a body without one).
    pub inertia: Mat3,
    /// Inverse inertia in world axes at the start of the step (the solver body's is turned
    /// with the body every substep).
    pub inv_inertia: Mat3,
    /// False for kinematic bodies (no forces, no gyroscopic term).
    pub dynamic: bool,
    /// The inertia is not isotropic, so the gyroscopic term ω × Iω can be non-zero (it is
    /// exactly zero for spheres and cubes).
    pub gyroscopic: bool,
}

impl SolverBodyParams {
    /// Parameters of the shared static body.
    pub const STATIC: SolverBodyParams = SolverBodyParams {
        linear_acceleration: Vec3::ZERO,
        angular_acceleration: Vec3::ZERO,
        linear_damping: 0.0,
        angular_damping: 0.0,
        inertia: Mat3::ZERO,
        inv_inertia: Mat3::ZERO,
        dynamic: false,
        gyroscopic: false,
    };
}
