//! Bounding volume hierarchies in flat arrays (Gottschalk et al. 1996, §4; van den Bergen
//! 1998, §2 and §4).
//!
//! A [`Bvh`] over `n` triangles has exactly `n` leaves (one triangle each) and `n − 1` internal
//! nodes in one `Vec`. The two children of a node are stored side by side (a split tests both,
//! and one fetch brings both), named by the index of the first; subtrees are laid out depth
//! first and every child comes after its parent, so [`Bvh::refit`] is one reverse
//! pass and drawing a level ([`Bvh::nodes_at_depth`]) is a short walk.
//!
//! Each leaf names a slot of the hierarchy's own copy of the triangles' corners, laid out in
//! the order of the leaves in the node array (as RAPID keeps its triangles): a triangle test
//! reads its two triangles with one load each, from memory near its neighbours', instead of
//! fetching three vertex indices and then three vertices scattered over the mesh.

mod build;
mod midpoint;
#[cfg(feature = "persist")]
mod tree_cache;
#[cfg(feature = "persist")]
pub mod tree_file;

pub use build::{BuildOptions, SPLIT_BINS, SplitRule};
#[cfg(feature = "persist")]
pub use tree_cache::{CachedTree, TreeCache, TreeOrigin};
#[cfg(feature = "persist")]
pub use tree_file::{MeshHash, Persistent, TreeFileError, mesh_hash};

use crate::bv::{BoundingVolume, BvKind, Obb};
use crate::math::{Matrix3, Point, Real, Vector};
use crate::mesh::{MeshError, TriMesh};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

const LEAF: u32 = 1 << 31;

/// One node: a bounding volume and either the index of its first child (internal node; the two
/// children are stored side by side) or its leaf slot (leaf: [`Bvh::leaf_triangle`] gives its
/// triangle). Aligned as
/// [`BoundingVolume::NodeAlign`] says: an OBB tree's nodes are 64 bytes on 64-byte boundaries.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Node<B: BoundingVolume> {
    /// The volume, in the model's frame.
    pub bv: B,
    link: u32,
    align: [B::NodeAlign; 0],
}

impl<B: BoundingVolume> Node<B> {
    /// Whether this node is a leaf.
    #[inline(always)]
    pub fn is_leaf(&self) -> bool {
        self.link & LEAF != 0
    }

    /// The indices of an internal node's two children (adjacent: `(c, c + 1)`); `None` for a
    /// leaf.
    #[inline(always)]
    pub fn children(&self) -> Option<(usize, usize)> {
        (!self.is_leaf()).then_some((self.link as usize, self.link as usize + 1))
    }

    /// The slot of a node known to be a leaf: its index into the hierarchy's leaf arrays
    /// ([`Bvh::leaf_triangle`]).
    #[inline(always)]
    pub(crate) fn leaf_slot(&self) -> usize {
        debug_assert!(self.is_leaf());
        (self.link & !LEAF) as usize
    }
}

/// Errors from [`Bvh::validate`]: which node breaks which invariant.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BvhError {
    /// The node count is not `2n − 1` for `n` triangles.
    #[error("{nodes} nodes for {triangles} triangles (expected 2n − 1)")]
    NodeCount {
        /// Nodes present.
        nodes: usize,
        /// Triangles in the mesh.
        triangles: usize,
    },
    /// A child index is not after its parent or out of range.
    #[error("node {node}: child index {child} is not after the node or out of range")]
    BadChild {
        /// The parent.
        node: usize,
        /// The offending child index.
        child: usize,
    },
    /// A triangle is in no leaf, in several, or out of range.
    #[error("triangle {triangle} appears in {count} leaves")]
    BadLeaves {
        /// The triangle.
        triangle: usize,
        /// In how many leaves it appears.
        count: usize,
    },
    /// A node's volume is malformed (non-finite, or an OBB whose axes are not orthonormal).
    #[error("node {node}: malformed volume")]
    Malformed {
        /// The node.
        node: usize,
    },
    /// A leaf's copy of its triangle's corners differs from the mesh's triangle.
    #[error("node {node}: its copy of triangle {triangle} differs from the mesh")]
    StaleLeaf {
        /// The leaf.
        node: usize,
        /// Its triangle.
        triangle: usize,
    },
    /// The leaf arrays do not have one slot per triangle.
    #[error("{slots} leaf slots for {triangles} triangles")]
    LeafCount {
        /// Leaf slots present.
        slots: usize,
        /// Triangles in the mesh.
        triangles: usize,
    },
    /// A leaf's slot is not the next in node order, or a node is the child of no node or of
    /// several.
    #[error("node {node}: not one child of one parent, or its leaf slot {slot} out of order")]
    BadShape {
        /// The node.
        node: usize,
        /// Its leaf slot (`usize::MAX` for an internal node).
        slot: usize,
    },
    /// A node does not contain a vertex of one of its triangles.
    #[error("node {node} does not contain vertex {vertex} of triangle {triangle}")]
    NotBounding {
        /// The node.
        node: usize,
        /// The triangle.
        triangle: usize,
        /// The vertex index in the mesh.
        vertex: usize,
    },
}

/// A hierarchy of bounding volumes of type `B` over a [`TriMesh`], which it shares by `Arc`.
///
/// Build with [`Bvh::build`]; query with [`crate::query::collide`].
///
/// Frames: the mesh is in its model frame; the volumes are in the *volume frame*, the model frame
/// moved so that [`Bvh::origin`] (the centre of the mesh's bounding box) is at zero, so they stay
/// tight wherever the model sits ([`crate::bv`]). [`Bvh::node_box`] gives a node's volume in
/// the model frame.
#[derive(Clone, Debug)]
pub struct Bvh<B: BoundingVolume> {
    mesh: Arc<TriMesh>,
    options: BuildOptions,
    nodes: Vec<Node<B>>,
    depth: usize,
    origin: Vector,
    reach: Real,
    radius: Real,
    center_reach: Real,
    /// Per leaf slot ([`Node::leaf_slot`]; slots in the order of the leaves in `nodes`): the
    /// corners of its triangle, model frame, a copy of the mesh's.
    leaf_corners: Vec<[Point; 3]>,
    /// Per leaf slot: its triangle's index in the mesh.
    leaf_ids: Vec<u32>,
}

/// An OBBTree (Gottschalk et al. 1996).
pub type ObbTree = Bvh<Obb>;

impl<B: BoundingVolume> Bvh<B> {
    /// Builds the hierarchy top-down (Gottschalk et al. 1996, §4): fit a volume to the group,
    /// split the group by a plane orthogonal to one of the volume's axes, chosen by
    /// [`BuildOptions::split`] (by count if no axis separates), recurse. Large
    /// groups are built on several threads (rayon, with the `parallel` feature); the result does
    /// not depend on the thread count.
    ///
    /// # Examples
    /// ```
    /// use obbtree::{bv::Obb, bvh::{Bvh, BuildOptions}, math::Point, mesh::TriMesh};
    /// let mesh = TriMesh::new(
    ///     vec![Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.), Point::new(0., 0., 1.)],
    ///     vec![[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]],
    ///     "tetrahedron",
    /// ).unwrap();
    /// let tree = Bvh::<Obb>::build(mesh, &BuildOptions::default());
    /// assert_eq!(tree.nodes().len(), 7);
    /// tree.validate().unwrap();
    /// ```
    pub fn build(mesh: impl Into<Arc<TriMesh>>, options: &BuildOptions) -> Self {
        Self::build_with_progress(mesh, options, &AtomicUsize::new(0))
    }

    /// [`Bvh::build`], adding to `progress` the number of triangles placed in leaves as the
    /// build goes (in steps of a few thousand per thread; the whole count by the end), for a
    /// progress bar another thread reads.
    pub fn build_with_progress(
        mesh: impl Into<Arc<TriMesh>>,
        options: &BuildOptions,
        progress: &AtomicUsize,
    ) -> Self {
        let mesh = mesh.into();
        let (lo, hi) = mesh.bounds();
        let origin = nalgebra::center(&lo, &hi).coords;
        let (nodes, depth, leaf_ids) = build::build::<B>(&mesh, origin, options, progress);
        let mut tree = Bvh {
            mesh,
            options: *options,
            nodes,
            depth,
            origin,
            reach: 0.0,
            radius: 0.0,
            center_reach: 0.0,
            leaf_corners: Vec::new(),
            leaf_ids,
        };
        tree.copy_leaf_corners();
        tree.measure();
        tree
    }

    /// Fills each leaf slot's copy of its triangle's corners from the mesh.
    fn copy_leaf_corners(&mut self) {
        let mesh = &self.mesh;
        self.leaf_corners.clear();
        self.leaf_corners
            .extend(self.leaf_ids.iter().map(|&t| mesh.triangle(t as usize)));
    }

    /// Recomputes [`Bvh::reach`] and [`Bvh::radius`] from the vertices, and
    /// [`Bvh::center_reach`] from the volumes.
    fn measure(&mut self) {
        let o = self.origin;
        let (reach, radius2) =
            self.mesh
                .vertices()
                .iter()
                .fold((0.0, 0.0), |(r, d2): (Real, Real), v| {
                    (
                        r.max(v.coords.amax()),
                        d2.max((v.coords - o).norm_squared()),
                    )
                });
        self.reach = reach;
        self.radius = radius2.sqrt();
        self.center_reach = self
            .nodes
            .iter()
            .map(|n| n.bv.as_box().0.coords.norm())
            .fold(0.0, Real::max);
    }

    /// The origin of the volume frame in the model frame: the centre of the mesh's bounding box
    /// when the hierarchy was built (refits keep it). A volume's point `x` is the model point
    /// `x + origin`.
    pub fn origin(&self) -> Vector {
        self.origin
    }

    /// The largest coordinate magnitude of the mesh's vertices (model frame, ∞-norm): the scale
    /// of the absolute rounding errors of placing them.
    pub fn reach(&self) -> Real {
        self.reach
    }

    /// The largest distance of a vertex from [`Bvh::origin`] (model units).
    pub fn radius(&self) -> Real {
        self.radius
    }

    /// The largest distance of a volume's centre from [`Bvh::origin`] (model units; volume
    /// frame): the scale of the absolute rounding error of placing this hierarchy's volumes in
    /// another's frame in single precision ([`BoundingVolume::prepare`]).
    pub fn center_reach(&self) -> Real {
        self.center_reach
    }

    /// The per-query constants of volume tests of this hierarchy (A) against `b` placed in A's
    /// frame by `x_a = rot_ab · x_b + pos_ab` (model frames), as the queries make them: for
    /// programs that test volumes of two hierarchies directly ([`BoundingVolume::place`],
    /// [`BoundingVolume::overlaps`]; volume frames, [`Bvh::origin`]).
    pub fn volume_query(
        &self,
        b: &Bvh<B>,
        rot_ab: &crate::math::Matrix3,
        pos_ab: &crate::math::Vector,
        overlap: &crate::bv::OverlapOptions,
    ) -> B::Query {
        crate::query::volume_query(self, b, rot_ab, pos_ab, overlap)
    }

    /// Node `i`'s volume as an oriented box `(center, axes as columns, half extents)` in the
    /// model frame, for drawing (a sphere gives its bounding cube).
    ///
    /// # Panics
    /// If `i` is not a node index.
    pub fn node_box(&self, i: usize) -> (Point, Matrix3, Vector) {
        let (c, axes, half) = self.nodes[i].bv.as_box();
        (c + self.origin, axes, half)
    }

    /// The options the hierarchy was built with (for a loaded tree, the saved split and fit,
    /// and [`BuildOptions::parallel`] at its default: it does not change the tree).
    pub fn build_options(&self) -> BuildOptions {
        self.options
    }

    /// The mesh the hierarchy bounds.
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// All nodes: siblings side by side, subtrees depth first; node 0 is the root.
    pub fn nodes(&self) -> &[Node<B>] {
        &self.nodes
    }

    /// The mesh triangle of node `i` when it is a leaf; `None` for an internal node or an index
    /// out of range.
    #[inline]
    pub fn leaf_triangle(&self, i: usize) -> Option<u32> {
        let node = self.nodes.get(i)?;
        node.is_leaf().then(|| self.leaf_ids[node.leaf_slot()])
    }

    /// The corners of each leaf slot's triangle (model frame).
    #[inline(always)]
    pub(crate) fn slot_corners(&self) -> &[[Point; 3]] {
        &self.leaf_corners
    }

    /// The mesh triangle of each leaf slot.
    #[inline(always)]
    pub(crate) fn slot_triangles(&self) -> &[u32] {
        &self.leaf_ids
    }

    /// The kind of volume.
    pub fn kind(&self) -> BvKind {
        B::KIND
    }

    /// The depth of the deepest leaf (the root is at depth 0).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Bytes held by the node array and the leaves' copies of their triangles (corners and mesh
    /// index, 76 bytes a triangle): what the hierarchy adds to the mesh.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node<B>>()
            + self.leaf_corners.len() * std::mem::size_of::<[Point; 3]>()
            + self.leaf_ids.len() * std::mem::size_of::<u32>()
    }

    /// [`Bvh::memory_bytes`] per triangle.
    pub fn bytes_per_triangle(&self) -> f64 {
        self.memory_bytes() as f64 / self.mesh.triangle_count() as f64
    }

    /// The nodes at depth `d` (root: 0), with their indices, left to right. Leaves shallower
    /// than `d` are not included.
    pub fn nodes_at_depth(&self, d: usize) -> Vec<(usize, &Node<B>)> {
        let mut out = Vec::new();
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            let node = &self.nodes[i];
            if depth == d {
                out.push((i, node));
            } else if let Some((l, r)) = node.children() {
                stack.push((r, depth + 1));
                stack.push((l, depth + 1));
            }
        }
        out
    }

    /// Recomputes every volume bottom-up after the mesh's vertices moved, keeping the tree's
    /// shape (van den Bergen 1998, §4): one reverse pass over the node array, leaves from their
    /// triangles, parents from their children. AABBs come out as the smallest boxes again; OBBs
    /// keep their axes and spheres their construction, so they bound but may be looser than a
    /// rebuild.
    pub fn refit(&mut self) {
        self.copy_leaf_corners();
        let o = self.origin;
        for i in (0..self.nodes.len()).rev() {
            let node = self.nodes[i];
            let bv = match node.children() {
                None => B::refit_leaf(
                    &node.bv,
                    &self.leaf_corners[node.leaf_slot()].map(|p| p - o),
                ),
                Some((l, r)) => B::refit_parent(&node.bv, &self.nodes[l].bv, &self.nodes[r].bv),
            };
            self.nodes[i].bv = bv;
        }
        self.measure();
    }

    /// Replaces the mesh's vertex positions (same triangles) and refits.
    ///
    /// # Errors
    /// As [`TriMesh::set_vertices`]; the hierarchy is then unchanged.
    pub fn set_vertices(&mut self, vertices: Vec<Point>) -> Result<(), MeshError> {
        Arc::make_mut(&mut self.mesh).set_vertices(vertices)?;
        self.refit();
        Ok(())
    }

    /// Checks the invariants: `2n − 1` nodes, children after parents and in range, every
    /// triangle in exactly one leaf, each leaf's copy of its triangle equal to the mesh's, every
    /// volume well formed, and every node containing every
    /// vertex of every triangle below it (evaluated on the stored single-precision numbers, in
    /// the volume frame).
    ///
    /// # Errors
    /// The first broken invariant, as a [`BvhError`] naming the node.
    pub fn validate(&self) -> Result<(), BvhError> {
        let n = self.mesh.triangle_count();
        if self.nodes.len() != 2 * n - 1 {
            return Err(BvhError::NodeCount {
                nodes: self.nodes.len(),
                triangles: n,
            });
        }
        let mut seen = vec![0usize; n];
        // Triangles under each node, gathered bottom-up as index ranges of `order`.
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut range = vec![(0usize, 0usize); self.nodes.len()];
        for i in (0..self.nodes.len()).rev() {
            let node = &self.nodes[i];
            match node.children() {
                None => {
                    let slot = node.leaf_slot();
                    let t = self.leaf_ids.get(slot).map_or(usize::MAX, |&t| t as usize);
                    if t >= n {
                        return Err(BvhError::BadLeaves {
                            triangle: t,
                            count: 0,
                        });
                    }
                    if self.leaf_corners.get(slot) != Some(&self.mesh.triangle(t)) {
                        return Err(BvhError::StaleLeaf {
                            node: i,
                            triangle: t,
                        });
                    }
                    seen[t] += 1;
                    range[i] = (order.len(), order.len() + 1);
                    order.push(t as u32);
                }
                Some((l, r)) => {
                    for c in [l, r] {
                        if c <= i || c >= self.nodes.len() {
                            return Err(BvhError::BadChild { node: i, child: c });
                        }
                    }
                    let (a, b) = (range[l], range[r]);
                    let start = order.len();
                    order.extend_from_within(a.0..a.1);
                    order.extend_from_within(b.0..b.1);
                    range[i] = (start, order.len());
                }
            }
        }
        if let Some((t, &count)) = seen.iter().enumerate().find(|(_, c)| **c != 1) {
            return Err(BvhError::BadLeaves { triangle: t, count });
        }
        for (i, node) in self.nodes.iter().enumerate() {
            if !node.bv.well_formed() {
                return Err(BvhError::Malformed { node: i });
            }
            let (s, e) = range[i];
            for &t in &order[s..e] {
                for &v in &self.mesh.triangles()[t as usize] {
                    if !node
                        .bv
                        .contains(&(self.mesh.vertices()[v as usize] - self.origin))
                    {
                        return Err(BvhError::NotBounding {
                            node: i,
                            triangle: t as usize,
                            vertex: v as usize,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leaf's copy of its triangle that no longer matches the mesh is reported by
    /// [`Bvh::validate`], and [`Bvh::refit`] brings it back in step with the mesh.
    #[test]
    fn validate_catches_a_stale_leaf_copy() {
        let mesh = TriMesh::new(
            vec![
                Point::new(0.1, 0.2, 0.3),
                Point::new(1.7, -0.4, 0.25),
                Point::new(0.3, 1.9, -0.6),
                Point::new(-0.2, 0.35, 1.45),
            ],
            vec![[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]],
            "tetrahedron",
        )
        .unwrap();
        let mut tree = Bvh::<Obb>::build(mesh, &BuildOptions::default());
        tree.validate().unwrap();
        // Every slot holds its own triangle's corners.
        for (i, node) in tree.nodes().iter().enumerate() {
            if node.is_leaf() {
                let t = tree.leaf_triangle(i).unwrap() as usize;
                assert_eq!(tree.leaf_corners[node.leaf_slot()], tree.mesh().triangle(t));
            }
        }
        let leaf = (0..tree.nodes().len())
            .find(|&i| tree.nodes()[i].is_leaf())
            .unwrap();
        let slot = tree.nodes()[leaf].leaf_slot();
        let triangle = tree.leaf_ids[slot] as usize;
        tree.leaf_corners[slot][1].x += 0.5;
        assert_eq!(
            tree.validate(),
            Err(BvhError::StaleLeaf {
                node: leaf,
                triangle
            })
        );
        tree.refit();
        tree.validate().unwrap();
    }
}
