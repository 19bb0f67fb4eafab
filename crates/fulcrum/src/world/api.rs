//! Creating, destroying and changing bodies and colliders. Every call validates its input and
//! returns an `Err` naming the field instead of panicking; a change that affects motion wakes
//! the body.

use super::World;
use crate::body::{self, mass, Body, BodyDef, BodyKind};
use crate::collider::{Collider, ColliderDef};
use crate::collision::broad_phase::{ProxyId, ProxyKind};

/// Proxy of a collider that is not in the broad phase (its body was disabled).
pub(crate) const NO_PROXY: ProxyId = ProxyId(u32::MAX);
use crate::error::{check_rotation, check_vec3, Error, Result};
use crate::id::{BodyId, ColliderId};
use crate::math::{Pose, Vec3};
use crate::shape::{MassProperties, Shape};

fn unknown_body(id: BodyId) -> Error {
    Error::new("body", format!("no body with id {}:{} exists", id.0.index, id.0.generation))
}

fn unknown_collider(id: ColliderId) -> Error {
    Error::new("collider", format!("no collider with id {}:{} exists", id.0.index, id.0.generation))
}

impl World {
    /// Creates a body (without colliders: add them with [`World::create_collider`]).
    pub fn create_body(&mut self, def: &BodyDef) -> Result<BodyId> {
        let def = def.validated()?;
        let mut body = Body::from_def(&def);
        mass::update_mass(&mut body, &[]);
        let id = self.bodies.insert(body);
        if !def.awake && def.kind != BodyKind::Static {
            self.put_to_sleep(&[id]);
        }
        Ok(id)
    }

    /// Destroys a body with its colliders. Bodies it touched wake up at the next step.
    pub fn destroy_body(&mut self, id: BodyId) -> Result<()> {
        let body = self.bodies.get(id).ok_or_else(|| unknown_body(id))?;
        let colliders = body.colliders.clone();
        let joints = body.joints.clone();
        self.wake_body_island(id);
        for joint in joints {
            // A gear destroyed with an earlier hinge is already gone.
            if self.joints.get(joint).is_some() {
                self.destroy_joint(joint)?;
            }
        }
        self.destroy_user_constraints_of(id);
        self.detach_particles(id);
        for collider in colliders {
            self.remove_collider_storage(collider);
        }
        self.bodies.remove(id);
        Ok(())
    }

    /// Attaches a collider to `body` and updates its mass properties.
    pub fn create_collider(&mut self, body_id: BodyId, def: &ColliderDef) -> Result<ColliderId> {
        let def = def.validated()?;
        let body = self.bodies.get(body_id).ok_or_else(|| unknown_body(body_id))?;
        def.check_body_kind(body.kind)?;
        let body_pose = body.pose;
        if !body.enabled {
            return Err(Error::new("body", "the body was taken out of the simulation"));
        }
        let kind = if body.kind == BodyKind::Static { ProxyKind::Static } else { ProxyKind::Moving };
        let mut collider = Collider {
            body: body_id,
            shape: def.shape,
            local_pose: Pose::new(def.position, def.rotation),
            density: def.density,
            friction: def.friction,
            restitution: def.restitution,
            rolling_resistance: def.rolling_resistance,
            sensor: def.sensor,
            groups: def.groups,
            world_pose: Pose::IDENTITY,
            aabb: crate::geometry::Aabb::EMPTY,
            proxy: NO_PROXY,
        };
        collider.update_world_pose(&body_pose);
        let aabb = collider.aabb;
        let id = self.colliders.insert(collider);
        let proxy = self.broad_phase.create_proxy(aabb, kind, id.0.index);
        if let Some(c) = self.colliders.get_mut(id) {
            c.proxy = proxy;
        }
        if let Some(body) = self.bodies.get_mut(body_id) {
            body.colliders.push(id);
        }
        self.set_collider_hot(id);
        self.update_body_mass(body_id);
        self.wake_body_island(body_id);
        Ok(id)
    }

    /// Detaches and destroys a collider; its body's mass is recomputed.
    pub fn destroy_collider(&mut self, id: ColliderId) -> Result<()> {
        let body_id = self.colliders.get(id).ok_or_else(|| unknown_collider(id))?.body;
        self.wake_body_island(body_id);
        self.remove_collider_storage(id);
        if let Some(body) = self.bodies.get_mut(body_id) {
            body.colliders.retain(|&c| c != id);
        }
        self.update_body_mass(body_id);
        Ok(())
    }

    /// Removes the collider and its proxy; its contact pairs are dropped at the next step.
    fn remove_collider_storage(&mut self, id: ColliderId) {
        self.clear_collider_hot(id);
        if let Some(collider) = self.colliders.remove(id) {
            if collider.proxy != NO_PROXY {
                self.broad_phase.destroy_proxy(collider.proxy);
            }
        }
    }

    /// Recomputes mass, inertia and centre of mass from the body's colliders.
    pub(crate) fn update_body_mass(&mut self, id: BodyId) {
        let Some(body) = self.bodies.get(id) else { return };
        let parts: Vec<MassProperties> = body
            .colliders
            .iter()
            .filter_map(|&c| self.colliders.get(c))
            .filter(|c| !c.sensor)
            .map(Collider::mass_properties)
            .collect();
        let Some(body) = self.bodies.get_mut(id) else { return };
        mass::update_mass(body, &parts);
        let center = body.local_center;
        let colliders = body.colliders.clone();
        let max_extent = colliders
            .iter()
            .filter_map(|&c| self.colliders.get(c))
            .map(|c| collider_extent(c, center))
            .fold(0.0f32, f32::max);
        if let Some(body) = self.bodies.get_mut(id) {
            body.max_extent = max_extent;
        }
    }

    fn body_mut_checked(&mut self, id: BodyId) -> Result<&mut Body> {
        self.bodies.get_mut(id).ok_or_else(|| unknown_body(id))
    }

    /// Teleports a body (origin pose; the ranges of [`BodyDef::position`]). Wakes it and
    /// whatever touches it.
    pub fn set_body_pose(&mut self, id: BodyId, position: Vec3, rotation: crate::math::Quat) -> Result<()> {
        body::check_position(position)?;
        let rotation = check_rotation("rotation", rotation)?;
        let body = self.body_mut_checked(id)?;
        body.pose = Pose::new(position, rotation);
        body.sync_center_from_origin();
        let is_static = body.kind == BodyKind::Static;
        self.refresh_collider_poses(id);
        if is_static {
            self.moved_static.push(id);
        }
        self.wake_body_island(id);
        Ok(())
    }

    /// Sets the velocity of the centre of mass (ignored for static bodies), m/s (the range of
    /// [`BodyDef::linear_velocity`]).
    pub fn set_linear_velocity(&mut self, id: BodyId, velocity: Vec3) -> Result<()> {
        body::check_linear_velocity(velocity)?;
        let body = self.body_mut_checked(id)?;
        if body.kind != BodyKind::Static {
            body.linear_velocity = velocity;
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Sets the angular velocity (ignored for static bodies), rad/s (the range of
    /// [`BodyDef::angular_velocity`]).
    pub fn set_angular_velocity(&mut self, id: BodyId, velocity: Vec3) -> Result<()> {
        body::check_angular_velocity(velocity)?;
        let body = self.body_mut_checked(id)?;
        if body.kind != BodyKind::Static {
            body.angular_velocity = velocity;
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Adds a force at the centre of mass for the next step, newtons.
    pub fn apply_force(&mut self, id: BodyId, force: Vec3) -> Result<()> {
        check_vec3("force", force)?;
        let body = self.body_mut_checked(id)?;
        if body.kind == BodyKind::Dynamic {
            body.force += force;
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Adds a force at a world point for the next step (a force plus the torque
    /// (point − centre) × force).
    pub fn apply_force_at_point(&mut self, id: BodyId, force: Vec3, point: Vec3) -> Result<()> {
        check_vec3("force", force)?;
        check_vec3("point", point)?;
        let body = self.body_mut_checked(id)?;
        if body.kind == BodyKind::Dynamic {
            body.force += force;
            body.torque += (point - body.center).cross(force);
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Adds a torque for the next step, N·m (world axes).
    pub fn apply_torque(&mut self, id: BodyId, torque: Vec3) -> Result<()> {
        check_vec3("torque", torque)?;
        let body = self.body_mut_checked(id)?;
        if body.kind == BodyKind::Dynamic {
            body.torque += torque;
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Applies an impulse at the centre of mass now: Δv = J/m (N·s).
    pub fn apply_impulse(&mut self, id: BodyId, impulse: Vec3) -> Result<()> {
        check_vec3("impulse", impulse)?;
        let body = self.body_mut_checked(id)?;
        if body.kind == BodyKind::Dynamic {
            body.linear_velocity += body.inv_mass * impulse;
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Applies an impulse at a world point now: Δv = J/m, Δω = I⁻¹ (r × J).
    pub fn apply_impulse_at_point(&mut self, id: BodyId, impulse: Vec3, point: Vec3) -> Result<()> {
        check_vec3("impulse", impulse)?;
        check_vec3("point", point)?;
        let body = self.body_mut_checked(id)?;
        if body.kind == BodyKind::Dynamic {
            let inv_inertia = body.inv_inertia_world();
            body.linear_velocity += body.inv_mass * impulse;
            body.angular_velocity += inv_inertia * (point - body.center).cross(impulse);
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Applies an angular impulse now: Δω = I⁻¹ L (N·m·s).
    pub fn apply_angular_impulse(&mut self, id: BodyId, impulse: Vec3) -> Result<()> {
        check_vec3("impulse", impulse)?;
        let body = self.body_mut_checked(id)?;
        if body.kind == BodyKind::Dynamic {
            body.angular_velocity += body.inv_inertia_world() * impulse;
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Sets the linear and angular damping, 1/s (the range of [`BodyDef::linear_damping`]).
    pub fn set_damping(&mut self, id: BodyId, linear: f32, angular: f32) -> Result<()> {
        body::check_damping("linear_damping", linear)?;
        body::check_damping("angular_damping", angular)?;
        let body = self.body_mut_checked(id)?;
        body.linear_damping = linear;
        body.angular_damping = angular;
        self.wake_body_island(id);
        Ok(())
    }

    /// Sets the gravity multiplier (the range of [`BodyDef::gravity_scale`]).
    pub fn set_gravity_scale(&mut self, id: BodyId, scale: f32) -> Result<()> {
        body::check_gravity_scale(scale)?;
        self.body_mut_checked(id)?.gravity_scale = scale;
        self.wake_body_island(id);
        Ok(())
    }

    /// Overrides the total mass (kg, the range of [`BodyDef::mass`]), or returns to the mass
    /// from densities with `None`.
    pub fn set_mass(&mut self, id: BodyId, mass: Option<f32>) -> Result<()> {
        if let Some(m) = mass {
            body::check_mass(m)?;
        }
        self.body_mut_checked(id)?.mass_override = mass;
        self.update_body_mass(id);
        self.wake_body_island(id);
        Ok(())
    }

    /// Allows or forbids sleeping for this body.
    pub fn set_can_sleep(&mut self, id: BodyId, can_sleep: bool) -> Result<()> {
        self.body_mut_checked(id)?.can_sleep = can_sleep;
        if !can_sleep {
            self.wake_body_island(id);
        }
        Ok(())
    }

    /// Wakes a sleeping body with its island.
    pub fn wake_body(&mut self, id: BodyId) -> Result<()> {
        self.body_mut_checked(id)?;
        self.wake_body_island(id);
        Ok(())
    }

    /// Sets the world's gravity, m/s² (each component within ±1e6, as in
    /// [`WorldSettings::gravity`](crate::WorldSettings::gravity)).
    pub fn set_gravity(&mut self, gravity: Vec3) -> Result<()> {
        crate::settings::check_gravity(gravity)?;
        self.settings.gravity = gravity;
        self.wake_all();
        Ok(())
    }

    /// Refreshes world poses, bounds and proxies of a body's colliders after it moved. A moving
    /// body's proxy covers its bounds swept over the next step, so pairs exist before contact.
    /// A body whose swept bounds overflow `f32` (a finite but enormous position or velocity,
    /// after the solver blew up) is taken out of the simulation and reported, like a
    /// non-finite one.
    pub(crate) fn refresh_collider_poses(&mut self, id: BodyId) {
        let Some(body) = self.bodies.get(id) else { return };
        let pose = body.pose;
        let (sweep, spin) = motion_reach(body, self.settings.timestep);
        let is_static = body.kind == BodyKind::Static;
        if !body.enabled {
            return;
        }
        for index in 0..body.colliders.len() {
            let collider_id = self.bodies.get(id).map(|b| b.colliders[index]);
            let Some(collider_id) = collider_id else { continue };
            let Some(collider) = self.colliders.get_mut(collider_id) else { continue };
            collider.update_world_pose(&pose);
            if let Some(hot) = self.collider_hot.get_mut(collider_id.index()) {
                hot.pose = collider.world_pose;
            }
            if is_static {
                // Static proxies are exact: re-create them at the new place.
                self.broad_phase.destroy_proxy(collider.proxy);
                collider.proxy = self.broad_phase.create_proxy(collider.aabb, ProxyKind::Static, collider_id.0.index);
            } else {
                let swept = swept_bounds(&collider.aabb, sweep, spin);
                if !self.broad_phase.move_proxy_along(collider.proxy, swept, sweep) {
                    self.disable_body(id, "its motion became too large to bound (its swept bounds overflow)");
                    return;
                }
            }
        }
    }
}

/// Largest distance from the body's centre of mass to the collider's bounds (for the sleep
/// test: a spinning body's rim speed is ω times this).
fn collider_extent(collider: &Collider, local_center: Vec3) -> f32 {
    if matches!(collider.shape, Shape::Plane(_)) {
        return 0.0;
    }
    let local = collider.shape.aabb(&collider.local_pose);
    let far = (local.min - local_center).abs().max((local.max - local_center).abs());
    far.length()
}

/// How far a body may carry its colliders in one step of `timestep` seconds: its
/// displacement (m) and the fastest turn of a surface point times the step (m).
pub(crate) fn motion_reach(body: &Body, timestep: f32) -> (Vec3, f32) {
    (body.linear_velocity * timestep, body.angular_velocity.length() * body.max_extent * timestep)
}

/// A collider's box grown by `spin` and swept along `sweep`: what its proxy must hold.
pub(crate) fn swept_bounds(aabb: &crate::geometry::Aabb, sweep: Vec3, spin: f32) -> crate::geometry::Aabb {
    let moved = aabb.expanded(spin);
    moved.union(&crate::geometry::Aabb::new(moved.min + sweep, moved.max + sweep))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::WorldSettings;

    /// A body whose state is finite but whose swept bounds overflow `f32` (here a speed of
    /// `f32::MAX` over a one-second step) is taken out and reported; the broad phase never
    /// sees an infinite box.
    #[test]
    fn a_body_whose_swept_bounds_overflow_is_taken_out_and_reported() {
        let mut world = World::new(WorldSettings { timestep: 1.0, ..Default::default() }).unwrap();
        let id = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
        world.create_collider(id, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
        world.bodies.get_mut(id).unwrap().linear_velocity = Vec3::new(f32::MAX, 0.0, 0.0);
        world.refresh_collider_poses(id);
        let disabled = &world.events.disabled_bodies;
        assert_eq!(disabled.len(), 1);
        assert_eq!(disabled[0].body, id);
        assert!(disabled[0].reason.contains("too large to bound"), "{}", disabled[0].reason);
        let body = world.body(id).unwrap();
        assert!(!body.is_enabled() && body.pose().is_finite() && body.linear_velocity() == Vec3::ZERO);
        world.step(1.0).unwrap();
        assert_eq!(world.body(id).unwrap().position(), Vec3::ZERO, "a disabled body stays where it was");
    }
}
