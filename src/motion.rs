//! Rigid motions over a unit time interval: the motions the time-of-impact query
//! ([`crate::query::time_of_impact`]) sweeps.
//!
//! A [`RigidMotion`] moves B in A's frame with constant linear and angular velocity: a point of
//! B's model frame, the centre, moves on a straight line, and B turns about it at a constant
//! rate. With the centre at B's model origin this is the interpolation of two poses (rotation by
//! shortest-arc slerp, translation by lerp, [`RigidMotion::between`]); with the centre at the
//! centre of mass it is a rigid body's free flight over one time step ([`RigidMotion::about`]).

use crate::math::{Isometry, Point, Real, Translation, UnitQuaternion, Vector};

/// A motion of B relative to A for `t ∈ [0, 1]`: B's pose (its model frame in A's frame) at `t`
/// is the rotation `exp(t·angular) · start.rotation` and the translation that puts `center`
/// (B's model frame) at `start · center + t·displacement`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidMotion {
    /// B's pose at `t = 0`, in A's frame.
    pub start: Isometry,
    /// The point of B that moves on a straight line, in B's model frame.
    pub center: Point,
    /// The centre's displacement over the motion, A's frame (units of the models).
    pub displacement: Vector,
    /// The rotation over the motion as a rotation vector (axis × angle in radians), A's frame.
    pub rotation: Vector,
}

impl RigidMotion {
    /// From pose `start` to pose `end` (B in A's frame): the rotation by shortest-arc slerp
    /// about B's model origin, the translation by lerp. At `t = 1` the pose is `end` (up to
    /// rounding).
    pub fn between(start: &Isometry, end: &Isometry) -> Self {
        let delta = end.rotation * start.rotation.inverse();
        RigidMotion {
            start: *start,
            center: Point::origin(),
            displacement: end.translation.vector - start.translation.vector,
            // `scaled_axis` takes the shortest arc (an angle in [0, π]).
            rotation: delta.scaled_axis(),
        }
    }

    /// A body at `start` whose point `center` (model frame) moves by `displacement` while the
    /// body turns by the rotation vector `rotation` (A's frame) about it.
    pub fn about(start: &Isometry, center: Point, displacement: Vector, rotation: Vector) -> Self {
        RigidMotion {
            start: *start,
            center,
            displacement,
            rotation,
        }
    }

    /// B's pose at `t` (A's frame).
    pub fn pose_at(&self, t: Real) -> Isometry {
        let rotation = UnitQuaternion::from_scaled_axis(self.rotation * t) * self.start.rotation;
        let center = self.start * self.center + self.displacement * t;
        let origin = center.coords - rotation * self.center.coords;
        Isometry::from_parts(Translation::from(origin), rotation)
    }

    /// An upper bound of how far any point of B within `radius` of the centre moves per unit
    /// of `t`: `|displacement| + |rotation| · radius` (the speed of such a point is
    /// `v + ω × r`). Conservative advancement divides distances by it.
    pub fn speed_bound(&self, radius: Real) -> Real {
        self.displacement.norm() + self.rotation.norm() * radius
    }

    /// Whether every number of the motion is finite.
    pub fn is_finite(&self) -> bool {
        let q = self.start.rotation.quaternion();
        q.coords.iter().all(|x| x.is_finite())
            && self.start.translation.vector.iter().all(|x| x.is_finite())
            && self.center.iter().all(|x| x.is_finite())
            && self.displacement.iter().all(|x| x.is_finite())
            && self.rotation.iter().all(|x| x.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn between_reaches_the_end_pose_by_the_shortest_arc() {
        let start = Isometry::new(Vector::new(1.0, 2.0, 3.0), Vector::new(0.3, -0.2, 0.1));
        let end = Isometry::new(Vector::new(-4.0, 0.5, 2.0), Vector::new(-1.0, 2.5, 0.4));
        let m = RigidMotion::between(&start, &end);
        let at_end = m.pose_at(1.0);
        assert!((at_end.translation.vector - end.translation.vector).norm() < 1e-12);
        assert!(at_end.rotation.angle_to(&end.rotation) < 1e-12);
        assert!(m.pose_at(0.0).rotation.angle_to(&start.rotation) < 1e-15);
        assert!(m.rotation.norm() <= std::f64::consts::PI);
        // Halfway, the slerp's rotation and the lerp's translation.
        let half = m.pose_at(0.5);
        let slerp = start.rotation.slerp(&end.rotation, 0.5);
        assert!(half.rotation.angle_to(&slerp) < 1e-12);
        let lerp = (start.translation.vector + end.translation.vector) * 0.5;
        assert!((half.translation.vector - lerp).norm() < 1e-12);
    }

    #[test]
    fn about_keeps_the_centre_on_its_line_and_bounds_every_point() {
        let start = Isometry::new(Vector::new(0.0, 1.0, 0.0), Vector::new(0.0, 0.0, 0.7));
        let center = Point::new(0.5, 0.25, -1.0);
        let m = RigidMotion::about(
            &start,
            center,
            Vector::new(2.0, 0.0, -1.0),
            Vector::new(0.0, 3.0, 0.0),
        );
        let p = Point::new(1.0, -1.0, 0.5);
        let radius = (p - center).norm();
        let bound = m.speed_bound(radius);
        for k in 1..=100 {
            let (t0, t1) = ((k - 1) as f64 / 100.0, k as f64 / 100.0);
            let c = m.pose_at(t1) * center;
            assert!((c - (start * center + m.displacement * t1)).norm() < 1e-12);
            let moved = (m.pose_at(t1) * p - m.pose_at(t0) * p).norm();
            assert!(
                moved <= bound * (t1 - t0) * (1.0 + 1e-12),
                "{moved} > {bound} / 100"
            );
        }
    }
}
