//! [`ClothDef`] and [`RopeDef`]: everything needed to create a cloth or a rope, and their
//! entries in a scene file's `cloths` and `ropes` (shared/docs/scene-format.md), where omitted
//! fields take the defaults below. `B` names a body: a [`BodyId`] in the engine, the body's
//! name (`String`) in files, as for joints.

use serde::{Deserialize, Serialize};

use crate::body::{check_position, MAX_MASS, MAX_POSITION};
use crate::collider::MAX_FRICTION;
use crate::error::{check_above_zero, check_range, check_vec3_range, component, Error, Result};
use crate::id::BodyId;
use crate::math::{Quat, Vec3};
use crate::shape::MAX_SHAPE_SIZE;

/// Most cells along one side of a cloth (`resolution[i]`).
pub const MAX_CLOTH_RESOLUTION: u32 = 1024;
/// Most segments of a rope.
pub const MAX_ROPE_SEGMENTS: u32 = 100_000;
/// Largest stretch or bend compliance, m/N (a spring of 1 mN per metre: limp).
pub const MAX_COMPLIANCE: f32 = 1.0e3;
/// Largest velocity damping rate, 1/s.
pub const MAX_PARTICLE_DAMPING: f32 = 1.0e3;

/// A cloth: a grid of particles held by distance constraints (see `crate::particles`).
/// Start from `ClothDef::default()` and set what differs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClothDef<B = BodyId> {
    /// A name for scene files, trajectories and debugging (may be empty in code; required and
    /// unique among the cloths of a scene file).
    pub name: String,
    /// World position of the cloth's centre, metres (each component within
    /// ±[`MAX_POSITION`](crate::body::MAX_POSITION)).
    pub position: Vec3,
    /// Rotation of the cloth's local frame; the cloth lies in its local X–Z plane.
    #[serde(with = "crate::json::rotation")]
    pub rotation: Quat,
    /// Side lengths along local X and Z, metres (each in (0, [`MAX_SHAPE_SIZE`]]).
    pub size: [f32; 2],
    /// Cells along X and Z (each 1 to [`MAX_CLOTH_RESOLUTION`]): (resolution[0] + 1) ×
    /// (resolution[1] + 1) particles; particle [a, b] is column a (along X), row b (along Z).
    pub resolution: [u32; 2],
    /// Total mass, kg, spread evenly over the particles (above 0, at most [`MAX_MASS`]).
    pub mass: f32,
    /// Inverse stiffness of the edges and diagonals, m/N (0 = inextensible, to
    /// [`MAX_COMPLIANCE`]).
    pub stretch_compliance: f32,
    /// Inverse stiffness of the bending links (two cells apart), m/N (0 to
    /// [`MAX_COMPLIANCE`]).
    pub bend_compliance: f32,
    /// Radius of each particle against the rigid shapes, metres (0 to [`MAX_SHAPE_SIZE`]).
    pub thickness: f32,
    /// Friction coefficient against the rigid shapes (0 to [`MAX_FRICTION`]; the pair uses
    /// the geometric mean with the collider's).
    pub friction: f32,
    /// Velocity damping rate, 1/s (0 to [`MAX_PARTICLE_DAMPING`]; an engine extension of the
    /// format): each substep of length h scales velocities by 1 / (1 + h·damping).
    pub damping: f32,
    /// Do its particles collide with each other (spheres of radius `thickness`; particles
    /// joined by a link do not)? An engine extension of the format; default false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub self_collision: bool,
    /// Particles fixed in space, as [a, b].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<[u32; 2]>,
    /// Particles joined to points of rigid bodies.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attached: Vec<Attachment<[u32; 2], B>>,
}

/// A rope: a chain of particles held by distance constraints (see `crate::particles`).
/// Start from `RopeDef::default()` and set what differs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RopeDef<B = BodyId> {
    /// A name for scene files, trajectories and debugging (may be empty in code; required and
    /// unique among the ropes of a scene file).
    pub name: String,
    /// World position of particle 0, metres.
    pub start: Vec3,
    /// World position of the last particle, metres (not at `start`): the rope is straight
    /// and unstretched when created.
    pub end: Vec3,
    /// Segments (1 to [`MAX_ROPE_SEGMENTS`]): `segments` + 1 particles numbered from 0 at
    /// `start`.
    pub segments: u32,
    /// Total mass, kg, spread evenly over the particles (above 0, at most [`MAX_MASS`]).
    pub mass: f32,
    /// Inverse stiffness of the segments, m/N (0 = inextensible, to [`MAX_COMPLIANCE`]).
    pub stretch_compliance: f32,
    /// Inverse stiffness of the bending links (two segments apart), m/N (0 to
    /// [`MAX_COMPLIANCE`]).
    pub bend_compliance: f32,
    /// Radius of each particle against the rigid shapes, metres (0 to [`MAX_SHAPE_SIZE`]).
    pub thickness: f32,
    /// Friction coefficient against the rigid shapes (0 to [`MAX_FRICTION`]).
    pub friction: f32,
    /// Velocity damping rate, 1/s (as [`ClothDef::damping`]).
    pub damping: f32,
    /// Particles fixed in space, by number.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<u32>,
    /// Particles joined to points of rigid bodies.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attached: Vec<Attachment<u32, B>>,
}

/// A particle joined to a point of a rigid body, two ways: the particle follows the point
/// and the body is pulled by the particle (through its mass and inertia at the point).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attachment<P, B = BodyId> {
    /// The particle: [a, b] on a cloth, a number on a rope.
    pub particle: P,
    /// The body.
    pub body: B,
    /// The point of the body, world space at creation (it moves with the body afterwards);
    /// each component within ±[`MAX_POSITION`](crate::body::MAX_POSITION).
    pub anchor: Vec3,
}

impl<B> Default for ClothDef<B> {
    fn default() -> Self {
        Self {
            name: String::new(),
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            size: [1.0, 1.0],
            resolution: [10, 10],
            mass: 1.0,
            stretch_compliance: 0.0,
            bend_compliance: 1.0e-4,
            thickness: 0.01,
            friction: 0.3,
            damping: 0.5,
            self_collision: false,
            pinned: Vec::new(),
            attached: Vec::new(),
        }
    }
}

impl<B> Default for RopeDef<B> {
    fn default() -> Self {
        Self {
            name: String::new(),
            start: Vec3::ZERO,
            end: Vec3::X,
            segments: 10,
            mass: 1.0,
            stretch_compliance: 0.0,
            bend_compliance: 0.01,
            thickness: 0.02,
            friction: 0.3,
            damping: 0.5,
            pinned: Vec::new(),
            attached: Vec::new(),
        }
    }
}

/// The fields both kinds share, checked once.
fn check_material(mass: f32, stretch: f32, bend: f32, thickness: f32, friction: f32, damping: f32) -> Result<()> {
    check_above_zero("mass", mass, MAX_MASS)?;
    check_range("stretch_compliance", stretch, 0.0, MAX_COMPLIANCE)?;
    check_range("bend_compliance", bend, 0.0, MAX_COMPLIANCE)?;
    check_range("thickness", thickness, 0.0, MAX_SHAPE_SIZE)?;
    check_range("friction", friction, 0.0, MAX_FRICTION)?;
    check_range("damping", damping, 0.0, MAX_PARTICLE_DAMPING)
}

/// A world point within ±[`MAX_POSITION`].
fn check_point(field: &str, point: Vec3) -> Result<()> {
    check_vec3_range(field, point, -MAX_POSITION, MAX_POSITION)
}

/// A count within 1..=max, or an error naming `field`.
fn check_count(field: &str, value: u32, max: u32) -> Result<()> {
    if value == 0 || value > max {
        return Err(Error::new(field, format!("must be 1 to {max}, got {value}")));
    }
    Ok(())
}

impl<B> ClothDef<B> {
    /// Particles along X and Z: resolution + 1 each.
    pub fn grid(&self) -> [u32; 2] {
        [self.resolution[0] + 1, self.resolution[1] + 1]
    }

    /// The number (row by row, a fastest) of particle [a, b].
    pub fn index(&self, [a, b]: [u32; 2]) -> usize {
        (b * self.grid()[0] + a) as usize
    }

    /// Checks every field against its documented range; the error names the field
    /// (`resolution[0]`, `pinned[2]`, `attached[1].anchor[0]`).
    pub fn validate(&self) -> Result<()> {
        check_position(self.position)?;
        crate::error::check_rotation("rotation", self.rotation)?;
        for i in 0..2 {
            check_above_zero(&component("size", i), self.size[i], MAX_SHAPE_SIZE)?;
            check_count(&component("resolution", i), self.resolution[i], MAX_CLOTH_RESOLUTION)?;
        }
        check_material(
            self.mass,
            self.stretch_compliance,
            self.bend_compliance,
            self.thickness,
            self.friction,
            self.damping,
        )?;
        let grid = self.grid();
        let check = |field: String, [a, b]: [u32; 2]| {
            if a >= grid[0] || b >= grid[1] {
                let reason = format!(
                    "no particle [{a}, {b}]: the grid has columns 0 to {} and rows 0 to {}",
                    grid[0] - 1,
                    grid[1] - 1
                );
                return Err(Error::new(field, reason));
            }
            Ok(())
        };
        check_references(&self.pinned, &self.attached, check)
    }

    /// The same cloth with its bodies named by `f(field, body)` (ids to names and back).
    pub fn map_bodies<C>(self, mut f: impl FnMut(&str, B) -> Result<C>) -> Result<ClothDef<C>> {
        let attached = map_attachments(self.attached, &mut f)?;
        Ok(ClothDef {
            name: self.name,
            position: self.position,
            rotation: self.rotation,
            size: self.size,
            resolution: self.resolution,
            mass: self.mass,
            stretch_compliance: self.stretch_compliance,
            bend_compliance: self.bend_compliance,
            thickness: self.thickness,
            friction: self.friction,
            damping: self.damping,
            self_collision: self.self_collision,
            pinned: self.pinned,
            attached,
        })
    }
}

impl<B> RopeDef<B> {
    /// Checks every field against its documented range; the error names the field
    /// (`segments`, `pinned[0]`, `attached[0].particle`).
    pub fn validate(&self) -> Result<()> {
        check_point("start", self.start)?;
        check_point("end", self.end)?;
        let length = (self.end - self.start).length();
        if length <= 0.0 || length > MAX_SHAPE_SIZE {
            return Err(Error::new(
                "end",
                format!("must be 0 to {MAX_SHAPE_SIZE} m from start (not at it), got {length} m"),
            ));
        }
        check_count("segments", self.segments, MAX_ROPE_SEGMENTS)?;
        check_material(
            self.mass,
            self.stretch_compliance,
            self.bend_compliance,
            self.thickness,
            self.friction,
            self.damping,
        )?;
        let check = |field: String, particle: u32| {
            if particle > self.segments {
                let reason = format!("no particle {particle}: the rope has particles 0 to {}", self.segments);
                return Err(Error::new(field, reason));
            }
            Ok(())
        };
        check_references(&self.pinned, &self.attached, check)
    }

    /// The same rope with its bodies named by `f(field, body)` (ids to names and back).
    pub fn map_bodies<C>(self, mut f: impl FnMut(&str, B) -> Result<C>) -> Result<RopeDef<C>> {
        let attached = map_attachments(self.attached, &mut f)?;
        Ok(RopeDef {
            name: self.name,
            start: self.start,
            end: self.end,
            segments: self.segments,
            mass: self.mass,
            stretch_compliance: self.stretch_compliance,
            bend_compliance: self.bend_compliance,
            thickness: self.thickness,
            friction: self.friction,
            damping: self.damping,
            pinned: self.pinned,
            attached,
        })
    }
}

/// Attachments with their bodies mapped; `f` is given the field `attached[i].body`.
/// Every pinned and attached particle exists (`check(field, particle)`), and every anchor is
/// a valid point.
fn check_references<P: Copy, B>(
    pinned: &[P],
    attached: &[Attachment<P, B>],
    check: impl Fn(String, P) -> Result<()>,
) -> Result<()> {
    for (i, &particle) in pinned.iter().enumerate() {
        check(format!("pinned[{i}]"), particle)?;
    }
    for (i, attachment) in attached.iter().enumerate() {
        check(format!("attached[{i}].particle"), attachment.particle)?;
        check_point(&format!("attached[{i}].anchor"), attachment.anchor)?;
    }
    Ok(())
}

fn map_attachments<P, B, C>(
    attached: Vec<Attachment<P, B>>,
    f: &mut impl FnMut(&str, B) -> Result<C>,
) -> Result<Vec<Attachment<P, C>>> {
    attached
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            let body = f(&format!("attached[{i}].body"), a.body)?;
            Ok(Attachment { particle: a.particle, body, anchor: a.anchor })
        })
        .collect()
}
