//! The one traversal of the bounding-volume test tree (Gottschalk et al. 1996, §3; van den
//! Bergen 1998, §3): an explicit-stack, depth-first walk over node pairs of two hierarchies,
//! driven by a [`Visitor`] that decides at leaf pairs and hears of every other pair.
//!
//! The walk owns the stack, the placement of B's volumes in A's frame, the volume tests and the
//! counts of eq. (1); a query is a visitor ([`super::contacts`], [`super::trace`],
//! [`super::separation`]) or a start ([`super::separation`], [`super::parallel`]).

use super::dispatch;
use super::triangles::Triangles;
use crate::bv::sat::batch::BATCH;
use crate::bv::sat::box_triangle::LaneTriangle;
use crate::bv::sat::lanes::Wide;
use crate::bv::{BoundingVolume, BvKind, OverlapOptions};
use crate::bvh::{Bvh, Node};
use crate::math::{Matrix3, Real, Vector, transform_point};
use std::mem::MaybeUninit;

/// What a visitor tells the walk after a leaf pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Go on with the next pair.
    Continue,
    /// End the walk: the pairs still pending are handed to [`Visitor::skipped`].
    Stop,
}

/// A pair of leaves whose volumes overlap: nodes `a` of A and `b` of B (indices into
/// [`Bvh::nodes`]) and their leaf slots (indices for [`Triangles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafPair {
    /// Node of A.
    pub a: u32,
    /// Node of B.
    pub b: u32,
    /// A's leaf slot.
    pub slot_a: usize,
    /// B's leaf slot.
    pub slot_b: usize,
}

/// A query on the walk: it decides at each leaf pair and hears of every other pair.
///
/// Every pair the walk meets reaches exactly one of [`Visitor::disjoint`], [`Visitor::leaves`]
/// (after [`Visitor::overlapping`]), [`Visitor::skipped`], or has its children met; the pairs
/// handed to `disjoint`, `leaves` and `skipped` form a complete cut of the recursion tree
/// (Li & Chen §4.1). The walk is monomorphised for each visitor: hooks left at their default
/// cost nothing.
pub trait Visitor<B: BoundingVolume> {
    /// Whether the visitor hears of the pairs that are not leaf pairs ([`Visitor::overlapping`],
    /// [`Visitor::disjoint`], [`Visitor::skipped`]). A visitor that only decides at leaf pairs
    /// sets it to `false`: the walk's loop then carries no hook at all (measured faster than
    /// empty hooks, docs/decisions.md, "Traversal").
    const HEARS_PAIRS: bool = true;
    /// Whether the visitor is a proximity query with a tolerance ([`Visitor::tolerance`]): the
    /// walk then also prunes the pairs of volumes that are surely farther apart than it (a
    /// test beyond the volumes' overlap test grown by the tolerance).
    const TOLERANCE: bool = false;
    /// Whether the visitor's tolerance can shrink during the walk: the walk then reads it again
    /// after each leaf pair (a distance query's bound). Implies [`Visitor::TOLERANCE`].
    const SHRINKING: bool = false;
    /// The distance (model units, finite, non-negative) within which two volumes count as
    /// overlapping: 0 for interference; a proximity query's tolerance or bound (PQP,
    /// Larsen et al. 1999, §4). Read when the walk starts and, where [`Visitor::SHRINKING`],
    /// after each leaf pair; a larger value than the last one read is ignored.
    #[inline(always)]
    fn tolerance(&self) -> Real {
        0.0
    }
    /// Whether, of two overlapping child pairs, the deeper (or nearer) goes first: a heuristic
    /// for queries that stop early (first contact). Read once when the walk starts.
    fn ordered(&self) -> bool {
        false
    }
    /// A pair whose volumes overlap, before the walk goes below it (leaf pairs included).
    #[inline(always)]
    fn overlapping(&mut self, a: u32, b: u32) {
        let _ = (a, b);
    }
    /// A pair whose volumes were found disjoint: nothing below it is visited.
    #[inline(always)]
    fn disjoint(&mut self, a: u32, b: u32) {
        let _ = (a, b);
    }
    /// A pair the walk leaves because the visitor stopped it, tested or not.
    #[inline(always)]
    fn skipped(&mut self, a: u32, b: u32) {
        let _ = (a, b);
    }
    /// A pair of leaves whose volumes overlap: one triangle test (N_p).
    fn leaves(&mut self, pair: LeafPair, triangles: &mut Triangles<'_>) -> Control;
}

/// The counts of the cost equation (Gottschalk et al. 1996, eq. (1)) for one walk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// N_v: volume pair tests.
    pub bv_tests: u64,
    /// N_p: leaf pairs handed to [`Visitor::leaves`].
    pub tri_tests: u64,
}

/// Walks `a` against `b` placed in A's frame by `x_a = rot_ab · x_b + pos_ab` from the root
/// pair, `visitor` deciding at the leaf pairs: the traversal behind every query, open for
/// queries of one's own. Volume tests follow `overlap` and are conservative (never "disjoint"
/// for volumes whose triangles touch). Returns the counts.
///
/// # Examples
/// Counting the overlapping leaf pairs, without a triangle test:
/// ```
/// use obbtree::prelude::*;
/// use obbtree::query::{Control, LeafPair, Triangles, Visitor, traverse};
/// struct Count(u32);
/// impl<B: BoundingVolume> Visitor<B> for Count {
///     fn leaves(&mut self, _: LeafPair, _: &mut Triangles<'_>) -> Control {
///         self.0 += 1;
///         Control::Continue
///     }
/// }
/// let tri = TriMesh::new(
///     vec![Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.)],
///     vec![[0, 1, 2]], "triangle").unwrap();
/// let a = ObbTree::build(tri, &BuildOptions::default());
/// let mut count = Count(0);
/// let counts = traverse(&a, &a, &Matrix3::identity(), &Vector::zeros(),
///                       &Default::default(), &mut count);
/// assert_eq!((count.0, counts.tri_tests), (1, 1));
/// ```
pub fn traverse<B: BoundingVolume, V: Visitor<B>>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    overlap: &OverlapOptions,
    visitor: &mut V,
) -> Counts {
    let tolerance = visitor.tolerance();
    let mut walk = Walk::new(a, b, rot_ab, pos_ab, overlap, tolerance, visitor.ordered());
    walk.root(visitor);
    walk.counts()
}

/// `rot_ab · origin_b + pos_ab − origin_a`: B's volume frame placed in A's.
#[inline]
fn volume_translation<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
) -> Vector {
    rot_ab * b.origin() + pos_ab - a.origin()
}

/// A bound (with a factor 4 to spare) on the absolute rounding error, in any direction, of
/// placing B's corners in A's frame by [`transform_point`] and of placing B's volumes in A's
/// volume frame: a few units in the last place of the largest coordinates involved.
#[inline]
fn placement_margin<B: BoundingVolume>(a: &Bvh<B>, b: &Bvh<B>, pos_ab: &Vector) -> Real {
    64.0 * Real::EPSILON * (a.reach() + b.reach() + pos_ab.amax())
}

/// The per-query constants of the volume tests of `a` against `b` placed in A's frame by
/// `(rot_ab, pos_ab)` (model frames): the pose between the volume frames and the margin that
/// covers the rounding of placing coordinates as large as the models' (see
/// [`super::collide_with`]).
pub(crate) fn volume_query<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    overlap: &OverlapOptions,
) -> B::Query {
    B::prepare(
        rot_ab,
        &volume_translation(a, b, rot_ab, pos_ab),
        placement_margin(a, b, pos_ab),
        b.center_reach(),
        overlap,
    )
}

/// Beyond this distance between the volume frames, single-precision volume tests could
/// overflow; the bounding spheres decide.
const FAR: Real = 1e35;

/// Which node of a pair's parent pair was split to make it: it decides which leaf's triangle
/// stands for its volume ([`Walk::overlaps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(super) enum Parent {
    /// The root pair or a pair a query starts from.
    None,
    /// A's node was split: B's node, if a leaf, is tested by its triangle.
    SplitA,
    /// B's node was split: A's node, if a leaf, is tested by its triangle.
    SplitB,
}

/// A pair of the walk waiting its turn: nodes `a` of A and `b` of B, B's node placed in A's
/// frame at `placed` in the arena, whose boxes below `height` stay live while the pair waits;
/// `overlaps` is the result of the pair's volume test, made at the visitor's tolerance of
/// `epoch` ([`Walk::next_pending`]).
#[derive(Clone, Copy)]
pub(super) struct Pending {
    a: u32,
    b: u32,
    placed: u32,
    height: u32,
    overlaps: bool,
    epoch: u8,
}

/// The walk's storage on the machine stack: pending pairs and placed boxes (128 bytes each for
/// OBBs: 16 KiB). Enough for hierarchies up to depth 63 each; deeper ones allocate.
const WALK_STACK: usize = 128;
const WALK_ARENA: usize = 128;

/// The items the walk's stack and arena need for hierarchies of depths `depth_a`, `depth_b`
/// ([`Bvh::depth`]): one pending pair per split above a pair plus the one a split pushes
/// (`depth_a + depth_b`); B's placed box at the start and two per split of B above it
/// (`2 depth_b + 1`). Both bounds are reached by a model against itself at the identity.
fn walk_bounds(depth_a: usize, depth_b: usize) -> (usize, usize) {
    (depth_a + depth_b, 2 * depth_b + 1)
}

/// What lies below an overlapping pair ([`Walk::expand`]).
#[cfg(feature = "parallel")]
pub(super) enum Below {
    /// The volumes are disjoint.
    Nothing,
    /// Two leaves (nodes of A, B).
    Leaves(usize, usize),
    /// The two child pairs, in the walk's order, and the node split.
    Pairs([(usize, usize); 2], Parent),
}

/// One walk's state: the two hierarchies, B's placement in A's frame, the leaf triangles and
/// the counts.
pub(super) struct Walk<'a, B: BoundingVolume> {
    na: &'a [Node<B>],
    nb: &'a [Node<B>],
    query: B::Query,
    /// The leaves' triangles, B's placed in A's frame for the leaf tests.
    triangles: Triangles<'a>,
    /// Order overlapping child pairs ([`Visitor::ordered`]).
    ordered: bool,
    /// The instructions of the paired box tests ([`Wide::detect`]).
    #[cfg_attr(not(simd_x86), allow(dead_code))]
    pub(super) wide: Wide,
    /// The models' bounding spheres are disjoint and too far apart for single precision.
    far: bool,
    depth_a: usize,
    depth_b: usize,
    /// A leaf's triangle stands for its box against the other model's internal nodes
    /// ([`OverlapOptions::leaf_triangles`], where the volume type has the test).
    leaf_triangles: bool,
    /// A's volume frame's origin, in A's model frame.
    origin_a: Vector,
    /// What the volume tests were prepared from ([`Walk::shrink`]): B's volume frame placed in
    /// A's, the placement margin, B's centre reach, the options and the visitor's tolerance.
    pos_v: Vector,
    margin: Real,
    center_reach: Real,
    overlap: OverlapOptions,
    tolerance: Real,
    /// How many times the tolerance shrank (wrapping): the epoch of pending pairs' tests.
    epoch: u8,
    /// The leaf slots of A and of B whose triangles were last laid out for box–triangle tests,
    /// and those triangles (A's volume frame).
    tri_a: (usize, LaneTriangle),
    tri_b: (usize, LaneTriangle),
    bv_tests: u64,
    tri_tests: u64,
}

impl<'a, B: BoundingVolume> Walk<'a, B> {
    /// A walk of `a` against `b` placed in A's frame by `(rot_ab, pos_ab)`.
    pub(super) fn new(
        a: &'a Bvh<B>,
        b: &'a Bvh<B>,
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        overlap: &OverlapOptions,
        tolerance: Real,
        ordered: bool,
    ) -> Self {
        let pos_v = volume_translation(a, b, rot_ab, pos_ab);
        let margin = placement_margin(a, b, pos_ab);
        let far = pos_v.amax() > FAR
            && pos_v.norm() > (a.radius() + b.radius()) * (1.0 + 1e-9) + margin + tolerance;
        Walk {
            na: a.nodes(),
            nb: b.nodes(),
            query: B::prepare(
                rot_ab,
                &pos_v,
                margin + tolerance,
                b.center_reach(),
                overlap,
            ),
            triangles: Triangles::new(a, b, rot_ab, pos_ab),
            ordered,
            wide: Wide::detect(),
            far,
            depth_a: a.depth(),
            depth_b: b.depth(),
            leaf_triangles: B::TRIANGLE_TESTS && overlap.leaf_triangles,
            origin_a: a.origin(),
            pos_v,
            margin,
            center_reach: b.center_reach(),
            overlap: *overlap,
            tolerance,
            epoch: 0,
            tri_a: (usize::MAX, LaneTriangle::NONE),
            tri_b: (usize::MAX, LaneTriangle::NONE),
            bv_tests: 0,
            tri_tests: 0,
        }
    }

    /// Volumes count as overlapping within `tolerance` from now on, if it is less than the
    /// walk's: the volume tests are prepared anew. Volumes of B placed before keep the larger
    /// tolerance (conservative: they prune less).
    #[cold]
    fn shrink(&mut self, tolerance: Real) {
        self.tolerance = tolerance;
        self.epoch = self.epoch.wrapping_add(1);
        let rot_ab = self.triangles.placement().0;
        let margin = self.margin + tolerance;
        self.query = B::prepare(
            rot_ab,
            &self.pos_v,
            margin,
            self.center_reach,
            &self.overlap,
        );
    }

    /// The counts so far.
    pub(super) fn counts(&self) -> Counts {
        Counts {
            bv_tests: self.bv_tests,
            tri_tests: self.tri_tests,
        }
    }

    /// Whether the models are too far apart for single-precision volume tests (and disjoint).
    pub(super) fn far(&self) -> bool {
        self.far
    }

    /// Tests the root pair and walks below it. Returns `true` if the visitor stopped the walk.
    pub(super) fn root<V: Visitor<B>>(&mut self, v: &mut V) -> bool {
        if self.far {
            // One volume test, decided by the bounding spheres in double precision.
            self.bv_tests += 1;
            v.disjoint(0, 0);
            false
        } else {
            self.pair(v, 0, 0, None, Parent::None)
        }
    }

    /// Places node `b` of B in A's frame.
    #[inline(always)]
    pub(super) fn place(&self, b: usize) -> B::Placed {
        B::place(&self.query, &self.nb[b].bv)
    }

    /// Tests the pair (a, b) (one volume test; `parent` says how the pair came about) and walks
    /// below it if the volumes overlap; `pb` is node b already placed in A's frame, if it is.
    /// Returns `true` if the visitor stopped the walk.
    #[inline(always)]
    pub(super) fn pair<V: Visitor<B>>(
        &mut self,
        v: &mut V,
        a: usize,
        b: usize,
        pb: Option<&B::Placed>,
        parent: Parent,
    ) -> bool {
        let placed;
        let pb = match pb {
            Some(pb) => pb,
            None => {
                placed = self.place(b);
                &placed
            }
        };
        self.bv_tests += 1;
        if self.overlaps(a, b, pb, parent) {
            self.descend(v, a, b, pb)
        } else {
            v.disjoint(a as u32, b as u32);
            false
        }
    }

    /// Whether the pair (a, b), met where a query starts, is tested as two volumes (not by a
    /// leaf's triangle), so that [`Walk::overlaps_batch`] gives its verdict.
    #[inline(always)]
    pub(super) fn volumes_only(&self, a: usize, b: usize) -> bool {
        !(self.leaf_triangles && self.na[a].is_leaf() != self.nb[b].is_leaf())
    }

    /// The volume tests of the first `n` (1 to [`BATCH`]) of `pairs` at once
    /// ([`BoundingVolume::overlaps_batch`]): bit `k` says whether `pairs[k]` overlap. Not
    /// counted: the count is [`Walk::tested`]'s.
    #[inline]
    pub(super) fn overlaps_batch(&self, pairs: &[(u32, u32); BATCH], n: usize) -> u8 {
        debug_assert!((1..=BATCH).contains(&n));
        let at = |k: usize| pairs[k.min(n - 1)];
        let a = std::array::from_fn(|k| &self.na[at(k).0 as usize].bv);
        let b = std::array::from_fn(|k| &self.nb[at(k).1 as usize].bv);
        B::overlaps_batch(&self.query, &a, &b, self.wide)
    }

    /// [`Walk::pair`] for a pair whose volume test was already made ([`Walk::overlaps_batch`]).
    #[inline]
    pub(super) fn tested<V: Visitor<B>>(
        &mut self,
        v: &mut V,
        a: usize,
        b: usize,
        overlaps: bool,
    ) -> bool {
        self.bv_tests += 1;
        if overlaps {
            let pb = self.place(b);
            self.descend(v, a, b, &pb)
        } else {
            v.disjoint(a as u32, b as u32);
            false
        }
    }

    /// One volume test of the pair (a, b), `pb` node b placed in A's frame, made as the walk
    /// makes it: from a split of A with B's node a leaf, B's triangle stands for its volume;
    /// from a split of B with A's node a leaf, A's triangle; for a pair a query starts from,
    /// the triangle of a leaf met with an internal node.
    #[inline(always)]
    fn overlaps(&mut self, a: usize, b: usize, pb: &B::Placed, parent: Parent) -> bool {
        let (na, nb) = (self.na, self.nb);
        let (leaf_a, leaf_b) = (na[a].is_leaf(), nb[b].is_leaf());
        let by_triangle_of_a = match parent {
            Parent::SplitA => Some(false),
            Parent::SplitB => Some(true),
            Parent::None => (leaf_a != leaf_b).then_some(leaf_a),
        };
        let wide = self.wide;
        match by_triangle_of_a {
            Some(true) if self.triangle_a(&na[a]) => {
                B::triangle_overlaps_placed_pair(&self.query, [pb, pb], &self.tri_a.1, wide)[0]
            }
            Some(false) if self.triangle_b(&nb[b]) => {
                let bv = &na[a].bv;
                B::triangle_overlaps_pair(&self.query, [bv, bv], &self.tri_b.1, wide)[0]
            }
            _ => B::overlaps(&self.query, &na[a].bv, pb),
        }
    }

    /// Whether `node` of A is a leaf whose triangle stands for its volume; the triangle is then
    /// laid out in `tri_a` (kept while it is the same leaf).
    #[inline(always)]
    fn triangle_a(&mut self, node: &Node<B>) -> bool {
        if !(self.leaf_triangles && node.is_leaf()) {
            return false;
        }
        let sa = node.leaf_slot();
        if self.tri_a.0 != sa {
            let o = self.origin_a;
            self.tri_a = (
                sa,
                LaneTriangle::new(&self.triangles.corners_a(sa).map(|p| p - o)),
            );
        }
        self.tri_a.1.usable
    }

    /// As [`Walk::triangle_a`] for a `node` of B, its triangle placed in A's volume frame.
    #[inline(always)]
    fn triangle_b(&mut self, node: &Node<B>) -> bool {
        if !(self.leaf_triangles && node.is_leaf()) {
            return false;
        }
        let sb = node.leaf_slot();
        if self.tri_b.0 != sb {
            let o = self.origin_a;
            let (rot, pos) = self.triangles.placement();
            let t = self
                .triangles
                .corners_b(sb)
                .map(|x| transform_point(rot, pos, &x) - o);
            self.tri_b = (sb, LaneTriangle::new(&t));
        }
        self.tri_b.1.usable
    }

    /// One volume test of the pair (a, b) and what lies below it, without going there (the
    /// same test and descend rule as the walk): [`super::parallel`]'s frontier.
    #[cfg(feature = "parallel")]
    pub(super) fn expand(&mut self, a: usize, b: usize, parent: Parent) -> Below {
        let pb = self.place(b);
        self.bv_tests += 1;
        if !self.overlaps(a, b, &pb, parent) {
            return Below::Nothing;
        }
        let (node_a, node_b) = (&self.na[a], &self.nb[b]);
        match (node_a.children(), node_b.children()) {
            (None, None) => Below::Leaves(a, b),
            (Some((al, ar)), Some(_)) if node_a.bv.size() >= node_b.bv.size() => {
                Below::Pairs([(al, b), (ar, b)], Parent::SplitA)
            }
            (Some((al, ar)), None) => Below::Pairs([(al, b), (ar, b)], Parent::SplitA),
            (_, Some((bl, br))) => Below::Pairs([(a, bl), (a, br)], Parent::SplitB),
        }
    }

    /// The triangle test of the leaf pair (a, b) by the visitor (one N_p). Returns `true` if
    /// the visitor stopped the walk. Not inlined: the visitor's code (exact tests in double
    /// precision, storing contacts) stays out of the walk's loop and is compiled for any CPU,
    /// not widened in the AVX-512 compilation ([`super::dispatch`]).
    #[inline(never)]
    pub(super) fn leaves<V: Visitor<B>>(&mut self, v: &mut V, a: u32, b: u32) -> bool {
        self.tri_tests += 1;
        let pair = LeafPair {
            a,
            b,
            slot_a: self.na[a as usize].leaf_slot(),
            slot_b: self.nb[b as usize].leaf_slot(),
        };
        let stop = v.leaves(pair, &mut self.triangles) == Control::Stop;
        if V::SHRINKING && v.tolerance() < self.tolerance {
            self.shrink(v.tolerance());
        }
        stop
    }

    /// Walks below the overlapping pair (a, b); `pb` is node b placed in A's frame. The walk's
    /// storage is on the machine stack when the hierarchies are shallow enough (the usual
    /// case), else allocated for this call. Returns `true` if the visitor stopped the walk.
    #[inline(always)]
    fn descend<V: Visitor<B>>(&mut self, v: &mut V, a: usize, b: usize, pb: &B::Placed) -> bool {
        let (stack_len, arena_len) = walk_bounds(self.depth_a, self.depth_b);
        if stack_len <= WALK_STACK && arena_len <= WALK_ARENA {
            let mut stack = [MaybeUninit::<Pending>::uninit(); WALK_STACK];
            let mut arena = [MaybeUninit::<B::Placed>::uninit(); WALK_ARENA];
            self.below(v, a, b, pb, &mut stack, &mut arena).on_cpu()
        } else {
            let mut stack = Vec::<Pending>::with_capacity(stack_len);
            let mut arena = Vec::<B::Placed>::with_capacity(arena_len);
            let (stack, arena) = (stack.spare_capacity_mut(), arena.spare_capacity_mut());
            self.below(v, a, b, pb, stack, arena).on_cpu()
        }
    }

    /// The walk below the overlapping pair (a, b) on `stack` and `arena` (at least
    /// [`walk_bounds`] items each; the walk's writes are checked: less panics), ready to run:
    /// B's node `b` placed in A's frame (`pb`) is copied to `arena[0]` here, not in the walk
    /// (see [`dispatch`]'s AVX-512 compilation).
    #[inline(always)]
    fn below<'w, V: Visitor<B>>(
        &'w mut self,
        v: &'w mut V,
        a: usize,
        b: usize,
        pb: &B::Placed,
        stack: &'w mut [MaybeUninit<Pending>],
        arena: &'w mut [MaybeUninit<B::Placed>],
    ) -> WalkBelow<'w, 'a, B, V> {
        arena[0].write(*pb);
        WalkBelow {
            walk: self,
            visitor: v,
            a,
            b,
            stack,
            arena,
        }
    }

    /// The walk below the overlapping pair (a, b), depth first (an explicit stack): a pair of
    /// leaves goes to the visitor; otherwise the descend rule (RAPID's: split B if A is a leaf,
    /// or if B is not and its volume is larger, [`BoundingVolume::size`]) picks the node to
    /// split and both child pairs are tested together ([`Walk::split_a`], [`Walk::split_b`]).
    /// The walk goes on with the first child pair if it overlaps while the second waits on
    /// `stack` with its test's result, looked at only when it is taken up again (a branch on a
    /// result long known; see docs/decisions.md, "traversal"). B's children placed by a split of
    /// B stay in `arena` while pairs below them are pending.
    ///
    /// `stack` and `arena` hold at least [`walk_bounds`] items; the caller writes B's node `b`
    /// placed in A's frame to `arena[0]` ([`Walk::below`]). `AVX`: this copy of the walk runs in
    /// a function compiled for AVX2 ([`dispatch`]).
    #[inline(always)]
    pub(super) fn walk<V: Visitor<B>, const AVX: bool>(
        &mut self,
        v: &mut V,
        a: usize,
        b: usize,
        stack: &mut [MaybeUninit<Pending>],
        arena: &mut [MaybeUninit<B::Placed>],
    ) -> bool {
        let mut pair = Pending {
            a: a as u32,
            b: b as u32,
            placed: 0,
            height: 1,
            overlaps: true,
            epoch: 0,
        };
        let mut sp = 0usize;
        loop {
            // `pair` overlaps; its placed box and everything below `pair.height` are live.
            if V::HEARS_PAIRS {
                v.overlapping(pair.a, pair.b);
            }
            let (na, nb) = (self.na, self.nb);
            let (node_a, node_b) = (&na[pair.a as usize], &nb[pair.b as usize]);
            let split = match (node_a.children(), node_b.children()) {
                (None, None) => {
                    if self.leaves(v, pair.a, pair.b) {
                        Self::unwind(v, stack, sp);
                        return true;
                    }
                    match self.next_pending(v, stack, &mut sp) {
                        Some(next) => {
                            pair = next;
                            continue;
                        }
                        None => return false,
                    }
                }
                (Some(ca), Some(_)) if node_a.bv.size() >= node_b.bv.size() => (true, ca),
                (Some(ca), None) => (true, ca),
                (_, Some(cb)) => (false, cb),
            };
            // One call site for each split: the walk's code holds one copy of each.
            let (first, second, hit) = if split.0 {
                self.split_a::<V, AVX>(pair, split.1, node_b, arena)
            } else {
                self.split_b::<V, AVX>(pair, split.1, node_a, arena)
            };
            stack[sp].write(Pending {
                overlaps: hit[1],
                epoch: if V::SHRINKING { self.epoch } else { 0 },
                ..second
            });
            sp += 1;
            if hit[0] {
                pair = first;
                continue;
            }
            if V::HEARS_PAIRS {
                v.disjoint(first.a, first.b);
            }
            match self.next_pending(v, stack, &mut sp) {
                Some(next) => pair = next,
                None => return false,
            }
        }
    }

    /// Splits A's node of `pair` into its children `(al, ar)`: two volume tests against B's
    /// placed node (or, where B's node is a leaf, its triangle). Returns the child pairs in
    /// the walk's order and whether each overlaps.
    #[inline(always)]
    fn split_a<V: Visitor<B>, const AVX: bool>(
        &mut self,
        pair: Pending,
        (al, ar): (usize, usize),
        node_b: &Node<B>,
        arena: &[MaybeUninit<B::Placed>],
    ) -> (Pending, Pending, [bool; 2]) {
        let na = self.na;
        prefetch_children(na, al);
        prefetch_children(na, ar);
        self.bv_tests += 2;
        // SAFETY: `pair.placed` < `pair.height`: a live box.
        let pb = unsafe { arena.get_unchecked(pair.placed as usize).assume_init_ref() };
        let (bl, br) = (&na[al].bv, &na[ar].bv);
        let wide = dispatch::wide::<AVX>();
        let (mut hit, depth) = if self.triangle_b(node_b) {
            let t = &self.tri_b.1;
            (
                B::triangle_overlaps_pair(&self.query, [bl, br], t, wide),
                None,
            )
        } else {
            self.boxes_pair::<AVX>([bl, br], [pb, pb])
        };
        if V::TOLERANCE || V::SHRINKING {
            self.prune_far(&mut hit, depth, [bl, br], [pb, pb]);
        }
        let first = Pending {
            a: al as u32,
            ..pair
        };
        let second = Pending {
            a: ar as u32,
            ..pair
        };
        let second_nearer = self.ordered
            && hit[0]
            && hit[1]
            && depth.is_none()
            && sphere_power(br, br, pb) < sphere_power(bl, bl, pb);
        self.order(first, second, hit, depth, second_nearer)
    }

    /// Splits B's node of `pair` into its children `(bl, br)`, placed in A's frame on top of
    /// the arena: two volume tests against A's node (or, where A's node is a leaf, its
    /// triangle). Returns the child pairs in the walk's order and whether each overlaps.
    #[inline(always)]
    fn split_b<V: Visitor<B>, const AVX: bool>(
        &mut self,
        pair: Pending,
        (bl, br): (usize, usize),
        node_a: &Node<B>,
        arena: &mut [MaybeUninit<B::Placed>],
    ) -> (Pending, Pending, [bool; 2]) {
        let nb = self.nb;
        prefetch_children(nb, bl);
        prefetch_children(nb, br);
        let h = pair.height as usize;
        let wide = dispatch::wide::<AVX>();
        // Written in place (placed boxes are 128 bytes: they stay where they are made and are
        // passed by reference).
        let slot = &mut arena[h..h + 2];
        // SAFETY: `slot` is two consecutive items, as `[B::Placed; 2]` is laid out.
        let placed = unsafe {
            let slot = slot.as_mut_ptr() as *mut [B::Placed; 2];
            let both = B::place_pair(&self.query, [&nb[bl].bv, &nb[br].bv], wide);
            dispatch::write_unmerged(slot, both);
            &*slot
        };
        self.bv_tests += 2;
        let by_triangle = self.triangle_a(node_a);
        let bv_a = &node_a.bv;
        let (mut hit, depth) = if by_triangle {
            let t = &self.tri_a.1;
            let h =
                B::triangle_overlaps_placed_pair(&self.query, [&placed[0], &placed[1]], t, wide);
            (h, None)
        } else {
            self.boxes_pair::<AVX>([bv_a, bv_a], [&placed[0], &placed[1]])
        };
        if V::TOLERANCE || V::SHRINKING {
            self.prune_far(&mut hit, depth, [bv_a, bv_a], [&placed[0], &placed[1]]);
        }
        let height = pair.height + 2;
        let first = Pending {
            b: bl as u32,
            placed: h as u32,
            height,
            ..pair
        };
        let second = Pending {
            b: br as u32,
            placed: h as u32 + 1,
            height,
            ..pair
        };
        let second_nearer = self.ordered
            && hit[0]
            && hit[1]
            && depth.is_none()
            && sphere_power(&nb[br].bv, bv_a, &placed[1])
                < sphere_power(&nb[bl].bv, bv_a, &placed[0]);
        self.order(first, second, hit, depth, second_nearer)
    }

    /// The first-contact order: where the visitor orders and both child pairs overlap, the
    /// deeper one ([`BoundingVolume::overlaps_pair_depth`]) or, without depths, the one
    /// `second_nearer` names (computed by the caller only then, [`sphere_power`]) goes first.
    #[inline(always)]
    fn order(
        &self,
        first: Pending,
        second: Pending,
        hit: [bool; 2],
        depth: Option<[f32; 2]>,
        second_nearer: bool,
    ) -> (Pending, Pending, [bool; 2]) {
        let swap = self.ordered
            && hit[0]
            && hit[1]
            && match depth {
                Some(d) => d[1] > d[0],
                None => second_nearer,
            };
        if swap {
            (second, first, [hit[1], hit[0]])
        } else {
            (first, second, hit)
        }
    }

    /// The walk's paired volume test ([`BoundingVolume::overlaps_pair`]), with the depths an
    /// ordered walk goes by ([`BoundingVolume::overlaps_pair_depth`]; computed only there).
    #[inline(always)]
    fn boxes_pair<const AVX: bool>(
        &self,
        a: [&B; 2],
        b: [&B::Placed; 2],
    ) -> ([bool; 2], Option<[f32; 2]>) {
        let wide = dispatch::wide::<AVX>();
        if self.ordered {
            B::overlaps_pair_depth(&self.query, a, b, wide)
        } else {
            (B::overlaps_pair(&self.query, a, b, wide), None)
        }
    }

    /// Takes the pending pairs off the top of `stack` (`sp` items) until one overlaps and
    /// returns it, handing the disjoint ones to the visitor. `None` when none is left. Where the
    /// visitor's tolerance shrank since a pair was tested ([`Visitor::SHRINKING`]), the pair is
    /// tested again at the new tolerance (one more volume test, of the two volumes).
    #[inline(always)]
    fn next_pending<V: Visitor<B>>(
        &mut self,
        v: &mut V,
        stack: &[MaybeUninit<Pending>],
        sp: &mut usize,
    ) -> Option<Pending> {
        while *sp > 0 {
            *sp -= 1;
            // SAFETY: the first `sp` items were written.
            let pair = unsafe { stack.get_unchecked(*sp).assume_init() };
            if pair.overlaps && (!V::SHRINKING || pair.epoch == self.epoch || self.retest(pair)) {
                return Some(pair);
            }
            if V::HEARS_PAIRS {
                v.disjoint(pair.a, pair.b);
            }
        }
        None
    }

    /// The volume test of a pending pair again, at the walk's current tolerance.
    #[inline(never)]
    fn retest(&mut self, pair: Pending) -> bool {
        self.bv_tests += 1;
        let pb = self.place(pair.b as usize);
        let a = &self.na[pair.a as usize].bv;
        B::overlaps(&self.query, a, &pb) && !self.farther(a, &pb)
    }

    /// For a proximity query ([`Visitor::TOLERANCE`]): the overlapping child pairs whose volumes
    /// are surely farther apart than the tolerance ([`VolumeTests::farther_than`]) are pruned
    /// too.
    #[inline(always)]
    fn prune_far(
        &self,
        hit: &mut [bool; 2],
        depth: Option<[f32; 2]>,
        a: [&B; 2],
        b: [&B::Placed; 2],
    ) {
        // Boxes that reach into each other along every face axis by more than half the
        // tolerance are seldom pruned by it: the test is left out (docs/decisions.md,
        // "Proximity").
        let deep = depth.map_or([false; 2], |d| {
            d.map(|d| Real::from(d) >= 0.5 * self.tolerance)
        });
        for k in 0..2 {
            if hit[k] && !deep[k] && self.farther(a[k], b[k]) {
                hit[k] = false;
            }
        }
    }

    /// Whether volumes `a` and `b` (placed) are farther apart than the tolerance.
    #[inline(always)]
    fn farther(&self, a: &B, b: &B::Placed) -> bool {
        B::farther_than(&self.query, a, b, self.tolerance + self.margin)
    }

    /// The visitor stopped the walk: every pending pair, tested or not, goes to
    /// [`Visitor::skipped`], innermost first (as a recursion meets each level's untaken sibling
    /// as it returns).
    #[inline(always)]
    fn unwind<V: Visitor<B>>(v: &mut V, stack: &[MaybeUninit<Pending>], sp: usize) {
        if !V::HEARS_PAIRS {
            return;
        }
        for item in stack[..sp].iter().rev() {
            // SAFETY: the first `sp` items were written.
            let pair = unsafe { item.assume_init() };
            v.skipped(pair.a, pair.b);
        }
    }
}

/// The walk below an overlapping pair with its visitor and storage ([`Walk::below`]): the code
/// [`dispatch`] compiles for each instruction set.
struct WalkBelow<'w, 'a, B: BoundingVolume, V> {
    walk: &'w mut Walk<'a, B>,
    visitor: &'w mut V,
    a: usize,
    b: usize,
    stack: &'w mut [MaybeUninit<Pending>],
    arena: &'w mut [MaybeUninit<B::Placed>],
}

impl<B: BoundingVolume, V: Visitor<B>> WalkBelow<'_, '_, B, V> {
    /// Runs on the instructions the CPU has; AVX-512F/VL for OBB trees only.
    #[inline(always)]
    fn on_cpu(self) -> bool {
        let wide = self.walk.wide;
        dispatch::run_on(wide, B::KIND == BvKind::Obb, self)
    }
}

impl<B: BoundingVolume, V: Visitor<B>> dispatch::Compilable for WalkBelow<'_, '_, B, V> {
    #[inline(always)]
    fn run<const AVX: bool>(self) -> bool {
        let WalkBelow {
            walk,
            visitor,
            a,
            b,
            stack,
            arena,
        } = self;
        walk.walk::<V, AVX>(visitor, a, b, stack, arena)
    }
}

/// First-contact order of volumes without a depth (a leaf's triangle standing for its box; AABB
/// and sphere trees everywhere): the power of one volume's centre with respect to a sphere about
/// a child of the other (squared centre distance − [`BoundingVolume::order_radius2`]; negative
/// well inside). Of two overlapping children the one with the smaller power goes first: the
/// nearer, deeper or larger one. The sphere's fraction of a box's half diagonal was measured on
/// the benchmark cases (docs/decisions.md, "first-contact order").
#[inline(always)]
fn sphere_power<B: BoundingVolume>(sphere_of: &B, a: &B, b: &B::Placed) -> Real {
    B::center_distance2(a, b) - sphere_of.order_radius2()
}

/// Asks for the child pair of node `i` to be brought into cache while node `i` is being tested:
/// if the test passes, the walk reads those children next. A hint only; never faults.
#[inline(always)]
fn prefetch_children<B: BoundingVolume>(nodes: &[Node<B>], i: usize) {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (nodes, i);
    #[cfg(target_arch = "x86_64")]
    if let Some((c, _)) = nodes[i].children() {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = nodes.as_ptr().wrapping_add(c) as *const i8;
        // The pair spans 2 × size_of::<Node<B>>() bytes: touch each cache line of it.
        let bytes = 2 * std::mem::size_of::<Node<B>>();
        let mut off = 0;
        while off < bytes {
            // SAFETY: prefetching is a hint and does not fault, even on an invalid address.
            unsafe { _mm_prefetch(p.wrapping_add(off), _MM_HINT_T0) };
            off += 64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::contacts::Contacts;
    use super::super::separation::Cut;
    use super::super::trace::Traced;
    use super::*;
    use crate::bv::{Aabb, Obb, Sphere};
    use crate::bvh::BuildOptions;
    use crate::mesh::TriMesh;
    use crate::query::{CollisionReport, QueryOptions};
    use dispatch::Compiled;
    use proptest::prelude::*;

    /// What a visitor under test leaves: the contacts and the pairs it recorded.
    type Outcome = (CollisionReport, Vec<(u32, u32)>);

    /// The walk from the root pair with `visitor`: as queries run it (storage on the machine
    /// stack), or with `exact`, below the root pair compiled as it says, on storage of exactly
    /// [`walk_bounds`] items, allocated (the path of hierarchies too deep for the machine
    /// stack). The walk's writes are bounds-checked, so too little storage panics.
    fn run<B: BoundingVolume, V: Visitor<B>>(
        a: &Bvh<B>,
        b: &Bvh<B>,
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        options: &QueryOptions,
        exact: Option<Compiled>,
        v: &mut V,
    ) -> Counts {
        let mut w = Walk::new(a, b, rot_ab, pos_ab, &options.overlap, 0.0, v.ordered());
        let Some(compiled) = exact else {
            w.root(v);
            return w.counts();
        };
        if w.far() {
            w.root(v);
            return w.counts();
        }
        let pb = w.place(0);
        w.bv_tests += 1;
        if w.overlaps(0, 0, &pb, Parent::None) {
            let (stack_len, arena_len) = walk_bounds(w.depth_a, w.depth_b);
            let mut stack = Vec::<Pending>::with_capacity(stack_len);
            let mut arena = Vec::<B::Placed>::with_capacity(arena_len);
            let stack = &mut stack.spare_capacity_mut()[..stack_len];
            let arena = &mut arena.spare_capacity_mut()[..arena_len];
            let wide = w.wide;
            let obb = B::KIND == crate::bv::BvKind::Obb;
            dispatch::run_compiled(compiled, wide, obb, w.below(v, 0, 0, &pb, stack, arena));
        } else {
            v.disjoint(0, 0);
        }
        w.counts()
    }

    /// The three recorders (none, traced, separation cut) over the contacts visitor.
    fn outcomes<B: BoundingVolume>(
        a: &Bvh<B>,
        b: &Bvh<B>,
        rot: &Matrix3,
        pos: &Vector,
        options: &QueryOptions,
        exact: Option<Compiled>,
    ) -> [Outcome; 3] {
        let report = |contacts: Vec<(u32, u32)>, c: Counts| CollisionReport {
            contacts,
            normals: Vec::new(),
            bv_tests: c.bv_tests,
            tri_tests: c.tri_tests,
        };
        let first = options.mode == crate::query::ContactMode::FirstContact;
        let mut plain = Contacts::with_storage(first, None, Vec::new());
        let c = run(a, b, rot, pos, options, exact, &mut plain);
        let plain = (report(plain.contacts, c), Vec::new());
        let mut traced = Traced::new(Contacts::with_storage(first, None, Vec::new()), Vec::new());
        let c = run(a, b, rot, pos, options, exact, &mut traced);
        let (inner, pairs) = traced.into_parts();
        let traced = (report(inner.contacts, c), pairs);
        let mut cut = Cut::new(Contacts::with_storage(first, None, Vec::new()), Vec::new());
        let c = run(a, b, rot, pos, options, exact, &mut cut);
        let (inner, pairs) = cut.into_parts();
        let cut = (report(inner.contacts, c), pairs);
        [plain, traced, cut]
    }

    /// Every mode on exact storage, with every compilation of the walk this CPU runs, gives the
    /// same contacts, counts and recorded pairs, in the same order, as the query itself.
    fn check<B: BoundingVolume>(a: &Bvh<B>, b: &Bvh<B>, rot: &Matrix3, pos: &Vector) {
        for options in [QueryOptions::default(), QueryOptions::first_contact()] {
            let expected = outcomes(a, b, rot, pos, &options, None);
            for c in dispatch::compilations() {
                assert_eq!(
                    outcomes(a, b, rot, pos, &options, Some(c)),
                    expected,
                    "{c:?}"
                );
            }
        }
    }

    fn soup() -> impl Strategy<Value = TriMesh> {
        prop::collection::vec(prop::array::uniform9(-1.0..1.0f64), 1..48).prop_map(|tris| {
            let vertices = tris
                .iter()
                .flat_map(|t| [0, 3, 6].map(|k| crate::math::Point::new(t[k], t[k + 1], t[k + 2])))
                .collect();
            let triangles = (0..tris.len() as u32)
                .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
                .collect();
            TriMesh::new(vertices, triangles, "soup").unwrap()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

        /// The walk's storage bound ([`walk_bounds`]) holds: with exactly that much (and the
        /// writes checked) every query runs as with the machine stack's, on OBB, AABB and
        /// sphere trees; each soup also against itself at the identity, where the walk reaches
        /// the deepest leaves of both trees together. Every compilation of the walk this CPU
        /// runs gives those results too.
        #[test]
        fn walk_fits_its_storage_bound(
            a in soup(),
            b in soup(),
            angles in prop::array::uniform3(-3.2..3.2f64),
            shift in prop::array::uniform3(-1.0..1.0f64),
        ) {
            let rot = crate::math::UnitQuaternion::from_euler_angles(angles[0], angles[1], angles[2])
                .to_rotation_matrix()
                .into_inner();
            let pos = Vector::new(shift[0], shift[1], shift[2]);
            let build = BuildOptions::default();
            let (oa, ob) = (Bvh::<Obb>::build(a.clone(), &build), Bvh::<Obb>::build(b.clone(), &build));
            check(&oa, &ob, &rot, &pos);
            check(&oa, &oa, &Matrix3::identity(), &Vector::zeros());
            let (aa, ab) = (Bvh::<Aabb>::build(a.clone(), &build), Bvh::<Aabb>::build(b.clone(), &build));
            check(&aa, &ab, &rot, &pos);
            check(&ab, &ab, &Matrix3::identity(), &Vector::zeros());
            let (sa, sb) = (Bvh::<Sphere>::build(a, &build), Bvh::<Sphere>::build(b, &build));
            check(&sa, &sb, &rot, &pos);
            check(&sa, &sa, &Matrix3::identity(), &Vector::zeros());
        }
    }
}
