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
//! v·h, ω·h at the start of each substep. The body is then a particle of the small-step solver
//! like the others: a correction in a substep h changes its velocities by Δv = Δc / h and
//! Δω = Δθ / h (a position solver's velocity is its displacement over the substep), which the
//! following substeps carry on, and the body leaves the stage at its last substep's velocities.
//! Taken over the whole step instead (Δv = Σ Δc / dt, the body moving at the rigid solve's
//! velocity in every substep), a compliant link's force reached a body at 1/n of its impulse
//! over n substeps, and a heavy plank hung on a rope pulled it down before the rope could hold
//! it.

use crate::body::{Body, BodyKind};
use crate::id::BodyId;
use crate::math::{rotate_inertia, Mat3, Quat, Vec3};

/// A body some particles are attached to, moved by the particle stage.
#[derive(Clone, Debug)]
pub(crate) struct CoupledBody {
    pub id: BodyId,
    pub center: Vec3,
    pub rotation: Quat,
    /// Where it was at the start of the substep (friction measures the slip from there).
    pub previous_center: Vec3,
    pub previous_rotation: Quat,
    /// Its velocities: the rigid solve's, changed by the stage's corrections, m/s and rad/s.
    pub velocity: Vec3,
    pub angular_velocity: Vec3,
    /// The substep, seconds.
    pub substep: f32,
    /// Was it asleep in the world (woken by the particles)?
    pub woken: bool,
    /// Centre of mass in the body frame.
    pub local_center: Vec3,
    /// 0 for static, kinematic and sleeping bodies: they hold the particles and do not move.
    pub inv_mass: f32,
    /// World inverse inertia at the start of the stage.
    pub inv_inertia: Mat3,
}

impl CoupledBody {
    /// The body's view at the start of the stage, wound back over the step `dt` and moved on
    /// in substeps of `h`; a sleeping dynamic body is woken when `wake` is set.
    pub fn new(id: BodyId, body: &Body, dt: f32, h: f32, wake: bool) -> Self {
        let woken = wake && !body.awake && body.kind == BodyKind::Dynamic;
        let body = &Body { awake: body.awake || woken, ..body.clone() };
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
        let center = body.center - velocity * dt;
        let rotation = Quat::from_scaled_axis(-angular_velocity * dt) * rotation;
        CoupledBody {
            id,
            center,
            rotation,
            previous_center: center,
            previous_rotation: rotation,
            velocity,
            angular_velocity,
            substep: h,
            woken,
            local_center: body.local_center,
            inv_mass,
            inv_inertia,
        }
    }

    /// An immovable frame at the origin: the static world at the end of a joint, or a body
    /// that no longer exists (attachments to a destroyed body are removed with it, so that
    /// is never met in a consistent world).
    pub fn missing(id: BodyId) -> Self {
        CoupledBody {
            id,
            center: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            previous_center: Vec3::ZERO,
            previous_rotation: Quat::IDENTITY,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            substep: 1.0,
            woken: false,
            local_center: Vec3::ZERO,
            inv_mass: 0.0,
            inv_inertia: Mat3::ZERO,
        }
    }

    /// Moves it on by its velocities over a substep (module docs).
    pub fn advance(&mut self) {
        let h = self.substep;
        self.previous_center = self.center;
        self.previous_rotation = self.rotation;
        self.center += self.velocity * h;
        self.rotation = (Quat::from_scaled_axis(self.angular_velocity * h) * self.rotation).normalize();
    }

    /// The world point of a point given in the body's frame (relative to its origin), and
    /// its offset from the centre of mass.
    pub fn point(&self, local: Vec3) -> (Vec3, Vec3) {
        let r = self.rotation * (local - self.local_center);
        (self.center + r, r)
    }

    /// Where that point was at the start of the substep (world).
    pub fn previous_point(&self, local: Vec3) -> Vec3 {
        self.previous_center + self.previous_rotation * (local - self.local_center)
    }

    /// Generalised inverse mass at offset `r` along the unit direction `n`.
    pub fn inv_mass_at(&self, r: Vec3, n: Vec3) -> f32 {
        if self.inv_mass == 0.0 {
            return 0.0;
        }
        let arm = r.cross(n);
        self.inv_mass + arm.dot(self.inv_inertia * arm)
    }

    /// Moves the body by the correction `p` applied at offset `r`, and changes its
    /// velocities by the move over the substep (module docs).
    pub fn apply(&mut self, r: Vec3, p: Vec3) {
        self.apply_generalised(p, r.cross(p));
    }

    /// Moves the body by a generalised correction: `linear` (kg·m) through its mass and
    /// `angular` (kg·m²) through its inertia, and changes its velocities by the move over the
    /// substep (module docs).
    pub fn apply_generalised(&mut self, linear: Vec3, angular: Vec3) {
        if self.inv_mass == 0.0 {
            return;
        }
        let (shift, turn) = (linear * self.inv_mass, self.inv_inertia * angular);
        self.center += shift;
        let spin = Quat::from_xyzw(turn.x, turn.y, turn.z, 0.0) * self.rotation;
        self.rotation = (self.rotation + spin * 0.5).normalize();
        self.velocity += shift / self.substep;
        self.angular_velocity += turn / self.substep;
    }

    /// Can the stage have moved it (a dynamic, awake body)? Others keep the rigid solve's
    /// pose exactly.
    pub fn movable(&self) -> bool {
        self.inv_mass > 0.0
    }
}

/// A contact point between two bodies of the stage, solved in its substeps as a position
/// constraint, so that what rests on a body the particles hold (a crate on a plank of a rope
/// bridge) is held with it. With A's normal n (from A to B) turned with A and the two surface
/// points a, b fixed in their bodies:
///
/// ```text
/// C = (b − a)·n − min(0, g₀) ≥ 0       Δλ = −C / (w_a(n) + w_b(n))
/// A moved by −Δλ·n at r_a              B moved by +Δλ·n at r_b
/// d = (b − b_prev) − (a − a_prev)      t = d − (d·n)·n
/// Δλ_t = min(|t|, μ·Δλ) / (w_a(t̂) + w_b(t̂)), A moved by +Δλ_t·t̂, B by −Δλ_t·t̂
/// ```
///
/// with g₀ the gap the narrow phase found at the start of the step. The overlap a resting
/// contact starts with is the rigid solve's to remove (softly, over several steps): removed
/// here, it moved the bodies by the whole overlap in one substep, a kick of g₀ / h every step
/// that made a crate hop and spin on its plank.
///
/// The rigid solve holds such a pair apart in its step, but then the stage moves the held
/// body alone: the rope stopped a plank that a dropped crate had pushed down, the crate went on
/// into it (the rigid solve gives the 0.6 kg plank most of a 4 kg crate's speed each step and
/// cannot know the rope holds it), and fell through.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyContact {
    /// Indices of the two bodies in the stage's coupled bodies.
    pub a: u32,
    pub b: u32,
    /// The surface points in each body's frame (relative to its origin).
    pub local_a: Vec3,
    pub local_b: Vec3,
    /// The normal in A's frame.
    pub normal: Vec3,
    pub friction: f32,
    /// The gap the contact started the step with when it was negative (the rigid solve's
    /// resting overlap), else 0: the stage keeps the bodies from closing further, and leaves
    /// the overlap they started with to the rigid solve.
    pub rest: f32,
}

impl CoupledBody {
    /// The body-frame point (relative to its origin) that is at `world` now.
    pub fn local_point(&self, world: Vec3) -> Vec3 {
        self.rotation.inverse() * (world - self.center) + self.local_center
    }
}

/// One pass over the contacts between the stage's bodies (see [`BodyContact`]).
pub(crate) fn solve_body_contacts(contacts: &[BodyContact], bodies: &mut [CoupledBody]) {
    for contact in contacts {
        let (a, b) = (contact.a as usize, contact.b as usize);
        let normal = bodies[a].rotation * contact.normal;
        let (point_a, r_a) = bodies[a].point(contact.local_a);
        let (point_b, r_b) = bodies[b].point(contact.local_b);
        let gap = (point_b - point_a).dot(normal) - contact.rest;
        let total = bodies[a].inv_mass_at(r_a, normal) + bodies[b].inv_mass_at(r_b, normal);
        if gap >= 0.0 || total <= 0.0 {
            continue;
        }
        let lambda = -gap / total;
        bodies[a].apply(r_a, -lambda * normal);
        bodies[b].apply(r_b, lambda * normal);
        let (point_a, r_a) = bodies[a].point(contact.local_a);
        let (point_b, r_b) = bodies[b].point(contact.local_b);
        let moved_a = point_a - bodies[a].previous_point(contact.local_a);
        let slip = (point_b - bodies[b].previous_point(contact.local_b)) - moved_a;
        let tangential = slip - normal * normal.dot(slip);
        let Some(direction) = tangential.try_normalize() else { continue };
        let total = bodies[a].inv_mass_at(r_a, direction) + bodies[b].inv_mass_at(r_b, direction);
        let lambda = tangential.length().min(contact.friction * lambda) / total;
        bodies[a].apply(r_a, lambda * direction);
        bodies[b].apply(r_b, -lambda * direction);
    }
}
