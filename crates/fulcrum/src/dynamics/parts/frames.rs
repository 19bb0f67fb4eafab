//! Where a joint's two frames are. Each joint has a frame on each body (an anchor point and
//! an orientation whose X axis is the joint axis); at rest the two frames coincide.
//!
//! At the start of a step the solver records the anchors' offsets from the centres of mass
//! (r_A, r_B), the frames' world rotations and the vector between the centres (c_B − c_A).
//! During the substeps every part recomputes the frames from the bodies' accumulated motion
//! (Δp, Δq) instead of caching anything stale:
//!
//! ```text
//! r_A = Δq_A r_A0        q_A = Δq_A q_A0
//! d   = (c_B − c_A)₀ + Δp_B − Δp_A + r_B − r_A      (anchor B − anchor A)
//! ```

use crate::dynamics::solver_body::SolverBody;
use crate::math::{Quat, Vec3};

/// The frames at the start of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StartFrames {
    /// Anchor A minus A's centre of mass, world axes, metres.
    pub r_a: Vec3,
    /// Anchor B minus B's centre of mass.
    pub r_b: Vec3,
    /// Centre of B minus centre of A.
    pub centers: Vec3,
    /// World rotation of A's joint frame.
    pub rotation_a: Quat,
    /// World rotation of B's joint frame.
    pub rotation_b: Quat,
}

impl Default for StartFrames {
    fn default() -> Self {
        Self {
            r_a: Vec3::ZERO,
            r_b: Vec3::ZERO,
            centers: Vec3::ZERO,
            rotation_a: Quat::IDENTITY,
            rotation_b: Quat::IDENTITY,
        }
    }
}

/// The frames at the bodies' current (substep) positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Frames {
    /// Anchor A minus A's centre of mass, world axes, metres.
    pub r_a: Vec3,
    /// Anchor B minus B's centre of mass.
    pub r_b: Vec3,
    /// Anchor B minus anchor A.
    pub separation: Vec3,
    /// World rotation of A's joint frame.
    pub rotation_a: Quat,
    /// World rotation of B's joint frame.
    pub rotation_b: Quat,
}

impl StartFrames {
    /// The frames moved by the bodies' motion since the start of the step.
    #[inline]
    pub fn current(&self, a: &SolverBody, b: &SolverBody) -> Frames {
        let r_a = a.delta_rotation * self.r_a;
        let r_b = b.delta_rotation * self.r_b;
        let moved = Vec3::from(b.delta_position - a.delta_position);
        Frames {
            r_a,
            r_b,
            separation: self.centers + moved + r_b - r_a,
            rotation_a: a.delta_rotation * self.rotation_a,
            rotation_b: b.delta_rotation * self.rotation_b,
        }
    }
}

impl Frames {
    /// The joint axis (X of A's frame), world.
    #[inline]
    pub fn axis_a(&self) -> Vec3 {
        self.rotation_a * Vec3::X
    }

    /// X of B's frame, world.
    #[inline]
    pub fn axis_b(&self) -> Vec3 {
        self.rotation_b * Vec3::X
    }

    /// The X, Y and Z axes of A's frame, world.
    #[inline]
    pub fn basis_a(&self) -> [Vec3; 3] {
        [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| self.rotation_a * axis)
    }

    /// B's frame relative to A's: q_A⁻¹ q_B (identity at rest).
    #[inline]
    pub fn relative_rotation(&self) -> Quat {
        self.rotation_a.conjugate() * self.rotation_b
    }

    /// The rotation of B's frame relative to A's about the joint axis, radians in (−π, π]:
    /// the twist part of the relative rotation.
    #[inline]
    pub fn twist_angle(&self) -> f32 {
        let q = self.relative_rotation();
        let angle = 2.0 * q.x.atan2(q.w);
        wrap_angle(angle)
    }
}

/// `angle` wrapped into (−π, π].
#[inline]
pub(crate) fn wrap_angle(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    let wrapped = angle.rem_euclid(TAU);
    if wrapped > PI {
        wrapped - TAU
    } else {
        wrapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twist_angle_of_a_turn_about_the_axis() {
        for angle in [-3.0f32, -1.0, 0.0, 0.5, 2.9] {
            let frames = Frames {
                r_a: Vec3::ZERO,
                r_b: Vec3::ZERO,
                separation: Vec3::ZERO,
                rotation_a: Quat::from_rotation_z(0.3),
                rotation_b: Quat::from_rotation_z(0.3) * Quat::from_rotation_x(angle),
            };
            assert!((frames.twist_angle() - angle).abs() < 1e-5, "{angle}: {}", frames.twist_angle());
        }
        assert!((wrap_angle(3.5) - (3.5 - std::f32::consts::TAU)).abs() < 1e-6);
    }
}
