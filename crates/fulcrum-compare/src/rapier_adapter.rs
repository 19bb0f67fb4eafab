//! rapier3d behind the bench's [`BenchEngine`] trait.
//!
//! Each scene is built with rapier's default `IntegrationParameters` (dt = 1/60, its default
//! solver iterations), one rigid body per described body (fixed or dynamic, sleeping
//! disabled) carrying one collider (friction 0.6, restitution 0, density as given), and one
//! `SphericalJoint` per ball joint with the described local anchors. Shapes: ball, cuboid,
//! `capsule_y`, `cylinder` (both along local y, as described), and for the terrain scenes:
//!
//! - heightfield: parry's `HeightField` with `HeightFieldFlags::FIX_INTERNAL_EDGES`. Checked
//!   against parry 0.31's source and by ray casts (see the tests below): its height array is
//!   column-major with row i along Z and column j along X, like ours; but its `scale` is the
//!   size of the whole field, not the sample spacing (x runs over -scale.x/2..scale.x/2), so
//!   it is given ((cols − 1)·sx, sy, (rows − 1)·sz). Its default cell split is the other
//!   diagonal, from sample (i + 1, j) to (i, j + 1): every cell is therefore marked
//!   `HeightFieldCellStatus::ZIGZAG_SUBDIVISION`, which splits from (i, j) to (i + 1, j + 1)
//!   into (i, j), (i + 1, j), (i + 1, j + 1) and (i, j), (i + 1, j + 1), (i, j + 1), our
//!   triangles (the internal-edge fix reads the status and handles both splits). Because
//!   the status must be set on the shape, the collider is built with `ColliderBuilder::new`
//!   from the finished `HeightField` rather than with `ColliderBuilder::heightfield_with_flags`.
//! - triangle mesh: `ColliderBuilder::trimesh_with_flags` with `TriMeshFlags::FIX_INTERNAL_EDGES`
//!   (one-sided: contacts from a triangle's back are dropped; the `_TWO_SIDED` variant is not
//!   used) and `ORIENTED` (pseudo-normals for inside/outside tests).
//!
//! Under
//! [`CollisionRule::NoSphereSphere`] every ball collider is a member of group 1 and filters out
//! group 1, so spheres never collide with each other but still collide with everything else.
//! rapier3d is built without its `parallel` feature here: it always steps on one thread.

use fulcrum_bench::scenes::{BodyDesc, CollisionRule, HeightGrid, SceneDesc, ShapeDesc};
use fulcrum_bench::{BenchEngine, BodyPose};
use rapier3d::prelude::*;

/// A rapier3d world plus the body handles in description order.
pub struct RapierEngine {
    world: PhysicsWorld,
    handles: Vec<RigidBodyHandle>,
}

impl BenchEngine for RapierEngine {
    fn name() -> &'static str {
        "rapier3d"
    }

    fn build(scene: &SceneDesc, _threads: usize) -> Result<Self, String> {
        let mut world = PhysicsWorld::new();
        let [gx, gy, gz] = scene.gravity;
        world.gravity = Vector::new(gx, gy, gz);
        world.integration_parameters.dt = scene.dt;
        let mut handles = Vec::with_capacity(scene.bodies.len());
        for body in &scene.bodies {
            let (handle, _) = world.insert(rigid_body(body), collider(body, scene.collision_rule)?);
            handles.push(handle);
        }
        for joint in &scene.joints {
            let (Some(&body_a), Some(&body_b)) = (handles.get(joint.body_a), handles.get(joint.body_b)) else {
                return Err(format!("joint refers to a missing body in `{}`", scene.name));
            };
            let spherical = SphericalJointBuilder::new()
                .local_anchor1(to_vector(joint.local_anchor_a))
                .local_anchor2(to_vector(joint.local_anchor_b));
            world.impulse_joints.insert(body_a, body_b, spherical, true);
        }
        Ok(Self { world, handles })
    }

    fn step(&mut self) {
        self.world.step();
    }

    fn poses(&self) -> Vec<BodyPose> {
        self.handles
            .iter()
            .map(|&handle| {
                let body = &self.world.bodies[handle];
                let translation = body.translation();
                let rotation = body.rotation();
                BodyPose {
                    position: [translation.x, translation.y, translation.z],
                    rotation: [rotation.x, rotation.y, rotation.z, rotation.w],
                }
            })
            .collect()
    }

    fn linear_velocities(&self) -> Vec<[f32; 3]> {
        let velocity = |&handle: &RigidBodyHandle| {
            let v = self.world.bodies[handle].linvel();
            [v.x, v.y, v.z]
        };
        self.handles.iter().map(velocity).collect()
    }
}

fn to_vector(v: [f32; 3]) -> Vector {
    Vector::new(v[0], v[1], v[2])
}

/// A fixed or dynamic body at the described position, identity rotation, never sleeping.
fn rigid_body(body: &BodyDesc) -> RigidBody {
    let builder = if body.is_static { RigidBodyBuilder::fixed() } else { RigidBodyBuilder::dynamic() };
    builder.translation(to_vector(body.position)).can_sleep(false).build()
}

/// The body's collider (shapes as in the module docs) with its material and collision groups.
fn collider(body: &BodyDesc, rule: CollisionRule) -> Result<Collider, String> {
    let builder = match &body.shape {
        &ShapeDesc::Sphere { radius } => ColliderBuilder::ball(radius),
        &ShapeDesc::Box { half_extents: [hx, hy, hz] } => ColliderBuilder::cuboid(hx, hy, hz),
        &ShapeDesc::Capsule { half_height, radius } => ColliderBuilder::capsule_y(half_height, radius),
        &ShapeDesc::Cylinder { half_height, radius } => ColliderBuilder::cylinder(half_height, radius),
        ShapeDesc::HeightField { grid } => ColliderBuilder::new(SharedShape::new(heightfield(grid))),
        ShapeDesc::TriMesh { vertices, indices } => {
            let vertices = vertices.iter().map(|&v| to_vector(v)).collect();
            let flags = TriMeshFlags::FIX_INTERNAL_EDGES | TriMeshFlags::ORIENTED;
            ColliderBuilder::trimesh_with_flags(vertices, indices.to_vec(), flags)
                .map_err(|e| format!("rapier3d refuses the mesh: {e:?}"))?
        }
    };
    let is_sphere = matches!(body.shape, ShapeDesc::Sphere { .. });
    let groups = if rule == CollisionRule::NoSphereSphere && is_sphere {
        InteractionGroups::new(Group::GROUP_1, !Group::GROUP_1, InteractionTestMode::And)
    } else {
        InteractionGroups::all()
    };
    Ok(builder
        .density(body.density)
        .friction(body.friction)
        .restitution(body.restitution)
        .collision_groups(groups)
        .build())
}

/// parry's heightfield of `grid`, laid out and split as ours (see the module docs): heights
/// column-major (element (i, j) at i + j·rows), scale the whole field's size, every cell
/// split from sample (i, j) to (i + 1, j + 1), internal-edge fix on.
fn heightfield(grid: &HeightGrid) -> HeightField {
    let (rows, columns) = (grid.rows(), grid.columns());
    let heights = grid.heights();
    let column_major = (0..columns).flat_map(|j| (0..rows).map(move |i| heights[i][j])).collect();
    let [sx, sy, sz] = grid.scale();
    let size = Vector::new(sx * (columns - 1) as f32, sy, sz * (rows - 1) as f32);
    let samples = Array2::new(rows, columns, column_major);
    let mut field = HeightField::with_flags(samples, size, HeightFieldFlags::FIX_INTERNAL_EDGES);
    for i in 0..rows - 1 {
        for j in 0..columns - 1 {
            field.set_cell_status(i, j, HeightFieldCellStatus::ZIGZAG_SUBDIVISION);
        }
    }
    field
}

#[cfg(test)]
mod tests {
    use super::*;
    use fulcrum_bench::terrain::terrain_grid;

    /// Points (x, z): a sample, points near the grid's corners, one on a cell's diagonal, and
    /// points inside cells on both sides of it (fractions a, b along X, Z of (0.2, 0.3),
    /// (0.7, 0.9), (0.3, 0.2), (0.9, 0.4)), where the two possible splits disagree.
    const PROBES: [[f64; 2]; 8] = [
        [0.0, 0.0],
        [-63.9, -63.9],
        [63.0, 63.8],
        [10.25, -7.75],
        [-30.8, 21.3],
        [-30.3, 21.9],
        [-30.7, 21.2],
        [47.9, -60.6],
    ];

    /// Height where a ray cast straight down from y = 50 meets `shape` at the origin.
    fn ray_height(shape: &dyn Shape, x: f64, z: f64) -> f64 {
        let ray = Ray::new(Vector::new(x as f32, 50.0, z as f32), Vector::new(0.0, -1.0, 0.0));
        let toi = shape.cast_local_ray(&ray, 100.0, true).unwrap_or_else(|| panic!("no hit at ({x}, {z})"));
        50.0 - f64::from(toi)
    }

    #[test]
    fn rapier_ground_is_our_surface() {
        // Ray casts down on rapier's heightfield and mesh meet our piecewise-linear surface.
        let grid = terrain_grid();
        let field = heightfield(&grid);
        let flags = TriMeshFlags::FIX_INTERNAL_EDGES | TriMeshFlags::ORIENTED;
        let vertices = grid.vertices().iter().map(|&v| to_vector(v)).collect();
        let mesh = TriMesh::with_flags(vertices, grid.triangles(), flags).unwrap();
        for [x, z] in PROBES {
            let expected = grid.surface_height(x, z).unwrap();
            for (name, height) in [("heightfield", ray_height(&field, x, z)), ("mesh", ray_height(&mesh, x, z))] {
                assert!((height - expected).abs() < 1e-4, "{name} at ({x}, {z}): {height} vs {expected}");
            }
        }
    }

    #[test]
    fn parrys_default_split_is_the_other_diagonal() {
        // Without the zigzag status, a point off the diagonal of a bent cell reads another
        // height: the reason every cell is marked.
        let grid = terrain_grid();
        let mut plain = heightfield(&grid);
        plain.set_cell_status(56, 74, HeightFieldCellStatus::empty());
        let (x, z) = (10.25, -7.75); // cell (i, j) = (56, 74), a = 0.25, b = 0.25
        let ours = grid.surface_height(x, z).unwrap();
        assert!((ray_height(&plain, x, z) - ours).abs() > 1e-3);
    }
}
