//! Cone-twist part: the cone and twist limits of a ball joint (ragdoll shoulders, hips,
//! necks).
//!
//! The rotation of B's frame relative to A's, q = q_A⁻¹ q_B, splits into a twist about the
//! joint axis X followed by a swing about an axis perpendicular to X:
//!
//! ```text
//! q   = q_s q_t
//! q_t = normalize(q.w, q.x, 0, 0)          τ = 2 atan2(q.x, q.w)              twist
//! q_s = q q_t⁻¹  (q_s.x = 0)               σ = 2 atan2(|(q.y, q.z)|, |(q.w, q.x)|)   swing
//! ```
//!
//! The twist leaves X alone, so the swing alone carries A's axis a onto B's axis b (world):
//! σ is the angle between them, σ = atan2(|a × b|, a·b). Their rates, with ω = ω_B − ω_A:
//!
//! ```text
//! σ̇ = ω·n,   n = (a × b) / |a × b|                   (ȧ = ω_A × a, ḃ = ω_B × b in σ = acos a·b)
//! τ̇ = ω·u,   u = (a + b) / (1 + a·b)                 (from q̇ = ½ Ω q, Ω = ω in A's frame:
//!                                                      τ̇ = 2 (w ẋ − x ẇ) / (w² + x²))
//! ```
//!
//! So the swing is an angular row about n and the twist an angular row about u (not unit:
//! |u| = 1 at σ = 0, √2 at σ = π/2; it grows without bound as σ → π, where the twist is not
//! defined, and the row is dropped beyond [`MAX_TWIST_SWING_COS`]).
//!
//! Cone limit (circular, half-angle α): C = α − σ ≥ 0, one inequality row J = [0, n, 0, −n]
//! with λ ≥ 0, speculative like the limits of [`Dof`](super::dof::Dof): the joint may close
//! the gap within a step but not cross it. The twist limits are a [`Dof`] on τ along u.
//! (Jolt's SwingTwistConstraintPart takes an elliptic cone from the swing quaternion's y, z;
//! a circular cone needs only the angle between the axes.)

use super::dof::limit_impulse;
use super::equality::{FreeRow, PassContext};
use super::frames::Frames;
use super::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
#[cfg(test)]
use crate::math::Quat;
use crate::math::{orthonormal_basis, Vec3};

/// 1 + a·b below which the twist (and its row) is not defined: the swing is within about
/// 2.6° of a half turn.
const MAX_TWIST_SWING_COS: f32 = 1e-3;

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

/// The swing and twist of a joint's frames with the axes their rates are measured about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SwingTwist {
    /// σ, radians in [0, π].
    pub swing: f32,
    /// n: unit world axis the swing turns about (any axis perpendicular to a when σ is 0).
    pub swing_axis: Vec3,
    /// τ, radians in (−π, π].
    pub twist: f32,
    /// u (world), τ̇ = (ω_B − ω_A)·u; zero where the twist is not defined.
    pub twist_axis: Vec3,
}

impl SwingTwist {
    /// The swing and twist at the current frames.
    pub fn of(frames: &Frames) -> Self {
        let (a, b) = (frames.axis_a(), frames.axis_b());
        let cross = a.cross(b);
        let (sin, cos) = (cross.length(), a.dot(b));
        let swing_axis = if sin > 1e-6 { cross / sin } else { orthonormal_basis(a).0 };
        let twist_axis = if 1.0 + cos > MAX_TWIST_SWING_COS { (a + b) / (1.0 + cos) } else { Vec3::ZERO };
        Self { swing: sin.atan2(cos), swing_axis, twist: frames.twist_angle(), twist_axis }
    }

    /// The row of the cone limit (J = [0, n, 0, −n]: positive when the swing closes) and its
    /// gap α − σ.
    pub fn cone_row(&self, half_angle: f32) -> (JacobianRow, f32) {
        (JacobianRow::angular(-self.swing_axis), half_angle - self.swing)
    }

    /// The row of the twist (J = [0, −u, 0, u]).
    pub fn twist_row(&self) -> JacobianRow {
        JacobianRow::angular(self.twist_axis)
    }
}

/// A circular cone limit on the swing with its accumulated impulse (N·m·s per solver step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ConePart {
    /// α, radians.
    pub half_angle: f32,
    /// λ ≥ 0 along the cone row.
    pub impulse: f32,
}

impl ConePart {
    /// A cone of half-angle `half_angle`.
    pub fn new(half_angle: f32) -> Self {
        Self { half_angle, impulse: 0.0 }
    }

    /// Applies the accumulated impulse.
    pub fn warm_start(&self, angles: &SwingTwist, a: &mut SolverBody, b: &mut SolverBody) {
        angles.cone_row(self.half_angle).0.apply(a, b, self.impulse);
    }

    /// One pass along the cone row within the joint's equality rows (see [`FreeRow`]);
    /// returns the equality impulses that came with it.
    pub fn solve<const N: usize>(
        &mut self,
        angles: &SwingTwist,
        equality: &[JacobianRow; N],
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
    ) -> [f32; N] {
        let (row, gap) = angles.cone_row(self.half_angle);
        let free = FreeRow::new(&row, equality, a, b);
        let mut booked = [0.0; N];
        let k = free.row.dot(&free.row.weighted(a, b));
        if !(k > 0.0) {
            return booked;
        }
        let delta = limit_impulse(&free.row, a, b, 1.0 / k, gap, ctx, &mut self.impulse);
        free.row.apply(a, b, delta);
        free.book(delta, &mut booked);
        booked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(rotation_a: Quat, relative: Quat) -> Frames {
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
                let angles = SwingTwist::of(&frames(rotation_a, swing * twist));
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
            let start = frames(rotation_a, relative);
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
