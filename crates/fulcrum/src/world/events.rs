//! What happened during the last step: contacts that began or ended touching, sensor
//! overlaps, bodies taken out of the simulation, broken joints and failed user constraints.

use crate::collision::contact::Contact;
use crate::id::{BodyId, ColliderId};
use crate::math::Vec3;

/// Two colliders that started or stopped touching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContactEvent {
    /// First collider of the pair.
    pub collider_a: ColliderId,
    /// Second collider of the pair.
    pub collider_b: ColliderId,
    /// Body of `collider_a`.
    pub body_a: BodyId,
    /// Body of `collider_b`.
    pub body_b: BodyId,
}

impl ContactEvent {
    pub(crate) fn of(contact: &Contact) -> Self {
        Self {
            collider_a: contact.collider_a,
            collider_b: contact.collider_b,
            body_a: contact.body_a,
            body_b: contact.body_b,
        }
    }
}

/// Why a body was taken out of the simulation.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DisabledBody {
    /// The body.
    pub body: BodyId,
    /// Its name.
    pub name: String,
    /// What was wrong, e.g. "position became non-finite".
    pub reason: String,
}

/// Events of the last step. Cleared at the start of every step.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Events {
    /// Pairs whose manifold gained its first point this step.
    pub contact_begin: Vec<ContactEvent>,
    /// Pairs whose manifold lost its last point (or that were destroyed) this step.
    pub contact_end: Vec<ContactEvent>,
    /// Sensor pairs that started overlapping.
    pub sensor_begin: Vec<ContactEvent>,
    /// Sensor pairs that stopped overlapping.
    pub sensor_end: Vec<ContactEvent>,
    /// Bodies whose state became non-finite and were taken out of the simulation.
    pub disabled_bodies: Vec<DisabledBody>,
    /// Joints that broke under overload.
    pub joint_breaks: Vec<crate::joint::JointBreak>,
    /// User constraints skipped for (the rest of) the step: invalid rows or an error from
    /// their code.
    pub user_constraint_failures: Vec<crate::joint::UserConstraintFailure>,
}

impl Events {
    pub(crate) fn clear(&mut self) {
        self.contact_begin.clear();
        self.contact_end.clear();
        self.sensor_begin.clear();
        self.sensor_end.clear();
        self.disabled_bodies.clear();
        self.joint_breaks.clear();
        self.user_constraint_failures.clear();
    }
}

/// One point of a touching contact, as read after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPointInfo {
    /// World position midway between the surfaces, metres.
    pub position: Vec3,
    /// Signed distance along the normal (negative = penetration), metres.
    pub separation: f32,
    /// Normal impulse applied during the last step, N·s (divide by dt for the force).
    pub normal_impulse: f32,
    /// Feature id of the point.
    pub id: u32,
}

/// A touching contact pair, as read after a step.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactInfo {
    /// First collider.
    pub collider_a: ColliderId,
    /// Second collider.
    pub collider_b: ColliderId,
    /// Body of `collider_a`.
    pub body_a: BodyId,
    /// Body of `collider_b`.
    pub body_b: BodyId,
    /// Unit normal from A to B.
    pub normal: Vec3,
    /// Friction coefficient used for the pair.
    pub friction: f32,
    /// Restitution used for the pair.
    pub restitution: f32,
    /// Friction impulse of the last step, applied at the manifold's friction centre (world
    /// space, N·s, perpendicular to the normal). Friction acts on the manifold as a whole.
    pub friction_impulse: Vec3,
    /// Twist friction of the last step: angular impulse about the normal, N·m·s.
    pub twist_impulse: f32,
    /// The points (at most 4).
    pub points: Vec<ContactPointInfo>,
}

impl ContactInfo {
    /// Manifold `k` of `contact` (a body against a mesh may have several).
    pub(crate) fn of(contact: &Contact, k: usize) -> Self {
        let state = contact.state(k);
        let points = state
            .manifold
            .points()
            .iter()
            .zip(&state.impulses)
            .map(|(p, imp)| ContactPointInfo {
                position: p.position,
                separation: p.separation,
                normal_impulse: imp.normal,
                id: p.id,
            })
            .collect();
        Self {
            collider_a: contact.collider_a,
            collider_b: contact.collider_b,
            body_a: contact.body_a,
            body_b: contact.body_b,
            normal: state.manifold.normal,
            friction: contact.friction,
            restitution: contact.restitution,
            friction_impulse: state.friction_impulse.linear,
            twist_impulse: state.friction_impulse.twist,
            points,
        }
    }

    /// Every manifold of `contact` that has points.
    pub(crate) fn all_of(contact: &Contact) -> impl Iterator<Item = ContactInfo> + '_ {
        (0..contact.manifold_count()).filter(|&k| contact.state(k).manifold.count > 0).map(|k| Self::of(contact, k))
    }

    /// Total normal impulse of all points over the last step, N·s.
    pub fn total_normal_impulse(&self) -> f32 {
        self.points.iter().map(|p| p.normal_impulse).sum()
    }
}
