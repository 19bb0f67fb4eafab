//! What each command does to the simulation (testbed-protocol.md, "Page → server"). A handler
//! returns `Err(field: reason)` to refuse a command; the caller sends it back as an `error`
//! and nothing has changed.

use std::sync::Arc;

use fulcrum::joint::Spring;
use fulcrum::prelude::*;
use fulcrum::Scene;

use crate::commands::Command;
use crate::messages::{self, SceneReason};
use crate::sim::{ClientId, Drag, Simulation};
use crate::source::SceneSource;

/// Radius of a shot ball, metres.
pub const BALL_RADIUS: f32 = 0.25;
/// Launch speed of a shot ball, m/s.
pub const BALL_SPEED: f32 = 20.0;
/// Shot balls kept in the world; shooting one more removes the oldest.
pub const MAX_SHOT_BALLS: usize = 64;
/// Stiffness of the drag joint, Hz.
const DRAG_HERTZ: f32 = 5.0;
/// Damping ratio of the drag joint.
const DRAG_DAMPING_RATIO: f32 = 0.7;
/// The drag joint's force cap is this many times the body's weight.
const DRAG_FORCE_PER_WEIGHT: f32 = 1000.0;

impl Simulation {
    /// Carries out one command of `client`.
    pub(crate) fn command(&mut self, client: ClientId, command: Command) -> Result<(), String> {
        match command {
            Command::Play | Command::Pause => {
                let paused = command == Command::Pause;
                if self.paused && !paused {
                    self.next_step = std::time::Instant::now();
                }
                self.paused = paused;
                self.broadcast(&messages::state(self.paused, self.speed));
            }
            Command::Step => {
                if !self.paused {
                    self.paused = true;
                    self.broadcast(&messages::state(self.paused, self.speed));
                }
                self.step_once();
            }
            Command::Speed(speed) => {
                self.speed = speed;
                self.broadcast(&messages::state(self.paused, self.speed));
            }
            Command::Reset => self.load(self.source.clone(), SceneReason::Reset)?,
            Command::SaveState => self.save_state(),
            Command::RestoreState => self.restore_state()?,
            Command::LoadSample(name) => {
                let source =
                    SceneSource::named(&name).ok_or(format!("load_sample.name: no sample is called {name:?}"))?;
                self.load(source, SceneReason::Load)?;
            }
            Command::LoadScene { json, name } => {
                let name = name.unwrap_or_else(|| "uploaded scene".to_string());
                let scene = Scene::from_json_str(&json, &name).map_err(|e| e.to_string())?;
                self.load(SceneSource::Uploaded { name, scene: Arc::new(scene) }, SceneReason::Load)?;
            }
            Command::Settings(changes) => self.change_settings(&changes)?,
            Command::DragStart { body, point } => self.start_drag(client, body, point)?,
            Command::DragParticle { set, particle } => self.start_particle_drag(client, set, particle)?,
            Command::DragMove(target) => self.move_drag(client, target)?,
            Command::DragEnd => self.end_drag(client),
            Command::Shoot { origin, direction } => self.shoot(origin, direction)?,
            Command::Inspect(index) => {
                let id = self.body_at("inspect.body", index)?;
                let info = messages::body_info(&self.scene.world, index, id, &self.scene.body_names[index]);
                self.reply(client, info);
            }
            Command::Overlay(contacts) => {
                if let Some(client) = self.client_mut(client) {
                    client.contacts = contacts;
                }
                self.dirty = true;
            }
            Command::Drive { character, velocity, jump_speed } => self.drive(character, velocity, jump_speed)?,
        }
        Ok(())
    }

    /// Replaces the scene with a fresh build of `source`. A reset keeps the settings the
    /// tabs changed (gravity, solver, sleep); a load takes the new scene's own.
    fn load(&mut self, source: SceneSource, reason: SceneReason) -> Result<(), String> {
        let mut scene = source.build()?;
        scene.world.set_threads(self.threads).map_err(|e| e.to_string())?;
        if reason == SceneReason::Reset {
            let settings = WorldSettings { timestep: scene.world.settings().timestep, ..*self.scene.world.settings() };
            scene.world.set_settings(settings).map_err(|e| e.to_string())?;
        }
        self.source = source;
        self.scene = scene;
        self.shot_balls.clear();
        self.shots = 0;
        for client in &mut self.clients {
            client.drag = None;
        }
        self.broadcast_scene(reason);
        self.broadcast(&messages::settings(&self.scene.world));
        self.restart_clocks();
        Ok(())
    }

    fn change_settings(&mut self, changes: &serde_json::Value) -> Result<(), String> {
        let world = &mut self.scene.world;
        let settings = fulcrum::json::patch(world.settings(), changes).map_err(|e| format!("settings.{e}"))?;
        let gravity_changed = settings.gravity != world.settings().gravity;
        world.set_settings(settings).map_err(|e| format!("settings.{e}"))?;
        if gravity_changed {
            // Resting bodies must feel the new gravity.
            world.set_gravity(settings.gravity).map_err(|e| format!("settings.{e}"))?;
        }
        self.broadcast(&messages::settings(&self.scene.world));
        Ok(())
    }

    /// The body at `index` of the scene message.
    fn body_at(&self, field: &str, index: usize) -> Result<BodyId, String> {
        let count = self.scene.bodies.len();
        self.scene.bodies.get(index).copied().ok_or_else(|| format!("{field}: no body {index} (the scene has {count})"))
    }

    /// A character's desired velocity and jump, through the world's own setters (their
    /// errors name the field: `drive.velocity[0]: ...`).
    fn drive(&mut self, index: usize, velocity: Vec3, jump_speed: f32) -> Result<(), String> {
        let count = self.scene.characters.len();
        let id = *self
            .scene
            .characters
            .get(index)
            .ok_or_else(|| format!("drive.character: no character {index} (the scene has {count})"))?;
        let world = &mut self.scene.world;
        world.set_character_velocity(id, velocity).map_err(|e| format!("drive.{e}"))?;
        if jump_speed != 0.0 {
            world.jump_character(id, jump_speed).map_err(|e| format!("drive.jump_{e}"))?;
        }
        Ok(())
    }

    fn start_drag(&mut self, client: ClientId, index: usize, point: Vec3) -> Result<(), String> {
        let id = self.body_at("drag_start.body", index)?;
        let world = &self.scene.world;
        let body = world.body(id).ok_or(format!("drag_start.body: body {index} no longer exists"))?;
        if body.kind() != BodyKind::Dynamic || !body.is_enabled() {
            let name = &self.scene.body_names[index];
            return Err(format!(
                "drag_start.body: body {index} ({name}) is not a dynamic body; only those can be dragged"
            ));
        }
        let weight = body.mass() * world.settings().gravity.length().max(9.81);
        let def = JointDef::target(
            id,
            point,
            point,
            Spring::new(DRAG_HERTZ, DRAG_DAMPING_RATIO),
            DRAG_FORCE_PER_WEIGHT * weight,
        )
        .with_name("drag");
        self.end_drag(client);
        let joint = self.scene.world.create_joint(&def).map_err(|e| format!("drag_start.{e}"))?;
        self.set_drag(client, Drag::Body { joint, body: id });
        Ok(())
    }

    /// Pins particle `particle` of the scene message's particle set `index` for the drag
    /// (drag_move then places it); an attached particle follows its body and is refused.
    fn start_particle_drag(&mut self, client: ClientId, index: usize, particle: usize) -> Result<(), String> {
        let count = self.scene.particle_sets.len();
        let set = *self
            .scene
            .particle_sets
            .get(index)
            .ok_or_else(|| format!("drag_particle.set: no particle set {index} (the scene has {count})"))?;
        let particles = self.scene.world.particles(set).ok_or("drag_particle.set: the set no longer exists")?;
        if particle >= particles.len() {
            let len = particles.len();
            return Err(format!("drag_particle.particle: no particle {particle} (set {index} has {len})"));
        }
        if particles.is_attached(particle) {
            return Err(format!("drag_particle.particle: particle {particle} hangs on a body; drag the body"));
        }
        let pinned = particles.is_pinned(particle);
        self.end_drag(client);
        self.scene.world.set_particle_pinned(set, particle, true).map_err(|e| format!("drag_particle.{e}"))?;
        self.set_drag(client, Drag::Particle { set, particle, pinned });
        Ok(())
    }

    fn set_drag(&mut self, client: ClientId, drag: Drag) {
        if let Some(client) = self.client_mut(client) {
            client.drag = Some(drag);
        }
        self.dirty = true;
    }

    fn move_drag(&mut self, client: ClientId, target: Vec3) -> Result<(), String> {
        let drag = self.client_mut(client).and_then(|c| c.drag);
        let world = &mut self.scene.world;
        match drag.ok_or("drag_move: no drag in progress (send drag_start or drag_particle first)")? {
            Drag::Body { joint, .. } => world.set_joint_target(joint, target),
            Drag::Particle { set, particle, .. } => world.set_particle_position(set, particle, target),
        }
        .map_err(|e| format!("drag_move.{e}"))
    }

    /// Ends the tab's drag, if it has one: removes the drag joint, or gives the particle its
    /// pin state back (it stays where it was put, at rest).
    pub(crate) fn end_drag(&mut self, client: ClientId) {
        let Some(drag) = self.client_mut(client).and_then(|c| c.drag.take()) else { return };
        self.release(drag);
    }

    /// Takes a drag's joint out of the world, or gives its particle back its pinning.
    pub(crate) fn release(&mut self, drag: Drag) {
        // Gone already when its body was removed.
        let _ = match drag {
            Drag::Body { joint, .. } => self.scene.world.destroy_joint(joint),
            Drag::Particle { set, particle, pinned } => self.scene.world.set_particle_pinned(set, particle, pinned),
        };
        self.dirty = true;
    }

    /// Adds a ball flying from `origin` along `direction`, as the last body of the scene; the
    /// oldest shot ball goes when there are too many.
    fn shoot(&mut self, origin: Vec3, direction: Vec3) -> Result<(), String> {
        let shape = Shape::sphere(BALL_RADIUS).map_err(|e| e.to_string())?;
        let name = format!("ball{}", self.shots + 1);
        let def = BodyDef {
            linear_velocity: direction * BALL_SPEED,
            bullet: true,
            ..BodyDef::dynamic(origin).with_name(name.clone())
        };
        let world = &mut self.scene.world;
        let id = world.create_body(&def).map_err(|e| format!("shoot.{e}"))?;
        world.create_collider(id, &ColliderDef::new(shape)).map_err(|e| format!("shoot.{e}"))?;
        self.shots += 1;
        self.scene.bodies.push(id);
        self.scene.body_names.push(name);
        self.shot_balls.push(id);
        if self.shot_balls.len() > MAX_SHOT_BALLS {
            self.remove_body(self.shot_balls[0]);
            self.shot_balls.remove(0);
        }
        self.broadcast_scene(SceneReason::Shoot);
        self.dirty = true;
        Ok(())
    }

    /// Destroys a body and takes it out of the scene's list; drags on it end.
    fn remove_body(&mut self, id: BodyId) {
        for client in &mut self.clients {
            if matches!(client.drag, Some(Drag::Body { body, .. }) if body == id) {
                client.drag = None;
            }
        }
        let _ = self.scene.world.destroy_body(id);
        if let Some(index) = self.scene.bodies.iter().position(|&b| b == id) {
            self.scene.bodies.remove(index);
            self.scene.body_names.remove(index);
        }
    }
}
