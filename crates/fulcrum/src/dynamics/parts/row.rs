//! One row of a constraint Jacobian, the unit every joint part is made of.
//!
//! A scalar constraint C(x) = 0 between bodies A and B has the velocity
//!
//! ```text
//! Ċ = J v = l_A·v_A + a_A·ω_A + l_B·v_B + a_B·ω_B
//! ```
//!
//! and an impulse λ along the row changes the velocities by M⁻¹ Jᵀ λ:
//! v_A += m_A⁻¹ l_A λ, ω_A += I_A⁻¹ a_A λ (and the same for B). Two rows i, j couple through
//! K_ij = J_i M⁻¹ J_jᵀ; a single row's effective mass is 1 / K_ii.
//!
//! Two shapes of row cover every joint:
//! - linear, along a unit `axis` between two points: C = axis·(p_B − p_A),
//!   l_A = −axis, a_A = −(r_A × axis), l_B = axis, a_B = r_B × axis, with r the offsets of
//!   the points from the centres of mass. When the axis turns with body A, r_A is taken to
//!   p_B (r_A + d) so that the axis's own rotation is part of the row.
//! - angular, about a unit `axis`: C = angle, l = 0, a_A = −axis, a_B = axis.

use crate::dynamics::solver_body::SolverBody;
use crate::math::{Vec3, Vec3A};

/// A Jacobian row: the linear and angular parts for each body.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct JacobianRow {
    /// l_A, multiplies v_A.
    pub linear_a: Vec3,
    /// a_A, multiplies ω_A.
    pub angular_a: Vec3,
    /// l_B, multiplies v_B.
    pub linear_b: Vec3,
    /// a_B, multiplies ω_B.
    pub angular_b: Vec3,
}

impl JacobianRow {
    /// A linear row along `axis` between points at `r_a` and `r_b` from the centres of mass.
    #[inline]
    pub fn linear(axis: Vec3, r_a: Vec3, r_b: Vec3) -> Self {
        Self { linear_a: -axis, angular_a: -r_a.cross(axis), linear_b: axis, angular_b: r_b.cross(axis) }
    }

    /// An angular row about `axis`.
    #[inline]
    pub fn angular(axis: Vec3) -> Self {
        Self { linear_a: Vec3::ZERO, angular_a: -axis, linear_b: Vec3::ZERO, angular_b: axis }
    }

    /// Ċ = J v at the bodies' current velocities.
    #[inline]
    pub fn velocity(&self, a: &SolverBody, b: &SolverBody) -> f32 {
        self.linear_a.dot(a.linear_velocity.into())
            + self.angular_a.dot(a.angular_velocity.into())
            + self.linear_b.dot(b.linear_velocity.into())
            + self.angular_b.dot(b.angular_velocity.into())
    }

    /// Applies the impulse `lambda` along the row: v += M⁻¹ Jᵀ λ.
    #[inline]
    pub fn apply(&self, a: &mut SolverBody, b: &mut SolverBody, lambda: f32) {
        a.linear_velocity += Vec3A::from(self.linear_a * (a.inv_mass * lambda));
        a.angular_velocity += Vec3A::from(a.inv_inertia * (self.angular_a * lambda));
        b.linear_velocity += Vec3A::from(self.linear_b * (b.inv_mass * lambda));
        b.angular_velocity += Vec3A::from(b.inv_inertia * (self.angular_b * lambda));
    }

    /// M⁻¹ Jᵀ: the velocity change per unit impulse, as a row (linear parts scaled by 1/m,
    /// angular parts by I⁻¹).
    #[inline]
    pub fn weighted(&self, a: &SolverBody, b: &SolverBody) -> JacobianRow {
        JacobianRow {
            linear_a: self.linear_a * a.inv_mass,
            angular_a: a.inv_inertia * self.angular_a,
            linear_b: self.linear_b * b.inv_mass,
            angular_b: b.inv_inertia * self.angular_b,
        }
    }

    /// J_i · w for a weighted row w = M⁻¹ J_jᵀ: the coupling K_ij.
    #[inline]
    pub fn dot(&self, w: &JacobianRow) -> f32 {
        self.linear_a.dot(w.linear_a)
            + self.angular_a.dot(w.angular_a)
            + self.linear_b.dot(w.linear_b)
            + self.angular_b.dot(w.angular_b)
    }

    /// self + scale · other, part by part.
    #[inline]
    pub fn add_scaled(&self, other: &JacobianRow, scale: f32) -> JacobianRow {
        JacobianRow {
            linear_a: self.linear_a + other.linear_a * scale,
            angular_a: self.angular_a + other.angular_a * scale,
            linear_b: self.linear_b + other.linear_b * scale,
            angular_b: self.angular_b + other.angular_b * scale,
        }
    }

    /// The row with both bodies' parts negated.
    #[inline]
    pub fn negated(&self) -> JacobianRow {
        JacobianRow {
            linear_a: -self.linear_a,
            angular_a: -self.angular_a,
            linear_b: -self.linear_b,
            angular_b: -self.angular_b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Mat3, Quat};

    fn body(inv_mass: f32, v: Vec3, w: Vec3) -> SolverBody {
        let r = Mat3::from_quat(Quat::from_rotation_y(0.4));
        let inv_inertia = r * Mat3::from_diagonal(Vec3::new(2.0, 3.0, 5.0)) * r.transpose();
        SolverBody {
            linear_velocity: v.into(),
            angular_velocity: w.into(),
            inv_mass,
            inv_inertia,
            ..SolverBody::STATIC
        }
    }

    /// The linear row's velocity is the axis component of the relative velocity of the two
    /// material points, computed the long way.
    #[test]
    fn linear_row_measures_point_velocity() {
        let a = body(0.5, Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.3, -0.2, 0.1));
        let b = body(0.25, Vec3::new(-1.0, 0.5, 0.0), Vec3::new(-0.4, 0.6, 0.2));
        let (r_a, r_b, axis) = (Vec3::new(0.2, 0.1, -0.3), Vec3::new(-0.1, 0.4, 0.2), Vec3::new(0.6, 0.8, 0.0));
        let row = JacobianRow::linear(axis, r_a, r_b);
        let expected = axis.dot(b.velocity_at(r_b) - a.velocity_at(r_a));
        assert!((row.velocity(&a, &b) - expected).abs() < 1e-6);
    }

    /// After applying λ = −Ċ/K the row's velocity is zero (K from `weighted`/`dot`).
    #[test]
    fn effective_mass_stops_the_row() {
        let mut a = body(0.5, Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.3, -0.2, 0.1));
        let mut b = body(0.25, Vec3::new(-1.0, 0.5, 0.0), Vec3::new(-0.4, 0.6, 0.2));
        for row in [
            JacobianRow::linear(Vec3::Y, Vec3::new(0.2, 0.1, -0.3), Vec3::new(-0.1, 0.4, 0.2)),
            JacobianRow::angular(Vec3::new(0.0, 0.6, 0.8)),
        ] {
            let k = row.dot(&row.weighted(&a, &b));
            let lambda = -row.velocity(&a, &b) / k;
            row.apply(&mut a, &mut b, lambda);
            assert!(row.velocity(&a, &b).abs() < 1e-5);
        }
    }
}
