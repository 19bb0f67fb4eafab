//! A shape as scene files and messages write it: an object tagged by `type`
//! (`{"type": "box", "half_extents": [0.5, 0.5, 0.5]}`) whose other fields are the shape's own
//! (the engine structs derive them; a convex hull is written as its `points`). Reading builds
//! the shape through its constructor, so a bad size is refused with its path like any other
//! value. A triangle mesh is written as its `vertices` and `indices`, or as the `file` (and
//! `scale`) it was read from; a heightfield as its `heights` and `scale`.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::{Capsule, ConvexHull, Cuboid, Cylinder, Plane, Shape, Sphere, TriMesh};
use crate::error::{Error, Result};
use crate::json::{self, Object};
use crate::math::Vec3;

/// The variant names of the file format and the engine type each one reads (serde's
/// externally tagged form: `{"box": {"half_extents": ...}}`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ShapeForm {
    Sphere(Sphere),
    #[serde(rename = "box")]
    Cuboid(Cuboid),
    Capsule(Capsule),
    Cylinder(Cylinder),
    ConvexHull(HullPoints),
    Plane(Plane),
    #[serde(rename = "trimesh")]
    TriMesh(MeshForm),
    #[serde(rename = "heightfield")]
    HeightField(HeightsForm),
}

/// A hull's file form: the points whose hull it is.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HullPoints {
    points: Vec<Vec3>,
}

/// A triangle mesh's file form: inline `vertices` and `indices`, or a `file` with an optional
/// `scale` (default 1); `two_sided` optional (default false).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MeshForm {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vertices: Option<Vec<Vec3>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    indices: Option<Vec<[u32; 3]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale: Option<Vec3>,
    #[serde(default)]
    two_sided: bool,
}

/// A heightfield's file form: rows of heights (along Z; each row along X) and the scale.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeightsForm {
    heights: Vec<Vec<f32>>,
    scale: Vec3,
}

impl MeshForm {
    fn of(mesh: &TriMesh) -> MeshForm {
        let two_sided = mesh.two_sided();
        match mesh.source() {
            Some(source) => MeshForm {
                vertices: None,
                indices: None,
                file: Some(source.file.clone()),
                scale: Some(source.scale),
                two_sided,
            },
            None => MeshForm {
                vertices: Some(mesh.vertices().to_vec()),
                indices: Some(mesh.indices().to_vec()),
                file: None,
                scale: None,
                two_sided,
            },
        }
    }

    /// The mesh from its file or its inline triangles (not both).
    fn build(self) -> Result<Shape> {
        let MeshForm { vertices, indices, file, scale, two_sided } = self;
        if let Some(file) = file {
            if vertices.is_some() || indices.is_some() {
                return Err(Error::new("file", "give either `file` or `vertices` and `indices`, not both"));
            }
            return Shape::trimesh_from_file(&file, scale.unwrap_or(Vec3::ONE), two_sided);
        }
        if scale.is_some() {
            return Err(Error::new("scale", "`scale` applies to a mesh `file` only"));
        }
        let vertices = vertices.ok_or_else(|| Error::new("vertices", "missing field `vertices` (or give a `file`)"))?;
        let indices = indices.ok_or_else(|| Error::new("indices", "missing field `indices`"))?;
        Shape::trimesh(vertices, indices, two_sided)
    }
}

/// Types the format defines that the engine cannot build, with the reason.
const REFUSED: [(&str, &str); 1] = [("compound", "`compound` is not a shape: give the body several colliders instead")];

impl ShapeForm {
    fn of(shape: &Shape) -> ShapeForm {
        match shape {
            Shape::Sphere(s) => ShapeForm::Sphere(*s),
            Shape::Cuboid(s) => ShapeForm::Cuboid(*s),
            Shape::Capsule(s) => ShapeForm::Capsule(*s),
            Shape::Cylinder(s) => ShapeForm::Cylinder(*s),
            Shape::ConvexHull(hull) => ShapeForm::ConvexHull(HullPoints { points: hull.vertices.clone() }),
            Shape::Plane(s) => ShapeForm::Plane(*s),
            Shape::TriMesh(mesh) => ShapeForm::TriMesh(MeshForm::of(mesh)),
            Shape::HeightField(field) => {
                ShapeForm::HeightField(HeightsForm { heights: field.heights(), scale: field.scale() })
            }
        }
    }

    /// The shape, built (and checked) by its constructor.
    fn build(self) -> Result<Shape> {
        match self {
            ShapeForm::Sphere(s) => Shape::sphere(s.radius),
            ShapeForm::Cuboid(s) => Shape::cuboid(s.half_extents),
            ShapeForm::Capsule(s) => Shape::capsule(s.half_height, s.radius),
            ShapeForm::Cylinder(s) => Shape::cylinder(s.half_height, s.radius),
            ShapeForm::ConvexHull(h) => Ok(Shape::ConvexHull(Arc::new(ConvexHull::from_points(&h.points)?))),
            ShapeForm::Plane(s) => Shape::plane(s.normal, s.offset),
            ShapeForm::TriMesh(form) => form.build(),
            ShapeForm::HeightField(form) => Shape::heightfield(form.heights, form.scale),
        }
    }
}

/// Reads a shape from the entries of its object.
fn read(mut entries: Map<String, Value>) -> Result<Shape> {
    let tag = json::take_tag(&mut entries, "type")?;
    if let Some((_, reason)) = REFUSED.iter().find(|(name, _)| *name == tag) {
        return Err(Error::new("type", *reason));
    }
    Object::from_entries(entries).into_variant::<ShapeForm>(&tag, "type")?.build()
}

impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        json::internally_tagged(&ShapeForm::of(self), "type").map_err(serde::ser::Error::custom)?.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Shape, D::Error> {
        read(Map::deserialize(deserializer)?).map_err(json::nested)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_round_trip_through_their_file_form() {
        let points = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        let shapes = [
            Shape::sphere(0.5).unwrap(),
            Shape::cuboid(Vec3::new(0.5, 0.25, 1.0)).unwrap(),
            Shape::capsule(0.4, 0.3).unwrap(),
            Shape::cylinder(0.4, 0.3).unwrap(),
            Shape::convex_hull(&points).unwrap(),
            Shape::plane(Vec3::Y, -1.0).unwrap(),
        ];
        for shape in shapes {
            let text = serde_json::to_string(&shape).unwrap();
            assert_eq!(json::from_str::<Shape>(&text).unwrap(), shape, "{text}");
        }
        let text = serde_json::to_string(&Shape::cuboid(Vec3::ONE).unwrap()).unwrap();
        assert_eq!(text, r#"{"type":"box","half_extents":[1.0,1.0,1.0]}"#);
    }

    #[test]
    fn bad_shapes_are_refused_at_their_field() {
        let error = |text: &str| json::from_str::<Shape>(text).unwrap_err();
        assert_eq!(error(r#"{"type": "sphere", "radius": -1}"#).field, "radius");
        assert_eq!(error(r#"{"type": "sphere", "radius": "x"}"#).field, "radius");
        let typo = error(r#"{"type": "sphere", "radus": 1}"#);
        assert_eq!(typo.field, "radus");
        assert!(typo.reason.contains("did you mean `radius`"), "{typo}");
        let variant = error(r#"{"type": "sphre", "radius": 1}"#);
        assert_eq!(variant.field, "type");
        assert!(variant.reason.contains("did you mean `sphere`"), "{variant}");
        assert_eq!(error(r#"{"type": "box", "half_extents": [1, 0, 1]}"#).field, "half_extents[1]");
        assert!(error(r#"{"type": "compound"}"#).reason.contains("not a shape"));
        assert_eq!(error(r#"{"radius": 1}"#).field, "type");
    }
}
