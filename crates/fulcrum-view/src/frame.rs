//! Binary frames (testbed-protocol.md, "Server → page, binary frames"): a 52-byte header,
//! 32 bytes per body, with the contacts overlay 24 bytes per contact point, then 16 bytes per
//! character, then 12 bytes per particle of every cloth and rope the `scene` message lists;
//! all little-endian.

use fulcrum::{BodyId, CharacterId, ParticleSetId, World};

/// "FMR1" read as a little-endian u32.
pub const MAGIC: u32 = 0x3152_4D46;
/// Bytes before the first body.
pub const HEADER_BYTES: usize = 52;
/// Bytes per body: position f32×3, rotation f32×4, flags u32.
pub const BODY_BYTES: usize = 32;
/// Bytes per contact point: position f32×3, normal f32×3.
pub const CONTACT_BYTES: usize = 24;
/// Body flag: asleep.
pub const FLAG_SLEEPING: u32 = 1;
/// Body flag: taken out of the simulation (its state became non-finite), or removed.
pub const FLAG_DISABLED: u32 = 2;
/// Bytes per character: position f32×3, flags u32.
pub const CHARACTER_BYTES: usize = 16;
/// Character flag: it stands on walkable ground.
pub const FLAG_GROUNDED: u32 = 1;

/// Bytes per particle: position f32×3.
pub const PARTICLE_BYTES: usize = 12;

/// What a frame lists, in the order of the `scene` message.
#[derive(Clone, Copy)]
pub struct FrameOrder<'a> {
    /// The bodies.
    pub bodies: &'a [BodyId],
    /// The characters.
    pub characters: &'a [CharacterId],
    /// The cloths and ropes (each must exist: a missing one would shift what follows).
    pub particle_sets: &'a [ParticleSetId],
}

/// Encodes the world's state now, listing what `order` lists; contact points are included
/// when `contacts` is set.
pub fn encode(world: &World, order: FrameOrder, contacts: bool) -> Vec<u8> {
    let FrameOrder { bodies, characters, particle_sets } = order;
    let points: Vec<[f32; 6]> = if contacts { contact_points(world) } else { Vec::new() };
    let mut out = Vec::with_capacity(HEADER_BYTES + bodies.len() * BODY_BYTES + points.len() * CONTACT_BYTES);
    let timings = world.timings();
    extend_u32(&mut out, &[MAGIC, world.step_count() as u32]);
    out.extend((world.time() as f32).to_le_bytes());
    let counts =
        [bodies.len(), points.len(), world.touching_pair_count(), world.awake_body_count(), world.joint_count()];
    extend_u32(&mut out, &counts.map(|n| n as u32));
    let stages =
        [timings.broad_phase_ms, timings.narrow_phase_ms, timings.solve_ms, timings.sleep_ms, timings.total_ms];
    extend_f32(&mut out, &stages.map(|ms| ms as f32));
    for &id in bodies {
        let (pose, flags) = match world.body(id) {
            Some(body) => {
                let flags = if body.is_sleeping() { FLAG_SLEEPING } else { 0 }
                    | if body.is_enabled() { 0 } else { FLAG_DISABLED };
                (body.pose(), flags)
            }
            None => (fulcrum::Pose::IDENTITY, FLAG_DISABLED),
        };
        extend_f32(&mut out, &pose.position.to_array());
        extend_f32(&mut out, &pose.rotation.to_array());
        extend_u32(&mut out, &[flags]);
    }
    for point in &points {
        extend_f32(&mut out, point);
    }
    for &id in characters {
        let (position, flags) = match world.character(id) {
            Some(character) => (character.position(), if character.is_grounded() { FLAG_GROUNDED } else { 0 }),
            None => (fulcrum::Vec3::ZERO, 0),
        };
        extend_f32(&mut out, &position.to_array());
        extend_u32(&mut out, &[flags]);
    }
    for particles in particle_sets.iter().filter_map(|&set| world.particles(set)) {
        for position in particles.positions() {
            extend_f32(&mut out, &position.to_array());
        }
    }
    out
}

fn extend_u32(out: &mut Vec<u8>, values: &[u32]) {
    for value in values {
        out.extend(value.to_le_bytes());
    }
}

fn extend_f32(out: &mut Vec<u8>, values: &[f32]) {
    for value in values {
        out.extend(value.to_le_bytes());
    }
}

/// Every point of every touching contact: its position and the pair's normal (from the first
/// body to the second).
fn contact_points(world: &World) -> Vec<[f32; 6]> {
    let mut points = Vec::with_capacity(world.contact_point_count());
    for contact in world.contacts() {
        let n = contact.normal;
        points.extend(contact.points.iter().map(|p| [p.position.x, p.position.y, p.position.z, n.x, n.y, n.z]));
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use fulcrum::prelude::*;

    #[test]
    fn layout_matches_the_protocol() {
        let mut world = World::new(WorldSettings::default()).unwrap();
        let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -1.0, 0.0))).unwrap();
        world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(5.0, 1.0, 5.0)).unwrap())).unwrap();
        let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 0.49, 0.0))).unwrap();
        world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
        world.step(1.0 / 60.0).unwrap();
        let hero = world.create_character(&CharacterDef::at(Vec3::new(2.0, 0.81, 0.0))).unwrap();
        let order = FrameOrder { bodies: &[ground, ball], characters: &[hero], particle_sets: &[] };
        let bytes = encode(&world, order, true);
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let f32_at = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!(u32_at(0), MAGIC);
        assert_eq!(&bytes[0..4], b"FMR1");
        assert_eq!(u32_at(4), 1);
        assert!((f32_at(8) - 1.0 / 60.0).abs() < 1e-7);
        assert_eq!(u32_at(12), 2);
        let contacts = u32_at(16) as usize;
        assert!(contacts >= 1);
        assert_eq!(u32_at(20), 1);
        assert_eq!(bytes.len(), HEADER_BYTES + 2 * BODY_BYTES + contacts * CONTACT_BYTES + CHARACTER_BYTES);
        let hero_at = HEADER_BYTES + 2 * BODY_BYTES + contacts * CONTACT_BYTES;
        assert_eq!(f32_at(hero_at), 2.0);
        assert_eq!(u32_at(hero_at + 12), FLAG_GROUNDED);
        let ball_at = HEADER_BYTES + BODY_BYTES;
        assert_eq!(f32_at(ball_at + 4), world.body(ball).unwrap().position().y);
        assert_eq!(f32_at(ball_at + 24), 1.0, "identity rotation w");
        let normal_y = f32_at(HEADER_BYTES + 2 * BODY_BYTES + 16);
        assert!(normal_y.abs() > 0.99, "normal along y, got {normal_y}");
        let bodies_only = FrameOrder { characters: &[], ..order };
        assert_eq!(encode(&world, bodies_only, false).len(), HEADER_BYTES + 2 * BODY_BYTES);
    }

    /// The particle block follows the characters: every particle of each listed set, in order.
    #[test]
    fn particles_follow_the_characters() {
        let mut world = World::new(WorldSettings::default()).unwrap();
        let rope = RopeDef { start: Vec3::ZERO, end: Vec3::new(2.0, 0.0, 0.0), segments: 4, ..RopeDef::default() };
        let rope = ParticleSetId::from(world.create_rope(&rope).unwrap());
        let cloth = ClothDef { resolution: [2, 3], ..ClothDef::default() };
        let cloth = ParticleSetId::from(world.create_cloth(&cloth).unwrap());
        let order = FrameOrder { bodies: &[], characters: &[], particle_sets: &[cloth, rope] };
        let bytes = encode(&world, order, false);
        assert_eq!(bytes.len(), HEADER_BYTES + (3 * 4 + 5) * PARTICLE_BYTES);
        let f32_at = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let last_rope_particle = HEADER_BYTES + (3 * 4 + 4) * PARTICLE_BYTES;
        assert!((f32_at(last_rope_particle) - 2.0).abs() < 1e-6, "the rope's end x");
        assert_eq!(f32_at(HEADER_BYTES), world.particles(cloth).unwrap().positions()[0].x);
    }
}
