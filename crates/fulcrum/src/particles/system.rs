//! A set of particles with its constraints: what a cloth and a rope both are once built, and
//! one substep of the position solver over it. The solver's state is f64 (see
//! `constraints.rs`); f32 copies are what the world shows.

use glam::DVec3;

use super::constraints::{distance_correction, hold_link_lengths, in_colour_order, solve_links, End, Link, Tether};
use super::contact::{body_plane, project_contact, push_body, ParticleContact, SUPPORT_GAP};
use super::coupling::CoupledBody;
use super::self_collision::SelfCollision;
use crate::error::{Error, Result};
use crate::id::BodyId;
use crate::math::Vec3;

/// Passes over the stretch links per substep. Where the weight of a whole cloth gathers (at
/// two pins, it hangs from a few links) one pass left 1.55% of stretch in an inextensible
/// cloth of 32 × 32 particles; two leave 0.59% (0.34% with four); bending links get one.
pub(crate) const STRETCH_PASSES: u32 = 2;

/// How much longer than the rest distance a tether lets its ends be (a fraction). Exactly
/// taut tethers pull the two halves of an edge held straight between two pins apart at its
/// middle link, which then took all of that edge's stretch (1.07% in the hanging-cloth test);
/// with 0.2% of slack the worst edge there is 0.34%, and a crate's rope keeps its length
/// within 0.2%.
pub(crate) const TETHER_SLACK: f64 = 0.002;

/// A particle joined to a point of a body.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct BodyAttachment {
    pub particle: u32,
    pub body: BodyId,
    /// The point in the body's frame (relative to its origin).
    pub local_anchor: Vec3,
    /// Is the body static or kinematic (never moved by the particles)?
    pub fixed: bool,
}

/// What the material is made of, per particle set.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Material {
    pub thickness: f32,
    pub friction: f32,
    pub damping: f32,
}

/// Particles, their constraints and the contacts of the current step.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Particles {
    /// Positions and velocities as shown (f32 copies of the solver's).
    pub(crate) position: Vec<Vec3>,
    pub(crate) velocity: Vec<Vec3>,
    /// The solver's positions, positions at the start of the substep, and velocities.
    pub(crate) x: Vec<DVec3>,
    pub(crate) x_prev: Vec<DVec3>,
    pub(crate) v: Vec<DVec3>,
    /// Inverse masses; 0 for pinned particles.
    pub(crate) inv_mass: Vec<f64>,
    /// Inverse mass of one free particle, 1/kg.
    pub(crate) free_inv_mass: f64,
    /// Rest positions (for tether lengths).
    pub(crate) rest: Vec<Vec3>,
    /// Stretch links (compliance from the definition's `stretch_compliance`).
    pub(crate) stretch: Vec<Link>,
    /// Bending links.
    pub(crate) bend: Vec<Link>,
    pub(crate) tethers: Vec<Tether>,
    pub(crate) attachments: Vec<BodyAttachment>,
    pub(crate) material: Material,
    /// Planes met this step (`contact.rs`).
    pub(crate) contacts: Vec<ParticleContact>,
    /// A cloth's self-collision, when it has it.
    pub(crate) self_collision: Option<SelfCollision>,
}

impl Particles {
    /// Particles at rest at `rest`, each of mass `total_mass / count`, held by the links.
    pub(crate) fn new(
        rest: Vec<Vec3>,
        total_mass: f32,
        stretch: Vec<Link>,
        bend: Vec<Link>,
        material: Material,
    ) -> Self {
        let count = rest.len();
        let free_inv_mass = count as f64 / total_mass as f64;
        let (stretch, bend) = (in_colour_order(stretch, count), in_colour_order(bend, count));
        let x: Vec<DVec3> = rest.iter().map(|p| p.as_dvec3()).collect();
        Particles {
            position: rest.clone(),
            velocity: vec![Vec3::ZERO; count],
            x_prev: x.clone(),
            x,
            v: vec![DVec3::ZERO; count],
            inv_mass: vec![free_inv_mass; count],
            free_inv_mass,
            rest,
            stretch,
            bend,
            tethers: Vec::new(),
            attachments: Vec::new(),
            material,
            contacts: Vec::new(),
            self_collision: None,
        }
    }

    /// Checks particles restored from a snapshot: every per-particle list as long as the
    /// positions, every value finite (masses and material not negative), and every index of
    /// a link, tether, attachment, contact or self-collision pair naming a particle (or an
    /// attachment). The attached bodies are the world's to check.
    pub(crate) fn check_stored(&self) -> Result<()> {
        let n = self.len();
        let lengths =
            [self.velocity.len(), self.x.len(), self.x_prev.len(), self.v.len(), self.inv_mass.len(), self.rest.len()];
        if n == 0 || lengths.iter().any(|&len| len != n) {
            return Err(Error::new("particles", "the per-particle lists differ in length"));
        }
        let mut vectors = self.position.iter().chain(&self.velocity).chain(&self.rest);
        let mut solver = self.x.iter().chain(&self.x_prev).chain(&self.v);
        let mut masses = self.inv_mass.iter().chain([&self.free_inv_mass]);
        let material = [self.material.thickness, self.material.friction, self.material.damping];
        if !vectors.all(|v| v.is_finite()) || !solver.all(|v| v.is_finite()) {
            return Err(Error::new("particles", "a position or velocity is not finite"));
        }
        if !masses.all(|&w| w.is_finite() && w >= 0.0) || !material.iter().all(|&m| m.is_finite() && m >= 0.0) {
            return Err(Error::new("particles", "a mass or material value is negative or not finite"));
        }
        let link_ok =
            |l: &Link| (l.a as usize) < n && (l.b as usize) < n && l.a != l.b && l.rest >= 0.0 && l.compliance >= 0.0;
        if !self.stretch.iter().chain(&self.bend).all(link_ok) {
            return Err(Error::new("particles.links", "a link is out of range or has a negative length"));
        }
        let end_ok = |end: &End| match *end {
            End::Particle(i) => (i as usize) < n,
            End::Attachment(k) => (k as usize) < self.attachments.len(),
        };
        if !self.tethers.iter().all(|t| end_ok(&t.a) && end_ok(&t.b) && t.max >= 0.0) {
            return Err(Error::new("particles.tethers", "a tether is out of range or has a negative length"));
        }
        let attached_ok = |a: &BodyAttachment| (a.particle as usize) < n && a.local_anchor.is_finite();
        if !self.attachments.iter().all(attached_ok) || !self.contacts.iter().all(|c| (c.particle as usize) < n) {
            return Err(Error::new("particles.attachments", "names a particle out of range"));
        }
        match &self.self_collision {
            Some(pairs) => {
                let links: Vec<Link> = self.stretch.iter().chain(&self.bend).copied().collect();
                pairs.check_stored(n, &links)
            }
            None => Ok(()),
        }
    }

    /// Turns on self-collision between particles that are not joined by a link.
    pub(crate) fn enable_self_collision(&mut self) {
        let links: Vec<Link> = self.stretch.iter().chain(&self.bend).copied().collect();
        self.self_collision = Some(SelfCollision::new(self.len(), &links));
    }

    /// The pairs that may touch over a step `dt` (`self_collision.rs`): within two
    /// thicknesses and twice the furthest a particle moves (its speed and the fall under
    /// `gravity`).
    pub(crate) fn find_self_pairs(&mut self, gravity: f64, dt: f64) {
        let Some(self_collision) = self.self_collision.as_mut() else { return };
        let fastest = self.v.iter().map(|v| v.length()).fold(0.0, f64::max);
        let reach = 2.0 * self.material.thickness as f64 + 2.0 * (fastest * dt + gravity * dt * dt);
        self_collision.find_pairs(&self.x, reach.max(1e-6));
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// True when there are no particles (never, for a valid definition).
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// World positions, metres, in the particles' numbering.
    pub fn positions(&self) -> &[Vec3] {
        &self.position
    }

    /// Velocities (over the last substep), m/s.
    pub fn velocities(&self) -> &[Vec3] {
        &self.velocity
    }

    /// Is particle `index` fixed in space?
    pub fn is_pinned(&self, index: usize) -> bool {
        self.inv_mass.get(index).is_some_and(|&w| w == 0.0)
    }

    /// Is particle `index` joined to a body?
    pub fn is_attached(&self, index: usize) -> bool {
        self.attachments.iter().any(|a| a.particle as usize == index)
    }

    /// Mass of one particle, kg.
    pub fn particle_mass(&self) -> f32 {
        (1.0 / self.free_inv_mass) as f32
    }

    /// Fixes or frees a particle and rebuilds the tethers.
    pub(crate) fn set_pinned(&mut self, index: usize, pinned: bool) {
        self.inv_mass[index] = if pinned { 0.0 } else { self.free_inv_mass };
        self.v[index] = DVec3::ZERO;
        self.velocity[index] = Vec3::ZERO;
        self.build_tethers();
    }

    /// Puts a particle at `position`, at rest.
    pub(crate) fn place(&mut self, index: usize, position: Vec3) {
        self.x[index] = position.as_dvec3();
        self.x_prev[index] = self.x[index];
        self.v[index] = DVec3::ZERO;
        self.position[index] = position;
        self.velocity[index] = Vec3::ZERO;
    }

    /// The tethers of an inextensible set (stretch compliance 0; a stretchy one may stretch
    /// further than its rest lengths, so it has none): each particle that is not pinned to
    /// the nearest root other than itself at rest, unless both ends hang on the same body.
    /// The roots are the fixed particles (pinned, or attached to a static or kinematic body)
    /// when there are any, else every attached particle (a rope between two free bodies).
    /// Tethering to a fixed root holds each load from what cannot move: tethered to the
    /// nearest attached particle instead, the middle planks of a rope bridge were tethered only
    /// to each other and sagged 1 m. The longest allowed distance is the rest distance (the
    /// cloth is flat and the rope straight at rest, so that is the distance along the
    /// material) and [`TETHER_SLACK`].
    pub(crate) fn build_tethers(&mut self) {
        self.tethers.clear();
        if self.stretch.iter().any(|link| link.compliance > 0.0) {
            return;
        }
        let roots = self.tether_roots();
        for i in 0..self.len() {
            if self.is_pinned(i) {
                continue;
            }
            let nearest = roots
                .iter()
                .filter(|&&r| r as usize != i)
                .map(|&r| (r, (self.rest[r as usize] - self.rest[i]).length()))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let Some((root, max)) = nearest else { continue };
            let (a, b) = (self.end_of(i as u32), self.end_of(root));
            if self.same_body(a, b) {
                continue;
            }
            self.tethers.push(Tether { a, b, max: max as f64 * (1.0 + TETHER_SLACK) });
        }
    }

    /// The particles tethers end at (see [`Particles::build_tethers`]).
    fn tether_roots(&self) -> Vec<u32> {
        let fixed =
            |i: usize| self.is_pinned(i) || self.attachments.iter().any(|a| a.particle as usize == i && a.fixed);
        let fixed_roots: Vec<u32> = (0..self.len() as u32).filter(|&i| fixed(i as usize)).collect();
        if !fixed_roots.is_empty() {
            return fixed_roots;
        }
        (0..self.len() as u32).filter(|&i| self.is_attached(i as usize)).collect()
    }

    /// The end a tether takes for particle `i`: its attachment's body point if attached.
    fn end_of(&self, i: u32) -> End {
        match self.attachments.iter().position(|a| a.particle == i) {
            Some(k) => End::Attachment(k as u32),
            None => End::Particle(i),
        }
    }

    fn same_body(&self, a: End, b: End) -> bool {
        match (a, b) {
            (End::Attachment(x), End::Attachment(y)) => {
                self.attachments[x as usize].body == self.attachments[y as usize].body
            }
            _ => false,
        }
    }

    /// Moves each particle out of the planes it starts the step inside (deeper than its
    /// thickness), positions only: a penetration left over from the last step (a particle
    /// pulled in by its neighbours after its planes were found) is undone without the
    /// velocity a substep's correction would give it (depth / h, metres per millisecond).
    pub(crate) fn push_out_of_contacts(&mut self) {
        let thickness = self.material.thickness as f64;
        for contact in self.contacts.iter().filter(|c| c.body.is_none()) {
            let i = contact.particle as usize;
            let normal = contact.normal.as_dvec3();
            let depth = thickness - normal.dot(self.x[i] - contact.point.as_dvec3());
            if depth > 0.0 && self.inv_mass[i] != 0.0 {
                self.x[i] += depth * normal;
            }
        }
    }

    /// Start of a substep `h`: remember the positions, add gravity, damp, move.
    pub(crate) fn predict(&mut self, gravity: DVec3, h: f64) {
        let damping = 1.0 / (1.0 + h * self.material.damping as f64);
        for i in 0..self.len() {
            self.x_prev[i] = self.x[i];
            if self.inv_mass[i] == 0.0 {
                continue;
            }
            self.v[i] = (self.v[i] + gravity * h) * damping;
            self.x[i] += self.v[i] * h;
        }
    }

    /// The constraints of one substep, in order: stretch links ([`STRETCH_PASSES`] passes),
    /// bending links, tethers, attachments, self-collision, contacts (last, so a particle ends each substep
    /// outside every obstacle). `bodies[links_to[k]]` is the
    /// body of attachment k.
    pub(crate) fn solve(&mut self, bodies: &mut [CoupledBody], links_to: &[usize], h: f64) {
        for _ in 0..STRETCH_PASSES {
            solve_links(&self.stretch, &mut self.x, &self.inv_mass, h);
        }
        solve_links(&self.bend, &mut self.x, &self.inv_mass, h);
        self.solve_tethers(bodies, links_to);
        self.solve_attachments(bodies, links_to);
        let mut start = 0;
        while start < self.contacts.len() {
            let particle = self.contacts[start].particle;
            let count = self.contacts[start..].iter().take_while(|c| c.particle == particle).count();
            self.solve_particle_contacts(start..start + count, bodies, h);
            start += count;
        }
        if let Some(self_collision) = &self.self_collision {
            let Material { thickness, friction, .. } = self.material;
            self_collision.solve(&mut self.x, &self.x_prev, &self.inv_mass, thickness as f64, friction as f64);
        }
    }

    /// The contacts `run` of one particle: the moving bodies' first (each pushed back, the
    /// particle held against the immovable obstacles it lies on), then the immovable ones, so
    /// that it ends the substep outside them.
    fn solve_particle_contacts(&mut self, run: std::ops::Range<usize>, bodies: &mut [CoupledBody], h: f64) {
        let thickness = self.material.thickness as f64;
        let i = self.contacts[run.start].particle as usize;
        let contacts = &self.contacts[run];
        for contact in contacts {
            let Some(k) = contact.body else { continue };
            let body = &mut bodies[k as usize];
            let w = self.inv_mass[i] * self.give(contacts, body_plane(contact, body).1, thickness);
            self.x[i] = push_body(contact, body, self.x[i], self.x_prev[i], w, thickness);
        }
        if self.inv_mass[i] == 0.0 {
            return;
        }
        let mut support = DVec3::ZERO;
        for contact in contacts.iter().filter(|c| c.body.is_none()) {
            self.x[i] = project_contact(contact, self.x[i], self.x_prev[i], thickness, h);
            let normal = contact.normal.as_dvec3();
            if normal.dot(self.x[i] - contact.point.as_dvec3()) - thickness <= SUPPORT_GAP {
                support = normal;
            }
        }
        if let Some(self_collision) = self.self_collision.as_mut() {
            self_collision.support[i] = support;
        }
    }

    /// How far (0 to 1) a particle gives way to a body pushing along `normal`: not at all
    /// towards an immovable obstacle it lies on (`contact.rs`).
    fn give(&self, contacts: &[ParticleContact], normal: DVec3, thickness: f64) -> f64 {
        let i = contacts[0].particle as usize;
        let against = |c: &ParticleContact| {
            let (point, out) = (c.point.as_dvec3(), c.normal.as_dvec3());
            let resting = out.dot(self.x[i] - point) - thickness <= SUPPORT_GAP;
            if resting {
                (-normal.dot(out)).max(0.0)
            } else {
                0.0
            }
        };
        1.0 - contacts.iter().filter(|c| c.body.is_none()).map(against).fold(0.0, f64::max)
    }

    /// End of a substep: velocities from the change of position, then the stretch rate of
    /// each inextensible link taken out (`hold_link_lengths`).
    pub(crate) fn finish(&mut self, h: f64) {
        for i in 0..self.len() {
            self.v[i] = (self.x[i] - self.x_prev[i]) / h;
        }
        hold_link_lengths(&self.stretch, &self.x, &mut self.v, &self.inv_mass);
    }

    /// Refreshes the f32 copies the world shows.
    pub(crate) fn publish(&mut self) {
        for i in 0..self.len() {
            self.position[i] = self.x[i].as_vec3();
            self.velocity[i] = self.v[i].as_vec3();
        }
    }

    /// Tethers, rigid and one-sided (they only pull).
    fn solve_tethers(&mut self, bodies: &mut [CoupledBody], links_to: &[usize]) {
        for t in 0..self.tethers.len() {
            let Tether { a, b, max } = self.tethers[t];
            let (xa, ra) = self.end_point(a, bodies, links_to);
            let (xb, rb) = self.end_point(b, bodies, links_to);
            let n = (xa - xb).normalize_or_zero().as_vec3();
            let wa = self.end_inv_mass(a, ra, n, bodies, links_to);
            let wb = self.end_inv_mass(b, rb, n, bodies, links_to);
            if let Some(p) = distance_correction(xa, xb, wa, wb, max, 0.0, true) {
                self.move_end(a, ra, p, bodies, links_to);
                self.move_end(b, rb, -p, bodies, links_to);
            }
        }
    }

    /// Attachments: zero-length, rigid, shared with the body through its inverse mass at
    /// the anchor.
    fn solve_attachments(&mut self, bodies: &mut [CoupledBody], links_to: &[usize]) {
        for k in 0..self.attachments.len() {
            let attachment = self.attachments[k];
            let i = attachment.particle as usize;
            let body = &mut bodies[links_to[k]];
            let (anchor, r) = body.point(attachment.local_anchor);
            let anchor = anchor.as_dvec3();
            let n = (self.x[i] - anchor).normalize_or_zero().as_vec3();
            let (wp, wb) = (self.inv_mass[i], body.inv_mass_at(r, n) as f64);
            if let Some(p) = distance_correction(self.x[i], anchor, wp, wb, 0.0, 0.0, false) {
                self.x[i] += wp * p;
                body.apply(r, -p.as_vec3());
            }
        }
    }

    /// Where a tether end is now, and (for a body point) its offset from the centre of mass.
    fn end_point(&self, end: End, bodies: &[CoupledBody], links_to: &[usize]) -> (DVec3, Vec3) {
        match end {
            End::Particle(i) => (self.x[i as usize], Vec3::ZERO),
            End::Attachment(k) => {
                let (point, r) = bodies[links_to[k as usize]].point(self.attachments[k as usize].local_anchor);
                (point.as_dvec3(), r)
            }
        }
    }

    fn end_inv_mass(&self, end: End, r: Vec3, n: Vec3, bodies: &[CoupledBody], links_to: &[usize]) -> f64 {
        match end {
            End::Particle(i) => self.inv_mass[i as usize],
            End::Attachment(k) => bodies[links_to[k as usize]].inv_mass_at(r, n) as f64,
        }
    }

    /// Moves a tether end by the correction `p` (scaled by its own inverse mass).
    fn move_end(&mut self, end: End, r: Vec3, p: DVec3, bodies: &mut [CoupledBody], links_to: &[usize]) {
        match end {
            End::Particle(i) => self.x[i as usize] += self.inv_mass[i as usize] * p,
            End::Attachment(k) => bodies[links_to[k as usize]].apply(r, p.as_vec3()),
        }
    }
}
