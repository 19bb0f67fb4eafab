//! The character's position solver: the closest position to a target that satisfies every
//! contact plane (the talk's character solver).
//!
//! ```text
//! minimise ½|x − t|²  subject to  n_i·x ≥ b_i
//! ```
//!
//! solved by Hildreth's method, which is projected Gauss-Seidel on the plane "impulses": x =
//! t + Σ λ_i m_i with λ_i ≥ 0; each pass visits the planes in turn, and for plane i the
//! change of λ_i that puts x on it is (b_i − n_i·x) / (n_i·m_i), clamped so the accumulated
//! λ_i stays ≥ 0. A plane pushed earlier may so give back its push when another plane's makes
//! it unnecessary, which is what makes the limit the closest point rather than just any
//! point outside every plane. Two planes at an acute angle make the passes ping-pong between
//! them (the error shrinks by about cos² of the angle between the normals per pass), so it
//! runs until no correction exceeds [`TOLERANCE`], up to [`MAX_PASSES`].
//!
//! With m_i = n_i this is the Euclidean projection. The mover pushes along other directions
//! where a game wants it ([`push_direction`]): straight up off walkable ground (walking keeps
//! its horizontal speed up a slope), horizontally off steep ground (a steep slope never
//! lifts the character, neither by walking into it nor by falling onto it).

use crate::math::Vec3;

/// A contact plane as a constraint on the capsule's centre: `normal·x ≥ bound`, corrected
/// along `push` (unit, `normal·push > 0`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlaneConstraint {
    pub normal: Vec3,
    pub push: Vec3,
    pub bound: f32,
}

/// Passes stop when no plane moved the point by more than this, metres.
pub(crate) const TOLERANCE: f32 = 1.0e-6;
/// Most passes over the planes (enough for a 10° wedge to within the tolerance).
pub(crate) const MAX_PASSES: usize = 200;
/// The horizontal part of a normal must be at least this long to push along it.
const MIN_HORIZONTAL: f32 = 0.1;

/// The point closest to `target` (in the metric the push directions define) satisfying every
/// constraint; see the module docs.
pub(crate) fn solve(target: Vec3, constraints: &[PlaneConstraint]) -> Vec3 {
    let mut x = target;
    let mut pushes = vec![0.0f32; constraints.len()];
    for _ in 0..MAX_PASSES {
        let mut largest = 0.0f32;
        for (constraint, accumulated) in constraints.iter().zip(pushes.iter_mut()) {
            let violation = constraint.bound - constraint.normal.dot(x);
            let wanted = (*accumulated + violation / constraint.normal.dot(constraint.push)).max(0.0);
            let change = wanted - *accumulated;
            *accumulated = wanted;
            x += change * constraint.push;
            largest = largest.max(change.abs());
        }
        if largest <= TOLERANCE {
            break;
        }
    }
    x
}

/// The direction a plane pushes the character along: up when it stands on it (walkable
/// ground or the edge of a step), horizontally off steep ground that faces up, straight along
/// the normal off everything else (walls, ceilings, overhangs).
pub(crate) fn push_direction(normal: Vec3, up: Vec3, supports: bool) -> Vec3 {
    if supports {
        return up;
    }
    let rise = normal.dot(up);
    let horizontal = normal - rise * up;
    let length = horizontal.length();
    if rise > 0.0 && length >= MIN_HORIZONTAL {
        horizontal / length
    } else {
        normal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(normal: Vec3, bound: f32) -> PlaneConstraint {
        PlaneConstraint { normal, push: normal, bound }
    }

    /// One plane: the projection of the target onto it.
    #[test]
    fn one_plane_projects_the_target() {
        let x = solve(Vec3::new(1.0, -0.5, 2.0), &[plane(Vec3::Y, 0.0)]);
        assert!((x - Vec3::new(1.0, 0.0, 2.0)).length() < 1e-6, "{x}");
    }

    /// A plane satisfied at the solution gives its push back: the floor pushed first, then a
    /// slope y ≥ x lifting further, the answer is the slope's projection alone, not the sum.
    #[test]
    fn a_plane_gives_back_a_push_it_no_longer_needs() {
        let slope = Vec3::new(-1.0, 1.0, 0.0).normalize();
        let x = solve(Vec3::new(1.0, -1.0, 0.0), &[plane(Vec3::Y, 0.0), plane(slope, 0.0)]);
        // Closest point of {y ≥ 0, y ≥ x} to (1, −1): on y = x at (0, 0).
        assert!(x.length() < 1e-5, "{x}");
    }

    /// An acute wedge (walls 20° apart): the ping-pong converges to its apex.
    #[test]
    fn an_acute_wedge_converges_to_its_apex() {
        let half = 10f32.to_radians();
        let a = Vec3::new(-half.sin(), 0.0, half.cos());
        let b = Vec3::new(-half.sin(), 0.0, -half.cos());
        let x = solve(Vec3::new(1.0, 0.0, 0.0), &[plane(a, 0.0), plane(b, 0.0)]);
        assert!(x.length() < 1e-4, "{x}");
    }

    /// Pushing up off a 30° slope keeps the horizontal position.
    #[test]
    fn pushing_up_keeps_the_horizontal_position() {
        let normal = Vec3::new(-0.5, 3f32.sqrt() / 2.0, 0.0);
        let constraint = PlaneConstraint { normal, push: push_direction(normal, Vec3::Y, true), bound: 0.0 };
        let x = solve(Vec3::new(1.0, 0.0, 0.0), &[constraint]);
        assert!((x - Vec3::new(1.0, 1.0 / 3f32.sqrt(), 0.0)).length() < 1e-6, "{x}");
    }
}
