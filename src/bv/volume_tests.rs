//! What the walk and the builder need of a volume beyond [`BoundingVolume`]: paired, batched
//! and box–triangle tests on SIMD lanes, the first-contact order, the descend rule's size, and
//! the builder's hull-reusing fit. Crate-private (a sealed supertrait of [`BoundingVolume`]).

use super::sat::batch::BATCH;
use super::sat::box_triangle::LaneTriangle;
use super::sat::lanes::Wide;
use super::{BoundingVolume, Fitted, Group};
use crate::math::Real;

/// A zero-sized marker aligned to a 64-byte cache line ([`VolumeTests::NodeAlign`]).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct CacheLine;

/// The walk's and the builder's tests of a volume (see the module). Every variant gives exactly
/// the answers of [`BoundingVolume::overlaps`] and [`BoundingVolume::place`] it stands for.
pub trait VolumeTests: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// A zero-sized type whose alignment a tree node takes ([`crate::bvh::Node`]): [`CacheLine`]
    /// for OBBs, whose nodes are one 64-byte cache line each; `()` for the smaller others.
    type NodeAlign: Copy + Send + Sync + std::fmt::Debug + 'static;
    /// Per-query constants ([`BoundingVolume::prepare`]).
    type Query: Send + Sync;
    /// A volume of B expressed in A's frame ([`BoundingVolume::place`]).
    type Placed: Copy;

    /// Whether volume `a` and volume `b` placed in A's frame by `q` are surely more than `d`
    /// (model units, the placement's rounding included by the caller) apart: the distance
    /// query's pruning test beside [`BoundingVolume::overlaps`] grown by `d` (Larsen et al.
    /// 1999, §4). `false` where the volume has no test beyond its overlap test.
    #[inline(always)]
    fn farther_than(q: &Self::Query, a: &Self, b: &Self::Placed, d: Real) -> bool {
        let _ = (q, a, b, d);
        false
    }

    /// [`BoundingVolume::fit`] that also gives `hull` the mesh indices of a superset of the
    /// vertices of the group's convex hull and, with `candidates` (mesh indices of some of the
    /// group's vertices that include its hull's, each once), may build the hull from those
    /// alone: the builder's bottom-up hulls. By default the fit itself and all the vertices.
    fn fit_with_hull(
        group: &Group<'_>,
        candidates: Option<&[u32]>,
        hull: &mut Vec<u32>,
    ) -> Fitted<Self>
    where
        Self: BoundingVolume,
    {
        let _ = candidates;
        hull.clear();
        hull.extend_from_slice(group.vertices);
        Self::fit(group)
    }
    /// [`BoundingVolume::fit`] of a group of two triangles or more whose one pass over the
    /// group's vertices also leaves, in `projections` (one row per vertex of
    /// [`Group::vertices`], in order), their projections on the volume's three split axes
    /// (lanes 0–2, longest first; the rest zero), and returns those projections' ranges: the
    /// binned split then needs no pass of its own. `None` where the volume has no such fit
    /// (all but OBBs with [`super::ObbFit::Dito`]).
    fn fit_projecting(
        group: &Group<'_>,
        projections: &mut Vec<[Real; 6]>,
    ) -> Option<(Fitted<Self>, [Real; 3], [Real; 3])> {
        let _ = (group, projections);
        None
    }
    /// Whether a leaf's triangle stands for its volume against the other model's internal
    /// nodes ([`VolumeTests::triangle_overlaps_pair`]).
    const TRIANGLE_TESTS: bool = false;
    /// Two tests of a leaf's triangle `t` (A's frame) against two volumes of A, `false` only
    /// where disjoint. The default proves nothing disjoint.
    #[inline(always)]
    fn triangle_overlaps_pair(
        query: &Self::Query,
        a: [&Self; 2],
        t: &LaneTriangle,
        wide: Wide,
    ) -> [bool; 2] {
        let _ = (query, a, t, wide);
        [true, true]
    }
    /// As [`VolumeTests::triangle_overlaps_pair`], against two placed volumes of B.
    #[inline(always)]
    fn triangle_overlaps_placed_pair(
        query: &Self::Query,
        b: [&Self::Placed; 2],
        t: &LaneTriangle,
        wide: Wide,
    ) -> [bool; 2] {
        let _ = (query, b, t, wide);
        [true, true]
    }
    /// `[place(b[0]), place(b[1])]`, exactly (`wide`: the instructions that may run,
    /// [`Wide::detect`]).
    #[inline(always)]
    fn place_pair(query: &Self::Query, b: [&Self; 2], wide: Wide) -> [Self::Placed; 2]
    where
        Self: BoundingVolume,
    {
        let _ = wide;
        [Self::place(query, b[0]), Self::place(query, b[1])]
    }
    /// `[overlaps(a[0], b[0]), overlaps(a[1], b[1])]`, exactly: a split tests both children
    /// (OBBs in one pass over eight lanes).
    #[inline(always)]
    fn overlaps_pair(
        query: &Self::Query,
        a: [&Self; 2],
        b: [&Self::Placed; 2],
        wide: Wide,
    ) -> [bool; 2]
    where
        Self: BoundingVolume,
    {
        let _ = wide;
        [
            Self::overlaps(query, a[0], b[0]),
            Self::overlaps(query, a[1], b[1]),
        ]
    }
    /// [`VolumeTests::overlaps_pair`] with, where the volume type measures it, how deep each
    /// pair overlaps (larger is deeper; compared only between the two): the first-contact order
    /// visits the deeper pair first. `None`: the order is [`VolumeTests::order_radius2`]'s.
    #[inline(always)]
    fn overlaps_pair_depth(
        query: &Self::Query,
        a: [&Self; 2],
        b: [&Self::Placed; 2],
        wide: Wide,
    ) -> ([bool; 2], Option<[f32; 2]>)
    where
        Self: BoundingVolume,
    {
        (Self::overlaps_pair(query, a, b, wide), None)
    }
    /// Whether [`VolumeTests::overlaps_batch`] is faster than one pair at a time.
    const BATCH_TESTS: bool = false;
    /// [`BATCH`] tests of independent pairs at once (a separation list's pairs, Li & Chen §4):
    /// bit `k` is `overlaps(query, a[k], &place(query, b[k]))`, exactly (`b[k]` in B's frame).
    fn overlaps_batch(query: &Self::Query, a: &[&Self; BATCH], b: &[&Self; BATCH], wide: Wide) -> u8
    where
        Self: BoundingVolume,
    {
        let _ = wide;
        let mut bits = 0;
        for k in 0..BATCH {
            bits |= u8::from(Self::overlaps(query, a[k], &Self::place(query, b[k]))) << k;
        }
        bits
    }
    /// The squared distance between the centres of `a` and of the placed `b` (A's frame).
    fn center_distance2(a: &Self, b: &Self::Placed) -> Real;
    /// The squared radius of the sphere about the volume's centre that stands for it in the
    /// first-contact order where no depth is measured: a sphere's own radius; for a box, a
    /// fraction of its squared half diagonal (docs/decisions.md, "first-contact order").
    fn order_radius2(&self) -> Real;
    /// The descend rule's size (the larger volume is split first): boxes their surface area,
    /// spheres their radius.
    fn size(&self) -> f32;
}

/// The least distance between two boxes over their corners and the sampled points: `a` and `b`
/// give a box's point (in A's frame) at `t` ∈ [−1, 1]³ of its half extents along its axes, and
/// `samples` pairs such coordinates. The oracle the pruning tests' property tests hold
/// [`VolumeTests::farther_than`] against (an upper bound of the boxes' distance).
#[cfg(test)]
pub(crate) fn sampled_least_distance(
    a: impl Fn([Real; 3]) -> crate::math::Point,
    b: impl Fn([Real; 3]) -> crate::math::Point,
    samples: &[([Real; 3], [Real; 3])],
) -> Real {
    let signs = |k: usize| [k & 1, k >> 1 & 1, k >> 2 & 1].map(|s| if s == 1 { 1.0 } else { -1.0 });
    let corners = (0..64).map(|k| (signs(k & 7), signs(k >> 3)));
    corners
        .chain(samples.iter().copied())
        .map(|(ta, tb)| (a(ta) - b(tb)).norm())
        .fold(Real::INFINITY, Real::min)
}
