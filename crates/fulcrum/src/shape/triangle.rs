//! One triangle of a mesh or heightfield, with what the narrow phase needs to keep bodies
//! from bumping on the mesh's inner edges.

use crate::math::Vec3;

/// One triangle of a mesh or heightfield in the shape's local frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// Corners, counter-clockwise seen from the front.
    pub vertices: [Vec3; 3],
    /// Unit front normal, `(v1 − v0) × (v2 − v0)` normalised.
    pub normal: Vec3,
    /// Bit i: edge i (from vertex i to vertex i + 1) is active, a convex edge or a boundary
    /// with no neighbour. Flat and concave edges are inactive: a contact on them takes the
    /// face normal.
    pub active_edges: u8,
    /// Bit i: vertex i is active (some edge of the shape at that vertex is active).
    pub active_vertices: u8,
    /// Does the triangle collide on both faces?
    pub two_sided: bool,
}
