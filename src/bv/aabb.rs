//! Axis-aligned bounding boxes in the model's frame (van den Bergen 1998).

use super::box_gap::{self, GapBox};
use super::sat::separated;
use super::{BoundingVolume, BvKind, Fitted, Group, OverlapOptions, SatMode, VolumeTests, pad, v3};
use crate::math::{Matrix3, Point, Real, Vector, f32_up};

const IDENTITY: [Vector; 3] = [
    Vector::new(1.0, 0.0, 0.0),
    Vector::new(0.0, 1.0, 0.0),
    Vector::new(0.0, 0.0, 1.0),
];

/// An axis-aligned box in its model's frame, stored in single precision (24 bytes).
///
/// The box is `{ x : |x_k − center_k| ≤ half_k }`, rounded outward when stored.
/// Between two models the boxes are relatively oriented, so they are tested with the separating
/// axis test of Gottschalk et al. 1996, §5, with the relative rotation and its absolute value
/// computed once per query (van den Bergen 1998, §3).
#[derive(Clone, Copy, Debug, PartialEq)]
// Saved trees (`bvh::tree_file`) as plain floats; a loaded volume is checked with `well_formed`.
#[cfg_attr(feature = "persist", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(C)]
pub struct Aabb {
    center: [f32; 3],
    half: [f32; 3],
}

impl Aabb {
    /// The smallest stored box containing `points`.
    pub fn from_points(points: impl Iterator<Item = Point>) -> Aabb {
        let (lo, hi) = points.fold(
            ([Real::INFINITY; 3], [Real::NEG_INFINITY; 3]),
            |(lo, hi), p| {
                (
                    std::array::from_fn(|k| lo[k].min(p[k])),
                    std::array::from_fn(|k| hi[k].max(p[k])),
                )
            },
        );
        Aabb::from_extremes(lo, hi)
    }

    /// The smallest stored box around points whose lowest and highest coordinates are `lo` and
    /// `hi`: [`super::store_box`]'s rounding with the frame's axes, component by component.
    #[inline]
    pub(crate) fn from_extremes(lo: [Real; 3], hi: [Real; 3]) -> Aabb {
        let center: [f32; 3] = std::array::from_fn(|k| ((lo[k] + hi[k]) * 0.5) as f32);
        let c = v3(&center);
        let half: [Real; 3] = std::array::from_fn(|k| (hi[k] - c[k]).max(c[k] - lo[k]).max(0.0));
        let pad = pad(half[0] + half[1] + half[2], &c);
        Aabb {
            center,
            half: half.map(|h| f32_up(h + pad)),
        }
    }

    /// The centre, model frame.
    pub fn center(&self) -> Point {
        Point::from(v3(&self.center))
    }

    /// Half extents along x, y, z.
    pub fn half_extents(&self) -> Vector {
        v3(&self.half)
    }

    /// Lowest corner (model frame).
    pub fn mins(&self) -> Point {
        self.center() - self.half_extents()
    }

    /// Highest corner (model frame).
    pub fn maxs(&self) -> Point {
        self.center() + self.half_extents()
    }
}

/// B's AABB placed in A's frame: its centre moved; its orientation is the query's rotation.
#[derive(Clone, Copy, Debug)]
pub struct PlacedAabb {
    center: Vector,
    half: [Real; 3],
}

/// Per-query constants of AABB tests: the relative rotation and |R| + ε, once per query.
#[derive(Clone, Copy, Debug)]
pub struct AabbQuery {
    rot: [[Real; 3]; 3],
    rot_abs: [[Real; 3]; 3],
    rot_ab: Matrix3,
    pos_ab: Vector,
    /// Absolute growth of B's boxes.
    margin: Real,
    lite: bool,
    /// The rotation is exactly the identity (a model against itself, or a pure translation):
    /// the boxes are aligned and their three face axes decide exactly.
    aligned: bool,
}

impl BoundingVolume for Aabb {
    const KIND: BvKind = BvKind::Aabb;

    fn fit(group: &Group<'_>) -> Fitted<Aabb> {
        let bv = Aabb::from_points(group.points());
        let h = bv.half;
        let mut order = [0usize, 1, 2];
        order.sort_by(|&i, &j| h[j].total_cmp(&h[i]));
        Fitted {
            bv,
            split_axes: order.map(|k| IDENTITY[k]),
            center: bv.center(),
        }
    }

    fn prepare(
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        margin: Real,
        _center_reach_b: Real,
        options: &OverlapOptions,
    ) -> AabbQuery {
        let rot: [[Real; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| rot_ab[(i, j)]));
        AabbQuery {
            rot,
            rot_abs: rot.map(|row| row.map(|x| x.abs() + options.epsilon)),
            rot_ab: *rot_ab,
            pos_ab: *pos_ab,
            margin,
            lite: options.sat == SatMode::Lite,
            aligned: *rot_ab == Matrix3::identity(),
        }
    }

    #[inline(always)]
    fn place(q: &AabbQuery, b: &Aabb) -> PlacedAabb {
        let center = if q.aligned {
            v3(&b.center) + q.pos_ab
        } else {
            q.rot_ab * v3(&b.center) + q.pos_ab
        };
        PlacedAabb {
            center,
            half: b.half.map(|h| h as Real + q.margin),
        }
    }

    #[inline(always)]
    fn overlaps(q: &AabbQuery, a: &Aabb, b: &PlacedAabb) -> bool {
        let d = b.center - v3(&a.center);
        if q.aligned {
            return (0..3).all(|k| d[k].abs() <= a.half[k] as Real + b.half[k]);
        }
        !separated(
            &a.half.map(|h| h as Real),
            &b.half,
            &q.rot,
            &q.rot_abs,
            &[d.x, d.y, d.z],
            q.lite,
        )
    }

    fn well_formed(&self) -> bool {
        self.center.iter().chain(&self.half).all(|x| x.is_finite())
            && self.half.iter().all(|&h| h >= 0.0)
    }

    fn contains(&self, p: &Point) -> bool {
        let d = p - self.center();
        (0..3).all(|k| d[k].abs() <= self.half[k] as Real)
    }

    fn refit_leaf(_old: &Aabb, triangle: &[Point; 3]) -> Aabb {
        Aabb::from_points(triangle.iter().copied())
    }

    fn refit_parent(_old: &Aabb, left: &Aabb, right: &Aabb) -> Aabb {
        // The union of the children is the smallest box of the union (van den Bergen 1998, §4).
        let lo = left.mins().inf(&right.mins());
        let hi = left.maxs().sup(&right.maxs());
        let c = nalgebra::center(&lo, &hi);
        let center = [c.x as f32, c.y as f32, c.z as f32];
        let cs = v3(&center);
        let half_f64 = (hi.coords - cs).sup(&(cs - lo.coords));
        // The children are already padded: only round outward (no padding per level, so deep
        // trees do not grow with every refit).
        let p = 4.0 * Real::EPSILON * (half_f64.amax() + cs.amax());
        Aabb {
            center,
            half: [half_f64.x, half_f64.y, half_f64.z].map(|h| f32_up(h + p)),
        }
    }

    fn as_box(&self) -> (Point, Matrix3, Vector) {
        (self.center(), Matrix3::identity(), self.half_extents())
    }
}

impl VolumeTests for Aabb {
    type NodeAlign = ();

    type Query = AabbQuery;

    type Placed = PlacedAabb;

    /// The boxes' gap along two directions ([`box_gap`]), B's box with the query's rotation as
    /// its axes. B's half extents as placed hold the query's margin (the tolerance among it):
    /// taken off (rounded up), so that the boxes themselves are measured.
    #[inline(always)]
    fn farther_than(q: &AabbQuery, a: &Aabb, b: &PlacedAabb, d: Real) -> bool {
        let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let box_a = GapBox {
            center: a.center,
            axes: identity,
            half: a.half,
        };
        let c = b.center;
        let box_b = GapBox {
            center: [c.x as f32, c.y as f32, c.z as f32],
            axes: std::array::from_fn(|j| q.rot.map(|row| row[j] as f32)),
            half: b.half.map(|h| f32_up((h - q.margin).max(0.0))),
        };
        box_gap::farther_than(&box_a, &box_b, d)
    }

    #[inline(always)]
    fn center_distance2(a: &Aabb, b: &PlacedAabb) -> Real {
        (b.center - v3(&a.center)).norm_squared()
    }

    #[inline(always)]
    fn size(&self) -> f32 {
        // Surface area (up to a factor 4): meaningful for flat boxes too, and fewer box tests
        // than RAPID's largest extent (docs/decisions.md, "Descend rule").
        self.half[0] * self.half[1] + self.half[1] * self.half[2] + self.half[2] * self.half[0]
    }

    #[inline(always)]
    fn order_radius2(&self) -> Real {
        let h = self.half.map(Real::from);
        0.5 * (h[0] * h[0] + h[1] * h[1] + h[2] * h[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bv::OverlapOptions;
    use crate::bv::volume_tests::sampled_least_distance;
    use proptest::prelude::*;

    /// The point of box `b` at `t` ∈ [−1, 1]³ of its half extents.
    fn box_point(b: &Aabb, t: [f64; 3]) -> Point {
        b.center() + b.half_extents().component_mul(&Vector::from(t))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The proximity pruning test: boxes said to be farther apart than `d` have no two
        /// points (corners and sampled points) within `d`; B placed by a rotation and a shift,
        /// its placed box grown by a margin that the test takes off again.
        #[test]
        fn farther_than_is_a_lower_bound(
            pa in prop::collection::vec(prop::array::uniform3(-1.0..1.0f64), 1..8),
            pb in prop::collection::vec(prop::array::uniform3(-1.0..1.0f64), 1..8),
            angles in prop::array::uniform3(-3.2..3.2f64),
            shift in prop::array::uniform3(-4.0..4.0f64),
            margin in prop_oneof![Just(0.0), 0.0..0.5f64],
            ts in prop::collection::vec((prop::array::uniform3(-1.0..1.0f64), prop::array::uniform3(-1.0..1.0f64)), 32),
        ) {
            let a = Aabb::from_points(pa.iter().map(|p| Point::from(*p)));
            let b = Aabb::from_points(pb.iter().map(|p| Point::from(*p)));
            let rot = crate::math::UnitQuaternion::from_euler_angles(angles[0], angles[1], angles[2])
                .to_rotation_matrix()
                .into_inner();
            let pos = Vector::from(shift);
            let q = Aabb::prepare(&rot, &pos, margin, 3.0, &OverlapOptions::default());
            let placed = Aabb::place(&q, &b);
            let to_a = |x: Point| crate::math::transform_point(&rot, &pos, &x);
            let least = sampled_least_distance(|t| box_point(&a, t), |t| to_a(box_point(&b, t)), &ts);
            for d in [0.0, 0.25 * least, 0.5 * least, 0.9 * least, least, 2.0 * least] {
                if Aabb::farther_than(&q, &a, &placed, d) {
                    prop_assert!(least > d, "{} {}", least, d);
                }
            }
        }
    }
}
