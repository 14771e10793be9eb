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
//! Saving and loading stream the file in 64 KiB pieces. Loading checks, in order: the
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

/// Bytes read or written at a time (and hashed at a time).
const CHUNK: usize = 1 << 16;

/// The body being read: every byte hashed, never past its length.
struct BodyReader<R> {
    inner: R,
    path: Option<PathBuf>,
    hasher: blake3::Hasher,
    left: u64,
}

impl<R: std::io::Read> BodyReader<R> {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), TreeFileError> {
        if buf.len() as u64 > self.left {
            return Err(SIZES);
        }
        self.inner
            .read_exact(buf)
            .map_err(|source| TreeFileError::Io {
                path: self.path.clone().unwrap_or_default(),
                source,
            })?;
        self.hasher.update(buf);
        self.left -= buf.len() as u64;
        Ok(())
    }

    /// Reads `count` little-endian items of `size` bytes, handing each to `item`.
    fn read_items(
        &mut self,
        count: usize,
        size: usize,
        mut item: impl FnMut(&[u8]),
    ) -> Result<(), TreeFileError> {
        let per_chunk = (CHUNK / size).max(1);
        let mut buf = vec![0u8; per_chunk * size];
        let mut remaining = count;
        while remaining > 0 {
            let k = remaining.min(per_chunk);
            let bytes = &mut buf[..k * size];
            self.read_exact(bytes)?;
            for chunk in bytes.chunks_exact_mut(size) {
                from_le_words(chunk);
                item(chunk);
            }
            remaining -= k;
        }
        Ok(())
    }

    /// Hashes what is left and compares the hash with `expected`.
    fn finish(mut self, expected: &[u8]) -> Result<(), TreeFileError> {
        let mut buf = vec![0u8; CHUNK];
        while self.left > 0 {
            let k = (self.left as usize).min(CHUNK);
            self.read_exact(&mut buf[..k])?;
        }
        if self.hasher.finalize().as_bytes() != expected {
            return Err(TreeFileError::Corrupted {
                what: "the tree's bytes fail their hash",
            });
        }
        Ok(())
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

/// What the envelope's checks give: the body's length and hash.
struct Envelope {
    body_len: u64,
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
        body_len,
        body_hash: prelude[24..56].try_into().expect("32 bytes"),
    })
}

/// Reads a tree file of `found` bytes from `input`: the envelope, the header, then (when the
/// kind and the mesh are `B`'s and `mesh`'s) the arrays; every check of the module. `mesh`
/// `None`: the header alone is wanted (the arrays are still hashed). `mesh` comes with its
/// [`mesh_hash`], computed once by the caller.
fn read_tree<B: Persistent>(
    mut input: impl std::io::Read,
    found: u64,
    path: Option<&Path>,
    mesh: Option<(Arc<TriMesh>, &MeshHash)>,
) -> Result<(TreeFileInfo, Option<Bvh<B>>), TreeFileError> {
    let io = |source| TreeFileError::Io {
        path: path.map(Path::to_owned).unwrap_or_default(),
        source,
    };
    let mut prelude = [0u8; PRELUDE];
    let have = (found as usize).min(PRELUDE);
    input.read_exact(&mut prelude[..have]).map_err(io)?;
    let envelope = envelope(&prelude[..have], found)?;
    let mut body = BodyReader {
        inner: input,
        path: path.map(Path::to_owned),
        hasher: blake3::Hasher::new(),
        left: envelope.body_len,
    };
    let mut word = [0u8; 4];
    body.read_exact(&mut word)?;
    let header_len = u32::from_le_bytes(word) as usize;
    if header_len as u64 > body.left || header_len > 4096 {
        return Err(SIZES);
    }
    let mut header = vec![0u8; header_len];
    body.read_exact(&mut header)?;
    let ((info, layout), rest) =
        postcard::take_from_bytes::<(TreeFileInfo, Layout)>(&header).map_err(|_| UNDECODABLE)?;
    if !rest.is_empty() {
        return Err(UNDECODABLE);
    }
    let arrays = layout
        .nodes
        .checked_mul(layout.volume_bytes.saturating_add(4))
        .and_then(|x| x.checked_add(info.triangles.checked_mul(4)?));
    if arrays != Some(body.left) {
        return Err(SIZES);
    }
    // The kind and the mesh are judged once the whole file is known to be sound.
    let wanted = mesh.filter(|(mesh, hash)| {
        info.kind == B::KIND
            && layout.volume_bytes == std::mem::size_of::<B>() as u64
            && info.mesh == **hash
            && info.vertices == mesh.vertices().len() as u64
            && info.triangles == mesh.triangle_count() as u64
    });
    let Some((mesh, _)) = wanted else {
        body.finish(&envelope.body_hash)?;
        return Ok((info, None));
    };
    let count = layout.nodes as usize;
    let mut nodes: Vec<Node<B>> = Vec::with_capacity(count);
    body.read_items(count, std::mem::size_of::<B>(), |b| {
        nodes.push(Node {
            bv: bytemuck::pod_read_unaligned(b),
            link: 0,
            align: [],
        })
    })?;
    let mut links = nodes.iter_mut();
    body.read_items(count, 4, |b| {
        let node = links.next().expect("as many links as volumes");
        node.link = u32::from_ne_bytes(b.try_into().expect("4 bytes"));
    })?;
    let mut leaf_ids = Vec::with_capacity(mesh.triangle_count());
    body.read_items(mesh.triangle_count(), 4, |b| {
        leaf_ids.push(u32::from_ne_bytes(b.try_into().expect("4 bytes")))
    })?;
    body.finish(&envelope.body_hash)?;
    let [reach, radius, center_reach] = layout.measures;
    if ![reach, radius, center_reach].iter().all(|x| x.is_finite())
        || !layout.origin.iter().all(|x| x.is_finite())
    {
        return Err(BvhError::Malformed { node: 0 }.into());
    }
    let depth = check_shape(&mesh, &nodes, &leaf_ids)?;
    let mut tree = Bvh {
        mesh,
        options: info.build_options(),
        nodes,
        depth,
        origin: layout.origin.into(),
        reach,
        radius,
        center_reach,
        leaf_corners: Vec::new(),
        leaf_ids,
    };
    tree.copy_leaf_corners();
    Ok((info, Some(tree)))
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
    Ok(read_tree::<crate::bv::Obb>(bytes, bytes.len() as u64, None, None)?.0)
}

/// [`info`] of a file.
///
/// # Errors
/// [`TreeFileError::Io`], or [`info`]'s errors in [`TreeFileError::InFile`].
pub fn read_info(path: &Path) -> Result<TreeFileInfo, TreeFileError> {
    let (file, len) = open(path)?;
    read_tree::<crate::bv::Obb>(std::io::BufReader::new(file), len, Some(path), None)
        .map(|(info, _)| info)
        .map_err(|e| e.in_file(path))
}

fn open(path: &Path) -> Result<(std::fs::File, u64), TreeFileError> {
    let io = |source| TreeFileError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    Ok((file, len))
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
        match read_tree::<B>(bytes, bytes.len() as u64, None, Some((mesh.clone(), &hash)))? {
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

    /// Loads the tree file at `path` over `mesh` ([`Bvh::from_bytes`]), reading it in pieces
    /// (no copy of the file in memory).
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
        let (file, len) = open(path)?;
        let read = read_tree::<B>(file, len, Some(path), Some((mesh.clone(), hash)));
        match read.map_err(|e| e.in_file(path))? {
            (_, Some(tree)) => Ok(tree),
            (info, None) => Err(refusal::<B>(&info, &mesh, hash).in_file(path)),
        }
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
