//! Cloths and ropes in the world: create, destroy, read, pin and move their particles, and
//! their stage of the step (after the rigid bodies and the characters; see
//! `crate::particles`).

use std::collections::{HashMap, HashSet, VecDeque};

use super::World;
use crate::body::{Body, BodyKind};
use crate::collider::Collider;
use crate::collision::broad_phase::BroadPhase;
use crate::collision::contact::Contact;
use crate::error::{check_vec3_range, Error, Result};
use crate::geometry::Aabb;
use crate::id::{Arena, BodyId, ClothId, ColliderId, JointId, RawId, RopeId};
use crate::joint::Joint;
use crate::math::Vec3;
use crate::particles::{
    attach, nearest_on_convex, solve_body_contacts, solve_stage_joints, surface_planes, BodyAttachment, BodyContact,
    Cloth, ClothDef, CoupledBody, ParticleContact, ParticleSetId, Particles, Rope, RopeDef, StageJoint, CONTACT_MARGIN,
    MAX_SUBSTEP,
};
use crate::shape::Shape;

fn unknown_set(id: ParticleSetId) -> Error {
    let (what, index, generation) = match id {
        ParticleSetId::Cloth(c) => ("cloth", c.0.index, c.0.generation),
        ParticleSetId::Rope(r) => ("rope", r.0.index, r.0.generation),
    };
    Error::new(what, format!("no {what} with id {index}:{generation} exists"))
}

impl World {
    /// Creates a cloth (validated as [`ClothDef::validate`] says; an attachment to a body
    /// that does not exist is refused naming `attached[i].body`).
    pub fn create_cloth(&mut self, def: &ClothDef) -> Result<ClothId> {
        def.validate()?;
        let anchors = def.attached.iter().map(|a| (def.index(a.particle) as u32, a.body, a.anchor));
        let attachments = self.body_attachments(anchors)?;
        let mut cloth = Cloth::new(def.clone());
        attach(&mut cloth.particles, attachments);
        Ok(self.cloths.insert(cloth))
    }

    /// Creates a rope (validated as [`RopeDef::validate`] says).
    pub fn create_rope(&mut self, def: &RopeDef) -> Result<RopeId> {
        def.validate()?;
        let anchors = def.attached.iter().map(|a| (a.particle, a.body, a.anchor));
        let attachments = self.body_attachments(anchors)?;
        let mut rope = Rope::new(def.clone());
        attach(&mut rope.particles, attachments);
        Ok(self.ropes.insert(rope))
    }

    /// Attachments with their anchors in the bodies' frames; an unknown body is an error
    /// naming `attached[i].body`.
    fn body_attachments(&self, anchors: impl Iterator<Item = (u32, BodyId, Vec3)>) -> Result<Vec<BodyAttachment>> {
        anchors
            .enumerate()
            .map(|(i, (particle, body, anchor))| {
                let Some(stored) = self.bodies.get(body) else {
                    let reason = format!("no body with id {}:{} exists", body.0.index, body.0.generation);
                    return Err(Error::new(format!("attached[{i}].body"), reason));
                };
                let local_anchor = stored.pose.inverse_transform_point(anchor);
                Ok(BodyAttachment { particle, body, local_anchor, fixed: stored.kind != BodyKind::Dynamic })
            })
            .collect()
    }

    /// Destroys a cloth.
    pub fn destroy_cloth(&mut self, id: ClothId) -> Result<()> {
        self.cloths.remove(id).map(|_| ()).ok_or_else(|| unknown_set(id.into()))
    }

    /// Destroys a rope.
    pub fn destroy_rope(&mut self, id: RopeId) -> Result<()> {
        self.ropes.remove(id).map(|_| ()).ok_or_else(|| unknown_set(id.into()))
    }

    /// The cloth named by `id`, if it exists.
    pub fn cloth(&self, id: ClothId) -> Option<&Cloth> {
        self.cloths.get(id)
    }

    /// The rope named by `id`, if it exists.
    pub fn rope(&self, id: RopeId) -> Option<&Rope> {
        self.ropes.get(id)
    }

    /// All cloths in creation-slot order.
    pub fn cloths(&self) -> impl Iterator<Item = (ClothId, &Cloth)> {
        self.cloths.iter()
    }

    /// All ropes in creation-slot order.
    pub fn ropes(&self) -> impl Iterator<Item = (RopeId, &Rope)> {
        self.ropes.iter()
    }

    /// The first cloth with this name.
    pub fn find_cloth(&self, name: &str) -> Option<ClothId> {
        self.cloths.iter().find(|(_, c)| c.name() == name).map(|(id, _)| id)
    }

    /// The first rope with this name.
    pub fn find_rope(&self, name: &str) -> Option<RopeId> {
        self.ropes.iter().find(|(_, r)| r.name() == name).map(|(id, _)| id)
    }

    /// The particles of a cloth or rope, if it exists.
    pub fn particles(&self, set: impl Into<ParticleSetId>) -> Option<&Particles> {
        match set.into() {
            ParticleSetId::Cloth(id) => self.cloths.get(id).map(|c| &c.particles),
            ParticleSetId::Rope(id) => self.ropes.get(id).map(|r| &r.particles),
        }
    }

    fn particles_mut(&mut self, set: ParticleSetId) -> Result<&mut Particles> {
        let found = match set {
            ParticleSetId::Cloth(id) => self.cloths.get_mut(id).map(|c| &mut c.particles),
            ParticleSetId::Rope(id) => self.ropes.get_mut(id).map(|r| &mut r.particles),
        };
        found.ok_or_else(|| unknown_set(set))
    }

    /// Fixes particle `index` where it is (`pinned`) or lets it move again; its velocity is
    /// zeroed either way.
    pub fn set_particle_pinned(&mut self, set: impl Into<ParticleSetId>, index: usize, pinned: bool) -> Result<()> {
        let particles = self.particles_mut(set.into())?;
        check_index(particles, index)?;
        particles.set_pinned(index, pinned);
        Ok(())
    }

    /// Puts particle `index` at `position` (each component within
    /// ±[`MAX_POSITION`](crate::body::MAX_POSITION)) at rest: dragging with a mouse, or
    /// moving a pin.
    pub fn set_particle_position(&mut self, set: impl Into<ParticleSetId>, index: usize, position: Vec3) -> Result<()> {
        let max = crate::body::MAX_POSITION;
        check_vec3_range("position", position, -max, max)?;
        let particles = self.particles_mut(set.into())?;
        check_index(particles, index)?;
        particles.place(index, position);
        Ok(())
    }

    /// Forgets the attachments to a body that is being destroyed.
    pub(crate) fn detach_particles(&mut self, body: BodyId) {
        let sets = self.cloths.iter_mut().map(|(_, c)| &mut c.particles);
        for particles in sets.chain(self.ropes.iter_mut().map(|(_, r)| &mut r.particles)) {
            if particles.attachments.iter().any(|a| a.body == body) {
                let kept = particles.attachments.iter().copied().filter(|a| a.body != body).collect();
                attach(particles, kept);
            }
        }
    }

    /// The particles' stage of the step (see `crate::particles`): contacts, substeps over
    /// every cloth and rope together, then the attached bodies' new poses and velocities.
    pub(crate) fn step_particles(&mut self, dt: f32) {
        if self.cloths.is_empty() && self.ropes.is_empty() {
            return;
        }
        let gravity = self.settings.gravity;
        let substeps = (dt / MAX_SUBSTEP).ceil().max(1.0) as u32;
        let h = dt / substeps as f32;
        let (gravity_f64, h_f64) = (gravity.as_dvec3(), h as f64);
        let mut coupling = Coupling::new(&self.bodies, dt, h);
        let mut sets: Vec<(&mut Particles, Vec<usize>)> = Vec::new();
        let all = self.cloths.iter_mut().map(|(_, c)| &mut c.particles);
        for particles in all.chain(self.ropes.iter_mut().map(|(_, r)| &mut r.particles)) {
            let links_to = couple(particles, &mut coupling);
            gather_contacts(particles, &self.broad_phase, &self.colliders, &mut coupling, gravity);
            particles.find_self_pairs(gravity.length() as f64, dt as f64);
            sets.push((particles, links_to));
        }
        let loads = gather_loads(&self.contacts, &self.joints, &mut coupling);
        let mut bodies = coupling.bodies;
        for _ in 0..substeps {
            bodies.iter_mut().for_each(CoupledBody::advance);
            for (particles, links_to) in sets.iter_mut() {
                particles.predict(gravity_f64, h_f64);
                particles.solve(&mut bodies, links_to, h_f64);
                particles.finish(h_f64);
            }
            solve_body_contacts(&loads.contacts, &mut bodies);
            solve_stage_joints(&loads.joints, &mut bodies);
        }
        sets.iter_mut().for_each(|(particles, _)| particles.publish());
        self.move_coupled_bodies(&bodies);
    }

    /// Writes the coupled bodies' poses and velocities back (waking those the particles woke);
    /// a body whose state is no longer finite is taken out and reported.
    fn move_coupled_bodies(&mut self, bodies: &[CoupledBody]) {
        for coupled in bodies.iter().filter(|b| b.movable()) {
            let (v, w) = (coupled.velocity, coupled.angular_velocity);
            let finite = coupled.center.is_finite() && coupled.rotation.is_finite() && v.is_finite() && w.is_finite();
            if !finite {
                self.disable_body(coupled.id, "its position or velocity became non-finite (moved by particles)");
                continue;
            }
            if coupled.woken {
                self.wake_body_island(coupled.id);
            }
            let Some(body) = self.bodies.get_mut(coupled.id) else { continue };
            body.center = coupled.center;
            body.pose.rotation = coupled.rotation;
            body.sync_origin_from_center();
            body.linear_velocity = v;
            body.angular_velocity = w;
            self.refresh_collider_poses(coupled.id);
        }
    }
}

fn check_index(particles: &Particles, index: usize) -> Result<()> {
    if index >= particles.len() {
        return Err(Error::new("index", format!("no particle {index}: there are {}", particles.len())));
    }
    Ok(())
}

/// Distance beyond which a sleeping body's attached particle wakes it, metres.
const WAKE_DISTANCE: f32 = 1.0e-3;

/// Speed above which a particle that meets a sleeping body wakes it, m/s.
const WAKE_SPEED: f32 = 0.05;

/// The bodies the stage moves or reads through their points: attached to, or touched by,
/// particles, and what touches or is jointed to those.
struct Coupling<'a> {
    stored: &'a Arena<Body, BodyId>,
    bodies: Vec<CoupledBody>,
    /// Where each body met so far is in `bodies`.
    found: HashMap<BodyId, usize>,
    dt: f32,
    h: f32,
}

impl<'a> Coupling<'a> {
    fn new(stored: &'a Arena<Body, BodyId>, dt: f32, h: f32) -> Self {
        Coupling { stored, bodies: Vec::new(), found: HashMap::new(), dt, h }
    }

    /// The index of body `id` in `bodies`, adding it if it is not there yet (woken when `wake`
    /// is set and it sleeps).
    fn index(&mut self, id: BodyId, wake: bool) -> usize {
        let Some(body) = self.stored.get(id) else { return self.add(CoupledBody::missing(id)) };
        match self.found.get(&id).copied() {
            Some(k) if !wake || self.bodies[k].movable() || body.kind != BodyKind::Dynamic => k,
            Some(k) => {
                self.bodies[k] = CoupledBody::new(id, body, self.dt, self.h, true);
                k
            }
            None => self.add(CoupledBody::new(id, body, self.dt, self.h, wake)),
        }
    }

    fn add(&mut self, body: CoupledBody) -> usize {
        self.found.insert(body.id, self.bodies.len());
        self.bodies.push(body);
        self.bodies.len() - 1
    }

    /// The index of the static world (the immovable frame of a joint with no body A),
    /// added the first time it is asked for.
    fn static_world(&mut self) -> usize {
        let world = BodyId(RawId { index: u32::MAX, generation: 0 });
        match self.found.get(&world) {
            Some(&k) => k,
            None => self.add(CoupledBody::missing(world)),
        }
    }
}

/// The index in the coupled bodies of each attachment's body. A sleeping body whose attached
/// particle has left its anchor is woken (it then moves with the rest).
fn couple(particles: &Particles, coupling: &mut Coupling) -> Vec<usize> {
    particles
        .attachments
        .iter()
        .map(|attachment| {
            let pulled = coupling.stored.get(attachment.body).is_some_and(|body| {
                let anchor = body.pose.transform_point(attachment.local_anchor);
                (particles.position[attachment.particle as usize] - anchor).length() > WAKE_DISTANCE
            });
            coupling.index(attachment.body, pulled)
        })
        .collect()
}

/// Each particle's contact planes for this step: colliders whose boxes meet the box its
/// centre may reach this step, grown by the thickness and [`CONTACT_MARGIN`]. Sensors and
/// the bodies the set is attached to are passed (as a joint's two bodies do not collide).
/// A plane of a dynamic body that is awake (or that a moving particle wakes) is kept in the
/// body's frame and moves with it, and the body is coupled: the particle pushes it.
fn gather_contacts(
    particles: &mut Particles,
    broad_phase: &BroadPhase,
    colliders: &Arena<Collider, ColliderId>,
    coupling: &mut Coupling,
    gravity: Vec3,
) {
    particles.contacts.clear();
    let dt = coupling.dt;
    let fall = gravity.length() * dt * dt;
    let grow = particles.material.thickness + CONTACT_MARGIN + fall;
    let reach_of = |i: usize| grow + particles.velocity[i].length() * dt;
    let mut bounds: Option<Aabb> = None;
    for i in 0..particles.len() {
        let b = Aabb::new(particles.position[i], particles.position[i]).expanded(reach_of(i));
        bounds = Some(bounds.map_or(b, |all| all.union(&b)));
    }
    let Some(bounds) = bounds else { return };
    let mut candidates: Vec<&Collider> = Vec::new();
    broad_phase.query(&bounds, |user| {
        let collider = colliders.id_at(user as usize).and_then(|id| colliders.get(id));
        let attached_to = |c: &Collider| particles.attachments.iter().any(|a| a.body == c.body);
        if let Some(collider) = collider.filter(|c| !c.is_sensor() && !attached_to(c)) {
            candidates.push(collider);
        }
        true
    });
    let mut found = Vec::new();
    for i in 0..particles.len() {
        let reach = reach_of(i);
        let x = particles.position[i];
        let particle_box = Aabb::new(x, x).expanded(reach);
        for collider in candidates.iter().filter(|c| c.aabb.overlaps(&particle_box)) {
            let stored = coupling.stored;
            let Some(body) = stored.get(collider.body) else { continue };
            let friction = (particles.material.friction * collider.friction).sqrt();
            let moving = body.kind == BodyKind::Dynamic
                && body.enabled
                && (body.awake || particles.velocity[i].length() > WAKE_SPEED);
            let mut push = |point: Vec3, normal: Vec3, distance: f32| {
                if distance >= reach || !normal.is_finite() {
                    return;
                }
                let particle = i as u32;
                let contact = if moving {
                    let index = coupling.index(collider.body, true) as u32;
                    let point = body.pose.inverse_transform_point(point);
                    let normal = body.pose.rotation.inverse() * normal;
                    ParticleContact {
                        particle,
                        normal,
                        point,
                        surface_velocity: Vec3::ZERO,
                        friction,
                        body: Some(index),
                    }
                } else {
                    let surface_velocity = body.velocity_at_point(point);
                    ParticleContact { particle, normal, point, surface_velocity, friction, body: None }
                };
                found.push(contact);
            };
            let pose = collider.world_pose;
            match &collider.shape {
                Shape::TriMesh(_) | Shape::HeightField(_) => surface_planes(&collider.shape, &pose, x, reach, push),
                shape => {
                    let local = pose.inverse_transform_point(x);
                    if let Some((point, normal, distance)) = nearest_on_convex(shape, local) {
                        push(pose.transform_point(point), pose.transform_vector(normal), distance);
                    }
                }
            }
        }
    }
    particles.contacts = found;
    particles.push_out_of_contacts();
}

/// What the stage holds between its bodies besides the particles: the contacts of its moving
/// bodies with other awake dynamic bodies, as position constraints ([`BodyContact`]), and the
/// joints of its moving bodies ([`StageJoint`]). A body met that way joins the stage (and so
/// on, to what rests on it or hangs from it: a walk from the moving bodies through the
/// contacts and joints, each met once; the loads then go in contact and joint order). The
/// contact points are the narrow phase's, taken at the start of the step, where the stage
/// winds the bodies back to. Contacts with static, kinematic and sleeping bodies are left to
/// the rigid solve.
fn gather_loads(contacts: &[Contact], joints: &Arena<Joint, JointId>, coupling: &mut Coupling) -> StageLoads {
    let free =
        |id: BodyId| coupling.stored.get(id).is_some_and(|b| b.kind == BodyKind::Dynamic && b.awake && b.enabled);
    let mut touching: HashMap<BodyId, Vec<u32>> = HashMap::new();
    for (k, contact) in contacts.iter().enumerate() {
        let (a, b) = (contact.body_a, contact.body_b);
        if contact.touching && !contact.sensor && free(a) && free(b) {
            touching.entry(a).or_default().push(k as u32);
            touching.entry(b).or_default().push(k as u32);
        }
    }
    let mut queue: VecDeque<BodyId> = coupling.bodies.iter().filter(|b| b.movable()).map(|b| b.id).collect();
    let mut queued: HashSet<BodyId> = queue.iter().copied().collect();
    let (mut contacts_met, mut joints_met) = (HashSet::new(), HashSet::new());
    let mut join = |id: BodyId, coupling: &mut Coupling, queue: &mut VecDeque<BodyId>| {
        let k = coupling.index(id, false);
        if coupling.bodies[k].movable() && queued.insert(id) {
            queue.push_back(id);
        }
    };
    while let Some(id) = queue.pop_front() {
        for &k in touching.get(&id).map_or(&[][..], Vec::as_slice) {
            if contacts_met.insert(k) {
                let contact = &contacts[k as usize];
                join(contact.body_a, coupling, &mut queue);
                join(contact.body_b, coupling, &mut queue);
            }
        }
        let body_joints = coupling.stored.get(id).map_or(&[][..], |b| b.joints.as_slice());
        for &joint_id in body_joints {
            let Some(joint) = joints.get(joint_id).filter(|j| j.enabled && !j.broken) else { continue };
            if joints_met.insert(joint_id) {
                joint.body_a.iter().for_each(|&a| join(a, coupling, &mut queue));
                join(joint.body_b, coupling, &mut queue);
            }
        }
    }
    let mut loads = StageLoads::default();
    let mut contact_order: Vec<u32> = contacts_met.into_iter().collect();
    contact_order.sort_unstable();
    for k in contact_order {
        add_body_contacts(&contacts[k as usize], coupling, &mut loads.contacts);
    }
    let mut joint_order: Vec<JointId> = joints_met.into_iter().collect();
    joint_order.sort_unstable_by_key(|id| id.0.index);
    for id in joint_order {
        let joint = joints.get(id).expect("met joints exist");
        let a = match joint.body_a {
            Some(body) => coupling.index(body, false),
            None => coupling.static_world(),
        };
        let b = coupling.index(joint.body_b, false);
        loads.joints.extend(StageJoint::new(joint, a as u32, b as u32, &coupling.bodies));
    }
    loads
}

/// The stage's constraints between bodies ([`gather_loads`]).
#[derive(Default)]
struct StageLoads {
    contacts: Vec<BodyContact>,
    joints: Vec<StageJoint>,
}

/// The points of `contact` as the stage's position constraints.
fn add_body_contacts(contact: &Contact, coupling: &mut Coupling, loads: &mut Vec<BodyContact>) {
    let (a, b) = (coupling.index(contact.body_a, false), coupling.index(contact.body_b, false));
    let states = std::iter::once(&contact.first).chain(&contact.more);
    for manifold in states.map(|state| &state.manifold) {
        let (body_a, body_b) = (&coupling.bodies[a], &coupling.bodies[b]);
        for point in manifold.points() {
            let half = manifold.normal * (0.5 * point.separation);
            loads.push(BodyContact {
                a: a as u32,
                b: b as u32,
                local_a: body_a.local_point(point.position - half),
                local_b: body_b.local_point(point.position + half),
                normal: body_a.rotation.inverse() * manifold.normal,
                friction: contact.friction,
                rest: point.separation.min(0.0),
            });
        }
    }
}
