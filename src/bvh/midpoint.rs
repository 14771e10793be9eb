//! Van den Bergen's AABB-tree build (1998, §2: split the box at its centre across its longest
//! axis, else the next; a triangle goes by the midpoint of its projection), from each
//! triangle's box computed once: a group's box is the union of its triangles' boxes, so no
//! group gathers its vertices. The same tree, node for node, as the general builder
//! ([`super::build`]) with [`SplitRule::BoxMidpoint`](super::SplitRule::BoxMidpoint) and AABBs;
//! about three times faster (bunny 66 → 23 ms; docs/decisions.md, "Self-intersection").

use super::{LEAF, Node};
use crate::bv::Aabb;
use crate::math::{Real, Vector};
use crate::mesh::TriMesh;
use std::mem::MaybeUninit;

/// Groups at least this large are split on two threads (as the general builder).
#[cfg(feature = "parallel")]
const PARALLEL_MIN: usize = 4096;

/// A triangle and its box, volume frame: the lowest and highest corner coordinates. Groups are
/// ranges of one array of these, reordered in place, so that a group's pass reads memory in
/// order.
#[derive(Clone, Copy)]
struct Item {
    lo: [Real; 3],
    hi: [Real; 3],
    triangle: u32,
}

/// Builds the node array of `mesh` with boxes in the volume frame whose origin (model frame) is
/// `origin`: nodes, depth and the triangle of each leaf (`LEAF | triangle` links, numbered into
/// slots by the caller), laid out as [`super::build`] lays them out.
pub(super) fn build(mesh: &TriMesh, origin: Vector, parallel: bool) -> (Vec<Node<Aabb>>, usize) {
    let n = mesh.triangle_count();
    let mut items: Vec<Item> = (0..n)
        .map(|t| {
            let c = mesh.triangle(t).map(|p| p - origin);
            Item {
                lo: std::array::from_fn(|k| c[0][k].min(c[1][k]).min(c[2][k])),
                hi: std::array::from_fn(|k| c[0][k].max(c[1][k]).max(c[2][k])),
                triangle: t as u32,
            }
        })
        .collect();
    let mut nodes: Vec<Node<Aabb>> = Vec::with_capacity(2 * n - 1);
    let spare = &mut nodes.spare_capacity_mut()[..2 * n - 1];
    let (root, below) = spare.split_at_mut(1);
    let build = Build {
        mesh,
        origin,
        parallel,
    };
    let depth = build.subtree(&mut items, &mut root[0], below, 1);
    // SAFETY: `subtree` initialised all 2n − 1 slots (as the general builder's `build_rec`).
    unsafe { nodes.set_len(2 * n - 1) };
    (nodes, depth)
}

/// What every group of one build reads.
struct Build<'a> {
    mesh: &'a TriMesh,
    origin: Vector,
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    parallel: bool,
}

impl Build<'_> {
    /// Builds the subtree of `tris` into `me` and `below` (`2·len − 2` slots, the first with
    /// index `base`); returns its depth.
    fn subtree(
        &self,
        tris: &mut [Item],
        me: &mut MaybeUninit<Node<Aabb>>,
        below: &mut [MaybeUninit<Node<Aabb>>],
        base: usize,
    ) -> usize {
        let (lo, hi) = tris.iter().fold(
            ([Real::INFINITY; 3], [Real::NEG_INFINITY; 3]),
            |(lo, hi), item| {
                (
                    std::array::from_fn(|k| lo[k].min(item.lo[k])),
                    std::array::from_fn(|k| hi[k].max(item.hi[k])),
                )
            },
        );
        let bv = Aabb::from_extremes(lo, hi);
        let n = tris.len();
        if n == 1 {
            me.write(Node {
                bv,
                link: LEAF | tris[0].triangle,
                align: [],
            });
            return 0;
        }
        let k = self.partition(tris, &bv);
        me.write(Node {
            bv,
            link: base as u32,
            align: [],
        });
        let (pair, rest) = below.split_at_mut(2);
        let (left_me, right_me) = pair.split_at_mut(1);
        let (left_below, right_below) = rest.split_at_mut(2 * k - 2);
        let (left_tris, right_tris) = tris.split_at_mut(k);
        let (left_base, right_base) = (base + 2, base + 2 + 2 * k - 2);
        let mut left = || self.subtree(left_tris, &mut left_me[0], left_below, left_base);
        let mut right = || self.subtree(right_tris, &mut right_me[0], right_below, right_base);
        #[cfg(feature = "parallel")]
        let (dl, dr) = if self.parallel && n >= PARALLEL_MIN {
            rayon::join(left, right)
        } else {
            (left(), right())
        };
        #[cfg(not(feature = "parallel"))]
        let (dl, dr) = (left(), right());
        1 + dl.max(dr)
    }

    /// Reorders `tris` so that the first `k` go left and returns `k` (`0 < k < len`): at the
    /// box's centre across its longest axis, else the next, a triangle going left if its box's
    /// midpoint is not beyond the cut; by count along the longest axis where no axis separates.
    fn partition(&self, tris: &mut [Item], bv: &Aabb) -> usize {
        let n = tris.len();
        let half = bv.half_extents();
        let mut order = [0usize, 1, 2];
        order.sort_by(|&i, &j| half[j].total_cmp(&half[i]));
        let center = bv.center();
        for axis in order {
            let cut = center[axis];
            // Branch-free (the sides are unpredictable): every item is swapped into place `k`,
            // which advances past the ones that go left. The groups' sets, hence the tree, do
            // not depend on the order within them (the split by count orders totally).
            let mut k = 0;
            for i in 0..n {
                let left = 0.5 * (tris[i].lo[axis] + tris[i].hi[axis]) <= cut;
                tris.swap(i, k);
                k += usize::from(left);
            }
            if k > 0 && k < n {
                return k;
            }
        }
        // No axis separates the midpoints: by count, the centroids along the longest axis.
        let axis = order[0];
        let centroid = |item: &Item| {
            let [a, b, c] = self
                .mesh
                .triangle(item.triangle as usize)
                .map(|p| p - self.origin);
            ((a.coords + b.coords + c.coords) / 3.0)[axis]
        };
        let half = n / 2;
        tris.select_nth_unstable_by(half, |x, y| {
            centroid(x)
                .total_cmp(&centroid(y))
                .then(x.triangle.cmp(&y.triangle))
        });
        half
    }
}
