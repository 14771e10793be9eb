//! Exact triangle–triangle intersection (closed triangles), degenerate triangles included.
//!
//! Non-degenerate pairs use the orientation-predicate test of Guigue & Devillers, "Fast and
//! Robust Triangle-Triangle Overlap Test Using Orientation Predicates" (JGT 2003): only signs of
//! 3×3 determinants decide, no divisions. Coplanar pairs are decided in 2D by a separating axis
//! test on edge normals, again with orientation predicates only.
//!
//! Every sign is exact for the `f64` coordinates the test receives ([`crate::predicates`]: a
//! floating-point filter, then Shewchuk's adaptive arithmetic, then big integers), so touching —
//! a shared vertex, a vertex on an edge or a face, a shared edge, coincident triangles — is
//! always a contact, and a gap of one ulp is never one.
//!
//! Degenerate triangles (zero area: collinear corners, two or one distinct vertex) are valid
//! input (Gottschalk et al. 1996, §7.1) and are tested as the segment or point they are. Whether
//! a triangle is degenerate is itself decided exactly (its normal is exactly zero), so a sliver
//! with a tiny but nonzero area stays a triangle.

use crate::math::{Point, Real};
use crate::predicates::{Plane, orient2d, orient3d};

/// Whether the closed triangles `p` and `q` (same frame) intersect. Degenerate triangles are
/// treated as segments or points. Exact for any finite coordinates.
///
/// # Examples
/// ```
/// use obbtree::{math::Point, query::triangles_intersect};
/// let t = [Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.)];
/// let through = [Point::new(0.2, 0.2, -1.), Point::new(0.2, 0.2, 1.), Point::new(0.3, 0.2, 1.)];
/// let above = [Point::new(0., 0., 1.), Point::new(1., 0., 1.), Point::new(0., 1., 1.)];
/// assert!(triangles_intersect(&t, &through));
/// assert!(!triangles_intersect(&t, &above));
/// // A segment (degenerate triangle) piercing t:
/// let seg = [Point::new(0.1, 0.1, -1.), Point::new(0.1, 0.1, 1.), Point::new(0.1, 0.1, 1.)];
/// assert!(triangles_intersect(&t, &seg));
/// // A triangle touches itself, whatever its coordinates:
/// let f = [Point::new(-0.047541, -0.1345746, 0.1682382),
///          Point::new(-0.0399540000000001, -0.1422036, 0.1897743),
///          Point::new(-0.038577, -0.1365486, 0.1897743)];
/// assert!(triangles_intersect(&f, &f));
/// ```
#[inline]
pub fn triangles_intersect(p: &[Point; 3], q: &[Point; 3]) -> bool {
    triangles_intersect_on(p, q, &Plane::new(&q[0], &q[1], &q[2]))
}

/// [`triangles_intersect`] given the plane of `q` (`Plane::new(&q[0], &q[1], &q[2])`), for a
/// traversal that tests one triangle against several in a row.
#[inline(always)]
pub(crate) fn triangles_intersect_on(p: &[Point; 3], q: &[Point; 3], plane2: &Plane) -> bool {
    let [p1, q1, r1] = p;
    let [p2, q2, r2] = q;
    // Position of T1's corners relative to the plane of T2. Exact signs, so when the plane is
    // defined (T2 not degenerate) a strict side is a proof of separation, and when it is not
    // (the normal is exactly zero) every side is 0 and nothing is rejected.
    let d1 = plane2.sides([p1, q1, r1], |k| orient3d(&p[k], p2, q2, r2));
    if strictly_same_side(d1) {
        return false;
    }
    // Position of T2's corners relative to the plane of T1.
    let plane1 = Plane::new(p1, q1, r1);
    let d2 = plane1.sides([p2, q2, r2], |k| orient3d(&q[k], p1, q1, r1));
    if strictly_same_side(d2) {
        return false;
    }
    if plane1.certainly_has_area() && plane2.certainly_has_area() {
        return tri_tri(p, q, d1, d2);
    }
    slow(p, q, d1, d2)
}

/// The pairs whose area the filter could not certify: classify both exactly.
#[cold]
#[inline(never)]
fn slow(p: &[Point; 3], q: &[Point; 3], d1: [Real; 3], d2: [Real; 3]) -> bool {
    match (exact_axis(p), exact_axis(q)) {
        (Some(_), Some(_)) => tri_tri(p, q, d1, d2),
        (pa, qa) => degenerate(&Shape::of(p, pa), &Shape::of(q, qa)),
    }
}

/// Whether a triangle has an area: its normal is not exactly zero (exact predicate). A
/// collinear triangle — two or three equal corners, or corners on one line — has none and is
/// tested as the segment or point it is.
#[inline]
pub fn has_area(t: &[Point; 3]) -> bool {
    let plane = Plane::new(&t[0], &t[1], &t[2]);
    plane.certainly_has_area() || exact_axis(t).is_some()
}

/// The coordinate axis along which projecting the triangle's plane is one-to-one (the normal's
/// component along it is exactly nonzero), preferring the largest component; `None` for a
/// degenerate triangle. Returned as the two coordinates kept.
pub(crate) fn exact_axis(t: &[Point; 3]) -> Option<(usize, usize)> {
    let n = (t[0] - t[2]).cross(&(t[1] - t[2])).map(Real::abs);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| n[j].total_cmp(&n[i]));
    order.into_iter().map(kept).find(|&ax| {
        let [a, b, c] = t.map(|p| project(&p, ax));
        orient2d(&a, &b, &c) != 0.0
    })
}

/// The two coordinates kept when dropping axis `k`.
#[inline]
fn kept(k: usize) -> (usize, usize) {
    ((k + 1) % 3, (k + 2) % 3)
}

/// A corner triple classified by its dimension.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// A triangle and the coordinates that project its plane one-to-one.
    Tri([Point; 3], (usize, usize)),
    Seg(Point, Point),
    Pt(Point),
}

impl Shape {
    fn of(t: &[Point; 3], axis: Option<(usize, usize)>) -> Shape {
        if let Some(ax) = axis {
            return Shape::Tri(*t, ax);
        }
        // Collinear (exactly): the hull is the segment between the extreme corners along a
        // coordinate in which they differ (exact comparisons; the order along the line is the
        // order along that coordinate).
        match (0..3).find(|&k| t[0][k] != t[1][k] || t[0][k] != t[2][k]) {
            None => Shape::Pt(t[0]),
            Some(k) => {
                let lo = t.iter().min_by(|a, b| a[k].total_cmp(&b[k])).unwrap();
                let hi = t.iter().max_by(|a, b| a[k].total_cmp(&b[k])).unwrap();
                Shape::Seg(*lo, *hi)
            }
        }
    }
}

/// Guigue–Devillers for two non-degenerate triangles, given the exact sides `d1` of T1's corners
/// to T2's plane and `d2` of T2's corners to T1's plane (neither strictly one-sided).
#[inline]
fn tri_tri(
    t1: &[Point; 3],
    t2: &[Point; 3],
    [dp1, dq1, dr1]: [Real; 3],
    [dp2, dq2, dr2]: [Real; 3],
) -> bool {
    let [p1, q1, r1] = t1;
    let [p2, q2, r2] = t2;
    // Circular permutation of T1 so that p1 is alone on its side of π2; T2 is swapped to match.
    if dp1 > 0.0 {
        if dq1 > 0.0 {
            tri_tri_3d([r1, p1, q1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2)
        } else if dr1 > 0.0 {
            tri_tri_3d([q1, r1, p1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2)
        } else {
            tri_tri_3d([p1, q1, r1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2)
        }
    } else if dp1 < 0.0 {
        if dq1 < 0.0 {
            tri_tri_3d([r1, p1, q1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2)
        } else if dr1 < 0.0 {
            tri_tri_3d([q1, r1, p1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2)
        } else {
            tri_tri_3d([p1, q1, r1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2)
        }
    } else if dq1 < 0.0 {
        if dr1 >= 0.0 {
            tri_tri_3d([q1, r1, p1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2)
        } else {
            tri_tri_3d([p1, q1, r1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2)
        }
    } else if dq1 > 0.0 {
        if dr1 > 0.0 {
            tri_tri_3d([p1, q1, r1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2)
        } else {
            tri_tri_3d([q1, r1, p1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2)
        }
    } else if dr1 > 0.0 {
        tri_tri_3d([r1, p1, q1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2)
    } else if dr1 < 0.0 {
        tri_tri_3d([r1, p1, q1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2)
    } else {
        coplanar(t1, t2)
    }
}

#[inline(always)]
fn strictly_same_side([a, b, c]: [Real; 3]) -> bool {
    (a > 0.0 && b > 0.0 && c > 0.0) || (a < 0.0 && b < 0.0 && c < 0.0)
}

/// The second permutation step of Guigue–Devillers and the final interval check.
#[inline(always)]
fn tri_tri_3d(
    [p1, q1, r1]: [&Point; 3],
    [p2, q2, r2]: [&Point; 3],
    [dp2, dq2, dr2]: [Real; 3],
    t1: &[Point; 3],
    t2: &[Point; 3],
) -> bool {
    if dp2 > 0.0 {
        if dq2 > 0.0 {
            check_min_max(p1, r1, q1, r2, p2, q2)
        } else if dr2 > 0.0 {
            check_min_max(p1, r1, q1, q2, r2, p2)
        } else {
            check_min_max(p1, q1, r1, p2, q2, r2)
        }
    } else if dp2 < 0.0 {
        if dq2 < 0.0 {
            check_min_max(p1, q1, r1, r2, p2, q2)
        } else if dr2 < 0.0 {
            check_min_max(p1, q1, r1, q2, r2, p2)
        } else {
            check_min_max(p1, r1, q1, p2, q2, r2)
        }
    } else if dq2 < 0.0 {
        if dr2 >= 0.0 {
            check_min_max(p1, r1, q1, q2, r2, p2)
        } else {
            check_min_max(p1, q1, r1, p2, q2, r2)
        }
    } else if dq2 > 0.0 {
        if dr2 > 0.0 {
            check_min_max(p1, r1, q1, p2, q2, r2)
        } else {
            check_min_max(p1, q1, r1, q2, r2, p2)
        }
    } else if dr2 > 0.0 {
        check_min_max(p1, q1, r1, r2, p2, q2)
    } else if dr2 < 0.0 {
        check_min_max(p1, r1, q1, r2, p2, q2)
    } else {
        coplanar(t1, t2)
    }
}

/// The two orientation predicates that decide whether the intervals of the triangles on the
/// line of the planes' intersection overlap.
#[inline(always)]
fn check_min_max(p1: &Point, q1: &Point, r1: &Point, p2: &Point, q2: &Point, r2: &Point) -> bool {
    // (q2 − q1) · ((p2 − q1) × (p1 − q1)) > 0: disjoint.
    if orient3d(q2, p2, p1, q1) > 0.0 {
        return false;
    }
    // (r2 − p1) · ((p2 − p1) × (r1 − p1)) ≤ 0: overlapping.
    orient3d(r2, p2, r1, p1) <= 0.0
}

type P2 = [Real; 2];

#[inline]
fn project(p: &Point, (i, j): (usize, usize)) -> P2 {
    [p[i], p[j]]
}

/// The sign of an exactly signed value, as −1, 0 or 1 (products of two such values cannot
/// underflow, unlike products of the values).
#[inline(always)]
fn sign(x: Real) -> i8 {
    (x > 0.0) as i8 - (x < 0.0) as i8
}

/// Coplanar triangles (exactly): 2D test after dropping a coordinate along which T1's plane
/// projects one-to-one.
#[cold]
fn coplanar(t1: &[Point; 3], t2: &[Point; 3]) -> bool {
    let ax = exact_axis(t1).expect("a triangle reaching the coplanar test has an area");
    let a = t1.map(|p| project(&p, ax));
    let b = t2.map(|p| project(&p, ax));
    convex2d_intersect(&a, &b)
}

/// Intersection of the convex hulls of two sets of 1 to 3 points in the plane, by a separating
/// axis test over edge normals with exact orientation predicates; collinear configurations fall
/// back to interval overlap along a coordinate. Touching counts.
fn convex2d_intersect(a: &[P2], b: &[P2]) -> bool {
    let a = dedup2(a);
    let b = dedup2(b);
    // An edge (u, v) of one set separates if every point of the other lies strictly on the side
    // opposite to `inside` (for a triangle) or strictly on one side (for a segment).
    let separates = |u: &P2, v: &P2, inside: Option<&P2>, other: &[P2]| -> bool {
        match inside {
            Some(w) => {
                let s = sign(orient2d(u, v, w));
                other.iter().all(|o| sign(orient2d(u, v, o)) * s < 0)
            }
            None => {
                let signs = || other.iter().map(|o| sign(orient2d(u, v, o)));
                signs().all(|x| x > 0) || signs().all(|x| x < 0)
            }
        }
    };
    for (x, y) in [(&a, &b), (&b, &a)] {
        match x.len() {
            3 if orient2d(&x[0], &x[1], &x[2]) != 0.0 => {
                for k in 0..3 {
                    if separates(&x[k], &x[(k + 1) % 3], Some(&x[(k + 2) % 3]), y) {
                        return false;
                    }
                }
            }
            // Collinear: any two distinct points span the line.
            2.. if separates(&x[0], &x[1], None, y) => return false,
            _ => {}
        }
    }
    // No edge normal separates. If both sets lie on one common line (or are points), the line
    // direction may still separate: compare intervals along a coordinate in which the line is
    // not constant (the order along the line is the order along that coordinate).
    let all: Vec<P2> = a.iter().chain(b.iter()).copied().collect();
    let all = dedup2(&all);
    if all.len() == 1 {
        return true;
    }
    let (u, v) = (all[0], all[1]);
    if all.iter().all(|p| orient2d(&u, &v, p) == 0.0) {
        let k = if u[0] != v[0] { 0 } else { 1 };
        let range = |s: &[P2]| {
            s.iter()
                .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(p[k]), hi.max(p[k]))
                })
        };
        let (alo, ahi) = range(&a);
        let (blo, bhi) = range(&b);
        return alo <= bhi && blo <= ahi;
    }
    true
}

fn dedup2(s: &[P2]) -> Vec<P2> {
    let mut out: Vec<P2> = Vec::with_capacity(s.len());
    for p in s {
        if !out.contains(p) {
            out.push(*p);
        }
    }
    out
}

/// The coordinates to keep so that the projection of the (exactly coplanar) `points` keeps
/// them non-collinear; `None` if they are collinear in 3D (then every projection is).
fn plane_axis(points: &[Point]) -> Option<(usize, usize)> {
    (0..3).map(kept).find(|&ax| {
        let p: Vec<P2> = points.iter().map(|x| project(x, ax)).collect();
        let p = dedup2(&p);
        p.len() >= 3 && p[2..].iter().any(|x| orient2d(&p[0], &p[1], x) != 0.0)
    })
}

/// Pairs in which at least one side is a segment or a point.
#[cold]
fn degenerate(a: &Shape, b: &Shape) -> bool {
    use Shape::*;
    match (a, b) {
        (Tri(t, ax), Seg(u, v)) | (Seg(u, v), Tri(t, ax)) => tri_seg(t, *ax, u, v),
        (Tri(t, ax), Pt(x)) | (Pt(x), Tri(t, ax)) => {
            orient3d(x, &t[0], &t[1], &t[2]) == 0.0
                && convex2d_intersect(&t.map(|p| project(&p, *ax)), &[project(x, *ax)])
        }
        (Seg(a0, a1), Seg(b0, b1)) => {
            if orient3d(a0, a1, b0, b1) != 0.0 {
                return false;
            }
            match plane_axis(&[*a0, *a1, *b0, *b1]) {
                // All four points on one line.
                None => collinear_overlap(&[*a0, *a1], &[*b0, *b1]),
                Some(ax) => convex2d_intersect(
                    &[project(a0, ax), project(a1, ax)],
                    &[project(b0, ax), project(b1, ax)],
                ),
            }
        }
        (Seg(u, v), Pt(x)) | (Pt(x), Seg(u, v)) => {
            plane_axis(&[*u, *v, *x]).is_none() && collinear_overlap(&[*u, *v], &[*x])
        }
        (Pt(x), Pt(y)) => x == y,
        (Tri(..), Tri(..)) => unreachable!("non-degenerate pairs are handled by tri_tri"),
    }
}

/// Overlap of two sets of points on one line (the first holds two distinct points): intervals
/// along a coordinate in which the line is not constant.
fn collinear_overlap(a: &[Point], b: &[Point]) -> bool {
    let k = (0..3).find(|&k| a[0][k] != a[1][k]).unwrap_or(0);
    let range = |s: &[Point]| {
        s.iter()
            .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p[k]), hi.max(p[k]))
            })
    };
    let (alo, ahi) = range(a);
    let (blo, bhi) = range(b);
    alo <= bhi && blo <= ahi
}

/// A closed triangle (projecting one-to-one onto the coordinates `ax`) against a segment `u v`
/// (u ≠ v).
fn tri_seg(t: &[Point; 3], ax: (usize, usize), u: &Point, v: &Point) -> bool {
    let du = sign(orient3d(u, &t[0], &t[1], &t[2]));
    let dv = sign(orient3d(v, &t[0], &t[1], &t[2]));
    if du * dv > 0 {
        return false;
    }
    if du == 0 && dv == 0 {
        return convex2d_intersect(
            &t.map(|p| project(&p, ax)),
            &[project(u, ax), project(v, ax)],
        );
    }
    // The segment meets the plane in one point; the line u v passes through the closed triangle
    // iff the three edge orientations do not have strictly opposite signs (Plücker test).
    let s = [
        sign(orient3d(u, v, &t[0], &t[1])),
        sign(orient3d(u, v, &t[1], &t[2])),
        sign(orient3d(u, v, &t[2], &t[0])),
    ];
    !(s.contains(&1) && s.contains(&-1))
}
