//! Exact triangle–triangle intersection (closed triangles), degenerate triangles included.
//!
//! Non-degenerate pairs use the orientation-predicate test of Guigue & Devillers, "Fast and
//! Robust Triangle-Triangle Overlap Test Using Orientation Predicates" (JGT 2003): only signs of
//! 3×3 determinants decide, no divisions, so the test is exact whenever those determinants are
//! (e.g. for small integer coordinates). Coplanar pairs are decided in 2D by a separating axis
//! test on edge normals, again with orientation predicates only.
//!
//! Degenerate triangles (zero area: collinear corners, two or one distinct vertex) are valid
//! input (Gottschalk et al. 1996, §7.1) and are tested as the segment or point they are; so are
//! "slivers", collinear corners whose cross product is rounding noise (see [`has_area`]).
//! Touching counts as intersecting.

use crate::math::{Point, Real, Vector};

/// Whether the closed triangles `p` and `q` (same frame) intersect. Degenerate triangles are
/// treated as segments or points.
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
/// ```
#[inline]
pub fn triangles_intersect(p: &[Point; 3], q: &[Point; 3]) -> bool {
    let p_tri = has_area(p);
    let q_tri = has_area(q);
    if p_tri && q_tri {
        return tri_tri(p, q);
    }
    let a = Shape::of(p, p_tri);
    let b = Shape::of(q, q_tri);
    degenerate(&a, &b)
}

/// How far below the rounding error of its computation a normal may be before the triangle is
/// treated as degenerate: `|n| ≤ SLIVER · ε · |e1| · |e2|`.
const SLIVER: Real = 16.0;

/// Whether a triangle has an area that its computed normal can be trusted with. A collinear
/// triangle whose cross product is rounding noise rather than exactly zero ("sliver") has no
/// meaningful plane; it is tested as the segment it is.
#[inline(always)]
pub fn has_area(t: &[Point; 3]) -> bool {
    let e1 = t[1] - t[0];
    let e2 = t[2] - t[0];
    let n = e1.cross(&e2);
    let bound = SLIVER * Real::EPSILON;
    n.norm_squared() > bound * bound * e1.norm_squared() * e2.norm_squared()
}

/// A corner triple classified by its dimension.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Tri([Point; 3]),
    Seg(Point, Point),
    Pt(Point),
}

impl Shape {
    fn of(t: &[Point; 3], is_tri: bool) -> Shape {
        if is_tri {
            return Shape::Tri(*t);
        }
        if t[0] == t[1] && t[1] == t[2] {
            return Shape::Pt(t[0]);
        }
        // Collinear: the segment between the farthest pair.
        let d01 = (t[1] - t[0]).norm_squared();
        let d12 = (t[2] - t[1]).norm_squared();
        let d02 = (t[2] - t[0]).norm_squared();
        if d01 >= d12 && d01 >= d02 {
            Shape::Seg(t[0], t[1])
        } else if d12 >= d02 {
            Shape::Seg(t[1], t[2])
        } else {
            Shape::Seg(t[0], t[2])
        }
    }
}

/// Signed volume: `(a − d) · ((b − d) × (c − d))`.
#[inline(always)]
fn orient3d(a: &Point, b: &Point, c: &Point, d: &Point) -> Real {
    (a - d).dot(&(b - d).cross(&(c - d)))
}

/// Guigue–Devillers for two non-degenerate triangles.
#[inline]
fn tri_tri(t1: &[Point; 3], t2: &[Point; 3]) -> bool {
    let [p1, q1, r1] = t1;
    let [p2, q2, r2] = t2;
    // Position of T1's corners relative to the plane of T2.
    let n2 = (p2 - r2).cross(&(q2 - r2));
    let dp1 = (p1 - r2).dot(&n2);
    let dq1 = (q1 - r2).dot(&n2);
    let dr1 = (r1 - r2).dot(&n2);
    if strictly_same_side(dp1, dq1, dr1) {
        return false;
    }
    // Position of T2's corners relative to the plane of T1.
    let n1 = (q1 - p1).cross(&(r1 - p1));
    let dp2 = (p2 - r1).dot(&n1);
    let dq2 = (q2 - r1).dot(&n1);
    let dr2 = (r2 - r1).dot(&n1);
    if strictly_same_side(dp2, dq2, dr2) {
        return false;
    }
    // Circular permutation of T1 so that p1 is alone on its side of π2; T2 is swapped to match.
    if dp1 > 0.0 {
        if dq1 > 0.0 {
            tri_tri_3d([r1, p1, q1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2, &n1)
        } else if dr1 > 0.0 {
            tri_tri_3d([q1, r1, p1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2, &n1)
        } else {
            tri_tri_3d([p1, q1, r1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2, &n1)
        }
    } else if dp1 < 0.0 {
        if dq1 < 0.0 {
            tri_tri_3d([r1, p1, q1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2, &n1)
        } else if dr1 < 0.0 {
            tri_tri_3d([q1, r1, p1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2, &n1)
        } else {
            tri_tri_3d([p1, q1, r1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2, &n1)
        }
    } else if dq1 < 0.0 {
        if dr1 >= 0.0 {
            tri_tri_3d([q1, r1, p1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2, &n1)
        } else {
            tri_tri_3d([p1, q1, r1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2, &n1)
        }
    } else if dq1 > 0.0 {
        if dr1 > 0.0 {
            tri_tri_3d([p1, q1, r1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2, &n1)
        } else {
            tri_tri_3d([q1, r1, p1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2, &n1)
        }
    } else if dr1 > 0.0 {
        tri_tri_3d([r1, p1, q1], [p2, q2, r2], [dp2, dq2, dr2], t1, t2, &n1)
    } else if dr1 < 0.0 {
        tri_tri_3d([r1, p1, q1], [p2, r2, q2], [dp2, dr2, dq2], t1, t2, &n1)
    } else {
        coplanar(t1, t2, &n1)
    }
}

#[inline(always)]
fn strictly_same_side(a: Real, b: Real, c: Real) -> bool {
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
    n1: &Vector,
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
        coplanar(t1, t2, n1)
    }
}

/// The two orientation predicates that decide whether the intervals of the triangles on the
/// line of the planes' intersection overlap.
#[inline(always)]
fn check_min_max(p1: &Point, q1: &Point, r1: &Point, p2: &Point, q2: &Point, r2: &Point) -> bool {
    let n = (p2 - q1).cross(&(p1 - q1));
    if (q2 - q1).dot(&n) > 0.0 {
        return false;
    }
    let n = (p2 - p1).cross(&(r1 - p1));
    (r2 - p1).dot(&n) <= 0.0
}

/// The two coordinates kept when projecting along the dominant component of `n`.
#[inline]
fn drop_axis(n: &Vector) -> (usize, usize) {
    let a = n.map(Real::abs);
    if a.x >= a.y && a.x >= a.z {
        (1, 2)
    } else if a.y >= a.z {
        (2, 0)
    } else {
        (0, 1)
    }
}

type P2 = [Real; 2];

#[inline]
fn project(p: &Point, (i, j): (usize, usize)) -> P2 {
    [p[i], p[j]]
}

/// Coplanar triangles: 2D test after dropping the dominant axis of T1's normal.
#[cold]
fn coplanar(t1: &[Point; 3], t2: &[Point; 3], n1: &Vector) -> bool {
    let ax = drop_axis(n1);
    let a: Vec<P2> = t1.iter().map(|p| project(p, ax)).collect();
    let b: Vec<P2> = t2.iter().map(|p| project(p, ax)).collect();
    convex2d_intersect(&a, &b)
}

#[inline(always)]
fn orient2d(a: &P2, b: &P2, c: &P2) -> Real {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// Intersection of the convex hulls of two sets of 1 to 3 points in the plane, by a separating
/// axis test over edge normals with orientation predicates; collinear configurations fall back
/// to interval overlap along a coordinate. Touching counts.
fn convex2d_intersect(a: &[P2], b: &[P2]) -> bool {
    let a = dedup2(a);
    let b = dedup2(b);
    // An edge (u, v) of one set separates if every point of the other lies strictly on the side
    // opposite to `inside` (for a triangle) or strictly on one side (for a segment).
    let separates = |u: &P2, v: &P2, inside: Option<&P2>, other: &[P2]| -> bool {
        match inside {
            Some(w) => {
                let s = orient2d(u, v, w);
                other.iter().all(|o| orient2d(u, v, o) * s < 0.0)
            }
            None => {
                other.iter().all(|o| orient2d(u, v, o) > 0.0)
                    || other.iter().all(|o| orient2d(u, v, o) < 0.0)
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
            2.. => {
                let (u, v) = farthest_pair(x);
                if separates(&u, &v, None, y) {
                    return false;
                }
            }
            _ => {}
        }
    }
    // No edge normal separates. If both sets are flat along one common line (or points), the
    // line direction may still separate: compare intervals along it.
    let all: Vec<P2> = a.iter().chain(b.iter()).copied().collect();
    if is_collinear(&all) {
        let (u, v) = farthest_pair(&all);
        let k = if (v[0] - u[0]).abs() >= (v[1] - u[1]).abs() {
            0
        } else {
            1
        };
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
    let mut out: Vec<P2> = Vec::with_capacity(3);
    for p in s {
        if !out.contains(p) {
            out.push(*p);
        }
    }
    out
}

fn farthest_pair(s: &[P2]) -> (P2, P2) {
    let mut best = (s[0], s[0], -1.0);
    for i in 0..s.len() {
        for j in i + 1..s.len() {
            let d = (s[i][0] - s[j][0]).powi(2) + (s[i][1] - s[j][1]).powi(2);
            if d > best.2 {
                best = (s[i], s[j], d);
            }
        }
    }
    (best.0, best.1)
}

fn is_collinear(s: &[P2]) -> bool {
    if s.len() < 3 {
        return true;
    }
    let (u, v) = farthest_pair(s);
    if u == v {
        return true;
    }
    s.iter().all(|p| orient2d(&u, &v, p) == 0.0)
}

/// Pairs in which at least one side is a segment or a point.
#[cold]
fn degenerate(a: &Shape, b: &Shape) -> bool {
    use Shape::*;
    match (a, b) {
        (Tri(t), Seg(u, v)) | (Seg(u, v), Tri(t)) => tri_seg(t, u, v),
        (Tri(t), Pt(x)) | (Pt(x), Tri(t)) => {
            let n = (t[0] - t[2]).cross(&(t[1] - t[2]));
            if (x - t[2]).dot(&n) != 0.0 {
                return false;
            }
            let ax = drop_axis(&n);
            convex2d_intersect(&t.map(|p| project(&p, ax)), &[project(x, ax)])
        }
        (Seg(a0, a1), Seg(b0, b1)) => {
            if orient3d(a0, a1, b0, b1) != 0.0 {
                return false;
            }
            let mut n = (a1 - a0).cross(&(b1 - b0));
            if n == Vector::zeros() {
                n = (a1 - a0).cross(&(b0 - a0));
            }
            if n == Vector::zeros() {
                // All four points on one line: intervals along the dominant coordinate.
                return collinear_overlap(&[*a0, *a1], &[*b0, *b1], &(a1 - a0));
            }
            let ax = drop_axis(&n);
            convex2d_intersect(
                &[project(a0, ax), project(a1, ax)],
                &[project(b0, ax), project(b1, ax)],
            )
        }
        (Seg(u, v), Pt(x)) | (Pt(x), Seg(u, v)) => {
            (v - u).cross(&(x - u)) == Vector::zeros()
                && collinear_overlap(&[*u, *v], &[*x], &(v - u))
        }
        (Pt(x), Pt(y)) => x == y,
        (Tri(_), Tri(_)) => unreachable!("non-degenerate pairs are handled by tri_tri"),
    }
}

fn collinear_overlap(a: &[Point], b: &[Point], dir: &Vector) -> bool {
    let d = dir.map(Real::abs);
    let k = if d.x >= d.y && d.x >= d.z {
        0
    } else if d.y >= d.z {
        1
    } else {
        2
    };
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

/// A closed triangle against a segment `u v` (u ≠ v).
fn tri_seg(t: &[Point; 3], u: &Point, v: &Point) -> bool {
    let n = (t[0] - t[2]).cross(&(t[1] - t[2]));
    let du = (u - t[2]).dot(&n);
    let dv = (v - t[2]).dot(&n);
    if (du > 0.0 && dv > 0.0) || (du < 0.0 && dv < 0.0) {
        return false;
    }
    if du == 0.0 && dv == 0.0 {
        let ax = drop_axis(&n);
        return convex2d_intersect(
            &t.map(|p| project(&p, ax)),
            &[project(u, ax), project(v, ax)],
        );
    }
    // The segment meets the plane in one point; the line u v passes through the closed triangle
    // iff the three edge orientations do not have strictly opposite signs (Plücker test).
    let s = [
        orient3d(u, v, &t[0], &t[1]),
        orient3d(u, v, &t[1], &t[2]),
        orient3d(u, v, &t[2], &t[0]),
    ];
    !(s.iter().any(|&x| x > 0.0) && s.iter().any(|&x| x < 0.0))
}
