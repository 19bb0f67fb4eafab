//! The world: storage of bodies, colliders and contact pairs, the public create / destroy /
//! get / set API, and the step (in `step.rs`).

mod api;
mod ccd;
mod characters;
mod contacts;
pub mod events;
mod hot;
mod joints;
mod particles;
mod query;
mod restore_check;

mod shape_query;
mod sleep;
pub(crate) mod snapshot;
mod solve;
mod step;
mod user_constraints;

use crate::key_hash::KeyMap;

use crate::body::Body;
use crate::character::Character;
use crate::collider::Collider;
use crate::collision::broad_phase::BroadPhase;
use crate::collision::contact::Contact;
use crate::dynamics::island::UnionFind;
use crate::dynamics::solver::SolverData;
use crate::error::Result;
use crate::id::{Arena, BodyId, CharacterId, ClothId, ColliderId, JointId, RopeId, UserConstraintId};
use crate::joint::{Joint, UserConstraintEntry};
use crate::particles::{Cloth, Rope};

pub use crate::settings::{Integrator, PositionCorrection, SolverMode, SolverSettings, WorldSettings};
pub use events::{ContactEvent, ContactInfo, ContactPointInfo, DisabledBody, Events};
pub use query::RayCastHit;
pub use shape_query::ShapeCastHit;
pub use step::StepTimings;

/// A physics world: bodies with colliders, stepped in time.
///
/// ```
/// use fulcrum::prelude::*;
/// let mut world = World::new(WorldSettings::default()).unwrap();
/// let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -1.0, 0.0))).unwrap();
/// world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(10.0, 1.0, 10.0)).unwrap())).unwrap();
/// let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 2.0, 0.0))).unwrap();
/// world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
/// for _ in 0..120 {
///     world.step(1.0 / 60.0).unwrap();
/// }
/// let y = world.body(ball).unwrap().position().y;
/// assert!((y - 0.5).abs() < 0.02);
/// ```
///
/// The serde impls are the state [`World::snapshot`] encodes (settings, bodies, colliders,
/// joints, contacts with their warm-start impulses, broad phase, sleep state, time); the
/// skipped fields are per-step scratch. Take snapshots through `snapshot`/`restore`, which add
/// a version and a checksum.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct World {
    pub(crate) settings: WorldSettings,
    pub(crate) bodies: Arena<Body, BodyId>,
    pub(crate) colliders: Arena<Collider, ColliderId>,
    pub(crate) joints: Arena<Joint, JointId>,
    pub(crate) user_constraints: Arena<UserConstraintEntry, UserConstraintId>,
    /// Characters (capsules moved by the character solver; see `crate::character`).
    pub(crate) characters: Arena<Character, CharacterId>,
    /// Cloths and ropes (particles moved by the particle solver; see `crate::particles`).
    pub(crate) cloths: Arena<Cloth, ClothId>,
    pub(crate) ropes: Arena<Rope, RopeId>,
    pub(crate) broad_phase: BroadPhase,
    pub(crate) contacts: Vec<Contact>,
    /// Live pairs by their colliders (lookup only; never iterated).
    #[serde(with = "snapshot::sorted_map")]
    pub(crate) pair_map: KeyMap<(ColliderId, ColliderId), u32>,
    /// Bodies that fell asleep together, by sleeping-island index.
    pub(crate) sleeping_islands: Vec<Vec<BodyId>>,
    pub(crate) free_islands: Vec<u32>,
    /// Static bodies moved through the API since the last step (their contacts wake others).
    pub(crate) moved_static: Vec<BodyId>,
    /// The step's solver arrays, built anew every step.
    #[serde(skip)]
    pub(crate) solver: SolverData,
    pub(crate) events: Events,
    #[serde(skip)]
    pub(crate) new_pairs: Vec<(u32, u32)>,
    #[serde(skip)]
    pub(crate) union_find: UnionFind,
    /// Awake non-static bodies of this step; solver index i + 1 is `awake_ids[i]`.
    pub(crate) awake_ids: Vec<BodyId>,
    pub(crate) island_min_sleep: Vec<f32>,
    #[serde(skip)]
    pub(crate) wake_buffer: Vec<BodyId>,
    /// Colliders whose proxies no longer hold their swept boxes: (slot, swept box, sweep)
    /// (working list of `move_solved_colliders`).
    #[serde(skip)]
    pub(crate) leaving_proxies: Vec<(usize, crate::geometry::Aabb, crate::math::Vec3)>,
    /// What the narrow phase decided for each pair (`contacts.rs`).
    #[serde(skip)]
    pub(crate) pair_verdicts: Vec<contacts::PairVerdict>,
    /// Narrow-phase views of colliders and bodies by slot (see `hot.rs`).
    pub(crate) collider_hot: Vec<hot::ColliderHot>,
    pub(crate) body_hot: Vec<hot::BodyHot>,
    /// Manifolds computed and reused by the last narrow phase.
    pub(crate) narrow_counts: (u32, u32),
    pub(crate) time: f64,
    pub(crate) step_count: u64,
    #[serde(skip)]
    pub(crate) timings: StepTimings,
}

impl Default for World {
    fn default() -> Self {
        Self::with_valid_settings(WorldSettings::default())
    }
}

impl World {
    /// An empty world; fails when a setting is out of range.
    pub fn new(settings: WorldSettings) -> Result<World> {
        settings.validate()?;
        Ok(Self::with_valid_settings(settings))
    }

    fn with_valid_settings(settings: WorldSettings) -> World {
        World {
            settings,
            bodies: Arena::new(),
            colliders: Arena::new(),
            joints: Arena::new(),
            user_constraints: Arena::new(),
            characters: Arena::new(),
            cloths: Arena::new(),
            ropes: Arena::new(),
            broad_phase: BroadPhase::new(),
            contacts: Vec::new(),
            pair_map: KeyMap::default(),
            sleeping_islands: Vec::new(),
            free_islands: Vec::new(),
            moved_static: Vec::new(),
            solver: SolverData::default(),
            events: Events::default(),
            new_pairs: Vec::new(),
            union_find: UnionFind::default(),
            awake_ids: Vec::new(),
            island_min_sleep: Vec::new(),
            wake_buffer: Vec::new(),
            pair_verdicts: Vec::new(),
            narrow_counts: (0, 0),
            collider_hot: Vec::new(),
            leaving_proxies: Vec::new(),
            body_hot: Vec::new(),
            time: 0.0,
            step_count: 0,
            timings: StepTimings::default(),
        }
    }

    /// The current settings.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Replaces the settings (takes effect at the next step); fails when one is out of range.
    pub fn set_settings(&mut self, settings: WorldSettings) -> Result<()> {
        settings.validate()?;
        let sleep_turned_off = self.settings.sleep && !settings.sleep;
        self.settings = settings;
        if sleep_turned_off {
            self.wake_all();
        }
        Ok(())
    }

    /// Sets how many threads step this world (at least 1; 0 is refused). With more than
    /// one, the world keeps a pool of that many worker threads and splits the narrow phase,
    /// the contact preparation, the solver passes per graph colour and the integration among
    /// them; the results are the same bits for every count. Without the `parallel` feature
    /// the count is kept but the world steps on the calling thread.
    pub fn set_threads(&mut self, threads: usize) -> Result<()> {
        if threads == 0 {
            return Err(crate::error::Error::new("threads", "must be at least 1, got 0"));
        }
        self.solver.workers.set_threads(threads);
        Ok(())
    }

    /// How many threads step this world (1 unless set by [`World::set_threads`]).
    pub fn threads(&self) -> usize {
        self.solver.workers.threads()
    }

    /// Simulated time so far, seconds.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Steps taken so far.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// Events of the last step.
    pub fn events(&self) -> &Events {
        &self.events
    }

    /// Wall-clock time the last step spent in each stage.
    pub fn timings(&self) -> &StepTimings {
        &self.timings
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Number of colliders.
    pub fn collider_count(&self) -> usize {
        self.colliders.len()
    }

    /// Number of awake, enabled, non-static bodies.
    pub fn awake_body_count(&self) -> usize {
        self.bodies.iter().filter(|(_, b)| b.awake && b.enabled && b.kind != crate::body::BodyKind::Static).count()
    }

    /// The body named by `id`, if it exists.
    pub fn body(&self, id: BodyId) -> Option<&Body> {
        self.bodies.get(id)
    }

    /// The collider named by `id`, if it exists.
    pub fn collider(&self, id: ColliderId) -> Option<&Collider> {
        self.colliders.get(id)
    }

    /// All bodies in creation-slot order.
    pub fn bodies(&self) -> impl Iterator<Item = (BodyId, &Body)> {
        self.bodies.iter()
    }

    /// All colliders in creation-slot order.
    pub fn colliders(&self) -> impl Iterator<Item = (ColliderId, &Collider)> {
        self.colliders.iter()
    }

    /// The first body with this name.
    pub fn find_body(&self, name: &str) -> Option<BodyId> {
        self.bodies.iter().find(|(_, b)| b.name == name).map(|(id, _)| id)
    }

    /// Touching contacts (non-sensor, at least one point) after the last step: one per
    /// touching pair of convex colliders; a body against a mesh or heightfield may give
    /// several, one per manifold (a group of touching triangles with one normal).
    pub fn contacts(&self) -> impl Iterator<Item = ContactInfo> + '_ {
        self.contacts.iter().filter(|c| c.touching && !c.sensor).flat_map(ContactInfo::all_of)
    }

    /// Number of points in touching contact pairs.
    pub fn contact_point_count(&self) -> usize {
        self.contacts.iter().filter(|c| c.touching && !c.sensor).map(|c| c.point_count()).sum()
    }

    /// Number of touching contact pairs (non-sensor, at least one point); what
    /// `contacts().count()` gives when no pair involves a mesh, without building the point
    /// lists.
    pub fn touching_pair_count(&self) -> usize {
        self.contacts.iter().filter(|c| c.touching && !c.sensor).count()
    }

    /// Number of live pairs (touching or not).
    pub fn pair_count(&self) -> usize {
        self.contacts.len()
    }

    /// The touching contact between two colliders, if any (either order); its first
    /// manifold for a body against a mesh.
    pub fn contact_between(&self, a: ColliderId, b: ColliderId) -> Option<ContactInfo> {
        let key = if a.0 <= b.0 { (a, b) } else { (b, a) };
        let index = *self.pair_map.get(&key)?;
        let contact = &self.contacts[index as usize];
        (contact.touching && !contact.sensor).then(|| ContactInfo::of(contact, 0))
    }
}
