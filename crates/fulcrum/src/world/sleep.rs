//! Sleeping: a body that stays slower than the sleep threshold accumulates sleep time; when
//! every body of its island has slept for [`TIME_TO_SLEEP`], the whole island sleeps. Any
//! touch from an awake body, or any change through the API, wakes the island again.

use std::sync::atomic::{AtomicBool, Ordering};

use super::World;
use crate::body::BodyKind;
use crate::dynamics::workers;
use crate::id::BodyId;
use crate::math::Vec3;

/// Seconds a whole island must stay slow before it sleeps.
pub const TIME_TO_SLEEP: f32 = 0.5;
/// Speed below which a body counts as resting: |v| + extent·|ω|, m/s.
pub const SLEEP_THRESHOLD: f32 = 0.05;

/// Fewest bodies per task when sleep times are counted in parallel.
const BODIES_PER_TASK: usize = 256;

impl World {
    /// Accumulates sleep time and puts resting islands to sleep.
    ///
    /// The sleep times of the bodies the solver moved this step (those with a solver index)
    /// are counted in a loop split among the workers; the islands are found only when some
    /// body has rested long enough to sleep (none can sleep before, and while everything
    /// moves, the union-find over every contact and joint was a serial tenth of a
    /// millisecond per step on joint_grid).
    pub(crate) fn update_sleep(&mut self, dt: f32) {
        let allow = self.settings.sleep;
        let rested = AtomicBool::new(false);
        workers::for_each(&self.solver.workers, self.bodies.slots_mut(), BODIES_PER_TASK, |slot| {
            let Some(body) = slot.value_mut().filter(|body| body.solver_index != 0) else { return };
            let speed = body.linear_velocity.length() + body.max_extent * body.angular_velocity.length();
            // A kinematic body moves only by its velocity: while it has one, it never sleeps
            // (sleeping would stop it).
            let moving_kinematic = body.kind == BodyKind::Kinematic && speed > 0.0;
            if !allow || !body.can_sleep || !body.enabled || speed > SLEEP_THRESHOLD || moving_kinematic {
                body.sleep_time = 0.0;
            } else {
                body.sleep_time += dt;
            }
            if body.sleep_time >= TIME_TO_SLEEP {
                rested.store(true, Ordering::Relaxed);
            }
        });
        if !allow || !rested.into_inner() {
            return;
        }
        self.union_islands();
        self.sleep_resting_islands();
    }

    /// Union-find over awake dynamic bodies joined by touching contacts.
    fn union_islands(&mut self) {
        let n = self.awake_ids.len() + 1;
        self.union_find.reset(n);
        for contact in &self.contacts {
            if !contact.touching || contact.sensor {
                continue;
            }
            let (Some(a), Some(b)) = (self.bodies.get(contact.body_a), self.bodies.get(contact.body_b)) else {
                continue;
            };
            if a.kind == BodyKind::Dynamic && b.kind == BodyKind::Dynamic && a.solver_index != 0 && b.solver_index != 0
            {
                self.union_find.union(a.solver_index, b.solver_index);
            }
        }
        // Jointed bodies sleep and wake together.
        for joint in &self.solver.joints {
            let (a, b) = (joint.body_a, joint.body_b);
            if a != 0
                && b != 0
                && self.solver.bodies[a as usize].inv_mass > 0.0
                && self.solver.bodies[b as usize].inv_mass > 0.0
            {
                self.union_find.union(a, b);
            }
        }
        self.link_user_constraint_islands();
    }

    fn sleep_resting_islands(&mut self) {
        let n = self.awake_ids.len();
        // Smallest sleep time per island root (index 0 unused).
        let mut min_sleep = std::mem::take(&mut self.island_min_sleep);
        min_sleep.clear();
        min_sleep.resize(n + 1, f32::INFINITY);
        let mut any = false;
        for i in 0..n {
            let root = self.union_find.find(i as u32 + 1) as usize;
            let time = self.bodies.get(self.awake_ids[i]).map_or(0.0, |b| b.sleep_time);
            min_sleep[root] = min_sleep[root].min(time);
            any |= time >= TIME_TO_SLEEP;
        }
        if any {
            // Members of each resting island, in slot order, keyed by root.
            let mut members: Vec<(u32, BodyId)> = (0..n)
                .filter_map(|i| {
                    let root = self.union_find.find(i as u32 + 1);
                    (min_sleep[root as usize] >= TIME_TO_SLEEP).then_some((root, self.awake_ids[i]))
                })
                .collect();
            members.sort_by_key(|(root, _)| *root);
            for group in members.chunk_by(|x, y| x.0 == y.0) {
                let ids: Vec<BodyId> = group.iter().map(|(_, id)| *id).collect();
                self.put_to_sleep(&ids);
            }
        }
        self.island_min_sleep = min_sleep;
    }

    /// Puts the given bodies to sleep as one island.
    pub(crate) fn put_to_sleep(&mut self, ids: &[BodyId]) {
        let index = match self.free_islands.pop() {
            Some(i) => i,
            None => {
                self.sleeping_islands.push(Vec::new());
                self.sleeping_islands.len() as u32 - 1
            }
        };
        for &id in ids {
            if let Some(body) = self.bodies.get_mut(id) {
                body.awake = false;
                body.sleep_time = 0.0;
                body.linear_velocity = Vec3::ZERO;
                body.angular_velocity = Vec3::ZERO;
                body.sleeping_island = index;
            }
        }
        self.sleeping_islands[index as usize] = ids.to_vec();
    }

    /// Wakes the sleeping island `id` belongs to (no-op when awake or static).
    pub(crate) fn wake_body_island(&mut self, id: BodyId) {
        let Some(body) = self.bodies.get_mut(id) else { return };
        if body.kind == BodyKind::Static {
            return;
        }
        body.sleep_time = 0.0;
        if body.awake {
            return;
        }
        let island = body.sleeping_island as usize;
        let members = match self.sleeping_islands.get_mut(island) {
            Some(list) => {
                self.free_islands.push(island as u32);
                std::mem::take(list)
            }
            None => Vec::new(),
        };
        for member in members.iter().chain(std::iter::once(&id)) {
            if let Some(b) = self.bodies.get_mut(*member) {
                b.awake = true;
                b.sleep_time = 0.0;
                b.sleeping_island = u32::MAX;
            }
        }
    }

    /// Wakes every body.
    pub(crate) fn wake_all(&mut self) {
        for (_, body) in self.bodies.iter_mut() {
            if body.kind != BodyKind::Static {
                body.awake = true;
                body.sleep_time = 0.0;
                body.sleeping_island = u32::MAX;
            }
        }
        self.sleeping_islands.clear();
        self.free_islands.clear();
    }
}
