//! Axis-aligned boxes and rays, shared by shapes, the broad phase and queries.

use crate::math::{Pose, Vec3, Vec3A};

/// An axis-aligned bounding box in world (or local) space.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// A box from its corners.
    #[inline]
    pub fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// An empty box (min = +inf, max = -inf) that any `union` replaces.
    pub const EMPTY: Aabb = Aabb { min: Vec3::splat(f32::INFINITY), max: Vec3::splat(f32::NEG_INFINITY) };

    /// A box around a centre with half extents.
    #[inline]
    pub fn from_center_half_extents(center: Vec3, half_extents: Vec3) -> Self {
        Self { min: center - half_extents, max: center + half_extents }
    }

    /// The world box of a local box with half extents `h` at `pose` (exact for boxes).
    #[inline]
    pub fn of_oriented_box(pose: &Pose, h: Vec3) -> Self {
        let m = crate::math::Mat3::from_quat(pose.rotation);
        let extent = m.x_axis.abs() * h.x + m.y_axis.abs() * h.y + m.z_axis.abs() * h.z;
        Self::from_center_half_extents(pose.position, extent)
    }

    /// The world box of this local box when its frame sits at `pose`: the box of the rotated
    /// box around the moved centre (exact for the local box, not for what it holds).
    #[inline]
    pub fn transformed(&self, pose: &Pose) -> Aabb {
        Self::of_oriented_box(&Pose::new(pose.transform_point(self.center()), pose.rotation), self.half_extents())
    }

    /// The smallest box holding the points.
    pub fn of_points(points: &[Vec3]) -> Aabb {
        points.iter().fold(Aabb::EMPTY, |b, &p| Aabb { min: b.min.min(p), max: b.max.max(p) })
    }

    /// True when the two boxes overlap (touching counts).
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        // One SIMD compare per side and one branch: tree walks test boxes whose outcome the
        // branch predictor cannot guess, so six short-circuit branches cost more than the work.
        let below = Vec3A::from(self.min).cmple(Vec3A::from(other.max));
        let above = Vec3A::from(other.min).cmple(Vec3A::from(self.max));
        (below & above).all()
    }

    /// True when `other` lies inside this box.
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
    }

    /// The smallest box holding both.
    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The box grown by `margin` on every side.
    #[inline]
    pub fn expanded(&self, margin: f32) -> Aabb {
        Aabb { min: self.min - Vec3::splat(margin), max: self.max + Vec3::splat(margin) }
    }

    /// Centre point.
    #[inline]
    pub fn center(&self) -> Vec3 {
        0.5 * (self.min + self.max)
    }

    /// Half extents.
    #[inline]
    pub fn half_extents(&self) -> Vec3 {
        0.5 * (self.max - self.min)
    }

    /// Surface area (the cost measure of the AABB tree).
    #[inline]
    pub fn surface_area(&self) -> f32 {
        let d = self.max - self.min;
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    /// True when min and max are finite and ordered.
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && self.min.cmple(self.max).all()
    }

    /// Slab test: the entry parameter `t` in `[0, max_t]` of the ray `origin + t * dir`, if it
    /// hits. `inv_dir` is `1 / dir` per component (infinite for zero components).
    #[inline]
    pub fn ray_entry(&self, origin: Vec3, inv_dir: Vec3, max_t: f32) -> Option<f32> {
        let t1 = (self.min - origin) * inv_dir;
        let t2 = (self.max - origin) * inv_dir;
        // NaN (0 * inf) appears when the origin lies on a slab plane of a zero direction: the
        // ray then stays inside that slab. (Taking min/max first would not do: f32::min
        // returns the other operand of a NaN, an infinity that can exclude the ray.)
        let on_plane = t1.is_nan_mask() | t2.is_nan_mask();
        let t_min = Vec3::select(on_plane, Vec3::NEG_INFINITY, t1.min(t2));
        let t_max = Vec3::select(on_plane, Vec3::INFINITY, t1.max(t2));
        let enter = t_min.max_element().max(0.0);
        let exit = t_max.min_element().min(max_t);
        (enter <= exit).then_some(enter)
    }
}

/// A ray `origin + t * direction`, `t >= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start point.
    pub origin: Vec3,
    /// Direction (need not be unit length; `t` is measured in multiples of it).
    pub direction: Vec3,
}

impl Ray {
    /// A ray from an origin along a direction.
    pub fn new(origin: Vec3, direction: Vec3) -> Self {
        Self { origin, direction }
    }

    /// The point at parameter `t`.
    #[inline]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + t * self.direction
    }

    /// The same ray seen from the local frame of `pose`.
    #[inline]
    pub fn to_local(&self, pose: &Pose) -> Ray {
        Ray {
            origin: pose.inverse_transform_point(self.origin),
            direction: pose.inverse_transform_vector(self.direction),
        }
    }
}

/// Where a ray hits a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Ray parameter of the hit (distance in units of the ray's direction length).
    pub t: f32,
    /// Outward unit surface normal at the hit, in the frame the ray was given in. A ray that
    /// starts inside a solid shape hits at `t = 0` with the normal `-direction` normalised.
    pub normal: Vec3,
}

impl RayHit {
    /// The hit with its normal rotated from a shape's local frame into world space.
    #[inline]
    pub fn to_world(self, pose: &Pose) -> RayHit {
        RayHit { t: self.t, normal: pose.transform_vector(self.normal) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_slab() {
        let b = Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0));
        let o = Vec3::new(-5.0, 0.0, 0.0);
        let d = Vec3::X;
        assert_eq!(b.ray_entry(o, d.recip(), 100.0), Some(4.0));
        assert_eq!(b.ray_entry(o, d.recip(), 3.0), None);
        let o2 = Vec3::new(-5.0, 2.0, 0.0);
        assert_eq!(b.ray_entry(o2, d.recip(), 100.0), None);
        // A ray in the plane of a face, parallel to it, enters through the box's side.
        let on_face = Vec3::new(-5.0, 0.3, 1.0);
        assert_eq!(b.ray_entry(on_face, d.recip(), 100.0), Some(4.0));
        assert_eq!(b.ray_entry(Vec3::new(0.2, 5.0, -1.0), (-Vec3::Y).recip(), 100.0), Some(4.0));
        assert_eq!(b.ray_entry(Vec3::new(0.2, 5.0, -1.001), (-Vec3::Y).recip(), 100.0), None);
    }
}
