//! The loaded scene, the data every plugin reads: two bodies, each with its three hierarchies
//! ([`Trees`]) and its world pose, the motion path, and the frame's system sets.
//!
//! This module depends on the core only; every other module of the app depends on it.
//! [`dispatch`] is the one place that turns a [`BvKind`] value into a tree type: code that works
//! on "the tree of the chosen kind" implements [`KindVisitor`] once, generically.

use crate::bv::{Aabb, BoundingVolume, BvKind, Obb, Sphere};
use crate::bvh::{
    BuildOptions, Bvh, MeshHash, Persistent, SplitRule, TreeCache, TreeOrigin, mesh_hash,
};
use crate::math::{Isometry, Matrix3, Point};
use crate::mesh::{MeshError, TriMesh};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use std::sync::Arc;

/// Which body of the scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyId {
    /// The environment (A).
    Environment,
    /// The moving object (B).
    Object,
}

/// System sets of a frame, in order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameSet {
    /// Scene loading and switching.
    Load,
    /// Input turned into messages (presentation only).
    Input,
    /// Path playback, dragging, simulation, deformation and refit.
    Motion,
    /// The collision query.
    Query,
    /// What the frame shows: intersection curves, overlay boxes, highlights, the side-by-side
    /// comparison.
    Present,
    /// The frame's metrics sample.
    Record,
}

/// A bounding volume type whose tree a [`Trees`] holds.
pub trait TreeKind: BoundingVolume + Persistent {
    /// The tree of this kind.
    fn tree(trees: &Trees) -> &Arc<Bvh<Self>>;
    /// The tree of this kind, mutably.
    fn tree_mut(trees: &mut Trees) -> &mut Arc<Bvh<Self>>;
}

impl TreeKind for Obb {
    fn tree(trees: &Trees) -> &Arc<Bvh<Self>> {
        &trees.obb
    }
    fn tree_mut(trees: &mut Trees) -> &mut Arc<Bvh<Self>> {
        &mut trees.obb
    }
}

impl TreeKind for Aabb {
    fn tree(trees: &Trees) -> &Arc<Bvh<Self>> {
        &trees.aabb
    }
    fn tree_mut(trees: &mut Trees) -> &mut Arc<Bvh<Self>> {
        &mut trees.aabb
    }
}

impl TreeKind for Sphere {
    fn tree(trees: &Trees) -> &Arc<Bvh<Self>> {
        &trees.sphere
    }
    fn tree_mut(trees: &mut Trees) -> &mut Arc<Bvh<Self>> {
        &mut trees.sphere
    }
}

/// Work to do with "the tree type of a [`BvKind`]", written once for every type.
pub trait KindVisitor {
    /// What the work returns.
    type Output;
    /// Does the work with the tree type `B`.
    fn visit<B: TreeKind>(self) -> Self::Output;
}

/// Runs `visitor` with the tree type of `kind`: the app's one dispatch over bounding volume
/// kinds.
pub fn dispatch<V: KindVisitor>(kind: BvKind, visitor: V) -> V::Output {
    match kind {
        BvKind::Obb => visitor.visit::<Obb>(),
        BvKind::Aabb => visitor.visit::<Aabb>(),
        BvKind::Sphere => visitor.visit::<Sphere>(),
    }
}

/// All three kinds, in the order of the panel's tables.
pub const KINDS: [BvKind; 3] = [BvKind::Obb, BvKind::Aabb, BvKind::Sphere];

/// One build of the three hierarchies of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeStats {
    /// Time to build the tree or load it from the tree cache, milliseconds.
    pub build_ms: f64,
    /// Whether it was built or loaded from the tree cache.
    pub origin: TreeOrigin,
    /// Bytes of the node array and the leaves' triangle copies ([`Bvh::memory_bytes`]).
    pub memory: usize,
    /// Depth of the deepest leaf.
    pub depth: usize,
    /// Nodes.
    pub nodes: usize,
}

/// A body's OBB, AABB and sphere trees over one mesh (shared by `Arc`), built with one split
/// rule. The trees are `Arc`s so that background work (the side-by-side comparison) can hold
/// them while the frame goes on.
///
/// While the body deforms only the trees in use are refitted; [`Trees::is_current`] says which
/// hold the body's current vertices, and [`Trees::mesh`] is always the current mesh.
#[derive(Clone)]
pub struct Trees {
    obb: Arc<Bvh<Obb>>,
    aabb: Arc<Bvh<Aabb>>,
    sphere: Arc<Bvh<Sphere>>,
    /// The split rule of the build.
    pub split: SplitRule,
    /// Build time, memory and depth of each tree, in [`KINDS`] order.
    pub stats: [TreeStats; 3],
    current: [bool; 3],
    /// Incremented whenever the vertices change (the render mesh follows it).
    pub vertex_version: u64,
}

/// Builds one tree, or loads it from `cache` (keyed by the mesh's hash), timed.
fn build_one<B: TreeKind>(
    mesh: &Arc<TriMesh>,
    options: &BuildOptions,
    cache: Option<&(TreeCache, MeshHash)>,
) -> (Arc<Bvh<B>>, TreeStats) {
    let t = Instant::now();
    let (tree, origin) = match cache {
        Some((cache, hash)) => {
            let cached = cache.tree::<B>(mesh, hash, options);
            if let Some(problem) = &cached.problem {
                warn!("tree cache: {problem}");
            }
            (cached.tree, cached.origin)
        }
        None => (Bvh::<B>::build(mesh.clone(), options), TreeOrigin::Built),
    };
    let stats = TreeStats {
        build_ms: t.elapsed().as_secs_f64() * 1e3,
        origin,
        memory: tree.memory_bytes(),
        depth: tree.depth(),
        nodes: tree.nodes().len(),
    };
    (Arc::new(tree), stats)
}

impl Trees {
    /// Builds the three trees of `mesh` with `split`, or loads them from `cache` when it holds
    /// them (saving what it builds there); timed: run it off the main thread.
    pub fn build(mesh: Arc<TriMesh>, split: SplitRule, cache: Option<&TreeCache>) -> Self {
        let options = BuildOptions {
            split,
            ..BuildOptions::default()
        };
        // The mesh's hash names its files in the cache; its time is the first tree's.
        let t = Instant::now();
        let cache = cache.map(|c| (c.clone(), mesh_hash(&mesh)));
        let hash_ms = t.elapsed().as_secs_f64() * 1e3;
        let (obb, mut s_obb) = build_one::<Obb>(&mesh, &options, cache.as_ref());
        s_obb.build_ms += hash_ms;
        let (aabb, s_aabb) = build_one::<Aabb>(&mesh, &options, cache.as_ref());
        let (sphere, s_sphere) = build_one::<Sphere>(&mesh, &options, cache.as_ref());
        let stats = [s_obb, s_aabb, s_sphere];
        Trees {
            obb,
            aabb,
            sphere,
            split,
            stats,
            current: [true; 3],
            vertex_version: 0,
        }
    }

    /// The tree of type `B`.
    pub fn get<B: TreeKind>(&self) -> &Bvh<B> {
        B::tree(self)
    }

    /// The tree of type `B`, shared.
    pub fn shared<B: TreeKind>(&self) -> Arc<Bvh<B>> {
        B::tree(self).clone()
    }

    /// The OBB tree (what the dynamics engine uses).
    pub fn obb(&self) -> &Bvh<Obb> {
        &self.obb
    }

    /// The body's current mesh (model frame): the mesh of a tree that holds the current
    /// vertices.
    pub fn mesh(&self) -> &TriMesh {
        if self.current[0] {
            self.obb.mesh()
        } else if self.current[1] {
            self.aabb.mesh()
        } else {
            self.sphere.mesh()
        }
    }

    /// A kind whose tree holds the current vertices (the OBB tree unless the body deforms).
    pub fn current_kind(&self) -> BvKind {
        KINDS
            .into_iter()
            .find(|&k| self.is_current(k))
            .unwrap_or(BvKind::Obb)
    }

    /// Whether the tree of `kind` holds the current vertices.
    pub fn is_current(&self, kind: BvKind) -> bool {
        self.current[kind as usize]
    }

    /// Depth of the tree of `kind`.
    pub fn depth(&self, kind: BvKind) -> usize {
        self.stats[kind as usize].depth
    }

    /// Node count of the tree of `kind`.
    pub fn node_count(&self, kind: BvKind) -> usize {
        self.stats[kind as usize].nodes
    }

    /// Memory of the tree of `kind`, bytes.
    pub fn memory(&self, kind: BvKind) -> usize {
        self.stats[kind as usize].memory
    }

    /// The indices of the nodes of the tree of `kind` at depth `level`.
    pub fn nodes_at_depth(&self, kind: BvKind, level: usize) -> Vec<u32> {
        struct Level<'a>(&'a Trees, usize);
        impl KindVisitor for Level<'_> {
            type Output = Vec<u32>;
            fn visit<B: TreeKind>(self) -> Vec<u32> {
                self.0
                    .get::<B>()
                    .nodes_at_depth(self.1)
                    .into_iter()
                    .map(|(i, _)| i as u32)
                    .collect()
            }
        }
        dispatch(kind, Level(self, level))
    }

    /// Node `i` of the tree of `kind` as an oriented box `(centre, axes, half extents)`, model
    /// frame ([`Bvh::node_box`]); `None` if there is no such node.
    pub fn node_boxes(
        &self,
        kind: BvKind,
        nodes: &[u32],
    ) -> Vec<(Point, Matrix3, crate::math::Vector)> {
        struct Boxes<'a>(&'a Trees, &'a [u32]);
        impl KindVisitor for Boxes<'_> {
            type Output = Vec<(Point, Matrix3, crate::math::Vector)>;
            fn visit<B: TreeKind>(self) -> Self::Output {
                let tree = self.0.get::<B>();
                let n = tree.nodes().len();
                self.1
                    .iter()
                    .filter(|&&i| (i as usize) < n)
                    .map(|&i| tree.node_box(i as usize))
                    .collect()
            }
        }
        dispatch(kind, Boxes(self, nodes))
    }

    /// Moves the vertices (same triangles) and refits the trees of `kinds` (van den Bergen 1998,
    /// §4); the other trees keep the old vertices until [`Trees::make_current`].
    ///
    /// # Errors
    /// As [`Bvh::set_vertices`] (wrong count, non-finite or out-of-range coordinates); the trees
    /// are then unchanged.
    pub fn set_vertices(&mut self, kinds: &[BvKind], vertices: &[Point]) -> Result<(), MeshError> {
        struct Refit<'a>(&'a mut Trees, &'a [Point]);
        impl KindVisitor for Refit<'_> {
            type Output = Result<(), MeshError>;
            fn visit<B: TreeKind>(self) -> Self::Output {
                Arc::make_mut(B::tree_mut(self.0)).set_vertices(self.1.to_vec())
            }
        }
        let mut done = [false; 3];
        for &k in kinds {
            if !done[k as usize] {
                dispatch(k, Refit(self, vertices))?;
                done[k as usize] = true;
            }
        }
        if done.iter().any(|&d| d) {
            self.current = done;
            self.vertex_version += 1;
        }
        Ok(())
    }

    /// Refits the tree of `kind` to the current vertices if it does not hold them.
    ///
    /// # Errors
    /// As [`Trees::set_vertices`].
    pub fn make_current(&mut self, kind: BvKind) -> Result<(), MeshError> {
        if self.is_current(kind) {
            return Ok(());
        }
        let vertices = self.mesh().vertices().to_vec();
        struct Refit<'a>(&'a mut Trees, Vec<Point>);
        impl KindVisitor for Refit<'_> {
            type Output = Result<(), MeshError>;
            fn visit<B: TreeKind>(self) -> Self::Output {
                Arc::make_mut(B::tree_mut(self.0)).set_vertices(self.1)
            }
        }
        dispatch(kind, Refit(self, vertices))?;
        self.current[kind as usize] = true;
        Ok(())
    }
}

/// One body: its hierarchies (and through them its one current mesh) and its world pose.
#[derive(Clone)]
pub struct Body {
    /// OBB, AABB and sphere trees over the body's mesh.
    pub trees: Trees,
    /// Pose of the model frame in the world frame.
    pub pose: Isometry,
}

impl Body {
    /// The body's current mesh, model frame ([`Trees::mesh`]).
    pub fn mesh(&self) -> &TriMesh {
        self.trees.mesh()
    }

    /// Centre of the body's bounding box (its root box), world frame.
    pub fn center(&self) -> Point {
        self.pose * self.trees.obb().node_box(0).0
    }

    /// Half the diagonal of the mesh's bounding box (model units).
    pub fn radius(&self) -> f64 {
        let (lo, hi) = self.mesh().bounds();
        (hi - lo).norm() * 0.5
    }
}

/// A deforming body (the wobbling-torus scene): its rest vertices and the wobble's clock.
#[derive(Clone)]
pub struct Deformation {
    /// Rest vertices, model frame.
    pub rest: Vec<Point>,
    /// Seconds since the scene started.
    pub time: f64,
}

/// The loaded scene: what every system works on.
#[derive(Resource, Clone)]
pub struct CollisionScene {
    /// Name shown in the UI.
    pub name: String,
    /// The paper's scene it is, if any (its dynamics settings).
    pub paper: Option<crate::scenes::SceneId>,
    /// The environment (A).
    pub env: Body,
    /// The moving object (B).
    pub obj: Body,
    /// The motion path: the object's poses in the environment's frame.
    pub path: Vec<Isometry>,
    /// The deforming object, for the wobbling-torus scene.
    pub deform: Option<Deformation>,
    /// Incremented whenever the scene is replaced (presentation rebuilds its meshes).
    pub generation: u64,
    /// Incremented whenever the trees are rebuilt (another split rule); caches of tree nodes
    /// key on `(generation, trees_revision)`.
    pub trees_revision: u64,
    /// Draw the environment see-through (the pipes: the object is inside it).
    pub translucent_env: bool,
}

impl CollisionScene {
    /// The body `id`.
    pub fn body(&self, id: BodyId) -> &Body {
        match id {
            BodyId::Environment => &self.env,
            BodyId::Object => &self.obj,
        }
    }

    /// The body `id`, mutably.
    pub fn body_mut(&mut self, id: BodyId) -> &mut Body {
        match id {
            BodyId::Environment => &mut self.env,
            BodyId::Object => &mut self.obj,
        }
    }

    /// The object's pose in the environment's frame (`pose_env⁻¹ · pose_obj`): what queries use.
    pub fn relative_pose(&self) -> Isometry {
        self.env.pose.inv_mul(&self.obj.pose)
    }

    /// The key of caches of tree nodes: scene and tree build.
    pub fn trees_key(&self) -> (u64, u64) {
        (self.generation, self.trees_revision)
    }
}
