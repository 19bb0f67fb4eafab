//! Rigid bodies as the particle stage sees them: a point of the body is one end of an
//! attachment or a tether, and a correction there moves the body through its mass and inertia.
//!
//! A position correction p (Δλ·n, see `constraints.rs`) at a point r from the centre of mass:
//!
//! ```text
//! Δc = p / m                       Δθ = I⁻¹ (r × p)
//! q ← normalize(q + ½ (Δθ, 0) q)   w(n) = 1/m + (r × n)·I⁻¹(r × n)
//! ```
//!
//! The rigid solve has already moved the body over the step, at its new velocities v, ω. So
//! that the particles meet that motion spread over the substeps rather than in one jump at the
//! first (which a chain of light particles, one pass per substep, passes on only slowly and
//! turns into waves along it), the stage winds the body back by v·dt, ω·dt and moves it on by
//! v·h, ω·h at the start of each substep. After the stage the body's velocities take the
//! corrections over the step, Δv = Σ Δc / dt and Δω = Σ Δθ / dt, as the particles' do (a
//! position solver's velocity is its displacement over the step).

use crate::body::{Body, BodyKind};
use crate::id::BodyId;
use crate::math::{rotate_inertia, Mat3, Quat, Vec3};

/// A body some particles are attached to, moved by the particle stage.
#[derive(Clone, Debug)]
pub(crate) struct CoupledBody {
    pub id: BodyId,
    pub center: Vec3,
    pub rotation: Quat,
    /// Where the rigid solve left it (the stage's corrections are measured from there).
    pub start_center: Vec3,
    pub start_rotation: Quat,
    /// Its velocities from the rigid solve, m/s and rad/s.
    pub velocity: Vec3,
    pub angular_velocity: Vec3,
    /// Centre of mass in the body frame.
    pub local_center: Vec3,
    /// 0 for static, kinematic and sleeping bodies: they hold the particles and do not move.
    pub inv_mass: f32,
    /// World inverse inertia at the start of the stage.
    pub inv_inertia: Mat3,
}

impl CoupledBody {
    /// The body's view at the start of the stage, wound back over the step `dt`.
    pub fn new(id: BodyId, body: &Body, dt: f32) -> Self {
        let movable = body.kind == BodyKind::Dynamic && body.awake && body.enabled;
        let rotation = body.pose.rotation;
        let (inv_mass, inv_inertia) = if movable {
            (body.inv_mass, rotate_inertia(Mat3::from_quat(rotation), body.inv_inertia_local))
        } else {
            (0.0, Mat3::ZERO)
        };
        let (velocity, angular_velocity) = if body.kind == BodyKind::Static || !body.awake {
            (Vec3::ZERO, Vec3::ZERO)
        } else {
            (body.linear_velocity, body.angular_velocity)
        };
        CoupledBody {
            id,
            center: body.center - velocity * dt,
            rotation: Quat::from_scaled_axis(-angular_velocity * dt) * rotation,
            start_center: body.center,
            start_rotation: rotation,
            velocity,
            angular_velocity,
            local_center: body.local_center,
            inv_mass,
            inv_inertia,
        }
    }

    /// A body that no longer exists: an immovable point at the origin (attachments to a
    /// destroyed body are removed with it, so this is never met in a consistent world).
    pub fn missing(id: BodyId) -> Self {
        CoupledBody {
            id,
            center: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            start_center: Vec3::ZERO,
            start_rotation: Quat::IDENTITY,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            local_center: Vec3::ZERO,
            inv_mass: 0.0,
            inv_inertia: Mat3::ZERO,
        }
    }

    /// Moves it on by its velocities over a substep `h` (module docs).
    pub fn advance(&mut self, h: f32) {
        self.center += self.velocity * h;
        self.rotation = (Quat::from_scaled_axis(self.angular_velocity * h) * self.rotation).normalize();
    }

    /// The world point of a point given in the body's frame (relative to its origin), and
    /// its offset from the centre of mass.
    pub fn point(&self, local: Vec3) -> (Vec3, Vec3) {
        let r = self.rotation * (local - self.local_center);
        (self.center + r, r)
    }

    /// Generalised inverse mass at offset `r` along the unit direction `n`.
    pub fn inv_mass_at(&self, r: Vec3, n: Vec3) -> f32 {
        if self.inv_mass == 0.0 {
            return 0.0;
        }
        let arm = r.cross(n);
        self.inv_mass + arm.dot(self.inv_inertia * arm)
    }

    /// Moves the body by the correction `p` applied at offset `r` (module docs).
    pub fn apply(&mut self, r: Vec3, p: Vec3) {
        if self.inv_mass == 0.0 {
            return;
        }
        self.center += p * self.inv_mass;
        let turn = self.inv_inertia * r.cross(p);
        let spin = Quat::from_xyzw(turn.x, turn.y, turn.z, 0.0) * self.rotation;
        self.rotation = (self.rotation + spin * 0.5).normalize();
    }

    /// The velocity changes the stage made over a step `dt`: (Δv, Δω).
    pub fn velocity_change(&self, dt: f32) -> (Vec3, Vec3) {
        let dv = (self.center - self.start_center) / dt;
        let dq = self.rotation * self.start_rotation.inverse();
        let dq = if dq.w < 0.0 { -dq } else { dq };
        let dw = 2.0 * Vec3::new(dq.x, dq.y, dq.z) / dt;
        (dv, dw)
    }

    /// Can the stage have moved it (a dynamic, awake body)? Others keep the rigid solve's
    /// pose exactly.
    pub fn movable(&self) -> bool {
        self.inv_mass > 0.0
    }
}
