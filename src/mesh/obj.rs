//! OBJ loading: vertex positions and faces, every error with its line.

use super::{MAX_COORDINATE, MeshError, TriMesh};
use crate::math::Point;
use std::path::Path;

/// Loads every model of an OBJ file as one [`TriMesh`].
///
/// Only what collision needs is read:
/// - `v x y z`, `v x y z w` or `v x y z r g b`. A homogeneous weight `w` divides the
///   coordinates (`w = 0`, a point at infinity, is an error, as is a non-finite `w`); vertex
///   colours are skipped, not even parsed. Any other number of values is an error.
/// - `f`, of three or more vertex references. Only the position index (the part before the first
///   `/`) is read; texture and normal references are skipped, so an out-of-range or malformed
///   `vt`/`vn` reference does not fail the load. Negative indices count back from the last vertex
///   read, as in the OBJ format; a positive index may refer to any vertex of the file. A face of
///   one or two vertices is an error ([`MeshError::ObjShortFace`]): it has no area to collide
///   with, and dropping it silently would hide a broken file.
/// - `o` and `g`, which start a new model.
///
/// Everything else is skipped whatever bytes it holds: comments (from `#` to the end of the line,
/// also after a statement, invalid UTF-8 included), `vt`, `vn`, `vp`, materials (`mtllib`,
/// `usemtl`; no `.mtl` file is opened), smoothing groups, line (`l`) and point (`p`) elements,
/// unknown statements. A line whose keyword is not printable text is binary data, an error. A
/// leading UTF-8 byte-order mark is skipped. Lines end at `\n` (a `\r` before it is whitespace).
///
/// Triangle indices are those tobj gives with `triangulate: true` (the loader this crate used
/// before, and the one its reference contact sets were computed with): faces in file order,
/// polygons fan-triangulated (`a b c`, `a c d`, …); each model's vertices are the ones its
/// faces use, in order of first use, and the models are concatenated in file order. That order
/// defines triangle indices everywhere (the README's command-line section). Unlike tobj, a polyline `l` of three or more
/// points does not become a triangle. Coordinates are read in double precision.
///
/// # Errors
/// [`MeshError::Io`] for a missing or unreadable file. Each malformed line gives an error naming
/// the file and the 1-based line (the first one found; malformed statements are found in file
/// order, then the faces referring to vertices the file does not define):
/// [`MeshError::ObjSyntax`] (wrong number of vertex values, a non-number, a reference that is not
/// an integer, `w = 0`, invalid UTF-8 in a `v` or `f` statement, binary data),
/// [`MeshError::ObjShortFace`], [`MeshError::ObjFaceIndex`] (index 0, or beyond the vertices),
/// [`MeshError::ObjNonFinite`] (a coordinate that is NaN or infinite, also in a vertex no face
/// uses), [`MeshError::ObjOutOfRange`] (a coordinate beyond [`super::MAX_COORDINATE`], also in a
/// vertex no face uses). Then the validation errors of [`TriMesh::new`]: [`MeshError::Empty`] (no
/// faces), [`MeshError::TooLarge`].
///
/// # Examples
/// ```
/// let dir = std::env::temp_dir().join("obbtree_doc_load_obj");
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("quad.obj");
/// std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n").unwrap();
/// let mesh = obbtree::mesh::load_obj(&path).unwrap();
/// assert_eq!(mesh.triangle_count(), 2); // the quad, fan-triangulated
///
/// std::fs::write(&path, "v 0 0 0\nv 1 0 0\nf 1 2\n").unwrap();
/// let e = obbtree::mesh::load_obj(&path).unwrap_err();
/// assert!(matches!(e, obbtree::mesh::MeshError::ObjShortFace { line: 3, vertices: 2, .. }));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn load_obj(path: impl AsRef<Path>) -> Result<TriMesh, MeshError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_obj(&bytes, path)
}

/// Parses OBJ bytes already in memory (a file fetched over HTTP or picked in a browser);
/// `path` only names the source in errors and in the mesh's origin.
///
/// # Errors
/// As [`load_obj`], without the I/O error.
///
/// # Examples
/// ```
/// let mesh = obbtree::mesh::parse_obj(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "inline".as_ref()).unwrap();
/// assert_eq!(mesh.triangle_count(), 1);
/// ```
pub fn parse_obj(bytes: &[u8], path: &Path) -> Result<TriMesh, MeshError> {
    let parsed = parse(bytes, path)?;
    let (vertices, triangles) = assemble(&parsed, path)?;
    TriMesh::new(vertices, triangles, &path.display().to_string())
}

/// The statements collision needs, as read.
#[derive(Default)]
struct Parsed {
    /// Every `v` of the file, divided by its w.
    positions: Vec<Point>,
    /// The position references of all faces, 0-based. Negative references are resolved and in
    /// range; positive ones are checked once the whole file is read.
    refs: Vec<usize>,
    /// Per face: its 1-based line and the end of its references in `refs`.
    faces: Vec<(usize, usize)>,
    /// Per model (`o`/`g` section): the end of its faces in `faces`.
    models: Vec<usize>,
}

impl Parsed {
    /// Closes the current model, if it has faces.
    fn end_model(&mut self) {
        if self.models.last().copied().unwrap_or(0) < self.faces.len() {
            self.models.push(self.faces.len());
        }
    }
}

/// Reads the `v`, `f`, `o` and `g` statements of an OBJ text (see [`load_obj`]).
fn parse(bytes: &[u8], path: &Path) -> Result<Parsed, MeshError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut p = Parsed::default();
    for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = n + 1;
        let syntax = |message: String| MeshError::ObjSyntax {
            path: path.to_path_buf(),
            line,
            message,
        };
        // A comment runs from '#' to the end of the line, whatever its bytes.
        let stmt = match raw.iter().position(|&b| b == b'#') {
            Some(i) => &raw[..i],
            None => raw,
        };
        let text = match std::str::from_utf8(stmt) {
            Ok(text) => text,
            Err(e) => {
                // Statements other than `v` and `f` are skipped whatever they hold, as long as
                // their keyword is text.
                let keyword = stmt
                    .split(|b| b.is_ascii_whitespace())
                    .find(|w| !w.is_empty())
                    .unwrap_or_default();
                match std::str::from_utf8(keyword) {
                    Ok("v" | "f") => {
                        return Err(syntax(format!(
                            "invalid UTF-8 (byte 0x{:02x} at column {})",
                            stmt[e.valid_up_to()],
                            e.valid_up_to() + 1
                        )));
                    }
                    Ok(k) if is_printable(k) => {
                        if k == "o" || k == "g" {
                            p.end_model();
                        }
                        continue;
                    }
                    _ => return Err(syntax(binary_data(stmt))),
                }
            }
        };
        let mut words = text.split_whitespace();
        match words.next() {
            Some("v") => parse_vertex(words, &mut p, line, path)?,
            Some("f") => parse_face(words, &mut p, line, path)?,
            Some("o" | "g") => p.end_model(),
            Some(k) if !is_printable(k) => return Err(syntax(binary_data(stmt))),
            // Comments, vt, vn, materials, smoothing groups, l, p, unknown statements.
            _ => {}
        }
    }
    p.end_model();
    Ok(p)
}

/// Whether a keyword is text: no control characters.
fn is_printable(keyword: &str) -> bool {
    !keyword.chars().any(char::is_control)
}

/// Describes the first byte that makes a line binary data rather than text.
fn binary_data(stmt: &[u8]) -> String {
    let at = match std::str::from_utf8(stmt) {
        Ok(text) => text
            .char_indices()
            .find(|(_, c)| c.is_control() && !c.is_whitespace())
            .map_or(0, |(i, _)| i),
        Err(e) => e.valid_up_to(),
    };
    format!(
        "binary data, not OBJ text (byte 0x{:02x} at column {})",
        stmt.get(at).copied().unwrap_or(0),
        at + 1
    )
}

/// Reads the values of a `v` statement (after the keyword) into `p.positions`.
fn parse_vertex<'a>(
    words: impl Iterator<Item = &'a str>,
    p: &mut Parsed,
    line: usize,
    path: &Path,
) -> Result<(), MeshError> {
    let syntax = |message: String| MeshError::ObjSyntax {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut values = [""; 4];
    let mut count = 0;
    for w in words {
        if count < values.len() {
            values[count] = w;
        }
        count += 1;
    }
    if !matches!(count, 3 | 4 | 6) {
        return Err(syntax(format!(
            "a vertex has 3 values (x y z), 4 (x y z w) or 6 (x y z r g b), this one {count}"
        )));
    }
    let number = |k: usize, name: &str| {
        values[k].parse::<f64>().map_err(|_| {
            syntax(format!(
                "vertex {name} '{}' is not a number",
                excerpt(values[k])
            ))
        })
    };
    let mut xyz = [number(0, "x")?, number(1, "y")?, number(2, "z")?];
    if count == 4 {
        let w = number(3, "w")?;
        if w == 0.0 {
            return Err(syntax(
                "homogeneous weight w = 0 (a point at infinity, not a position)".into(),
            ));
        }
        if !w.is_finite() {
            return Err(syntax(format!("homogeneous weight w = {w} is not finite")));
        }
        for c in &mut xyz {
            *c /= w;
        }
    }
    if !xyz.iter().all(|c| c.is_finite()) {
        return Err(MeshError::ObjNonFinite {
            path: path.to_path_buf(),
            line,
            vertex: p.positions.len() + 1,
            x: xyz[0],
            y: xyz[1],
            z: xyz[2],
        });
    }
    if let Some(&value) = xyz.iter().find(|c| c.abs() > MAX_COORDINATE) {
        return Err(MeshError::ObjOutOfRange {
            path: path.to_path_buf(),
            line,
            vertex: p.positions.len() + 1,
            value,
            limit: MAX_COORDINATE,
        });
    }
    p.positions.push(Point::new(xyz[0], xyz[1], xyz[2]));
    Ok(())
}

/// Reads the position references of an `f` statement (after the keyword) into `p`.
fn parse_face<'a>(
    words: impl Iterator<Item = &'a str>,
    p: &mut Parsed,
    line: usize,
    path: &Path,
) -> Result<(), MeshError> {
    let start = p.refs.len();
    let defined = p.positions.len();
    for w in words {
        // `v`, `v/vt`, `v//vn` or `v/vt/vn`: only `v` is read.
        let position = w.split('/').next().unwrap_or_default();
        let index: i64 = position.parse().map_err(|_| MeshError::ObjSyntax {
            path: path.to_path_buf(),
            line,
            message: format!(
                "'{}' is not a vertex reference (an integer, then optionally /texture/normal)",
                excerpt(w)
            ),
        })?;
        let back = index.unsigned_abs();
        let resolved = if index > 0 {
            back - 1
        } else if index < 0 && back <= defined as u64 {
            defined as u64 - back
        } else {
            return Err(MeshError::ObjFaceIndex {
                path: path.to_path_buf(),
                line,
                index,
                vertex_count: defined,
            });
        };
        // Beyond usize on a 32-bit target: out of range anyway.
        p.refs.push(usize::try_from(resolved).unwrap_or(usize::MAX));
    }
    let vertices = p.refs.len() - start;
    if vertices < 3 {
        return Err(MeshError::ObjShortFace {
            path: path.to_path_buf(),
            line,
            vertices,
        });
    }
    p.faces.push((line, p.refs.len()));
    Ok(())
}

/// Turns the faces into triangles and each model's used positions into vertices, in tobj's
/// order (see [`load_obj`]).
///
/// # Errors
/// [`MeshError::ObjFaceIndex`] for a reference beyond the file's vertices,
/// [`MeshError::TooLarge`] past 2³¹ vertices.
fn assemble(p: &Parsed, path: &Path) -> Result<(Vec<Point>, Vec<[u32; 3]>), MeshError> {
    const LIMIT: usize = 1 << 31;
    // The mesh vertex of each position in the current model, or u32::MAX.
    let mut local = vec![u32::MAX; p.positions.len()];
    let mut vertices: Vec<Point> = Vec::new();
    let mut triangles = Vec::new();
    let mut used = Vec::new();
    let (mut face, mut first_ref) = (0, 0);
    for &model_end in &p.models {
        for &i in &used {
            local[i] = u32::MAX;
        }
        used.clear();
        for &(line, end) in &p.faces[face..model_end] {
            let refs = &p.refs[first_ref..end];
            first_ref = end;
            if let Some(&bad) = refs.iter().find(|&&r| r >= p.positions.len()) {
                return Err(MeshError::ObjFaceIndex {
                    path: path.to_path_buf(),
                    line,
                    index: i64::try_from(bad).map_or(i64::MAX, |i| i.saturating_add(1)),
                    vertex_count: p.positions.len(),
                });
            }
            if vertices.len() + refs.len() >= LIMIT {
                return Err(MeshError::TooLarge {
                    origin: path.display().to_string(),
                    what: "vertices",
                    count: vertices.len() + refs.len(),
                });
            }
            let mut id = |r: usize| {
                if local[r] == u32::MAX {
                    local[r] = vertices.len() as u32;
                    vertices.push(p.positions[r]);
                    used.push(r);
                }
                local[r]
            };
            for k in 2..refs.len() {
                triangles.push([id(refs[0]), id(refs[k - 1]), id(refs[k])]);
            }
        }
        face = model_end;
    }
    Ok((vertices, triangles))
}

/// A number for an error message: as Rust prints it where that is short, in scientific notation
/// where the plain form would run to many digits (|x| ≥ 1e7 or < 1e-4), so 1e200 prints as
/// `1e200`. Both forms are the shortest that read back to `x`.
pub(crate) fn short_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e7).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A word of input for an error message: escaped like a Rust string, cut after 24 characters.
pub(crate) fn excerpt(word: &str) -> String {
    const MAX: usize = 24;
    let mut out: String = word
        .chars()
        .take(MAX)
        .flat_map(char::escape_debug)
        .collect();
    if word.chars().nth(MAX).is_some() {
        out.push('…');
    }
    out
}
