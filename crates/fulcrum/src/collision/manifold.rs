//! Contact manifolds: up to four points sharing one normal, each with its own depth and a
//! feature id that stays the same while the same features touch (warm starting matches on it).

use crate::math::Vec3;

/// Most points a manifold holds.
pub const MAX_MANIFOLD_POINTS: usize = 4;

/// One contact point of a manifold.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContactPoint {
    /// World position, midway between the two surfaces.
    pub position: Vec3,
    /// Signed distance between the surfaces along the normal: negative when penetrating,
    /// positive for a speculative point that is not yet touching (metres).
    pub separation: f32,
    /// Feature id: which features of the two shapes made this point. Stable across steps.
    pub id: u32,
}

/// Contact points between two shapes with a shared normal.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Manifold {
    /// Unit normal in world space, pointing from shape A towards shape B.
    pub normal: Vec3,
    /// The points; only the first `count` are valid.
    pub points: [ContactPoint; MAX_MANIFOLD_POINTS],
    /// Number of valid points.
    pub count: usize,
}

impl Manifold {
    /// An empty manifold.
    pub fn new() -> Self {
        Self::default()
    }

    /// At most [`MAX_MANIFOLD_POINTS`] points, every number finite (a restored snapshot's
    /// manifolds are checked with this).
    pub(crate) fn is_sound(&self) -> bool {
        self.count <= MAX_MANIFOLD_POINTS
            && self.normal.is_finite()
            && self.points().iter().all(|p| p.position.is_finite() && p.separation.is_finite())
    }

    /// The valid points.
    #[inline]
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..self.count]
    }

    /// Appends a point; ignored when full.
    #[inline]
    pub fn push(&mut self, position: Vec3, separation: f32, id: u32) {
        if self.count < MAX_MANIFOLD_POINTS {
            self.points[self.count] = ContactPoint { position, separation, id };
            self.count += 1;
        }
    }

    /// Removes every point.
    #[inline]
    pub fn clear(&mut self) {
        self.count = 0;
    }

    /// True when there are no points.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Reverses the roles of A and B (the normal flips; points and ids stay).
    #[inline]
    pub fn flip(&mut self) {
        self.normal = -self.normal;
    }

    /// The smallest separation among the points (`f32::INFINITY` when empty).
    pub fn min_separation(&self) -> f32 {
        self.points().iter().map(|p| p.separation).fold(f32::INFINITY, f32::min)
    }
}

/// Separations closer than this count as equally deep when picking the deepest point
/// (metres), so resting contacts with equal depths keep picking the same point. A cylinder's
/// cap on another cap clips to some 32 points whose depths differ by 0.7 m × the tilt, so a
/// tilt jitter of 1e-4 rad could move a 1e-5 m choice round the rim (new ids, no warm start).
/// 1 mm is well inside the 5 mm slop (see ARCHITECTURE.md for what it measurably changes).
const DEPTH_TIE: f32 = 1e-3;

/// Relative tie margin for the distance and area scores of [`reduce_points`].
const SCORE_TIE: f32 = 1e-3;

/// Chooses at most four of `candidates` that keep the deepest point and span the largest area
/// in the plane of `normal`, and writes them to `out` (which keeps its normal).
///
/// 1. the deepest point (of near ties, the one furthest from the centroid); 2. the point
///    furthest from it; 3. the point making the triangle of
///    largest area with those two; 4. the point furthest outside that triangle.
///
/// Near ties (within `DEPTH_TIE` metres for depth, `SCORE_TIE` relative for the others) go to
/// the earlier candidate, so the choice is deterministic and does not flip with rounding noise
/// between steps of a resting contact.
pub fn reduce_points(candidates: &[ContactPoint], normal: Vec3, out: &mut Manifold) {
    out.clear();
    if candidates.len() <= MAX_MANIFOLD_POINTS {
        for c in candidates {
            out.push(c.position, c.separation, c.id);
        }
        return;
    }
    let relative = |best: f32| SCORE_TIE * best.abs();
    let deepest = deepest_extreme_point(candidates, relative);
    let p1 = candidates[deepest].position;
    let far = first_near_max(candidates, |c| (c.position - p1).length_squared(), relative);
    let p2 = candidates[far].position;
    // Twice the signed area of (a, b, q) about the normal: ((b − a) × (q − a))·n
    // = (n × (b − a))·(q − a), an edge function of q with the vector n × (b − a).
    let across_12 = normal.cross(p2 - p1);
    let third = first_near_max(candidates, |c| across_12.dot(c.position - p1).abs(), relative);
    let p3 = candidates[third].position;
    // Orient the triangle counter-clockwise about the normal: the edge functions are then
    // all >= 0 inside, and minus their minimum is how far outside a point lies.
    let sign = if across_12.dot(p3 - p1) >= 0.0 { 1.0 } else { -1.0 };
    let (w12, w23, w31) = (sign * across_12, sign * normal.cross(p3 - p2), sign * normal.cross(p1 - p3));
    let outside = |c: &ContactPoint| {
        let q = c.position;
        -(w12.dot(q - p1)).min(w23.dot(q - p2)).min(w31.dot(q - p3))
    };
    let fourth = first_near_max(candidates, outside, relative);
    for index in [deepest, far, third, fourth] {
        let c = candidates[index];
        if !out.points().iter().any(|p| p.id == c.id && p.position == c.position) {
            out.push(c.position, c.separation, c.id);
        }
    }
}

/// Of the points within `DEPTH_TIE` of the deepest, the one furthest from the candidates'
/// centroid (ties as in [`first_near_max`]). Where a face lies flat on a face every point is
/// about equally deep, and the first would often be a point in the middle of an edge (a
/// clip plane crossing an edge that runs almost along it); anchoring on it drops a corner
/// and leaves the manifold lopsided. The extreme point is a corner.
fn deepest_extreme_point(candidates: &[ContactPoint], relative: impl Fn(f32) -> f32) -> usize {
    let deepest = candidates.iter().map(|c| -c.separation).fold(f32::NEG_INFINITY, f32::max);
    let centroid = candidates.iter().map(|c| c.position).sum::<Vec3>() / candidates.len() as f32;
    let spread = |c: &ContactPoint| {
        if -c.separation >= deepest - DEPTH_TIE {
            (c.position - centroid).length_squared()
        } else {
            -1.0
        }
    };
    first_near_max(candidates, spread, relative)
}

/// The first candidate whose score is within `tie(best)` of the best score.
fn first_near_max(
    candidates: &[ContactPoint],
    score: impl Fn(&ContactPoint) -> f32,
    tie: impl Fn(f32) -> f32,
) -> usize {
    let mut best = f32::NEG_INFINITY;
    for c in candidates {
        let s = score(c);
        if s > best {
            best = s;
        }
    }
    let threshold = best - tie(best);
    candidates.iter().position(|c| score(c) >= threshold).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduction_keeps_deepest_and_spans_area() {
        let mut pts = Vec::new();
        for (i, (x, z)) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.5, 0.5), (0.5, 0.0)].iter().enumerate() {
            let sep = if i == 4 { -0.1 } else { -0.01 };
            pts.push(ContactPoint { position: Vec3::new(*x, 0.0, *z), separation: sep, id: i as u32 });
        }
        let mut m = Manifold { normal: Vec3::Y, ..Default::default() };
        reduce_points(&pts, Vec3::Y, &mut m);
        assert_eq!(m.count, 4);
        assert!(m.points().iter().any(|p| p.id == 4), "deepest point kept");
        // Three of the square's corners are kept with the deepest point.
        let corners = m.points().iter().filter(|p| p.id < 4).count();
        assert_eq!(corners, 3);
    }

    #[test]
    fn reduction_ignores_rounding_noise_in_equal_depths() {
        // A regular octagon of contacts, all at depth 0.01 up to noise far below DEPTH_TIE: the
        // same four ids are kept whatever the noise (ties go to the earlier candidate), and
        // they span a square (every other octagon corner, area 2 for circumradius 1).
        let octagon = |noise: [f32; 8]| -> Vec<ContactPoint> {
            (0..8)
                .map(|k| {
                    let angle = k as f32 * std::f32::consts::FRAC_PI_4;
                    ContactPoint {
                        position: Vec3::new(angle.cos(), 0.0, angle.sin()),
                        separation: -0.01 + noise[k],
                        id: 100 + k as u32,
                    }
                })
                .collect()
        };
        let reduce = |points: &[ContactPoint]| {
            let mut m = Manifold { normal: Vec3::Y, ..Default::default() };
            reduce_points(points, Vec3::Y, &mut m);
            let mut ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
            ids.sort();
            ids
        };
        let quiet = reduce(&octagon([0.0; 8]));
        assert_eq!(quiet, vec![100, 102, 104, 106]);
        let noisy = reduce(&octagon([0.0, 3e-7, -2e-7, 1e-7, -4e-7, 2e-7, 5e-7, -1e-7]));
        assert_eq!(noisy, quiet);
        // A real difference in depth (3 mm, beyond the tie) moves the choice to the deepest
        // corner.
        let mut deeper = [0.0; 8];
        deeper[3] = -3e-3;
        assert!(reduce(&octagon(deeper)).contains(&103));
    }
}
