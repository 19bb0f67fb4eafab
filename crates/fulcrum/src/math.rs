//! Math types: glam re-exports, [`Pose`] (a rigid transform) and small helpers.
//!
//! Conventions: right-handed, column vectors, SI units (metres, kilograms, seconds, radians).
//! Quaternions are unit quaternions `[x, y, z, w]`.

pub use glam::{Mat3, Quat, Vec3, Vec3A};

/// A rigid transform: a rotation followed by a translation, `x_world = rotation * x_local + position`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pose {
    /// Translation in metres.
    pub position: Vec3,
    /// Unit quaternion rotation.
    pub rotation: Quat,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The identity transform.
    pub const IDENTITY: Pose = Pose { position: Vec3::ZERO, rotation: Quat::IDENTITY };

    /// A pose from a position and a rotation.
    #[inline]
    pub fn new(position: Vec3, rotation: Quat) -> Self {
        Self { position, rotation }
    }

    /// A pure translation.
    #[inline]
    pub fn from_position(position: Vec3) -> Self {
        Self { position, rotation: Quat::IDENTITY }
    }

    /// Maps a point from local to world space.
    #[inline]
    pub fn transform_point(&self, local: Vec3) -> Vec3 {
        self.rotation * local + self.position
    }

    /// Rotates a direction from local to world space.
    #[inline]
    pub fn transform_vector(&self, local: Vec3) -> Vec3 {
        self.rotation * local
    }

    /// Maps a world point into this pose's local space.
    #[inline]
    pub fn inverse_transform_point(&self, world: Vec3) -> Vec3 {
        self.rotation.inverse() * (world - self.position)
    }

    /// Rotates a world direction into this pose's local space.
    #[inline]
    pub fn inverse_transform_vector(&self, world: Vec3) -> Vec3 {
        self.rotation.inverse() * world
    }

    /// The inverse transform.
    #[inline]
    pub fn inverse(&self) -> Pose {
        let inv = self.rotation.inverse();
        Pose { position: -(inv * self.position), rotation: inv }
    }

    /// Composition `self * other`: first `other`, then `self`.
    #[inline]
    pub fn mul_pose(&self, other: &Pose) -> Pose {
        Pose { position: self.transform_point(other.position), rotation: (self.rotation * other.rotation).normalize() }
    }

    /// The pose of `other` expressed in this pose's frame: `self⁻¹ * other`.
    #[inline]
    pub fn inv_mul_pose(&self, other: &Pose) -> Pose {
        let inv = self.rotation.inverse();
        Pose { position: inv * (other.position - self.position), rotation: (inv * other.rotation).normalize() }
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.position.is_finite() && self.rotation.is_finite()
    }
}

/// Index of the point furthest along `dir` by a linear scan; ties go to the lower index
/// (0 for an empty slice).
#[inline]
pub fn furthest_point(points: &[Vec3], dir: Vec3) -> usize {
    let mut best = 0;
    let mut best_dot = f32::NEG_INFINITY;
    for (i, v) in points.iter().enumerate() {
        let d = v.dot(dir);
        if d > best_dot {
            best_dot = d;
            best = i;
        }
    }
    best
}

/// The cross-product matrix: `skew(a) * b == a.cross(b)`.
#[inline]
pub fn skew(a: Vec3) -> Mat3 {
    Mat3::from_cols(Vec3::new(0.0, a.z, -a.y), Vec3::new(-a.z, 0.0, a.x), Vec3::new(a.y, -a.x, 0.0))
}

/// Two unit vectors that complete `n` (unit) into a right-handed orthonormal basis
/// `(t1, t2, n)` with `t1 × t2 = n`. Branch-free (Duff et al. 2017), deterministic.
#[inline]
pub fn orthonormal_basis(n: Vec3) -> (Vec3, Vec3) {
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    let t1 = Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
    let t2 = Vec3::new(b, sign + n.y * n.y * a, -n.y);
    (t1, t2)
}

/// Rotates the inertia tensor `local` (about the centre of mass, body axes) into world axes:
/// `R · I · Rᵀ`.
#[inline]
pub fn rotate_inertia(rotation: Mat3, local: Mat3) -> Mat3 {
    rotation * local * rotation.transpose()
}

/// Inverse of a symmetric positive semi-definite 3x3 matrix; singular directions get zero
/// (a body with locked rotation has a zero inverse inertia, not NaN).
pub fn inverse_or_zero(m: Mat3) -> Mat3 {
    let det = m.determinant();
    if det.is_finite() && det.abs() > 1e-30 {
        m.inverse()
    } else {
        Mat3::ZERO
    }
}

/// Integrates a rotation by the angular velocity `w` (rad/s) over `h` seconds:
/// `q' = normalize(q + h/2 · (w, 0) · q)`.
#[inline]
pub fn integrate_rotation(q: Quat, w: Vec3, h: f32) -> Quat {
    let half = 0.5 * h;
    let dq = Quat::from_xyzw(w.x * half, w.y * half, w.z * half, 0.0) * q;
    (q + dq).normalize()
}

/// True when all entries are finite.
#[inline]
pub fn mat3_is_finite(m: &Mat3) -> bool {
    m.x_axis.is_finite() && m.y_axis.is_finite() && m.z_axis.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basis_is_orthonormal_and_right_handed() {
        for n in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::Z, Vec3::new(0.3, -0.5, 0.8).normalize()] {
            let (t1, t2) = orthonormal_basis(n);
            assert!((t1.length() - 1.0).abs() < 1e-6);
            assert!((t2.length() - 1.0).abs() < 1e-6);
            assert!(t1.dot(n).abs() < 1e-6 && t2.dot(n).abs() < 1e-6 && t1.dot(t2).abs() < 1e-6);
            assert!((t1.cross(t2) - n).length() < 1e-5);
        }
    }

    #[test]
    fn pose_round_trip() {
        let p = Pose::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.7));
        let x = Vec3::new(-0.3, 0.2, 5.0);
        assert!((p.inverse_transform_point(p.transform_point(x)) - x).length() < 1e-5);
        let q = Pose::new(Vec3::new(0.5, 0.0, -1.0), Quat::from_rotation_x(0.3));
        let pq = p.mul_pose(&q);
        assert!((pq.transform_point(x) - p.transform_point(q.transform_point(x))).length() < 1e-5);
        let rel = p.inv_mul_pose(&pq);
        assert!((rel.transform_point(x) - q.transform_point(x)).length() < 1e-5);
    }

    #[test]
    fn skew_is_cross() {
        let a = Vec3::new(1.0, -2.0, 0.5);
        let b = Vec3::new(0.3, 0.7, -1.1);
        assert!((skew(a) * b - a.cross(b)).length() < 1e-6);
    }
}
