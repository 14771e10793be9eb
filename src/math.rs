//! The one place that names nalgebra types.
//!
//! All geometry in the library is double precision ([`Real`] = `f64`), like RAPID's. Bounding
//! volumes are *stored* in single precision to keep an OBB tree at 128 bytes per triangle, but
//! they are rounded outward when stored (see [`crate::bv`]), so a stored volume always contains
//! the double-precision geometry it bounds; triangle tests are always double precision.
//!
//! Frames are named explicitly everywhere: `rot_ab` / `pos_ab` place model B in model A's frame,
//! `x_a = rot_ab * x_b + pos_ab` (parry writes `pos12`).

/// The scalar type of all geometry: IEEE 754 double precision.
pub type Real = f64;
/// A point in a model's frame.
pub type Point = nalgebra::Point3<Real>;
/// A displacement in a model's frame.
pub type Vector = nalgebra::Vector3<Real>;
/// A 3×3 matrix (rotations, covariances).
pub type Matrix3 = nalgebra::Matrix3<Real>;
/// A rigid motion: rotation then translation.
pub type Isometry = nalgebra::Isometry3<Real>;
/// A unit quaternion (rotation).
pub type UnitQuaternion = nalgebra::UnitQuaternion<Real>;
/// A quaternion, not necessarily of unit norm.
pub type Quaternion = nalgebra::Quaternion<Real>;
/// A translation.
pub type Translation = nalgebra::Translation3<Real>;

/// Applies `x_a = rot_ab * x_b + pos_ab` with a fixed evaluation order.
///
/// The brute-force oracle and the hierarchy traversal both call this one function, so they test
/// triangles on bit-identical coordinates.
#[inline(always)]
pub fn transform_point(rot_ab: &Matrix3, pos_ab: &Vector, x_b: &Point) -> Point {
    let m = rot_ab;
    Point::new(
        m[(0, 0)] * x_b.x + m[(0, 1)] * x_b.y + m[(0, 2)] * x_b.z + pos_ab.x,
        m[(1, 0)] * x_b.x + m[(1, 1)] * x_b.y + m[(1, 2)] * x_b.z + pos_ab.y,
        m[(2, 0)] * x_b.x + m[(2, 1)] * x_b.y + m[(2, 2)] * x_b.z + pos_ab.z,
    )
}

/// Returns the pose of B in A's frame, given both models' poses in a common (world) frame:
/// `pose_ab = pose_a⁻¹ · pose_b`.
pub fn relative_pose(pose_a: &Isometry, pose_b: &Isometry) -> Isometry {
    pose_a.inv_mul(pose_b)
}

/// [`relative_pose`] as the rotation matrix and translation the queries take:
/// `(rot_ab, pos_ab)` with `x_a = rot_ab · x_b + pos_ab`.
pub fn relative_parts(pose_a: &Isometry, pose_b: &Isometry) -> (Matrix3, Vector) {
    let ab = relative_pose(pose_a, pose_b);
    (
        ab.rotation.to_rotation_matrix().into_inner(),
        ab.translation.vector,
    )
}

/// The smallest `f32` that is `>= x` (rounding toward +∞). Used to store bounding volumes
/// conservatively.
#[inline]
pub fn f32_up(x: f64) -> f32 {
    let y = x as f32;
    if (y as f64) < x { y.next_up() } else { y }
}
