//! The exact test for two triangles of one mesh, which may share corners: they intersect only
//! where they meet beyond what they share (CGAL's rule for `self_intersections`, decided here
//! by position, so that a seam of duplicated vertices counts as shared too).
//!
//! Let S be the corner positions the two triangles have in common (a corner shared by index has
//! one position, so index sharing is included). With no common position the test is the plain
//! one ([`super::triangles_intersect`]). With one (a point p), both triangles are convex sets
//! holding p, and they meet beyond p iff the part of either one's boundary away from p (its
//! faces that do not hold p: the opposite edge of a triangle, the far ends of a segment) meets
//! the other: a ray from p through a common point other than p leaves each triangle through
//! such a face, and the nearer exit lies in both. With two (a segment pq), non-degenerate
//! triangles meet only on pq unless they are coplanar with their third corners on one side of
//! pq (folded onto each other); a degenerate one lies on the line pq, where it meets the other
//! beyond pq only if both reach past p, or both past q. Triangles with the same three corner
//! positions coincide (a duplicated face) and count as intersecting.
//!
//! Every sign is exact ([`crate::predicates`]), so the answer is exact for any finite input,
//! degenerate triangles included.

use super::tri_tri::exact_axis;
use super::triangles_intersect;
use crate::math::{Point, Real};
use crate::predicates::{Plane, orient2d, orient3d};

/// Whether triangles `p` and `q` of one mesh (same frame) intersect beyond the corner positions
/// they share: the pairs a self-intersection query reports. Exact for any finite coordinates;
/// degenerate triangles are the segments or points they are.
///
/// # Examples
/// ```
/// use obbtree::{math::Point, query::triangles_self_intersect};
/// let (o, x, y) = (Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.));
/// // Two faces of a fold sharing the edge o–x: apart beyond it, unless folded flat onto it.
/// assert!(!triangles_self_intersect(&[o, x, y], &[o, x, Point::new(0., -1., 0.)]));
/// assert!(!triangles_self_intersect(&[o, x, y], &[o, x, Point::new(0., 1., 1.)]));
/// assert!(triangles_self_intersect(&[o, x, y], &[o, x, Point::new(0.5, 0.5, 0.)]));
/// // A fan sharing o, its second face through the first:
/// let through = [o, Point::new(0.2, 0.2, -1.), Point::new(0.3, 0.2, 1.)];
/// assert!(triangles_self_intersect(&[o, x, y], &through));
/// ```
pub fn triangles_self_intersect(p: &[Point; 3], q: &[Point; 3]) -> bool {
    let mut shared = [Point::origin(); 3];
    let mut k = 0;
    for a in p {
        if q.contains(a) && !shared[..k].contains(a) {
            shared[k] = *a;
            k += 1;
        }
    }
    match k {
        0 => triangles_intersect(p, q),
        1 => beyond_point(p, q, &shared[0]),
        2 => beyond_segment(p, q, &shared[0], &shared[1]),
        // Three: `p` has three distinct corners, all of them `q`'s, so `q` has the same three:
        // the triangles coincide.
        _ => true,
    }
}

/// One common position `s`: whether the faces of either triangle away from `s` meet the other.
/// Where one triangle's other corners lie strictly on one side of the other's plane (which
/// holds `s`), the first meets that plane in `s` alone: apart (the usual case, decided by two
/// sides).
fn beyond_point(p: &[Point; 3], q: &[Point; 3], s: &Point) -> bool {
    let (u, v) = opposite(p, s);
    let plane_q = plane(q);
    let side = |plane: &Plane, x: &Point, t: &[Point; 3]| {
        plane.side(x, || orient3d(x, &t[0], &t[1], &t[2]))
    };
    if strictly_one_side(side(&plane_q, &u, q), side(&plane_q, &v, q)) {
        return false;
    }
    let (x, y) = opposite(q, s);
    let plane_p = plane(p);
    if strictly_one_side(side(&plane_p, &x, p), side(&plane_p, &y, p)) {
        return false;
    }
    if plane_p.certainly_has_area() && plane_q.certainly_has_area() {
        // Two triangles: each one's edge opposite s against the other.
        return edge_meets(&u, &v, q, &plane_q) || edge_meets(&x, &y, p, &plane_p);
    }
    far_meets(p, s, q) || far_meets(q, s, p)
}

/// Whether two exact sides are both strictly positive or both strictly negative.
#[inline(always)]
fn strictly_one_side(a: Real, b: Real) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// The plane of triangle `t`.
#[inline]
fn plane(t: &[Point; 3]) -> Plane {
    Plane::new(&t[0], &t[1], &t[2])
}

/// The edge of a triangle opposite its corner at `s` (a triangle has one corner there).
#[inline]
fn opposite(t: &[Point; 3], s: &Point) -> (Point, Point) {
    let i = t.iter().position(|c| c == s).unwrap_or(0);
    (t[(i + 1) % 3], t[(i + 2) % 3])
}

/// Whether the segment `u v` meets the triangle `t` (with area; `plane` its plane): the ends'
/// sides of the plane, then, for a segment through the plane, whether the line `u v` passes
/// through the closed triangle (the three edge orientations not of strictly opposite signs).
/// A segment in the plane is left to [`triangles_intersect`].
#[inline]
fn edge_meets(u: &Point, v: &Point, t: &[Point; 3], plane: &Plane) -> bool {
    let du = plane.side(u, || orient3d(u, &t[0], &t[1], &t[2]));
    let dv = plane.side(v, || orient3d(v, &t[0], &t[1], &t[2]));
    if strictly_one_side(du, dv) {
        return false;
    }
    if du == 0.0 && dv == 0.0 {
        return triangles_intersect(&[*u, *v, *v], t);
    }
    let s = [
        orient3d(u, v, &t[0], &t[1]),
        orient3d(u, v, &t[1], &t[2]),
        orient3d(u, v, &t[2], &t[0]),
    ];
    !(s.iter().any(|&x| x > 0.0) && s.iter().any(|&x| x < 0.0))
}

/// Whether the faces of triangle `t` (a corner at `s`) that do not hold `s` meet triangle
/// `other`: any triangles, degenerate ones included.
fn far_meets(t: &[Point; 3], s: &Point, other: &[Point; 3]) -> bool {
    if exact_axis(t).is_some() {
        // A triangle: one corner is at s; the opposite edge.
        let (u, v) = opposite(t, s);
        return triangles_intersect(&[u, v, v], other);
    }
    // A segment (its ends: the extreme corners along a coordinate in which they differ) or a
    // point; its faces away from s are its ends other than s.
    let Some(axis) = (0..3).find(|&k| t.iter().any(|c| c[k] != t[0][k])) else {
        return false;
    };
    let lo = t
        .iter()
        .min_by(|a, b| a[axis].total_cmp(&b[axis]))
        .unwrap_or(&t[0]);
    let hi = t
        .iter()
        .max_by(|a, b| a[axis].total_cmp(&b[axis]))
        .unwrap_or(&t[0]);
    [lo, hi]
        .into_iter()
        .filter(|end| *end != s)
        .any(|end| triangles_intersect(&[*end; 3], other))
}

/// Two common positions `a ≠ b`: whether the triangles meet beyond the segment `a b`.
fn beyond_segment(p: &[Point; 3], q: &[Point; 3], a: &Point, b: &Point) -> bool {
    let third = |t: &[Point; 3]| *t.iter().find(|c| *c != a && *c != b).unwrap_or(a);
    let (r, s) = (third(p), third(q));
    // Not coplanar (then neither is degenerate): the planes meet in the line a b (the usual
    // case).
    if orient3d(a, b, &r, &s) != 0.0 {
        return false;
    }
    match (exact_axis(p), exact_axis(q)) {
        // Both triangles: only coplanar and folded onto each other, the third corners strictly
        // on one side of a b in their common plane (projected one-to-one onto `ax`).
        (Some(ax), Some(_)) => {
            let pr = |x: &Point| [x[ax.0], x[ax.1]];
            let side_r = orient2d(&pr(a), &pr(b), &pr(&r));
            let side_s = orient2d(&pr(a), &pr(b), &pr(&s));
            (side_r > 0.0 && side_s > 0.0) || (side_r < 0.0 && side_s < 0.0)
        }
        // A degenerate one lies on the line a b, which meets the other triangle in a b only.
        (None, Some(_)) | (Some(_), None) => false,
        // Both on the line a b: intervals along a coordinate in which a and b differ.
        (None, None) => {
            let k = (0..3).find(|&k| a[k] != b[k]).unwrap_or(0);
            let (lo, hi) = (a[k].min(b[k]), a[k].max(b[k]));
            let low = |t: &[Point; 3]| t.iter().map(|c| c[k]).fold(Real::INFINITY, Real::min);
            let high = |t: &[Point; 3]| t.iter().map(|c| c[k]).fold(Real::NEG_INFINITY, Real::max);
            low(p).max(low(q)) < lo || high(p).min(high(q)) > hi
        }
    }
}
