//! fulcrum behind the bench's [`BenchEngine`] trait.
//!
//! Each scene is built with the engine's default settings (soft step, 4 substeps), sleeping
//! disabled, one body per described body with one collider (friction 0.6, restitution 0, the
//! described density) of the described shape: sphere, box, capsule and cylinder along local
//! y, a heightfield from the grid's rows and scale, or a one-sided triangle mesh. Under
//! [`CollisionRule::NoSphereSphere`] every
//! sphere is a member of group 2 and filters group 2 out, so spheres never touch each other
//! but still touch everything else. Ball joints are created with the described local
//! anchors; joints between two static bodies are skipped (they do nothing).

use fulcrum::prelude::*;
use fulcrum::CollisionGroups;

use crate::scenes::{BodyDesc, CollisionRule, SceneDesc, ShapeDesc};
use crate::{BenchEngine, BodyPose};

/// A fulcrum world plus the body ids in description order.
pub struct FulcrumEngine {
    world: World,
    bodies: Vec<BodyId>,
    dt: f32,
}

/// Group of spheres that must not touch each other.
const SPHERE_GROUP: u32 = 1 << 1;

fn groups_for(body: &BodyDesc, rule: CollisionRule) -> CollisionGroups {
    match (rule, &body.shape) {
        (CollisionRule::NoSphereSphere, ShapeDesc::Sphere { .. }) => CollisionGroups::new(SPHERE_GROUP, !SPHERE_GROUP),
        _ => CollisionGroups::ALL,
    }
}

fn add_body(world: &mut World, body: &BodyDesc, rule: CollisionRule) -> Result<BodyId, String> {
    let position = Vec3::from(body.position);
    let def = if body.is_static { BodyDef::fixed(position) } else { BodyDef::dynamic(position) };
    let id = world.create_body(&BodyDef { can_sleep: false, ..def }).map_err(|e| e.to_string())?;
    let shape = shape_of(&body.shape).map_err(|e| e.to_string())?;
    let collider = ColliderDef::new(shape)
        .with_density(body.density)
        .with_friction(body.friction)
        .with_restitution(body.restitution)
        .with_groups(groups_for(body, rule));
    world.create_collider(id, &collider).map_err(|e| e.to_string())?;
    Ok(id)
}

/// fulcrum's shape for a described one (a one-sided mesh for [`ShapeDesc::TriMesh`]).
fn shape_of(desc: &ShapeDesc) -> fulcrum::Result<Shape> {
    match desc {
        ShapeDesc::Sphere { radius } => Shape::sphere(*radius),
        ShapeDesc::Box { half_extents } => Shape::cuboid(Vec3::from(*half_extents)),
        ShapeDesc::Capsule { half_height, radius } => Shape::capsule(*half_height, *radius),
        ShapeDesc::Cylinder { half_height, radius } => Shape::cylinder(*half_height, *radius),
        ShapeDesc::HeightField { grid } => Shape::heightfield(grid.heights().to_vec(), Vec3::from(grid.scale())),
        ShapeDesc::TriMesh { vertices, indices } => {
            Shape::trimesh(vertices.iter().map(|&v| Vec3::from(v)).collect(), indices.to_vec(), false)
        }
    }
}

/// Builds a bench scene as a fulcrum world (as described at the top of this file; the
/// world's `timestep` setting is the scene's `dt`). Returns the world and the body ids in
/// description order. `fulcrum view` uses it to show the bench scenes.
pub fn build_world(scene: &SceneDesc) -> Result<(World, Vec<BodyId>), String> {
    let settings =
        WorldSettings { gravity: Vec3::from(scene.gravity), timestep: scene.dt, sleep: false, ..Default::default() };
    let mut world = World::new(settings).map_err(|e| e.to_string())?;
    let bodies = scene
        .bodies
        .iter()
        .map(|body| add_body(&mut world, body, scene.collision_rule))
        .collect::<Result<Vec<_>, _>>()?;
    for joint in scene.joints.iter().filter(|j| !(scene.bodies[j.body_a].is_static && scene.bodies[j.body_b].is_static))
    {
        let (a, b) = (Vec3::from(joint.local_anchor_a), Vec3::from(joint.local_anchor_b));
        let def = JointDef::ball(Some(bodies[joint.body_a]), bodies[joint.body_b], Vec3::ZERO).with_local_anchors(a, b);
        world.create_joint(&def).map_err(|e| e.to_string())?;
    }
    Ok((world, bodies))
}

impl BenchEngine for FulcrumEngine {
    fn name() -> &'static str {
        "fulcrum"
    }

    fn build(scene: &SceneDesc, threads: usize) -> Result<Self, String> {
        let (mut world, bodies) = build_world(scene)?;
        world.set_threads(threads).map_err(|e| e.to_string())?;
        Ok(Self { world, bodies, dt: scene.dt })
    }

    fn step(&mut self) {
        // The bench scenes are valid by construction; a failed step would be a bug worth a
        // loud stop in a benchmark.
        self.world.step(self.dt).expect("bench step");
    }

    fn poses(&self) -> Vec<BodyPose> {
        self.pose_list()
    }

    fn linear_velocities(&self) -> Vec<[f32; 3]> {
        let velocity = |&id| self.world.body(id).expect("bench body exists").linear_velocity().to_array();
        self.bodies.iter().map(velocity).collect()
    }
}

impl FulcrumEngine {
    /// The world being benchmarked (for stage timings in profiling tools).
    pub fn world(&self) -> &World {
        &self.world
    }

    fn pose_list(&self) -> Vec<BodyPose> {
        self.bodies
            .iter()
            .map(|&id| {
                let body = self.world.body(id).expect("bench body exists");
                let (p, q) = (body.position(), body.rotation());
                BodyPose { position: p.to_array(), rotation: [q.x, q.y, q.z, q.w] }
            })
            .collect()
    }
}
