//! Self-intersection: every pair of triangles of one mesh that intersect beyond the corners
//! they share ([`triangles_self_intersect`]), found by walking the mesh's hierarchy against
//! itself.
//!
//! The start is the classical self-collision recursion (as in van den Bergen 1998, §4, for a
//! deforming mesh's AABB tree refitted each frame): the pairs of one node's subtree are its
//! children's own pairs and the pairs between them, so the one walk ([`super::traverse`]'s)
//! runs once for each internal node, from its two children, at the identity placement. Every
//! unordered pair of distinct leaves is met exactly once, below the node where their paths
//! part, and no node pair is tested twice.

use super::intersection::{Intersection, triangle_intersection};
use super::self_tri_tri::triangles_self_intersect;
use super::triangles::Triangles;
use super::walk::{Control, Counts, LeafPair, Parent, Visitor, Walk};
use crate::bv::{BoundingVolume, OverlapOptions};
use crate::bvh::Bvh;
use crate::math::{Matrix3, Vector};
use crate::mesh::TriMesh;

/// Options of [`self_intersections`]; the default: the default volume tests, no curves, one
/// thread.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfIntersectionOptions {
    /// The volume tests' options (ε, SAT lite, leaf triangles), as for two meshes.
    pub overlap: OverlapOptions,
    /// Also compute each pair's intersection ([`triangle_intersection`]): the curve's pieces.
    pub curves: bool,
    /// Walk on the threads of the current rayon pool (feature `parallel`; ignored without
    /// it). The report is the same either way.
    pub parallel: bool,
}

/// The answer of [`self_intersections`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfIntersectionReport {
    /// The intersecting pairs `(ta, tb)`, mesh triangle indices (file order) with `ta < tb`,
    /// sorted.
    pub pairs: Vec<(u32, u32)>,
    /// With [`SelfIntersectionOptions::curves`], each pair's intersection (same order as
    /// `pairs`, the mesh's frame); empty otherwise.
    pub curves: Vec<Intersection>,
    /// N_v: bounding volume pair tests.
    pub bv_tests: u64,
    /// N_p: triangle pair tests.
    pub tri_tests: u64,
}

impl SelfIntersectionReport {
    /// Whether the mesh passes through itself anywhere.
    pub fn intersecting(&self) -> bool {
        !self.pairs.is_empty()
    }
}

/// Every pair of triangles of `tree`'s mesh that intersect beyond the corner positions they
/// share (exact: [`triangles_self_intersect`]), with the counts of eq. (1). Works with any tree
/// type; an AABB tree refitted after the mesh deforms ([`Bvh::refit`]) is the deforming-mesh
/// case (van den Bergen 1998, §4). Cost: one volume test per internal node plus the walks
/// between sibling subtrees, which meet every pair of neighbouring triangles.
///
/// # Examples
/// Three triangles: the second passes through the first, and so does the third, which shares a
/// corner with the first and an edge with the second (that pair meets only along it):
/// ```
/// use obbtree::prelude::*;
/// use obbtree::query::{SelfIntersectionOptions, self_intersections};
/// let v = vec![Point::new(0., 0., 0.), Point::new(2., 0., 0.), Point::new(0., 2., 0.),
///              Point::new(0.5, 0.5, -1.), Point::new(0.5, 0.6, 1.), Point::new(0.6, 0.5, 1.)];
/// let sheet = TriMesh::new(v, vec![[0, 1, 2], [3, 4, 5], [0, 3, 4]], "sheet").unwrap();
/// let tree = Bvh::<Aabb>::build(sheet, &BuildOptions::default());
/// let report = self_intersections(&tree, &SelfIntersectionOptions::default());
/// assert_eq!(report.pairs, vec![(0, 1), (0, 2)]);
/// ```
pub fn self_intersections<B: BoundingVolume>(
    tree: &Bvh<B>,
    options: &SelfIntersectionOptions,
) -> SelfIntersectionReport {
    let internal: Vec<(usize, usize)> = tree
        .nodes()
        .iter()
        .filter_map(|node| node.children())
        .collect();
    let (mut pairs, counts) = walk_parallel(tree, &internal, options);
    for pair in &mut pairs {
        if pair.0 > pair.1 {
            *pair = (pair.1, pair.0);
        }
    }
    pairs.sort_unstable();
    let curves = if options.curves {
        let mesh = tree.mesh();
        pairs
            .iter()
            .map(|&(a, b)| {
                triangle_intersection(&mesh.triangle(a as usize), &mesh.triangle(b as usize))
            })
            .collect()
    } else {
        Vec::new()
    };
    SelfIntersectionReport {
        pairs,
        curves,
        bv_tests: counts.bv_tests,
        tri_tests: counts.tri_tests,
    }
}

/// The walks from the children `(left, right)` of each of `internal`'s nodes, on one thread.
fn walk_all<B: BoundingVolume>(
    tree: &Bvh<B>,
    internal: &[(usize, usize)],
    options: &SelfIntersectionOptions,
) -> (Vec<(u32, u32)>, Counts) {
    let mut walk = Walk::new(
        tree,
        tree,
        &Matrix3::identity(),
        &Vector::zeros(),
        &options.overlap,
        0.0,
        false,
    );
    let mut visitor = SelfContacts { pairs: Vec::new() };
    for &(left, right) in internal {
        walk.pair(&mut visitor, left, right, None, Parent::None);
    }
    (visitor.pairs, walk.counts())
}

/// [`walk_all`] on the current rayon pool's threads in chunks of internal nodes, the results
/// joined in chunk order.
#[cfg(feature = "parallel")]
fn walk_parallel<B: BoundingVolume>(
    tree: &Bvh<B>,
    internal: &[(usize, usize)],
    options: &SelfIntersectionOptions,
) -> (Vec<(u32, u32)>, Counts) {
    use rayon::prelude::*;
    let threads = rayon::current_num_threads();
    if !options.parallel || threads < 2 || internal.len() < 1024 {
        return walk_all(tree, internal, options);
    }
    let chunk = internal.len().div_ceil(8 * threads);
    let parts: Vec<_> = internal
        .par_chunks(chunk)
        .map(|nodes| walk_all(tree, nodes, options))
        .collect();
    let mut counts = Counts::default();
    let mut pairs = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    for (p, c) in parts {
        pairs.extend(p);
        counts.bv_tests += c.bv_tests;
        counts.tri_tests += c.tri_tests;
    }
    (pairs, counts)
}

#[cfg(not(feature = "parallel"))]
fn walk_parallel<B: BoundingVolume>(
    tree: &Bvh<B>,
    internal: &[(usize, usize)],
    options: &SelfIntersectionOptions,
) -> (Vec<(u32, u32)>, Counts) {
    walk_all(tree, internal, options)
}

/// The self-intersection visitor: tests each leaf pair of one mesh with the shared-corner rule.
struct SelfContacts {
    pairs: Vec<(u32, u32)>,
}

impl<B: BoundingVolume> Visitor<B> for SelfContacts {
    const HEARS_PAIRS: bool = false;

    #[inline(always)]
    fn leaves(&mut self, pair: LeafPair, triangles: &mut Triangles<'_>) -> Control {
        // A and B are the one tree: both leaves' corners in its model frame.
        let p = triangles.corners_a(pair.slot_a);
        let q = triangles.corners_b(pair.slot_b);
        if triangles_self_intersect(&p, &q) {
            self.pairs.push(triangles.indices(pair.slot_a, pair.slot_b));
        }
        Control::Continue
    }
}

/// Every pair `(ta, tb)`, `ta < tb`, of `mesh`'s triangles that intersect beyond the corners
/// they share, by testing every pair with [`triangles_self_intersect`]: the oracle of
/// [`self_intersections`]. Sorted. Cost `O(n²)`.
pub fn self_brute_force(mesh: &TriMesh) -> Vec<(u32, u32)> {
    let n = mesh.triangle_count();
    let tris: Vec<_> = (0..n).map(|i| mesh.triangle(i)).collect();
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if triangles_self_intersect(&tris[i], &tris[j]) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}
