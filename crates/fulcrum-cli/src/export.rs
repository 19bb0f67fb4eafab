//! `fulcrum export SAMPLE [--out FILE]`: writes a built-in sample's scene file, and next to it
//! the mesh files it names (`assets/level.obj`), so the written scene loads where it lands.

use std::path::{Path, PathBuf};

use serde_json::Value;

use clap::Args;

/// Arguments of `fulcrum export`.
#[derive(Args)]
pub struct ExportArgs {
    /// The name of a built-in sample (see `fulcrum list`).
    pub sample: String,
    /// Write to this file instead of stdout (mesh files the sample names are copied next to
    /// it, unless a file of that name is already there).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Writes the sample's text, exactly as shipped.
pub fn export(args: &ExportArgs) -> Result<(), String> {
    let sample = crate::samples::find(&args.sample).ok_or_else(|| {
        format!("{}: no built-in sample has that name (samples: {})", args.sample, crate::samples::names())
    })?;
    match &args.out {
        None => crate::print_out(sample.text),
        Some(path) => {
            std::fs::write(path, sample.text).map_err(|e| format!("{}: cannot write the file: {e}", path.display()))?;
            crate::print_out(&format!("wrote {} to {}\n", sample.name, path.display()))?;
            let dir = path.parent().unwrap_or(Path::new("."));
            for file in mesh_files(sample.text) {
                copy_mesh_file(&file, dir)?;
            }
            Ok(())
        }
    }
}

/// The relative `file` of every triangle-mesh shape in a scene's text.
fn mesh_files(text: &str) -> Vec<String> {
    let mut files = Vec::new();
    let mut pending: Vec<Value> = serde_json::from_str(text).into_iter().collect();
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                if let (Some(Value::String(kind)), Some(Value::String(file))) = (map.get("type"), map.get("file")) {
                    if kind == "trimesh" && Path::new(file).is_relative() && !files.contains(file) {
                        files.push(file.clone());
                    }
                }
                pending.extend(map.into_iter().map(|(_, v)| v));
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    files
}

/// Copies `file` (relative to the samples' directory) to the same relative place under `dir`,
/// unless something is there already.
fn copy_mesh_file(file: &str, dir: &Path) -> Result<(), String> {
    let target = dir.join(file);
    if target.exists() {
        return Ok(());
    }
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("{}: cannot create the directory: {e}", parent.display()))?;
    }
    let source = Path::new(crate::samples::SCENES_DIR).join(file);
    std::fs::copy(&source, &target).map_err(|e| format!("{}: cannot copy the mesh file: {e}", target.display()))?;
    crate::print_out(&format!("wrote {file} to {}\n", target.display()))
}
