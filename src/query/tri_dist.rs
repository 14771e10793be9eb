//! Triangle–triangle distance with closest points, for the distance and tolerance queries
//! (Larsen, Gottschalk, Lin, Manocha 1999, *Fast Proximity Queries with Swept Sphere Volumes*,
//! §5: the leaf test of PQP).
//!
//! Two disjoint triangles come closest between two of their edges or between a vertex of one
//! and the face of the other: the distance is the least of the 9 edge–edge distances (closest
//! points of two segments, Ericson 2005, *Real-Time Collision Detection*, §5.1.9, degenerate
//! segments included) and the 6 vertex–face distances (a vertex projected inside the other's
//! plane; a triangle without a usable normal has its edges only). Intersecting triangles are
//! decided by the exact test ([`super::triangles_intersect`]) and are 0 apart, at a point of
//! their intersection.

use super::intersection::triangle_intersection;
use super::tri_tri::triangles_intersect;
use crate::math::{Point, Real, Vector};

/// The distance between triangles `p` and `q` (one frame, any units) and a closest point on
/// each: `(distance, on_p, on_q)`, `|on_p − on_q| = distance` up to rounding. Exact about
/// contact: the distance is 0 exactly when the triangles intersect (touching counts; decided
/// by [`super::triangles_intersect`]), the two points then equal, on the intersection; apart,
/// it is positive (the least positive float where the computed value rounds to 0). Degenerate
/// triangles (segments, points) are valid.
///
/// # Examples
/// ```
/// use obbtree::math::Point;
/// use obbtree::query::triangle_distance;
/// let p = [Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.)];
/// let q = p.map(|x| x + obbtree::math::Vector::new(0., 0., 2.));
/// let (d, on_p, on_q) = triangle_distance(&p, &q);
/// assert_eq!(d, 2.0);
/// assert_eq!((on_q - on_p).norm(), 2.0);
/// ```
pub fn triangle_distance(p: &[Point; 3], q: &[Point; 3]) -> (Real, Point, Point) {
    if triangles_intersect(p, q) {
        let at = meeting_point(p, q);
        return (0.0, at, at);
    }
    let (d, on_p, on_q) = apart(p, q);
    // Disjoint triangles are apart, however little: 0 is kept for contact.
    (d.max(Real::from_bits(1)), on_p, on_q)
}

/// The least distance over the edge pairs and vertex–face pairs of `p` and `q`, with its
/// points: the distance of two disjoint triangles (for intersecting ones, an upper bound).
pub(crate) fn apart(p: &[Point; 3], q: &[Point; 3]) -> (Real, Point, Point) {
    let mut best = (Real::INFINITY, p[0], q[0]);
    let mut keep = |d2: Real, x: Point, y: Point| {
        if d2 < best.0 {
            best = (d2, x, y);
        }
    };
    for i in 0..3 {
        let (p0, p1) = (p[i], p[(i + 1) % 3]);
        for j in 0..3 {
            let (x, y) = segment_segment(&p0, &p1, &q[j], &q[(j + 1) % 3]);
            let v = y - x;
            // The plane through x normal to v has p's edge on one side and q's on the other
            // (x and y are each other's nearest points on the edges); when the third corners
            // are on those sides too, it separates the triangles and no pair is nearer (PQP's
            // early exit, Larsen et al. 1999 §5).
            if (p[(i + 2) % 3] - x).dot(&v) <= 0.0 && (q[(j + 2) % 3] - y).dot(&v) >= 0.0 {
                return (v.norm(), x, y);
            }
            keep(v.norm_squared(), x, y);
        }
    }
    for v in p {
        if let Some(y) = inside_projection(v, q) {
            keep((y - v).norm_squared(), *v, y);
        }
    }
    for v in q {
        if let Some(x) = inside_projection(v, p) {
            keep((v - x).norm_squared(), x, *v);
        }
    }
    let (d2, x, y) = best;
    (d2.sqrt(), x, y)
}

/// A lower bound of the distance of triangles `p` and `q`: where one triangle lies wholly on
/// one side of the other's plane, its nearest corner's distance to that plane (the larger of
/// the two such bounds, less its rounding); at most 0 otherwise.
pub(crate) fn plane_gap(p: &[Point; 3], q: &[Point; 3]) -> Real {
    let side = |t: &[Point; 3], u: &[Point; 3]| {
        let (e1, e2) = (t[1] - t[0], t[2] - t[0]);
        let n = e1.cross(&e2);
        let n2 = n.norm_squared();
        let ee = e1.norm_squared() * e2.norm_squared();
        // The sine of the angle at t[0] (squared: n2 / ee): a nearly flat triangle's normal is
        // known only to about ε / sin radians, so its plane is not trusted below 1e-6 (and
        // not for a NaN).
        let usable = n2 > 1e-12 * ee;
        if !usable {
            return 0.0;
        }
        let len = n2.sqrt();
        let h = u.map(|x| (x - t[0]).dot(&n) / len);
        let low = h[0].min(h[1]).min(h[2]);
        let high = h[0].max(h[1]).max(h[2]);
        if low <= 0.0 && high >= 0.0 {
            return 0.0;
        }
        // The normal's direction error (ε / sin) times the corners' offsets.
        let reach2 = u
            .iter()
            .map(|x| (x - t[0]).norm_squared())
            .fold(0.0, Real::max);
        let slack = 64.0 * Real::EPSILON * (reach2 * ee / n2).sqrt();
        if low > 0.0 {
            low - slack
        } else if high < 0.0 {
            -high - slack
        } else {
            0.0
        }
    };
    // Less the rounding of the planes' distances: a few units in the last place of the
    // coordinates (so that it never exceeds `apart`'s value for the same pair).
    let reach = p
        .iter()
        .chain(q)
        .map(|x| x.coords.amax())
        .fold(0.0, Real::max);
    side(p, q).max(side(q, p)) * (1.0 - 1e-12) - 64.0 * Real::EPSILON * reach
}

/// A point where the intersecting triangles `p` and `q` meet: the mean of the corners of their
/// intersection ([`triangle_intersection`]: a point, a segment or a convex polygon, so the mean
/// lies on it up to rounding).
fn meeting_point(p: &[Point; 3], q: &[Point; 3]) -> Point {
    let points = triangle_intersection(p, q).points();
    if points.is_empty() {
        // Not reached for intersecting triangles; the nearest pair of features is as good.
        let (_, x, _) = apart(p, q);
        return x;
    }
    let sum = points.iter().fold(Vector::zeros(), |s, x| s + x.coords);
    Point::from(sum / points.len() as Real)
}

/// The closest points of segments `p0 p1` and `q0 q1` (Ericson 2005, §5.1.9): the parameters
/// minimise the squared distance over [0, 1]², clamped in turn; a segment of zero length is its
/// point.
fn segment_segment(p0: &Point, p1: &Point, q0: &Point, q1: &Point) -> (Point, Point) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    // Lengths below this (squared, relative to the segments' reach) count as points.
    let tiny = Real::EPSILON * Real::EPSILON * (a + e + r.norm_squared()).max(Real::MIN_POSITIVE);
    let (s, t) = if a <= tiny && e <= tiny {
        (0.0, 0.0)
    } else if a <= tiny {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= tiny {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            // Parallel segments (denom 0): any s; 0, then t and s clamped in turn.
            let mut s = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (p0 + d1 * s, q0 + d2 * t)
}

/// The projection of `v` on the plane of triangle `t` if it falls inside `t` (its closed
/// interior, by the signs of the three sub-triangles' normals along `t`'s); `None` outside, or
/// where `t` has no usable normal (its edges then hold its closest points).
fn inside_projection(v: &Point, t: &[Point; 3]) -> Option<Point> {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let n2 = n.norm_squared();
    let scale = (t[1] - t[0])
        .norm_squared()
        .max((t[2] - t[0]).norm_squared())
        .max((t[2] - t[1]).norm_squared());
    // Also false for a NaN: no usable normal.
    let usable = n2 > Real::EPSILON * Real::EPSILON * scale * scale;
    if !usable {
        return None;
    }
    let x = v - n * ((v - t[0]).dot(&n) / n2);
    let inside = (0..3).all(|k| {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        (b - a).cross(&(x - a)).dot(&n) >= 0.0
    });
    inside.then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tri(c: [f64; 9]) -> [Point; 3] {
        [0, 3, 6].map(|k| Point::new(c[k], c[k + 1], c[k + 2]))
    }

    fn vector(x: &Point) -> parry3d_f64::math::Vector {
        parry3d_f64::math::Vector::new(x.x, x.y, x.z)
    }

    fn shape(t: &[Point; 3]) -> parry3d_f64::shape::Triangle {
        parry3d_f64::shape::Triangle::new(vector(&t[0]), vector(&t[1]), vector(&t[2]))
    }

    /// The distance of a point to a triangle by parry3d-f64 (Voronoi regions, a method other
    /// than this file's), the oracle of the points' positions.
    fn parry_point_triangle(x: &Point, t: &[Point; 3]) -> Real {
        use parry3d_f64::query::PointQuery;
        shape(t).distance_to_local_point(vector(x), true)
    }

    /// Triangle–triangle distance by parry3d-f64 (GJK on the two convex shapes).
    fn parry_distance(p: &[Point; 3], q: &[Point; 3]) -> Real {
        let id = parry3d_f64::math::Pose::IDENTITY;
        parry3d_f64::query::distance(&id, &shape(p), &id, &shape(q))
            .unwrap()
            .distance
    }

    #[test]
    fn parallel_faces_stacked() {
        let p = tri([0., 0., 0., 4., 0., 0., 0., 4., 0.]);
        let q = tri([1., 1., 3., 2., 1., 3., 1., 2., 3.]);
        let (d, x, y) = triangle_distance(&p, &q);
        assert_eq!(d, 3.0);
        assert_eq!(x.z, 0.0);
        assert_eq!(y.z, 3.0);
        assert_eq!((y - x).norm(), 3.0);
    }

    #[test]
    fn crossed_edges() {
        // Two segments-like triangles whose edges cross 1 apart in z.
        let p = tri([-1., 0., 0., 1., 0., 0., 0., -5., 0.]);
        let q = tri([0., -1., 1., 0., 1., 1., 5., 0., 6.]);
        let (d, x, y) = triangle_distance(&p, &q);
        assert!((d - 1.0).abs() < 1e-15, "{d}");
        assert_eq!((x, y), (Point::new(0., 0., 0.), Point::new(0., 0., 1.)));
    }

    #[test]
    fn touching_and_crossing_are_zero() {
        let p = tri([0., 0., 0., 1., 0., 0., 0., 1., 0.]);
        // Touching at a vertex.
        let q = tri([1., 0., 0., 2., 0., 1., 2., 1., 0.]);
        let (d, x, y) = triangle_distance(&p, &q);
        assert_eq!(
            (d, x, y),
            (0.0, Point::new(1., 0., 0.), Point::new(1., 0., 0.))
        );
        // Piercing the interior: no edge pair and no vertex–face pair is 0 apart.
        let q = tri([0.25, 0.25, -1., 0.25, 0.25, 1., 5., 5., 0.5]);
        let (d, x, _) = triangle_distance(&p, &q);
        assert_eq!(d, 0.0);
        assert!(parry_point_triangle(&x, &p) < 1e-12 && parry_point_triangle(&x, &q) < 1e-12);
        assert!(apart(&p, &q).0 > 0.1);
    }

    #[test]
    fn degenerate_triangles() {
        // A point and a segment against a triangle, and a point against a point.
        let t = tri([0., 0., 0., 1., 0., 0., 0., 1., 0.]);
        let point = tri([0.2, 0.2, 2., 0.2, 0.2, 2., 0.2, 0.2, 2.]);
        assert_eq!(triangle_distance(&t, &point).0, 2.0);
        let segment = tri([2., 0., 0., 3., 0., 0., 2.5, 0., 0.]);
        assert_eq!(triangle_distance(&segment, &t).0, 1.0);
        let other = tri([0.2, 0.2, 5., 0.2, 0.2, 5., 0.2, 0.2, 5.]);
        assert_eq!(triangle_distance(&point, &other).0, 3.0);
    }

    #[test]
    fn apart_by_less_than_rounding_is_positive() {
        let p = tri([0., 0., 0., 1., 0., 0., 0., 1., 0.]);
        let q = tri([0., 0., 1e-300, 1., 0., 1e-300, 0., 1., 1e-300]);
        let d = triangle_distance(&p, &q).0;
        assert!(d > 0.0 && d <= 1e-300, "{d}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Against GJK (parry3d-f64): the same distance; both points on their triangles (parry's
        /// point projection) and the distance apart; symmetric in p and q; 0 exactly for an
        /// intersecting pair.
        #[test]
        fn matches_gjk(
            a in prop::array::uniform9(-1.0..1.0f64),
            b in prop::array::uniform9(-1.0..1.0f64),
            shift in prop::array::uniform3(-2.0..2.0f64),
            scale in prop::sample::select(vec![1e-6, 1.0, 1e6]),
            far in prop::sample::select(vec![0.0, 1e6]),
        ) {
            let o = Vector::new(far, -far, far);
            let p = tri(a).map(|x| Point::from(x.coords * scale) + o);
            let q = tri(b).map(|x| Point::from((x.coords + Vector::from(shift)) * scale) + o);
            let (d, x, y) = triangle_distance(&p, &q);
            let reach = (far + 3.0 * scale) * 1e-9;
            // GJK's termination tolerances are absolute: compared at scales from 1 up.
            if scale >= 1.0 {
                let gjk = parry_distance(&p, &q);
                prop_assert!((d - gjk).abs() <= reach + 1e-6 * gjk, "{} {}", d, gjk);
            }
            prop_assert!(((y - x).norm() - d).abs() <= reach);
            prop_assert!(parry_point_triangle(&x, &p) <= reach);
            prop_assert!(parry_point_triangle(&y, &q) <= reach);
            let (e, _, _) = triangle_distance(&q, &p);
            prop_assert!((d - e).abs() <= reach);
            prop_assert_eq!(d == 0.0, triangles_intersect(&p, &q));
        }

        /// Touching by construction (a corner of q placed on p) gives 0 exactly.
        #[test]
        fn corner_on_face_is_zero(
            a in prop::array::uniform9(-1.0..1.0f64),
            b in prop::array::uniform6(-1.0..1.0f64),
            w in prop::array::uniform2(0.0..0.5f64),
        ) {
            let p = tri(a);
            // On the edge p0 p1 at parameter w0, up to rounding.
            let on = p[0] + (p[1] - p[0]) * w[0];
            let q = [on, Point::new(b[0], b[1], b[2]), Point::new(b[3], b[4], b[5])];
            let (d, _, _) = triangle_distance(&p, &q);
            prop_assert_eq!(d == 0.0, triangles_intersect(&p, &q));
            // The corner is on the edge up to the rounding of `on`; the closest points of
            // nearly parallel edges are ill-conditioned, so the bound is loose but far below
            // any real distance here.
            prop_assert!(d <= 1e-9, "{}", d);
        }
    }
}
