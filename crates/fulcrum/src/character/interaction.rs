//! What characters and bodies do to each other: a character rides the body it stands on,
//! pushes dynamic bodies in its way with a bounded force, and presses on dynamic ground with
//! its weight. Bodies act on a character only as obstacles of its plane solver: it is stopped
//! (or carried off) by whatever it cannot push aside.

use super::state::{CharacterContact, Ground};
use crate::body::Body;
use crate::math::{Pose, Vec3};

/// Where riding carries a character centred at `center` standing on a body whose pose was
/// `then` when it last stood on it and is `now`: the body's point under it moved from c to
/// now·then⁻¹·c, so the character moves by that less c. This is the point velocity v + ω × r
/// integrated exactly over the step: on a platform turning about its axis the character
/// turns round the axis, at any speed, with no drift outwards.
pub(crate) fn ride_displacement(then: &Pose, now: &Pose, center: Vec3) -> Vec3 {
    now.transform_point(then.inverse_transform_point(center)) - center
}

/// The impulse (N·s, along −normal, into the body) a character moving into a dynamic body at
/// `into_speed` (m/s along −normal) gives it at `point`: what brings the body's point there
/// to that speed, J = (into_speed − u) / k with u the point's current speed along −normal and
/// k = 1/m + (r × n)·I⁻¹(r × n) its inverse effective mass, bounded by `max_impulse`
/// (max_push_force·dt). Zero when the body already moves away at least as fast.
pub(crate) fn push_impulse(body: &Body, point: Vec3, normal: Vec3, into_speed: f32, max_impulse: f32) -> f32 {
    let direction = -normal;
    let closing = into_speed - body.velocity_at_point(point).dot(direction);
    if closing <= 0.0 {
        return 0.0;
    }
    let arm = (point - body.center_of_mass()).cross(direction);
    let inverse_mass = body.inv_mass + arm.dot(body.inv_inertia_world() * arm);
    if !(inverse_mass > 0.0) {
        return 0.0;
    }
    (closing / inverse_mass).min(max_impulse)
}

/// The contacts a character walking at `intent` (its own velocity, riding left out) pushes
/// into: those with a dynamic body it moves towards.
pub(crate) fn pushed<'c>(
    contacts: &'c [CharacterContact],
    intent: Vec3,
) -> impl Iterator<Item = (&'c CharacterContact, f32)> + 'c {
    contacts.iter().filter_map(move |contact| {
        let into_speed = -intent.dot(contact.normal);
        (into_speed > 0.0 && contact.obstacle.body().is_some()).then_some((contact, into_speed))
    })
}

/// The ground's body, if the character's weight should press on it (the force is applied
/// at the ground point).
pub(crate) fn pressed(ground: Option<&Ground>) -> Option<(crate::id::BodyId, Vec3)> {
    let ground = ground?;
    Some((ground.obstacle.body()?, ground.point))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    /// A quarter turn about the vertical axis through (1, 0, 0) carries a point at (2, 1, 0)
    /// to (1, 1, −1).
    #[test]
    fn riding_turns_about_the_platforms_axis() {
        let then = Pose::from_position(Vec3::new(1.0, 0.0, 0.0));
        let now = Pose::new(Vec3::new(1.0, 0.0, 0.0), Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
        let moved = Vec3::new(2.0, 1.0, 0.0) + ride_displacement(&then, &now, Vec3::new(2.0, 1.0, 0.0));
        assert!((moved - Vec3::new(1.0, 1.0, -1.0)).length() < 1e-6, "{moved}");
    }
}
