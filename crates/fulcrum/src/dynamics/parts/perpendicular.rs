//! Perpendicular part: B's anchor stays on the line through A's anchor along A's axis (two
//! linear rows perpendicular to the axis), and the slide row along it.
//!
//! With a, b, c the X, Y, Z axes of A's frame (world, turning with A) and d = p_B − p_A:
//!
//! ```text
//! C = [ b·d, c·d ] = 0                      the anchor on A's line
//! x = a·d                                   the slide, free (a Dof runs on it)
//!
//! Ċ_1 = b·ḋ + ḃ·d,   ḋ = v_B + ω_B × r_B − v_A − ω_A × r_A,   ḃ = ω_A × b
//!     = b·(v_B − v_A) + ω_B·(r_B × b) − ω_A·((r_A + d) × b)
//! J_1 = [ −b, −(r_A + d) × b, b, r_B × b ]  (c and a likewise)
//! ```
//! So every row along an axis fixed in A is the linear row with r_A taken to B's anchor
//! (r_A + d): the axis's own turn with A is part of the row, which matters once the slide x
//! is long. K of the two rows is 2×2 and they are solved as one block.

use super::equality::{correct_positions, solve_equality, warm_start_rows, RowScales};
use super::frames::Frames;
use super::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::Vec3;

/// The accumulated impulses of the two rows (N·s per solver step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PerpendicularPart {
    pub impulse: [f32; 2],
}

/// The row along `axis` (a direction fixed in A, world) between the anchors, and the
/// position x = axis·d along it.
#[inline]
pub(crate) fn axis_row(frames: &Frames, axis: Vec3) -> (JacobianRow, f32) {
    let row = JacobianRow::linear(axis, frames.r_a + frames.separation, frames.r_b);
    (row, axis.dot(frames.separation))
}

/// The slide row along A's axis (X of A's frame) and the slide x.
#[inline]
pub(crate) fn slide_row(frames: &Frames) -> (JacobianRow, f32) {
    axis_row(frames, frames.axis_a())
}

/// The two rows perpendicular to A's axis and their errors at the current frames.
#[inline]
pub(crate) fn perpendicular_rows(frames: &Frames) -> ([JacobianRow; 2], [f32; 2]) {
    let [_, b, c] = frames.basis_a();
    let (row_b, error_b) = axis_row(frames, b);
    let (row_c, error_c) = axis_row(frames, c);
    ([row_b, row_c], [error_b, error_c])
}

impl PerpendicularPart {
    /// Applies the accumulated impulse.
    pub fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (rows, _) = perpendicular_rows(frames);
        warm_start_rows(&rows, &self.impulse, a, b);
    }

    /// One block solve with `scales`.
    pub fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, scales: RowScales) {
        let (rows, error) = perpendicular_rows(frames);
        solve_equality(&rows, &error, &mut self.impulse, a, b, scales);
    }

    /// Position correction (pgs + ngs).
    pub fn correct(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (rows, error) = perpendicular_rows(frames);
        correct_positions(&rows, &error, a, b, beta, max);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::math::{Mat3, Quat};

    /// A body moving at `v`, turning at `w` (only its velocities matter here).
    pub(crate) fn moving_body(v: Vec3, w: Vec3) -> SolverBody {
        SolverBody {
            linear_velocity: v.into(),
            angular_velocity: w.into(),
            inv_mass: 1.0,
            inv_inertia: Mat3::IDENTITY,
            ..SolverBody::STATIC
        }
    }

    /// The rows' velocities equal the rate of change of b·d and c·d (and the slide row of
    /// a·d) computed by moving both bodies a short time along their velocities, with the
    /// anchors far along the axis so the axis's turn matters.
    #[test]
    fn rows_match_finite_differences() {
        let (center_a, center_b) = (Vec3::new(0.2, -0.1, 0.3), Vec3::new(2.1, 0.4, -0.2));
        let (rot_a, rot_b) = (Quat::from_rotation_y(0.4), Quat::from_rotation_z(-0.3));
        let (local_a, local_b) = (Vec3::new(0.3, 0.1, 0.0), Vec3::new(-0.2, 0.0, 0.1));
        let frame_a = Quat::from_rotation_x(0.2);
        let (v_a, w_a) = (Vec3::new(0.3, -0.2, 0.5), Vec3::new(0.7, -0.4, 0.9));
        let (v_b, w_b) = (Vec3::new(-0.4, 0.1, 0.2), Vec3::new(-0.3, 0.6, 0.2));
        let frames_at = |t: f32| {
            let qa = Quat::from_scaled_axis(w_a * t) * rot_a;
            let qb = Quat::from_scaled_axis(w_b * t) * rot_b;
            let (ca, cb) = (center_a + v_a * t, center_b + v_b * t);
            let (r_a, r_b) = (qa * local_a, qb * local_b);
            Frames { r_a, r_b, separation: (cb + r_b) - (ca + r_a), rotation_a: qa * frame_a, rotation_b: qb }
        };
        let (a, b) = (moving_body(v_a, w_a), moving_body(v_b, w_b));
        let dt = 1e-3;
        let (before, after, now) = (frames_at(-dt), frames_at(dt), frames_at(0.0));
        let (rows, _) = perpendicular_rows(&now);
        let (e0, e1) = (perpendicular_rows(&before).1, perpendicular_rows(&after).1);
        for i in 0..2 {
            let rate = (e1[i] - e0[i]) / (2.0 * dt);
            assert!((rows[i].velocity(&a, &b) - rate).abs() < 2e-3, "row {i}: {} vs {rate}", rows[i].velocity(&a, &b));
        }
        let (slide, _) = slide_row(&now);
        let rate = (slide_row(&after).1 - slide_row(&before).1) / (2.0 * dt);
        assert!((slide.velocity(&a, &b) - rate).abs() < 2e-3, "slide: {} vs {rate}", slide.velocity(&a, &b));
    }
}
