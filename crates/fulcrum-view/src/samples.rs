//! The built-in samples: the files of `scenes/`, embedded so they work from any directory (the
//! mesh files they name are read from the repository's `scenes/assets/`).
//! `fulcrum run/check/export/list` and the testbed's gallery read them from here.

use fulcrum::Scene;

/// A built-in sample scene.
pub struct Sample {
    /// The name `fulcrum run NAME` takes.
    pub name: &'static str,
    /// The scene file's text.
    pub text: &'static str,
}

/// Every built-in sample, in the order `fulcrum list` shows them.
pub const SAMPLES: &[Sample] = &[
    Sample { name: "pyramid", text: include_str!("../../../scenes/pyramid.json") },
    Sample { name: "vertical_stack", text: include_str!("../../../scenes/vertical_stack.json") },
    Sample { name: "box_on_pole", text: include_str!("../../../scenes/box_on_pole.json") },
    Sample { name: "slope", text: include_str!("../../../scenes/slope.json") },
    Sample { name: "bouncing_balls", text: include_str!("../../../scenes/bouncing_balls.json") },
    Sample { name: "heavy_on_light", text: include_str!("../../../scenes/heavy_on_light.json") },
    Sample { name: "tumbling_box", text: include_str!("../../../scenes/tumbling_box.json") },
    Sample { name: "rope_bridge", text: include_str!("../../../scenes/rope_bridge.json") },
    Sample { name: "newtons_cradle", text: include_str!("../../../scenes/newtons_cradle.json") },
    Sample { name: "swinging_rope", text: include_str!("../../../scenes/swinging_rope.json") },
    Sample { name: "door_hinge", text: include_str!("../../../scenes/door_hinge.json") },
    Sample { name: "pistol_slide", text: include_str!("../../../scenes/pistol_slide.json") },
    Sample { name: "roller_coaster", text: include_str!("../../../scenes/roller_coaster.json") },
    Sample { name: "block_and_tackle", text: include_str!("../../../scenes/block_and_tackle.json") },
    Sample { name: "weld_cantilever", text: include_str!("../../../scenes/weld_cantilever.json") },
    Sample { name: "gear_pair", text: include_str!("../../../scenes/gear_pair.json") },
    Sample { name: "heavy_chain", text: include_str!("../../../scenes/heavy_chain.json") },
    Sample { name: "ragdoll_pile", text: include_str!("../../../scenes/ragdoll_pile.json") },
    Sample { name: "terrain_pile", text: include_str!("../../../scenes/terrain_pile.json") },
    Sample { name: "ramp_and_bowl", text: include_str!("../../../scenes/ramp_and_bowl.json") },
    Sample { name: "mesh_level", text: include_str!("../../../scenes/mesh_level.json") },
    Sample { name: "terrain_car", text: include_str!("../../../scenes/terrain_car.json") },
    Sample { name: "character_playground", text: include_str!("../../../scenes/character_playground.json") },
    Sample { name: "flag_on_pole", text: include_str!("../../../scenes/flag_on_pole.json") },
    Sample { name: "cloth_drop", text: include_str!("../../../scenes/cloth_drop.json") },
    Sample { name: "crate_on_rope", text: include_str!("../../../scenes/crate_on_rope.json") },
    Sample { name: "plank_bridge", text: include_str!("../../../scenes/plank_bridge.json") },
];

/// The directory of the sample files, where the mesh files they name (`scenes/assets/`) are
/// read from whatever the working directory.
pub const SCENES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes");

/// The sample called `name`.
pub fn find(name: &str) -> Option<&'static Sample> {
    SAMPLES.iter().find(|sample| sample.name == name)
}

/// "pyramid, vertical_stack, ..." for error messages.
pub fn names() -> String {
    SAMPLES.iter().map(|sample| sample.name).collect::<Vec<_>>().join(", ")
}

impl Sample {
    /// The parsed, validated sample.
    pub fn scene(&self) -> Result<Scene, String> {
        let source = format!("{} (built-in sample)", self.name);
        Scene::from_json_str_in(self.text, &source, std::path::Path::new(SCENES_DIR)).map_err(|e| e.to_string())
    }
}
