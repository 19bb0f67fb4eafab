//! [`Cloth`] and [`Rope`]: a definition built into particles and constraints, as the world
//! stores them. Read them through `World::cloth` / `World::rope`.

use super::constraints::Link;
use super::def::{ClothDef, RopeDef};
use super::system::{BodyAttachment, Material, Particles};
use crate::error::{Error, Result};
use crate::math::Vec3;

/// A cloth in the world: its definition and its particles (row by row, b = 0 first, a
/// running fastest).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Cloth {
    #[serde(with = "crate::world::snapshot::file_form")]
    pub(crate) def: ClothDef,
    pub(crate) particles: Particles,
}

/// A rope in the world: its definition and its particles (0 at `start`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Rope {
    #[serde(with = "crate::world::snapshot::file_form")]
    pub(crate) def: RopeDef,
    pub(crate) particles: Particles,
}

impl Cloth {
    /// Builds the grid at rest. Each cell is two triangles split along its diagonal from
    /// [a, b] to [a + 1, b + 1]; the triangles' edges are the stretch links, and across every
    /// inner edge a bending link joins the two corners facing it (for a diagonal, the cell's
    /// other diagonal; for an edge along X or Z, corners a cell and two cells away). No bending
    /// link runs along stretch links: a link whose rest length is the sum of two inextensible
    /// ones in line holds the particle between them only to second order, and one pass per
    /// substep then leaves it jittering. Attachments and tethers are added by the world, which
    /// knows the bodies.
    pub(crate) fn new(def: ClothDef) -> Cloth {
        let [columns, rows] = def.grid();
        let step = [def.size[0] / def.resolution[0] as f32, def.size[1] / def.resolution[1] as f32];
        let corner = Vec3::new(-0.5 * def.size[0], 0.0, -0.5 * def.size[1]);
        let rest: Vec<Vec3> = (0..rows)
            .flat_map(|b| (0..columns).map(move |a| (a, b)))
            .map(|(a, b)| {
                def.position + def.rotation * (corner + Vec3::new(a as f32 * step[0], 0.0, b as f32 * step[1]))
            })
            .collect();
        let index = |a: u32, b: u32| b * columns + a;
        let (mut stretch, mut bend) = (Vec::new(), Vec::new());
        let link = |links: &mut Vec<Link>, p: u32, q: u32, compliance: f32| {
            let length = (rest[p as usize] - rest[q as usize]).length();
            links.push(Link { a: p, b: q, rest: length, compliance });
        };
        let (stretchy, bendy) = (def.stretch_compliance, def.bend_compliance);
        for b in 0..rows {
            for a in 0..columns {
                let (right, down) = (a + 1 < columns, b + 1 < rows);
                if right {
                    link(&mut stretch, index(a, b), index(a + 1, b), stretchy);
                }
                if down {
                    link(&mut stretch, index(a, b), index(a, b + 1), stretchy);
                }
                if right && down {
                    link(&mut stretch, index(a, b), index(a + 1, b + 1), stretchy);
                    link(&mut bend, index(a + 1, b), index(a, b + 1), bendy);
                }
                if right && down && b > 0 {
                    link(&mut bend, index(a + 1, b + 1), index(a, b - 1), bendy);
                }
                if right && down && a > 0 {
                    link(&mut bend, index(a + 1, b + 1), index(a - 1, b), bendy);
                }
            }
        }
        let material = Material { thickness: def.thickness, friction: def.friction, damping: def.damping };
        let mut particles = Particles::new(rest, def.mass, stretch, bend, material);
        for &pin in &def.pinned {
            particles.inv_mass[def.index(pin)] = 0.0;
        }
        if def.self_collision {
            particles.enable_self_collision();
        }
        Cloth { def, particles }
    }

    /// Checks a cloth restored from a snapshot: a valid definition whose particles these
    /// are (see [`Particles::check_stored`]).
    pub(crate) fn check_stored(&self) -> Result<()> {
        self.def.validate().map_err(|e| e.within("def"))?;
        let [columns, rows] = self.def.grid();
        check_count(columns as usize * rows as usize, &self.particles)
    }

    /// The definition it was created from (positions as at creation).
    pub fn def(&self) -> &ClothDef {
        &self.def
    }

    /// Its name (may be empty).
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The particles.
    pub fn particles(&self) -> &Particles {
        &self.particles
    }

    /// The number of particle [a, b] (row by row, a fastest), if it exists.
    pub fn index(&self, [a, b]: [u32; 2]) -> Option<usize> {
        let [columns, rows] = self.def.grid();
        (a < columns && b < rows).then(|| self.def.index([a, b]))
    }
}

impl Rope {
    /// Builds the straight rope at rest: particles, links between neighbours (stretch
    /// compliance) and links two segments apart (bending; in line with the stretch links, which
    /// a rope cannot avoid: keep its bend compliance soft, as the default is).
    pub(crate) fn new(def: RopeDef) -> Rope {
        let count = def.segments + 1;
        let rest: Vec<Vec3> = (0..count).map(|i| def.start.lerp(def.end, i as f32 / def.segments as f32)).collect();
        let link = |i: u32, j: u32, compliance: f32| {
            let length = (rest[j as usize] - rest[i as usize]).length();
            Link { a: i, b: j, rest: length, compliance }
        };
        let stretch = (0..def.segments).map(|i| link(i, i + 1, def.stretch_compliance)).collect();
        let bend = (0..def.segments.saturating_sub(1)).map(|i| link(i, i + 2, def.bend_compliance)).collect();
        let material = Material { thickness: def.thickness, friction: def.friction, damping: def.damping };
        let mut particles = Particles::new(rest, def.mass, stretch, bend, material);
        for &pin in &def.pinned {
            particles.inv_mass[pin as usize] = 0.0;
        }
        Rope { def, particles }
    }

    /// Checks a rope restored from a snapshot: a valid definition whose particles these
    /// are (see [`Particles::check_stored`]).
    pub(crate) fn check_stored(&self) -> Result<()> {
        self.def.validate().map_err(|e| e.within("def"))?;
        check_count(self.def.segments as usize + 1, &self.particles)
    }

    /// The definition it was created from (positions as at creation).
    pub fn def(&self) -> &RopeDef {
        &self.def
    }

    /// Its name (may be empty).
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The particles.
    pub fn particles(&self) -> &Particles {
        &self.particles
    }

    /// Rest length of one segment, metres.
    pub fn segment_length(&self) -> f32 {
        (self.def.end - self.def.start).length() / self.def.segments as f32
    }
}

/// Attachments of a definition: its particle numbers and bodies with the anchors in the
/// bodies' frames.
pub(crate) fn attach(particles: &mut Particles, attachments: Vec<BodyAttachment>) {
    particles.attachments = attachments;
    particles.build_tethers();
}

/// Checks that `particles` are valid and `count` of them, as their definition makes.
fn check_count(count: usize, particles: &Particles) -> Result<()> {
    particles.check_stored().map_err(|e| e.within("particles"))?;
    if particles.len() != count {
        return Err(Error::new("particles", format!("{} particles, the definition makes {count}", particles.len())));
    }
    Ok(())
}
