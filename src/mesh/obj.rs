//! OBJ loading through tobj.

use super::{MeshError, TriMesh};
use crate::math::Point;
use std::path::Path;

/// Loads every model of an OBJ file as one [`TriMesh`].
///
/// Polygons are triangulated by tobj (`triangulate: true`); the models of the file are
/// concatenated in file order, and that order defines triangle indices everywhere (DESIGN.md).
/// Points and lines are ignored. Coordinates are read in double precision.
///
/// # Errors
/// [`MeshError::Io`] for a missing or unreadable file, [`MeshError::Parse`] for what tobj rejects
/// (with the first offending line where it can be found), and the validation errors of
/// [`TriMesh::new`] (non-finite coordinate, index out of range, no triangles).
///
/// # Examples
/// ```
/// let dir = std::env::temp_dir().join("obbtree_doc_load_obj");
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("quad.obj");
/// std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n").unwrap();
/// let mesh = obbtree::mesh::load_obj(&path).unwrap();
/// assert_eq!(mesh.triangle_count(), 2); // the quad, fan-triangulated
/// ```
pub fn load_obj(path: impl AsRef<Path>) -> Result<TriMesh, MeshError> {
    let path = path.as_ref();
    let text = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let origin = path.display().to_string();
    let mut reader = std::io::BufReader::new(text.as_slice());
    // Material libraries are irrelevant to collision; a missing .mtl must not fail the load.
    let (models, _materials) =
        tobj::load_obj_buf(&mut reader, &options, |_| Ok(Default::default())).map_err(|e| {
            MeshError::Parse {
                path: path.to_path_buf(),
                message: match locate_bad_line(&text) {
                    Some((line, why)) => format!("{e} (line {line}: {why})"),
                    None => e.to_string(),
                },
            }
        })?;
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for model in &models {
        let base = vertices.len() as u64;
        for p in model.mesh.positions.chunks_exact(3) {
            vertices.push(Point::new(p[0], p[1], p[2]));
        }
        for (k, t) in model.mesh.indices.chunks_exact(3).enumerate() {
            let idx = [base + t[0] as u64, base + t[1] as u64, base + t[2] as u64];
            if let Some(&bad) = idx.iter().find(|&&i| i >= u32::MAX as u64) {
                return Err(MeshError::IndexOutOfRange {
                    origin,
                    triangle: triangles.len() + k,
                    index: bad,
                    vertex_count: vertices.len(),
                });
            }
            triangles.push([idx[0] as u32, idx[1] as u32, idx[2] as u32]);
        }
    }
    TriMesh::new(vertices, triangles, &origin)
}

/// Finds the first line of an OBJ text that a strict reading of `v` and `f` statements rejects,
/// to give tobj's line-less errors a place. Returns the 1-based line number and the reason.
fn locate_bad_line(text: &[u8]) -> Option<(usize, String)> {
    let text = String::from_utf8_lossy(text);
    let mut vertex_count: i64 = 0;
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let coords: Vec<&str> = words.collect();
                if coords.len() < 3 {
                    return Some((n + 1, format!("vertex with {} coordinates", coords.len())));
                }
                if let Some(bad) = coords.iter().find(|c| c.parse::<f64>().is_err()) {
                    return Some((n + 1, format!("'{bad}' is not a number")));
                }
                vertex_count += 1;
            }
            Some("f") => {
                let refs: Vec<&str> = words.collect();
                if refs.len() < 3 {
                    return Some((n + 1, format!("face with {} vertices", refs.len())));
                }
                for r in refs {
                    let first = r.split('/').next().unwrap_or("");
                    match first.parse::<i64>() {
                        Err(_) => return Some((n + 1, format!("'{r}' is not a vertex reference"))),
                        Ok(0) => {
                            return Some((n + 1, "vertex index 0 (OBJ indices start at 1)".into()));
                        }
                        Ok(i) if i > vertex_count || -i > vertex_count => {
                            return Some((
                                n + 1,
                                format!("vertex {i} referenced, {vertex_count} defined so far"),
                            ));
                        }
                        Ok(_) => {}
                    }
                }
            }
            _ => {}
        }
    }
    None
}
