//! A convex shape against the triangles of a mesh or heightfield: one contact per touching
//! triangle, corrected so that no body bumps on an inner edge or is pushed through to a
//! mesh's back, then merged into a few manifolds for the pair.
//!
//! Per triangle (mesh frame, the triangle as shape A, the body as B, `f` the face normal on
//! the body's side: the front of a one-sided triangle, the side of the body's centre for a
//! two-sided one):
//!
//! 1. a body entirely behind a one-sided triangle (its furthest point along f more than the
//!    margin behind the plane) does not touch it (a heightfield is solid below, so its
//!    triangles always do), nor does one wholly in front of the plane or beyond one of the
//!    triangle's side planes by more than the margin;
//! 2. the body's supporting feature along −f clipped to the triangle's prism: when it has
//!    points, none deeper than `SHALLOW_DEPTH`, the body lies over the face and this is the
//!    contact (resting and sliding bodies, the common case, need nothing more); when it has
//!    none, the body touches the triangle only if it comes within the margin of its plane and
//!    of one of its active (convex) edges or vertices (an axis from the feature's point
//!    nearest the body's centre separates them otherwise); otherwise GJK/EPA between the
//!    triangle and the body give the normal n and the separation;
//! 3. n is replaced by f when it would push the body to the other side (n·f ≤ 0), when the
//!    triangle's witness point lies inside the face (EPA's shortest way out of a thin
//!    triangle can be sideways), when it lies on an inactive edge or vertex (flat or
//!    concave: the neighbour continues the surface, so the edge's rounded normal is a ghost),
//!    or when it lies on an active one but n turns out of the feature's cone of normals
//!    towards a neighbour (past the neighbour's face at an edge, along an edge of the surface
//!    at a vertex: the neighbour is nearer the body and its own contact answers; taken alone,
//!    the edge of a slope falling away from a flat floor faces a body on the floor from
//!    behind, and kicked up balls and capsules sliding onto the crease); the contact is then
//!    the body's supporting feature along −f clipped to the triangle's prism, each point's
//!    separation its height above the plane;
//! 4. otherwise (a convex edge or corner, or the face itself) the manifold of the convex
//!    pair machinery stands.
//!
//! Merging: triangle manifolds whose normals are within `CLUSTER_COSINE` of each other share
//! one manifold (the deepest one's normal), reduced to four points; at most
//! `MAX_PAIR_MANIFOLDS` such groups (a body across a crease or in a corner). A point made by
//! one of the body's own vertices keeps the body feature's id whichever triangle it lies
//! over, so warm starting follows a sliding box across triangle boundaries; points made by
//! clipping get the triangle's index mixed into their id.

use super::clip::{clip_faces, feature_id};
use super::convex::{clip_segment_to_face, manifold_from_separation, separation, Separation};
use super::gjk::{closest_on_triangle, ConvexCore, CoreKind};
use super::pairs::closest_point_on_segment;
use super::support_face::{support_feature_for_core, SupportFeature};
use super::support_map::SupportMap;
use crate::collision::manifold::{reduce_points, ContactPoint, Manifold};
use crate::geometry::Aabb;
use crate::math::{Pose, Vec3};
use crate::shape::{Triangle, TriangleSurface};
use smallvec::SmallVec;

/// Most manifolds one body pair holds against a mesh.
pub const MAX_PAIR_MANIFOLDS: usize = 4;

/// A contact normal this close to the face normal (cosine, about 1°) is the face's.
const FACE_NORMAL_COSINE: f32 = 0.9998;

/// Triangle manifolds whose normals are this close (cosine, about 3°) share a manifold. At 8°
/// a box resting across a 7.7° valley crease rocked for 40 s: its merged manifold took the
/// deeper triangle's normal, and which triangle was deeper changed as it rocked.
const CLUSTER_COSINE: f32 = 0.9986;

/// A body over a triangle's face overlapping it by at most this much (metres) touches the
/// face: its contact is the clipped face contact, without a GJK/EPA query. The body then lies
/// over the face, and step 3 would choose the face normal, or keep an edge's normal within a
/// degree or two of it where the body also reaches over a convex edge; only a deeper overlap
/// needs GJK/EPA to find out whether the shortest way out is sideways, past an edge.
const SHALLOW_DEPTH: f32 = 0.02;

/// How far (cosine of the angle past square, about 0.06°) a contact normal may turn out of an
/// active edge's or vertex's cone of normals before the neighbour it turns towards answers
/// instead (see [`Neighbours`]).
const CONE_SLACK: f32 = 1e-3;

/// How close (metres) a witness point must be to an edge to be on it.
const FEATURE_DISTANCE: f32 = 1e-3;

/// Points of one group this close together (metres) are one point (the deeper is kept).
const DUPLICATE_DISTANCE: f32 = 1e-3;

/// Local clip ids from this value up name points made by clipping, below it the incident
/// feature's own vertices (see `clip.rs` and `clip_segment_to_face`).
const FIRST_CLIP_ID: u32 = 0x100;

/// Set in the id of a point made by clipping against a triangle.
const CLIP_MARK: u32 = 1 << 31;

/// The body as the triangles see it: its core in the mesh frame and whether the shape is
/// solid below its triangles (a heightfield).
pub struct TriangleQuery<'a> {
    /// The body's core, posed in the mesh's frame.
    pub body: ConvexCore<'a>,
    /// The body's bounds in the mesh's frame (its shape's own box at that pose).
    pub bounds: Aabb,
    /// Speculative distance, metres.
    pub margin: f32,
    /// The shape is solid below its surface: a body under it is pushed up, never skipped.
    pub solid_below: bool,
}

/// One triangle's contact with the body, in the mesh frame.
struct TriangleContact {
    manifold: Manifold,
    deepest: f32,
}

/// The manifolds (mesh frame, normals from the mesh to the body) of the body against every
/// triangle of `surface` in the body's bounds.
pub fn collide_triangles(query: &TriangleQuery, surface: &impl TriangleSurface, out: &mut Vec<Manifold>) {
    out.clear();
    let mut bounds = query.bounds.expanded(query.margin);
    // A sphere holding the body grown by the margin: its box's centre and half diagonal.
    let reach = Reach { center: bounds.center(), radius: 0.5 * (bounds.max - bounds.min).length() };
    if query.solid_below {
        // Everything below the surface is inside: a triangle above the body's bottom counts.
        bounds.max.y = f32::INFINITY;
    }
    let mut contacts = SmallVec::<[TriangleContact; 8]>::new();
    let mut incident = SupportFeature::empty();
    // The body's support with its rotation as a matrix: asked several times per triangle.
    let support = SupportMap::new(&query.body);
    surface.for_each_triangle_in(&bounds, |index, triangle| {
        let neighbours = Neighbours { surface, index };
        if let Some(manifold) = triangle_contact(query, &support, &reach, neighbours, triangle, &mut incident) {
            contacts.push(TriangleContact { deepest: manifold.min_separation(), manifold });
        }
        true
    });
    merge(&mut contacts, out);
}

/// The contact of one triangle with the body (steps 1 to 4 of the module notes); `support`
/// is the body core's support mapping, `incident` a buffer for its supporting feature.
fn triangle_contact(
    query: &TriangleQuery,
    support: &SupportMap,
    reach: &Reach,
    neighbours: Neighbours<impl TriangleSurface>,
    triangle: &Triangle,
    incident: &mut SupportFeature,
) -> Option<Manifold> {
    let index = neighbours.index;
    let body = &query.body;
    let v0 = triangle.vertices[0];
    let behind = triangle.normal.dot(body.center() - v0) < 0.0;
    let face = if triangle.two_sided && behind { -triangle.normal } else { triangle.normal };
    // A body wholly behind a one-sided triangle by more than the margin touches nothing.
    if !query.solid_below && face.dot(support.support(face) - v0) + body.radius < -query.margin {
        return None;
    }
    // A body wholly in front of the plane by more than the margin touches nothing here.
    let lowest = face.dot(support.support(-face) - v0) - body.radius;
    if lowest > query.margin {
        return None;
    }
    // Nor does a body wholly beyond one of its side planes by more than the margin: cheaper
    // to find than the empty clip of its feature to the triangle's prism (about one triangle
    // in five a body's box reaches on terrain).
    if beyond_a_side(triangle, body, support, query.margin) {
        return None;
    }
    let mut manifold = Manifold::new();
    let own = index.wrapping_mul(0x85EB_CA77).rotate_left(7) | 1;
    support_feature_for_core(body, -face, incident);
    face_contact(triangle, face, incident, query.margin, &mut manifold);
    mix_clip_ids(&mut manifold, own);
    if manifold.is_empty() {
        if !may_touch_beside_the_face(triangle, body, support, reach, query.margin) {
            return None;
        }
    } else if manifold.min_separation() >= -SHALLOW_DEPTH {
        return Some(manifold);
    }
    let core = ConvexCore { kind: CoreKind::Triangle(triangle.vertices), pose: Pose::IDENTITY, radius: 0.0 };
    let found = triangle_separation(&core, triangle, body, face, query.margin);
    if !takes_face_normal(triangle, &neighbours, face, &found) {
        manifold.clear();
        if found.separation <= query.margin {
            manifold_from_separation(&core, body, &found, query.margin, &mut manifold);
            manifold.points[..manifold.count].iter_mut().for_each(|point| point.id ^= own);
        }
    }
    (!manifold.is_empty()).then_some(manifold)
}

/// Step 2's separation of the triangle (`core`) and the body (exact within `margin`): GJK/EPA, or for a sphere (a
/// point core at c) the closest point q of the triangle to c in closed form, with
/// n = (c − q)/|c − q| and separation |c − q| − r (GJK/EPA again when c lies on the triangle).
fn triangle_separation(
    core: &ConvexCore,
    triangle: &Triangle,
    body: &ConvexCore,
    face: Vec3,
    margin: f32,
) -> Separation {
    let centre = body.center();
    let v = triangle.vertices;
    let (index, weight, count) = closest_on_triangle(v.map(|corner| corner - centre));
    let closest = (0..count).fold(Vec3::ZERO, |sum, k| sum + weight[k] * v[index[k]]);
    if !matches!(body.kind, CoreKind::Point) {
        // GJK starts from the direction from the triangle's point nearest the body's centre.
        let hint = centre - closest;
        return separation(core, body, if hint.length_squared() > 1e-12 { hint } else { face }, margin);
    }
    let offset = centre - closest;
    let distance = offset.length();
    if distance <= 1e-6 {
        return separation(core, body, face, margin);
    }
    let normal = offset / distance;
    Separation { normal, separation: distance - body.radius, point_a: closest, point_b: centre - body.radius * normal }
}

/// A body whose supporting feature along −`face` clips to nothing in the triangle's prism is
/// not over the face. It can still touch the triangle from beside it, past an edge (some part
/// of it comes within the margin of the triangle's plane and of every side plane: the caller
/// checked), but only
/// through an active (convex) edge or vertex within its reach: at a flat or concave one step 3
/// takes the face normal, whose contact is the empty clip (the neighbour over which the body
/// lies answers instead).
fn may_touch_beside_the_face(
    triangle: &Triangle,
    body: &ConvexCore,
    support: &SupportMap,
    reach: &Reach,
    margin: f32,
) -> bool {
    reaches_an_active_feature(triangle, reach) && near_an_active_feature(triangle, body, support, margin)
}

/// Does the body come within the margin of one of the triangle's active edges or vertices?
/// For a feature (a segment or a point) with q its point nearest the body's centre c, the
/// axis d = c − q separates them by the body's gap along it, d̂·(s(−d̂) − q) − r: the feature
/// lies wholly at or below q along d̂, since q is its point nearest c. A body beyond the
/// margin of every active feature by such an axis cannot touch the triangle beside its face.
fn near_an_active_feature(triangle: &Triangle, body: &ConvexCore, support: &SupportMap, margin: f32) -> bool {
    let v = &triangle.vertices;
    let centre = body.center();
    let within = |nearest: Vec3| {
        let axis = centre - nearest;
        let length = axis.length();
        // The centre on the feature: no axis, so no verdict either.
        length <= 1e-6 || axis.dot(support.support(-axis) - nearest) - body.radius * length <= margin * length
    };
    let edges = (0..3)
        .filter(|&i| triangle.active_edges & (1 << i) != 0)
        .any(|i| within(closest_point_on_segment(centre, v[i], v[(i + 1) % 3])));
    edges || (0..3).filter(|&i| triangle.active_vertices & (1 << i) != 0).any(|i| within(v[i]))
}

/// A triangle of a surface and, on demand, the corners of its neighbours.
struct Neighbours<'a, S> {
    surface: &'a S,
    index: u32,
}

impl<S: TriangleSurface> Neighbours<'_, S> {
    /// Is a contact normal n at edge `edge` (from a = v_i to b = v_{i+1}) turned past the
    /// neighbour's face, out of the edge's cone of normals? With w the neighbour's far corner,
    /// u = w − a and ê = (b − a)/|b − a|, s = (u·ê)ê − u lies in the neighbour's plane square
    /// to the edge, pointing out of the neighbour over the edge. For the body's point p nearest
    /// the edge at q, n = (p − q)/|p − q|, and moving from q into the neighbour (along −s)
    /// changes the distance at the rate −n·ŝ: with n·ŝ < 0 the neighbour holds points nearer
    /// the body than the edge, and its own contact answers. `false` without a single
    /// neighbour.
    fn nearer_across_edge(&self, triangle: &Triangle, edge: usize, normal: Vec3) -> bool {
        let Some(far) = self.surface.far_corner(self.index, edge) else { return false };
        let (a, b) = (triangle.vertices[edge], triangle.vertices[(edge + 1) % 3]);
        let along = (b - a).normalize_or_zero();
        let u = far - a;
        let side = u.dot(along) * along - u;
        normal.dot(side) < -CONE_SLACK * side.length()
    }

    /// Is a contact normal n at vertex `vertex` (v) turned towards a corner w joined to v by
    /// an edge of the surface? Moving from v towards w, along that edge, changes the distance
    /// to the body's nearest point at the rate −n·(w − v)/|w − v|: where that is negative,
    /// the edge (and the triangles along it) are nearer than v, and answer instead.
    fn nearer_at_vertex(&self, triangle: &Triangle, vertex: usize, normal: Vec3) -> bool {
        let corner = triangle.vertices[vertex];
        self.surface.any_corner_joined(self.index, vertex, |joined| {
            let towards = joined - corner;
            normal.dot(towards) > CONE_SLACK * towards.length()
        })
    }
}

/// Is the body wholly outside one of the triangle's side planes by more than the margin? With
/// s_i = (v_{i+1} − v_i) × n the outward normal of edge i, the gap along s_i is
/// min over the body of s_i·(x − v_i), |s_i| times the distance: the axis separates them.
fn beyond_a_side(triangle: &Triangle, body: &ConvexCore, support: &SupportMap, margin: f32) -> bool {
    let v = &triangle.vertices;
    (0..3).any(|i| {
        let side = (v[(i + 1) % 3] - v[i]).cross(triangle.normal);
        let length = side.length();
        side.dot(support.support(-side) - v[i]) - body.radius * length > margin * length
    })
}

/// A sphere that holds the body grown by the margin (mesh frame).
struct Reach {
    center: Vec3,
    radius: f32,
}

/// Does the sphere `reach` touch one of the triangle's active edges or vertices?
fn reaches_an_active_feature(triangle: &Triangle, reach: &Reach) -> bool {
    let v = &triangle.vertices;
    let radius_sq = reach.radius * reach.radius;
    let near_edge = |i: usize| {
        closest_point_on_segment(reach.center, v[i], v[(i + 1) % 3]).distance_squared(reach.center) <= radius_sq
    };
    let edges = (0..3).any(|i| triangle.active_edges & (1 << i) != 0 && near_edge(i));
    edges
        || (0..3).any(|i| triangle.active_vertices & (1 << i) != 0 && v[i].distance_squared(reach.center) <= radius_sq)
}

/// Mixes the triangle's own id into the ids of the points made by clipping against it.
fn mix_clip_ids(manifold: &mut Manifold, own: u32) {
    for point in &mut manifold.points[..manifold.count] {
        if point.id & CLIP_MARK != 0 {
            point.id = (point.id ^ own) | CLIP_MARK;
        }
    }
}

/// Step 3: does the contact normal give way to the face normal `face`?
fn takes_face_normal(
    triangle: &Triangle,
    neighbours: &Neighbours<impl TriangleSurface>,
    face: Vec3,
    found: &Separation,
) -> bool {
    let alignment = found.normal.dot(face);
    if alignment >= FACE_NORMAL_COSINE {
        return false;
    }
    if alignment <= 0.0 || !found.normal.is_finite() {
        return true;
    }
    match closest_feature(triangle, found.point_a) {
        Feature::Face => true,
        Feature::Edge(i) => !triangle.edge_is_active(i) || neighbours.nearer_across_edge(triangle, i, found.normal),
        Feature::Vertex(i) => !triangle.vertex_is_active(i) || neighbours.nearer_at_vertex(triangle, i, found.normal),
    }
}

/// Where on a triangle a point (on or near it) lies.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Feature {
    Face,
    /// Edge i runs from vertex i to vertex i + 1.
    Edge(usize),
    Vertex(usize),
}

/// The feature of `triangle` nearest `point`: with d_i the in-plane distance of the point
/// inside edge i, d_i = ((v_{i+1} − v_i) × (p − v_i))·n / |v_{i+1} − v_i|, an edge holds the
/// point when d_i ≤ `FEATURE_DISTANCE`, a vertex when both its edges do.
fn closest_feature(triangle: &Triangle, point: Vec3) -> Feature {
    let v = &triangle.vertices;
    let near: [bool; 3] = std::array::from_fn(|i| {
        let edge = v[(i + 1) % 3] - v[i];
        edge.cross(point - v[i]).dot(triangle.normal) <= FEATURE_DISTANCE * edge.length()
    });
    match near {
        [false, false, false] => Feature::Face,
        [true, false, true] => Feature::Vertex(0),
        [true, true, false] => Feature::Vertex(1),
        [false, true, true] => Feature::Vertex(2),
        [true, _, _] => Feature::Edge(0),
        [_, true, _] => Feature::Edge(1),
        [_, _, true] => Feature::Edge(2),
    }
}

/// The body's supporting feature along −`face` clipped to the triangle's prism: each point's
/// separation is its height above the triangle's plane along `face`.
fn face_contact(triangle: &Triangle, face: Vec3, incident: &SupportFeature, margin: f32, out: &mut Manifold) {
    out.clear();
    out.normal = face;
    let reference = face_polygon(triangle, face);
    let id_base = incident.index;
    if incident.is_polygon() {
        clip_faces(&reference, face, incident.points(), margin, true, id_base, out);
    } else if incident.is_segment() {
        let segment = [incident.vertices[0], incident.vertices[1]];
        clip_segment_to_face(segment, (&reference, face), margin, true, id_base, out);
    } else {
        let p = incident.vertices[0];
        let separation = face.dot(p - triangle.vertices[0]);
        if separation <= margin && inside(triangle, p) {
            out.push(p - 0.5 * separation * face, separation, feature_id(id_base, 0));
        }
    }
    mark_clip_points(out, id_base);
}

/// Is `p`'s projection inside the triangle (edges included)?
fn inside(triangle: &Triangle, p: Vec3) -> bool {
    let v = &triangle.vertices;
    (0..3).all(|i| (v[(i + 1) % 3] - v[i]).cross(p - v[i]).dot(triangle.normal) >= 0.0)
}

/// The triangle's corners as a reference face, counter-clockwise about `face`.
fn face_polygon(triangle: &Triangle, face: Vec3) -> [Vec3; 3] {
    let v = triangle.vertices;
    if face.dot(triangle.normal) > 0.0 {
        [v[0], v[1], v[2]]
    } else {
        [v[0], v[2], v[1]]
    }
}

/// Flags the points made by clipping (not the body's own vertices) so that the caller mixes
/// the triangle into their ids: a clip point's local id is at least `FIRST_CLIP_ID`.
fn mark_clip_points(manifold: &mut Manifold, id_base: u32) {
    let base = feature_id(id_base, 0);
    for point in &mut manifold.points[..manifold.count] {
        if point.id ^ base >= FIRST_CLIP_ID {
            point.id |= CLIP_MARK;
        }
    }
}

/// Groups the triangle manifolds by normal, deepest first, and reduces each group to one
/// manifold (module notes).
fn merge(contacts: &mut [TriangleContact], out: &mut Vec<Manifold>) {
    contacts.sort_by(|a, b| a.deepest.total_cmp(&b.deepest));
    // Inline storage for the usual case (a few triangles under a body): no allocation.
    let mut groups = SmallVec::<[(Vec3, SmallVec<[ContactPoint; 16]>); MAX_PAIR_MANIFOLDS]>::new();
    for contact in contacts.iter() {
        let normal = contact.manifold.normal;
        let fitting = groups.iter().position(|(n, _)| n.dot(normal) >= CLUSTER_COSINE);
        let group = match fitting {
            Some(g) => g,
            None if groups.len() < MAX_PAIR_MANIFOLDS => {
                groups.push((normal, SmallVec::new()));
                groups.len() - 1
            }
            None => most_aligned(&groups, normal),
        };
        for point in contact.manifold.points() {
            add_point(&mut groups[group].1, *point);
        }
    }
    for (normal, points) in &groups {
        let mut manifold = Manifold { normal: *normal, ..Manifold::default() };
        reduce_points(points, *normal, &mut manifold);
        manifold.normal = *normal;
        out.push(manifold);
    }
}

fn most_aligned(groups: &[(Vec3, SmallVec<[ContactPoint; 16]>)], normal: Vec3) -> usize {
    (0..groups.len()).max_by(|&a, &b| groups[a].0.dot(normal).total_cmp(&groups[b].0.dot(normal))).unwrap_or(0)
}

/// Adds a point to a group unless the group has one within `DUPLICATE_DISTANCE` (then the
/// deeper of the two stays).
fn add_point(points: &mut SmallVec<[ContactPoint; 16]>, point: ContactPoint) {
    let limit = DUPLICATE_DISTANCE * DUPLICATE_DISTANCE;
    match points.iter_mut().find(|p| (p.position - point.position).length_squared() <= limit) {
        Some(existing) if point.separation < existing.separation => *existing = point,
        Some(_) => {}
        None => points.push(point),
    }
}

/// Maps manifolds from the mesh frame to the world.
pub fn to_world(manifolds: &mut [Manifold], mesh_pose: &Pose) {
    for manifold in manifolds {
        manifold.normal = mesh_pose.rotation * manifold.normal;
        for point in &mut manifold.points[..manifold.count] {
            point.position = mesh_pose.transform_point(point.position);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use crate::shape::Shape;

    /// A triangle with its normal from the corners.
    fn triangle(vertices: [Vec3; 3], active_edges: u8, active_vertices: u8, two_sided: bool) -> Triangle {
        let normal = (vertices[1] - vertices[0]).cross(vertices[2] - vertices[0]).normalize();
        Triangle { vertices, normal, active_edges, active_vertices, two_sided }
    }

    /// A flat n × n grid of 1 m cells in the XZ plane (y = 0) starting at the origin, two
    /// triangles a cell, facing +Y: the inner edges are flat (inactive), the border's are
    /// boundaries (active), and so are the border's vertices.
    fn grid(n: usize) -> Vec<Triangle> {
        let p = |i: usize, j: usize| Vec3::new(i as f32, 0.0, j as f32);
        let on_border = |i: usize, j: usize| i == 0 || j == 0 || i == n || j == n;
        let bits = |flags: [bool; 3]| flags.iter().enumerate().fold(0u8, |acc, (k, &f)| acc | (u8::from(f) << k));
        let mut triangles = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let corners = [(i, j), (i, j + 1), (i + 1, j + 1)];
                let edges = [i == 0, j + 1 == n, false];
                let vertices = corners.map(|(a, b)| on_border(a, b));
                triangles.push(triangle(corners.map(|(a, b)| p(a, b)), bits(edges), bits(vertices), false));
                let corners = [(i, j), (i + 1, j + 1), (i + 1, j)];
                let edges = [false, i + 1 == n, j == 0];
                let vertices = corners.map(|(a, b)| on_border(a, b));
                triangles.push(triangle(corners.map(|(a, b)| p(a, b)), bits(edges), bits(vertices), false));
            }
        }
        triangles
    }

    /// The manifolds of `shape` at `pose` against `triangles` (mesh at the origin).
    fn collide(shape: &Shape, pose: Pose, triangles: &[Triangle], solid_below: bool) -> Vec<Manifold> {
        let body = ConvexCore::from_shape(shape, &pose).unwrap();
        let query = TriangleQuery { body, bounds: shape.aabb(&pose), margin: 0.02, solid_below };
        let mut out = Vec::new();
        collide_triangles(&query, &Soup(triangles), &mut out);
        out
    }

    /// Triangles as a surface: neighbours are the triangles that share corners exactly.
    struct Soup<'a>(&'a [Triangle]);

    impl TriangleSurface for Soup<'_> {
        fn for_each_triangle_in(&self, local: &Aabb, mut visit: impl FnMut(u32, &Triangle) -> bool) {
            for (index, t) in self.0.iter().enumerate() {
                if t.aabb().overlaps(local) && !visit(index as u32, t) {
                    return;
                }
            }
        }

        fn far_corner(&self, index: u32, edge: usize) -> Option<Vec3> {
            let v = self.0[index as usize].vertices;
            let (a, b) = (v[edge], v[(edge + 1) % 3]);
            let mut across = self
                .0
                .iter()
                .enumerate()
                .filter(|&(k, t)| k != index as usize && t.vertices.contains(&a) && t.vertices.contains(&b));
            match (across.next(), across.next()) {
                (Some((_, t)), None) => t.vertices.into_iter().find(|&c| c != a && c != b),
                _ => None,
            }
        }

        fn any_corner_joined(&self, index: u32, corner: usize, mut test: impl FnMut(Vec3) -> bool) -> bool {
            let vertex = self.0[index as usize].vertices[corner];
            let mut joined = self.0.iter().filter(|t| t.vertices.contains(&vertex)).flat_map(|t| t.vertices);
            joined.any(|c| c != vertex && test(c))
        }
    }

    /// A ball pressed 1 cm into a flat grid at every point along a line crossing inner edges,
    /// diagonals and vertices at an angle: one manifold, the face normal, the true depth.
    #[test]
    fn a_ball_over_flat_inner_edges_and_vertices_sees_the_face() {
        let floor = grid(4);
        let ball = Shape::sphere(0.5).unwrap();
        for k in 0..=200 {
            let t = k as f32 / 200.0;
            let position = Vec3::new(0.7 + 2.6 * t, 0.49, 0.5 + 2.0 * t);
            for position in [position, Vec3::new(2.0, 0.49, 1.0 + 2.0 * t), Vec3::new(1.0 + t, 0.49, 1.0 + t)] {
                let manifolds = collide(&ball, Pose::from_position(position), &floor, false);
                assert_eq!(manifolds.len(), 1, "at {position}: {manifolds:?}");
                let m = &manifolds[0];
                assert!((m.normal - Vec3::Y).length() < 1e-5, "at {position}: {m:?}");
                assert!((m.min_separation() + 0.01).abs() < 1e-4, "at {position}: {m:?}");
            }
        }
    }

    /// A box turned about Y resting 1 cm deep across inner edges: one manifold of four points
    /// along the face normal at the true depth, whatever triangles its corners lie over.
    #[test]
    fn a_box_across_inner_edges_rests_on_the_face() {
        let floor = grid(4);
        let cube = Shape::cuboid(Vec3::new(0.5, 0.3, 0.4)).unwrap();
        for k in 0..50 {
            let t = k as f32 / 50.0;
            let pose = Pose::new(Vec3::new(1.2 + 1.5 * t, 0.29, 1.1 + t), Quat::from_rotation_y(0.3 + t));
            let manifolds = collide(&cube, pose, &floor, false);
            assert_eq!(manifolds.len(), 1, "{manifolds:?}");
            let m = &manifolds[0];
            assert!((m.normal - Vec3::Y).length() < 1e-5, "{m:?}");
            assert_eq!(m.count, 4, "{m:?}");
            for p in m.points() {
                assert!((p.separation + 0.01).abs() < 1e-4, "{m:?}");
            }
        }
    }

    /// A box pushed through a one-sided floor until its centre is below it is pushed back
    /// up, by its full depth, never down.
    #[test]
    fn a_box_deep_in_a_one_sided_floor_is_pushed_out_of_the_front() {
        let floor = grid(4);
        let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
        for depth in [0.3f32, 0.6, 0.9] {
            let pose = Pose::from_position(Vec3::new(2.2, 0.5 - depth, 1.7));
            let manifolds = collide(&cube, pose, &floor, false);
            assert_eq!(manifolds.len(), 1);
            assert!((manifolds[0].normal - Vec3::Y).length() < 1e-5);
            assert!((manifolds[0].min_separation() + depth).abs() < 1e-4, "{manifolds:?}");
        }
        // Entirely below a one-sided mesh: no contact. Below a heightfield: pushed up.
        let below = Pose::from_position(Vec3::new(2.2, -0.6, 1.7));
        assert!(collide(&cube, below, &floor, false).is_empty());
        let solid = collide(&cube, below, &floor, true);
        assert!((solid[0].normal - Vec3::Y).length() < 1e-5 && (solid[0].min_separation() + 1.1).abs() < 1e-4);
    }

    /// A ball over a convex ridge (an active edge) touches the edge: the normal points from
    /// the edge to the ball's centre.
    #[test]
    fn a_convex_ridge_keeps_its_edge_normal() {
        // Two faces falling away from the ridge along Z at x = 0 (roof, 30° each side).
        let (h, w) = (0.5f32, 30f32.to_radians().cos() / 30f32.to_radians().sin() * 0.5);
        let (a, b) = (Vec3::new(0.0, h, 0.0), Vec3::new(0.0, h, 2.0));
        let (left_0, left_1) = (Vec3::new(-w, 0.0, 0.0), Vec3::new(-w, 0.0, 2.0));
        let (right_0, right_1) = (Vec3::new(w, 0.0, 0.0), Vec3::new(w, 0.0, 2.0));
        // Left face: corners a, left_0, left_1 facing up-left; the ridge edge is its edge 2.
        let roof = [
            triangle([b, a, left_0], 0b111, 0b111, false),
            triangle([b, left_0, left_1], 0b111, 0b111, false),
            triangle([a, b, right_1], 0b111, 0b111, false),
            triangle([a, right_1, right_0], 0b111, 0b111, false),
        ];
        assert!(roof.iter().all(|t| t.normal.y > 0.0), "{roof:?}");
        let centre = Vec3::new(0.1, h + 0.49, 1.0);
        let manifolds = collide(&Shape::sphere(0.5).unwrap(), Pose::from_position(centre), &roof, false);
        let expected = (centre - Vec3::new(0.0, h, 1.0)).normalize();
        assert!(manifolds.iter().any(|m| (m.normal - expected).length() < 1e-3), "{manifolds:?}");
    }

    /// A two-sided sheet holds a ball from below with the normal pointing down.
    #[test]
    fn a_two_sided_sheet_collides_on_its_back() {
        let mut sheet = grid(2);
        sheet.iter_mut().for_each(|t| t.two_sided = true);
        let manifolds =
            collide(&Shape::sphere(0.3).unwrap(), Pose::from_position(Vec3::new(1.3, -0.29, 0.8)), &sheet, false);
        assert_eq!(manifolds.len(), 1);
        assert!((manifolds[0].normal + Vec3::Y).length() < 1e-5 && (manifolds[0].min_separation() + 0.01).abs() < 1e-4);
    }

    /// The filter before the query beside a face never drops a touch the query would keep:
    /// for every kind of body in random poses around a triangle with each mix of active
    /// edges and vertices, whenever GJK finds the body within the margin of the triangle at an
    /// active edge or vertex, `near_an_active_feature` says so. It also has to drop some
    /// bodies, or it would filter nothing.
    #[test]
    fn the_filter_beside_the_face_keeps_every_touch_of_an_active_feature() {
        use crate::collision::narrow_phase::gjk::gjk;
        use crate::collision::narrow_phase::tests::{sample_shapes, Rng};
        let mut rng = Rng::new(11);
        let margin = 0.05;
        let (mut kept, mut dropped) = (0, 0);
        for shape in sample_shapes().iter().filter(|s| !matches!(s, Shape::Plane(_))) {
            for case in 0..4000 {
                let corners = [Vec3::ZERO, Vec3::new(1.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 0.0)];
                let (edges, corners_active) = ((case % 8) as u8, ((case / 8) % 8) as u8);
                let tri = triangle(corners, edges, corners_active, false);
                let pose = Pose::new(Vec3::new(0.5, 0.0, 0.4) + rng.vec3(-1.2, 1.2), rng.rotation());
                let body = ConvexCore::from_shape(shape, &pose).unwrap();
                let core = ConvexCore { kind: CoreKind::Triangle(tri.vertices), pose: Pose::IDENTITY, radius: 0.0 };
                let found = gjk(&core, &body, Vec3::ZERO);
                let touches_active = !found.overlapping
                    && found.distance <= margin
                    && match closest_feature(&tri, found.point_a) {
                        Feature::Face => false,
                        Feature::Edge(i) => tri.active_edges & (1 << i) != 0,
                        Feature::Vertex(i) => tri.active_vertices & (1 << i) != 0,
                    };
                let near = near_an_active_feature(&tri, &body, &SupportMap::new(&body), margin);
                assert!(near || !touches_active, "{shape:?} at {pose:?}: touches an active feature, filtered out");
                if near {
                    kept += 1;
                } else {
                    dropped += 1;
                }
            }
        }
        assert!(dropped > kept / 4, "dropped {dropped}, kept {kept}");
    }
}
