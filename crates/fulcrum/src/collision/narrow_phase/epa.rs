//! EPA (expanding polytope algorithm): penetration depth and normal of two overlapping cores.
//!
//! When the cores overlap, the origin lies inside `D = A - B`. The penetration depth is the
//! distance from the origin to the boundary of `D`, and the normal (A to B) is the outward
//! normal of the boundary there: translating B by `depth · normal` makes the shapes touch.
//!
//! EPA grows a polytope inside `D` that holds the origin:
//! 1. start from GJK's final simplex, blown up to a tetrahedron;
//! 2. take the face closest to the origin (plane distance `d`, outward unit normal `n`);
//! 3. `w = s_D(n)`; when `w·n - d <= ε` the face lies on the boundary of `D`: `d` is the
//!    depth and `n` the normal;
//! 4. otherwise delete every face that `w` sees (`n_f·(w - p_f) > 0`), whose boundary (the
//!    horizon, edges used by exactly one deleted face) is joined to `w` by new faces.
//!
//! The witness points come from the barycentric coordinates of the origin's projection `d n`
//! on the final face, applied to the support points of A and B that made its corners.
//! For rounded shapes the depth of the cores plus both radii is exact: the support function
//! of a core swept by a sphere of radius `r` is `h(n) + r`.
//!
//! The polytope lives in fixed-size arrays; when they fill up the best face so far is the
//! answer (only curved shapes get near that).

use super::gjk::{ConvexCore, Simplex, SupportPoint};
use super::support_map::{minkowski_support, SupportMap};
use crate::math::{orthonormal_basis, Vec3};

/// Most polytope vertices (each iteration adds one).
const MAX_VERTICES: usize = 64;
/// Most polytope faces: a closed triangle mesh with `V` vertices has `2V - 4` faces.
const MAX_FACES: usize = 2 * MAX_VERTICES;
/// Most horizon edges in one expansion.
const MAX_HORIZON: usize = MAX_FACES;
/// Convergence tolerance on the depth, metres per metre of shape size.
const DEPTH_TOLERANCE: f32 = 1.0e-6;
/// The same when a core is curved (a cylinder): see `gjk::CURVED_DISTANCE_TOLERANCE`.
const CURVED_DEPTH_TOLERANCE: f32 = 1.0e-5;

/// Depth and direction of the overlap of two cores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration {
    /// Unit normal from A to B: moving B by `depth · normal` separates the cores.
    pub normal: Vec3,
    /// Penetration depth of the cores, metres (may be a hair below zero when just touching).
    pub depth: f32,
    /// Deepest point of core A inside B (world).
    pub point_a: Vec3,
    /// Deepest point of core B inside A (world); `point_a - point_b ≈ depth · normal`.
    pub point_b: Vec3,
}

#[derive(Clone, Copy, Debug, Default)]
struct Face {
    /// Corner indices, counter-clockwise seen from outside.
    corners: [u8; 3],
    /// Outward unit normal (zero for a degenerate face).
    normal: Vec3,
    /// Plane distance from the origin along `normal` (infinite for a degenerate face).
    distance: f32,
}

struct Polytope {
    vertices: [SupportPoint; MAX_VERTICES],
    vertex_count: usize,
    faces: [Face; MAX_FACES],
    face_count: usize,
}

impl Polytope {
    fn face(&self, a: u8, b: u8, c: u8) -> Face {
        let (pa, pb, pc) = (self.w(a), self.w(b), self.w(c));
        let n = (pb - pa).cross(pc - pa);
        let length = n.length();
        if !length.is_finite() || length <= 1e-12 {
            return Face { corners: [a, b, c], normal: Vec3::ZERO, distance: f32::INFINITY };
        }
        let normal = n / length;
        Face { corners: [a, b, c], normal, distance: normal.dot(pa) }
    }

    #[inline]
    fn w(&self, index: u8) -> Vec3 {
        self.vertices[index as usize].w
    }

    fn push_face(&mut self, face: Face) -> bool {
        if self.face_count == MAX_FACES {
            return false;
        }
        self.faces[self.face_count] = face;
        self.face_count += 1;
        true
    }

    /// Index of the face closest to the origin (the first on ties).
    fn closest_face(&self) -> usize {
        let mut best = 0;
        for i in 1..self.face_count {
            if self.faces[i].distance < self.faces[best].distance {
                best = i;
            }
        }
        best
    }
}

/// Penetration of two overlapping cores, seeded by GJK's final `simplex`. `None` when the
/// Minkowski difference is flat (no tetrahedron fits inside it, e.g. two parallel segments).
pub fn epa(a: &ConvexCore, b: &ConvexCore, simplex: &Simplex) -> Option<Penetration> {
    let accuracy = if a.is_curved() || b.is_curved() { CURVED_DEPTH_TOLERANCE } else { DEPTH_TOLERANCE };
    let (a, b) = (&SupportMap::new(a), &SupportMap::new(b));
    let tetrahedron = initial_tetrahedron(a, b, simplex)?;
    let mut polytope = Polytope {
        vertices: [SupportPoint::default(); MAX_VERTICES],
        vertex_count: 4,
        faces: [Face::default(); MAX_FACES],
        face_count: 0,
    };
    polytope.vertices[..4].copy_from_slice(&tetrahedron);
    let centroid = tetrahedron.iter().map(|p| p.w).sum::<Vec3>() * 0.25;
    for [i, j, k] in [[0u8, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]] {
        let mut face = polytope.face(i, j, k);
        if face.normal.dot(polytope.w(i) - centroid) < 0.0 {
            face = polytope.face(i, k, j);
        }
        polytope.push_face(face);
    }
    let scale = tetrahedron.iter().map(|p| p.w.length()).fold(1.0f32, f32::max);
    let tolerance = accuracy * scale;
    let mut best = polytope.faces[polytope.closest_face()];
    for _ in 0..MAX_VERTICES - 4 {
        let closest = polytope.closest_face();
        best = polytope.faces[closest];
        if !best.distance.is_finite() {
            return None;
        }
        let support = minkowski_support(a, b, best.normal);
        if support.w.dot(best.normal) - best.distance <= tolerance
            || polytope.vertex_count == MAX_VERTICES
            || !expand(&mut polytope, closest, support, tolerance)
        {
            break;
        }
    }
    Some(penetration(&polytope, &best))
}

/// Adds `support` as a vertex and replaces the faces it sees by a cone of new faces from
/// their boundary (the horizon) to it. Returns false, leaving the polytope unchanged, when
/// rounding has made the step unsound:
/// - the deleted faces must form a disc around the closest face (each joined to it through
///   deleted faces sharing an edge), so their boundary has `deleted + 2` edges;
/// - no new face may lie closer to the origin than the closest face did (the polytope only
///   grows, so the depth never shrinks).
fn expand(polytope: &mut Polytope, closest: usize, support: SupportPoint, tolerance: f32) -> bool {
    let mut deleted = [false; MAX_FACES];
    let deleted_count = mark_visible_region(polytope, closest, support.w, &mut deleted);
    let mut horizon = [(0u8, 0u8); MAX_HORIZON];
    let mut horizon_len = 0;
    for i in (0..polytope.face_count).filter(|&i| deleted[i]) {
        let corners = polytope.faces[i].corners;
        for k in 0..3 {
            let (from, to) = (corners[k], corners[(k + 1) % 3]);
            let inner = (0..polytope.face_count).any(|j| deleted[j] && has_edge(&polytope.faces[j], to, from));
            if !inner {
                if horizon_len == MAX_HORIZON {
                    return false;
                }
                horizon[horizon_len] = (from, to);
                horizon_len += 1;
            }
        }
    }
    let kept = polytope.face_count - deleted_count;
    if horizon_len != deleted_count + 2 || kept + horizon_len > MAX_FACES {
        return false;
    }
    let new_index = polytope.vertex_count as u8;
    polytope.vertices[polytope.vertex_count] = support;
    let floor = polytope.faces[closest].distance - tolerance;
    let mut cone = [Face::default(); MAX_HORIZON];
    for (slot, &(from, to)) in horizon[..horizon_len].iter().enumerate() {
        cone[slot] = polytope.face(from, to, new_index);
        if cone[slot].distance < floor {
            return false;
        }
    }
    // Commit: keep the undeleted faces in order, then append the cone.
    let mut write = 0;
    for (read, _) in deleted[..polytope.face_count].iter().enumerate().filter(|(_, gone)| !**gone) {
        polytope.faces[write] = polytope.faces[read];
        write += 1;
    }
    polytope.faces[write..write + horizon_len].copy_from_slice(&cone[..horizon_len]);
    polytope.face_count = write + horizon_len;
    polytope.vertex_count += 1;
    true
}

/// Marks the faces that see `w` (`n·(w - p) > 0`) and are connected to `closest` through
/// such faces; returns how many.
fn mark_visible_region(polytope: &Polytope, closest: usize, w: Vec3, deleted: &mut [bool; MAX_FACES]) -> usize {
    let sees = |face: &Face| face.normal.dot(w - polytope.w(face.corners[0])) > 0.0;
    deleted[closest] = true;
    let mut count = 1;
    let mut grew = true;
    while grew {
        grew = false;
        for i in 0..polytope.face_count {
            let face = &polytope.faces[i];
            if deleted[i] || !sees(face) {
                continue;
            }
            let touches = (0..3).any(|k| {
                let (from, to) = (face.corners[k], face.corners[(k + 1) % 3]);
                (0..polytope.face_count).any(|j| deleted[j] && has_edge(&polytope.faces[j], to, from))
            });
            if touches {
                deleted[i] = true;
                count += 1;
                grew = true;
            }
        }
    }
    count
}

/// True when the face has the directed edge `from -> to`.
#[inline]
fn has_edge(face: &Face, from: u8, to: u8) -> bool {
    (0..3).any(|k| face.corners[k] == from && face.corners[(k + 1) % 3] == to)
}

/// Normal, depth and witness points from the final face.
fn penetration(polytope: &Polytope, face: &Face) -> Penetration {
    let [i, j, k] = face.corners.map(|c| polytope.vertices[c as usize]);
    let projection = face.normal * face.distance;
    let weights = barycentric(projection, i.w, j.w, k.w);
    Penetration {
        normal: face.normal,
        depth: face.distance,
        point_a: i.a * weights[0] + j.a * weights[1] + k.a * weights[2],
        point_b: i.b * weights[0] + j.b * weights[1] + k.b * weights[2],
    }
}

/// Barycentric coordinates of `p` in the triangle `a b c` (Cramer's rule on the 2x2 normal
/// equations of `p - a = v (b - a) + w (c - a)`); equal thirds for a degenerate triangle.
fn barycentric(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> [f32; 3] {
    let (e0, e1, e2) = (b - a, c - a, p - a);
    let (d00, d01, d11) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
    let (d20, d21) = (e2.dot(e0), e2.dot(e1));
    let denominator = d00 * d11 - d01 * d01;
    if !denominator.is_finite() || denominator <= 1e-20 {
        return [1.0 / 3.0; 3];
    }
    let v = (d11 * d20 - d01 * d21) / denominator;
    let w = (d00 * d21 - d01 * d20) / denominator;
    [1.0 - v - w, v, w]
}

/// A tetrahedron of points of `D` from GJK's simplex, adding support points in directions
/// that leave the current point, line or plane. `None` when `D` is flat.
fn initial_tetrahedron(a: &SupportMap, b: &SupportMap, simplex: &Simplex) -> Option<[SupportPoint; 4]> {
    let mut points = [SupportPoint::default(); 4];
    let mut len = simplex.len.min(4);
    points[..len].copy_from_slice(&simplex.points[..len]);
    if len == 0 {
        points[0] = minkowski_support(a, b, Vec3::X);
        len = 1;
    }
    let scale = points[..len].iter().map(|p| p.w.length()).fold(1.0f32, f32::max);
    let eps = 1e-5 * scale;
    // Drop degenerate parts of GJK's simplex (flat tetrahedron, collinear triangle, repeated
    // point) before blowing it up again.
    if len == 4 && tetrahedron_volume(&points).abs() <= eps * eps * eps {
        len = 3;
    }
    if len == 3 {
        let (e1, e2) = (points[1].w - points[0].w, points[2].w - points[0].w);
        if e1.cross(e2).length() <= eps * e1.length().max(e2.length()) {
            if e2.length() > e1.length() {
                points[1] = points[2];
            }
            len = 2;
        }
    }
    if len == 2 && (points[1].w - points[0].w).length() <= eps {
        len = 1;
    }
    if len == 1 {
        let found = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z]
            .into_iter()
            .map(|d| minkowski_support(a, b, d))
            .find(|p| (p.w - points[0].w).length() > eps)?;
        points[1] = found;
        len = 2;
    }
    if len == 2 {
        let edge = points[1].w - points[0].w;
        let (t1, t2) = orthonormal_basis(edge.normalize());
        let directions = [t1, -t1, t2, -t2, t1 + t2, -t1 - t2, t1 - t2, t2 - t1];
        let found = directions
            .into_iter()
            .map(|d| minkowski_support(a, b, d))
            .find(|p| (p.w - points[0].w).cross(edge).length() > eps * edge.length())?;
        points[2] = found;
        len = 3;
    }
    if len == 3 {
        let normal = (points[1].w - points[0].w).cross(points[2].w - points[0].w).normalize_or_zero();
        // Look first towards the origin's side of the triangle's plane.
        let towards = if normal.dot(points[0].w) <= 0.0 { normal } else { -normal };
        let found = [towards, -towards]
            .into_iter()
            .map(|d| minkowski_support(a, b, d))
            .find(|p| normal.dot(p.w - points[0].w).abs() > eps)?;
        points[3] = found;
    }
    Some(points)
}

/// Six times the signed volume of the tetrahedron.
fn tetrahedron_volume(p: &[SupportPoint; 4]) -> f32 {
    (p[1].w - p[0].w).cross(p[2].w - p[0].w).dot(p[3].w - p[0].w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::narrow_phase::convex::separation;
    use crate::collision::narrow_phase::gjk::gjk;
    use crate::collision::narrow_phase::tests::Rng;
    use crate::math::Pose;
    use crate::shape::Shape;
    use glam::{DMat3, DVec3};

    /// Penetration depth of two boxes by brute force over the 15 separating axes (f64):
    /// `min over L of (r_a(L) + r_b(L) - |L·(c_b - c_a)|)` with `r(L) = Σ h_i |L·u_i|`.
    fn sat_depth(h_a: DVec3, pose_a: &Pose, h_b: DVec3, pose_b: &Pose) -> f64 {
        let axes_a = DMat3::from_quat(pose_a.rotation.as_dquat());
        let axes_b = DMat3::from_quat(pose_b.rotation.as_dquat());
        let ua = [axes_a.x_axis, axes_a.y_axis, axes_a.z_axis];
        let ub = [axes_b.x_axis, axes_b.y_axis, axes_b.z_axis];
        let offset = (pose_b.position - pose_a.position).as_dvec3();
        let mut candidates: Vec<DVec3> = ua.iter().chain(ub.iter()).copied().collect();
        for a in ua {
            for b in ub {
                let cross = a.cross(b);
                if cross.length() > 1e-9 {
                    candidates.push(cross.normalize());
                }
            }
        }
        let radius = |h: DVec3, u: &[DVec3; 3], l: DVec3| {
            h.x * u[0].dot(l).abs() + h.y * u[1].dot(l).abs() + h.z * u[2].dot(l).abs()
        };
        candidates
            .iter()
            .map(|&l| radius(h_a, &ua, l) + radius(h_b, &ub, l) - offset.dot(l).abs())
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn box_depth_matches_the_separating_axis_answer() {
        let (h_a, h_b) = (Vec3::new(0.5, 0.3, 0.8), Vec3::new(0.4, 0.6, 0.2));
        let (box_a, box_b) = (Shape::cuboid(h_a).unwrap(), Shape::cuboid(h_b).unwrap());
        let mut rng = Rng::new(11);
        let mut compared = 0;
        for _ in 0..500 {
            let pose_a = rng.pose(0.6);
            let pose_b = rng.pose(0.6);
            let depth = sat_depth(h_a.as_dvec3(), &pose_a, h_b.as_dvec3(), &pose_b);
            if depth < 1e-3 {
                continue;
            }
            let a = ConvexCore::from_shape(&box_a, &pose_a).unwrap();
            let b = ConvexCore::from_shape(&box_b, &pose_b).unwrap();
            assert!(gjk(&a, &b, Vec3::ZERO).overlapping);
            let found = separation(&a, &b, Vec3::ZERO, f32::INFINITY);
            // The brief asks for 1e-3; on boxes EPA lands within a few 1e-7.
            assert!((-found.separation as f64 - depth).abs() < 1e-5, "EPA {} vs SAT {depth}", -found.separation);
            // The overlap of the support intervals along EPA's normal is the same depth.
            let n = found.normal;
            let along = a.support(n).dot(n) - b.support(-n).dot(n);
            assert!((along as f64 - depth).abs() < 1e-5, "{along} vs {depth}");
            // Witnesses: B's deepest point is `depth` behind A's along the normal.
            assert!(((found.point_a - found.point_b).dot(n) as f64 - depth).abs() < 1e-5);
            compared += 1;
        }
        assert!(compared > 300, "{compared}");
    }

    #[test]
    fn flat_difference_gives_none() {
        // Two parallel segments (capsule cores) on one line: A - B is a segment.
        let capsule = Shape::capsule(0.5, 0.1).unwrap();
        let a = ConvexCore::from_shape(&capsule, &Pose::IDENTITY).unwrap();
        let b = ConvexCore::from_shape(&capsule, &Pose::from_position(Vec3::new(0.0, 0.3, 0.0))).unwrap();
        let result = gjk(&a, &b, Vec3::ZERO);
        assert!(result.overlapping);
        assert!(epa(&a, &b, &result.simplex).is_none());
    }

    #[test]
    fn degenerate_seeds_are_blown_up_to_the_same_answer() {
        // A unit cube (A) and a sphere (B) whose centre is 0.1 inside the +x face: the cores
        // overlap by 0.1 and B leaves along +x, whatever the seed simplex looked like.
        let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
        let point = Shape::sphere(0.2).unwrap();
        let a = ConvexCore::from_shape(&cube, &Pose::IDENTITY).unwrap();
        let b = ConvexCore::from_shape(&point, &Pose::from_position(Vec3::new(0.4, 0.1, -0.05))).unwrap();
        let support = |d: Vec3| minkowski_support(&SupportMap::new(&a), &SupportMap::new(&b), d);
        let seeds = [
            vec![],
            vec![support(Vec3::X)],
            vec![support(Vec3::X), support(Vec3::X)],
            vec![support(Vec3::X), support(Vec3::Y), support(Vec3::X)],
            vec![support(Vec3::X), support(Vec3::Y), support(-Vec3::Y), support(Vec3::Y)],
        ];
        for seed in seeds {
            let mut simplex = Simplex::default();
            simplex.points[..seed.len()].copy_from_slice(&seed);
            simplex.len = seed.len();
            let p = epa(&a, &b, &simplex).expect("a solid difference");
            assert!((p.depth - 0.1).abs() < 1e-5, "seed of {}: depth {}", seed.len(), p.depth);
            assert!((p.normal - Vec3::X).length() < 1e-4);
        }
    }
}
