//! rapier3d behind the bench's [`BenchEngine`] trait.
//!
//! Each scene is built with rapier's default `IntegrationParameters` (dt = 1/60, its default
//! solver iterations), one rigid body per described body (fixed or dynamic, sleeping
//! disabled) carrying one collider (ball or cuboid, friction 0.6, restitution 0, density as
//! given), and one `SphericalJoint` per ball joint with the described local anchors. Under
//! [`CollisionRule::NoSphereSphere`] every ball collider is a member of group 1 and filters out
//! group 1, so spheres never collide with each other but still collide with everything else.
//! rapier3d is built without its `parallel` feature here: it always steps on one thread.

use fulcrum_bench::scenes::{BodyDesc, CollisionRule, SceneDesc, ShapeDesc};
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
            let (handle, _) = world.insert(rigid_body(body), collider(body, scene.collision_rule));
            handles.push(handle);
        }
        for joint in &scene.joints {
            let (Some(&body_a), Some(&body_b)) =
                (handles.get(joint.body_a), handles.get(joint.body_b))
            else {
                return Err(format!(
                    "joint refers to a missing body in `{}`",
                    scene.name
                ));
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
}

fn to_vector(v: [f32; 3]) -> Vector {
    Vector::new(v[0], v[1], v[2])
}

/// A fixed or dynamic body at the described position, identity rotation, never sleeping.
fn rigid_body(body: &BodyDesc) -> RigidBody {
    let builder = if body.is_static {
        RigidBodyBuilder::fixed()
    } else {
        RigidBodyBuilder::dynamic()
    };
    builder
        .translation(to_vector(body.position))
        .can_sleep(false)
        .build()
}

/// The body's ball or cuboid collider with its material and collision groups.
fn collider(body: &BodyDesc, rule: CollisionRule) -> Collider {
    let builder = match body.shape {
        ShapeDesc::Sphere { radius } => ColliderBuilder::ball(radius),
        ShapeDesc::Box {
            half_extents: [hx, hy, hz],
        } => ColliderBuilder::cuboid(hx, hy, hz),
    };
    let is_sphere = matches!(body.shape, ShapeDesc::Sphere { .. });
    let groups = if rule == CollisionRule::NoSphereSphere && is_sphere {
        InteractionGroups::new(Group::GROUP_1, !Group::GROUP_1, InteractionTestMode::And)
    } else {
        InteractionGroups::all()
    };
    builder
        .density(body.density)
        .friction(body.friction)
        .restitution(body.restitution)
        .collision_groups(groups)
        .build()
}
