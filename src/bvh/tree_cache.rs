//! A folder of saved trees keyed by mesh and build options: a tree built once is loaded the
//! next time ([`super::tree_file`]).

use super::tree_file::{MeshHash, Persistent, TreeFileError};
use super::{BuildOptions, Bvh};
use crate::bv::BoundingVolume;
use crate::mesh::TriMesh;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Whether a [`CachedTree`] was read from the cache or built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeOrigin {
    /// Read from the cache folder.
    Loaded,
    /// Built (and saved for the next time).
    Built,
}

/// A tree from [`TreeCache::tree`].
#[derive(Debug)]
pub struct CachedTree<B: BoundingVolume> {
    /// The tree.
    pub tree: Bvh<B>,
    /// Loaded or built.
    pub origin: TreeOrigin,
    /// Its file in the cache.
    pub path: PathBuf,
    /// Why a file in the cache was not used, or why the built tree could not be saved (the
    /// tree is right either way).
    pub problem: Option<TreeFileError>,
}

/// A folder of tree files named by the mesh's hash, the volume type, the split rule and the fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeCache {
    dir: PathBuf,
}

impl TreeCache {
    /// The cache in `dir` (created when the first tree is saved).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the `B` tree of the mesh hashed `mesh` built with `options`:
    /// `{hash}-{kind}-{split}-{fit}.obbt`, the hash's first 32 hexadecimal digits.
    pub fn path<B: BoundingVolume>(&self, mesh: &MeshHash, options: &BuildOptions) -> PathBuf {
        let name = format!(
            "{}-{}-{:?}-{:?}.obbt",
            &mesh.to_hex()[..32],
            B::KIND,
            options.split,
            options.fit
        );
        self.dir.join(name.to_lowercase())
    }

    /// The `B` tree of `mesh` (whose [`super::mesh_hash`] is `hash`) built with `options`:
    /// loaded from the cache when its file is there and sound, else built and saved. A file
    /// that fails to load (damaged, another format version) is replaced; the reason is in
    /// [`CachedTree::problem`].
    pub fn tree<B: Persistent>(
        &self,
        mesh: &Arc<TriMesh>,
        hash: &MeshHash,
        options: &BuildOptions,
    ) -> CachedTree<B> {
        let path = self.path::<B>(hash, options);
        let mut problem = None;
        if path.exists() {
            match Bvh::<B>::load_hashed(mesh.clone(), hash, &path) {
                Ok(tree)
                    if tree.build_options().split == options.split
                        && tree.build_options().fit == options.fit =>
                {
                    return CachedTree {
                        tree,
                        origin: TreeOrigin::Loaded,
                        path,
                        problem: None,
                    };
                }
                // A file renamed into another's place: rebuild it.
                Ok(tree) => {
                    let found = tree.build_options();
                    problem = Some(TreeFileError::InFile {
                        path: path.clone(),
                        error: Box::new(TreeFileError::OtherOptions {
                            found_split: found.split,
                            found_fit: found.fit,
                            expected_split: options.split,
                            expected_fit: options.fit,
                        }),
                    })
                }
                Err(e) => problem = Some(e),
            }
        }
        let tree = Bvh::<B>::build(mesh.clone(), options);
        let saved = std::fs::create_dir_all(&self.dir)
            .map_err(|source| TreeFileError::Io {
                path: self.dir.clone(),
                source,
            })
            .and_then(|()| tree.save_hashed(&path, hash));
        CachedTree {
            tree,
            origin: TreeOrigin::Built,
            path,
            problem: problem.or(saved.err()),
        }
    }
}
