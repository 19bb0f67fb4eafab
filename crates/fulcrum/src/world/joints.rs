//! Joints in the world: creating, destroying and changing them (every call validates and
//! wakes the bodies), keeping jointed bodies from colliding unless asked, and the per-step
//! glue: gather active joints for the solver, write impulses back, report reactions and
//! breaks.

use std::sync::atomic::{AtomicBool, Ordering};

use super::World;
use crate::body::{Body, BodyKind};
use crate::dynamics::joints::{JointConstraint, JointInput};
use crate::dynamics::solver;
use crate::dynamics::step_context::StepContext;
use crate::dynamics::workers;
use crate::error::{check_positive, check_vec3, Error, Result};
use crate::id::{Arena, BodyId, JointId, Slot};
use crate::joint::{
    Anchors, CreationGeometry, Joint, JointAxes, JointBreak, JointDef, JointKind, JointState, Limits, Motor, Spring,
};
use crate::math::{Pose, Quat, Vec3};

fn unknown_joint(id: JointId) -> Error {
    Error::new("joint", format!("no joint with id {}:{} exists", id.0.index, id.0.generation))
}

/// A unit vector's frame: the shortest rotation taking X to `axis`.
fn frame_for_axis(axis: Vec3) -> Quat {
    Quat::from_rotation_arc(Vec3::X, axis.normalize())
}

/// Fewest joints per task when their constraints are prepared in parallel.
const JOINTS_PER_TASK: usize = 64;

impl World {
    /// Creates a joint. Anchors and axes given in world space are fixed in the bodies'
    /// frames at their current poses.
    pub fn create_joint(&mut self, def: &JointDef) -> Result<JointId> {
        def.validate()?;
        let (body_a, body_b, frame_a, frame_b, geometry) = match def.kind {
            JointKind::Gear { hinge_a, hinge_b, .. } => self.gear_frames(hinge_a, hinge_b)?,
            _ => {
                let (frame_a, frame_b, geometry) = self.joint_frames(def)?;
                let body_b = def.body_b.ok_or_else(|| Error::new("body_b", "is required"))?;
                (def.body_a, body_b, frame_a, frame_b, geometry)
            }
        };
        let joint = Joint {
            name: def.name.clone(),
            kind: def.kind,
            body_a,
            body_b,
            frame_a,
            frame_b,
            reference: geometry,
            state: JointState::default(),
            collide_connected: def.collide_connected,
            break_force: def.break_force,
            break_torque: def.break_torque,
            enabled: def.enabled,
            broken: false,
            reaction: (Vec3::ZERO, Vec3::ZERO),
        };
        let id = self.joints.insert(joint);
        self.solver.joints_changed = true;
        for body in body_a.iter().chain(std::iter::once(&body_b)) {
            if let Some(b) = self.bodies.get_mut(*body) {
                b.joints.push(id);
            }
        }
        if !def.collide_connected && def.enabled {
            self.drop_pairs_between(body_a, body_b);
        }
        self.wake_joint_bodies(id);
        Ok(id)
    }

    /// Destroys a joint (and any gear that couples it). The bodies wake, and collide again if
    /// the joint kept them apart.
    pub fn destroy_joint(&mut self, id: JointId) -> Result<()> {
        let joint = self.joints.get(id).ok_or_else(|| unknown_joint(id))?;
        let (body_a, body_b) = (joint.body_a, joint.body_b);
        let gears: Vec<JointId> = self
            .joints
            .iter()
            .filter(
                |(_, j)| matches!(j.kind, JointKind::Gear { hinge_a, hinge_b, .. } if hinge_a == id || hinge_b == id),
            )
            .map(|(gear, _)| gear)
            .collect();
        self.wake_joint_bodies(id);
        self.joints.remove(id);
        self.solver.joints_changed = true;
        for body in body_a.iter().chain(std::iter::once(&body_b)) {
            if let Some(b) = self.bodies.get_mut(*body) {
                b.joints.retain(|&j| j != id);
            }
        }
        self.restore_pairs_between(body_a, body_b);
        for gear in gears {
            self.destroy_joint(gear)?;
        }
        Ok(())
    }

    /// The joint named by `id`, if it exists.
    pub fn joint(&self, id: JointId) -> Option<&Joint> {
        self.joints.get(id)
    }

    /// All joints in creation-slot order.
    pub fn joints(&self) -> impl Iterator<Item = (JointId, &Joint)> {
        self.joints.iter()
    }

    /// Number of joints (broken ones included).
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// The first joint with this name.
    pub fn find_joint(&self, name: &str) -> Option<JointId> {
        self.joints.iter().find(|(_, j)| j.name == name).map(|(id, _)| id)
    }

    /// Enables or disables a joint. A disabled joint does not act and does not keep its
    /// bodies from colliding.
    pub fn set_joint_enabled(&mut self, id: JointId, enabled: bool) -> Result<()> {
        let joint = self.joints.get_mut(id).ok_or_else(|| unknown_joint(id))?;
        self.solver.joints_changed = true;
        let was = joint.enabled;
        joint.enabled = enabled;
        let (a, b, collide) = (joint.body_a, joint.body_b, joint.collide_connected);
        self.wake_joint_bodies(id);
        if was && !enabled {
            self.restore_pairs_between(a, b);
        } else if !was && enabled && !collide {
            self.drop_pairs_between(a, b);
        }
        Ok(())
    }

    /// Replaces the joint's kind-specific parameters (the kind itself cannot change). The
    /// accumulated impulses are kept where their part stays. A pulley's rope length and a
    /// gear's turns are measured afresh from the current pose, so a new ratio holds from now on.
    pub fn set_joint_kind(&mut self, id: JointId, kind: JointKind) -> Result<()> {
        let joint = self.joints.get(id).ok_or_else(|| unknown_joint(id))?;
        if std::mem::discriminant(&joint.kind) != std::mem::discriminant(&kind) {
            return Err(Error::new(
                "kind",
                format!("a {} joint cannot become a {} joint", joint.kind.name(), kind.name()),
            ));
        }
        kind.validate()?;
        let geometry = self.current_geometry(joint);
        let joint = self.joints.get_mut(id).ok_or_else(|| unknown_joint(id))?;
        if matches!(kind, JointKind::Pulley { .. } | JointKind::Gear { .. }) {
            joint.reference = geometry;
            joint.state.turns = (0.0, 0.0);
        }
        joint.kind = kind;
        self.solver.joints_changed = true;
        self.wake_joint_bodies(id);
        Ok(())
    }

    /// Sets or removes the motor (hinge, prismatic, line).
    pub fn set_joint_motor(&mut self, id: JointId, motor: Option<Motor>) -> Result<()> {
        let mut kind = *self.joints.get(id).ok_or_else(|| unknown_joint(id))?.kind();
        match &mut kind {
            JointKind::Hinge { motor: m, .. }
            | JointKind::Prismatic { motor: m, .. }
            | JointKind::Line { motor: m, .. } => *m = motor,
            other => return Err(Error::new("motor", format!("a {} joint has no motor", other.name()))),
        }
        self.set_joint_kind(id, kind)
    }

    /// Sets or removes the limits (hinge, prismatic, line; a ball joint's twist limits).
    pub fn set_joint_limits(&mut self, id: JointId, limits: Option<Limits>) -> Result<()> {
        let mut kind = *self.joints.get(id).ok_or_else(|| unknown_joint(id))?.kind();
        match &mut kind {
            JointKind::Hinge { limits: l, .. }
            | JointKind::Prismatic { limits: l, .. }
            | JointKind::Line { limits: l, .. }
            | JointKind::Ball { twist_limits: l, .. } => *l = limits,
            other => return Err(Error::new("limits", format!("a {} joint has no limits", other.name()))),
        }
        self.set_joint_kind(id, kind)
    }

    /// Sets or removes the spring (hinge, prismatic, line, distance, weld, angle).
    pub fn set_joint_spring(&mut self, id: JointId, spring: Option<Spring>) -> Result<()> {
        let mut kind = *self.joints.get(id).ok_or_else(|| unknown_joint(id))?.kind();
        match &mut kind {
            JointKind::Hinge { spring: s, .. }
            | JointKind::Prismatic { spring: s, .. }
            | JointKind::Line { spring: s, .. }
            | JointKind::Distance { spring: s, .. }
            | JointKind::Weld { spring: s }
            | JointKind::Angle { spring: s } => *s = spring,
            other => return Err(Error::new("spring", format!("a {} joint has no spring", other.name()))),
        }
        self.set_joint_kind(id, kind)
    }

    /// Moves the target of a target (mouse) joint.
    pub fn set_joint_target(&mut self, id: JointId, target: Vec3) -> Result<()> {
        check_vec3("target", target)?;
        let mut kind = *self.joints.get(id).ok_or_else(|| unknown_joint(id))?.kind();
        match &mut kind {
            JointKind::Target { target: t, .. } => *t = target,
            other => return Err(Error::new("target", format!("a {} joint has no target", other.name()))),
        }
        self.set_joint_kind(id, kind)
    }

    /// Sets the break force (N) and torque (N·m); `None` never breaks.
    pub fn set_joint_break_limits(&mut self, id: JointId, force: Option<f32>, torque: Option<f32>) -> Result<()> {
        if let Some(force) = force {
            check_positive("break_force", force)?;
        }
        if let Some(torque) = torque {
            check_positive("break_torque", torque)?;
        }
        let joint = self.joints.get_mut(id).ok_or_else(|| unknown_joint(id))?;
        joint.break_force = force;
        joint.break_torque = torque;
        Ok(())
    }

    /// The pose of a body a joint or user constraint may attach to: it exists and is in the
    /// simulation; otherwise an error on `field`.
    pub(crate) fn check_joint_body(&self, id: BodyId, field: &str) -> Result<Pose> {
        let body = self
            .bodies
            .get(id)
            .ok_or_else(|| Error::new(field, format!("no body with id {}:{} exists", id.0.index, id.0.generation)))?;
        if !body.enabled {
            return Err(Error::new(field, "the body was taken out of the simulation"));
        }
        Ok(body.pose)
    }

    /// The joint frames in each body's frame, and the world geometry at creation.
    fn joint_frames(&self, def: &JointDef) -> Result<(Pose, Pose, CreationGeometry)> {
        let pose_a = match def.body_a {
            Some(id) => self.check_joint_body(id, "body_a")?,
            None => Pose::IDENTITY,
        };
        let body_b = def.body_b.ok_or_else(|| Error::new("body_b", "is required"))?;
        let pose_b = self.check_joint_body(body_b, "body_b")?;
        let (anchor_a, anchor_b) = match def.anchors {
            Anchors::Shared(p) => (p, p),
            Anchors::World { a, b } => (a, b),
            Anchors::Local { a, b } => (pose_a.transform_point(a), pose_b.transform_point(b)),
        };
        let (rotation_a, rotation_b) = match def.axes {
            JointAxes::World(axis) => {
                let world = frame_for_axis(axis);
                (pose_a.rotation.conjugate() * world, pose_b.rotation.conjugate() * world)
            }
            JointAxes::Local { a, b } => {
                let local_a = frame_for_axis(a);
                // B's frame coincides with A's at creation, then turns to B's own axis.
                let matching = pose_b.rotation.conjugate() * pose_a.rotation * local_a;
                let turn = Quat::from_rotation_arc((matching * Vec3::X).normalize(), b.normalize());
                (local_a, (turn * matching).normalize())
            }
            JointAxes::LocalFrames { a, b } => (a, b),
        };
        let frame_a = Pose::new(pose_a.inverse_transform_point(anchor_a), rotation_a.normalize());
        let frame_b = Pose::new(pose_b.inverse_transform_point(anchor_b), rotation_b.normalize());
        let geometry = CreationGeometry {
            anchor_a,
            anchor_b,
            rotation_a: pose_a.rotation * frame_a.rotation,
            rotation_b: pose_b.rotation * frame_b.rotation,
        };
        Ok((frame_a, frame_b, geometry))
    }

    /// A gear acts between its hinges' B bodies, about their hinge axes.
    #[allow(clippy::type_complexity)]
    fn gear_frames(
        &self,
        hinge_a: JointId,
        hinge_b: JointId,
    ) -> Result<(Option<BodyId>, BodyId, Pose, Pose, CreationGeometry)> {
        let hinge = |id: JointId, field: &str| -> Result<&Joint> {
            let joint = self.joints.get(id).ok_or_else(|| Error::new(field, "no such joint"))?;
            match joint.kind {
                JointKind::Hinge { .. } => Ok(joint),
                _ => Err(Error::new(field, format!("must be a hinge joint, not a {} joint", joint.kind.name()))),
            }
        };
        let (a, b) = (hinge(hinge_a, "kind.hinge_a")?, hinge(hinge_b, "kind.hinge_b")?);
        if a.body_b == b.body_b {
            return Err(Error::new("kind.hinge_b", "the two hinges turn the same body"));
        }
        let pose_a = self.check_joint_body(a.body_b, "kind.hinge_a")?;
        let pose_b = self.check_joint_body(b.body_b, "kind.hinge_b")?;
        let geometry = CreationGeometry {
            anchor_a: pose_a.transform_point(a.frame_b.position),
            anchor_b: pose_b.transform_point(b.frame_b.position),
            rotation_a: pose_a.rotation * a.frame_b.rotation,
            rotation_b: pose_b.rotation * b.frame_b.rotation,
        };
        Ok((Some(a.body_b), b.body_b, a.frame_b, b.frame_b, geometry))
    }

    /// World anchors of an existing joint at the bodies' current poses.
    fn current_geometry(&self, joint: &Joint) -> CreationGeometry {
        let pose_of = |id: Option<BodyId>| id.and_then(|id| self.bodies.get(id)).map_or(Pose::IDENTITY, |b| b.pose);
        let (pose_a, pose_b) = (pose_of(joint.body_a), pose_of(Some(joint.body_b)));
        CreationGeometry {
            anchor_a: pose_a.transform_point(joint.frame_a.position),
            anchor_b: pose_b.transform_point(joint.frame_b.position),
            rotation_a: pose_a.rotation * joint.frame_a.rotation,
            rotation_b: pose_b.rotation * joint.frame_b.rotation,
        }
    }

    /// Wakes both bodies of a joint.
    fn wake_joint_bodies(&mut self, id: JointId) {
        let Some(joint) = self.joints.get(id) else { return };
        self.wake_pair(joint.body_a, joint.body_b);
    }

    /// Wakes the islands of `a` (none: the static world) and `b`.
    pub(crate) fn wake_pair(&mut self, a: Option<BodyId>, b: BodyId) {
        if let Some(a) = a {
            self.wake_body_island(a);
        }
        self.wake_body_island(b);
    }

    /// Does an enabled joint without `collide_connected` connect the two bodies?
    pub(crate) fn joint_blocks_collision(&self, a: BodyId, b: BodyId) -> bool {
        let Some(body) = self.bodies.get(a) else { return false };
        body.joints.iter().filter_map(|&j| self.joints.get(j)).any(|j| {
            let other = if j.body_b == a { j.body_a } else { Some(j.body_b) };
            j.enabled && !j.broken && !j.collide_connected && other == Some(b)
        })
    }

    /// Removes the contact pairs between two bodies (a joint now keeps them apart).
    fn drop_pairs_between(&mut self, a: Option<BodyId>, b: BodyId) {
        let Some(a) = a else { return };
        let pairs = self.collider_pairs(a, b);
        for key in pairs {
            if let Some(&index) = self.pair_map.get(&key) {
                self.destroy_contact(index as usize);
            }
        }
    }

    /// Re-creates the contact pairs between two bodies whose fat boxes overlap (a joint no
    /// longer keeps them apart; the broad phase reports only new overlaps).
    fn restore_pairs_between(&mut self, a: Option<BodyId>, b: BodyId) {
        let Some(a) = a else { return };
        if self.joint_blocks_collision(a, b) {
            return;
        }
        for (ca, cb) in self.collider_pairs(a, b) {
            let (Some(x), Some(y)) = (self.colliders.get(ca), self.colliders.get(cb)) else { continue };
            if self.broad_phase.fat_aabbs_overlap(x.proxy, y.proxy) {
                self.try_create_contact(ca.0.index, cb.0.index);
            }
        }
    }

    /// Every (collider of a, collider of b) pair, ordered as the pair map keys them.
    fn collider_pairs(&self, a: BodyId, b: BodyId) -> Vec<(crate::id::ColliderId, crate::id::ColliderId)> {
        let (Some(body_a), Some(body_b)) = (self.bodies.get(a), self.bodies.get(b)) else { return Vec::new() };
        let mut pairs = Vec::new();
        for &ca in &body_a.colliders {
            for &cb in &body_b.colliders {
                pairs.push(if ca.0 <= cb.0 { (ca, cb) } else { (cb, ca) });
            }
        }
        pairs
    }

    /// A sleeping body jointed to an awake one wakes up (before the solver gathers bodies).
    pub(crate) fn wake_jointed_bodies(&mut self) {
        // Every sleeping body belongs to a live sleeping island: with none, nothing to wake.
        if self.sleeping_islands.len() == self.free_islands.len() {
            return;
        }
        let mut to_wake = std::mem::take(&mut self.solver.bodies_to_wake);
        to_wake.clear();
        let bodies = &self.bodies;
        let sleeping = |id: BodyId| bodies.get(id).is_some_and(|b| b.kind != BodyKind::Static && !b.awake);
        let moving = |id: BodyId| bodies.get(id).is_some_and(|b| b.kind != BodyKind::Static && b.awake);
        workers::extend_filter_mapped(
            &self.solver.workers,
            &mut to_wake,
            self.joints.slots(),
            JOINTS_PER_TASK,
            |_, slot| {
                let joint = slot.value().filter(|j| j.enabled && !j.broken)?;
                let a = joint.body_a?;
                if sleeping(a) && moving(joint.body_b) {
                    Some(a)
                } else if sleeping(joint.body_b) && moving(a) {
                    Some(joint.body_b)
                } else {
                    None
                }
            },
        );
        for &id in &to_wake {
            self.wake_body_island(id);
        }
        self.solver.bodies_to_wake = to_wake;
    }

    /// Hands every active joint between simulated bodies to the solver (after the bodies
    /// have their solver indices).
    pub(crate) fn gather_joints(&mut self, ctx: &StepContext) {
        let warm = ctx.solver.warm_start;
        if warm && self.begin_kept_joints(ctx) {
            return;
        }
        let (data, bodies) = (&mut self.solver, &self.bodies);
        data.joint_inputs.clear();
        let slots = self.joints.slots();
        workers::extend_filter_mapped(&data.workers, &mut data.joint_inputs, slots, JOINTS_PER_TASK, |slot, entry| {
            joint_input(slot as u32, entry.value()?, bodies)
        });
        let joints = &self.joints;
        if warm && !data.joints_changed && data.joints.len() == data.joint_inputs.len() {
            // Each kept constraint starts its step where it still matches its input; one that
            // does not sends every constraint to be rebuilt below (what was started is dropped).
            let (inputs, unmatched) = (&data.joint_inputs, AtomicBool::new(false));
            workers::for_each_indexed(&data.workers, &mut data.joints, JOINTS_PER_TASK, |i, c| {
                match c.matches(&inputs[i]) {
                    true => c.begin_step(&inputs[i]),
                    false => unmatched.store(true, Ordering::Relaxed),
                }
            });
            if !unmatched.into_inner() {
                return;
            }
        }
        data.joints.clear();
        workers::extend_mapped(&data.workers, &mut data.joints, &data.joint_inputs, JOINTS_PER_TASK, |input| {
            let joint = joints.get_by_index(input.slot as usize).expect("gathered joints exist");
            JointConstraint::prepare(input, joint, warm)
        });
        data.joints_changed = false;
    }

    /// While no joint was created, destroyed, enabled, disabled, broken or given a new kind,
    /// and the simulated bodies are the same with the same solver indices, the joints
    /// gathered would be the last step's, between the same solver bodies: the kept
    /// constraints then start the step from their joints directly, without listing the
    /// inputs (joint_grid's 19,800 took 0.7 ms a step on one thread), and those in lanes
    /// are left to their lanes (`SolverData::begin_kept_joints`). Returns false when that
    /// cannot be done, or some constraint's joint no longer gives it.
    fn begin_kept_joints(&mut self, ctx: &StepContext) -> bool {
        let data = &mut self.solver;
        if data.joints_changed || !data.same_bodies || data.joints.is_empty() {
            return false;
        }
        let (joints, bodies) = (&self.joints, &self.bodies);
        data.begin_kept_joints(ctx, |c| joint_input(c.slot, joints.get_by_index(c.slot as usize)?, bodies))
    }

    pub(crate) fn store_joints(&mut self, h: f32) {
        let data = &mut self.solver;
        let (bodies, lanes, wide) = (&data.bodies, &data.joint_lanes, &data.ball_lanes);
        let any_broke = AtomicBool::new(false);
        let mut tasks = paired_runs(&mut data.joints, self.joints.slots_mut());
        workers::for_each_indexed(&data.workers, &mut tasks, 1, |run, (constraints, slots, first_slot)| {
            for (offset, c) in constraints.iter_mut().enumerate() {
                // Ball joints solved in lanes take their impulses back first.
                solver::unpack_lane(lanes, wide, run * JOINTS_PER_TASK + offset, c);
                let place = (c.slot as usize).checked_sub(*first_slot);
                let Some(joint) = place.and_then(|i| slots.get_mut(i)).and_then(Slot::value_mut) else { continue };
                c.save(&mut joint.state);
                joint.reaction = c.reaction(bodies, h);
                let (force, torque) = joint.reaction;
                let over_force = joint.break_force.is_some_and(|limit| force.length() > limit);
                let over_torque = joint.break_torque.is_some_and(|limit| torque.length() > limit);
                if over_force || over_torque {
                    joint.broken = true;
                    any_broke.store(true, Ordering::Relaxed);
                }
            }
        });
        drop(tasks);
        if !any_broke.into_inner() {
            return;
        }
        self.solver.joints_changed = true;
        // The solved joints were unbroken when gathered: the broken ones broke now.
        let broken: Vec<JointId> = (self.solver.joints.iter())
            .filter_map(|c| self.joints.id_at(c.slot as usize))
            .filter(|&id| self.joints.get(id).is_some_and(|j| j.broken))
            .collect();
        for id in broken {
            let Some(joint) = self.joints.get(id) else { continue };
            let (force, torque) = joint.reaction;
            self.events.joint_breaks.push(JointBreak { joint: id, name: joint.name.clone(), force, torque });
            let (a, b) = (joint.body_a, joint.body_b);
            self.wake_joint_bodies(id);
            self.restore_pairs_between(a, b);
        }
    }
}

/// The input of `joint` (in arena slot `slot`) this step, when it is active and joins a
/// simulated body to a simulated or static one (a static body, or the static world, has
/// solver index 0).
fn joint_input(slot: u32, joint: &Joint, bodies: &Arena<Body, BodyId>) -> Option<JointInput> {
    let side = |id: Option<BodyId>| -> Option<(u32, Pose, Vec3)> {
        let Some(id) = id else { return Some((0, Pose::IDENTITY, Vec3::ZERO)) };
        let body = bodies.get(id)?;
        let simulated = body.kind == BodyKind::Static || (body.awake && body.enabled);
        simulated.then_some((body.solver_index, body.pose, body.center))
    };
    if !joint.enabled || joint.broken {
        return None;
    }
    let ((ia, pose_a, center_a), (ib, pose_b, center_b)) = (side(joint.body_a)?, side(Some(joint.body_b))?);
    let (bodies, poses, centers) = ((ia, ib), (pose_a, pose_b), (center_a, center_b));
    (ia != 0 || ib != 0).then(|| JointInput::new(slot, joint, bodies, poses, centers))
}

/// A run of solved joints, the stretch of joint slots they live in, and its first slot.
type JointRun<'a> = (&'a mut [JointConstraint], &'a mut [Slot<Joint>], usize);

/// The solved joints (in slot order) cut into runs of `JOINTS_PER_TASK`, each with the
/// stretch of joint slots its members live in and the first slot's index, so that tasks
/// can write their joints' stored state without sharing a slot.
fn paired_runs<'a>(constraints: &'a mut [JointConstraint], mut slots: &'a mut [Slot<Joint>]) -> Vec<JointRun<'a>> {
    let mut runs = Vec::with_capacity(constraints.len().div_ceil(JOINTS_PER_TASK));
    let mut first_slot = 0;
    for run in constraints.chunks_mut(JOINTS_PER_TASK) {
        let end = run.last().map_or(first_slot, |c| c.slot as usize + 1).min(first_slot + slots.len());
        let (mine, rest) = std::mem::take(&mut slots).split_at_mut(end - first_slot);
        runs.push((run, mine, first_slot));
        slots = rest;
        first_slot = end;
    }
    runs
}

#[cfg(test)]
mod tests {
    use crate::dynamics::joints::{JointModel, JointSolver};
    use crate::Scene;

    /// A 12 × 12 net of spheres joined by ball joints (in lanes), hung from a static bar at
    /// two corners and from the world at a third, next to a three-link chain hanging at rest
    /// from the world; stepped 300 times while the bar is moved (step 60), a joint breaks
    /// (100), another is disabled (130) and enabled again (160), the chain, asleep by then,
    /// is woken (200), and a free body that fell asleep early is woken (230). With `rebuild` every joint constraint is built anew each step
    /// (from its kind and saved state, its frames from the gathered inputs) and its lanes
    /// packed from them. Returns every body's state bits every 10 steps, and the number of
    /// steps whose lanes were kept.
    fn net_with_events(rebuild: bool) -> (Vec<u32>, u64, bool) {
        use crate::prelude::*;
        let mut world = World::new(WorldSettings::default()).unwrap();
        let bar = world.create_body(&BodyDef::fixed(Vec3::new(2.75, 6.0, 0.0))).unwrap();
        let side = 12;
        let mut bodies: Vec<BodyId> = (0..side * side)
            .map(|n| {
                let position =
                    Vec3::new(0.5 * (n % side) as f32, 6.0 + 0.05 * (n / side) as f32, 0.5 * (n / side) as f32);
                let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
                world.create_collider(body, &ColliderDef::new(Shape::sphere(0.15).unwrap())).unwrap();
                body
            })
            .collect();
        let mut joints = Vec::new();
        for n in 0..side * side {
            let here = world.body(bodies[n]).unwrap().position();
            if n % side < side - 1 {
                let anchor = here + Vec3::new(0.25, 0.0, 0.0);
                joints.push(world.create_joint(&JointDef::ball(Some(bodies[n]), bodies[n + 1], anchor)).unwrap());
            }
            if n / side < side - 1 {
                let anchor = 0.5 * (here + world.body(bodies[n + side]).unwrap().position());
                joints.push(world.create_joint(&JointDef::ball(Some(bodies[n]), bodies[n + side], anchor)).unwrap());
            }
        }
        for corner in [0, side - 1] {
            let anchor = world.body(bodies[corner]).unwrap().position();
            world.create_joint(&JointDef::ball(Some(bar), bodies[corner], anchor)).unwrap();
        }
        let corner = world.body(bodies[side * side - 1]).unwrap().position();
        world.create_joint(&JointDef::ball(None, bodies[side * side - 1], corner)).unwrap();
        let chain: Vec<BodyId> = (1..=3)
            .map(|k| world.create_body(&BodyDef::dynamic(Vec3::new(-4.0, 6.0 - k as f32, 0.0))).unwrap())
            .collect();
        for (k, &link) in chain.iter().enumerate() {
            let above = if k == 0 { None } else { Some(chain[k - 1]) };
            world.create_joint(&JointDef::ball(above, link, Vec3::new(-4.0, 6.5 - k as f32, 0.0))).unwrap();
        }
        bodies.extend(&chain);
        // Last in slot order and without joints: when it falls asleep or wakes, the solver
        // bodies change but the jointed ones keep their indices (the constraints are kept
        // without their lanes).
        let loner = world.create_body(&BodyDef { gravity_scale: 0.0, ..BodyDef::dynamic(Vec3::new(9.0, 0.0, 0.0)) });
        bodies.push(loner.unwrap());
        let (mut bits, mut chain_slept) = (Vec::new(), false);
        for step in 0..300 {
            match step {
                60 => world.set_body_pose(bar, Vec3::new(3.0, 6.2, 0.1), Quat::from_rotation_z(0.2)).unwrap(),
                100 => world.set_joint_break_limits(joints[7], Some(1e-3), None).unwrap(),
                130 => world.set_joint_enabled(joints[40], false).unwrap(),
                160 => world.set_joint_enabled(joints[40], true).unwrap(),
                200 => {
                    chain_slept = world.body(chain[2]).unwrap().is_sleeping();
                    world.wake_body(chain[2]).unwrap();
                }
                230 => {
                    let loner = *bodies.last().unwrap();
                    chain_slept &= world.body(loner).unwrap().is_sleeping();
                    world.wake_body(loner).unwrap();
                }
                _ => {}
            }
            if rebuild {
                world.solver.joints_changed = true;
            }
            world.step(1.0 / 60.0).unwrap();
            if step % 10 == 9 {
                crate::dynamics::contact_kernels::tests::state_bits(&world, &bodies, &mut bits);
            }
        }
        assert!(world.joint(joints[7]).unwrap().is_broken());
        (bits, world.solver.kept_lane_steps, chain_slept)
    }

    /// Joint constraints and ball-joint lanes kept from step to step (the lanes starting each
    /// step from the joints' anchors and the bodies' poses alone) give the bits of ones built
    /// anew every step, through moved static bodies, breaking, disabling and sleep.
    #[test]
    fn kept_lanes_give_the_bits_of_rebuilt_ones() {
        let (kept, kept_steps, slept) = net_with_events(false);
        let (rebuilt, rebuilt_steps, _) = net_with_events(true);
        assert_eq!(rebuilt_steps, 0);
        assert!(kept_steps >= 250, "lanes kept in {kept_steps} of 300 steps");
        assert!(slept, "the chain and the free body were to be asleep before they were woken");
        crate::dynamics::contact_kernels::tests::assert_same_bits(&kept, &rebuilt, "kept and rebuilt");
    }

    /// The joint constraints kept from step to step (their frames refreshed) are the ones the
    /// joints' kinds and saved state would build: a kept constraint carries nothing a rebuilt
    /// one would not. Checked after every step of 2 s of every sample with joints (every
    /// kind: ball with cone and twist limits, hinge with limits and motor, prismatic, weld,
    /// distance, pulley, gear, six-dof), and the constraints are kept in most steps.
    #[test]
    fn kept_joint_constraints_equal_rebuilt_ones() {
        let samples = [
            "ragdoll_pile",
            "door_hinge",
            "gear_pair",
            "pistol_slide",
            "block_and_tackle",
            "weld_cantilever",
            "heavy_chain",
            "newtons_cradle",
            "roller_coaster",
            "terrain_car",
            "rope_bridge",
        ];
        let (mut kept, mut checked) = (0, 0);
        for name in samples {
            let path = format!("{}/../../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
            let (mut world, _) = Scene::load(&path).unwrap().build().unwrap();
            let dt = world.settings().timestep;
            for _ in 0..(2.0 / dt).round() as usize {
                let ends = |world: &crate::World| -> Vec<_> {
                    world.solver.joints.iter().map(|c| (c.slot, c.body_a, c.body_b)).collect()
                };
                let before = ends(&world);
                world.step(dt).unwrap();
                kept += usize::from(!before.is_empty() && before == ends(&world));
                for c in &world.solver.joints {
                    let joint = world.joints.get_by_index(c.slot as usize).unwrap();
                    let mut rebuilt = JointModel::new(&joint.kind, &joint.reference);
                    rebuilt.load(&joint.state, true);
                    rebuilt.begin_step(Default::default(), Default::default());
                    let mut model = c.model;
                    model.begin_step(Default::default(), Default::default());
                    assert_eq!(model, rebuilt, "{name}: joint {} differs from its rebuilt self", joint.name);
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "only {checked} constraints checked");
        eprintln!("{checked} constraints checked, kept in {kept} steps");
        assert!(kept > 500, "the constraints were kept in only {kept} steps");
    }
}
