//! The public contract of a bounding volume: fit it, place it in the other model's frame, test
//! two for overlap, refit it, check it and draw it.

use super::{BvKind, Fitted, Group, OverlapOptions, VolumeTests};
use crate::math::{Matrix3, Point, Real, Vector};

/// What a hierarchy and its queries need of a bounding volume type ([`super::Obb`],
/// [`super::Aabb`], [`super::Sphere`]; sealed: the walk's paired and SIMD tests live in a
/// crate-private supertrait).
///
/// Frames: a volume of model A is in A's volume frame (A's model frame moved by A's hierarchy
/// origin, [`crate::bvh::Bvh::origin`]), one of model B in B's. `B::Query` holds a query's
/// constants (the relative pose; for AABBs also |R| + ε, van den Bergen 1998, §3) and
/// `B::Placed` is a volume of B expressed in A's volume frame, made once per visited node by
/// [`BoundingVolume::place`] and reused for every test against it.
pub trait BoundingVolume: VolumeTests {
    /// Which kind this is.
    const KIND: BvKind;
    /// Fits a volume to a group of triangles (double precision, stored conservatively, rounded
    /// outward; volume frame): Gottschalk et al. 1996, §4 for OBBs.
    fn fit(group: &Group<'_>) -> Fitted<Self>;
    /// The constants of one query. `rot_ab`, `pos_ab` place B's volume frame in A's
    /// (`x_a = rot_ab · x_b + pos_ab`); every placed volume of B is grown by `margin` (model
    /// units, ≥ 0) to cover the rounding of coordinates far from the origin (see
    /// [`crate::query::collide_with`]). `center_reach_b` bounds the distance of B's volume
    /// centres from their frame's origin ([`crate::bvh::Bvh::center_reach`]): a volume placed in
    /// single precision (OBBs) grows by its rounding error on top of `margin`.
    fn prepare(
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        margin: Real,
        center_reach_b: Real,
        options: &OverlapOptions,
    ) -> Self::Query;
    /// Expresses volume `b` (B's frame) in A's frame.
    fn place(query: &Self::Query, b: &Self) -> Self::Placed;
    /// `false` only if `a` (A's frame) and the placed `b` are disjoint (the separating axis
    /// test of §5 for boxes; conservative: never `false` for volumes whose contents touch).
    fn overlaps(query: &Self::Query, a: &Self, b: &Self::Placed) -> bool;
    /// A volume bounding one triangle, keeping the orientation of `old` where it has one
    /// (refit, van den Bergen 1998, §4).
    fn refit_leaf(old: &Self, triangle: &[Point; 3]) -> Self;
    /// A volume bounding two child volumes, keeping the orientation of `old` (refit).
    fn refit_parent(old: &Self, left: &Self, right: &Self) -> Self;
    /// Whether the stored numbers describe a valid volume (finite; for an OBB, axes orthonormal
    /// to within 1e-6, which the separating axis test's soundness relies on).
    fn well_formed(&self) -> bool;
    /// Whether `p` (same frame) lies in the stored volume, evaluated on the stored numbers.
    fn contains(&self, p: &Point) -> bool;
    /// The volume as an oriented box `(center, axes as columns, half extents)` in its own
    /// frame (a hierarchy's volume frame: [`crate::bvh::Bvh::node_box`] gives the model frame);
    /// a sphere gives its bounding cube. For drawing.
    fn as_box(&self) -> (Point, Matrix3, Vector);
}
