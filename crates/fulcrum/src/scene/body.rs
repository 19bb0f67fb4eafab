//! A scene file's bodies and colliders: the engine's [`BodyDef`] and [`ColliderDef`] in their
//! serde forms, plus what only files have: a body's `colliders` in the same object, and a
//! collider's named `material`, whose fields a collider's own override.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::body::BodyDef;
use crate::collider::ColliderDef;
use crate::error::{Error, Result};
use crate::json::{self, Object};
use crate::shape::Shape;

/// An entry of `bodies`: the body's definition (omitted fields take `BodyDef::default()`;
/// `name` is required in files) and its colliders.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneBody {
    /// The body.
    pub def: BodyDef,
    /// Its colliders (a compound body has several).
    pub colliders: Vec<SceneCollider>,
}

/// An entry of a body's `colliders`: the collider's definition and, optionally, the name of a
/// material of the scene. Material fields resolve as collider > material > engine default.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneCollider {
    /// The collider (its `density`, `friction` and `restitution` resolved once the scene is
    /// read: the collider's own, else its material's, else the defaults).
    pub def: ColliderDef,
    /// Name of an entry of the scene's `materials`.
    pub material: Option<String>,
    /// Which material fields the collider gives itself (the material fills the others).
    own: OwnMaterialFields,
}

/// An entry of `materials`: defaults for the colliders that name it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Material {
    /// Coulomb friction coefficient (0 to [`MAX_FRICTION`](crate::collider::MAX_FRICTION)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f32>,
    /// Restitution (0 = no bounce to 1 = elastic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f32>,
    /// Rolling resistance coefficient (0 to [`MAX_ROLLING_RESISTANCE`](crate::collider::MAX_ROLLING_RESISTANCE)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_resistance: Option<f32>,
    /// Density, kg/m³ (above 0, at most [`MAX_DENSITY`](crate::collider::MAX_DENSITY)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f32>,
}

impl Material {
    /// Checks the given fields against a collider's ranges (errors name the field).
    pub fn validate(&self) -> Result<()> {
        let mut probe = ColliderDef::new(Shape::sphere(1.0)?);
        self.apply_to(&mut probe, OwnMaterialFields::NONE);
        probe.validated().map(|_| ())
    }

    /// Sets the fields of `def` that the collider does not give itself.
    fn apply_to(&self, def: &mut ColliderDef, own: OwnMaterialFields) {
        let fields = [
            (&mut def.density, self.density),
            (&mut def.friction, self.friction),
            (&mut def.restitution, self.restitution),
            (&mut def.rolling_resistance, self.rolling_resistance),
        ];
        for ((target, value), given) in fields.into_iter().zip(own.0) {
            if let (Some(value), false) = (value, given) {
                *target = value;
            }
        }
    }
}

/// The material fields, in the order of [`OwnMaterialFields`].
const MATERIAL_FIELDS: [&str; 4] = ["density", "friction", "restitution", "rolling_resistance"];

/// Which of `density`, `friction`, `restitution`, `rolling_resistance` a collider's file entry gives. Not part of the
/// collider's value (two colliders with equal fields are equal however they were written).
#[derive(Clone, Copy, Debug)]
struct OwnMaterialFields([bool; 4]);

impl OwnMaterialFields {
    const NONE: OwnMaterialFields = OwnMaterialFields([false; 4]);
    const ALL: OwnMaterialFields = OwnMaterialFields([true; 4]);
}

impl PartialEq for OwnMaterialFields {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl SceneCollider {
    /// A collider with no material.
    pub fn new(def: ColliderDef) -> Self {
        SceneCollider { def, material: None, own: OwnMaterialFields::ALL }
    }

    /// Takes the named material's fields where the collider gives none; an unknown material
    /// is an error at `material`.
    pub(super) fn resolve_material(&mut self, materials: &BTreeMap<String, Material>) -> Result<()> {
        let Some(name) = &self.material else { return Ok(()) };
        let Some(material) = materials.get(name) else {
            let known: Vec<&str> = materials.keys().map(String::as_str).collect();
            let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return Err(Error::new("material", format!("unknown material \"{name}\" (known: {known})")));
        };
        material.apply_to(&mut self.def, self.own);
        Ok(())
    }
}

impl Serialize for SceneBody {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let Value::Object(mut entries) = json::to_value(&self.def).map_err(serde::ser::Error::custom)? else {
            return Err(serde::ser::Error::custom("a body is an object"));
        };
        let colliders = json::to_value(&self.colliders).map_err(serde::ser::Error::custom)?;
        entries.insert("colliders".to_string(), colliders);
        entries.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SceneBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        read_body(Map::deserialize(deserializer)?).map_err(json::nested)
    }
}

fn read_body(entries: Map<String, Value>) -> Result<SceneBody> {
    let own_names = json::field_names::<BodyDef>();
    let mut object = Object::new(entries, &[own_names, &["colliders"]])?;
    let colliders = object.take("colliders")?.unwrap_or_default();
    Ok(SceneBody { def: object.take_part(own_names)?, colliders })
}

impl Serialize for SceneCollider {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let Value::Object(mut entries) = json::to_value(&self.def).map_err(serde::ser::Error::custom)? else {
            return Err(serde::ser::Error::custom("a collider is an object"));
        };
        if let Some(material) = &self.material {
            entries.insert("material".to_string(), Value::String(material.clone()));
        }
        entries.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SceneCollider {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        read_collider(Map::deserialize(deserializer)?).map_err(json::nested)
    }
}

fn read_collider(entries: Map<String, Value>) -> Result<SceneCollider> {
    let own_names = json::field_names::<ColliderDef>();
    let mut object = Object::new(entries, &[own_names, &["material"]])?;
    let own = OwnMaterialFields(MATERIAL_FIELDS.map(|field| object.has(field)));
    let material = object.take("material")?;
    Ok(SceneCollider { def: object.take_part(own_names)?, material, own })
}
