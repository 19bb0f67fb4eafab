//! [`Cloth`] and [`Rope`]: a definition built into particles and constraints, as the world
//! stores them. Read them through `World::cloth` / `World::rope`.

use super::constraints::Link;
use super::def::{ClothDef, RopeDef};
use super::system::{BodyAttachment, Material, Particles};
use crate::math::Vec3;

/// A cloth in the world: its definition and its particles (row by row, b = 0 first, a
/// running fastest).
#[derive(Clone, Debug)]
pub struct Cloth {
    pub(crate) def: ClothDef,
    pub(crate) particles: Particles,
}

/// A rope in the world: its definition and its particles (0 at `start`).
#[derive(Clone, Debug)]
pub struct Rope {
    pub(crate) def: RopeDef,
    pub(crate) particles: Particles,
}

impl Cloth {
    /// Builds the grid at rest: particles, links along X and Z (stretch compliance), both
    /// diagonals of each cell (bend compliance: cloth gives in shear about as easily as in
    /// bending) and links two cells apart along X and Z (bending). Attachments and tethers
    /// are added by the world, which knows the bodies.
    pub(crate) fn new(def: ClothDef) -> Cloth {
        let [columns, rows] = def.grid();
        let step = [def.size[0] / def.resolution[0] as f32, def.size[1] / def.resolution[1] as f32];
        let corner = Vec3::new(-0.5 * def.size[0], 0.0, -0.5 * def.size[1]);
        let rest: Vec<Vec3> = (0..rows)
            .flat_map(|b| (0..columns).map(move |a| (a, b)))
            .map(|(a, b)| def.position + def.rotation * (corner + Vec3::new(a as f32 * step[0], 0.0, b as f32 * step[1])))
            .collect();
        let index = |a: u32, b: u32| b * columns + a;
        let mut links = Vec::new();
        let mut link = |p: u32, q: u32, compliance: f32| {
            let length = (rest[p as usize] - rest[q as usize]).length() as f64;
            links.push(Link { a: p, b: q, rest: length, compliance: compliance as f64 });
        };
        let (stretch, bend) = (def.stretch_compliance, def.bend_compliance);
        for b in 0..rows {
            for a in 0..columns {
                if a + 1 < columns {
                    link(index(a, b), index(a + 1, b), stretch);
                }
                if b + 1 < rows {
                    link(index(a, b), index(a, b + 1), stretch);
                }
                if a + 1 < columns && b + 1 < rows {
                    link(index(a, b), index(a + 1, b + 1), bend);
                    link(index(a + 1, b), index(a, b + 1), bend);
                }
                if a + 2 < columns {
                    link(index(a, b), index(a + 2, b), bend);
                }
                if b + 2 < rows {
                    link(index(a, b), index(a, b + 2), bend);
                }
            }
        }
        let material = Material { thickness: def.thickness, friction: def.friction, damping: def.damping };
        let mut particles = Particles::new(rest, def.mass, links, material);
        for &pin in &def.pinned {
            particles.inv_mass[def.index(pin)] = 0.0;
        }
        Cloth { def, particles }
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
    /// compliance) and links two segments apart (bending).
    pub(crate) fn new(def: RopeDef) -> Rope {
        let count = def.segments + 1;
        let rest: Vec<Vec3> =
            (0..count).map(|i| def.start.lerp(def.end, i as f32 / def.segments as f32)).collect();
        let mut links = Vec::new();
        for i in 0..def.segments {
            let length = (rest[i as usize + 1] - rest[i as usize]).length() as f64;
            links.push(Link { a: i, b: i + 1, rest: length, compliance: def.stretch_compliance as f64 });
        }
        for i in 0..def.segments.saturating_sub(1) {
            let length = (rest[i as usize + 2] - rest[i as usize]).length() as f64;
            links.push(Link { a: i, b: i + 2, rest: length, compliance: def.bend_compliance as f64 });
        }
        let material = Material { thickness: def.thickness, friction: def.friction, damping: def.damping };
        let mut particles = Particles::new(rest, def.mass, links, material);
        for &pin in &def.pinned {
            particles.inv_mass[pin as usize] = 0.0;
        }
        Rope { def, particles }
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
