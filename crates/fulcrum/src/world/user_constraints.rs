//! User constraints in the world: creating, destroying, reading and changing them (changes
//! wake the bodies), and the per-step glue: wake bodies constrained to awake ones, move each
//! active constraint into the solver arrays and back, report failures, link constrained
//! bodies into one sleeping island.

use super::World;
use crate::body::BodyKind;
use crate::dynamics::joints::user::{ActiveUserConstraint, BodyStart};
use crate::error::{Error, Result};
use crate::id::{BodyId, UserConstraintId};
use crate::joint::user::{
    UserBody, UserConstraint, UserConstraintEntry, UserConstraintFailure, UserConstraintReaction, UserRows,
    MAX_USER_ROWS,
};

fn unknown_constraint(id: UserConstraintId) -> Error {
    Error::new("user_constraint", format!("no user constraint with id {}:{} exists", id.0.index, id.0.generation))
}

/// What a stored constraint holds while its box is in the solver arrays (never solved).
struct Detached;

impl UserConstraint for Detached {
    fn rows(&mut self, _: &UserBody, _: &UserBody, _: &mut UserRows) -> Result<()> {
        Ok(())
    }
}

impl World {
    /// Adds a constraint of your own between `body_a` (`None`: the static world) and
    /// `body_b`; see [`joint::user`](crate::joint::user). It wakes the bodies. The bodies
    /// keep colliding with each other (use collision groups to stop that).
    pub fn create_user_constraint(
        &mut self,
        body_a: Option<BodyId>,
        body_b: BodyId,
        constraint: Box<dyn UserConstraint>,
    ) -> Result<UserConstraintId> {
        if let Some(a) = body_a {
            self.check_constrained_body(a, "body_a")?;
            if a == body_b {
                return Err(Error::new("body_b", "must differ from body_a"));
            }
        }
        self.check_constrained_body(body_b, "body_b")?;
        let entry = UserConstraintEntry {
            body_a,
            body_b,
            constraint,
            enabled: true,
            impulse: [0.0; MAX_USER_ROWS],
            reaction: UserConstraintReaction::default(),
        };
        let id = self.user_constraints.insert(entry);
        self.wake_constrained_bodies(id);
        Ok(id)
    }

    fn check_constrained_body(&self, id: BodyId, field: &str) -> Result<()> {
        self.check_joint_body(id, field).map(|_| ())
    }

    /// Destroys a user constraint and returns it; its bodies wake.
    pub fn destroy_user_constraint(&mut self, id: UserConstraintId) -> Result<Box<dyn UserConstraint>> {
        self.wake_constrained_bodies(id);
        let entry = self.user_constraints.remove(id).ok_or_else(|| unknown_constraint(id))?;
        Ok(entry.constraint)
    }

    /// The user constraint named by `id`, if it exists: its bodies, reaction and the
    /// constraint itself.
    pub fn user_constraint(&self, id: UserConstraintId) -> Option<&UserConstraintEntry> {
        self.user_constraints.get(id)
    }

    /// The constraint itself, to change its parameters (downcast it with
    /// `downcast_mut::<T>()`). Its bodies wake, as for every change through the world.
    pub fn user_constraint_mut(&mut self, id: UserConstraintId) -> Option<&mut dyn UserConstraint> {
        self.wake_constrained_bodies(id);
        self.user_constraints.get_mut(id).map(|entry| entry.constraint.as_mut())
    }

    /// All user constraints in creation-slot order.
    pub fn user_constraints(&self) -> impl Iterator<Item = (UserConstraintId, &UserConstraintEntry)> {
        self.user_constraints.iter()
    }

    /// Number of user constraints.
    pub fn user_constraint_count(&self) -> usize {
        self.user_constraints.len()
    }

    /// Enables or disables a user constraint (a disabled one does not act); wakes its bodies.
    pub fn set_user_constraint_enabled(&mut self, id: UserConstraintId, enabled: bool) -> Result<()> {
        let entry = self.user_constraints.get_mut(id).ok_or_else(|| unknown_constraint(id))?;
        entry.enabled = enabled;
        if !enabled {
            entry.impulse = [0.0; MAX_USER_ROWS];
        }
        self.wake_constrained_bodies(id);
        Ok(())
    }

    /// Destroys every user constraint on `body` (the body is being destroyed).
    pub(crate) fn destroy_user_constraints_of(&mut self, body: BodyId) {
        let attached: Vec<UserConstraintId> = self
            .user_constraints
            .iter()
            .filter(|(_, c)| c.body_b == body || c.body_a == Some(body))
            .map(|(id, _)| id)
            .collect();
        for id in attached {
            self.wake_constrained_bodies(id);
            self.user_constraints.remove(id);
        }
    }

    fn wake_constrained_bodies(&mut self, id: UserConstraintId) {
        let Some(entry) = self.user_constraints.get(id) else { return };
        self.wake_pair(entry.body_a, entry.body_b);
    }

    /// A sleeping body constrained to an awake one wakes up (before the solver gathers
    /// bodies).
    pub(crate) fn wake_user_constrained_bodies(&mut self) {
        let mut to_wake = Vec::new();
        let state = |id: BodyId| self.bodies.get(id).filter(|b| b.kind != BodyKind::Static).map(|b| b.awake);
        for (_, entry) in self.user_constraints.iter().filter(|(_, c)| c.enabled) {
            let Some(a) = entry.body_a else { continue };
            match (state(a), state(entry.body_b)) {
                (Some(false), Some(true)) => to_wake.push(a),
                (Some(true), Some(false)) => to_wake.push(entry.body_b),
                _ => {}
            }
        }
        for id in to_wake {
            self.wake_body_island(id);
        }
    }

    /// Moves every enabled user constraint between simulated bodies into the solver arrays
    /// (after the bodies have their solver indices); `h` is the solver step length.
    pub(crate) fn gather_user_constraints(&mut self, h: f32) {
        let warm = self.settings.solver.warm_start;
        let bodies = &self.bodies;
        let side = |id: Option<BodyId>| -> Option<(u32, BodyStart)> {
            let Some(id) = id else { return Some((0, BodyStart::WORLD)) };
            let body = bodies.get(id)?;
            let simulated = body.kind == BodyKind::Static || (body.awake && body.enabled);
            let start =
                BodyStart { center: body.center, rotation: body.pose.rotation, local_center: body.local_center };
            simulated.then_some((body.solver_index, start))
        };
        let active = &mut self.solver.user_constraints;
        active.clear();
        for slot in 0..self.user_constraints.capacity_index() {
            let Some(entry) = self.user_constraints.get_by_index_mut(slot) else { continue };
            if !entry.enabled {
                continue;
            }
            let (Some((ia, start_a)), Some((ib, start_b))) = (side(entry.body_a), side(Some(entry.body_b))) else {
                continue;
            };
            if ia == 0 && ib == 0 {
                continue;
            }
            active.push(ActiveUserConstraint {
                slot: slot as u32,
                body_a: ia,
                body_b: ib,
                start_a,
                start_b,
                h,
                constraint: std::mem::replace(&mut entry.constraint, Box::new(Detached)),
                impulse: if warm { entry.impulse } else { [0.0; MAX_USER_ROWS] },
                rows: UserRows::new(),
                failure: None,
            });
        }
    }

    /// Moves the constraints back into the world with their impulses and reactions, and
    /// reports the ones that failed in this step.
    pub(crate) fn store_user_constraints(&mut self) {
        for active in &mut self.solver.user_constraints {
            let slot = active.slot as usize;
            let (Some(id), Some(entry)) =
                (self.user_constraints.id_at(slot), self.user_constraints.get_by_index_mut(slot))
            else {
                continue;
            };
            entry.constraint = std::mem::replace(&mut active.constraint, Box::new(Detached));
            entry.impulse = active.impulse;
            entry.reaction = active.reaction();
            if let Some(error) = active.failure.take() {
                self.events.user_constraint_failures.push(UserConstraintFailure { constraint: id, error });
            }
        }
    }

    /// Bodies held together by a user constraint sleep and wake together.
    pub(crate) fn link_user_constraint_islands(&mut self) {
        let movable = |i: u32| i != 0 && self.solver.bodies[i as usize].inv_mass > 0.0;
        for c in &self.solver.user_constraints {
            if movable(c.body_a) && movable(c.body_b) {
                self.union_find.union(c.body_a, c.body_b);
            }
        }
    }
}
