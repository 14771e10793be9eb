//! The one traversal shared by OBB, AABB and sphere trees.

use super::{CollisionReport, ContactMode, QueryOptions, tri_tri::triangles_intersect_on};
use crate::bv::BoundingVolume;
use crate::bv::OverlapOptions;
use crate::bv::sat::batch::BATCH;
use crate::bv::sat::box_triangle::LaneTriangle;
use crate::bv::sat::lanes::Wide;
#[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
use crate::bv::sat::lanes::WideKind;
use crate::bvh::{Bvh, Node};
use crate::math::{Isometry, Matrix3, Point, Real, Vector, relative_pose, transform_point};
use crate::predicates::Plane;
use std::mem::MaybeUninit;

/// Finds the intersecting triangle pairs of two models placed in a common (world) frame.
///
/// `pose_a`, `pose_b` map each model's frame to the world. The query runs in A's frame with
/// `pose_ab = pose_a⁻¹ · pose_b` ([`collide_relative`]).
///
/// # Examples
/// ```
/// use obbtree::{bv::Obb, bvh::{Bvh, BuildOptions}, math::{Isometry, Point, Vector}, mesh::TriMesh,
///               query::{collide, QueryOptions}};
/// let tri = TriMesh::new(
///     vec![Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.)],
///     vec![[0, 1, 2]], "triangle").unwrap();
/// let a = Bvh::<Obb>::build(tri.clone(), &BuildOptions::default());
/// let b = Bvh::<Obb>::build(tri, &BuildOptions::default());
/// // B turned 90° about x and moved into A's plane: they cross.
/// let pose_b = Isometry::new(Vector::new(0.2, 0.2, -0.5), Vector::x() * std::f64::consts::FRAC_PI_2);
/// let report = collide(&a, &Isometry::identity(), &b, &pose_b, &QueryOptions::default());
/// assert_eq!(report.contacts, vec![(0, 0)]);
/// ```
pub fn collide<B: BoundingVolume>(
    a: &Bvh<B>,
    pose_a: &Isometry,
    b: &Bvh<B>,
    pose_b: &Isometry,
    options: &QueryOptions,
) -> CollisionReport {
    let mut report = CollisionReport::default();
    collide_into(a, pose_a, b, pose_b, options, &mut report);
    report
}

/// [`collide`] into a report that is cleared first and whose allocation is reused.
pub fn collide_into<B: BoundingVolume>(
    a: &Bvh<B>,
    pose_a: &Isometry,
    b: &Bvh<B>,
    pose_b: &Isometry,
    options: &QueryOptions,
    report: &mut CollisionReport,
) {
    let ab = relative_pose(pose_a, pose_b);
    let rot_ab = ab.rotation.to_rotation_matrix().into_inner();
    collide_relative(a, b, &rot_ab, &ab.translation.vector, options, report);
}

/// The query in A's frame: B placed by `x_a = rot_ab · x_b + pos_ab`.
///
/// Frames and rounding: triangles are tested in A's model frame on B's corners placed by
/// [`transform_point`] (exact predicates on those coordinates). Volumes are tested in the
/// hierarchies' volume frames ([`Bvh::origin`]), B's placed by [`volume_query`]; every placed
/// volume of B is grown by the absolute rounding error of placing coordinates as large as the
/// models' (`64 ε (reach_a + reach_b + |pos_ab|∞)`, [`Bvh::reach`]), so no volume test rejects a
/// pair whose placed triangles touch, wherever the models sit. Models farther apart than single
/// precision can express (beyond 1e35 between the volume frames) are decided by their bounding
/// spheres ([`Bvh::radius`]) in double precision: one volume test.
///
/// Descend rule (RAPID's, with surface area as the size): from an overlapping pair, split B if A
/// is a leaf or if B is not a leaf and B's volume is larger ([`BoundingVolume::size`]);
/// otherwise split A. Both child pairs of a split are tested together
/// ([`BoundingVolume::overlaps_pair`]: for OBBs one pass over eight lanes, on AVX2 where the
/// CPU has it), then the overlapping ones are visited; a first-contact query visits first the
/// child pair that overlaps deeper (OBBs, [`BoundingVolume::overlaps_pair_depth`]) or whose
/// centre is nearer the other volume's (other volumes, and a leaf's triangle standing for its
/// box): a heuristic, fewer tests before the first contact. Each child pair is one volume test
/// (N_v), so a first-contact query counts the second child pair of a split even when the first
/// one's subtree ends the query; each pair of
/// leaves whose volumes overlap is one triangle test (N_p). B's volumes are placed in A's frame once per visited node and reused for all tests
/// against it; AABB and sphere trees share the relative rotation for the whole query
/// (van den Bergen 1998, §3). The report is cleared first.
pub fn collide_relative<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    report: &mut CollisionReport,
) {
    run::<B, false, false>(a, b, rot_ab, pos_ab, options, report, &mut Vec::new());
}

/// [`collide_relative`] that also records every overlapping bounding volume pair
/// `(node of A, node of B)` (indices into [`Bvh::nodes`]), root pair included: the boxes the
/// query opened, for drawing (paper Fig. 9 style). `overlapped` is cleared first. The contacts
/// and counts are those of [`collide_relative`].
pub fn collide_traced<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    report: &mut CollisionReport,
    overlapped: &mut Vec<(u32, u32)>,
) {
    overlapped.clear();
    run::<B, true, false>(a, b, rot_ab, pos_ab, options, report, overlapped);
}

/// One query from the root pair. With `TRACE`, `out` receives the overlapping pairs; with
/// `CUT`, it receives the separation list (Li & Chen §4.1): the pairs below the cut of the
/// recursion tree, see [`Traversal::new`].
fn run<B: BoundingVolume, const TRACE: bool, const CUT: bool>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    report: &mut CollisionReport,
    out: &mut Vec<(u32, u32)>,
) {
    report.clear();
    let mut t = Traversal::<B, TRACE, CUT>::new(a, b, rot_ab, pos_ab, options, report, out);
    t.root();
}

/// [`collide_relative`] that hands every contact to `stop` as it is found and ends the query as
/// soon as `stop` returns `true` (the contacts found so far, that one included, are in the
/// report; the counts are those of the work done). With `stop` always `false` it is exactly
/// [`collide_relative`]. For queries that look for a contact of a kind, such as the
/// interpenetration check of a time-of-impact search.
pub fn collide_until<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    report: &mut CollisionReport,
    stop: &mut dyn FnMut(u32, u32) -> bool,
) {
    report.clear();
    let mut out = Vec::new();
    let mut t = Traversal::<B, false, false>::new(a, b, rot_ab, pos_ab, options, report, &mut out);
    t.stop = Some(stop);
    t.root();
}

/// The per-query constants of the volume tests of `a` against `b` placed in A's frame by
/// `x_a = rot_ab · x_b + pos_ab` (model frames): the pose between the volume frames,
/// `pos = rot_ab · origin_b + pos_ab − origin_a`, and the margin that covers the rounding of
/// placing coordinates as large as the models' (see [`collide_relative`]). For programs that
/// test volumes of two hierarchies directly ([`BoundingVolume::place`], [`BoundingVolume::overlaps`]).
pub fn volume_query<B: BoundingVolume>(
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

/// Beyond this distance between the volume frames, single-precision volume tests could
/// overflow; the bounding spheres decide.
const FAR: Real = 1e35;

pub(super) struct Traversal<'a, B: BoundingVolume, const TRACE: bool, const CUT: bool> {
    na: &'a [Node<B>],
    nb: &'a [Node<B>],
    /// The corners of each leaf slot's triangle, model frames ([`Bvh::leaf_triangle`]).
    corners_a: &'a [[Point; 3]],
    corners_b: &'a [[Point; 3]],
    /// The mesh triangle of each leaf slot.
    triangles_a: &'a [u32],
    triangles_b: &'a [u32],
    query: B::Query,
    rot_ab: Matrix3,
    pos_ab: Vector,
    first: bool,
    /// The instructions of the paired box tests ([`Wide::detect`]).
    #[cfg_attr(
        not(all(target_arch = "x86_64", not(feature = "portable-sat"))),
        allow(dead_code)
    )]
    wide: Wide,
    /// The models' bounding spheres are disjoint and too far apart for single precision.
    far: bool,
    /// The hierarchies' depths ([`Bvh::depth`]): they bound the walk's storage.
    depth_a: usize,
    depth_b: usize,
    /// Called with every contact found; `true` ends the query ([`collide_until`]).
    stop: Option<&'a mut dyn FnMut(u32, u32) -> bool>,
    report: &'a mut CollisionReport,
    /// The leaf slot of B last tested, its corners placed in A's frame and their plane: the
    /// walk often tests one triangle of B against several of A in a row.
    last_b: (usize, [Point; 3], Plane),
    /// TRACE: the overlapping pairs. CUT: the separation list being built.
    out: &'a mut Vec<(u32, u32)>,
    /// A leaf's triangle stands for its box against the other model's internal nodes
    /// ([`crate::bv::OverlapOptions::leaf_triangles`], where the volume type has the test).
    leaf_triangles: bool,
    /// A's volume frame's origin, in A's model frame (triangles are tested in the volume frame).
    origin_a: Vector,
    /// The leaf slots of A and of B whose triangles were last laid out for box–triangle tests,
    /// and those triangles (A's volume frame).
    tri_a: (usize, LaneTriangle),
    tri_b: (usize, LaneTriangle),
}

impl<'a, B: BoundingVolume, const TRACE: bool, const CUT: bool> Traversal<'a, B, TRACE, CUT> {
    /// A traversal of `a` against `b` placed in A's frame by `(rot_ab, pos_ab)`.
    ///
    /// With `CUT`, every pair of the recursion tree where the traversal stops is pushed to
    /// `out`: a pair whose volumes were found disjoint, a pair of leaves (whose triangles were
    /// tested) and, when a first-contact query ends early, each pair it had not yet tested.
    /// Those pairs always form a complete cut of the recursion tree (every path from the root
    /// pair to a leaf pair crosses exactly one of them), so a later query may start from them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        a: &'a Bvh<B>,
        b: &'a Bvh<B>,
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        options: &QueryOptions,
        report: &'a mut CollisionReport,
        out: &'a mut Vec<(u32, u32)>,
    ) -> Self {
        let pos_v = volume_translation(a, b, rot_ab, pos_ab);
        let margin = placement_margin(a, b, pos_ab);
        let far =
            pos_v.amax() > FAR && pos_v.norm() > (a.radius() + b.radius()) * (1.0 + 1e-9) + margin;
        Traversal {
            na: a.nodes(),
            nb: b.nodes(),
            corners_a: a.slot_corners(),
            corners_b: b.slot_corners(),
            triangles_a: a.slot_triangles(),
            triangles_b: b.slot_triangles(),
            query: B::prepare(rot_ab, &pos_v, margin, b.center_reach(), &options.overlap),
            rot_ab: *rot_ab,
            pos_ab: *pos_ab,
            first: options.mode == ContactMode::FirstContact,
            wide: Wide::detect(),
            far,
            depth_a: a.depth(),
            depth_b: b.depth(),
            stop: None,
            report,
            last_b: (
                usize::MAX,
                [Point::origin(); 3],
                Plane::new(&Point::origin(), &Point::origin(), &Point::origin()),
            ),
            out,
            leaf_triangles: B::TRIANGLE_TESTS && options.overlap.leaf_triangles,
            origin_a: a.origin(),
            tri_a: (usize::MAX, LaneTriangle::NONE),
            tri_b: (usize::MAX, LaneTriangle::NONE),
        }
    }

    /// Whether `node` of A is a leaf whose triangle stands for its volume (the option is on,
    /// the volume type has the test, and single precision carries it); the triangle is then
    /// laid out in `tri_a` (kept for the next test while it is the same leaf).
    #[inline(always)]
    fn triangle_a(&mut self, node: &Node<B>) -> bool {
        if !(self.leaf_triangles && node.is_leaf()) {
            return false;
        }
        let sa = node.leaf_slot();
        if self.tri_a.0 != sa {
            let o = self.origin_a;
            self.tri_a = (sa, LaneTriangle::new(&self.corners_a[sa].map(|p| p - o)));
        }
        self.tri_a.1.usable
    }

    /// As [`Traversal::triangle_a`] for a `node` of B, its triangle placed in A's volume frame
    /// in `tri_b`.
    #[inline(always)]
    fn triangle_b(&mut self, node: &Node<B>) -> bool {
        if !(self.leaf_triangles && node.is_leaf()) {
            return false;
        }
        let sb = node.leaf_slot();
        if self.tri_b.0 != sb {
            let o = self.origin_a;
            let t = self.corners_b[sb].map(|x| transform_point(&self.rot_ab, &self.pos_ab, &x) - o);
            self.tri_b = (sb, LaneTriangle::new(&t));
        }
        self.tri_b.1.usable
    }

    /// Whether the models are too far apart for single-precision volume tests (and disjoint).
    pub(super) fn far(&self) -> bool {
        self.far
    }

    /// Tests the root pair and continues below it: the query from the top.
    pub(super) fn root(&mut self) {
        if self.far {
            // One volume test, decided by the bounding spheres in double precision.
            self.report.bv_tests += 1;
            self.skip(0, 0);
        } else {
            self.pair(0, 0, None, Parent::None);
        }
    }

    /// Places node `b` of B in A's frame.
    #[inline(always)]
    pub(super) fn place(&self, b: usize) -> B::Placed {
        B::place(&self.query, &self.nb[b].bv)
    }

    /// Tests the pair (a, b) (one volume test, [`Traversal::overlaps`]: `parent` says how the
    /// pair came about) and continues below it if the volumes overlap; `pb` is node b already
    /// placed in A's frame, if it is. Returns `true` when a first-contact query is done.
    #[inline(always)]
    pub(super) fn pair(
        &mut self,
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
        self.report.bv_tests += 1;
        if self.overlaps(a, b, pb, parent) {
            self.descend(a, b, pb)
        } else {
            if CUT {
                self.out.push((a as u32, b as u32));
            }
            false
        }
    }

    /// Whether the pair (a, b), met where a query starts, is tested as two volumes (not by a
    /// leaf's triangle: see [`Traversal::overlaps`]), so that [`BoundingVolume::overlaps_batch`]
    /// gives its verdict.
    #[inline(always)]
    pub(super) fn volumes_only(&self, a: usize, b: usize) -> bool {
        !(self.leaf_triangles && self.na[a].is_leaf() != self.nb[b].is_leaf())
    }

    /// The volume tests of the first `n` (1 to [`BATCH`]) of `pairs` at once
    /// ([`BoundingVolume::overlaps_batch`]): bit `k` says whether the volumes of `pairs[k]`
    /// overlap. Not counted: the count is [`Traversal::tested`]'s.
    #[inline]
    pub(super) fn overlaps_batch(&self, pairs: &[(u32, u32); BATCH], n: usize) -> u8 {
        debug_assert!((1..=BATCH).contains(&n));
        let at = |k: usize| pairs[k.min(n - 1)];
        let a = std::array::from_fn(|k| &self.na[at(k).0 as usize].bv);
        let b = std::array::from_fn(|k| &self.nb[at(k).1 as usize].bv);
        B::overlaps_batch(&self.query, &a, &b, self.wide)
    }

    /// [`Traversal::pair`] for a pair whose volume test was already made
    /// ([`Traversal::overlaps_batch`]) and said `overlaps`: counts the test and continues below
    /// the pair if the volumes overlap. Returns `true` when a first-contact query is done.
    #[inline]
    pub(super) fn tested(&mut self, a: usize, b: usize, overlaps: bool) -> bool {
        self.report.bv_tests += 1;
        if overlaps {
            let pb = self.place(b);
            self.descend(a, b, &pb)
        } else {
            if CUT {
                self.out.push((a as u32, b as u32));
            }
            false
        }
    }

    /// One volume test of the pair (a, b), `pb` node b placed in A's frame, made as the walk
    /// makes it: where the pair came from a split of A and B's node is a leaf, B's triangle
    /// stands for its volume; from a split of B and A's node is a leaf, A's triangle; for a
    /// pair the query starts from, the triangle of a leaf met with an internal node.
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
                let t = &self.tri_a.1;
                B::triangle_overlaps_placed_pair(&self.query, [pb, pb], t, wide)[0]
            }
            Some(false) if self.triangle_b(&nb[b]) => {
                let bv = &self.na[a].bv;
                let t = &self.tri_b.1;
                B::triangle_overlaps_pair(&self.query, [bv, bv], t, wide)[0]
            }
            _ => B::overlaps(&self.query, &self.na[a].bv, pb),
        }
    }

    /// Expands `frontier` breadth-first (each pair tested once, as [`Traversal::pair`] tests
    /// it; the order stays the depth-first order of the walk) until it holds at least
    /// `target` items or only leaves are left.
    fn grow(&mut self, mut frontier: Vec<Frontier>, target: usize) -> Vec<Frontier> {
        while !frontier.is_empty() && frontier.len() < target {
            let mut next = Vec::with_capacity(2 * frontier.len());
            let mut grew = false;
            for item in frontier {
                match item {
                    Frontier::Pair(x, y, parent) => match self.expand(x, y, parent) {
                        Below::Nothing => {}
                        Below::Leaves(sa, sb) => next.push(Frontier::Leaves(sa, sb)),
                        Below::Pairs(p, split) => {
                            grew = true;
                            next.extend(p.map(|(x, y)| Frontier::Pair(x, y, split)));
                        }
                    },
                    leaves => next.push(leaves),
                }
            }
            frontier = next;
            if !grew {
                break;
            }
        }
        frontier
    }

    /// Traverses one item of [`collide_parallel`]'s frontier.
    fn item(&mut self, item: Frontier) {
        match item {
            Frontier::Pair(x, y, parent) => {
                self.pair(x, y, None, parent);
            }
            Frontier::Leaves(sa, sb) => {
                self.leaves(sa, sb);
            }
        }
    }

    /// One volume test of the pair (a, b) and what lies below it, without going there: the
    /// first level of [`Traversal::pair`] (the same test and the same descend rule), for
    /// [`collide_parallel`]'s frontier.
    fn expand(&mut self, a: usize, b: usize, parent: Parent) -> Below {
        let pb = self.place(b);
        self.report.bv_tests += 1;
        if !self.overlaps(a, b, &pb, parent) {
            return Below::Nothing;
        }
        let (node_a, node_b) = (&self.na[a], &self.nb[b]);
        match (node_a.children(), node_b.children()) {
            (None, None) => Below::Leaves(node_a.leaf_slot(), node_b.leaf_slot()),
            (Some((al, ar)), Some(_)) if node_a.bv.size() >= node_b.bv.size() => {
                Below::Pairs([(al, b), (ar, b)], Parent::SplitA)
            }
            (Some((al, ar)), None) => Below::Pairs([(al, b), (ar, b)], Parent::SplitA),
            (_, Some((bl, br))) => Below::Pairs([(a, bl), (a, br)], Parent::SplitB),
        }
    }

    /// Records a pair the traversal leaves untested (CUT only).
    #[inline(always)]
    pub(super) fn skip(&mut self, a: usize, b: usize) {
        if CUT {
            self.out.push((a as u32, b as u32));
        }
    }

    /// Continues below the overlapping pair (a, b); `pb` is node b placed in A's frame.
    /// Returns `true` when a first-contact query is done (or `stop` ended it).
    ///
    /// The walk below keeps its pending pairs on an explicit stack and B's placed boxes in an
    /// arena, both on the machine stack when the hierarchies are shallow enough (the usual
    /// case), else allocated for this call. It runs on the instructions `wide` allows: compiled
    /// once for AVX2 (taken where it was detected) and once for any x86-64 or other CPU.
    #[inline(always)]
    fn descend(&mut self, a: usize, b: usize, pb: &B::Placed) -> bool {
        let (stack_len, arena_len) = walk_bounds(self.depth_a, self.depth_b);
        if stack_len <= WALK_STACK && arena_len <= WALK_ARENA {
            let mut stack = [MaybeUninit::<Pending>::uninit(); WALK_STACK];
            let mut arena = [MaybeUninit::<B::Placed>::uninit(); WALK_ARENA];
            self.walk_on(a, b, pb, &mut stack, &mut arena)
        } else {
            let mut stack = Vec::<Pending>::with_capacity(stack_len);
            let mut arena = Vec::<B::Placed>::with_capacity(arena_len);
            self.walk_on(
                a,
                b,
                pb,
                stack.spare_capacity_mut(),
                arena.spare_capacity_mut(),
            )
        }
    }

    /// [`Traversal::walk`] on the instructions `wide` allows; `stack` and `arena` hold at least
    /// [`walk_bounds`] items (the walk's writes are checked: less panics).
    fn walk_on(
        &mut self,
        a: usize,
        b: usize,
        pb: &B::Placed,
        stack: &mut [MaybeUninit<Pending>],
        arena: &mut [MaybeUninit<B::Placed>],
    ) -> bool {
        // B's placed box at the bottom of the arena, copied here rather than in the walk: see
        // `walk_avx512`.
        arena[0].write(*pb);
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
        if self.wide.0 == WideKind::Avx2 {
            if B::KIND == crate::bv::BvKind::Obb && avx512vl() {
                // SAFETY: AVX2 (`wide`, from `Wide::detect`) and AVX-512F/VL were detected.
                return unsafe { walk_avx512(self, a, b, stack, arena) };
            }
            // SAFETY: `wide` says AVX2 only where the CPU has it (`Wide::detect`).
            return unsafe { walk_avx2(self, a, b, stack, arena) };
        }
        self.walk::<false>(a, b, stack, arena)
    }

    /// The walk below the overlapping pair (a, b), depth first through the recursion tree
    /// (an explicit stack, no recursion): a pair of leaves is a triangle test; otherwise the
    /// descend rule picks the node to split and both child pairs are tested together
    /// ([`BoundingVolume::overlaps_pair`]; where the node not split is a leaf, its triangle
    /// stands for its volume, [`BoundingVolume::triangle_overlaps_pair`]); the walk goes on with
    /// the first child pair if it overlaps (first contact: of two overlapping ones, the deeper,
    /// [`BoundingVolume::overlaps_pair_depth`], or the nearer, [`sphere_power`]) while the
    /// second waits on `stack` with its test's result, looked at only when it is taken up
    /// again: a branch on a result long known, as a recursion's branch after its first call
    /// returns. (Pushing only the overlapping pairs, without a branch, made every step wait for
    /// the test before it:
    /// 12–39% more time per query.) B's children placed by a split of B stay in
    /// `arena` while pairs below them are pending: a pending pair names its placed box and the
    /// arena's height above it.
    ///
    /// `stack` and `arena` hold at least [`walk_bounds`] items: the stack holds a pending pair
    /// for each split above the current pair, the arena two boxes for each split of B above it
    /// and the one it started with, B's node `b` placed in A's frame, which the caller writes
    /// to `arena[0]` (not the walk: see [`walk_avx512`]).
    #[inline(always)]
    fn walk<const AVX: bool>(
        &mut self,
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
        };
        let mut sp = 0usize;
        loop {
            // `pair` overlaps; its placed box and everything below `pair.height` are live.
            if TRACE {
                self.out.push((pair.a, pair.b));
            }
            let node_a = &self.na[pair.a as usize];
            let node_b = &self.nb[pair.b as usize];
            // The node to split and its children.
            let (split_a, (left, right)) = match (node_a.children(), node_b.children()) {
                (None, None) => {
                    if CUT {
                        self.out.push((pair.a, pair.b));
                    }
                    if self.leaves(node_a.leaf_slot(), node_b.leaf_slot()) {
                        self.unwind(stack, sp);
                        return true;
                    }
                    match self.next_pending(stack, &mut sp) {
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
            let (mut first, mut second);
            // First contact: how deep each child pair overlaps, where the volume measures it.
            let (mut hit, depth);
            if split_a {
                let (al, ar) = (left, right);
                prefetch_children(self.na, al);
                prefetch_children(self.na, ar);
                self.report.bv_tests += 2;
                // SAFETY: `pair.placed` < `pair.height`: a live box.
                let pb = unsafe { arena.get_unchecked(pair.placed as usize).assume_init_ref() };
                let (bl, br) = (&self.na[al].bv, &self.na[ar].bv);
                // Where B's node is a leaf, its triangle (in its box) stands for it.
                (hit, depth) = if self.triangle_b(node_b) {
                    let h = B::triangle_overlaps_pair(
                        &self.query,
                        [bl, br],
                        &self.tri_b.1,
                        Self::wide::<AVX>(),
                    );
                    (h, None)
                } else {
                    self.boxes_pair::<AVX>([bl, br], [pb, pb])
                };
                first = Pending {
                    a: al as u32,
                    ..pair
                };
                second = Pending {
                    a: ar as u32,
                    ..pair
                };
                if self.first
                    && hit[0]
                    && hit[1]
                    && match depth {
                        Some(d) => d[1] > d[0],
                        None => sphere_power(br, br, pb) < sphere_power(bl, bl, pb),
                    }
                {
                    (first, second) = (second, first);
                    hit.swap(0, 1);
                }
            } else {
                let (bl, br) = (left, right);
                prefetch_children(self.nb, bl);
                prefetch_children(self.nb, br);
                let h = pair.height as usize;
                // Written in place (placed boxes are 128 bytes: they stay where they are made
                // and are passed by reference).
                let slot = &mut arena[h..h + 2];
                // SAFETY: `slot` is two consecutive items, as `[B::Placed; 2]` is laid out.
                let placed = unsafe {
                    let slot = slot.as_mut_ptr() as *mut [B::Placed; 2];
                    write_unmerged(
                        slot,
                        B::place_pair(
                            &self.query,
                            [&self.nb[bl].bv, &self.nb[br].bv],
                            Self::wide::<AVX>(),
                        ),
                    );
                    &*slot
                };
                self.report.bv_tests += 2;
                // Where A's node is a leaf, its triangle (in its box) stands for it.
                let by_triangle = self.triangle_a(node_a);
                let node_a = &node_a.bv;
                (hit, depth) = if by_triangle {
                    let h = B::triangle_overlaps_placed_pair(
                        &self.query,
                        [&placed[0], &placed[1]],
                        &self.tri_a.1,
                        Self::wide::<AVX>(),
                    );
                    (h, None)
                } else {
                    self.boxes_pair::<AVX>([node_a, node_a], [&placed[0], &placed[1]])
                };
                let height = pair.height + 2;
                first = Pending {
                    b: bl as u32,
                    placed: h as u32,
                    height,
                    ..pair
                };
                second = Pending {
                    b: br as u32,
                    placed: h as u32 + 1,
                    height,
                    ..pair
                };
                if self.first
                    && hit[0]
                    && hit[1]
                    && match depth {
                        Some(d) => d[1] > d[0],
                        None => {
                            sphere_power(&self.nb[br].bv, node_a, &placed[1])
                                < sphere_power(&self.nb[bl].bv, node_a, &placed[0])
                        }
                    }
                {
                    (first, second) = (second, first);
                    hit.swap(0, 1);
                }
            }
            stack[sp].write(Pending {
                overlaps: hit[1],
                ..second
            });
            sp += 1;
            if hit[0] {
                pair = first;
                continue;
            }
            if CUT {
                self.out.push((first.a, first.b));
            }
            match self.next_pending(stack, &mut sp) {
                Some(next) => pair = next,
                None => return false,
            }
        }
    }

    /// The walk's paired volume test ([`BoundingVolume::overlaps_pair`]), with the depths a
    /// first-contact query orders by ([`BoundingVolume::overlaps_pair_depth`]; computed only
    /// there).
    #[inline(always)]
    fn boxes_pair<const AVX: bool>(
        &self,
        a: [&B; 2],
        b: [&B::Placed; 2],
    ) -> ([bool; 2], Option<[f32; 2]>) {
        if self.first {
            B::overlaps_pair_depth(&self.query, a, b, Self::wide::<AVX>())
        } else {
            (
                B::overlaps_pair(&self.query, a, b, Self::wide::<AVX>()),
                None,
            )
        }
    }

    /// Takes the pending pairs off the top of `stack` (`sp` items) until one overlaps and
    /// returns it; CUT records the disjoint ones on the way. `None` when none is left.
    #[inline(always)]
    fn next_pending(&mut self, stack: &[MaybeUninit<Pending>], sp: &mut usize) -> Option<Pending> {
        while *sp > 0 {
            *sp -= 1;
            // SAFETY: the first `sp` items were written.
            let pair = unsafe { stack.get_unchecked(*sp).assume_init() };
            if pair.overlaps {
                return Some(pair);
            }
            if CUT {
                self.out.push((pair.a, pair.b));
            }
        }
        None
    }

    /// A query ended early: CUT records every pending pair, tested or not, innermost first
    /// (as a recursion records each level's untaken sibling as it returns).
    #[inline(always)]
    fn unwind(&mut self, stack: &[MaybeUninit<Pending>], sp: usize) {
        if CUT {
            for item in stack[..sp].iter().rev() {
                // SAFETY: the first `sp` items were written.
                let pair = unsafe { item.assume_init() };
                self.out.push((pair.a, pair.b));
            }
        }
    }

    /// The instructions of the paired tests in this compilation of the walk.
    #[inline(always)]
    fn wide<const AVX: bool>() -> Wide {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
        if AVX {
            // Inline: this walk runs in `walk_avx2`, compiled for AVX2.
            return Wide(WideKind::Avx2Inline);
        }
        Wide::HALVES
    }

    /// The triangle test of leaf slots `sa` (of A) and `sb` (of B); a contact is reported by
    /// the triangles' indices in the meshes. Not inlined: compiled once for any CPU, so that
    /// its double-precision code is not widened to 512-bit registers in [`walk_avx512`] (see
    /// there); a triangle test comes once in tens of box tests, and its call costs little.
    #[inline(never)]
    fn leaves(&mut self, sa: usize, sb: usize) -> bool {
        self.report.tri_tests += 1;
        let p = self.corners_a[sa];
        if sb != self.last_b.0 {
            let q = self.corners_b[sb].map(|x| transform_point(&self.rot_ab, &self.pos_ab, &x));
            self.last_b = (sb, q, Plane::new(&q[0], &q[1], &q[2]));
        }
        let (_, q, plane) = &self.last_b;
        if triangles_intersect_on(&p, q, plane) {
            let (ta, tb) = (self.triangles_a[sa], self.triangles_b[sb]);
            self.report.contacts.push((ta, tb));
            if let Some(stop) = self.stop.as_mut() {
                return self.first || stop(ta, tb);
            }
            return self.first;
        }
        false
    }
}

/// First-contact order of volumes without a depth ([`BoundingVolume::overlaps_pair_depth`]:
/// OBB trees order by depth where two boxes are tested, this where a leaf's triangle stands for
/// its box; AABB and sphere trees everywhere): the power of one volume's centre with respect
/// to a sphere about a child of the other (squared centre distance −
/// [`BoundingVolume::order_radius2`]; negative well inside). `sphere_of` is the child whose
/// sphere counts, `a` and `b` the two volumes whose centres are measured (one of them is
/// `sphere_of` or its placed copy). Of two overlapping children the one with the smaller power
/// goes first: the nearer, deeper or larger one.
///
/// OBB trees took the pair of boxes of the larger face depth first (the least, over the six
/// face axes, of how far the boxes reach into each other;
/// [`crate::bv::sat::separated_f32_pair_depth`], a by-product of the paired test) instead of
/// this order. First-contact box tests, before →
/// after: teapot random poses 62,494 → 62,174, teapot path 52,616 → 44,266, bunny random
/// 84,534 → 76,700, bunny path 51,336 → 46,490, torus path 232,626 → 143,050 (−38%), pipes
/// path 291,218 → 293,052 (+0.6%), torpedo path 2,083,586 → 1,960,230; on 2,000 poses
/// jittered about each scene path, torus −7.2%, pipes −0.8%, torpedo 374,118 → 199,538 (−47%).
/// Time per query (`collide`, medians of six alternating rounds' ratios): 0.65× on the torus
/// path, 0.83–0.91× on the teapot's and bunny's cases, 0.97× torpedo, 1.00× pipes; all
/// contacts, which does not compute the depth, 0.99–1.01×. Tried beside it, in double precision
/// outside the test: the depth over the face axes relative to the smaller of the two boxes'
/// reaches along each axis (about the same counts; teapot random poses +2.5%) and the depth over
/// all fifteen axes, the edge axes normalised (fewer box tests than this order on every case,
/// but the torus path only −27%, and a square root per edge axis). Where a leaf's triangle
/// stands for its box, the box–triangle test's depth along the box's face axes gave this
/// order's counts to 0.02%, and the pipes path's +2.7%: the sphere power stays there. AABB
/// trees' face depth, computed in double precision after their tests, cut their first-contact
/// box tests by 0–27% but took 0.91–1.25× the time: not kept.
///
/// A box's sphere has a fraction of the squared radius of the sphere that holds it, a measured
/// choice. OBBs: half, on the least-volume OBB trees as the turn was introduced. First-contact
/// box tests on the pipes path: 1,775,358 with the circumscribed sphere → 715,176 (the search
/// through the resting cube, which takes 1,776,572 at ¾ of the squared radius and 849,902 at ¼,
/// 710,244–716,708 from 0.4 to 0.6), the bunny path 67,420 → 62,002, the teapot and bunny
/// random poses, the torus and the torpedo within 3.1% either way (with the nearer centre alone,
/// pipes 1,576,240). On the binned split's trees 0.3: the pipes path 807,716 → 459,056 (0.2 to
/// 0.35 give 433,810–460,380, 0.4 gives 810,734: the resting cube's one configuration again),
/// the other benchmark cases and 2,000 poses jittered about each scene path within 1.5% either
/// way (bunny path −1.5%, torus jittered +0.9%). AABB trees keep half: 2–4% fewer than the
/// circumscribed sphere on the teapot and bunny random poses, the torus and pipes paths the
/// same; 0.3 gave 1–6% more on four cases (teapot random poses +4.5%, teapot path +5.9%) and
/// 6% fewer on the bunny path. A sphere tree keeps its own sphere (its power is exact there,
/// and Li & Chen's separation-list figures on sphere trees are measured with it).
#[inline(always)]
fn sphere_power<B: BoundingVolume>(sphere_of: &B, a: &B, b: &B::Placed) -> Real {
    B::center_distance2(a, b) - sphere_of.order_radius2()
}

/// The walk compiled for AVX2: the paired box tests run on 8-lane registers.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
#[target_feature(enable = "avx2")]
fn walk_avx2<B: BoundingVolume, const TRACE: bool, const CUT: bool>(
    t: &mut Traversal<'_, B, TRACE, CUT>,
    a: usize,
    b: usize,
    stack: &mut [MaybeUninit<Pending>],
    arena: &mut [MaybeUninit<B::Placed>],
) -> bool {
    t.walk::<true>(a, b, stack, arena)
}

/// The walk compiled for AVX2 with AVX-512F and VL: the same 8-lane (256-bit) operations, with
/// the 32 vector registers AVX-512VL gives 256-bit code instead of AVX2's 16, so that fewer of
/// the paired test's values go to the stack and back (0–6% less time per query on the
/// benchmark cases on AMD Zen 4, the teapot the same; the same bits: no operation changes, and
/// no fused multiply-add). Not 512-bit operations: see [`walk_avx2`]'s callers and the README.
/// OBB trees only: AABB and sphere trees take [`walk_avx2`].
///
/// Nor 512-bit registers (zmm) at all. Given AVX-512F, the compiler joins adjacent 16- and
/// 32-byte stores and copies into 64-byte ones and widens double-precision code to 512 bits.
/// On Intel's Skylake-SP and Cascade Lake a 512-bit instruction, even a move, shuts the vector
/// unit of port 1 while it is in flight and can lower the core's clock: there this walk, with
/// such moves where it wrote B's placed boxes, copied B's root box and inlined the triangle
/// test, took 9–17% more time per query than [`walk_avx2`] (fastest of 5 interleaved runs,
/// four benchmark cases). So B's root box is copied by the caller ([`Traversal::walk_on`]),
/// the placed boxes are written in 16-byte stores the compiler may not merge
/// ([`write_unmerged`]), the triangle test ([`Traversal::leaves`]) is compiled once for any CPU
/// and called, and AABB and sphere trees (whose double-precision box tests the compiler widens
/// to 512 bits) keep the AVX2 walk. The OBB walk then has no zmm register in its disassembly,
/// as LLVM's `prefer-256-bit` tuning would give it; built with that tuning (a compiler flag,
/// not kept: rustc warns it is unknown), the walk took 8–15% less time per query on Cascade
/// Lake on six of the seven benchmark cases in all-contacts mode and on all five in first
/// contact.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn walk_avx512<B: BoundingVolume, const TRACE: bool, const CUT: bool>(
    t: &mut Traversal<'_, B, TRACE, CUT>,
    a: usize,
    b: usize,
    stack: &mut [MaybeUninit<Pending>],
    arena: &mut [MaybeUninit<B::Placed>],
) -> bool {
    t.walk::<true>(a, b, stack, arena)
}

/// Writes `value` to `dst` as 16-byte stores the compiler may not merge into wider ones
/// (volatile), where `T`'s size is a multiple of 16 bytes and its alignment at least 16; else
/// as one write. In [`walk_avx512`] the compiler would otherwise join the placed boxes' 16-byte
/// stores into 64-byte (zmm) stores: see there.
///
/// # Safety
/// `dst` is valid for writes of a `T` and aligned.
#[inline(always)]
unsafe fn write_unmerged<T: Copy>(dst: *mut T, value: T) {
    #[cfg(target_arch = "x86_64")]
    if size_of::<T>().is_multiple_of(16) && align_of::<T>() >= 16 {
        use std::arch::x86_64::__m128;
        let src = &value as *const T as *const __m128;
        let dst = dst as *mut __m128;
        for k in 0..size_of::<T>() / 16 {
            // SAFETY: both hold `size_of::<T>() / 16` aligned 16-byte parts (the caller's
            // `dst`, and `value` on the stack or in registers); `__m128` has no invalid bits.
            unsafe { std::ptr::write_volatile(dst.add(k), src.add(k).read()) };
        }
        return;
    }
    // SAFETY: the caller's.
    unsafe { dst.write(value) }
}

/// Whether this CPU has AVX-512F and AVX-512VL (the detection is cached by the standard
/// library).
#[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
#[inline]
fn avx512vl() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// A pair of the walk waiting its turn ([`Traversal::walk`]): nodes `a` of A and `b` of B,
/// B's node placed in A's frame at `placed` in the arena, whose boxes below `height` stay live
/// while the pair waits; `overlaps` is the result of the pair's volume test.
#[derive(Clone, Copy)]
struct Pending {
    a: u32,
    b: u32,
    placed: u32,
    height: u32,
    overlaps: bool,
}

/// The walk's storage on the machine stack: pending pairs and placed boxes (128 bytes each for
/// OBBs: 16 KiB). Enough for hierarchies up to depth 63 each; deeper ones allocate.
const WALK_STACK: usize = 128;
const WALK_ARENA: usize = 128;

/// The items the walk's stack and arena need for hierarchies of depths `depth_a`, `depth_b`
/// ([`Bvh::depth`]). A pair is split only if one of its nodes is not a leaf, so at most
/// `depth_a + depth_b − 1` splits lie above it; the stack holds one pending pair for each of
/// them and the one the split pushes. B's node is split only if it is not a leaf, so at most
/// `depth_b − 1` splits of B lie above it: the arena holds B's placed box at the start, two for
/// each of those and the two the split places. (Both bounds are reached: a model against
/// itself at the identity walks down to the deepest leaves of both trees together.)
fn walk_bounds(depth_a: usize, depth_b: usize) -> (usize, usize) {
    (depth_a + depth_b, 2 * depth_b + 1)
}

/// What lies below an overlapping pair ([`Traversal::expand`]).
enum Below {
    /// The volumes are disjoint.
    Nothing,
    /// Two leaves: their triangles (leaf slots of A, B) are to be tested.
    Leaves(usize, usize),
    /// The two child pairs, in the traversal's order, and the node split.
    Pairs([(usize, usize); 2], Parent),
}

/// Which node of a pair's parent pair was split to make it (`None` for a pair the query starts
/// from): it decides, as in the walk, which leaf's triangle stands for its volume
/// ([`Traversal::overlaps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Parent {
    /// The root pair or a pair of a separation list.
    None,
    /// A's node was split: B's node, if a leaf, is tested by its triangle.
    SplitA,
    /// B's node was split: A's node, if a leaf, is tested by its triangle.
    SplitB,
}

/// An item of [`collide_parallel`]'s frontier.
#[derive(Clone, Copy)]
enum Frontier {
    /// A node pair not yet tested, and how it came about.
    Pair(usize, usize, Parent),
    /// Two leaves whose volumes overlap (leaf slots of A, B): their triangles are to be tested.
    Leaves(usize, usize),
}

/// [`collide_relative`] on the threads of the current rayon pool: the same contacts in the same
/// order and the same counts, found faster when the overlap is deep.
///
/// The recursion tree is expanded breadth-first, each pair tested once as the sequential
/// traversal tests it, until its frontier holds at least 16 pairs per thread. The calling
/// thread traverses the first subtrees of the frontier until the query has made 2,000 box
/// tests; what is left is traversed in parallel, and the reports are concatenated in frontier
/// order, which is the sequential traversal's depth-first order. A first-contact query has
/// little to share and runs sequentially.
///
/// The expansion tests one pair at a time, where the walk tests two, so a shallow query
/// (the pipes path: about 1,000 box tests) takes about 1.3× its sequential time here; the
/// deep overlaps this is for scale (two 32,400-triangle spheres 1e-3 apart: 1.75× on two
/// threads). Queries over many poses are better run side by side (`obbtree collide
/// --threads`).
#[cfg(feature = "parallel")]
pub fn collide_parallel<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    report: &mut CollisionReport,
) {
    use rayon::prelude::*;
    if options.mode == ContactMode::FirstContact || rayon::current_num_threads() < 2 {
        collide_relative(a, b, rot_ab, pos_ab, options, report);
        return;
    }
    report.clear();
    let threads = rayon::current_num_threads();
    let mut unused = Vec::new();
    let rest = {
        let mut t =
            Traversal::<B, false, false>::new(a, b, rot_ab, pos_ab, options, report, &mut unused);
        if t.far {
            t.root();
            return;
        }
        let mut frontier = t.grow(vec![Frontier::Pair(0, 0, Parent::None)], 16 * threads);
        // The first subtrees are traversed here until the query has made SEQUENTIAL_BOX_TESTS
        // box tests, so that a small query does not pay for handing work to other threads.
        let mut done = 0;
        while done < frontier.len() && t.report.bv_tests < SEQUENTIAL_BOX_TESTS {
            t.item(frontier[done]);
            done += 1;
        }
        frontier.drain(..done);
        frontier
    };
    if rest.is_empty() {
        return;
    }
    let chunk = rest.len().div_ceil(4 * rayon::current_num_threads()).max(1);
    let parts: Vec<CollisionReport> = rest
        .par_chunks(chunk)
        .map(|items| {
            let mut part = CollisionReport::default();
            let mut unused = Vec::new();
            let mut t = Traversal::<B, false, false>::new(
                a,
                b,
                rot_ab,
                pos_ab,
                options,
                &mut part,
                &mut unused,
            );
            for item in items {
                t.item(*item);
            }
            part
        })
        .collect();
    for part in parts {
        report.contacts.extend_from_slice(&part.contacts);
        report.bv_tests += part.bv_tests;
        report.tri_tests += part.tri_tests;
    }
}

/// [`collide_parallel`]'s work kept on the calling thread: about 30 µs of box tests.
const SEQUENTIAL_BOX_TESTS: u64 = 2000;

/// Asks for the child pair of node `i` to be brought into cache while node `i` is being tested:
/// if the test passes, the traversal reads those children next. A hint only; never faults.
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
    use super::*;
    use crate::bv::{Aabb, Obb, Sphere};
    use crate::bvh::BuildOptions;
    use crate::mesh::TriMesh;
    use proptest::prelude::*;

    /// Which compilation of the walk a test query runs below the root pair.
    #[derive(Clone, Copy, Debug)]
    enum Compiled {
        /// As the query picks it ([`Traversal::walk_on`]).
        Picked,
        /// For any CPU (the paired tests on two 4-lane halves).
        Any,
        /// For AVX2.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
        Avx2,
        /// For AVX2 with AVX-512F and VL.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
        Avx512,
    }

    /// The compilations of the walk this CPU can run.
    fn compilations() -> Vec<Compiled> {
        #[allow(unused_mut)]
        let mut all = vec![Compiled::Picked, Compiled::Any];
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
        {
            if Wide::detect().0 == WideKind::Avx2 {
                all.push(Compiled::Avx2);
                if avx512vl() {
                    all.push(Compiled::Avx512);
                }
            }
        }
        all
    }

    /// The query from the root pair: as [`run`] (the walk's storage on the machine stack, for
    /// these shallow trees), or with `exact`, the walk below the root pair (compiled as
    /// `compiled` says) on storage of exactly [`walk_bounds`] items, allocated: the path
    /// hierarchies too deep for the machine stack's storage take. The walk's writes are
    /// bounds-checked, so storage too small for a query panics.
    fn query<B: BoundingVolume, const TRACE: bool, const CUT: bool>(
        a: &Bvh<B>,
        b: &Bvh<B>,
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        options: &QueryOptions,
        exact: Option<Compiled>,
    ) -> (CollisionReport, Vec<(u32, u32)>) {
        let mut report = CollisionReport::default();
        let mut out = Vec::new();
        let Some(compiled) = exact else {
            run::<B, TRACE, CUT>(a, b, rot_ab, pos_ab, options, &mut report, &mut out);
            return (report, out);
        };
        let mut t =
            Traversal::<B, TRACE, CUT>::new(a, b, rot_ab, pos_ab, options, &mut report, &mut out);
        if t.far() {
            t.root();
        } else {
            let pb = t.place(0);
            t.report.bv_tests += 1;
            if t.overlaps(0, 0, &pb, Parent::None) {
                let (stack_len, arena_len) = walk_bounds(t.depth_a, t.depth_b);
                let mut stack = Vec::<Pending>::with_capacity(stack_len);
                let mut arena = Vec::<B::Placed>::with_capacity(arena_len);
                let stack = &mut stack.spare_capacity_mut()[..stack_len];
                let arena = &mut arena.spare_capacity_mut()[..arena_len];
                if !matches!(compiled, Compiled::Picked) {
                    arena[0].write(pb);
                }
                match compiled {
                    Compiled::Picked => t.walk_on(0, 0, &pb, stack, arena),
                    Compiled::Any => t.walk::<false>(0, 0, stack, arena),
                    // SAFETY: listed by `compilations` only where detected.
                    #[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
                    Compiled::Avx2 => unsafe { walk_avx2(&mut t, 0, 0, stack, arena) },
                    // SAFETY: as above.
                    #[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
                    Compiled::Avx512 => unsafe { walk_avx512(&mut t, 0, 0, stack, arena) },
                };
            } else {
                t.skip(0, 0);
            }
        }
        (report, out)
    }

    /// Every mode (all contacts, first contact; traced, separation cut) on exact storage, with
    /// every compilation of the walk this CPU runs, gives the same report and the same
    /// recorded pairs, in the same order, as the query itself.
    fn check<B: BoundingVolume>(a: &Bvh<B>, b: &Bvh<B>, rot: &Matrix3, pos: &Vector) {
        for options in [QueryOptions::default(), QueryOptions::first_contact()] {
            for c in compilations() {
                let exact = Some(c);
                assert_eq!(
                    query::<B, false, false>(a, b, rot, pos, &options, exact),
                    query::<B, false, false>(a, b, rot, pos, &options, None),
                    "{c:?}"
                );
                assert_eq!(
                    query::<B, true, false>(a, b, rot, pos, &options, exact),
                    query::<B, true, false>(a, b, rot, pos, &options, None),
                    "{c:?}"
                );
                assert_eq!(
                    query::<B, false, true>(a, b, rot, pos, &options, exact),
                    query::<B, false, true>(a, b, rot, pos, &options, None),
                    "{c:?}"
                );
            }
        }
    }

    fn soup() -> impl Strategy<Value = TriMesh> {
        prop::collection::vec(prop::array::uniform9(-1.0..1.0f64), 1..48).prop_map(|tris| {
            let vertices = tris
                .iter()
                .flat_map(|t| [0, 3, 6].map(|k| Point::new(t[k], t[k + 1], t[k + 2])))
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
        /// sphere trees; each soup also against itself at the identity, where every triangle
        /// touches its copy and the walk reaches the deepest leaves of both trees together.
        /// Every compilation of the walk this CPU runs (any CPU, AVX2, AVX2 with AVX-512F/VL)
        /// gives those results too.
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
