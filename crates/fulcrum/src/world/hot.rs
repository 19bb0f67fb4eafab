//! Compact, slot-indexed copies of what the narrow phase reads for every pair, so a pair's
//! update touches a few small entries instead of the full collider and body records (a
//! collider is 160 bytes, a body 288; these are 40 and 20). With tens of thousands of pairs
//! the difference is mostly cache misses.

use super::World;
use crate::body::BodyKind;
use crate::collision::manifold_cache::Surface;
use crate::dynamics::workers;
use crate::id::{BodyId, ColliderId};
use crate::math::{Pose, Vec3};
use crate::shape::Shape;

/// Fewest bodies per task when the hot entries are rebuilt in parallel.
const BODIES_PER_TASK: usize = 256;

/// What the narrow phase needs of a collider, at its slot index.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ColliderHot {
    /// Generation of the live collider in the slot; 0 for an empty slot.
    pub generation: u32,
    /// World pose.
    pub pose: Pose,
    /// How its contact points move with it: whether and how a pair's manifold may be cached
    /// (see `collision/manifold_cache.rs`), and whether the solver may keep contact frames.
    pub surface: Surface,
}

/// What the narrow phase needs of a body, at its slot index; rebuilt every step.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct BodyHot {
    /// The slot holds a body.
    pub alive: bool,
    /// Not taken out of the simulation.
    pub enabled: bool,
    /// Awake and not static: its pairs need a narrow-phase update.
    pub active: bool,
    /// Asleep (and not static): a touch wakes it.
    pub sleeping: bool,
    /// Velocity of the centre of mass, m/s.
    pub velocity: Vec3,
    /// |ω| times the body's extent: the fastest a surface point turns, m/s.
    pub spin_reach: f32,
}

impl BodyHot {
    /// Largest speed at which any two points of the bodies can approach each other,
    /// |v_A − v_B| + spin reaches, capped so a wild body cannot make every pair speculative.
    pub fn closing_speed_bound(&self, other: &BodyHot) -> f32 {
        ((self.velocity - other.velocity).length() + self.spin_reach + other.spin_reach).min(MAX_SPECULATIVE_SPEED)
    }
}

/// Cap of [`BodyHot::closing_speed_bound`], m/s.
const MAX_SPECULATIVE_SPEED: f32 = 200.0;

/// How a shape's contact points move with it: on features that move rigidly with the body
/// (a mesh's or heightfield's are its triangles' vertices and edges), at a radius from a core,
/// or over a curved surface.
pub(crate) fn surface_of(shape: &Shape) -> Surface {
    match shape {
        Shape::Cuboid(_) | Shape::ConvexHull(_) | Shape::Plane(_) | Shape::TriMesh(_) | Shape::HeightField(_) => {
            Surface::Flat
        }
        Shape::Sphere(s) => Surface::Rounded(s.radius),
        Shape::Capsule(c) => Surface::Rounded(c.radius),
        Shape::Cylinder(c) => Surface::Curved(c.radius),
    }
}

impl World {
    /// Records a collider's current state in its hot entry.
    pub(crate) fn set_collider_hot(&mut self, id: ColliderId) {
        let Some(collider) = self.colliders.get(id) else { return };
        let entry = ColliderHot {
            generation: id.0.generation,
            pose: collider.world_pose,
            surface: surface_of(&collider.shape),
        };
        let index = id.index();
        if self.collider_hot.len() <= index {
            self.collider_hot.resize(index + 1, ColliderHot::default());
        }
        self.collider_hot[index] = entry;
    }

    /// Marks a collider slot empty.
    pub(crate) fn clear_collider_hot(&mut self, id: ColliderId) {
        if let Some(entry) = self.collider_hot.get_mut(id.index()) {
            entry.generation = 0;
        }
    }

    /// The live hot entry of a collider, if it still exists.
    #[inline]
    pub(crate) fn collider_hot(&self, id: ColliderId) -> Option<&ColliderHot> {
        self.collider_hot.get(id.index()).filter(|h| h.generation == id.0.generation)
    }

    /// Rebuilds the bodies' hot entries (once per step, before the narrow phase).
    /// Split among the workers: a body record is 288 bytes, and reading ten thousand of them
    /// took 0.1 ms.
    pub(crate) fn refresh_body_hot(&mut self) {
        self.body_hot.clear();
        let slots = self.bodies.slots();
        workers::extend_mapped_even(&self.solver.workers, &mut self.body_hot, slots, BODIES_PER_TASK, |slot| {
            slot.value().map_or(BodyHot::default(), |body| {
                let is_static = body.kind == BodyKind::Static;
                BodyHot {
                    alive: true,
                    enabled: body.enabled,
                    active: body.awake && !is_static,
                    sleeping: !body.awake && !is_static,
                    velocity: body.linear_velocity,
                    spin_reach: body.angular_velocity.length() * body.max_extent,
                }
            })
        });
    }

    /// The hot entry of a body slot (a dead default when out of range).
    #[inline]
    pub(crate) fn body_hot(&self, id: BodyId) -> BodyHot {
        self.body_hot.get(id.index()).copied().unwrap_or_default()
    }
}
