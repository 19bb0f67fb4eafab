//! Mass properties of a body from its colliders.
//!
//! Each collider contributes its shape's properties at its density, moved into the body
//! frame by the collider's local pose (rotation of the tensor, parallel-axis shift). The sum
//! is taken about the combined centre of mass. A mass override scales mass and inertia by
//! `m_override / m_computed` and keeps the centre of mass.

use super::{Body, BodyKind};
use crate::math::{inverse_or_zero, Mat3, Vec3};
use crate::shape::MassProperties;

/// What a dynamic body without any mass from colliders gets: 1 kg with the inertia of a solid
/// sphere of radius 0.5 m (so it still rotates plausibly).
fn fallback_mass(mass: f32) -> MassProperties {
    MassProperties::new(mass, Vec3::ZERO, Vec3::splat(0.4 * mass * 0.25))
}

/// Recomputes `body`'s mass, inverse mass, inertia and centre of mass from `parts` (each
/// collider's properties already expressed in the body frame), keeping the origin pose fixed.
pub(crate) fn update_mass(body: &mut Body, parts: &[MassProperties]) {
    if body.kind != BodyKind::Dynamic {
        body.mass = 0.0;
        body.inv_mass = 0.0;
        body.inertia_local = Mat3::ZERO;
        body.inv_inertia_local = Mat3::ZERO;
        body.local_center = MassProperties::combine(parts).center;
        body.sync_center_from_origin();
        return;
    }
    let mut total = MassProperties::combine(parts);
    if total.mass <= 0.0 || !total.mass.is_finite() {
        total = fallback_mass(body.mass_override.unwrap_or(1.0));
    } else if let Some(mass) = body.mass_override {
        total = total.scaled(mass / total.mass);
    }
    body.mass = total.mass;
    body.inv_mass = 1.0 / total.mass;
    body.inertia_local = total.inertia;
    body.inv_inertia_local = inverse_or_zero(total.inertia);
    body.local_center = total.center;
    body.sync_center_from_origin();
}
