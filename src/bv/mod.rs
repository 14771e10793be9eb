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
mod bounding_volume;
mod box_gap;
mod dito;
mod fit;
mod hull;
mod least_volume;
mod obb;
#[cfg(test)]
mod paired_tests;
pub mod sat;
mod sphere;
mod volume_tests;

pub use aabb::{Aabb, AabbQuery, PlacedAabb};
pub use bounding_volume::BoundingVolume;
pub(crate) use fit::{TriangleMoments, covariance_of_triangles, principal_axes};
pub use obb::{Obb, ObbQuery, PlacedObb};
pub use sphere::{PlacedSphere, Sphere, SphereQuery};
pub(crate) use volume_tests::{CacheLine, VolumeTests};

use crate::math::{Point, Real, Vector};
use crate::mesh::TriMesh;

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
    /// frame's own axes (docs/decisions.md, "Fit").
    Smallest,
    /// The §4 box turned about one of its axes at a time to the least box volume
    /// that turn reaches (exact per turn, by rotating calipers over the hull's projection);
    /// groups of more than 128 points also turn the model frame's axes and keep the lesser box,
    /// and groups of up to seven points turn their triangles' axes instead (no hull). A local
    /// search around the §4 fit, not the minimum-volume box; fewer box tests than the others at
    /// a higher build cost (docs/performance.md). A leaf's box (one triangle) is the least-area
    /// rectangle along the triangle's longest edge, in closed form (the other fits but DiTO
    /// give leaves §4's box). The default until DiTO: 2.4–2.9× its build time for 11–18% fewer
    /// box tests on most cases (docs/decisions.md, "Fit").
    LeastVolume,
    /// The default: DiTO-14 (Larsson & Källberg 2011, *Fast Computation of Tight-Fitting
    /// Oriented Bounding Boxes*, Game Engine Gems 2, ch. 1). The best of 21 orientations taken
    /// from a ditetrahedron of the group's extremal points along seven fixed directions, scored
    /// by surface area on those points, or the model frame's axes; linear in the group's
    /// points, with no hull and no covariance. Leaves get the least-area rectangle, as
    /// [`ObbFit::LeastVolume`]'s; the binned split cuts along the box's axes only (the frame's
    /// axes are among DiTO's candidates).
    #[default]
    Dito,
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
    let (lo, hi) = ranges(axes, points);
    store_box_of_ranges(axes, &lo, &hi)
}

/// The least and greatest projections of `points` on each of `axes`, in one pass.
#[inline(always)]
pub(crate) fn ranges(
    axes: &[Vector; 3],
    points: impl Iterator<Item = Point>,
) -> ([Real; 3], [Real; 3]) {
    let mut lo = [Real::INFINITY; 3];
    let mut hi = [Real::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            let d = axes[k].dot(&p.coords);
            lo[k] = lo[k].min(d);
            hi[k] = hi[k].max(d);
        }
    }
    (lo, hi)
}

/// [`store_box`] from the points' ranges `lo[k]..hi[k]` along `axes[k]` (one pass the caller
/// made).
pub(crate) fn store_box_of_ranges(
    axes: &[Vector; 3],
    lo: &[Real; 3],
    hi: &[Real; 3],
) -> ([f32; 3], [f32; 3]) {
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
