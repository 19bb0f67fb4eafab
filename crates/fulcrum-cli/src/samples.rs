//! How a SCENE argument is resolved to a scene. The built-in samples themselves live in
//! `fulcrum_view::samples` (the testbed's gallery shows them too).

use std::path::Path;

use fulcrum::Scene;
pub use fulcrum_view::samples::{find, names, SAMPLES, SCENES_DIR};

/// A SCENE argument: an existing path is loaded as a file; otherwise the name of a sample.
pub fn resolve(argument: &str) -> Result<Scene, String> {
    let path = Path::new(argument);
    if path.exists() {
        return Scene::load(path).map_err(|e| e.to_string());
    }
    match find(argument) {
        Some(sample) => sample.scene(),
        None => Err(format!("{argument}: no such file, and no built-in sample has that name (samples: {})", names())),
    }
}
