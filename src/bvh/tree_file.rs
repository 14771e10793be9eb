//! Built hierarchies saved to bytes or files and loaded back, checked, without building again.
//!
//! A tree file holds a hierarchy without its mesh: the loader is given the mesh and refuses a
//! file built for another one (a hash of its vertices and triangles is in the file). Layout,
//! little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | the signature [`MAGIC`] |
//! | 8..12 | the format version, [`FORMAT_VERSION`] |
//! | 12..20 | the body's length in bytes |
//! | 20..24 | the first 4 bytes of the blake3 hash of bytes 0..20 (the header's check) |
//! | 24..56 | the blake3 hash of the body |
//! | 56.. | the body, postcard-encoded: volume type, split rule, fit, the mesh's hash and sizes, then the volumes, the nodes' links and the leaves' triangles |
//!
//! Loading checks, in order: the signature, the version, the length (a shorter file is
//! truncated), both hashes (a changed byte is corruption), the volume type, the mesh, then the
//! tree's shape (`2n − 1` nodes, each node but the root the child of exactly one node before
//! it, every triangle in one leaf, every volume well formed): a loaded tree cannot make a query
//! panic or loop. Whether the volumes bound their triangles is not checked again (that is
//! [`Bvh::validate`], O(n log n)): the hashes guard against damage, not against a forger.

use super::{BuildOptions, Bvh, BvhError, LEAF, Node, SplitRule};
use crate::bv::{BoundingVolume, BvKind, ObbFit};
use crate::mesh::TriMesh;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The first 8 bytes of every tree file.
pub const MAGIC: [u8; 8] = *b"obbtree\0";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes before the body: signature, version, body length, header check, body hash.
const PRELUDE: usize = 56;

/// A volume type whose trees can be saved: every [`BoundingVolume`] of this crate.
pub trait Persistent: BoundingVolume + Serialize + DeserializeOwned {}
impl<B: BoundingVolume + Serialize + DeserializeOwned> Persistent for B {}

/// The blake3 hash of a mesh's vertex and triangle counts, vertices (f64, little-endian) and
/// triangles (u32, little-endian): what a tree file was built for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MeshHash(pub [u8; 32]);

impl MeshHash {
    /// The hash in hexadecimal (64 digits).
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Display for MeshHash {
    /// The first 16 hexadecimal digits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex()[..16])
    }
}

impl std::fmt::Debug for MeshHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MeshHash({})", self.to_hex())
    }
}

/// [`MeshHash`] of `mesh`.
pub fn mesh_hash(mesh: &TriMesh) -> MeshHash {
    const CHUNK: usize = 1 << 16;
    let mut hasher = blake3::Hasher::new();
    hasher.update(&(mesh.vertices().len() as u64).to_le_bytes());
    hasher.update(&(mesh.triangle_count() as u64).to_le_bytes());
    let mut buf = Vec::with_capacity(CHUNK + 32);
    for v in mesh.vertices() {
        for k in 0..3 {
            buf.extend_from_slice(&v[k].to_le_bytes());
        }
        if buf.len() >= CHUNK {
            hasher.update(&buf);
            buf.clear();
        }
    }
    for t in mesh.triangles() {
        for i in t {
            buf.extend_from_slice(&i.to_le_bytes());
        }
        if buf.len() >= CHUNK {
            hasher.update(&buf);
            buf.clear();
        }
    }
    hasher.update(&buf);
    MeshHash(*hasher.finalize().as_bytes())
}

/// Why a tree file was not loaded or saved.
#[derive(Debug, thiserror::Error)]
pub enum TreeFileError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// One of the errors below, in a named file.
    #[error("{}: {error}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        error: Box<TreeFileError>,
    },
    /// The bytes do not start with the signature [`MAGIC`].
    #[error("not an obbtree tree file (it does not start with the tree file signature)")]
    NotATreeFile,
    /// The file is of another format version.
    #[error(
        "tree file format version {found}; this build reads version {supported} (build the tree again)"
    )]
    Version {
        /// The file's version.
        found: u32,
        /// [`FORMAT_VERSION`].
        supported: u32,
    },
    /// The file ends early.
    #[error("truncated tree file: {found} bytes, {expected} expected")]
    Truncated {
        /// Bytes the file should have (at least this many when its header is cut).
        expected: u64,
        /// Bytes it has.
        found: u64,
    },
    /// A hash does not match: the bytes changed after they were written.
    #[error("corrupted tree file: {what}")]
    Corrupted {
        /// Which part fails its check.
        what: &'static str,
    },
    /// The tree is of another volume type.
    #[error("the file holds an {found} tree, an {expected} tree was asked for")]
    WrongKind {
        /// The file's volume type.
        found: BvKind,
        /// The one asked for.
        expected: BvKind,
    },
    /// The tree was built for another mesh.
    #[error(
        "the tree was built for another mesh ({found_triangles} triangles, hash {found}) than this one ({expected_triangles} triangles, hash {expected})"
    )]
    WrongMesh {
        /// The file's mesh hash.
        found: MeshHash,
        /// Its triangle count.
        found_triangles: u64,
        /// The given mesh's hash.
        expected: MeshHash,
        /// Its triangle count.
        expected_triangles: u64,
    },
    /// The hashes match but the tree breaks an invariant (not written by this crate).
    #[error("malformed tree: {0}")]
    Malformed(#[from] BvhError),
}

impl TreeFileError {
    /// The error itself, without the file it was found in ([`TreeFileError::InFile`]).
    pub fn cause(&self) -> &TreeFileError {
        match self {
            TreeFileError::InFile { error, .. } => error.cause(),
            e => e,
        }
    }

    fn in_file(self, path: &Path) -> TreeFileError {
        match self {
            e @ (TreeFileError::Io { .. } | TreeFileError::InFile { .. }) => e,
            e => TreeFileError::InFile {
                path: path.to_owned(),
                error: Box::new(e),
            },
        }
    }
}

/// What a tree file says about itself ([`info`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeFileInfo {
    /// The volume type.
    pub kind: BvKind,
    /// The split rule it was built with.
    pub split: SplitRule,
    /// The OBB fit it was built with.
    pub fit: ObbFit,
    /// The hash of the mesh it was built for.
    pub mesh: MeshHash,
    /// That mesh's vertex count.
    pub vertices: u64,
    /// That mesh's triangle count.
    pub triangles: u64,
}

impl TreeFileInfo {
    /// The build options (with [`BuildOptions::parallel`] at its default).
    pub fn build_options(&self) -> BuildOptions {
        BuildOptions {
            split: self.split,
            fit: self.fit,
            ..BuildOptions::default()
        }
    }
}

/// The body after [`TreeFileInfo`]: the hierarchy itself.
#[derive(Serialize, Deserialize)]
struct Payload<B> {
    origin: [f64; 3],
    /// [`Bvh::reach`], [`Bvh::radius`], [`Bvh::center_reach`].
    measures: [f64; 3],
    volumes: Vec<B>,
    links: Vec<u32>,
    leaf_ids: Vec<u32>,
}

fn header_check(prefix: &[u8]) -> [u8; 4] {
    let h = blake3::hash(prefix);
    [
        h.as_bytes()[0],
        h.as_bytes()[1],
        h.as_bytes()[2],
        h.as_bytes()[3],
    ]
}

/// The envelope's checks: the body, once the signature, version, length and hashes hold.
fn body(bytes: &[u8]) -> Result<&[u8], TreeFileError> {
    let found = bytes.len() as u64;
    let n = bytes.len().min(MAGIC.len());
    if bytes[..n] != MAGIC[..n] {
        return Err(TreeFileError::NotATreeFile);
    }
    let truncated = |expected: usize| TreeFileError::Truncated {
        expected: expected as u64,
        found,
    };
    if bytes.len() < 12 {
        return Err(truncated(PRELUDE));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(TreeFileError::Version {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if bytes.len() < PRELUDE {
        return Err(truncated(PRELUDE));
    }
    if bytes[20..24] != header_check(&bytes[..20]) {
        return Err(TreeFileError::Corrupted {
            what: "the header fails its check",
        });
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let expected = (PRELUDE as u64).saturating_add(len);
    if found < expected {
        return Err(TreeFileError::Truncated { expected, found });
    }
    if found > expected {
        return Err(TreeFileError::Corrupted {
            what: "bytes after the end of the tree",
        });
    }
    let body = &bytes[PRELUDE..];
    if blake3::hash(body).as_bytes() != &bytes[24..56] {
        return Err(TreeFileError::Corrupted {
            what: "the tree's bytes fail their hash",
        });
    }
    Ok(body)
}

const UNDECODABLE: TreeFileError = TreeFileError::Corrupted {
    what: "the body does not decode (hashes match: not written by obbtree)",
};

/// What the tree file `bytes` holds, after the checks of the signature, version, length and
/// hashes (not of the tree itself, which needs its volume type and mesh).
///
/// # Errors
/// [`TreeFileError::NotATreeFile`], [`TreeFileError::Version`], [`TreeFileError::Truncated`]
/// or [`TreeFileError::Corrupted`].
pub fn info(bytes: &[u8]) -> Result<TreeFileInfo, TreeFileError> {
    let (info, _) =
        postcard::take_from_bytes::<TreeFileInfo>(body(bytes)?).map_err(|_| UNDECODABLE)?;
    Ok(info)
}

/// [`info`] of a file.
///
/// # Errors
/// [`TreeFileError::Io`], or [`info`]'s errors in [`TreeFileError::InFile`].
pub fn read_info(path: &Path) -> Result<TreeFileInfo, TreeFileError> {
    let bytes = read(path)?;
    info(&bytes).map_err(|e| e.in_file(path))
}

fn read(path: &Path) -> Result<Vec<u8>, TreeFileError> {
    std::fs::read(path).map_err(|source| TreeFileError::Io {
        path: path.to_owned(),
        source,
    })
}

impl<B: Persistent> Bvh<B> {
    /// The tree as a tree file's bytes (the module's layout), for [`Bvh::from_bytes`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mesh = &self.mesh;
        let info = TreeFileInfo {
            kind: B::KIND,
            split: self.options.split,
            fit: self.options.fit,
            mesh: mesh_hash(mesh),
            vertices: mesh.vertices().len() as u64,
            triangles: mesh.triangle_count() as u64,
        };
        let payload = Payload {
            origin: self.origin.into(),
            measures: [self.reach, self.radius, self.center_reach],
            volumes: self.nodes.iter().map(|n| n.bv).collect(),
            links: self.nodes.iter().map(|n| n.link).collect(),
            leaf_ids: self.leaf_ids.clone(),
        };
        let out = vec![0u8; PRELUDE];
        let out = postcard::to_extend(&info, out).expect("encoding into a Vec does not fail");
        let mut out =
            postcard::to_extend(&payload, out).expect("encoding into a Vec does not fail");
        let len = (out.len() - PRELUDE) as u64;
        out[..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        out[12..20].copy_from_slice(&len.to_le_bytes());
        let check = header_check(&out[..20]);
        out[20..24].copy_from_slice(&check);
        let hash = blake3::hash(&out[PRELUDE..]);
        out[24..56].copy_from_slice(hash.as_bytes());
        out
    }

    /// The tree saved in `bytes` by [`Bvh::to_bytes`], over `mesh` (the mesh it was built for),
    /// checked as the module says. Costs a hash of the mesh and of the bytes and one pass over
    /// the nodes, no build.
    ///
    /// # Errors
    /// A [`TreeFileError`] saying which check failed: never a wrong tree from a damaged file.
    pub fn from_bytes(mesh: impl Into<Arc<TriMesh>>, bytes: &[u8]) -> Result<Self, TreeFileError> {
        let body = body(bytes)?;
        let (info, rest) =
            postcard::take_from_bytes::<TreeFileInfo>(body).map_err(|_| UNDECODABLE)?;
        if info.kind != B::KIND {
            return Err(TreeFileError::WrongKind {
                found: info.kind,
                expected: B::KIND,
            });
        }
        let mesh = mesh.into();
        let expected = mesh_hash(&mesh);
        if info.mesh != expected
            || info.vertices != mesh.vertices().len() as u64
            || info.triangles != mesh.triangle_count() as u64
        {
            return Err(TreeFileError::WrongMesh {
                found: info.mesh,
                found_triangles: info.triangles,
                expected,
                expected_triangles: mesh.triangle_count() as u64,
            });
        }
        let (payload, rest) =
            postcard::take_from_bytes::<Payload<B>>(rest).map_err(|_| UNDECODABLE)?;
        if !rest.is_empty() {
            return Err(UNDECODABLE);
        }
        let Payload {
            origin,
            measures: [reach, radius, center_reach],
            volumes,
            links,
            leaf_ids,
        } = payload;
        if volumes.len() != links.len()
            || ![reach, radius, center_reach].iter().all(|x| x.is_finite())
        {
            return Err(UNDECODABLE);
        }
        let nodes: Vec<Node<B>> = volumes
            .into_iter()
            .zip(links)
            .map(|(bv, link)| Node {
                bv,
                link,
                align: [],
            })
            .collect();
        let depth = check_shape(&mesh, &nodes, &leaf_ids)?;
        let mut tree = Bvh {
            mesh,
            options: info.build_options(),
            nodes,
            depth,
            origin: origin.into(),
            reach,
            radius,
            center_reach,
            leaf_corners: Vec::new(),
            leaf_ids,
        };
        tree.copy_leaf_corners();
        Ok(tree)
    }

    /// Saves [`Bvh::to_bytes`] to `path` (written beside it, then renamed over it: a reader
    /// never sees half a file).
    ///
    /// # Errors
    /// [`TreeFileError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), TreeFileError> {
        let io = |source| TreeFileError::Io {
            path: path.to_owned(),
            source,
        };
        let mut name = path.file_name().unwrap_or_default().to_owned();
        name.push(format!(".{}.partial", std::process::id()));
        let partial = path.with_file_name(name);
        std::fs::write(&partial, self.to_bytes()).map_err(io)?;
        std::fs::rename(&partial, path).map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            io(e)
        })
    }

    /// Loads the tree file at `path` over `mesh` ([`Bvh::from_bytes`]).
    ///
    /// # Errors
    /// [`TreeFileError::Io`], or [`Bvh::from_bytes`]'s errors in [`TreeFileError::InFile`].
    pub fn load(mesh: impl Into<Arc<TriMesh>>, path: &Path) -> Result<Self, TreeFileError> {
        let bytes = read(path)?;
        Self::from_bytes(mesh, &bytes).map_err(|e| e.in_file(path))
    }
}

/// The shape checks of a loaded tree (the module's list); returns its depth.
fn check_shape<B: BoundingVolume>(
    mesh: &TriMesh,
    nodes: &[Node<B>],
    leaf_ids: &[u32],
) -> Result<usize, BvhError> {
    let n = mesh.triangle_count();
    if nodes.len() != 2 * n - 1 {
        return Err(BvhError::NodeCount {
            nodes: nodes.len(),
            triangles: n,
        });
    }
    if leaf_ids.len() != n {
        return Err(BvhError::LeafCount {
            slots: leaf_ids.len(),
            triangles: n,
        });
    }
    let mut parents = vec![0u8; nodes.len()];
    let mut depths = vec![0u32; nodes.len()];
    let mut seen = vec![false; n];
    let mut slots = 0usize;
    for (i, node) in nodes.iter().enumerate() {
        if i > 0 && parents[i] != 1 {
            return Err(BvhError::BadShape {
                node: i,
                slot: usize::MAX,
            });
        }
        if !node.bv.well_formed() {
            return Err(BvhError::Malformed { node: i });
        }
        if node.link & LEAF != 0 {
            let slot = (node.link & !LEAF) as usize;
            if slot != slots {
                return Err(BvhError::BadShape { node: i, slot });
            }
            slots += 1;
            let t = leaf_ids[slot] as usize;
            if t >= n || std::mem::replace(&mut seen[t], true) {
                return Err(BvhError::BadLeaves {
                    triangle: t,
                    count: if t >= n { 0 } else { 2 },
                });
            }
        } else {
            let c = node.link as usize;
            for child in [c, c + 1] {
                if child <= i || child >= nodes.len() {
                    return Err(BvhError::BadChild { node: i, child });
                }
                parents[child] = parents[child].saturating_add(1);
                depths[child] = depths[i] + 1;
            }
        }
    }
    Ok(depths.into_iter().max().unwrap_or(0) as usize)
}
