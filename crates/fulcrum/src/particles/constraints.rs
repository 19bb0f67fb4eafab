//! The position constraints between particles and the XPBD update they share.
//!
//! A distance constraint between points a and b with inverse masses w_a, w_b (a body's point
//! takes its generalised inverse mass along the constraint's direction,
//! w = 1/m + (r × n)·I⁻¹(r × n), r from its centre of mass) and compliance α (m/N):
//!
//! ```text
//! C = |x_a − x_b| − rest          n = (x_a − x_b) / |x_a − x_b|
//! α̃ = α / h²                      Δλ = (−C − α̃·λ) / (w_a + w_b + α̃)
//! x_a += w_a·Δλ·n                 x_b −= w_b·Δλ·n
//! ```
//!
//! With one pass per substep (the "small steps" form of XPBD) λ starts at zero, so Δλ =
//! −C / (w_a + w_b + α̃): a spring of stiffness 1/α whatever the substep length or count.
//! A tether (a long-range attachment) is the same constraint applied only while C > 0.
//!
//! Particle positions are kept in f64: a substep of about a millisecond moves a particle by
//! g·h² ≈ 10 µm, a few f32 steps of a coordinate of 10 m, and the velocity (x − x_prev)/h
//! read from f32 positions there is noise of about 1 mm/s per particle that never settles.

use glam::DVec3;

use crate::math::Vec3;

/// A distance constraint between two particles (stretch or bending link).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Link {
    pub a: u32,
    pub b: u32,
    /// Rest length, metres.
    pub rest: f32,
    /// Compliance, m/N.
    pub compliance: f32,
}

/// One end of a tether: a free particle, or the body point a particle is attached to.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) enum End {
    Particle(u32),
    /// Index into the system's attachments.
    Attachment(u32),
}

/// A long-range attachment: the two ends may not be further apart than `max` (the distance
/// along the material at rest), so a heavy load or a long chain cannot stretch what the
/// local links hold only one pass at a time.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Tether {
    pub a: End,
    pub b: End,
    /// Largest distance, metres.
    pub max: f64,
}

/// The correction "impulse" p (Δλ·n) of a distance constraint between a (at `xa`, inverse
/// mass `wa`) and b: a moves by wa·p, b by −wb·p. `None` when nothing moves (both immovable,
/// coincident points, or a tether that is slack).
pub(crate) fn distance_correction(
    xa: DVec3,
    xb: DVec3,
    wa: f64,
    wb: f64,
    rest: f64,
    alpha_tilde: f64,
    only_stretch: bool,
) -> Option<DVec3> {
    let delta = xa - xb;
    let length = delta.length();
    let error = length - rest;
    let w = wa + wb + alpha_tilde;
    if length < 1e-12 || w <= 0.0 || (only_stretch && error <= 0.0) {
        return None;
    }
    Some(delta * (-error / (w * length)))
}

/// One Gauss-Seidel pass over the links between particles (positions `x`, inverse masses
/// `w`), substep `h`.
///
/// The update itself is computed in f32 from the f64 difference x_a − x_b (a link's length and
/// error are small numbers, exact enough in f32) and added to the f64 positions: this loop is
/// most of the particles' time.
pub(crate) fn solve_links(links: &[Link], x: &mut [DVec3], w: &[f64], h: f64) {
    let inv_h2 = (1.0 / (h * h)) as f32;
    for link in links {
        let (a, b) = (link.a as usize, link.b as usize);
        let (wa, wb) = (w[a] as f32, w[b] as f32);
        let delta = (x[a] - x[b]).as_vec3();
        let length = delta.length();
        let total = wa + wb + link.compliance * inv_h2;
        if length < 1e-9 || total <= 0.0 {
            continue;
        }
        let p = delta * ((link.rest - length) / (total * length));
        x[a] += (p * wa).as_dvec3();
        x[b] -= (p * wb).as_dvec3();
    }
}

/// One Gauss-Seidel pass over the inextensible links (compliance 0) at the velocity level:
/// an inextensible link cannot be lengthening or shortening, so its stretch rate
/// ṡ = n·(v_a − v_b) is removed, shared by the inverse masses:
///
/// ```text
/// v_a −= w_a·ṡ/(w_a + w_b)·n      v_b += w_b·ṡ/(w_a + w_b)·n
/// ```
///
/// A projection onto the links' tangent space, so it never adds energy. Without it the part of
/// a substep's position correction that one pass leaves unconverged (large where a load
/// gathers, at the pins of a hanging cloth, or along a taut edge) shows up as velocity, and
/// that jitter does not die out.
pub(crate) fn hold_link_lengths(links: &[Link], x: &[DVec3], v: &mut [DVec3], w: &[f64]) {
    for link in links.iter().filter(|l| l.compliance == 0.0) {
        let (a, b) = (link.a as usize, link.b as usize);
        let (wa, wb) = (w[a] as f32, w[b] as f32);
        let n = (x[a] - x[b]).as_vec3().normalize_or_zero();
        if wa + wb == 0.0 || n == Vec3::ZERO {
            continue;
        }
        let rate = n * (n.dot((v[a] - v[b]).as_vec3()) / (wa + wb));
        v[a] -= (rate * wa).as_dvec3();
        v[b] += (rate * wb).as_dvec3();
    }
}

/// The links reordered colour by colour, so that no two links of a colour share a particle
/// (greedy colouring in the given order, stable within each colour). One link's update
/// depends on the last one's through a shared particle; between links of one colour there is
/// no such dependency, and the processor overlaps them: the pass over a cloth's links took
/// about 25 ns a link in grid order.
pub(crate) fn in_colour_order(links: Vec<Link>, particle_count: usize) -> Vec<Link> {
    let mut used = vec![0u64; particle_count];
    let mut coloured: Vec<(u32, Link)> = links
        .into_iter()
        .map(|link| {
            let (a, b) = (link.a as usize, link.b as usize);
            let colour = (!(used[a] | used[b])).trailing_zeros().min(63);
            used[a] |= 1 << colour;
            used[b] |= 1 << colour;
            (colour, link)
        })
        .collect();
    coloured.sort_by_key(|(colour, _)| *colour);
    coloured.into_iter().map(|(_, link)| link).collect()
}
