//! Swing-twist coordinates of the relative rotation: three angles, one about each axis of
//! A's frame, with their exact Jacobian rows. The six-DOF joint locks or limits each of them.
//!
//! The relative rotation q = q_A⁻¹ q_B (A's frame) splits into a twist t about X followed by
//! a swing s, the shortest arc that takes X to B's axis x = q X:
//!
//! ```text
//! q = s t,   cos φ = x₁,   sin φ = √(x₂² + x₃²)          (φ: the swing angle)
//! θ_x = twist angle of t = 2 atan2(q_x, q_w)
//! σ   = φ (X × x) / sin φ = k (0, −x₃, x₂),   k = φ / sin φ   (the swing's rotation vector)
//! θ_y = −k x₃,   θ_z = k x₂
//! ```
//! A turn about one axis alone reads exactly as that angle on that axis (a turn α about Z
//! gives θ_z = α, the other two zero), so locking two angles leaves an exact hinge, and a
//! limit on one angle is a hinge limit. The coordinates hold for swings below π: at φ = π
//! (B's axis opposite A's) the swing axis is undefined.
//!
//! Rows, with ω = ω_B − ω_A, a, b, c the axes of A's frame and a₂ B's axis (world), so that
//! ẋᵢ = ω·(a₂ × eᵢ): the shortest arc turns about x at the rate −(X·(x × ẋ))/(1 + x₁) (its
//! geometric phase), which leaves for the twist
//!
//! ```text
//! θ̇_x = ω·(a + a₂) / (1 + a·a₂)
//! θ̇_y = −k ẋ₃ + x₃ g ẋ₁,   θ̇_z = k ẋ₂ − x₂ g ẋ₁,   g = k′/sin φ = (sin φ − φ cos φ)/sin³ φ
//! ```
//! so each row is angular, J = [0, −u, 0, u], with u the bracket above; at rest the three u
//! are a, b, c. g → 1/3 + 2φ²/15 for small φ (the series avoids the cancellation).

use super::frames::Frames;
use super::row::JacobianRow;
use crate::math::Vec3;

/// Below this swing angle, k and g use their series.
const SMALL_SWING: f32 = 0.05;

/// Smallest 1 + cos φ and sin φ used near a swing of π, so the rows stay finite.
const MIN_DENOMINATOR: f32 = 1e-3;

/// k = φ / sin φ and g = k′ / sin φ of the swing angle.
#[inline]
fn swing_factors(sin: f32, cos: f32) -> (f32, f32) {
    let angle = sin.atan2(cos);
    if angle < SMALL_SWING {
        let square = angle * angle;
        return (1.0 + square / 6.0, 1.0 / 3.0 + 2.0 * square / 15.0);
    }
    let sin = sin.max(MIN_DENOMINATOR);
    (angle / sin, (sin - angle * cos) / (sin * sin * sin))
}

/// The three angles (θ_x, θ_y, θ_z) of B's frame relative to A's and their rows.
#[inline]
pub(crate) fn swing_twist_rows(frames: &Frames) -> ([JacobianRow; 3], [f32; 3]) {
    let [a, b, c] = frames.basis_a();
    let axis_b = frames.axis_b();
    let x = Vec3::new(axis_b.dot(a), axis_b.dot(b), axis_b.dot(c));
    let sin = (x.y * x.y + x.z * x.z).sqrt();
    let (k, g) = swing_factors(sin, x.x);
    // ẋᵢ = ω·(a₂ × eᵢ).
    let (rate_1, rate_2, rate_3) = (axis_b.cross(a), axis_b.cross(b), axis_b.cross(c));
    let twist = (a + axis_b) / (1.0 + x.x).max(MIN_DENOMINATOR);
    let swing_y = -k * rate_3 + x.z * g * rate_1;
    let swing_z = k * rate_2 - x.y * g * rate_1;
    let angles = [frames.twist_angle(), -k * x.z, k * x.y];
    ([twist, swing_y, swing_z].map(JacobianRow::angular), angles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::parts::perpendicular::tests::moving_body;
    use crate::math::Quat;

    fn frames(rotation_a: Quat, rotation_b: Quat) -> Frames {
        Frames { r_a: Vec3::ZERO, r_b: Vec3::ZERO, separation: Vec3::ZERO, rotation_a, rotation_b }
    }

    /// A turn about one axis of A's frame reads as that angle on that axis only.
    #[test]
    fn single_turns_read_exactly() {
        let base = Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.2);
        for angle in [-2.5f32, -0.6, 0.0, 0.3, 1.4, 2.8] {
            for axis in 0..3 {
                let unit = [Vec3::X, Vec3::Y, Vec3::Z][axis];
                let (_, angles) = swing_twist_rows(&frames(base, base * Quat::from_axis_angle(unit, angle)));
                for (i, &read) in angles.iter().enumerate() {
                    let expected = if i == axis { angle } else { 0.0 };
                    assert!((read - expected).abs() < 2e-4, "turn {angle} about {axis}: angle {i} reads {read}");
                }
            }
        }
    }

    /// The rows' velocities equal the angles' rates of change, by central differences, for
    /// relative rotations with large swings and twists.
    #[test]
    fn rows_match_finite_differences() {
        let rotation_a = Quat::from_rotation_z(0.3) * Quat::from_rotation_x(0.5);
        let (w_a, w_b) = (Vec3::new(0.4, -0.7, 0.2), Vec3::new(-0.5, 0.3, 0.9));
        let (a, b) = (moving_body(Vec3::ZERO, w_a), moving_body(Vec3::ZERO, w_b));
        let relatives = [
            Quat::IDENTITY,
            Quat::from_rotation_x(1.1),
            Quat::from_rotation_y(0.9) * Quat::from_rotation_x(-0.7),
            Quat::from_rotation_z(-1.6) * Quat::from_rotation_x(2.0),
            Quat::from_axis_angle(Vec3::new(0.0, 0.6, 0.8), 2.4),
            Quat::from_axis_angle(Vec3::new(0.0, 0.6, 0.8), 0.01) * Quat::from_rotation_x(0.3),
        ];
        let dt = 1e-3;
        for relative in relatives {
            let at = |t: f32| {
                let qa = Quat::from_scaled_axis(w_a * t) * rotation_a;
                let qb = Quat::from_scaled_axis(w_b * t) * rotation_a * relative;
                frames(qa, qb)
            };
            let (rows, _) = swing_twist_rows(&at(0.0));
            let (before, after) = (swing_twist_rows(&at(-dt)).1, swing_twist_rows(&at(dt)).1);
            for i in 0..3 {
                let rate = (after[i] - before[i]) / (2.0 * dt);
                let velocity = rows[i].velocity(&a, &b);
                assert!((velocity - rate).abs() < 5e-3, "{relative:?} angle {i}: row {velocity} vs {rate}");
            }
        }
    }
}
