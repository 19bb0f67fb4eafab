//! Supporting features: the part of a shape's surface that touches a plane with a given
//! outward normal. Contact manifolds are built by clipping one feature against the other.
//!
//! For a world direction `d` (unit), each shape gives:
//! - sphere: the point `c + r d`;
//! - capsule: its axis segment moved by `r d` when the axis is nearly perpendicular to `d`
//!   (`|axis·d| <= SEGMENT_SINE`), else the support point;
//! - box: the face whose outward normal is most aligned with `d` (a quad);
//! - cylinder: the cap facing `d` as a 16-gon when the axis is nearly parallel to `d`
//!   (`|axis·d| >= CAP_COSINE`), the side line at the azimuth of `d` when nearly perpendicular,
//!   else the rim point;
//! - hull: the face whose outward normal is most aligned with `d`;
//! - triangle: its face (either side) when the normal is within `TRIANGLE_FACE_COSINE` of
//!   `±d`, an edge whose ends support `d` equally (within `SEGMENT_SINE`), else the corner.
//!
//! Polygons are counter-clockwise about their outward normal, which is what
//! `clip::clip_faces` expects of a reference face. Every feature carries an index that names
//! it on its shape, so feature ids stay stable while the same features touch.

use super::gjk::{ConvexCore, CoreKind};
use crate::math::{Mat3, Vec3};
use crate::shape::hull::MAX_FACE_VERTICES;

/// Sides of the polygon that stands in for a cylinder's cap.
pub const CYLINDER_CAP_SIDES: usize = 16;
/// `|axis·d|` below which a capsule's axis or a cylinder's side counts as perpendicular to
/// the direction (about 3 degrees).
pub const SEGMENT_SINE: f32 = 0.05;
/// `|axis·d|` above which a cylinder's cap counts as facing the direction (about 10 degrees).
pub const CAP_COSINE: f32 = 0.985;

/// `|n·d|` above which a triangle's face supports the direction `d` (about 3 degrees).
pub const TRIANGLE_FACE_COSINE: f32 = 0.9986;
/// Feature index of a triangle's front face; the back face is `+ 1`, edge i is `+ 2 + i`.
pub const TRIANGLE_FEATURE: u32 = 0x0D00;

/// Feature index of a single support point.
pub const POINT_FEATURE: u32 = 0x0F00;
/// Feature index of a capsule's segment.
pub const CAPSULE_SEGMENT_FEATURE: u32 = 0x0E00;
/// Feature index of a cylinder's side line.
pub const CYLINDER_SIDE_FEATURE: u32 = 0x0E01;

/// `cos` and `sin` of `2πk/16` for `k = 0..4`; the other twelve follow by symmetry.
const QUARTER_CIRCLE: [(f32, f32); 4] = [
    (1.0, 0.0),
    (0.923_879_5, 0.382_683_43),
    (std::f32::consts::FRAC_1_SQRT_2, std::f32::consts::FRAC_1_SQRT_2),
    (0.382_683_43, 0.923_879_5),
];

/// A supporting point, segment or polygon in world space.
#[derive(Clone, Copy, Debug)]
pub struct SupportFeature {
    /// Vertices: 1 = a point, 2 = a segment, 3 or more = a polygon counter-clockwise about
    /// `normal`.
    pub vertices: [Vec3; MAX_FACE_VERTICES],
    /// Number of valid vertices.
    pub len: usize,
    /// Outward unit normal of a polygon; the queried direction for points and segments.
    pub normal: Vec3,
    /// Which feature of the shape this is (face index, cap 0/1, or one of the constants).
    pub index: u32,
}

impl SupportFeature {
    /// A feature with no vertices, to be filled by [`support_feature`].
    pub fn empty() -> Self {
        Self { vertices: [Vec3::ZERO; MAX_FACE_VERTICES], len: 0, normal: Vec3::ZERO, index: u32::MAX }
    }

    fn reset(&mut self, normal: Vec3, index: u32) {
        self.len = 0;
        self.normal = normal;
        self.index = index;
    }

    fn push(&mut self, p: Vec3) {
        if self.len < MAX_FACE_VERTICES {
            self.vertices[self.len] = p;
            self.len += 1;
        }
    }

    /// The valid vertices.
    #[inline]
    pub fn points(&self) -> &[Vec3] {
        &self.vertices[..self.len]
    }

    /// True for a polygon (three or more vertices).
    #[inline]
    pub fn is_polygon(&self) -> bool {
        self.len >= 3
    }

    /// True for a segment.
    #[inline]
    pub fn is_segment(&self) -> bool {
        self.len == 2
    }
}

/// The feature of `core` (its rounded surface) that supports it in the world `direction`
/// (unit), written into `out` (a caller's buffer, so the large feature is neither zeroed nor
/// copied per query).
pub fn support_feature(core: &ConvexCore, direction: Vec3, out: &mut SupportFeature) {
    let local = core.pose.rotation.inverse() * direction;
    match core.kind {
        CoreKind::Point => point_feature(core, local, out),
        CoreKind::Segment { half_height } => segment_feature(core, local, half_height, out),
        CoreKind::Box { half_extents } => box_face(local, half_extents, out),
        CoreKind::Cylinder { half_height, radius } => cylinder_feature(core, local, half_height, radius, out),
        CoreKind::Hull(hull) => hull_face(local, hull, out),
        CoreKind::Triangle(vertices) => triangle_feature(&vertices, local, out),
    }
    // Local to world (the rotation as a matrix, built once); rounded cores move out by their
    // radius along the direction.
    let rotation = Mat3::from_quat(core.pose.rotation);
    let offset = core.pose.position + core.radius * direction;
    for v in &mut out.vertices[..out.len] {
        *v = rotation * *v + offset;
    }
    out.normal = if out.is_polygon() { rotation * out.normal } else { direction };
}

/// [`support_feature`] for a caller that keeps `out` for this one core: when the support is
/// a polygon whose vertices do not depend on the direction (a box face, a cylinder cap, a hull
/// face, none of them rounded) and `out` already holds that polygon, it is kept as it is. A
/// body against the triangles of a mesh asks along each triangle's normal, and neighbouring
/// triangles mostly pick the same face.
pub fn support_feature_for_core(core: &ConvexCore, direction: Vec3, out: &mut SupportFeature) {
    if out.is_polygon() && fixed_polygon(core, core.pose.rotation.inverse() * direction) == Some(out.index) {
        return;
    }
    support_feature(core, direction, out);
}

/// The index of the polygon that supports `local` when its vertices are fixed (see
/// [`support_feature_for_core`]); `None` otherwise.
fn fixed_polygon(core: &ConvexCore, local: Vec3) -> Option<u32> {
    if core.radius != 0.0 {
        return None;
    }
    match core.kind {
        CoreKind::Box { .. } => {
            let (axis, positive) = box_face_axis(local);
            Some(2 * axis as u32 + positive as u32)
        }
        CoreKind::Cylinder { .. } => cap_supports(local).then_some((local.y >= 0.0) as u32),
        CoreKind::Hull(hull) if !hull.planes.is_empty() => Some(best_hull_face(local, hull) as u32),
        _ => None,
    }
}

fn point_feature(core: &ConvexCore, local: Vec3, out: &mut SupportFeature) {
    out.reset(local, POINT_FEATURE);
    out.push(core.local_support(local));
}

fn segment_feature(core: &ConvexCore, local: Vec3, half_height: f32, out: &mut SupportFeature) {
    if local.y.abs() > SEGMENT_SINE * local.length() {
        return point_feature(core, local, out);
    }
    out.reset(local, CAPSULE_SEGMENT_FEATURE);
    out.push(Vec3::new(0.0, -half_height, 0.0));
    out.push(Vec3::new(0.0, half_height, 0.0));
}

/// The face of the box most aligned with `local`: axis `i` of largest `|d_i|` (the first on
/// ties) with sign `s`. Its corners go counter-clockwise about `s e_i` through the tangent
/// axes `j = i+1`, `k = i+2` (`e_j × e_k = e_i`): `(+,+) (-,+) (-,-) (+,-)` for `s > 0`,
/// reversed for `s < 0`. Face index `2i` for the negative side, `2i + 1` for the positive.
pub fn box_face(local: Vec3, half_extents: Vec3, out: &mut SupportFeature) {
    let (axis, positive) = box_face_axis(local);
    let sign = if positive { 1.0 } else { -1.0 };
    let mut normal = Vec3::ZERO;
    normal[axis] = sign;
    out.reset(normal, 2 * axis as u32 + positive as u32);
    let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut corners = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];
    if !positive {
        corners.reverse();
    }
    for (sj, sk) in corners {
        let mut p = Vec3::ZERO;
        p[axis] = sign * half_extents[axis];
        p[j] = sj * half_extents[j];
        p[k] = sk * half_extents[k];
        out.push(p);
    }
}

/// The box face most aligned with `local`: its axis and whether it is the positive side.
fn box_face_axis(local: Vec3) -> (usize, bool) {
    let magnitudes = local.abs();
    let axis = if magnitudes.x >= magnitudes.y && magnitudes.x >= magnitudes.z {
        0
    } else if magnitudes.y >= magnitudes.z {
        1
    } else {
        2
    };
    (axis, local[axis] >= 0.0)
}

/// A cylinder's cap supports `local` when the direction is within `CAP_COSINE` of the axis.
fn cap_supports(local: Vec3) -> bool {
    local.y.abs() >= CAP_COSINE * local.length()
}

fn cylinder_feature(core: &ConvexCore, local: Vec3, half_height: f32, radius: f32, out: &mut SupportFeature) {
    let length = local.length();
    let axial = local.y;
    if cap_supports(local) {
        return cylinder_cap(axial >= 0.0, half_height, radius, out);
    }
    let radial = Vec3::new(local.x, 0.0, local.z);
    if axial.abs() <= SEGMENT_SINE * length && radial.length_squared() > 0.0 {
        let rim = radial.normalize() * radius;
        out.reset(local, CYLINDER_SIDE_FEATURE);
        out.push(rim - Vec3::new(0.0, half_height, 0.0));
        out.push(rim + Vec3::new(0.0, half_height, 0.0));
        return;
    }
    point_feature(core, local, out)
}

/// A cap as a 16-gon inscribed in its rim, counter-clockwise about its outward normal.
/// Vertex `k` of the top cap sits at angle `θ_k = 2πk/16` measured from +z towards +x
/// (`z × x = y`): `(r sin θ_k, h, r cos θ_k)`. The bottom cap lists the same angles in
/// reverse. Top cap index 1, bottom cap 0.
pub fn cylinder_cap(top: bool, half_height: f32, radius: f32, out: &mut SupportFeature) {
    let (normal, y) = if top { (Vec3::Y, half_height) } else { (-Vec3::Y, -half_height) };
    out.reset(normal, top as u32);
    for step in 0..CYLINDER_CAP_SIDES {
        let k = if top { step } else { (CYLINDER_CAP_SIDES - step) % CYLINDER_CAP_SIDES };
        let (cos, sin) = circle_point(k);
        out.push(Vec3::new(radius * sin, y, radius * cos));
    }
}

/// `(cos, sin)` of `2πk/16`.
pub(crate) fn circle_point(k: usize) -> (f32, f32) {
    let (c, s) = QUARTER_CIRCLE[k % 4];
    match (k / 4) % 4 {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    }
}

/// The hull face whose outward normal is most aligned with `local` (the first on ties).
fn hull_face(local: Vec3, hull: &crate::shape::ConvexHull, out: &mut SupportFeature) {
    let best = best_hull_face(local, hull);
    let Some(plane) = hull.planes.get(best) else {
        out.reset(local, POINT_FEATURE);
        out.push(hull.support(local));
        return;
    };
    out.reset(plane.normal, best as u32);
    hull.for_each_face_vertex(best, |v| out.push(hull.vertices[v as usize]));
}

/// Index of the hull face whose outward normal is most aligned with `local` (the first on
/// ties; 0 for a hull without faces).
fn best_hull_face(local: Vec3, hull: &crate::shape::ConvexHull) -> usize {
    let mut best = 0;
    let mut best_dot = f32::NEG_INFINITY;
    for (f, plane) in hull.planes.iter().enumerate() {
        let d = plane.normal.dot(local);
        if d > best_dot {
            best_dot = d;
            best = f;
        }
    }
    best
}

/// The triangle's supporting feature along `local` (the triangle's frame): its face turned
/// towards `local`, an edge, or a corner.
fn triangle_feature(v: &[Vec3; 3], local: Vec3, out: &mut SupportFeature) {
    let normal = (v[1] - v[0]).cross(v[2] - v[0]).normalize_or_zero();
    let length = local.length();
    let facing = normal.dot(local);
    if facing.abs() >= TRIANGLE_FACE_COSINE * length {
        let (side, order) = if facing > 0.0 { (0, [0, 1, 2]) } else { (1, [0, 2, 1]) };
        out.reset(normal * facing.signum(), TRIANGLE_FEATURE + side);
        order.iter().for_each(|&i| out.push(v[i]));
        return;
    }
    let heights = v.map(|p| p.dot(local));
    let top = (0..3).fold(0, |best, i| if heights[i] > heights[best] { i } else { best });
    for other in [(top + 1) % 3, (top + 2) % 3] {
        let edge = v[other] - v[top];
        if heights[top] - heights[other] <= SEGMENT_SINE * edge.length() * length {
            let first = if other == (top + 1) % 3 { top } else { other };
            out.reset(local, TRIANGLE_FEATURE + 2 + first as u32);
            out.push(v[first]);
            out.push(v[(first + 1) % 3]);
            return;
        }
    }
    out.reset(local, POINT_FEATURE + top as u32);
    out.push(v[top]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Pose, Quat};
    use crate::shape::Shape;

    /// Polygon normal from Newell's sum `Σ v_k × v_{k+1}`: points along the outward normal
    /// for a counter-clockwise loop.
    fn feature_along(core: &ConvexCore, direction: Vec3) -> SupportFeature {
        let mut feature = SupportFeature::empty();
        support_feature(core, direction, &mut feature);
        feature
    }

    fn loop_normal(points: &[Vec3]) -> Vec3 {
        let n = points.len();
        (0..n).map(|k| points[k].cross(points[(k + 1) % n])).sum::<Vec3>().normalize()
    }

    #[test]
    fn box_faces_are_counter_clockwise_and_on_the_box() {
        let h = Vec3::new(0.5, 1.0, 2.0);
        for d in [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z] {
            let mut face = SupportFeature::empty();
            box_face(d + Vec3::new(0.1, -0.05, 0.08), h, &mut face);
            assert_eq!(face.len, 4);
            assert!((face.normal - d).length() < 1e-6);
            assert!((loop_normal(face.points()) - d).length() < 1e-5, "CCW about {d}");
            for p in face.points() {
                assert!((p.dot(d) - h.dot(d.abs())).abs() < 1e-6, "corner on the face plane");
            }
        }
    }

    #[test]
    fn cylinder_caps_are_regular_and_counter_clockwise() {
        for top in [false, true] {
            let mut cap = SupportFeature::empty();
            cylinder_cap(top, 0.7, 0.3, &mut cap);
            assert_eq!(cap.len, CYLINDER_CAP_SIDES);
            let expected = if top { Vec3::Y } else { -Vec3::Y };
            assert!((loop_normal(cap.points()) - expected).length() < 1e-5);
            let side = 2.0 * 0.3 * (std::f32::consts::PI / 16.0).sin();
            for k in 0..CYLINDER_CAP_SIDES {
                let p = cap.vertices[k];
                let q = cap.vertices[(k + 1) % CYLINDER_CAP_SIDES];
                assert!((Vec3::new(p.x, 0.0, p.z).length() - 0.3).abs() < 1e-6);
                assert!((p.y - expected.y * 0.7).abs() < 1e-6);
                assert!(((q - p).length() - side).abs() < 1e-5, "regular 16-gon");
            }
        }
    }

    #[test]
    fn cylinder_and_capsule_features_follow_the_direction() {
        let pose = Pose::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_z(0.4));
        let axis = pose.rotation * Vec3::Y;
        let cylinder = Shape::cylinder(0.5, 0.25).unwrap();
        let core = ConvexCore::from_shape(&cylinder, &pose).unwrap();
        assert_eq!(feature_along(&core, axis).len, CYLINDER_CAP_SIDES);
        let side_dir = pose.rotation * Vec3::X;
        let side = feature_along(&core, side_dir);
        assert!(side.is_segment());
        for p in side.points() {
            // On the rim, at the far side along x.
            let local = pose.inverse_transform_point(*p);
            assert!((local.x - 0.25).abs() < 1e-5 && (local.y.abs() - 0.5).abs() < 1e-5);
        }
        let tilted = (axis + side_dir).normalize();
        assert_eq!(feature_along(&core, tilted).len, 1);

        let capsule = Shape::capsule(0.5, 0.2).unwrap();
        let core = ConvexCore::from_shape(&capsule, &pose).unwrap();
        let segment = feature_along(&core, side_dir);
        assert!(segment.is_segment());
        for p in segment.points() {
            let local = pose.inverse_transform_point(*p);
            assert!((local.x - 0.2).abs() < 1e-5 && (local.y.abs() - 0.5).abs() < 1e-5);
        }
        assert_eq!(feature_along(&core, tilted).len, 1);
    }
}
