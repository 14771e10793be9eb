//! # obbtree
//!
//! Exact interference detection between triangle soups with bounding volume hierarchies, after
//! "OBBTree: A Hierarchical Structure for Rapid Interference Detection" (Gottschalk, Lin,
//! Manocha, SIGGRAPH 1996), with the AABB trees of van den Bergen (1998) and the sphere trees of
//! Li & Chen's separation lists beside them.
//!
//! Data flows one way:
//!
//! ```text
//! OBJ file ──► TriMesh ──► Bvh<Obb | Aabb | Sphere>
//!   per pose: collide(&bvh_a, &pose_a, &bvh_b, &pose_b, &options) ──► CollisionReport
//! ```
//!
//! * [`mesh`]: [`mesh::TriMesh`] (a polygon soup; degenerate triangles allowed, §7.1) and OBJ
//!   loading with typed errors.
//! * [`bv`]: [`bv::Obb`] fitted by the convex-hull covariance of §4, [`bv::Aabb`],
//!   [`bv::Sphere`]; stored in single precision, rounded outward; the separating axis test (§5)
//!   in [`bv::sat`].
//! * [`bvh`]: flat-array hierarchies, top-down build (§4), refit (van den Bergen §4), validation;
//!   with feature `persist`, trees saved to files and loaded back (`bvh::tree_file`,
//!   `bvh::TreeCache`).
//! * [`query`]: one walk of the bounding-volume test tree driven by visitors
//!   ([`query::traverse`]), interference detection ([`query::collide`], [`query::collide_with`]),
//!   the separation lists of Li & Chen §4 ([`query::SeparationList`]), an exact
//!   triangle–triangle test, and the counts of the paper's cost equation (1),
//!   `T = N_v·C_v + N_p·C_p`.
//! * [`motion`]: [`motion::RigidMotion`], the constant-velocity motions that
//!   [`query::time_of_impact`] sweeps (conservative advancement).
//! * [`pose`]: the pose and motion files of the command line.
//! * `experiments` (feature `paper`): the papers' experiments (`obbtree experiment`), with CSV,
//!   plots and summaries.
//! * `scenes` (feature `paper`): the paper's three scenes (§7.2) as generated assets, their
//!   motion paths from a simple dynamics engine with time of impact, and the Table 3 bench.
//! * `app` (feature `app`): the Bevy viewer.
//! * `timing` (features `paper`, `cli`): the wall-clock helpers `timed` and `median`.
//!
//! # Features
//! `default` = `parallel` + `cli` + `paper` + `app`. With `default-features = false` a program
//! gets the core alone — `math`, `mesh`, `bv`, `bvh`, `query`, `motion`, `pose` — which needs
//! nalgebra, thiserror, robust and num-bigint, and builds on every platform Rust supports (the overlap
//! test's SIMD lanes have a portable fallback, `bv::sat::lanes`). `parallel` adds rayon: large
//! subtrees of a build on several threads ([`bvh::BuildOptions::parallel`]) and the parallel
//! query; without it everything runs on the calling thread. `persist` adds saved trees (serde,
//! postcard, bytemuck, blake3). `cli` adds the `obbtree` binary's clap and indicatif; `paper` the
//! scenes and experiments (rand, plotters, csv, serde_json); `app` the viewer (Bevy, bevy_egui,
//! egui_plot, dirs). All three turn on `parallel` and `persist`.
//!
//! ```
//! use obbtree::prelude::*;
//! let dir = std::env::temp_dir().join("obbtree_doc_lib");
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("tet.obj");
//! std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n").unwrap();
//! let mesh = load_obj(&path).unwrap();
//! let a = ObbTree::build(mesh.clone(), &BuildOptions::default());
//! let b = ObbTree::build(mesh, &BuildOptions::default());
//! let near = Isometry::translation(0.5, 0.0, 0.0);
//! let far = Isometry::translation(5.0, 0.0, 0.0);
//! assert!(collide(&a, &Isometry::identity(), &b, &near, &QueryOptions::default()).colliding());
//! assert!(!collide(&a, &Isometry::identity(), &b, &far, &QueryOptions::default()).colliding());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```
#![warn(missing_docs)]

#[cfg(feature = "app")]
pub mod app;
pub mod bv;
pub mod bvh;
// The experiments write CSV and plot files: not on the web.
#[cfg(all(feature = "paper", not(target_arch = "wasm32")))]
pub mod experiments;
pub mod math;
pub mod mesh;
pub mod motion;
pub mod pose;
// Exact orientation predicates: the triangle tests' and the §4 hull's.
pub(crate) mod predicates;
pub mod query;
#[cfg(feature = "paper")]
pub mod scenes;
#[cfg(any(feature = "paper", feature = "cli"))]
pub mod timing;

/// The names most programs need.
pub mod prelude {
    pub use crate::bv::{
        Aabb, BoundingVolume, BvKind, Obb, ObbFit, OverlapOptions, SatMode, Sphere,
    };
    pub use crate::bvh::{BuildOptions, Bvh, ObbTree, SplitRule};
    pub use crate::math::{Isometry, Matrix3, Point, Real, Vector};
    pub use crate::mesh::{MeshError, TriMesh, load_obj};
    pub use crate::query::{
        CollideWith, CollisionReport, ContactMode, QueryOptions, collide, collide_with,
    };
}
