//! Mass properties: mass, centre of mass and inertia tensor, and how they combine.
//!
//! The inertia tensor is always stored about the centre of mass, in the frame the properties
//! are expressed in. Moving it to another point uses the parallel-axis theorem
//! `I_o = I_c + m (|d|² E - d dᵀ)` with `d` the offset from `o` to the centre of mass.

use crate::math::{Mat3, Pose, Vec3};

/// Mass (kg), centre of mass (m) and inertia about the centre of mass (kg·m²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Total mass in kilograms.
    pub mass: f32,
    /// Centre of mass in the frame the properties are expressed in.
    pub center: Vec3,
    /// Inertia tensor about `center`, in the same frame's axes.
    pub inertia: Mat3,
}

impl Default for MassProperties {
    fn default() -> Self {
        Self::ZERO
    }
}

/// `m (|d|² E - d dᵀ)`: the inertia of a point mass `m` at offset `d`.
#[inline]
pub fn point_mass_inertia(mass: f32, d: Vec3) -> Mat3 {
    let d2 = d.length_squared();
    Mat3::from_diagonal(Vec3::splat(mass * d2)) - Mat3::from_cols(d * d.x, d * d.y, d * d.z) * mass
}

impl MassProperties {
    /// No mass at all.
    pub const ZERO: MassProperties = MassProperties { mass: 0.0, center: Vec3::ZERO, inertia: Mat3::ZERO };

    /// Properties with a diagonal inertia at `center`.
    pub fn new(mass: f32, center: Vec3, principal_inertia: Vec3) -> Self {
        Self { mass, center, inertia: Mat3::from_diagonal(principal_inertia) }
    }

    /// The same properties expressed in the parent frame of `pose` (the shape sits at `pose`).
    pub fn transformed(&self, pose: &Pose) -> MassProperties {
        let r = Mat3::from_quat(pose.rotation);
        MassProperties {
            mass: self.mass,
            center: pose.transform_point(self.center),
            inertia: r * self.inertia * r.transpose(),
        }
    }

    /// Inertia about an arbitrary point `origin` (parallel-axis theorem).
    pub fn inertia_about(&self, origin: Vec3) -> Mat3 {
        self.inertia + point_mass_inertia(self.mass, self.center - origin)
    }

    /// The sum of several bodies' properties (all in the same frame).
    pub fn combine(parts: &[MassProperties]) -> MassProperties {
        let mass: f32 = parts.iter().map(|p| p.mass).sum();
        if mass <= 0.0 {
            return MassProperties::ZERO;
        }
        let center = parts.iter().map(|p| p.center * p.mass).sum::<Vec3>() / mass;
        let inertia = parts.iter().fold(Mat3::ZERO, |acc, p| acc + p.inertia_about(center));
        MassProperties { mass, center, inertia }
    }

    /// Scales mass and inertia by `factor`, keeping the centre of mass.
    pub fn scaled(&self, factor: f32) -> MassProperties {
        MassProperties { mass: self.mass * factor, center: self.center, inertia: self.inertia * factor }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_point_masses_make_a_dumbbell() {
        let a = MassProperties::new(1.0, Vec3::new(-1.0, 0.0, 0.0), Vec3::ZERO);
        let b = MassProperties::new(1.0, Vec3::new(1.0, 0.0, 0.0), Vec3::ZERO);
        let c = MassProperties::combine(&[a, b]);
        assert_eq!(c.mass, 2.0);
        assert!(c.center.length() < 1e-6);
        // I = sum m d² about y and z, zero about x.
        assert!((c.inertia.y_axis.y - 2.0).abs() < 1e-6);
        assert!((c.inertia.z_axis.z - 2.0).abs() < 1e-6);
        assert!(c.inertia.x_axis.x.abs() < 1e-6);
    }
}
