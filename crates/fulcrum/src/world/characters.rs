//! Characters in the world: create, destroy, drive and read them, and their stage of the step
//! (after the rigid bodies are solved; see `crate::character`).

use super::World;
use crate::body::{BodyKind, MAX_LINEAR_SPEED};
use crate::character::{
    pressed, push_impulse, pushed, ride_displacement, Character, CharacterContact, CharacterDef, Ground, Mover,
    OtherCapsule,
};
use crate::error::{check_range, check_vec3, check_vec3_range, Error, Result};
use crate::id::CharacterId;
use crate::math::{Pose, Vec3};

fn unknown_character(id: CharacterId) -> Error {
    Error::new("character", format!("no character with id {}:{} exists", id.0.index, id.0.generation))
}

/// What one character's step asks of the mover.
struct Plan {
    start: Vec3,
    displacement: Vec3,
    /// It stood on ground and does not jump: it may step up and snap down.
    walking: bool,
    /// Velocity of the ground under it, m/s (what it keeps when it walks off).
    ground_velocity: Vec3,
    /// Its own velocity (walking + free), m/s: what it pushes bodies with.
    intent: Vec3,
}

impl World {
    /// Creates a character (validated as [`CharacterDef::validate`] says). It finds the
    /// ground under it at once, so it rides a moving platform from its first step.
    pub fn create_character(&mut self, def: &CharacterDef) -> Result<CharacterId> {
        def.validate()?;
        let mut character = Character::new(def.clone());
        let up = self.up();
        let others = self.character_capsules();
        character.ground = Mover::new(self, &others, def, up, self.settings.timestep).ground_at(def.position);
        character.ground_pose = self.ground_pose(character.ground.as_ref());
        Ok(self.characters.insert(character))
    }

    /// Destroys a character.
    pub fn destroy_character(&mut self, id: CharacterId) -> Result<()> {
        self.characters.remove(id).map(|_| ()).ok_or_else(|| unknown_character(id))
    }

    /// The character named by `id`, if it exists.
    pub fn character(&self, id: CharacterId) -> Option<&Character> {
        self.characters.get(id)
    }

    /// All characters in creation-slot order.
    pub fn characters(&self) -> impl Iterator<Item = (CharacterId, &Character)> {
        self.characters.iter()
    }

    /// Number of characters.
    pub fn character_count(&self) -> usize {
        self.characters.len()
    }

    /// The first character with this name.
    pub fn find_character(&self, name: &str) -> Option<CharacterId> {
        self.characters.iter().find(|(_, c)| c.name() == name).map(|(id, _)| id)
    }

    /// Sets the velocity the character wants to walk at from the next step on, m/s; only
    /// the part across up counts (each component within ±[`MAX_LINEAR_SPEED`]).
    pub fn set_character_velocity(&mut self, id: CharacterId, velocity: Vec3) -> Result<()> {
        check_vec3_range("velocity", velocity, -MAX_LINEAR_SPEED, MAX_LINEAR_SPEED)?;
        let up = self.up();
        let character = self.characters.get_mut(id).ok_or_else(|| unknown_character(id))?;
        character.desired_velocity = velocity - velocity.dot(up) * up;
        Ok(())
    }

    /// Asks the character to jump at `speed` m/s (0 to [`MAX_LINEAR_SPEED`]) at the next
    /// step; it does if it stands on ground then.
    pub fn jump_character(&mut self, id: CharacterId, speed: f32) -> Result<()> {
        check_range("speed", speed, 0.0, MAX_LINEAR_SPEED)?;
        self.characters.get_mut(id).ok_or_else(|| unknown_character(id))?.jump_request = speed;
        Ok(())
    }

    /// Puts the character's centre at `position` (within the range of
    /// [`CharacterDef::position`]), at rest, ground unknown until its next move.
    pub fn set_character_position(&mut self, id: CharacterId, position: Vec3) -> Result<()> {
        crate::body::check_position(position)?;
        let character = self.characters.get_mut(id).ok_or_else(|| unknown_character(id))?;
        character.position = position;
        character.free_velocity = Vec3::ZERO;
        character.ground = None;
        Ok(())
    }

    /// Runs the mover alone: moves the character towards `displacement` (metres, world)
    /// as far as the world lets it (sweep, steps, slopes, snapping if it stands on ground),
    /// pushes what it walks into as if it moved so over one timestep, updates its ground and
    /// contacts, and returns its new position. Its velocities are left as they are.
    pub fn move_character(&mut self, id: CharacterId, displacement: Vec3) -> Result<Vec3> {
        check_vec3("displacement", displacement)?;
        let character = self.characters.get(id).ok_or_else(|| unknown_character(id))?;
        let walking = character.ground.is_some() && character.free_velocity.dot(self.up()) <= 0.0;
        let dt = self.settings.timestep;
        let plan = Plan {
            start: character.position,
            displacement,
            walking,
            ground_velocity: Vec3::ZERO,
            intent: displacement / dt,
        };
        let position = self.run_move(id, &plan, &Crowd::new(self), dt);
        Ok(position)
    }

    /// The world's up: against gravity (+Y without gravity).
    pub(crate) fn up(&self) -> Vec3 {
        (-self.settings.gravity).try_normalize().unwrap_or(Vec3::Y)
    }

    /// The characters' stage of the step: each in creation order (see `crate::character`).
    pub(crate) fn step_characters(&mut self, dt: f32) {
        if self.characters.is_empty() {
            return;
        }
        let ids: Vec<CharacterId> = self.characters.iter().map(|(id, _)| id).collect();
        let mut crowd = Crowd::new(self);
        for id in ids {
            self.run_script(id, dt);
            let Some(plan) = self.plan(id, dt) else { continue };
            let before = plan.start;
            let position = self.run_move(id, &plan, &crowd, dt);
            crowd.moved = crowd.moved.max((position - before).length());
            self.finish_step(id, &plan, before, position, dt);
        }
    }

    /// Script entries whose time has come (within half a step of this step's start).
    fn run_script(&mut self, id: CharacterId, dt: f32) {
        let now = self.time + 0.5 * dt as f64;
        let up = self.up();
        let Some(character) = self.characters.get_mut(id) else { return };
        while let Some(entry) = character.def.script.get(character.next_script_entry) {
            if entry.from as f64 > now {
                break;
            }
            character.desired_velocity = entry.velocity - entry.velocity.dot(up) * up;
            if entry.jump_speed > 0.0 {
                character.jump_request = entry.jump_speed;
            }
            character.next_script_entry += 1;
        }
    }

    /// The character's target displacement for this step. Standing: its walk plus the
    /// ground's motion (riding), free velocity cleared, unless it jumps (free velocity = the
    /// ground's + the jump along up). Airborne: gravity added to the free velocity.
    fn plan(&mut self, id: CharacterId, dt: f32) -> Option<Plan> {
        let up = self.up();
        let gravity = self.settings.gravity;
        let ride = self.characters.get(id).and_then(|c| self.ride_of(c))?;
        let character = self.characters.get_mut(id)?;
        let standing = character.ground.is_some();
        let jump = std::mem::take(&mut character.jump_request);
        let ground_velocity = ride / dt;
        let jumping = standing && jump > 0.0;
        character.free_velocity = match (standing, jumping) {
            (_, true) => ground_velocity + jump * up,
            (true, false) => Vec3::ZERO,
            (false, _) => character.free_velocity + gravity * dt,
        };
        let intent = character.desired_velocity + character.free_velocity;
        let walking = standing && !jumping;
        let displacement = intent * dt + if walking { ride } else { Vec3::ZERO };
        Some(Plan { start: character.position, displacement, walking, ground_velocity, intent })
    }

    /// How far the ground's body moved the point under the character since it last stood
    /// on it (zero on static ground or none); `None` for a missing character.
    fn ride_of(&self, character: &Character) -> Option<Vec3> {
        let body = character.ground.and_then(|g| g.obstacle.body()).and_then(|b| self.bodies.get(b));
        Some(match body {
            Some(body) if body.kind() != BodyKind::Static => {
                ride_displacement(&character.ground_pose, &body.pose(), character.position)
            }
            _ => Vec3::ZERO,
        })
    }

    /// Moves the character by the plan, stores where it ended, its ground and contacts, and
    /// pushes what it walked into. Returns the new position.
    fn run_move(&mut self, id: CharacterId, plan: &Plan, crowd: &Crowd, dt: f32) -> Vec3 {
        let up = self.up();
        let others = crowd.near(self, id, plan);
        let Some(character) = self.characters.get(id) else { return plan.start };
        let outcome =
            Mover::new(self, &others, &character.def, up, dt).move_by(plan.start, plan.displacement, plan.walking);
        let max_impulse = character.def.max_push_force * dt;
        self.push_bodies(&outcome.contacts, plan.intent, max_impulse);
        let ground_pose = self.ground_pose(outcome.ground.as_ref());
        if let Some(character) = self.characters.get_mut(id) {
            character.position = outcome.position;
            character.contacts = outcome.contacts;
            character.ground = outcome.ground;
            character.ground_pose = ground_pose;
        }
        outcome.position
    }

    /// Velocities after a step's move: the actual motion over the step; the free velocity
    /// zero on ground, the ground's velocity when it walked off, else with the part into
    /// each contact removed (sliding down steep ground, stopping at a ceiling). Its weight
    /// presses on dynamic ground.
    fn finish_step(&mut self, id: CharacterId, plan: &Plan, before: Vec3, position: Vec3, dt: f32) {
        let gravity = self.settings.gravity;
        let up = self.up();
        let Some(character) = self.characters.get_mut(id) else { return };
        character.velocity = (position - before) / dt;
        let rising = character.free_velocity.dot(up) > 0.0;
        if rising && !plan.walking {
            character.ground = None;
        }
        if character.ground.is_some() {
            character.free_velocity = Vec3::ZERO;
        } else if plan.walking {
            character.free_velocity = plan.ground_velocity;
        } else {
            character.free_velocity = slide(character.free_velocity, &character.contacts);
        }
        let weight = character.def.mass * gravity;
        if let Some((body, point)) = pressed(character.ground.as_ref()) {
            self.press(body, weight, point);
        }
    }

    /// The pose of the ground's body, if it is one (riding starts from there).
    fn ground_pose(&self, ground: Option<&Ground>) -> Pose {
        let body = ground.and_then(|g| g.obstacle.body()).and_then(|b| self.bodies.get(b));
        body.map_or(Pose::IDENTITY, |b| b.pose())
    }

    /// Gives each dynamic body the character walks into its push (see
    /// `character::interaction`), once per body.
    fn push_bodies(&mut self, contacts: &[CharacterContact], intent: Vec3, max_impulse: f32) {
        let mut done = Vec::new();
        for (contact, into_speed) in pushed(contacts, intent) {
            let Some(body_id) = contact.obstacle.body() else { continue };
            let Some(body) = self.bodies.get(body_id) else { continue };
            if body.kind() != BodyKind::Dynamic || done.contains(&body_id) {
                continue;
            }
            done.push(body_id);
            let impulse = push_impulse(body, contact.point, contact.normal, into_speed, max_impulse);
            if impulse > 0.0 {
                // Cannot fail: the body exists and the values are finite.
                let _ = self.apply_impulse_at_point(body_id, -contact.normal * impulse, contact.point);
            }
        }
    }

    /// The character's weight on dynamic ground that is awake (a sleeping body is not woken
    /// by a character standing still on it).
    fn press(&mut self, body_id: crate::id::BodyId, weight: Vec3, point: Vec3) {
        let Some(body) = self.bodies.get(body_id) else { return };
        if body.kind() == BodyKind::Dynamic && !body.is_sleeping() {
            let _ = self.apply_force_at_point(body_id, weight, point);
        }
    }

    /// Every character as an obstacle capsule.
    fn character_capsules(&self) -> Vec<OtherCapsule> {
        self.characters
            .iter()
            .map(|(id, c)| OtherCapsule { id, center: c.position, capsule: c.def.capsule, groups: c.def.groups })
            .collect()
    }
}

/// The characters sorted along x by where they were when the stage began, to find those near
/// a move without looking at every one: a character's neighbours lie within its reach plus the
/// largest character plus the furthest any character has moved since (`moved`).
struct Crowd {
    by_x: Vec<(f32, CharacterId)>,
    largest: f32,
    moved: f32,
}

/// Centre to lowest point of a character's capsule.
fn size(character: &Character) -> f32 {
    character.def.capsule.half_height + character.def.capsule.radius
}

impl Crowd {
    fn new(world: &World) -> Self {
        let mut by_x: Vec<(f32, CharacterId)> = world.characters.iter().map(|(id, c)| (c.position.x, id)).collect();
        by_x.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let largest = world.characters.iter().map(|(_, c)| size(c)).fold(0.0, f32::max);
        Crowd { by_x, largest, moved: 0.0 }
    }

    /// The other characters that may come near this one's move: those whose capsule is
    /// within reach of its path (both sizes, the displacement, a step and a snap, plus a
    /// metre), where they are now.
    fn near(&self, world: &World, id: CharacterId, plan: &Plan) -> Vec<OtherCapsule> {
        let Some(me) = world.characters.get(id) else { return Vec::new() };
        let reach = size(me) + plan.displacement.length() + me.def.step_height + me.def.snap_distance + 1.0;
        let window = reach + self.largest + self.moved;
        let first = self.by_x.partition_point(|(x, _)| *x < plan.start.x - window);
        self.by_x[first..]
            .iter()
            .take_while(|(x, _)| *x <= plan.start.x + window)
            .filter(|(_, other)| *other != id)
            .filter_map(|(_, other)| world.characters.get(*other).map(|c| (*other, c)))
            .filter(|(_, c)| (c.position - plan.start).length() <= reach + size(c))
            .map(|(other, c)| OtherCapsule {
                id: other,
                center: c.position,
                capsule: c.def.capsule,
                groups: c.def.groups,
            })
            .collect()
    }
}

/// The free velocity with the part into each contact removed: v − (v·n)n wherever v·n < 0.
fn slide(mut velocity: Vec3, contacts: &[CharacterContact]) -> Vec3 {
    for contact in contacts {
        let into = velocity.dot(contact.normal);
        if into < 0.0 {
            velocity -= into * contact.normal;
        }
    }
    velocity
}
