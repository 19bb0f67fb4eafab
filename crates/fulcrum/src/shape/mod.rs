//! Collision shapes. Each shape lives in its own file and provides the same verbs: bounds at
//! a pose, a support mapping, mass properties at a density, and a ray cast. [`Shape`] is the
//! closed enum the engine dispatches on (one `match` per operation, no trait objects).

mod capsule;
mod cuboid;
mod cylinder;
pub mod hull;
mod hull_faces;
mod hull_mesh;
pub mod mass;
mod plane;
mod quickhull;
mod sphere;
#[cfg(test)]
mod test_support;

use std::sync::Arc;

pub use capsule::Capsule;
pub use cuboid::Cuboid;
pub use cylinder::Cylinder;
pub use hull::ConvexHull;
pub use mass::MassProperties;
pub use plane::Plane;
pub use sphere::Sphere;

use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// Which kind a shape is; also the row/column of the narrow phase's dispatch table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShapeKind {
    /// [`Sphere`]
    Sphere = 0,
    /// [`Capsule`]
    Capsule = 1,
    /// [`Cuboid`]
    Cuboid = 2,
    /// [`Cylinder`]
    Cylinder = 3,
    /// [`ConvexHull`]
    ConvexHull = 4,
    /// [`Plane`]
    Plane = 5,
}

/// A collision shape in its local frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A sphere.
    Sphere(Sphere),
    /// A box.
    Cuboid(Cuboid),
    /// A capsule along local Y.
    Capsule(Capsule),
    /// A cylinder along local Y.
    Cylinder(Cylinder),
    /// A convex polyhedron (shared, immutable).
    ConvexHull(Arc<ConvexHull>),
    /// An infinite plane (static bodies only).
    Plane(Plane),
}

impl Shape {
    /// A sphere of `radius` metres.
    pub fn sphere(radius: f32) -> crate::Result<Shape> {
        Ok(Shape::Sphere(Sphere::new(radius)?))
    }

    /// A box with half extents in metres.
    pub fn cuboid(half_extents: Vec3) -> crate::Result<Shape> {
        Ok(Shape::Cuboid(Cuboid::new(half_extents)?))
    }

    /// A capsule along local Y (`half_height` excludes the caps).
    pub fn capsule(half_height: f32, radius: f32) -> crate::Result<Shape> {
        Ok(Shape::Capsule(Capsule::new(half_height, radius)?))
    }

    /// A cylinder along local Y.
    pub fn cylinder(half_height: f32, radius: f32) -> crate::Result<Shape> {
        Ok(Shape::Cylinder(Cylinder::new(half_height, radius)?))
    }

    /// The convex hull of a point cloud.
    pub fn convex_hull(points: &[Vec3]) -> crate::Result<Shape> {
        Ok(Shape::ConvexHull(Arc::new(ConvexHull::from_points(points)?)))
    }

    /// The plane `normal·p = offset`, solid below.
    pub fn plane(normal: Vec3, offset: f32) -> crate::Result<Shape> {
        Ok(Shape::Plane(Plane::new(normal, offset)?))
    }

    /// The shape's kind.
    #[inline]
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Sphere(_) => ShapeKind::Sphere,
            Shape::Cuboid(_) => ShapeKind::Cuboid,
            Shape::Capsule(_) => ShapeKind::Capsule,
            Shape::Cylinder(_) => ShapeKind::Cylinder,
            Shape::ConvexHull(_) => ShapeKind::ConvexHull,
            Shape::Plane(_) => ShapeKind::Plane,
        }
    }

    /// World bounds when the shape sits at `pose`.
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        match self {
            Shape::Sphere(s) => s.aabb(pose),
            Shape::Cuboid(s) => s.aabb(pose),
            Shape::Capsule(s) => s.aabb(pose),
            Shape::Cylinder(s) => s.aabb(pose),
            Shape::ConvexHull(s) => s.aabb(pose),
            Shape::Plane(s) => s.aabb(pose),
        }
    }

    /// The point of the shape furthest along `dir`, local frame. Planes have none (they are
    /// unbounded) and return the origin; the narrow phase never asks a plane for support.
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        match self {
            Shape::Sphere(s) => s.support(dir),
            Shape::Cuboid(s) => s.support(dir),
            Shape::Capsule(s) => s.support(dir),
            Shape::Cylinder(s) => s.support(dir),
            Shape::ConvexHull(s) => s.support(dir),
            Shape::Plane(_) => Vec3::ZERO,
        }
    }

    /// Mass properties at uniform `density` (kg/m³), in the shape's local frame. Planes have
    /// none.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        match self {
            Shape::Sphere(s) => s.mass_properties(density),
            Shape::Cuboid(s) => s.mass_properties(density),
            Shape::Capsule(s) => s.mass_properties(density),
            Shape::Cylinder(s) => s.mass_properties(density),
            Shape::ConvexHull(s) => s.mass_properties(density),
            Shape::Plane(_) => MassProperties::ZERO,
        }
    }

    /// Casts a world-space ray against the shape at `pose`; the hit normal is in world space.
    pub fn cast_ray(&self, pose: &Pose, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let local = ray.to_local(pose);
        let hit = match self {
            Shape::Sphere(s) => s.cast_ray(&local, max_t),
            Shape::Cuboid(s) => s.cast_ray(&local, max_t),
            Shape::Capsule(s) => s.cast_ray(&local, max_t),
            Shape::Cylinder(s) => s.cast_ray(&local, max_t),
            Shape::ConvexHull(s) => s.cast_ray(&local, max_t),
            Shape::Plane(s) => s.cast_ray(&local, max_t),
        };
        hit.map(|h| h.to_world(pose))
    }
}
