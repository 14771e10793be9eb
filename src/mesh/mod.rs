//! Triangle soups ([`TriMesh`]) and their loading from OBJ files.
//!
//! A [`TriMesh`] is what the OBBTree paper calls a polygon soup (Gottschalk et al. 1996, §7.1):
//! positions plus index triples, no connectivity required. Degenerate triangles (zero area, two or
//! one distinct vertex) are valid input and collide as segments or points.

mod obj;

pub(crate) use obj::{excerpt, short_number};
pub use obj::{load_obj, parse_obj};

use crate::math::{Point, Real};
use std::path::PathBuf;

/// Errors from building or loading a [`TriMesh`]. Each names what is wrong and where.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A vertex coordinate is NaN or infinite.
    #[error("{origin}: vertex {vertex} has a non-finite coordinate ({x}, {y}, {z})")]
    NonFinite {
        /// The file or mesh the vertex comes from.
        origin: String,
        /// Index of the vertex (0-based, in file order).
        vertex: usize,
        /// The coordinates as read.
        x: Real,
        /// The coordinates as read.
        y: Real,
        /// The coordinates as read.
        z: Real,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error(
        "{origin}: triangle {triangle} refers to vertex {index}, but there are only {vertex_count} vertices"
    )]
    IndexOutOfRange {
        /// The file or mesh.
        origin: String,
        /// Index of the triangle (0-based, in file order).
        triangle: usize,
        /// The offending vertex index (0-based).
        index: u64,
        /// How many vertices there are.
        vertex_count: usize,
    },
    /// The mesh has no triangles at all.
    #[error("{origin}: the mesh has no triangles")]
    Empty {
        /// The file or mesh.
        origin: String,
    },
    /// A vertex coordinate is larger in magnitude than [`MAX_COORDINATE`]: the single-precision
    /// bounding volumes could not bound the model (see [`crate::bv`]).
    #[error(
        "{origin}: vertex {vertex} has the coordinate {value:.3e}, beyond the limit of ±{limit:.0e}"
    )]
    OutOfRange {
        /// The file or mesh.
        origin: String,
        /// Index of the vertex (0-based, in file order).
        vertex: usize,
        /// The offending coordinate.
        value: Real,
        /// [`MAX_COORDINATE`].
        limit: Real,
    },
    /// More vertices or triangles than 32-bit indices can address.
    #[error("{origin}: {count} {what} exceed the 2^31 limit of this library")]
    TooLarge {
        /// The file or mesh.
        origin: String,
        /// "vertices" or "triangles".
        what: &'static str,
        /// How many.
        count: usize,
    },
    /// A line of an OBJ file is malformed: a vertex with the wrong number of values, a value that
    /// is not a number, a face reference that is not an integer, a homogeneous weight `w = 0`,
    /// invalid UTF-8 in a `v` or `f` statement, binary data.
    #[error("{path}, line {line}: {message}")]
    ObjSyntax {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong, with the offending word (cut short if long).
        message: String,
    },
    /// An OBJ face has fewer than three vertices. Such a face (a point or a segment) has no
    /// surface to collide with; it is rejected rather than dropped silently.
    #[error("{path}, line {line}: face with {vertices} vertices, a face needs at least 3")]
    ObjShortFace {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// How many vertex references the face has (0, 1 or 2).
        vertices: usize,
    },
    /// An OBJ face refers to a vertex that does not exist: index 0, a positive index beyond the
    /// file's vertices, or a negative (relative) one reaching before the first vertex.
    #[error(
        "{path}, line {line}: face refers to vertex {index}, but there are {vertex_count} vertices (OBJ indices start at 1; negative ones count back from the last vertex read)"
    )]
    ObjFaceIndex {
        /// The file.
        path: PathBuf,
        /// 1-based line number of the face.
        line: usize,
        /// The index as written (1-based, or negative).
        index: i64,
        /// The vertices it could refer to: all of the file's for a positive index, those read
        /// before the face for zero or a negative one.
        vertex_count: usize,
    },
    /// An OBJ vertex has a coordinate that is NaN or infinite (after division by its w).
    #[error(
        "{path}, line {line}: vertex {vertex} has a non-finite coordinate ({}, {}, {})",
        short_number(*.x),
        short_number(*.y),
        short_number(*.z)
    )]
    ObjNonFinite {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The vertex's number in the file (1-based, as faces refer to it).
        vertex: usize,
        /// The coordinates as read.
        x: Real,
        /// The coordinates as read.
        y: Real,
        /// The coordinates as read.
        z: Real,
    },
    /// An OBJ vertex has a coordinate larger in magnitude than [`MAX_COORDINATE`] (after
    /// division by its w), as [`MeshError::OutOfRange`] for a mesh made in memory.
    #[error(
        "{path}, line {line}: vertex {vertex} has the coordinate {}, beyond the limit of ±{}",
        short_number(*.value),
        short_number(*.limit)
    )]
    ObjOutOfRange {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The vertex's number in the file (1-based, as faces refer to it).
        vertex: usize,
        /// The offending coordinate.
        value: Real,
        /// [`MAX_COORDINATE`].
        limit: Real,
    },
}

/// The largest coordinate magnitude a mesh may have: `1e30`.
///
/// Hierarchies store their volumes in single precision relative to the model's centre
/// ([`crate::bvh::Bvh::origin`]), so a model may sit anywhere, but its extent must stay well
/// inside `f32`'s range (±3.4e38) for the stored volumes and the sums of the separating axis test
/// to stay finite. Coordinates beyond it are rejected when a mesh is made
/// ([`MeshError::OutOfRange`], [`MeshError::ObjOutOfRange`] from a file) rather than answered wrongly. Small coordinates have no lower
/// limit: the triangle test is exact for any finite input, and volumes of models far below `f32`'s
/// normal range (about 1e-38) are merely looser.
pub const MAX_COORDINATE: Real = 1e30;

/// A triangle soup: vertex positions and triangles as index triples into them.
///
/// Frame: the model's own frame, in the file's units. Triangle `i` is `triangles()[i]`; that index
/// is the one every [`crate::query::CollisionReport`] reports.
///
/// Invariants (checked by [`TriMesh::new`]): at least one triangle, every coordinate finite and at
/// most [`MAX_COORDINATE`] in magnitude, every index in range, fewer than 2³¹ vertices and triangles. Degenerate triangles are allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Point>,
    triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// Builds a mesh from positions and index triples, validating them.
    ///
    /// `origin` names the mesh in error messages (a file name, or e.g. `"generated torus"`).
    ///
    /// # Errors
    /// [`MeshError::NonFinite`], [`MeshError::OutOfRange`], [`MeshError::IndexOutOfRange`],
    /// [`MeshError::Empty`], [`MeshError::TooLarge`].
    ///
    /// # Examples
    /// ```
    /// use obbtree::{mesh::TriMesh, math::Point};
    /// let m = TriMesh::new(
    ///     vec![Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.)],
    ///     vec![[0, 1, 2]],
    ///     "one triangle",
    /// ).unwrap();
    /// assert_eq!(m.triangle_count(), 1);
    /// ```
    pub fn new(
        vertices: Vec<Point>,
        triangles: Vec<[u32; 3]>,
        origin: &str,
    ) -> Result<Self, MeshError> {
        const LIMIT: usize = 1 << 31;
        if vertices.len() >= LIMIT {
            return Err(MeshError::TooLarge {
                origin: origin.into(),
                what: "vertices",
                count: vertices.len(),
            });
        }
        if triangles.len() >= LIMIT {
            return Err(MeshError::TooLarge {
                origin: origin.into(),
                what: "triangles",
                count: triangles.len(),
            });
        }
        check_coordinates(&vertices, origin)?;
        if triangles.is_empty() {
            return Err(MeshError::Empty {
                origin: origin.into(),
            });
        }
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&bad) = tri.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(MeshError::IndexOutOfRange {
                    origin: origin.into(),
                    triangle: t,
                    index: bad as u64,
                    vertex_count: vertices.len(),
                });
            }
        }
        Ok(Self {
            vertices,
            triangles,
        })
    }

    /// The vertex positions, in the model's frame.
    pub fn vertices(&self) -> &[Point] {
        &self.vertices
    }

    /// The triangles as index triples into [`TriMesh::vertices`].
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Number of triangles (degenerate ones included).
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// The three corners of triangle `i`, in the model's frame.
    ///
    /// # Panics
    /// If `i >= triangle_count()` (an index from a report of this mesh is always in range).
    #[inline(always)]
    pub fn triangle(&self, i: usize) -> [Point; 3] {
        let [a, b, c] = self.triangles[i];
        [
            self.vertices[a as usize],
            self.vertices[b as usize],
            self.vertices[c as usize],
        ]
    }

    /// Moves the vertices (e.g. a deforming model), keeping the triangles. Refit the hierarchy
    /// afterwards with [`crate::bvh::Bvh::refit`].
    ///
    /// # Errors
    /// [`MeshError::NonFinite`] if a new coordinate is not finite, [`MeshError::OutOfRange`] if
    /// one exceeds [`MAX_COORDINATE`], [`MeshError::IndexOutOfRange`]
    /// if the new vertex list is too short for the triangles; the mesh is then unchanged.
    pub fn set_vertices(&mut self, vertices: Vec<Point>) -> Result<(), MeshError> {
        check_coordinates(&vertices, "moved vertices")?;
        for (t, tri) in self.triangles.iter().enumerate() {
            if let Some(&bad) = tri.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(MeshError::IndexOutOfRange {
                    origin: "moved vertices".into(),
                    triangle: t,
                    index: bad as u64,
                    vertex_count: vertices.len(),
                });
            }
        }
        self.vertices = vertices;
        Ok(())
    }

    /// The axis-aligned bounding box of the vertices, model frame: `(min, max)`. A mesh always
    /// has a vertex (it has a triangle), so the box is never empty.
    pub fn bounds(&self) -> (Point, Point) {
        self.vertices
            .iter()
            .fold((self.vertices[0], self.vertices[0]), |(lo, hi), v| {
                (lo.inf(v), hi.sup(v))
            })
    }

    /// Bytes held by the vertex and index arrays.
    pub fn memory_bytes(&self) -> usize {
        self.vertices.len() * std::mem::size_of::<Point>() + self.triangles.len() * 12
    }
}

/// The first vertex with a non-finite coordinate or one beyond [`MAX_COORDINATE`].
fn check_coordinates(vertices: &[Point], origin: &str) -> Result<(), MeshError> {
    for (i, v) in vertices.iter().enumerate() {
        if !v.iter().all(|c| c.is_finite()) {
            return Err(MeshError::NonFinite {
                origin: origin.into(),
                vertex: i,
                x: v.x,
                y: v.y,
                z: v.z,
            });
        }
        if let Some(&value) = v.iter().find(|c| c.abs() > MAX_COORDINATE) {
            return Err(MeshError::OutOfRange {
                origin: origin.into(),
                vertex: i,
                value,
                limit: MAX_COORDINATE,
            });
        }
    }
    Ok(())
}
