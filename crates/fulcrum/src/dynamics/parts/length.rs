//! Length part: the distance between two anchor points and its Jacobian row, shared by the
//! distance joint (between the two anchors) and the pulley (from each anchor to a fixed
//! world point).
//!
//! ```text
//! L = |d|,   u = d / L                    d = p_B − p_A
//! L̇ = u · ḋ = u·(v_B + ω_B × r_B − v_A − ω_A × r_A)
//! J = [ −u, −(r_A × u), u, r_B × u ]      (the linear row along u)
//! ```
//! The row is exact: a turn of u does not change L to first order. When the anchors
//! (nearly) coincide, u is undefined; a fixed fallback direction is used so the row stays
//! finite (any unit vector is a valid direction of |d| at d = 0).

use super::frames::Frames;
use super::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::Vec3;

/// Below this length (metres) the direction is not taken from d.
pub(crate) const MIN_LENGTH: f32 = 1e-6;

/// Unit direction and length of `d`; `fallback` (unit or zero) when d is shorter than
/// [`MIN_LENGTH`] or not finite.
#[inline]
pub(crate) fn direction_and_length(d: Vec3, fallback: Vec3) -> (Vec3, f32) {
    let length = d.length();
    if length > MIN_LENGTH && length.is_finite() {
        (d / length, length)
    } else {
        (fallback, length.min(MIN_LENGTH))
    }
}

/// The row of L = |p_B − p_A| between the joint's anchors and L, with the world X axis as
/// the direction of coincident anchors.
#[inline]
pub(crate) fn length_row(frames: &Frames) -> (JacobianRow, f32) {
    let (u, length) = direction_and_length(frames.separation, Vec3::X);
    (JacobianRow::linear(u, frames.r_a, frames.r_b), length)
}

/// The world position of an anchor at offset `r` (current) from a body's centre of mass,
/// from the centre at the start of the step and the body's motion since.
#[inline]
pub(crate) fn world_anchor(start_center: Vec3, body: &SolverBody, r: Vec3) -> Vec3 {
    start_center + Vec3::from(body.delta_position) + r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coincident_anchors_give_a_finite_direction() {
        assert_eq!(direction_and_length(Vec3::ZERO, Vec3::X), (Vec3::X, 0.0));
        let (u, length) = direction_and_length(Vec3::new(0.0, 3.0, 4.0), Vec3::X);
        assert!((length - 5.0).abs() < 1e-6 && (u - Vec3::new(0.0, 0.6, 0.8)).length() < 1e-6);
        let (u, _) = direction_and_length(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ZERO);
        assert_eq!(u, Vec3::ZERO);
    }
}
