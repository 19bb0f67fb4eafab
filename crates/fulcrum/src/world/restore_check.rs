//! The consistency check of a restored snapshot.
//!
//! A snapshot carries the world's state as it is, built data and cross-references included
//! (meshes' hierarchies, broad-phase trees, contact lists, sleeping islands), so that restore
//! rebuilds nothing and the world steps on bit-identically. The checksum catches accidents,
//! not intent: bytes shaped by hand (or by a faulty peer in rollback networking) decode into
//! a world whose indices the step trusts. So before the world is handed out, every index is
//! checked against what it indexes, every back-reference against its reference, every built
//! structure against what it was built from, and every number the step reads against its
//! valid range. Each check is O(n) in what it checks (meshes' adjacency and heightfields'
//! flags are rebuilt and compared; a hierarchy is walked once), and the first failure is the
//! error, naming the field.
//!
//! Per-step scratch (the solver's arrays, the broad phase's pair buffers, the bodies' hot
//! entries, particles' hash tables) is not checked: every step rebuilds it before reading it.

use super::hot::surface_of;
use super::World;
use crate::body::{Body, BodyKind};
use crate::collider::{Collider, ColliderDef};
use crate::collision::broad_phase::ProxyKind;
use crate::error::{check_finite, check_vec3, Error, Result};
use crate::id::{BodyId, ColliderId};
use crate::joint::Joint;
use crate::math::Pose;

/// How far from unit length a stored rotation may be (the step renormalises every rotation
/// it integrates; a snapshot taken by the engine is within a few units of rounding).
const ROTATION_SLACK: f32 = 1.0e-3;

impl World {
    /// Checks a world decoded from a snapshot (see the module docs); the error's field is the
    /// path of the first inconsistent value.
    pub(crate) fn check_restored(&self) -> Result<()> {
        self.check_storage()?;
        self.check_bodies()?;
        self.check_colliders()?;
        self.check_joints()?;
        self.check_user_constraints()?;
        self.check_proxies()?;
        self.check_contacts()?;
        self.check_sleeping_islands()?;
        self.check_particle_sets()?;
        self.check_characters()
    }

    /// Every arena's free list and count.
    fn check_storage(&self) -> Result<()> {
        self.bodies.check_slots().map_err(|e| e.within("bodies"))?;
        self.colliders.check_slots().map_err(|e| e.within("colliders"))?;
        self.joints.check_slots().map_err(|e| e.within("joints"))?;
        self.user_constraints.check_slots().map_err(|e| e.within("user_constraints"))?;
        self.characters.check_slots().map_err(|e| e.within("characters"))?;
        self.cloths.check_slots().map_err(|e| e.within("cloths"))?;
        self.ropes.check_slots().map_err(|e| e.within("ropes"))
    }

    /// Each body's numbers and solver index, and its lists of colliders and joints: each entry
    /// attached to the body and listed once, and every collider and joint end listed (by
    /// counting, so a static body with thousands of colliders costs no more per collider).
    fn check_bodies(&self) -> Result<()> {
        let mut collider_listed = vec![false; self.colliders.capacity_index()];
        let mut end_listed = vec![[false; 2]; self.joints.capacity_index()];
        let (mut colliders_listed, mut ends_listed) = (0, 0);
        for (id, body) in self.bodies.iter() {
            let field = |what: &str| format!("bodies[{}].{what}", id.index());
            if body.enabled {
                check_body_numbers(body).map_err(|e| e.within(&format!("bodies[{}]", id.index())))?;
            }
            for &c in &body.colliders {
                let attached = self.colliders.get(c).is_some_and(|collider| collider.body == id);
                if !attached || std::mem::replace(&mut collider_listed[c.index()], true) {
                    return Err(Error::new(field("colliders"), "names a collider not attached to it, or twice"));
                }
            }
            for &j in &body.joints {
                let side = self.joints.get(j).and_then(|joint| match joint.body_b == id {
                    true => Some(1),
                    false => (joint.body_a == Some(id)).then_some(0),
                });
                if side.is_none_or(|side| std::mem::replace(&mut end_listed[j.index()][side], true)) {
                    return Err(Error::new(field("joints"), "names a joint that does not hold it, or twice"));
                }
            }
            (colliders_listed, ends_listed) =
                (colliders_listed + body.colliders.len(), ends_listed + body.joints.len());
            let solved = body.solver_index as usize;
            if solved != 0 && self.awake_ids.get(solved - 1) != Some(&id) {
                return Err(Error::new(field("solver_index"), "does not name the body's place in the step"));
            }
        }
        let ends: usize = self.joints.iter().map(|(_, joint)| 1 + usize::from(joint.body_a.is_some())).sum();
        if colliders_listed != self.colliders.len() || ends_listed != ends {
            return Err(Error::new("bodies", "a collider or joint is missing from its body's list"));
        }
        Ok(())
    }

    /// Each collider's body, shape and material, pose, hot entry and proxy.
    fn check_colliders(&self) -> Result<()> {
        for (id, collider) in self.colliders.iter() {
            let at = |what: &str| format!("colliders[{}]{what}", id.index());
            // (That its body lists it once is checked with the bodies.)
            let Some(body) = self.bodies.get(collider.body) else {
                return Err(Error::new(at(".body"), "no such body"));
            };
            check_collider(collider, body).map_err(|e| e.within(&at("")))?;
            let hot = self.collider_hot(id);
            let fresh = |h: &&super::hot::ColliderHot| {
                h.pose == collider.world_pose && h.surface == surface_of(&collider.shape)
            };
            if hot.filter(fresh).is_none() {
                return Err(Error::new(at(".hot"), "does not match the collider"));
            }
            let kind = if body.kind == BodyKind::Static { ProxyKind::Static } else { ProxyKind::Moving };
            let proxy_user = self.broad_phase.user(collider.proxy);
            if proxy_user != u32::MAX && (proxy_user as usize != id.index() || collider.proxy.kind() != kind) {
                return Err(Error::new(at(".proxy"), "belongs to another collider or tree"));
            }
        }
        let stale = self.collider_hot.iter().enumerate().find(|&(slot, hot)| {
            hot.generation != 0
                && self.colliders.id_at(slot).is_none_or(|id: ColliderId| id.0.generation != hot.generation)
        });
        match stale {
            Some((slot, _)) => Err(Error::new(format!("collider_hot[{slot}]"), "names no live collider")),
            None => Ok(()),
        }
    }

    /// Each joint's bodies (that they list it is checked with the bodies), kind, frames and
    /// stored impulses.
    fn check_joints(&self) -> Result<()> {
        for (id, joint) in self.joints.iter() {
            let at = |what: &str| format!("joints[{}]{what}", id.index());
            let missing = |body: BodyId| !self.bodies.contains(body);
            if missing(joint.body_b) || joint.body_a.is_some_and(missing) || joint.body_a == Some(joint.body_b) {
                return Err(Error::new(at(".body_b"), "no such body, or the same body twice"));
            }
            check_joint(joint).map_err(|e| e.within(&at("")))?;
        }
        Ok(())
    }

    /// Each user constraint's bodies and stored impulses.
    fn check_user_constraints(&self) -> Result<()> {
        for (id, entry) in self.user_constraints.iter() {
            let at = |what: &str| format!("user_constraints[{}].{what}", id.0.index);
            let missing = |body: BodyId| !self.bodies.contains(body);
            if missing(entry.body_b) || entry.body_a.is_some_and(missing) {
                return Err(Error::new(at("body_b"), "no such body"));
            }
            if !entry.impulse.iter().all(|x| x.is_finite()) {
                return Err(Error::new(at("impulse"), "not finite"));
            }
        }
        Ok(())
    }

    /// The broad phase's trees, and every live proxy naming the live collider that owns it.
    fn check_proxies(&self) -> Result<()> {
        self.broad_phase.validate().map_err(|e| e.within("broad_phase"))?;
        let mut orphan = None;
        self.broad_phase.for_each_proxy(|proxy, user| {
            let owned = self.colliders.get_by_index(user as usize).is_some_and(|c| c.proxy == proxy);
            if !owned && orphan.is_none() {
                orphan = Some(proxy);
            }
        });
        match orphan {
            Some(proxy) => Err(Error::new(format!("broad_phase.proxy[{}]", proxy.0), "belongs to no collider")),
            None => Ok(()),
        }
    }

    /// Each contact pair: live colliders in key order with their own bodies, found under its
    /// key, sound manifolds and impulses.
    fn check_contacts(&self) -> Result<()> {
        if self.pair_map.len() != self.contacts.len() {
            return Err(Error::new("pair_map", "does not list every contact once"));
        }
        for (i, contact) in self.contacts.iter().enumerate() {
            let body_of = |c: ColliderId| self.colliders.get(c).map(|collider| collider.body);
            let bodies_match = body_of(contact.collider_a) == Some(contact.body_a)
                && body_of(contact.collider_b) == Some(contact.body_b);
            let keyed = contact.collider_a.0 <= contact.collider_b.0
                && self.pair_map.get(&(contact.collider_a, contact.collider_b)) == Some(&(i as u32));
            if !bodies_match || !keyed {
                return Err(Error::new(format!("contacts[{i}]"), "its colliders, bodies and key do not match"));
            }
            let states = std::iter::once(&contact.first).chain(&contact.more);
            let sound_impulses = |s: &crate::collision::contact::ManifoldState| {
                s.impulses.iter().all(|p| p.normal.is_finite())
                    && s.friction_impulse.linear.is_finite()
                    && s.friction_impulse.rolling.is_finite()
                    && s.friction_impulse.twist.is_finite()
            };
            let sound = states.clone().all(|s| s.manifold.is_sound() && sound_impulses(s))
                && contact.manifold_cache.as_ref().is_none_or(|cache| cache.is_sound())
                && [contact.friction, contact.restitution, contact.rolling_resistance].iter().all(|x| x.is_finite());
            if !sound {
                return Err(Error::new(format!("contacts[{i}].manifolds"), "too many points or numbers not finite"));
            }
        }
        Ok(())
    }

    /// Sleeping islands: each body in at most one, the island its `sleeping_island` names
    /// (so every island holds exactly the bodies that name it), and the free list naming
    /// distinct empty islands.
    fn check_sleeping_islands(&self) -> Result<()> {
        let mut listed = vec![false; self.bodies.capacity_index()];
        let mut naming = vec![0usize; self.sleeping_islands.len()];
        for (id, body) in self.bodies.iter() {
            match naming.get_mut(body.sleeping_island as usize) {
                Some(count) => *count += 1,
                None if body.sleeping_island == u32::MAX => {}
                None => return Err(Error::new(format!("bodies[{}].sleeping_island", id.index()), "no such island")),
            }
        }
        for (k, members) in self.sleeping_islands.iter().enumerate() {
            let mut once_here = |id: &BodyId| {
                let here = self.bodies.get(*id).is_some_and(|b| b.sleeping_island as usize == k);
                here && !std::mem::replace(&mut listed[id.index()], true)
            };
            if !members.iter().all(&mut once_here) || members.len() != naming[k] {
                return Err(Error::new(format!("sleeping_islands[{k}]"), "does not hold exactly its bodies"));
            }
        }
        let mut freed = vec![false; self.sleeping_islands.len()];
        for (k, &island) in self.free_islands.iter().enumerate() {
            let empty = self.sleeping_islands.get(island as usize).is_some_and(Vec::is_empty);
            if !empty || std::mem::replace(&mut freed[island as usize], true) {
                return Err(Error::new(format!("free_islands[{k}]"), "not a distinct empty island"));
            }
        }
        Ok(())
    }

    /// Cloths and ropes: their particles (see `Particles::check_stored`) and the bodies they
    /// are attached to.
    fn check_particle_sets(&self) -> Result<()> {
        let attached_exist = |particles: &crate::particles::Particles| {
            particles.attachments.iter().all(|a| self.bodies.contains(a.body))
        };
        for (id, cloth) in self.cloths.iter() {
            let at = |what: &str| format!("cloths[{}]{what}", id.0.index);
            cloth.check_stored().map_err(|e| e.within(&at("")))?;
            if !attached_exist(&cloth.particles) {
                return Err(Error::new(at(".attachments"), "no such body"));
            }
        }
        for (id, rope) in self.ropes.iter() {
            let at = |what: &str| format!("ropes[{}]{what}", id.0.index);
            rope.check_stored().map_err(|e| e.within(&at("")))?;
            if !attached_exist(&rope.particles) {
                return Err(Error::new(at(".attachments"), "no such body"));
            }
        }
        Ok(())
    }

    /// Characters: a valid definition and finite state.
    fn check_characters(&self) -> Result<()> {
        for (id, character) in self.characters.iter() {
            let at = |what: &str| format!("characters[{}]{what}", id.0.index);
            character.def.validate().map_err(|e| e.within(&at(".def")))?;
            let vectors = [character.position, character.velocity, character.desired_velocity, character.free_velocity];
            let contacts = character.contacts.iter().flat_map(|c| [c.point, c.normal]);
            let ground = character.ground.iter().flat_map(|g| [g.point, g.normal]);
            if !vectors.into_iter().chain(contacts).chain(ground).all(|v| v.is_finite())
                || !character.jump_request.is_finite()
                || check_pose(&character.ground_pose).is_err()
            {
                return Err(Error::new(at(""), "its state is not finite"));
            }
        }
        Ok(())
    }
}

/// A body's state and mass properties: finite, masses not negative, a unit rotation.
fn check_body_numbers(body: &Body) -> Result<()> {
    check_pose(&body.pose).map_err(|e| e.within("pose"))?;
    let vectors = [
        ("center", body.center),
        ("local_center", body.local_center),
        ("linear_velocity", body.linear_velocity),
        ("angular_velocity", body.angular_velocity),
        ("force", body.force),
        ("torque", body.torque),
    ];
    for (field, v) in vectors {
        check_vec3(field, v)?;
    }
    let scalars = [
        ("mass", body.mass),
        ("inv_mass", body.inv_mass),
        ("linear_damping", body.linear_damping),
        ("angular_damping", body.angular_damping),
        ("sleep_time", body.sleep_time),
        ("max_extent", body.max_extent),
    ];
    for (field, x) in scalars {
        crate::error::check_non_negative(field, x)?;
    }
    check_finite("gravity_scale", body.gravity_scale)?;
    let inertia = [body.inertia_local, body.inv_inertia_local];
    if !inertia.iter().all(|m| m.is_finite()) {
        return Err(Error::new("inertia_local", "not finite"));
    }
    Ok(())
}

/// A collider as `create_collider` accepts it on `body`, with a sound stored shape and pose.
fn check_collider(collider: &Collider, body: &Body) -> Result<()> {
    collider.shape.check_stored().map_err(|e| e.within("shape"))?;
    let def = ColliderDef {
        shape: collider.shape.clone(),
        position: collider.local_pose.position,
        rotation: collider.local_pose.rotation,
        density: collider.density,
        friction: collider.friction,
        restitution: collider.restitution,
        rolling_resistance: collider.rolling_resistance,
        sensor: collider.sensor,
        groups: collider.groups,
    };
    def.validated()?.check_body_kind(body.kind)?;
    check_pose(&collider.world_pose).map_err(|e| e.within("world_pose"))?;
    if body.enabled && !collider.aabb.is_valid() {
        return Err(Error::new("aabb", "not finite or not ordered"));
    }
    Ok(())
}

/// A joint's kind, options, frames and stored impulses.
fn check_joint(joint: &Joint) -> Result<()> {
    joint.kind.validate().map_err(|e| e.within("kind"))?;
    for (field, limit) in [("break_force", joint.break_force), ("break_torque", joint.break_torque)] {
        if let Some(limit) = limit {
            crate::error::check_non_negative(field, limit)?;
        }
    }
    check_pose(&joint.frame_a).map_err(|e| e.within("frame_a"))?;
    check_pose(&joint.frame_b).map_err(|e| e.within("frame_b"))?;
    let state = &joint.state;
    if !state.impulses.iter().all(|x| x.is_finite()) || !state.turns.0.is_finite() || !state.turns.1.is_finite() {
        return Err(Error::new("state", "an impulse is not finite"));
    }
    Ok(())
}

/// A finite pose with a unit rotation (within [`ROTATION_SLACK`]).
fn check_pose(pose: &Pose) -> Result<()> {
    check_vec3("position", pose.position)?;
    if !pose.rotation.is_finite() || (pose.rotation.length() - 1.0).abs() > ROTATION_SLACK {
        return Err(Error::new("rotation", "not a finite unit quaternion"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    /// A body taken out of the simulation (its swept bounds overflowed: a speed of `f32::MAX`
    /// over a one-second timestep) keeps a state the check accepts: the world restores and
    /// steps on like the original.
    #[test]
    fn a_world_with_a_body_taken_out_restores() {
        let mut world = World::new(WorldSettings { timestep: 1.0, ..Default::default() }).unwrap();
        let ground = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
        world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(5.0, 0.5, 5.0)).unwrap())).unwrap();
        let lost = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 1.0, 0.0))).unwrap();
        world.create_collider(lost, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
        let kept = world.create_body(&BodyDef::dynamic(Vec3::new(2.0, 1.0, 0.0))).unwrap();
        world.create_collider(kept, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.3)).unwrap())).unwrap();
        world.step(1.0 / 60.0).unwrap();
        world.bodies.get_mut(lost).unwrap().linear_velocity = Vec3::new(f32::MAX, 0.0, 0.0);
        world.refresh_collider_poses(lost);
        assert!(!world.body(lost).unwrap().is_enabled(), "the test lost its disabled body");
        let mut restored = World::restore(&world.snapshot()).unwrap();
        for _ in 0..30 {
            world.step(1.0 / 60.0).unwrap();
            restored.step(1.0 / 60.0).unwrap();
        }
        assert_eq!(world.snapshot(), restored.snapshot());
    }
}
