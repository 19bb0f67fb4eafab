//! Swing and twist of the relative rotation of a joint's frames, with the exact Jacobian rows
//! of their rates: the one decomposition the ball joint's cone and twist limits and the
//! six-DOF joint's three angles are read from.
//!
//! The relative rotation q = q_A⁻¹ q_B (A's frame) splits into a twist t about the joint axis
//! X followed by a swing s, the shortest arc that takes X to B's axis x = q X (components in
//! A's frame; a, b, c the axes of A's frame and a₂ = B's axis, world):
//!
//! ```text
//! q = s t
//! τ = 2 atan2(q_x, q_w)                                  twist angle
//! φ = atan2(|a × a₂|, a·a₂),   cos φ = x₁                swing angle
//! n = (a × a₂) / |a × a₂|                                swing axis (world)
//! σ = φ (X × x) / sin φ = k (0, −x₃, x₂),   k = φ / sin φ   the swing's rotation vector
//! ```
//!
//! Rates, with ω = ω_B − ω_A (ȧ = ω_A × a, ȧ₂ = ω_B × a₂; from q̇ = ½ Ω q for the twist):
//!
//! ```text
//! φ̇ = ω·n
//! τ̇ = ω·u,   u = (a + a₂) / (1 + a·a₂)
//! ```
//! u is not unit: |u| = 1 at φ = 0, √2 at φ = π/2, and it grows without bound as φ → π,
//! where the twist is not defined.
//!
//! The ball joint limits φ (a circular cone, `cone.rs`) and τ (a `Dof`) along n and u, and
//! drops the twist row within about 2.6° of a half-turn swing. The six-DOF joint reads three
//! angles, one about each axis of A's frame: θ_x = τ, θ_y = σ₂ = −k x₃, θ_z = σ₃ = k x₂. A
//! turn about one axis alone reads exactly as that angle on that axis, so locking two angles
//! leaves an exact hinge and a limit on one angle is a hinge limit. Their rows: the swing's
//! rotation about x has the rate −(X·(x × ẋ))/(1 + x₁) (its geometric phase), which leaves
//!
//! ```text
//! θ̇_x = ω·u
//! θ̇_y = −k ẋ₃ + x₃ g ẋ₁,   θ̇_z = k ẋ₂ − x₂ g ẋ₁,   g = k′/sin φ = (sin φ − φ cos φ)/sin³ φ
//! ẋᵢ = ω·(a₂ × eᵢ)
//! ```
//! so each row is angular, J = [0, −v, 0, v], with v the bracket above; at rest the three v
//! are a, b, c. g → 1/3 + 2φ²/15 for small φ (the series avoids the cancellation). The six-DOF
//! rows keep 1 + cos φ and sin φ above a small floor so they stay finite near φ = π, where
//! the angles no longer hold.

use super::frames::Frames;
use super::row::JacobianRow;
#[cfg(test)]
use crate::math::Quat;
use crate::math::{orthonormal_basis, Vec3};

/// Below this swing angle, k and g use their series.
const SMALL_SWING: f32 = 0.05;

/// Smallest 1 + cos φ (and sin φ in k and g) the rows divide by: within about 2.6° of a
/// half-turn swing the twist is not defined.
const MIN_DENOMINATOR: f32 = 1e-3;

/// Splits `q` into (swing, twist) with q = swing · twist, the twist about X and the swing
/// about an axis in the YZ plane. A half-turn swing (q.w = q.x = 0) has no defined twist:
/// the twist is then the identity. (The twist angle of [`Frames::twist_angle`] is this
/// twist's angle; the tests compose and split rotations with it.)
#[cfg(test)]
pub(crate) fn decompose(q: Quat) -> (Quat, Quat) {
    let norm = (q.w * q.w + q.x * q.x).sqrt();
    if norm < 1e-9 {
        return (q, Quat::IDENTITY);
    }
    let twist = Quat::from_xyzw(q.x / norm, 0.0, 0.0, q.w / norm);
    (q * twist.conjugate(), twist)
}

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

/// The swing and twist of a joint's frames with the axes their rates are measured about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SwingTwist {
    /// φ, radians in [0, π].
    pub swing: f32,
    /// n: unit world axis the swing turns about (any axis perpendicular to a when φ is 0).
    pub swing_axis: Vec3,
    /// τ, radians in (−π, π].
    pub twist: f32,
    /// u (world), τ̇ = (ω_B − ω_A)·u, with 1 + cos φ kept above its floor.
    pub twist_axis: Vec3,
    /// |a × a₂| and a·a₂.
    sin: f32,
    cos: f32,
}

impl SwingTwist {
    /// The swing and twist at the current frames.
    pub fn of(frames: &Frames) -> Self {
        let (a, b) = (frames.axis_a(), frames.axis_b());
        let cross = a.cross(b);
        let (sin, cos) = (cross.length(), a.dot(b));
        let swing_axis = if sin > 1e-6 { cross / sin } else { orthonormal_basis(a).0 };
        let twist_axis = (a + b) / (1.0 + cos).max(MIN_DENOMINATOR);
        Self { swing: sin.atan2(cos), swing_axis, twist: frames.twist_angle(), twist_axis, sin, cos }
    }

    /// Is the twist defined (the swing short of a half turn by more than the floor)?
    fn twist_defined(&self) -> bool {
        1.0 + self.cos > MIN_DENOMINATOR
    }

    /// The row of a cone limit of half-angle α (J = [0, n, 0, −n]: positive when the swing
    /// closes) and its gap α − φ.
    pub fn cone_row(&self, half_angle: f32) -> (JacobianRow, f32) {
        (JacobianRow::angular(-self.swing_axis), half_angle - self.swing)
    }

    /// The row of the twist (J = [0, −u, 0, u]); zero where the twist is not defined.
    pub fn twist_row(&self) -> JacobianRow {
        if self.twist_defined() {
            JacobianRow::angular(self.twist_axis)
        } else {
            JacobianRow::default()
        }
    }

    /// The six-DOF joint's three angles (θ_x, θ_y, θ_z) of B's frame about A's axes and their
    /// rows.
    pub fn angle_rows(&self, frames: &Frames) -> ([JacobianRow; 3], [f32; 3]) {
        let [a, b, c] = frames.basis_a();
        let axis_b = frames.axis_b();
        let (x_b, x_c) = (axis_b.dot(b), axis_b.dot(c));
        let (k, g) = swing_factors(self.sin, self.cos);
        // ẋᵢ = ω·(a₂ × eᵢ).
        let (rate_a, rate_b, rate_c) = (axis_b.cross(a), axis_b.cross(b), axis_b.cross(c));
        let swing_b = -k * rate_c + x_c * g * rate_a;
        let swing_c = k * rate_b - x_b * g * rate_a;
        let angles = [self.twist, -k * x_c, k * x_b];
        ([self.twist_axis, swing_b, swing_c].map(JacobianRow::angular), angles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::parts::perpendicular::tests::moving_body;
    use crate::math::Quat;

    fn frames(rotation_a: Quat, rotation_b: Quat) -> Frames {
        Frames { r_a: Vec3::ZERO, r_b: Vec3::ZERO, separation: Vec3::ZERO, rotation_a, rotation_b }
    }

    fn angle_rows(frames: &Frames) -> ([JacobianRow; 3], [f32; 3]) {
        SwingTwist::of(frames).angle_rows(frames)
    }

    /// A turn about one axis of A's frame reads as that angle on that axis only.
    #[test]
    fn single_turns_read_exactly() {
        let base = Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.2);
        for angle in [-2.5f32, -0.6, 0.0, 0.3, 1.4, 2.8] {
            for axis in 0..3 {
                let unit = [Vec3::X, Vec3::Y, Vec3::Z][axis];
                let (_, angles) = angle_rows(&frames(base, base * Quat::from_axis_angle(unit, angle)));
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
            let (rows, _) = angle_rows(&at(0.0));
            let (before, after) = (angle_rows(&at(-dt)).1, angle_rows(&at(dt)).1);
            for i in 0..3 {
                let rate = (after[i] - before[i]) / (2.0 * dt);
                let velocity = rows[i].velocity(&a, &b);
                assert!((velocity - rate).abs() < 5e-3, "{relative:?} angle {i}: row {velocity} vs {rate}");
            }
        }
    }

    fn relative_frames(rotation_a: Quat, relative: Quat) -> Frames {
        Frames {
            r_a: Vec3::ZERO,
            r_b: Vec3::ZERO,
            separation: Vec3::ZERO,
            rotation_a,
            rotation_b: rotation_a * relative,
        }
    }

    /// A known swing (about an axis in the YZ plane) composed after a known twist is
    /// recovered by `decompose` and by `SwingTwist::of`, with the swing axis in world axes.
    #[test]
    fn compose_and_recover_swing_and_twist() {
        let rotation_a = Quat::from_rotation_z(0.4) * Quat::from_rotation_y(-1.1);
        for (swing_angle, direction) in [(0.0f32, 0.3f32), (0.3, 0.0), (1.2, 2.0), (2.5, -0.7), (3.0, 1.0)] {
            for twist_angle in [-2.8f32, -0.6, 0.0, 0.9, 3.0] {
                let swing_axis = Vec3::new(0.0, direction.cos(), direction.sin());
                let swing = Quat::from_axis_angle(swing_axis, swing_angle);
                let twist = Quat::from_rotation_x(twist_angle);
                let (s, t) = decompose(swing * twist);
                let same = |p: Quat, q: Quat| p.dot(q).abs() > 1.0 - 1e-6;
                assert!(same(s, swing) && same(t, twist), "{swing_angle} {twist_angle}: {s:?} {t:?}");
                let angles = SwingTwist::of(&relative_frames(rotation_a, swing * twist));
                let what = format!("swing {swing_angle} twist {twist_angle}: {angles:?}");
                assert!((angles.swing - swing_angle).abs() < 1e-3, "{what}");
                assert!((angles.twist - twist_angle).abs() < 1e-3, "{what}");
                if swing_angle > 0.0 {
                    assert!((angles.swing_axis - rotation_a * swing_axis).length() < 1e-4, "{what}");
                }
            }
        }
    }

    /// The rows measure the rates: turning B by a small ω·dt changes σ by (ω·n) dt and τ by
    /// (ω·u) dt (finite differences in several poses and directions).
    #[test]
    fn rows_measure_the_rates_of_swing_and_twist() {
        let rotation_a = Quat::from_rotation_y(0.7);
        let dt = 1e-3;
        for relative in [
            Quat::from_axis_angle(Vec3::new(0.0, 0.6, 0.8), 0.9) * Quat::from_rotation_x(0.5),
            Quat::from_axis_angle(Vec3::new(0.0, -1.0, 0.2).normalize(), 1.9) * Quat::from_rotation_x(-1.3),
        ] {
            let start = relative_frames(rotation_a, relative);
            let angles = SwingTwist::of(&start);
            for omega in [Vec3::X, Vec3::Y, Vec3::new(0.3, -0.5, 0.8)] {
                let turned = Frames { rotation_b: Quat::from_scaled_axis(omega * dt) * start.rotation_b, ..start };
                let moved = SwingTwist::of(&turned);
                let swing_rate = (moved.swing - angles.swing) / dt;
                let twist_rate = (moved.twist - angles.twist) / dt;
                assert!((swing_rate - omega.dot(angles.swing_axis)).abs() < 5e-3, "{swing_rate} {angles:?}");
                assert!((twist_rate - omega.dot(angles.twist_axis)).abs() < 5e-3, "{twist_rate} {angles:?}");
            }
        }
    }
}
