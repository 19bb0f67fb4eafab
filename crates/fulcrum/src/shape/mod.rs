//! Collision shapes. Each shape lives in its own file and provides the same verbs: bounds at
//! a pose, a support mapping, mass properties at a density, and a ray cast. [`Shape`] is the
//! closed enum the engine dispatches on (one `match` per operation, no trait objects).
//!
//! Triangle meshes ([`TriMesh`]) and heightfields ([`HeightField`]) are surfaces for static
//! and kinematic bodies: no volume (no mass), no support mapping; the narrow phase meets them
//! one [`Triangle`] at a time (`for_each_triangle_in`).

mod bvh;
mod capsule;
mod cuboid;
mod cylinder;
mod file_form;
mod heightfield;
pub mod hull;
mod hull_faces;
mod hull_mesh;
pub mod mass;
mod mesh_build;
pub(crate) mod mesh_files;
mod plane;
mod quickhull;
mod sphere;
#[cfg(test)]
mod test_support;
mod triangle;
mod trimesh;

use std::sync::Arc;

pub use capsule::Capsule;
pub use cuboid::Cuboid;
pub use cylinder::Cylinder;
pub use heightfield::HeightField;
pub use hull::ConvexHull;
pub use mass::MassProperties;
pub use plane::Plane;
pub use sphere::Sphere;
pub use triangle::{Triangle, TriangleSurface, FLAT_ANGLE};
pub use trimesh::{MeshFile, TriMesh, T_JUNCTION_TOLERANCE, WELD_TOLERANCE};

use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// Largest size of a shape, metres: every radius, half extent and half height lies in
/// (0, `MAX_SHAPE_SIZE`], every hull point coordinate and plane offset within ±`MAX_SHAPE_SIZE`.
/// Ten kilometres is beyond any body a 32-bit float simulates well (its rounding at that size
/// is a millimetre); the bound keeps volumes, inertias and bounds finite.
pub const MAX_SHAPE_SIZE: f32 = 1.0e4;

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
    /// [`TriMesh`]
    TriMesh = 6,
    /// [`HeightField`]
    HeightField = 7,
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
    /// A triangle mesh (static and kinematic bodies only; shared, immutable).
    TriMesh(Arc<TriMesh>),
    /// A heightfield (static and kinematic bodies only; shared, immutable).
    HeightField(Arc<HeightField>),
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

    /// A triangle mesh from vertices (metres) and counter-clockwise index triples; see
    /// [`TriMesh`] for the valid input.
    pub fn trimesh(vertices: Vec<Vec3>, indices: Vec<[u32; 3]>, two_sided: bool) -> crate::Result<Shape> {
        Ok(Shape::TriMesh(Arc::new(TriMesh::new(vertices, indices, two_sided)?)))
    }

    /// A triangle mesh read from an OBJ or glTF file; see [`TriMesh::from_file`].
    pub fn trimesh_from_file(file: &str, scale: Vec3, two_sided: bool) -> crate::Result<Shape> {
        Ok(Shape::TriMesh(Arc::new(TriMesh::from_file(file, scale, two_sided)?)))
    }

    /// A heightfield from rows of heights and its scale; see [`HeightField`].
    pub fn heightfield(heights: Vec<Vec<f32>>, scale: Vec3) -> crate::Result<Shape> {
        Ok(Shape::HeightField(Arc::new(HeightField::new(heights, scale)?)))
    }

    /// Checks the shape's sizes as its constructor does (the fields are public, so a shape
    /// can be changed after it was built). Hulls, meshes and heightfields are checked when they
    /// are built and cannot change.
    pub fn validate(&self) -> crate::Result<()> {
        match self {
            Shape::Sphere(s) => Sphere::new(s.radius).map(drop),
            Shape::Cuboid(s) => Cuboid::new(s.half_extents).map(drop),
            Shape::Capsule(s) => Capsule::new(s.half_height, s.radius).map(drop),
            Shape::Cylinder(s) => Cylinder::new(s.half_height, s.radius).map(drop),
            Shape::ConvexHull(_) | Shape::TriMesh(_) | Shape::HeightField(_) => Ok(()),
            Shape::Plane(s) => Plane::new(s.normal, s.offset).map(drop),
        }
    }

    /// Checks a shape restored from a snapshot, where meshes, hulls and heightfields come
    /// with their built data: [`Shape::validate`] for the primitives, each one's stored
    /// check for the others.
    pub(crate) fn check_stored(&self) -> crate::Result<()> {
        match self {
            Shape::ConvexHull(hull) => hull.check_stored(),
            Shape::TriMesh(mesh) => mesh.check_stored(),
            Shape::HeightField(field) => field.check_stored(),
            _ => self.validate(),
        }
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
            Shape::TriMesh(_) => ShapeKind::TriMesh,
            Shape::HeightField(_) => ShapeKind::HeightField,
        }
    }

    /// Calls `visit(index, triangle)` for every triangle of a mesh or heightfield whose bounds
    /// overlap `local` (the shape's frame), stopping when `visit` returns false; nothing for
    /// other shapes.
    pub(crate) fn for_each_triangle_in(&self, local: &Aabb, visit: impl FnMut(u32, &Triangle) -> bool) {
        match self {
            Shape::TriMesh(mesh) => mesh.for_each_triangle_in(local, visit),
            Shape::HeightField(field) => field.for_each_triangle_in(local, visit),
            _ => {}
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
            Shape::TriMesh(s) => s.local_aabb().transformed(pose),
            Shape::HeightField(s) => s.local_aabb().transformed(pose),
        }
    }

    /// The point of the shape furthest along `dir`, local frame. Planes, meshes and
    /// heightfields have none (they are unbounded or not convex) and return the origin; the
    /// narrow phase never asks them for support (it meets meshes one triangle at a time).
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        match self {
            Shape::Sphere(s) => s.support(dir),
            Shape::Cuboid(s) => s.support(dir),
            Shape::Capsule(s) => s.support(dir),
            Shape::Cylinder(s) => s.support(dir),
            Shape::ConvexHull(s) => s.support(dir),
            Shape::Plane(_) | Shape::TriMesh(_) | Shape::HeightField(_) => Vec3::ZERO,
        }
    }

    /// Mass properties at uniform `density` (kg/m³), in the shape's local frame. Planes,
    /// meshes and heightfields have none (they go on static or kinematic bodies only).
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        match self {
            Shape::Sphere(s) => s.mass_properties(density),
            Shape::Cuboid(s) => s.mass_properties(density),
            Shape::Capsule(s) => s.mass_properties(density),
            Shape::Cylinder(s) => s.mass_properties(density),
            Shape::ConvexHull(s) => s.mass_properties(density),
            Shape::Plane(_) | Shape::TriMesh(_) | Shape::HeightField(_) => MassProperties::ZERO,
        }
    }

    /// Casts a world-space ray against the shape at `pose`: the hit (normal in world space)
    /// and, for meshes and heightfields, the index of the triangle hit.
    pub fn cast_ray(&self, pose: &Pose, ray: &Ray, max_t: f32) -> Option<(RayHit, Option<u32>)> {
        let local = ray.to_local(pose);
        let on_triangle = |(hit, index): (RayHit, u32)| (hit, Some(index));
        let (hit, triangle) = match self {
            Shape::Sphere(s) => s.cast_ray(&local, max_t).map(|h| (h, None)),
            Shape::Cuboid(s) => s.cast_ray(&local, max_t).map(|h| (h, None)),
            Shape::Capsule(s) => s.cast_ray(&local, max_t).map(|h| (h, None)),
            Shape::Cylinder(s) => s.cast_ray(&local, max_t).map(|h| (h, None)),
            Shape::ConvexHull(s) => s.cast_ray(&local, max_t).map(|h| (h, None)),
            Shape::Plane(s) => s.cast_ray(&local, max_t).map(|h| (h, None)),
            Shape::TriMesh(s) => s.cast_ray_local(&local, max_t).map(on_triangle),
            Shape::HeightField(s) => s.cast_ray_local(&local, max_t).map(on_triangle),
        }?;
        Some((hit.to_world(pose), triangle))
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::Lcg;
    use super::*;

    /// `Shape::cast_ray` at a pose equals the local cast of the ray mapped into the shape's
    /// frame, with the normal rotated back; the hit point lies on the surface (a ray started
    /// a hair before it along the same direction hits at the same point).
    #[test]
    fn world_ray_casts_match_local_casts() {
        let mut rng = Lcg::new(17);
        let corners: Vec<Vec3> = (0..40).map(|_| rng.in_box(Vec3::new(0.5, 0.8, 0.3))).collect();
        let shapes = [
            Shape::sphere(0.5).unwrap(),
            Shape::cuboid(Vec3::new(0.5, 0.2, 0.4)).unwrap(),
            Shape::capsule(0.4, 0.3).unwrap(),
            Shape::cylinder(0.4, 0.3).unwrap(),
            Shape::convex_hull(&corners).unwrap(),
        ];
        let mut hits = 0;
        for shape in &shapes {
            for _ in 0..50 {
                let pose = rng.pose(3.0);
                let origin = pose.position + rng.direction() * 4.0;
                let target = pose.position + rng.in_box(Vec3::splat(0.3));
                let ray = Ray::new(origin, target - origin);
                let world = shape.cast_ray(&pose, &ray, 2.0).map(|(hit, _)| hit);
                let local_ray = ray.to_local(&pose);
                let local = match shape {
                    Shape::Sphere(s) => s.cast_ray(&local_ray, 2.0),
                    Shape::Cuboid(s) => s.cast_ray(&local_ray, 2.0),
                    Shape::Capsule(s) => s.cast_ray(&local_ray, 2.0),
                    Shape::Cylinder(s) => s.cast_ray(&local_ray, 2.0),
                    Shape::ConvexHull(s) => s.cast_ray(&local_ray, 2.0),
                    Shape::Plane(s) => s.cast_ray(&local_ray, 2.0),
                    Shape::TriMesh(s) => s.cast_ray_local(&local_ray, 2.0).map(|(hit, _)| hit),
                    Shape::HeightField(s) => s.cast_ray_local(&local_ray, 2.0).map(|(hit, _)| hit),
                };
                let (Some(world), Some(local)) = (world, local) else {
                    assert_eq!(world.is_some(), local.is_some());
                    continue;
                };
                hits += 1;
                assert!((world.t - local.t).abs() < 1e-6);
                assert!((world.normal - pose.transform_vector(local.normal)).length() < 1e-5);
                let point = ray.at(world.t);
                let again = Ray::new(point - ray.direction * 1e-3, ray.direction);
                let (second, _) = shape.cast_ray(&pose, &again, 1.0).unwrap();
                assert!((again.at(second.t) - point).length() < 1e-4);
            }
        }
        assert!(hits > 150, "{hits}");
    }
}
