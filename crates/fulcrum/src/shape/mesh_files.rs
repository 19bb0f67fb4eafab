//! Triangle meshes read from files: Wavefront OBJ (through `tobj`) and glTF 2.0 `.gltf`/`.glb`
//! (through `gltf`), behind the `mesh-files` feature. A scene's relative file names resolve
//! against the scene file's directory: [`with_base_dir`] sets it for the reading of one scene.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::trimesh::{MeshFile, TriMesh};
use super::MAX_SHAPE_SIZE;
use crate::error::{check_above_zero_vec3, Error, Result};
use crate::math::Vec3;

thread_local! {
    /// The directory relative mesh files resolve against while a scene file is read.
    static BASE_DIR: RefCell<Option<PathBuf>> = const { RefCell::new(None) };
}

/// Runs `read` with relative mesh file names resolving against `dir` (on this thread), then
/// restores the previous directory, also when `read` panics.
pub(crate) fn with_base_dir<T>(dir: &Path, read: impl FnOnce() -> T) -> T {
    struct Restore(Option<PathBuf>);
    impl Drop for Restore {
        fn drop(&mut self) {
            BASE_DIR.with(|base| *base.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(BASE_DIR.with(|base| base.borrow_mut().replace(dir.to_path_buf())));
    read()
}

/// `file` resolved against the scene's directory (the current directory outside a scene
/// file's reading, or for an absolute name).
fn resolve(file: &str) -> PathBuf {
    BASE_DIR.with(|base| match &*base.borrow() {
        Some(dir) => dir.join(file),
        None => PathBuf::from(file),
    })
}

impl TriMesh {
    /// Reads the triangles of an OBJ (`.obj`) or glTF 2.0 (`.gltf`, `.glb`) file, multiplies
    /// the vertices by `scale` (per axis, positive) and builds the mesh as [`TriMesh::new`].
    /// OBJ: every object's faces (polygons split into fans). glTF: every triangle primitive
    /// of every mesh in the default scene (else the first), with its node's transform. A
    /// relative path is taken from the current directory (in a scene file: from the scene
    /// file's directory). Errors are at `file` and name the path and the reason; invalid
    /// triangles are named by their index in file order (`indices[k]`).
    pub fn from_file(file: &str, scale: Vec3, two_sided: bool) -> Result<TriMesh> {
        check_above_zero_vec3("scale", scale, MAX_SHAPE_SIZE)?;
        let path = resolve(file);
        let shown = path.display();
        let (vertices, indices) =
            read_triangles(&path).map_err(|reason| Error::new("file", format!("{shown}: {reason}")))?;
        if indices.is_empty() {
            return Err(Error::new("file", format!("{shown}: the file has no triangles")));
        }
        let vertices = vertices.into_iter().map(|v| v * scale).collect();
        let mesh = TriMesh::new(vertices, indices, two_sided)
            .map_err(|e| Error::new("file", format!("{shown}: {}: {}", e.field, e.reason)))?;
        Ok(mesh.with_source(MeshFile { file: file.to_string(), scale }))
    }
}

/// Vertices and triangles of the file, or why not.
#[cfg(feature = "mesh-files")]
fn read_triangles(path: &Path) -> std::result::Result<(Vec<Vec3>, Vec<[u32; 3]>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read the file: {e}"))?;
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("obj") => read_obj(&bytes),
        Some("gltf" | "glb") => read_gltf(&bytes, path.parent().unwrap_or(Path::new(""))),
        _ => Err("unknown mesh file type: expected .obj, .gltf or .glb".to_string()),
    }
}

#[cfg(not(feature = "mesh-files"))]
fn read_triangles(_: &Path) -> std::result::Result<(Vec<Vec3>, Vec<[u32; 3]>), String> {
    Err("mesh files need fulcrum's `mesh-files` feature".to_string())
}

/// Every object's triangles, polygons split into fans; materials are not read.
#[cfg(feature = "mesh-files")]
fn read_obj(bytes: &[u8]) -> std::result::Result<(Vec<Vec3>, Vec<[u32; 3]>), String> {
    let options =
        tobj::LoadOptions { triangulate: true, ignore_points: true, ignore_lines: true, ..Default::default() };
    let (models, _) = tobj::load_obj_buf(&mut std::io::BufReader::new(bytes), &options, |_| Ok(Default::default()))
        .map_err(|e| format!("not a valid OBJ file: {e}"))?;
    let (mut vertices, mut indices) = (Vec::new(), Vec::new());
    for model in &models {
        let offset = vertices.len() as u32;
        vertices.extend(model.mesh.positions.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])));
        indices.extend(model.mesh.indices.chunks_exact(3).map(|t| [t[0] + offset, t[1] + offset, t[2] + offset]));
    }
    Ok((vertices, indices))
}

/// The triangle primitives of the default scene's meshes, placed by their nodes' transforms
/// (a mirroring transform reverses the winding, as glTF specifies). Buffers are the `.glb`
/// binary chunk, base64 `data:` URIs, or files beside the glTF file.
#[cfg(feature = "mesh-files")]
fn read_gltf(bytes: &[u8], dir: &Path) -> std::result::Result<(Vec<Vec3>, Vec<[u32; 3]>), String> {
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| format!("not a valid glTF file: {e}"))?;
    let buffers = gltf
        .document
        .buffers()
        .map(|buffer| gltf_buffer(&buffer, gltf.blob.as_deref(), dir))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let scene =
        gltf.document.default_scene().or_else(|| gltf.document.scenes().next()).ok_or("the glTF file has no scene")?;
    let mut mesh = (Vec::new(), Vec::new());
    let mut pending: Vec<(gltf::Node, glam::Mat4)> = scene.nodes().map(|node| (node, glam::Mat4::IDENTITY)).collect();
    while let Some((node, parent)) = pending.pop() {
        let transform = parent * glam::Mat4::from_cols_array_2d(&node.transform().matrix());
        if let Some(node_mesh) = node.mesh() {
            for primitive in node_mesh.primitives() {
                add_primitive(&primitive, &buffers, &transform, &mut mesh)?;
            }
        }
        pending.extend(node.children().map(|child| (child, transform)));
    }
    Ok(mesh)
}

/// A buffer's bytes (at least its declared length).
#[cfg(feature = "mesh-files")]
fn gltf_buffer(buffer: &gltf::Buffer, blob: Option<&[u8]>, dir: &Path) -> std::result::Result<Vec<u8>, String> {
    use base64::Engine;
    let data = match buffer.source() {
        gltf::buffer::Source::Bin => blob.ok_or("the glTF file refers to a binary chunk it does not have")?.to_vec(),
        gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
            let (_, encoded) = uri.split_once(";base64,").ok_or("a glTF data URI is not base64")?;
            base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .map_err(|e| format!("a glTF data URI is not valid base64: {e}"))?
        }
        gltf::buffer::Source::Uri(uri) => {
            let path = dir.join(uri);
            std::fs::read(&path).map_err(|e| format!("cannot read the glTF buffer {}: {e}", path.display()))?
        }
    };
    if data.len() < buffer.length() {
        return Err(format!(
            "glTF buffer {} has {} bytes, it declares {}",
            buffer.index(),
            data.len(),
            buffer.length()
        ));
    }
    Ok(data)
}

/// Appends a primitive's triangles (lists, strips and fans; points and lines have none),
/// transformed to the scene's frame.
#[cfg(feature = "mesh-files")]
fn add_primitive(
    primitive: &gltf::Primitive,
    buffers: &[Vec<u8>],
    transform: &glam::Mat4,
    (vertices, indices): &mut (Vec<Vec3>, Vec<[u32; 3]>),
) -> std::result::Result<(), String> {
    use gltf::mesh::Mode;
    let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(Vec::as_slice));
    let Some(positions) = reader.read_positions() else { return Ok(()) };
    let offset = vertices.len() as u32;
    vertices.extend(positions.map(|p| transform.transform_point3(Vec3::from(p))));
    let count = vertices.len() as u32 - offset;
    let order: Vec<u32> = match reader.read_indices() {
        Some(read) => read.into_u32().collect(),
        None => (0..count).collect(),
    };
    let mirrored = transform.determinant() < 0.0;
    let triangles: Vec<[u32; 3]> = match primitive.mode() {
        Mode::Triangles => order.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        Mode::TriangleStrip => (2..order.len())
            .map(|k| {
                if k % 2 == 0 {
                    [order[k - 2], order[k - 1], order[k]]
                } else {
                    [order[k - 1], order[k - 2], order[k]]
                }
            })
            .collect(),
        Mode::TriangleFan => (2..order.len()).map(|k| [order[0], order[k - 1], order[k]]).collect(),
        _ => Vec::new(),
    };
    if let Some(&bad) = order.iter().find(|&&i| i >= count) {
        return Err(format!("a glTF primitive's vertex index {bad} is out of range: it has {count} vertices"));
    }
    for t in triangles {
        let t = if mirrored { [t[0], t[2], t[1]] } else { t };
        indices.push(t.map(|i| i + offset));
    }
    Ok(())
}
