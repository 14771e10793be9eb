//! Bounding spheres (the volume of Li & Chen's separation lists).

use super::{Aabb, BoundingVolume, BvKind, Fitted, Group, OverlapOptions, VolumeTests, pad, v3};
use crate::math::{Matrix3, Point, Real, Vector, f32_up};

/// A bounding sphere in its model's frame, stored in single precision (16 bytes).
///
/// Fitted around the centre of the group's AABB with the radius of the farthest vertex, rounded
/// outward; a sphere tree splits its groups along the AABB's longest axis.
#[derive(Clone, Copy, Debug, PartialEq)]
// Saved trees (`bvh::tree_file`) as plain floats; a loaded volume is checked with `well_formed`.
#[cfg_attr(feature = "persist", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(C)]
pub struct Sphere {
    center: [f32; 3],
    radius: f32,
}

impl Sphere {
    /// The sphere centred at `center` (rounded to `f32`) through the farthest of `points`.
    pub fn around(center: &Point, points: impl Iterator<Item = Point>) -> Sphere {
        let c = [center.x as f32, center.y as f32, center.z as f32];
        let cs = v3(&c);
        let r = points.map(|p| (p.coords - cs).norm()).fold(0.0, Real::max);
        Sphere {
            center: c,
            radius: f32_up(r + pad(r, &cs)),
        }
    }

    /// The centre, model frame.
    pub fn center(&self) -> Point {
        Point::from(v3(&self.center))
    }

    /// The radius (model units).
    pub fn radius(&self) -> Real {
        self.radius as Real
    }
}

/// B's sphere in A's frame.
#[derive(Clone, Copy, Debug)]
pub struct PlacedSphere {
    center: Vector,
    radius: Real,
}

/// Per-query constants of sphere tests.
#[derive(Clone, Copy, Debug)]
pub struct SphereQuery {
    rot_ab: Matrix3,
    pos_ab: Vector,
    /// Absolute growth of B's spheres.
    margin: Real,
}

impl BoundingVolume for Sphere {
    const KIND: BvKind = BvKind::Sphere;

    fn fit(group: &Group<'_>) -> Fitted<Sphere> {
        let aabb = Aabb::fit(group);
        let bv = Sphere::around(&aabb.center, group.points());
        Fitted {
            bv,
            split_axes: aabb.split_axes,
            center: aabb.center,
        }
    }

    fn prepare(
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        margin: Real,
        _center_reach_b: Real,
        _options: &OverlapOptions,
    ) -> SphereQuery {
        SphereQuery {
            rot_ab: *rot_ab,
            pos_ab: *pos_ab,
            margin,
        }
    }

    #[inline(always)]
    fn place(q: &SphereQuery, b: &Sphere) -> PlacedSphere {
        PlacedSphere {
            center: q.rot_ab * v3(&b.center) + q.pos_ab,
            radius: b.radius as Real + q.margin,
        }
    }

    #[inline(always)]
    fn overlaps(_q: &SphereQuery, a: &Sphere, b: &PlacedSphere) -> bool {
        let r = a.radius as Real + b.radius;
        (b.center - v3(&a.center)).norm_squared() <= r * r
    }

    fn well_formed(&self) -> bool {
        self.center.iter().all(|x| x.is_finite()) && self.radius.is_finite() && self.radius >= 0.0
    }

    fn contains(&self, p: &Point) -> bool {
        (p.coords - v3(&self.center)).norm() <= self.radius as Real
    }

    fn refit_leaf(_old: &Sphere, triangle: &[Point; 3]) -> Sphere {
        let aabb = Aabb::from_points(triangle.iter().copied());
        Sphere::around(&aabb.center(), triangle.iter().copied())
    }

    fn refit_parent(_old: &Sphere, left: &Sphere, right: &Sphere) -> Sphere {
        // The smallest sphere enclosing both children.
        let (cl, cr) = (v3(&left.center), v3(&right.center));
        let (rl, rr) = (left.radius as Real, right.radius as Real);
        let d = (cr - cl).norm();
        let (c, r) = if d + rr <= rl {
            (cl, rl)
        } else if d + rl <= rr {
            (cr, rr)
        } else {
            let r = 0.5 * (d + rl + rr);
            (cl + (cr - cl) * ((r - rl) / d), r)
        };
        let center = [c.x as f32, c.y as f32, c.z as f32];
        let cs = v3(&center);
        // Grow for the rounding of the centre.
        let r = r + (cs - c).norm();
        Sphere {
            center,
            radius: f32_up(r + pad(r, &cs)),
        }
    }

    fn as_box(&self) -> (Point, Matrix3, Vector) {
        (
            self.center(),
            Matrix3::identity(),
            Vector::repeat(self.radius as Real),
        )
    }
}

impl VolumeTests for Sphere {
    type NodeAlign = ();

    type Query = SphereQuery;

    type Placed = PlacedSphere;

    #[inline(always)]
    fn center_distance2(a: &Sphere, b: &PlacedSphere) -> Real {
        (b.center - v3(&a.center)).norm_squared()
    }

    #[inline(always)]
    fn size(&self) -> f32 {
        self.radius
    }

    #[inline(always)]
    fn order_radius2(&self) -> Real {
        let r = Real::from(self.radius);
        r * r
    }
}
