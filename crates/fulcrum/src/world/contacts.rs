//! Contact pairs: created from the broad phase's new pairs, updated by the narrow phase every
//! step, destroyed when their fat bounds stop overlapping or a collider goes away. Begin and
//! end events are emitted here, and touching wakes sleeping bodies.

use super::World;
use crate::body::BodyKind;
use crate::collider::Collider;
use crate::collision::contact::{Contact, ManifoldState};
use crate::collision::manifold::Manifold;
use crate::collision::manifold_cache::{CarryRule, Surface};
use crate::collision::narrow_phase::{self, PairCache};
use crate::dynamics::workers;
use crate::id::{Arena, BodyId, ColliderId};
use crate::math::{Pose, Vec3};
use crate::world::events::ContactEvent;

/// What the narrow phase decided for one pair. Decided for every pair at once (split among
/// the worker threads), then applied pair by pair in the order of the list, so events and
/// wake-ups come out in the same order for every thread count.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PairVerdict {
    /// The pair goes away; its bodies are woken when `wake`.
    Destroy { wake: bool },
    /// Neither body is active: the pair is kept as it was (both woken when `wake`).
    Idle { wake: bool },
    /// The manifolds were updated: computed afresh, or reused from the cache. `changed`:
    /// the pair started or stopped touching (its `touching` flag is already updated; the
    /// event is still to be reported); `wake`: it touches a sleeping body.
    Updated { computed: bool, changed: bool, wake: bool },
}

thread_local! {
    /// Per-thread scratch for the manifolds of a body against a mesh.
    static MESH_MANIFOLDS: std::cell::RefCell<Vec<Manifold>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Fewest pairs per narrow-phase task (a pair takes from tens of nanoseconds, reused, to
/// microseconds against a mesh).
const PAIRS_PER_TASK: usize = 64;

/// The collider ids of the broad phase's pair of users `user_a`, `user_b`, smaller first, if
/// both colliders are alive.
fn pair_key(colliders: &Arena<Collider, ColliderId>, user_a: u32, user_b: u32) -> Option<(ColliderId, ColliderId)> {
    let (a, b) = (colliders.id_at(user_a as usize)?, colliders.id_at(user_b as usize)?);
    Some(if a.0 <= b.0 { (a, b) } else { (b, a) })
}

impl World {
    /// Broad phase: turns the new overlapping proxy pairs into contact pairs.
    pub(crate) fn find_new_pairs(&mut self) {
        let mut pairs = std::mem::take(&mut self.new_pairs);
        self.broad_phase.update_pairs_on(&self.solver.workers, &mut pairs);
        // Most pairs found already have a contact, or may have none (jointed neighbours, one
        // body's own colliders): those are dropped in a split loop, and only the contacts of
        // the others are added, in order, on this thread. (joint_grid's 19,800 jointed
        // neighbours were turned away one by one on this thread: 0.16 ms a step.)
        let mut fresh = Vec::new();
        let this = &*self;
        workers::extend_filter_mapped(&self.solver.workers, &mut fresh, &pairs, PAIRS_PER_TASK, |_, &(a, b)| {
            this.new_contact(a, b)
        });
        for contact in fresh {
            self.add_contact(contact);
        }
        self.new_pairs = pairs;
    }

    pub(crate) fn try_create_contact(&mut self, user_a: u32, user_b: u32) {
        if let Some(contact) = self.new_contact(user_a, user_b) {
            self.add_contact(contact);
        }
    }

    /// The contact pair of two colliders (broad-phase users) when they may collide and have
    /// none yet.
    fn new_contact(&self, user_a: u32, user_b: u32) -> Option<Contact> {
        let (id_a, id_b) = pair_key(&self.colliders, user_a, user_b)?;
        if self.pair_map.contains_key(&(id_a, id_b)) {
            return None;
        }
        let (a, b) = (self.colliders.get(id_a)?, self.colliders.get(id_b)?);
        if a.body == b.body || !a.groups.interacts_with(&b.groups) || self.joint_blocks_collision(a.body, b.body) {
            return None;
        }
        let (body_a, body_b) = (self.bodies.get(a.body)?, self.bodies.get(b.body)?);
        let dynamic = body_a.kind == BodyKind::Dynamic || body_b.kind == BodyKind::Dynamic;
        if !(dynamic || a.sensor || b.sensor) {
            return None;
        }
        Some(Contact {
            collider_a: id_a,
            collider_b: id_b,
            body_a: a.body,
            body_b: b.body,
            cache: PairCache::default(),
            manifold_cache: None,
            first: ManifoldState::default(),
            more: Vec::new(),
            friction: (a.friction * b.friction).sqrt(),
            restitution: a.restitution.max(b.restitution),
            rolling_resistance: a.rolling_resistance.max(b.rolling_resistance),
            sensor: a.sensor || b.sensor,
            touching: false,
        })
    }

    /// Adds a contact pair from [`World::new_contact`], unless the pair has one already (a
    /// pair the broad phase reported twice).
    fn add_contact(&mut self, contact: Contact) {
        let key = (contact.collider_a, contact.collider_b);
        if self.pair_map.contains_key(&key) {
            return;
        }
        self.pair_map.insert(key, self.contacts.len() as u32);
        self.contacts.push(contact);
    }

    /// Narrow phase: new manifolds for every pair with an awake body; events; waking.
    pub(crate) fn update_contacts(&mut self, dt: f32) {
        self.refresh_body_hot();
        let mut to_wake = std::mem::take(&mut self.wake_buffer);
        to_wake.clear();
        let moved_static = std::mem::take(&mut self.moved_static);
        let mut contacts = std::mem::take(&mut self.contacts);
        let mut verdicts = std::mem::take(&mut self.pair_verdicts);
        let world = &*self;
        workers::map_mut(&self.solver.workers, &mut contacts, &mut verdicts, PAIRS_PER_TASK, |contact| {
            world.collide_pair(contact, dt, &moved_static)
        });
        self.contacts = contacts;
        self.narrow_counts = (0, 0);
        let mut i = 0;
        // Only the verdicts are read here; a pair itself only when something is to be done.
        while i < self.contacts.len() {
            let bodies = |contact: &Contact| [contact.body_a, contact.body_b];
            match verdicts[i] {
                PairVerdict::Destroy { wake } => {
                    if wake {
                        to_wake.extend(bodies(&self.contacts[i]));
                    }
                    self.destroy_contact(i);
                    verdicts.swap_remove(i);
                    continue;
                }
                PairVerdict::Idle { wake: true } => to_wake.extend(bodies(&self.contacts[i])),
                PairVerdict::Idle { wake: false } => {}
                PairVerdict::Updated { computed, changed, wake } => {
                    match computed {
                        true => self.narrow_counts.0 += 1,
                        false => self.narrow_counts.1 += 1,
                    }
                    if changed {
                        self.report_touching(i);
                    }
                    if wake {
                        self.wake_sleeping_ends(i, &mut to_wake);
                    }
                }
            }
            i += 1;
        }
        for &id in to_wake.iter().chain(&moved_static) {
            if self.bodies.get(id).is_some_and(|b| b.kind != BodyKind::Static) {
                self.wake_body_island(id);
            }
        }
        self.wake_buffer = to_wake;
        self.pair_verdicts = verdicts;
        self.moved_static = moved_static;
        self.moved_static.clear();
    }

    /// Decides what becomes of one pair and, when a body is active, updates its manifolds.
    /// Reads the world, writes only the pair.
    fn collide_pair(&self, contact: &mut Contact, dt: f32, moved_static: &[BodyId]) -> PairVerdict {
        let (Some(hot_a), Some(hot_b)) = (self.collider_hot(contact.collider_a), self.collider_hot(contact.collider_b))
        else {
            return PairVerdict::Destroy { wake: true };
        };
        let (body_a, body_b) = (self.body_hot(contact.body_a), self.body_hot(contact.body_b));
        if !body_a.alive || !body_b.alive {
            return PairVerdict::Destroy { wake: true };
        }
        if !body_a.enabled || !body_b.enabled {
            return PairVerdict::Destroy { wake: false };
        }
        if !body_a.active && !body_b.active {
            let wake = moved_static.contains(&contact.body_a) || moved_static.contains(&contact.body_b);
            return PairVerdict::Idle { wake };
        }
        // A pair that had points last step is close enough that its fat boxes overlap (or it
        // will be found apart by the narrow phase and checked next step): only pairs without
        // points pay for the broad-phase lookup.
        if contact.point_count() == 0 && !self.fat_boxes_overlap(contact.collider_a, contact.collider_b) {
            return PairVerdict::Destroy { wake: false };
        }
        let margin = self.settings.solver.speculative_distance + dt * body_a.closing_speed_bound(&body_b);
        let pose_a = hot_a.pose;
        let pose_b = separated_if_coincident(&pose_a, hot_b.pose, contact.collider_a, contact.collider_b);
        let flat_faced = hot_a.surface == Surface::Flat && hot_b.surface == Surface::Flat;
        let relative = pose_a.inv_mul_pose(&pose_b);
        let (Some(col_a), Some(col_b)) =
            (self.colliders.get(contact.collider_a), self.colliders.get(contact.collider_b))
        else {
            return PairVerdict::Destroy { wake: false };
        };
        // A cached manifold is stored only where both surfaces can carry it, with the rule
        // they are carried by, so one found is valid. Against triangles a rounded body's
        // manifold is cached too (their query is costly); between convex shapes only flat
        // ones and cylinders' caps and sides are.
        let carry_rule = |manifolds: &[Manifold]| {
            let surface_a = hot_a.surface.carried_as(pose_a.rotation, manifolds)?;
            let surface_b = hot_b.surface.carried_as(pose_b.rotation, manifolds)?;
            Some(CarryRule::new(surface_a, surface_b))
        };
        let computed = if narrow_phase::is_triangle_pair(&col_a.shape, &col_b.shape) {
            MESH_MANIFOLDS.with_borrow_mut(|manifolds| {
                let reused =
                    contact.manifold_cache.as_ref().is_some_and(|c| c.reuse_all(&pose_a, &relative, manifolds));
                if !reused {
                    narrow_phase::collide_triangles(&col_a.shape, &pose_a, &col_b.shape, &pose_b, margin, manifolds);
                    if let Some(rule) = carry_rule(manifolds) {
                        let cache = contact.manifold_cache.get_or_insert_with(Box::default);
                        cache.store_all(&pose_a, relative, rule, manifolds);
                    }
                }
                contact.set_manifolds(manifolds, flat_faced);
                !reused
            })
        } else {
            let mut manifold = Manifold::new();
            let unrounded =
                !matches!(hot_a.surface, Surface::Rounded(_)) && !matches!(hot_b.surface, Surface::Rounded(_));
            let reused = unrounded
                && contact.manifold_cache.as_ref().is_some_and(|c| c.reuse(&pose_a, &relative, &mut manifold));
            if !reused {
                let (shape_a, shape_b) = (&col_a.shape, &col_b.shape);
                narrow_phase::collide(shape_a, &pose_a, shape_b, &pose_b, margin, &mut contact.cache, &mut manifold);
                if let Some(rule) = unrounded.then(|| carry_rule(std::slice::from_ref(&manifold))).flatten() {
                    contact.manifold_cache.get_or_insert_with(Box::default).store(&pose_a, relative, rule, &manifold);
                }
            }
            contact.set_manifolds(std::slice::from_ref(&manifold), flat_faced);
            !reused
        };
        let touching = if contact.sensor { contact.min_separation() < 0.0 } else { contact.point_count() > 0 };
        let changed = touching != contact.touching;
        contact.touching = touching;
        let wake = touching && !contact.sensor && (body_a.sleeping || body_b.sleeping);
        PairVerdict::Updated { computed, changed, wake }
    }

    /// Pair `i` has just started or stopped touching (its flag says which): the begin or
    /// end event.
    fn report_touching(&mut self, i: usize) {
        let contact = &self.contacts[i];
        let list = match (contact.sensor, contact.touching) {
            (false, true) => &mut self.events.contact_begin,
            (false, false) => &mut self.events.contact_end,
            (true, true) => &mut self.events.sensor_begin,
            (true, false) => &mut self.events.sensor_end,
        };
        list.push(ContactEvent::of(contact));
    }

    /// Pair `i` touches: its sleeping bodies are listed for waking.
    fn wake_sleeping_ends(&self, i: usize, to_wake: &mut Vec<BodyId>) {
        let contact = &self.contacts[i];
        for id in [contact.body_a, contact.body_b] {
            if self.body_hot(id).sleeping {
                to_wake.push(id);
            }
        }
    }

    /// Removes pair `i` (swap-remove), reporting the end of touching.
    pub(crate) fn destroy_contact(&mut self, i: usize) {
        let contact = self.contacts.swap_remove(i);
        self.pair_map.remove(&(contact.collider_a, contact.collider_b));
        if contact.touching {
            let event = ContactEvent::of(&contact);
            if contact.sensor {
                self.events.sensor_end.push(event);
            } else {
                self.events.contact_end.push(event);
            }
        }
        if i < self.contacts.len() {
            let moved = &self.contacts[i];
            self.pair_map.insert((moved.collider_a, moved.collider_b), i as u32);
        }
    }

    /// Do the two colliders' fat boxes still overlap in the broad phase?
    fn fat_boxes_overlap(&self, a: ColliderId, b: ColliderId) -> bool {
        match (self.colliders.get(a), self.colliders.get(b)) {
            (Some(a), Some(b)) => self.broad_phase.fat_aabbs_overlap(a.proxy, b.proxy),
            _ => false,
        }
    }

    /// Pair index of two colliders, if they have a live pair.
    #[allow(dead_code)]
    pub(crate) fn pair_index(&self, a: ColliderId, b: ColliderId) -> Option<usize> {
        let key = if a.0 <= b.0 { (a, b) } else { (b, a) };
        self.pair_map.get(&key).map(|&i| i as usize)
    }
}

/// Centres closer than this (metres) count as coincident for [`separated_if_coincident`].
const COINCIDENT: f32 = 1e-6;

/// How far [`separated_if_coincident`] moves B (metres): far below anything visible, far
/// above the rounding of a coordinate of a few metres.
const COINCIDENT_SHIFT: f32 = 1e-4;

/// B's pose for the narrow phase: as it is, unless its centre coincides with A's. Two bodies
/// at exactly one point give the narrow phase no direction to separate them: a box pair
/// keeps the first axis of least overlap, so every pair of a clump pushed along one axis,
/// ordered by collider, and the clump spread as one chain (the relative push bounds of its
/// pairs add up along it: 1,000 boxes at one point launched bodies at 16 m/s once rounding
/// stopped breaking the tie). So such a pair is queried with B shifted by
/// [`COINCIDENT_SHIFT`] along a direction made from the two collider ids:
/// deterministic, different for each pair.
fn separated_if_coincident(pose_a: &Pose, pose_b: Pose, a: ColliderId, b: ColliderId) -> Pose {
    if pose_a.position.distance_squared(pose_b.position) >= COINCIDENT * COINCIDENT {
        return pose_b;
    }
    let mix = |id: ColliderId, factor: u64| u64::from(id.0.index).wrapping_add(1).wrapping_mul(factor);
    let bits = mix(a, 0x9E37_79B9_7F4A_7C15) ^ mix(b, 0xC2B2_AE3D_27D4_EB4F);
    let coordinate = |shift: u32| ((bits >> shift) & 0xFFFF) as f32 / 32_767.5 - 1.0;
    let direction = Vec3::new(coordinate(0), coordinate(16), coordinate(32)).normalize_or(Vec3::X);
    Pose { position: pose_b.position + direction * COINCIDENT_SHIFT, ..pose_b }
}
