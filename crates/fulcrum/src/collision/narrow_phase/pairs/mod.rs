//! Dedicated routines for pairs with a closed-form answer, and the segment geometry they share.
//!
//! Every routine writes a manifold whose normal points from A to B, with points down to
//! `margin` metres apart.

pub mod capsule_box;
pub mod capsule_capsule;
pub mod plane;
pub mod sphere_box;
pub mod sphere_capsule;
pub mod sphere_cylinder;
pub mod sphere_sphere;

use crate::collision::manifold::Manifold;
use crate::math::{orthonormal_basis, Pose, Vec3};

/// Parameter `t ∈ [0, 1]` of the point of segment `a b` closest to `p`:
/// `t = clamp((p - a)·(b - a) / |b - a|², 0, 1)` (0 for a degenerate segment).
#[inline]
pub fn segment_parameter(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let length_squared = ab.length_squared();
    if length_squared > 0.0 {
        ((p - a).dot(ab) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The point of segment `a b` closest to `p`.
#[inline]
pub fn closest_point_on_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    a + segment_parameter(p, a, b) * (b - a)
}

/// Closest points of segments `p1 q1` and `p2 q2`: parameters `(s, t)` and the points
/// `c1 = p1 + s d1`, `c2 = p2 + t d2` (`d1 = q1 - p1`, `d2 = q2 - p2`).
///
/// Minimising `|c1 - c2|²` gives the 2x2 system `a s - b t = -c`, `b s - e t = -f` with
/// `a = d1·d1`, `b = d1·d2`, `e = d2·d2`, `r = p1 - p2`, `c = d1·r`, `f = d2·r`, so
/// `s = (b f - c e) / (a e - b²)`. `s` is clamped to `[0, 1]`, then `t = (b s + f) / e`; when
/// `t` leaves `[0, 1]` it is clamped and `s` recomputed for that `t`. Parallel segments
/// (`a e - b² = 0`) start from `s = 0`.
pub fn closest_points_segments(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (f32, f32, Vec3, Vec3) {
    const EPS: f32 = 1e-12;
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (s, t) = if a <= EPS && e <= EPS {
        (0.0, 0.0)
    } else if a <= EPS {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= EPS {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denominator = a * e - b * b;
            let s = if denominator > EPS * a * e { ((b * f - c * e) / denominator).clamp(0.0, 1.0) } else { 0.0 };
            let t = (b * s + f) / e;
            if t < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s, t)
            }
        }
    };
    (s, t, p1 + s * d1, p2 + t * d2)
}

/// Contact between two balls: centre `center_a` with `radius_a` and `center_b` with
/// `radius_b` (the closest core points of spheres and capsules).
///
/// `n = (c_b - c_a) / |c_b - c_a|` (or `fallback_normal` when the centres coincide),
/// separation `|c_b - c_a| - r_a - r_b`, position midway between the surfaces
/// `½ ((c_a + r_a n) + (c_b - r_b n))`. Writes nothing when the separation exceeds `margin`.
#[allow(clippy::too_many_arguments)]
pub fn ball_contact(
    center_a: Vec3,
    radius_a: f32,
    center_b: Vec3,
    radius_b: f32,
    fallback_normal: Vec3,
    margin: f32,
    id: u32,
    out: &mut Manifold,
) {
    out.clear();
    let offset = center_b - center_a;
    let distance = offset.length();
    let separation = distance - radius_a - radius_b;
    if separation > margin || separation.is_nan() {
        return;
    }
    out.normal = if distance > 1e-9 { offset / distance } else { fallback_normal };
    let surface_a = center_a + radius_a * out.normal;
    let surface_b = center_b - radius_b * out.normal;
    out.push(0.5 * (surface_a + surface_b), separation, id);
}

/// Writes the contact of a sphere (centre `centre` and `radius`, in the frame of `pose`) with
/// a shape found at (normal n from the sphere to the shape, separation, the shape's surface
/// point q, feature id), all in that frame: midway between the sphere's surface point
/// `c + r n` and q, moved to the world. Writes nothing when the separation exceeds `margin`.
pub fn push_sphere_contact(
    pose: &Pose,
    centre: Vec3,
    radius: f32,
    (normal, separation, surface, id): (Vec3, f32, Vec3, u32),
    margin: f32,
    out: &mut Manifold,
) {
    if separation > margin || separation.is_nan() {
        return;
    }
    let sphere_surface = centre + radius * normal;
    out.normal = pose.transform_vector(normal);
    out.push(pose.transform_point(0.5 * (sphere_surface + surface)), separation, id);
}

/// A unit vector perpendicular to `axis` (any non-zero vector).
#[inline]
pub fn perpendicular(axis: Vec3) -> Vec3 {
    orthonormal_basis(axis.normalize_or(Vec3::Y)).0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute-force closest distance of two segments by dense sampling plus local refinement.
    fn sampled_distance(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> f32 {
        let mut best = f32::INFINITY;
        let steps = 400;
        for i in 0..=steps {
            let c1 = p1 + (q1 - p1) * (i as f32 / steps as f32);
            let c2 = closest_point_on_segment(c1, p2, q2);
            best = best.min((c1 - c2).length());
        }
        best
    }

    #[test]
    fn segment_closest_points_match_sampling() {
        let cases = [
            (Vec3::ZERO, Vec3::X, Vec3::new(0.5, 1.0, -1.0), Vec3::new(0.5, 1.0, 1.0)),
            (Vec3::ZERO, Vec3::X, Vec3::new(2.0, 0.5, 0.0), Vec3::new(3.0, 0.5, 0.0)),
            (Vec3::ZERO, Vec3::X, Vec3::new(0.2, 0.3, 0.0), Vec3::new(0.8, 0.3, 0.0)),
            (Vec3::ZERO, Vec3::ZERO, Vec3::new(-1.0, 1.0, 0.0), Vec3::new(1.0, 1.0, 0.0)),
            (Vec3::new(0.0, -1.0, 0.3), Vec3::new(0.1, 1.0, -0.2), Vec3::X, Vec3::new(1.0, 2.0, 1.0)),
        ];
        for (p1, q1, p2, q2) in cases {
            let (s, t, c1, c2) = closest_points_segments(p1, q1, p2, q2);
            assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t));
            assert!((c1 - (p1 + s * (q1 - p1))).length() < 1e-6);
            let reference = sampled_distance(p1, q1, p2, q2);
            // Sampling only overestimates, by at most (step length)·(slope) = 1/400 here.
            let distance = (c1 - c2).length();
            assert!(distance <= reference + 1e-5, "{distance} vs {reference}");
            assert!(distance >= reference - 3e-3, "{distance} vs {reference}");
        }
    }
}
