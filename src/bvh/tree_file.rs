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
//! | 56..60 | the body: the length `h` of its header |
//! | 60..60+h | the header, postcard-encoded: volume type, split rule, fit, the mesh's hash and sizes; the volume frame's origin, the tree's measures, the node count and the bytes of a volume |
//! | then | the volumes (their `f32`s), the nodes' links (`u32`), the leaves' triangles (`u32`) |
//!
//! Saving streams the file in 64 KiB pieces; loading maps it into memory (reads it where it
//! cannot be mapped) and hashes it beside the arrays' decoding. Loading checks, in order: the
//! signature, the version, the length (a shorter file is truncated), both hashes (a changed
//! byte is corruption), the volume type, the mesh, then the
//! tree's shape (`2n − 1` nodes, each node but the root the child of exactly one node before
//! it, every triangle in one leaf, every volume well formed): a loaded tree cannot make a query
//! panic or loop. Whether the volumes bound their triangles is not checked again (that is
//! [`Bvh::validate`], O(n log n)): the hashes guard against damage, not against a forger.

use super::{BuildOptions, Bvh, BvhError, LEAF, Node, SplitRule};
use crate::bv::{BoundingVolume, BvKind, ObbFit};
use crate::mesh::TriMesh;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The first 8 bytes of every tree file.
pub const MAGIC: [u8; 8] = *b"obbtree\0";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes before the body: signature, version, body length, header check, body hash.
const PRELUDE: usize = 56;

/// A volume type whose trees can be saved: every [`BoundingVolume`] of this crate.
pub trait Persistent: BoundingVolume + bytemuck::Pod {}
impl<B: BoundingVolume + bytemuck::Pod> Persistent for B {}

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
    let mut hasher = blake3::Hasher::new();
    hasher.update(&(mesh.vertices().len() as u64).to_le_bytes());
    hasher.update(&(mesh.triangle_count() as u64).to_le_bytes());
    if cfg!(target_endian = "little") {
        // The arrays' bytes are their little-endian encoding already.
        hash_into(&mut hasher, bytemuck::cast_slice(mesh.vertices()));
        hash_into(&mut hasher, bytemuck::cast_slice(mesh.triangles()));
    } else {
        let coordinates = mesh.vertices().iter().flat_map(|v| [v.x, v.y, v.z]);
        let indices = mesh.triangles().iter().flatten();
        let bytes: Vec<u8> = (coordinates.flat_map(f64::to_le_bytes))
            .chain(indices.flat_map(|i| i.to_le_bytes()))
            .collect();
        hasher.update(&bytes);
    }
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
    /// The tree was built with other options than asked for ([`super::TreeCache`]: a file
    /// under another's name).
    #[error(
        "the tree was built with split {found_split:?} and fit {found_fit:?}, not {expected_split:?} and {expected_fit:?}"
    )]
    OtherOptions {
        /// The file's split rule.
        found_split: SplitRule,
        /// The file's fit.
        found_fit: ObbFit,
        /// The split rule asked for.
        expected_split: SplitRule,
        /// The fit asked for.
        expected_fit: ObbFit,
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

/// The header's second part: what is needed to read the arrays.
#[derive(Serialize, Deserialize)]
struct Layout {
    /// [`Bvh::origin`].
    origin: [f64; 3],
    /// [`Bvh::reach`], [`Bvh::radius`], [`Bvh::center_reach`].
    measures: [f64; 3],
    /// Nodes (`2n − 1`).
    nodes: u64,
    /// Bytes of one volume.
    volume_bytes: u64,
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

const UNDECODABLE: TreeFileError = TreeFileError::Corrupted {
    what: "the header does not decode",
};

const SIZES: TreeFileError = TreeFileError::Corrupted {
    what: "the header's sizes disagree with the file's length",
};

/// Bytes written (and hashed) at a time when saving.
const CHUNK: usize = 1 << 16;

const HASH_FAILS: TreeFileError = TreeFileError::Corrupted {
    what: "the tree's bytes fail their hash",
};

/// Adds `bytes` to `hasher`: on the threads of the rayon pool where there are any (the hash
/// is the same).
fn hash_into(hasher: &mut blake3::Hasher, bytes: &[u8]) {
    #[cfg(feature = "parallel")]
    hasher.update_rayon(bytes);
    #[cfg(not(feature = "parallel"))]
    hasher.update(bytes);
}

/// `a` and `b` side by side on the rayon pool where there is one, else one after the other.
fn join<RA: Send, RB: Send>(
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (RA, RB) {
    #[cfg(feature = "parallel")]
    return rayon::join(a, b);
    #[cfg(not(feature = "parallel"))]
    (a(), b())
}

/// A little-endian item of the file (`bytes`: exactly its size) as a value.
fn decode<T: bytemuck::Pod>(bytes: &[u8]) -> T {
    if cfg!(target_endian = "big") {
        let mut word = [0u8; 256];
        let word = &mut word[..bytes.len()];
        word.copy_from_slice(bytes);
        from_le_words(word);
        bytemuck::pod_read_unaligned(word)
    } else {
        bytemuck::pod_read_unaligned(bytes)
    }
}

/// The file's 4-byte little-endian words in the machine's order (no-op on little-endian).
fn from_le_words(bytes: &mut [u8]) {
    if cfg!(target_endian = "big") {
        for w in bytes.chunks_exact_mut(4) {
            w.reverse();
        }
    }
}

/// What the envelope's checks give: the body's hash.
struct Envelope {
    body_hash: [u8; 32],
}

/// The envelope's checks on the first bytes (`prelude`, up to [`PRELUDE`]) of a file of
/// `found` bytes in all.
fn envelope(prelude: &[u8], found: u64) -> Result<Envelope, TreeFileError> {
    let n = prelude.len().min(MAGIC.len());
    if prelude[..n] != MAGIC[..n] {
        return Err(TreeFileError::NotATreeFile);
    }
    let truncated = TreeFileError::Truncated {
        expected: PRELUDE as u64,
        found,
    };
    if prelude.len() < 12 {
        return Err(truncated);
    }
    let version = u32::from_le_bytes(prelude[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(TreeFileError::Version {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if prelude.len() < PRELUDE {
        return Err(truncated);
    }
    if prelude[20..24] != header_check(&prelude[..20]) {
        return Err(TreeFileError::Corrupted {
            what: "the header fails its check",
        });
    }
    let body_len = u64::from_le_bytes(prelude[12..20].try_into().expect("8 bytes"));
    let expected = (PRELUDE as u64).saturating_add(body_len);
    if found < expected {
        return Err(TreeFileError::Truncated { expected, found });
    }
    if found > expected {
        return Err(TreeFileError::Corrupted {
            what: "bytes after the end of the tree",
        });
    }
    Ok(Envelope {
        body_hash: prelude[24..56].try_into().expect("32 bytes"),
    })
}

/// Reads a tree file's `bytes`: the envelope, the header, then (when the kind and the mesh are
/// `B`'s and `mesh`'s) the arrays; every check of the module. `mesh` `None`: the header alone
/// is wanted (the body is still hashed). `mesh` comes with its [`mesh_hash`], computed once by
/// the caller.
///
/// The body is hashed and the leaves' corners copied from the mesh beside the arrays' decoding
/// and shape checks (on the rayon pool with the `parallel` feature). A tree is returned only
/// when the hash and the shape checks pass, and a failed hash is the error reported first.
fn read_tree<B: Persistent>(
    bytes: &[u8],
    mesh: Option<(Arc<TriMesh>, &MeshHash)>,
) -> Result<(TreeFileInfo, Option<Bvh<B>>), TreeFileError> {
    let found = bytes.len() as u64;
    let envelope = envelope(&bytes[..bytes.len().min(PRELUDE)], found)?;
    // The envelope checked that the file is exactly the prelude and the body.
    let body = &bytes[PRELUDE..];
    let header_len = match body.get(..4) {
        Some(word) => u32::from_le_bytes(word.try_into().expect("4 bytes")) as usize,
        None => return Err(SIZES),
    };
    if header_len > body.len() - 4 || header_len > 4096 {
        return Err(SIZES);
    }
    let (header, arrays) = body[4..].split_at(header_len);
    let ((info, layout), rest) =
        postcard::take_from_bytes::<(TreeFileInfo, Layout)>(header).map_err(|_| UNDECODABLE)?;
    if !rest.is_empty() {
        return Err(UNDECODABLE);
    }
    let expected_len = layout
        .nodes
        .checked_mul(layout.volume_bytes.saturating_add(4))
        .and_then(|x| x.checked_add(info.triangles.checked_mul(4)?));
    if expected_len != Some(arrays.len() as u64) {
        return Err(SIZES);
    }
    let hashed = |hasher: blake3::Hasher| {
        if hasher.finalize().as_bytes() == &envelope.body_hash {
            Ok(())
        } else {
            Err(HASH_FAILS)
        }
    };
    // The kind and the mesh are judged once the whole file is known to be sound.
    let wanted = mesh.filter(|(mesh, hash)| {
        info.kind == B::KIND
            && layout.volume_bytes == std::mem::size_of::<B>() as u64
            && info.mesh == **hash
            && info.vertices == mesh.vertices().len() as u64
            && info.triangles == mesh.triangle_count() as u64
    });
    let Some((mesh, _)) = wanted else {
        let mut hasher = blake3::Hasher::new();
        hash_into(&mut hasher, body);
        return hashed(hasher).map(|()| (info, None));
    };
    let count = layout.nodes as usize;
    let size = std::mem::size_of::<B>();
    let (volumes, rest) = arrays.split_at(count * size);
    let (links, ids) = rest.split_at(count * 4);
    let [reach, radius, center_reach] = layout.measures;
    let leaf_ids: Vec<u32> = ids.chunks_exact(4).map(decode).collect();
    let ((hash, corners), shape) = join(
        || {
            let mut hasher = blake3::Hasher::new();
            hash_into(&mut hasher, body);
            (hasher, leaf_corners(&mesh, &leaf_ids))
        },
        || {
            let items = volumes.chunks_exact(size).zip(links.chunks_exact(4));
            let nodes: Vec<Node<B>> = items
                .map(|(bv, link)| Node {
                    bv: decode(bv),
                    link: decode(link),
                    align: [],
                })
                .collect();
            let depth = check_shape(mesh.triangle_count(), &nodes, &leaf_ids)?;
            Ok::<_, BvhError>((nodes, depth))
        },
    );
    hashed(hash)?;
    let (nodes, depth) = shape?;
    if ![reach, radius, center_reach].iter().all(|x| x.is_finite())
        || !layout.origin.iter().all(|x| x.is_finite())
    {
        return Err(BvhError::Malformed { node: 0 }.into());
    }
    let tree = Bvh {
        mesh,
        options: info.build_options(),
        nodes,
        depth,
        origin: layout.origin.into(),
        reach,
        radius,
        center_reach,
        leaf_corners: corners,
        leaf_ids,
    };
    Ok((info, Some(tree)))
}

/// The corners of the triangles `ids` (the file's leaves' triangles, before their checks: a
/// triangle out of range gets the origin's corners, and the tree is refused by the shape
/// checks).
fn leaf_corners(mesh: &TriMesh, ids: &[u32]) -> Vec<[crate::math::Point; 3]> {
    let n = mesh.triangle_count();
    ids.iter()
        .map(|&t| {
            if (t as usize) < n {
                mesh.triangle(t as usize)
            } else {
                [crate::math::Point::origin(); 3]
            }
        })
        .collect()
}

/// The kind and mesh checks of a sound file whose tree was not read (`read_tree`).
fn refusal<B: BoundingVolume>(
    info: &TreeFileInfo,
    mesh: &TriMesh,
    hash: &MeshHash,
) -> TreeFileError {
    if info.kind != B::KIND {
        return TreeFileError::WrongKind {
            found: info.kind,
            expected: B::KIND,
        };
    }
    TreeFileError::WrongMesh {
        found: info.mesh,
        found_triangles: info.triangles,
        expected: *hash,
        expected_triangles: mesh.triangle_count() as u64,
    }
}

/// What the tree file `bytes` holds, after the checks of the signature, version, length and
/// hashes (not of the tree itself, which needs its volume type and mesh).
///
/// # Errors
/// [`TreeFileError::NotATreeFile`], [`TreeFileError::Version`], [`TreeFileError::Truncated`]
/// or [`TreeFileError::Corrupted`].
pub fn info(bytes: &[u8]) -> Result<TreeFileInfo, TreeFileError> {
    // The volume type does not matter: the arrays are only hashed.
    Ok(read_tree::<crate::bv::Obb>(bytes, None)?.0)
}

/// [`info`] of a file.
///
/// # Errors
/// [`TreeFileError::Io`], or [`info`]'s errors in [`TreeFileError::InFile`].
pub fn read_info(path: &Path) -> Result<TreeFileInfo, TreeFileError> {
    let bytes = FileBytes::open(path)?;
    read_tree::<crate::bv::Obb>(&bytes, None)
        .map(|(info, _)| info)
        .map_err(|e| e.in_file(path))
}

/// A file's bytes: mapped into memory where the system can (no copy; the pages come from the
/// system's file cache), else read.
enum FileBytes {
    #[cfg(not(target_arch = "wasm32"))]
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl FileBytes {
    fn open(path: &Path) -> Result<FileBytes, TreeFileError> {
        let io = |source| TreeFileError::Io {
            path: path.to_owned(),
            source,
        };
        #[cfg(not(target_arch = "wasm32"))]
        {
            let file = std::fs::File::open(path).map_err(io)?;
            // SAFETY: the mapping is read only, and this crate writes its tree files beside
            // their final name and renames them over it (`Bvh::save`), so a file is never
            // changed in place under a reader. A file truncated by another program while it
            // is read is the one case a map cannot guard against, as for any mapped file.
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                return Ok(FileBytes::Mapped(map));
            }
        }
        std::fs::read(path).map(FileBytes::Read).map_err(io)
    }
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            #[cfg(not(target_arch = "wasm32"))]
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

impl<B: Persistent> Bvh<B> {
    /// Writes the tree file (the module's layout) to `out`, which it seeks back in once to
    /// fill the header's hash; `hash` is the mesh's [`mesh_hash`].
    fn write_to<W: std::io::Write + std::io::Seek>(
        &self,
        out: &mut W,
        hash: &MeshHash,
    ) -> std::io::Result<()> {
        let mesh = &self.mesh;
        let info = TreeFileInfo {
            kind: B::KIND,
            split: self.options.split,
            fit: self.options.fit,
            mesh: *hash,
            vertices: mesh.vertices().len() as u64,
            triangles: mesh.triangle_count() as u64,
        };
        let layout = Layout {
            origin: self.origin.into(),
            measures: [self.reach, self.radius, self.center_reach],
            nodes: self.nodes.len() as u64,
            volume_bytes: std::mem::size_of::<B>() as u64,
        };
        let header =
            postcard::to_stdvec(&(info, layout)).expect("encoding into a Vec does not fail");
        let body_len = 4
            + header.len() as u64
            + self.nodes.len() as u64 * (std::mem::size_of::<B>() as u64 + 4)
            + self.leaf_ids.len() as u64 * 4;
        let start = out.stream_position()?;
        out.write_all(&[0u8; PRELUDE])?;
        let mut hasher = blake3::Hasher::new();
        let mut chunk: Vec<u8> = Vec::with_capacity(CHUNK + 256);
        let mut put = |chunk: &mut Vec<u8>, bytes: &[u8], out: &mut W| -> std::io::Result<()> {
            chunk.extend_from_slice(bytes);
            if chunk.len() >= CHUNK {
                hasher.update(chunk);
                out.write_all(chunk)?;
                chunk.clear();
            }
            Ok(())
        };
        put(&mut chunk, &(header.len() as u32).to_le_bytes(), out)?;
        put(&mut chunk, &header, out)?;
        let mut le = [0u8; 256];
        for node in &self.nodes {
            let bytes = bytemuck::bytes_of(&node.bv);
            let le = &mut le[..bytes.len()];
            le.copy_from_slice(bytes);
            from_le_words(le);
            put(&mut chunk, le, out)?;
        }
        for node in &self.nodes {
            put(&mut chunk, &node.link.to_le_bytes(), out)?;
        }
        for id in &self.leaf_ids {
            put(&mut chunk, &id.to_le_bytes(), out)?;
        }
        hasher.update(&chunk);
        out.write_all(&chunk)?;
        let mut prelude = [0u8; PRELUDE];
        prelude[..8].copy_from_slice(&MAGIC);
        prelude[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        prelude[12..20].copy_from_slice(&body_len.to_le_bytes());
        let check = header_check(&prelude[..20]);
        prelude[20..24].copy_from_slice(&check);
        prelude[24..56].copy_from_slice(hasher.finalize().as_bytes());
        let end = out.stream_position()?;
        debug_assert_eq!(end - start, PRELUDE as u64 + body_len);
        out.seek(std::io::SeekFrom::Start(start))?;
        out.write_all(&prelude)?;
        out.seek(std::io::SeekFrom::Start(end))?;
        Ok(())
    }

    /// The tree as a tree file's bytes (the module's layout), for [`Bvh::from_bytes`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        self.write_to(&mut out, &mesh_hash(&self.mesh))
            .expect("writing into a Vec does not fail");
        out.into_inner()
    }

    /// The tree saved in `bytes` by [`Bvh::to_bytes`], over `mesh` (the mesh it was built for),
    /// checked as the module says. Costs a hash of the mesh and of the bytes and one pass over
    /// the nodes, no build.
    ///
    /// # Errors
    /// A [`TreeFileError`] saying which check failed: never a wrong tree from a damaged file.
    pub fn from_bytes(mesh: impl Into<Arc<TriMesh>>, bytes: &[u8]) -> Result<Self, TreeFileError> {
        let mesh = mesh.into();
        let hash = mesh_hash(&mesh);
        match read_tree::<B>(bytes, Some((mesh.clone(), &hash)))? {
            (_, Some(tree)) => Ok(tree),
            (info, None) => Err(refusal::<B>(&info, &mesh, &hash)),
        }
    }

    /// Saves the tree file to `path` (written beside it, then renamed over it: a reader never
    /// sees half a file), streaming: no copy of the tree in memory.
    ///
    /// # Errors
    /// [`TreeFileError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), TreeFileError> {
        self.save_hashed(path, &mesh_hash(&self.mesh))
    }

    /// [`Bvh::save`] with the mesh's [`mesh_hash`] already known ([`super::TreeCache`]).
    pub(super) fn save_hashed(&self, path: &Path, hash: &MeshHash) -> Result<(), TreeFileError> {
        let io = |source| TreeFileError::Io {
            path: path.to_owned(),
            source,
        };
        let mut name = path.file_name().unwrap_or_default().to_owned();
        name.push(format!(".{}.partial", std::process::id()));
        let partial = path.with_file_name(name);
        let written = std::fs::File::create(&partial).and_then(|file| {
            let mut out = std::io::BufWriter::with_capacity(CHUNK, file);
            self.write_to(&mut out, hash)?;
            out.into_inner().map(drop).map_err(|e| e.into_error())
        });
        written
            .and_then(|()| std::fs::rename(&partial, path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&partial);
                io(e)
            })
    }

    /// Loads the tree file at `path` over `mesh` ([`Bvh::from_bytes`]), mapped into memory (no
    /// copy of the file; read where the system cannot map it).
    ///
    /// # Errors
    /// [`TreeFileError::Io`], or [`Bvh::from_bytes`]'s errors in [`TreeFileError::InFile`].
    pub fn load(mesh: impl Into<Arc<TriMesh>>, path: &Path) -> Result<Self, TreeFileError> {
        let mesh = mesh.into();
        let hash = mesh_hash(&mesh);
        Self::load_hashed(mesh, &hash, path)
    }

    /// [`Bvh::load`] with the mesh's [`mesh_hash`] already known ([`super::TreeCache`]).
    pub(super) fn load_hashed(
        mesh: Arc<TriMesh>,
        hash: &MeshHash,
        path: &Path,
    ) -> Result<Self, TreeFileError> {
        let bytes = FileBytes::open(path)?;
        let read = read_tree::<B>(&bytes, Some((mesh.clone(), hash)));
        match read.map_err(|e| e.in_file(path))? {
            (_, Some(tree)) => Ok(tree),
            (info, None) => Err(refusal::<B>(&info, &mesh, hash).in_file(path)),
        }
    }
}

/// The shape checks of a loaded tree (the module's list) over a mesh of `n` triangles;
/// returns its depth.
fn check_shape<B: BoundingVolume>(
    n: usize,
    nodes: &[Node<B>],
    leaf_ids: &[u32],
) -> Result<usize, BvhError> {
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
