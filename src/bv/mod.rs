//! Bounding volumes: [`Obb`], [`Aabb`], [`Sphere`], their fitting and their overlap tests.
//!
//! Every volume type implements [`BoundingVolume`], which is all the hierarchy builder
//! ([`crate::bvh`]) and the one traversal ([`crate::query::collide`]) need.
//!
//! # Storage and conservativeness
//! Volumes are stored in single precision (a node of an OBB tree is 64 bytes, an AABB node 28, a
//! sphere node 20). Fitting is done in double precision and the result is rounded *outward*:
//! centres are rounded to the nearest `f32`, then extents are recomputed against the rounded centre
//! and axes, padded by `1e-6` of the volume's size plus `1e-12` of its distance from the origin, and
//! rounded up. A stored volume therefore contains its triangles' double-precision vertices, and
//! the overlap tests, evaluated in double precision on the stored numbers, never report "disjoint"
//! for volumes whose contents touch. [`crate::bvh::Bvh::validate`] checks the containment.

mod aabb;
mod fit;
mod hull;
mod least_volume;
pub mod obb;
pub mod sat;
mod sphere;

pub use aabb::Aabb;
pub use fit::{
    TriangleMoments, covariance_of_hull, covariance_of_moments, covariance_of_points,
    covariance_of_triangles, principal_axes,
};
pub use obb::Obb;
pub use sphere::Sphere;

use crate::math::{Matrix3, Point, Real, Vector};
use crate::mesh::TriMesh;

/// A zero-sized marker aligned to a 64-byte cache line ([`BoundingVolume::NodeAlign`]).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct CacheLine;

/// The three kinds of bounding volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BvKind {
    /// Oriented bounding box (Gottschalk et al. 1996).
    Obb,
    /// Axis-aligned bounding box in the model's frame (van den Bergen 1998).
    Aabb,
    /// Bounding sphere (the volume of Li & Chen's separation lists).
    Sphere,
}

impl BvKind {
    /// Lower-case name: `obb`, `aabb`, `sphere`.
    pub fn name(self) -> &'static str {
        match self {
            BvKind::Obb => "obb",
            BvKind::Aabb => "aabb",
            BvKind::Sphere => "sphere",
        }
    }
}

impl std::fmt::Display for BvKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which separating axis test the box volumes use (van den Bergen 1998, §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum SatMode {
    /// All 15 axes of Gottschalk et al. 1996, §5: exact for boxes.
    #[default]
    Full,
    /// Only the 6 face axes ("SAT lite"): cheaper, never misses an overlap, sometimes reports one
    /// that is not there.
    Lite,
}

/// Options of an overlap query that concern the volumes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlapOptions {
    /// The error margin ε added to every |R_ij| of the separating axis test (Gottschalk et al.
    /// 1996, §5 and §7.1); guards against arithmetic error for nearly parallel axes. Default
    /// `1e-6`, RAPID's value. Must be finite and non-negative.
    pub epsilon: Real,
    /// Full SAT or SAT lite.
    pub sat: SatMode,
    /// Where a leaf of one model meets an internal node of the other, test the leaf's triangle
    /// against the node's children instead of the leaf's box (OBB trees; the box–triangle
    /// separating axis test, [`sat::box_triangle`]). The triangle lies in its box, so a child
    /// that misses the box misses the triangle, and one that meets the box may still miss the
    /// triangle: fewer box and triangle tests on every benchmark case, the same contacts.
    /// Default `true`; the papers' rule is `false` ([`crate::query::QueryOptions::leaf_boxes`]).
    pub leaf_triangles: bool,
}

impl Default for OverlapOptions {
    fn default() -> Self {
        Self {
            epsilon: 1e-6,
            sat: SatMode::Full,
            leaf_triangles: true,
        }
    }
}

/// How the axes of a node's OBB are chosen while a hierarchy is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum ObbFit {
    /// Gottschalk et al. 1996, §4: the eigenvectors of the area-weighted covariance of the
    /// convex hull of the group's vertices (the triangles' covariance when the hull is flat,
    /// §7.1).
    Hull,
    /// The eigenvectors of the area-weighted covariance of the group's triangles (RAPID's fit,
    /// cheaper: no hull).
    Triangles,
    /// The box of smallest surface area among the §4 hull fit, the triangles' fit and the model
    /// frame's own axes (docs/decisions.md, "fitting").
    Smallest,
    /// The default: the §4 box turned about one of its axes at a time to the least box volume
    /// that turn reaches (exact per turn, by rotating calipers over the hull's projection);
    /// groups of more than 128 points also turn the model frame's axes and keep the lesser box,
    /// and groups of up to seven points turn their triangles' axes instead (no hull). A local
    /// search around the §4 fit, not the minimum-volume box; fewer box tests than the others at
    /// a higher build cost (docs/performance.md). A leaf's box (one triangle) is the least-area
    /// rectangle along the triangle's longest edge, in closed form (the other fits give leaves
    /// §4's box).
    #[default]
    LeastVolume,
}

/// A group of triangles being bounded while a hierarchy is built.
///
/// Frame: the hierarchy's *volume frame*, the model frame moved so that `origin` is at zero
/// ([`crate::bvh::Bvh::origin`]); [`Group::points`] and [`Group::triangle`] are in it.
#[derive(Clone, Copy, Debug)]
pub struct Group<'a> {
    /// The mesh, in its model frame.
    pub mesh: &'a TriMesh,
    /// The volume frame's origin, in the model frame.
    pub origin: Vector,
    /// How an OBB is oriented (other volumes ignore it).
    pub fit: ObbFit,
    /// Indices of the group's triangles.
    pub triangles: &'a [u32],
    /// Indices of the distinct vertices those triangles use (each once).
    pub vertices: &'a [u32],
    /// Every triangle's [`TriangleMoments`] in the volume frame (any common scale), indexed by
    /// triangle, so that an OBB fit sums them instead of recomputing them; empty when the builder
    /// did not compute them (then the fit computes the triangles' covariance itself).
    pub moments: &'a [TriangleMoments],
}

impl Group<'_> {
    /// Iterates the group's distinct vertex positions, volume frame.
    pub fn points(&self) -> impl Iterator<Item = Point> + Clone + '_ {
        let v = self.mesh.vertices();
        let o = self.origin;
        self.vertices.iter().map(move |&i| v[i as usize] - o)
    }

    /// The corners of triangle `t` of the mesh, volume frame.
    pub fn triangle(&self, t: u32) -> [Point; 3] {
        self.mesh.triangle(t as usize).map(|p| p - self.origin)
    }
}

/// A fitted volume and the directions the builder may split the group along, in priority order
/// (Gottschalk et al. 1996, §4: longest box axis first, then the second, then the shortest).
#[derive(Clone, Copy, Debug)]
pub struct Fitted<B> {
    /// The volume.
    pub bv: B,
    /// Unit split directions in the model frame, longest extent first.
    pub split_axes: [Vector; 3],
    /// The volume's centre in the model frame (the "box median" of van den Bergen's split rule).
    pub center: Point,
}

/// What a hierarchy needs of its bounding volume type.
///
/// Frames: a volume of model A is in A's volume frame (A's model frame moved by A's hierarchy
/// origin, [`crate::bvh::Bvh::origin`]), one of model B in B's; `Placed` is a volume of B
/// expressed in A's volume frame, made once per visited node by [`BoundingVolume::place`] and
/// reused for every test against it.
pub trait BoundingVolume: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// Which kind this is.
    const KIND: BvKind;
    /// A zero-sized type whose alignment a tree node takes ([`crate::bvh::Node`]): [`CacheLine`]
    /// for OBBs, whose nodes are one 64-byte cache line each, so that no node straddles two
    /// lines and a sibling pair is two lines; `()` for the smaller AABB and sphere nodes.
    type NodeAlign: Copy + Send + Sync + std::fmt::Debug + 'static;
    /// Per-query constants (the relative pose, for AABBs also |R| + ε, computed once per query:
    /// van den Bergen 1998, §3).
    type Query: Send + Sync;
    /// A volume of B expressed in A's frame.
    type Placed: Copy;

    /// Fits a volume to a group of triangles (double precision, stored conservatively; volume
    /// frame).
    fn fit(group: &Group<'_>) -> Fitted<Self>;
    /// [`BoundingVolume::fit`] that also gives `hull` the mesh indices of a superset of the
    /// vertices of the group's convex hull, and, with `candidates` (mesh indices of some of the
    /// group's vertices that include its hull's, each once), may build the hull from those
    /// alone: the builder's bottom-up hulls of large groups ([`crate::bvh::BuildOptions`]).
    /// The volume is the one [`BoundingVolume::fit`] gives, but for rounding. By default the
    /// fit itself, and all the group's vertices.
    fn fit_with_hull(
        group: &Group<'_>,
        candidates: Option<&[u32]>,
        hull: &mut Vec<u32>,
    ) -> Fitted<Self> {
        let _ = candidates;
        hull.clear();
        hull.extend_from_slice(group.vertices);
        Self::fit(group)
    }
    /// Precomputes what every test of this query shares. `rot_ab`, `pos_ab` place B's volume
    /// frame in A's (`x_a = rot_ab · x_b + pos_ab`); every placed volume of B is grown by
    /// `margin` (model units, ≥ 0) in every direction, to cover the rounding of coordinates far
    /// from the origin (see [`crate::query::collide_with`]). `center_reach_b` bounds the
    /// distance of B's volume centres from their frame's origin ([`crate::bvh::Bvh::center_reach`]):
    /// a volume placed in single precision (OBBs) grows by its rounding error on top of `margin`.
    fn prepare(
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        margin: Real,
        center_reach_b: Real,
        options: &OverlapOptions,
    ) -> Self::Query;
    /// Expresses volume `b` (B's frame) in A's frame.
    fn place(query: &Self::Query, b: &Self) -> Self::Placed;
    /// `false` only if `a` (A's frame) and the placed `b` are disjoint.
    fn overlaps(query: &Self::Query, a: &Self, b: &Self::Placed) -> bool;
    /// Whether a leaf's triangle stands for its volume in the tests of a leaf against the other
    /// model's internal nodes ([`BoundingVolume::triangle_overlaps_pair`]).
    const TRIANGLE_TESTS: bool = false;
    /// Two tests of a leaf's triangle `t` (A's frame) against two volumes of A:
    /// `[t meets a[0], t meets a[1]]`, `false` only where they are disjoint. Used where
    /// [`BoundingVolume::TRIANGLE_TESTS`] says so and `t` is usable; other volumes keep this
    /// default, which proves nothing disjoint.
    #[inline(always)]
    fn triangle_overlaps_pair(
        query: &Self::Query,
        a: [&Self; 2],
        t: &sat::box_triangle::LaneTriangle,
        wide: sat::lanes::Wide,
    ) -> [bool; 2] {
        let _ = (query, a, t, wide);
        [true, true]
    }
    /// As [`BoundingVolume::triangle_overlaps_pair`], against two placed volumes of B.
    #[inline(always)]
    fn triangle_overlaps_placed_pair(
        query: &Self::Query,
        b: [&Self::Placed; 2],
        t: &sat::box_triangle::LaneTriangle,
        wide: sat::lanes::Wide,
    ) -> [bool; 2] {
        let _ = (query, b, t, wide);
        [true, true]
    }
    /// Places two volumes of B at once: `[place(b[0]), place(b[1])]`, exactly (`wide` as for
    /// [`BoundingVolume::overlaps_pair`]).
    #[inline(always)]
    fn place_pair(query: &Self::Query, b: [&Self; 2], wide: sat::lanes::Wide) -> [Self::Placed; 2] {
        let _ = wide;
        [Self::place(query, b[0]), Self::place(query, b[1])]
    }
    /// Two tests at once: `[overlaps(a[0], b[0]), overlaps(a[1], b[1])]`, exactly (a split
    /// tests both children: one box of A against two placed boxes of B, or two of A against
    /// one of B). `wide` says which instructions may run ([`sat::lanes::Wide::detect`]); OBBs
    /// run both tests in one pass over eight lanes, other volumes test one after the other.
    #[inline(always)]
    fn overlaps_pair(
        query: &Self::Query,
        a: [&Self; 2],
        b: [&Self::Placed; 2],
        wide: sat::lanes::Wide,
    ) -> [bool; 2] {
        let _ = wide;
        [
            Self::overlaps(query, a[0], b[0]),
            Self::overlaps(query, a[1], b[1]),
        ]
    }
    /// [`BoundingVolume::overlaps_pair`] with, where the volume type measures it, how deep each
    /// pair of volumes overlaps (larger is deeper; any unit, compared only between the two
    /// tests): the first-contact order visits the deeper of two overlapping pairs first. `None`:
    /// the order is [`BoundingVolume::order_radius2`]'s. OBBs give their face depth
    /// ([`sat::separated_f32_pair_depth`]).
    #[inline(always)]
    fn overlaps_pair_depth(
        query: &Self::Query,
        a: [&Self; 2],
        b: [&Self::Placed; 2],
        wide: sat::lanes::Wide,
    ) -> ([bool; 2], Option<[f32; 2]>) {
        (Self::overlaps_pair(query, a, b, wide), None)
    }
    /// Whether [`BoundingVolume::overlaps_batch`] is faster than testing the pairs one at a
    /// time, each B volume placed once for a run of pairs that share it (the separation list's
    /// start uses it only then).
    const BATCH_TESTS: bool = false;
    /// [`sat::batch::BATCH`] tests at once, of independent pairs: bit `k` of the result is
    /// `overlaps(query, a[k], &place(query, b[k]))`, exactly (`b[k]` a volume of B in B's frame).
    /// For the pairs of a separation list (Li & Chen §4), tested before the query descends from
    /// any of them. OBBs run the eight tests in eight lanes, one pair per lane
    /// ([`sat::batch`]); this default, for other volumes, tests one pair after another.
    fn overlaps_batch(
        query: &Self::Query,
        a: &[&Self; sat::batch::BATCH],
        b: &[&Self; sat::batch::BATCH],
        wide: sat::lanes::Wide,
    ) -> u8 {
        let _ = wide;
        let mut bits = 0;
        for k in 0..sat::batch::BATCH {
            bits |= u8::from(Self::overlaps(query, a[k], &Self::place(query, b[k]))) << k;
        }
        bits
    }
    /// The squared distance between the centres of `a` and of the placed `b` (A's frame; model
    /// units squared).
    fn center_distance2(a: &Self, b: &Self::Placed) -> Real;
    /// The squared radius of the sphere about the volume's centre that stands for it in the
    /// first-contact order (model units squared): a sphere's own radius; for a box, a fraction
    /// of the square of its half diagonal (an OBB 0.3, an AABB 0.5: a sphere nearer a box's mean
    /// reach than the sphere that holds it; measured on the benchmark cases, see the
    /// traversal's `sphere_power`). With [`BoundingVolume::center_distance2`] it orders the
    /// traversal where no depth is measured ([`BoundingVolume::overlaps_pair_depth`]): of two
    /// overlapping children, the one for which the other volume's centre has the smaller power
    /// with respect to this sphere (squared centre distance − this) is visited first.
    fn order_radius2(&self) -> Real;
    /// A size used by the descend rule: the larger volume is split first. Boxes use their
    /// surface area (flat leaf boxes included), spheres their radius.
    fn size(&self) -> f32;
    /// Whether the stored numbers describe a valid volume (finite; for an OBB, axes orthonormal
    /// to within 1e-6, which the separating axis test's soundness relies on).
    fn well_formed(&self) -> bool;
    /// Whether `p` (same frame) lies in the stored volume, evaluated on the stored numbers.
    fn contains(&self, p: &Point) -> bool;
    /// A volume bounding one triangle, keeping the orientation of `old` where it has one (refit).
    fn refit_leaf(old: &Self, triangle: &[Point; 3]) -> Self;
    /// A volume bounding two child volumes, keeping the orientation of `old` (refit).
    fn refit_parent(old: &Self, left: &Self, right: &Self) -> Self;
    /// The volume as an oriented box `(center, axes as columns, half extents)` in its own
    /// frame (a hierarchy's volume frame: [`crate::bvh::Bvh::node_box`] gives the model frame);
    /// a sphere gives its bounding cube.
    fn as_box(&self) -> (Point, Matrix3, Vector);
}

/// Rounds a box given in double precision (centre, unit axes, half extents, all in the model
/// frame) to single precision conservatively, against the points it must contain.
///
/// Returns the stored centre and half extents for the given stored `axes` (which the caller has
/// already rounded): the half extents are recomputed from the points' extremes (one pass) against
/// the rounded centre.
pub(crate) fn store_box(
    axes: &[Vector; 3],
    points: impl Iterator<Item = Point>,
) -> ([f32; 3], [f32; 3]) {
    let mut lo = [Real::INFINITY; 3];
    let mut hi = [Real::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            let d = axes[k].dot(&p.coords);
            lo[k] = lo[k].min(d);
            hi[k] = hi[k].max(d);
        }
    }
    let mid = Vector::new(
        (lo[0] + hi[0]) * 0.5,
        (lo[1] + hi[1]) * 0.5,
        (lo[2] + hi[2]) * 0.5,
    );
    // For orthonormal axes the centre is sum(mid_k axis_k).
    let c = axes[0] * mid[0] + axes[1] * mid[1] + axes[2] * mid[2];
    let c32 = [c.x as f32, c.y as f32, c.z as f32];
    let cs = Vector::new(c32[0] as Real, c32[1] as Real, c32[2] as Real);
    // The reach from the rounded centre, from the same pass's extremes: it differs from
    // measuring each point against the centre by rounding only (a few units in the last place
    // of the coordinates), far inside the padding.
    let half: [Real; 3] = std::array::from_fn(|k| {
        let c = axes[k].dot(&cs);
        (hi[k] - c).max(c - lo[k]).max(0.0)
    });
    let pad = pad(half[0] + half[1] + half[2], &cs);
    (c32, half.map(|h| crate::math::f32_up(h + pad)))
}

/// The outward padding of a stored volume of total size `size` centred at `center`.
#[inline]
pub(crate) fn pad(size: Real, center: &Vector) -> Real {
    1e-6 * size + 1e-12 * center.amax() + Real::MIN_POSITIVE
}

#[inline(always)]
pub(crate) fn v3(a: &[f32; 3]) -> Vector {
    Vector::new(a[0] as Real, a[1] as Real, a[2] as Real)
}
