//! The intersection of two triangles: the exact set where they cross, as a point, a segment or
//! (for coplanar triangles) a convex polygon — the *intersection curve* of two meshes is the
//! union of these pieces over their contacting triangle pairs.
//!
//! Which pieces exist is decided exactly, with the orientation predicates of
//! [`super::orient3d`] and [`super::orient2d`] on the given coordinates, so the answer is empty
//! exactly when [`super::triangles_intersect`] says the closed triangles do not meet, and a
//! touch (a shared vertex, a vertex on an edge or a face, a shared edge) is a point or segment,
//! never lost. Where the pieces are is computed in double precision: each end of the answer is
//! the intersection of an edge of one triangle with the other triangle, found by interpolation
//! along that edge, so it lies on the edge's segment and within a few ulps (relative to the
//! coordinates) of the other triangle.
//!
//! The construction is the classical one (Möller, "A Fast Triangle-Triangle Intersection Test",
//! JGT 1997; Guigue & Devillers, JGT 2003, §4 compute the same segment): the intersection of two
//! non-coplanar triangles lies on the line where their planes meet, and its ends are where
//! edges of one triangle pass through the other. Here every edge of both triangles is tested
//! against the other triangle (a segment–triangle test with exact signs), and the two
//! farthest-apart crossing points are the answer. Coplanar triangles are intersected as convex
//! polygons in a coordinate plane onto which they project one-to-one: the vertices of each
//! inside the other (closed) and the crossings of their edges; the answer is the convex hull.

use super::tri_tri::{has_area, triangles_intersect};
use crate::math::{Point, Real};
use crate::predicates::{orient2d, orient3d};

/// Where two triangles meet, in the frame of the triangles given (both must be in one frame),
/// in their units.
#[derive(Clone, Debug, PartialEq)]
pub enum Intersection {
    /// The closed triangles do not meet.
    Empty,
    /// They touch in one point (a shared vertex, a vertex on the other's edge or face, crossing
    /// edges, or a degenerate triangle that is a point).
    Point(Point),
    /// They cross or touch along a segment (the usual case for triangles that are not
    /// coplanar). The ends are distinct.
    Segment(Point, Point),
    /// Coplanar triangles overlapping in an area: the convex polygon of the overlap, at least
    /// three corners in order around its boundary.
    Polygon(Vec<Point>),
}

impl Intersection {
    /// Whether the triangles do not meet.
    pub fn is_empty(&self) -> bool {
        matches!(self, Intersection::Empty)
    }

    /// The corners of the answer: none, one point, the two ends of the segment, or the polygon's
    /// corners in boundary order.
    pub fn points(&self) -> Vec<Point> {
        match self {
            Intersection::Empty => Vec::new(),
            Intersection::Point(p) => vec![*p],
            Intersection::Segment(a, b) => vec![*a, *b],
            Intersection::Polygon(v) => v.clone(),
        }
    }

    /// The answer's boundary as segments, for drawing: the segment itself, or the polygon's
    /// edges (a point has none).
    pub fn edges(&self) -> Vec<(Point, Point)> {
        match self {
            Intersection::Empty | Intersection::Point(_) => Vec::new(),
            Intersection::Segment(a, b) => vec![(*a, *b)],
            Intersection::Polygon(v) => {
                (0..v.len()).map(|i| (v[i], v[(i + 1) % v.len()])).collect()
            }
        }
    }
}

/// The intersection of the closed triangles `p` and `q` (three corners each, one frame; any
/// finite coordinates). Degenerate triangles (collinear corners, repeated vertices) are
/// intersected as the segment or point they are.
///
/// Non-empty exactly when [`super::triangles_intersect`]`(p, q)` is true (the same exact
/// predicates decide). The answer is the same set for `(q, p)` as for `(p, q)` (its corners may
/// come in another order). Cost: about 30 orientation predicates for a crossing pair; the
/// coplanar case builds a small polygon (one allocation).
///
/// Source: Möller 1997 and Guigue & Devillers 2003 (the segment on the planes' line); see the
/// module documentation.
///
/// # Examples
/// ```
/// use obbtree::{math::Point, query::{Intersection, triangle_intersection}};
/// let floor = [Point::new(0., 0., 0.), Point::new(4., 0., 0.), Point::new(0., 4., 0.)];
/// // A wall standing across the floor triangle, from (1, 1) to (1, 2).
/// let wall = [Point::new(1., 1., -1.), Point::new(1., 1., 1.), Point::new(1., 3., 1.)];
/// match triangle_intersection(&floor, &wall) {
///     Intersection::Segment(a, b) => {
///         let (lo, hi) = if a.y < b.y { (a, b) } else { (b, a) };
///         assert_eq!((lo, hi), (Point::new(1., 1., 0.), Point::new(1., 2., 0.)));
///     }
///     other => panic!("{other:?}"),
/// }
/// let above = [Point::new(0., 0., 1.), Point::new(1., 0., 1.), Point::new(0., 1., 1.)];
/// assert!(triangle_intersection(&floor, &above).is_empty());
/// ```
pub fn triangle_intersection(p: &[Point; 3], q: &[Point; 3]) -> Intersection {
    if !triangles_intersect(p, q) {
        return Intersection::Empty;
    }
    let mut pts: Vec<Point> = Vec::with_capacity(8);
    match (Shape::of(p), Shape::of(q)) {
        (Shape::Pt(x), _) | (_, Shape::Pt(x)) => return Intersection::Point(x),
        (Shape::Tri(ax_p), Shape::Tri(ax_q)) => {
            let sp = p.map(|x| sign(orient3d(&x, &q[0], &q[1], &q[2])));
            if sp == [0, 0, 0] {
                return coplanar(p, q, ax_p, ax_q);
            }
            let sq = q.map(|x| sign(orient3d(&x, &p[0], &p[1], &p[2])));
            for k in 0..3 {
                let l = (k + 1) % 3;
                edge_triangle(&p[k], &p[l], sp[k], sp[l], q, ax_q, &mut pts);
                edge_triangle(&q[k], &q[l], sq[k], sq[l], p, ax_p, &mut pts);
            }
        }
        (Shape::Seg(u, v), Shape::Tri(ax)) => seg_triangle(&u, &v, q, ax, &mut pts),
        (Shape::Tri(ax), Shape::Seg(u, v)) => seg_triangle(&u, &v, p, ax, &mut pts),
        (Shape::Seg(a0, a1), Shape::Seg(b0, b1)) => seg_seg(&a0, &a1, &b0, &b1, &mut pts),
    }
    extremes(&pts)
}

/// A corner triple by its dimension.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// A triangle with an area, and the two coordinates onto which it projects one-to-one.
    Tri((usize, usize)),
    /// Collinear corners: the segment between the extreme ones (distinct).
    Seg(Point, Point),
    /// Three equal corners.
    Pt(Point),
}

impl Shape {
    fn of(t: &[Point; 3]) -> Shape {
        if has_area(t)
            && let Some(ax) = axis(t)
        {
            return Shape::Tri(ax);
        }
        // Collinear (exactly): the extreme corners along a coordinate in which they differ.
        match (0..3).find(|&k| t[0][k] != t[1][k] || t[0][k] != t[2][k]) {
            None => Shape::Pt(t[0]),
            Some(k) => {
                let lo = t.iter().min_by(|a, b| a[k].total_cmp(&b[k])).copied();
                let hi = t.iter().max_by(|a, b| a[k].total_cmp(&b[k])).copied();
                Shape::Seg(lo.unwrap_or(t[0]), hi.unwrap_or(t[1]))
            }
        }
    }
}

type P2 = [Real; 2];

#[inline]
fn project(p: &Point, (i, j): (usize, usize)) -> P2 {
    [p[i], p[j]]
}

#[inline]
fn sign(x: Real) -> i8 {
    (x > 0.0) as i8 - (x < 0.0) as i8
}

/// The two coordinates to keep so that the triangle projects one-to-one (its exact projected
/// orientation is nonzero), the largest normal component first; `None` for a degenerate one.
fn axis(t: &[Point; 3]) -> Option<(usize, usize)> {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0])).map(Real::abs);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| n[j].total_cmp(&n[i]));
    order
        .into_iter()
        .map(|k| ((k + 1) % 3, (k + 2) % 3))
        .find(|&ax| {
            let [a, b, c] = t.map(|x| project(&x, ax));
            orient2d(&a, &b, &c) != 0.0
        })
}

/// Whether `x` lies in the closed 2D triangle `t` (non-degenerate), exactly.
fn in_triangle2(x: &P2, t: &[P2; 3]) -> bool {
    let o = sign(orient2d(&t[0], &t[1], &t[2]));
    (0..3).all(|k| sign(orient2d(&t[k], &t[(k + 1) % 3], x)) * o >= 0)
}

/// 2D cross product of `u` and `v`.
#[inline]
fn cross2(u: P2, v: P2) -> Real {
    u[0] * v[1] - u[1] * v[0]
}

#[inline]
fn sub2(a: &P2, b: &P2) -> P2 {
    [a[0] - b[0], a[1] - b[1]]
}

/// Where segment `a b` strictly crosses segment `c d` in the projection `ax` (each segment's
/// ends strictly on both sides of the other's line, exact signs): the point on `a b`.
fn strict_crossing(
    a: &Point,
    b: &Point,
    c: &Point,
    d: &Point,
    ax: (usize, usize),
) -> Option<Point> {
    let (a2, b2, c2, d2) = (
        project(a, ax),
        project(b, ax),
        project(c, ax),
        project(d, ax),
    );
    let o1 = sign(orient2d(&a2, &b2, &c2));
    let o2 = sign(orient2d(&a2, &b2, &d2));
    let o3 = sign(orient2d(&c2, &d2, &a2));
    let o4 = sign(orient2d(&c2, &d2, &b2));
    if o1 * o2 >= 0 || o3 * o4 >= 0 {
        return None;
    }
    let ab = sub2(&b2, &a2);
    let cd = sub2(&d2, &c2);
    let denom = cross2(ab, cd);
    let t = if denom != 0.0 {
        (cross2(sub2(&c2, &a2), cd) / denom).clamp(0.0, 1.0)
    } else {
        0.5
    };
    Some(a + (b - a) * t)
}

/// Adds the intersection of segment `a b` with the closed triangle `t` (which has an area and
/// projects one-to-one onto `ax`), given the exact sides `sa`, `sb` of `a` and `b` to `t`'s
/// plane.
fn edge_triangle(
    a: &Point,
    b: &Point,
    sa: i8,
    sb: i8,
    t: &[Point; 3],
    ax: (usize, usize),
    out: &mut Vec<Point>,
) {
    if sa * sb > 0 {
        return;
    }
    if sa == 0 && sb == 0 {
        // The segment lies in the triangle's plane: clip it to the triangle in 2D.
        let t2 = t.map(|x| project(&x, ax));
        for x in [a, b] {
            if in_triangle2(&project(x, ax), &t2) {
                out.push(*x);
            }
        }
        if a != b {
            let (a2, b2) = (project(a, ax), project(b, ax));
            for k in 0..3 {
                if let Some(x) = strict_crossing(a, b, &t[k], &t[(k + 1) % 3], ax) {
                    out.push(x);
                }
                // A corner of the triangle on the segment (where it enters or leaves through
                // that corner rather than across an edge).
                let c = &t2[k];
                if orient2d(&a2, &b2, c) == 0.0
                    && (0..2).all(|i| c[i] >= a2[i].min(b2[i]) && c[i] <= a2[i].max(b2[i]))
                {
                    out.push(t[k]);
                }
            }
        }
        return;
    }
    // One crossing of the plane; the line a b passes through the closed triangle iff the three
    // edge orientations are not of strictly opposite signs (Plücker test).
    let s = [
        sign(orient3d(a, b, &t[0], &t[1])),
        sign(orient3d(a, b, &t[1], &t[2])),
        sign(orient3d(a, b, &t[2], &t[0])),
    ];
    if s.contains(&1) && s.contains(&-1) {
        return;
    }
    if sa == 0 {
        out.push(*a);
    } else if sb == 0 {
        out.push(*b);
    } else {
        let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
        let (da, db) = ((a - t[0]).dot(&n), (b - t[0]).dot(&n));
        let denom = da - db;
        let f = if denom != 0.0 && denom.is_finite() {
            (da / denom).clamp(0.0, 1.0)
        } else {
            0.5
        };
        out.push(a + (b - a) * f);
    }
}

/// A segment `u v` (distinct ends) against a triangle with an area.
fn seg_triangle(u: &Point, v: &Point, t: &[Point; 3], ax: (usize, usize), out: &mut Vec<Point>) {
    let su = sign(orient3d(u, &t[0], &t[1], &t[2]));
    let sv = sign(orient3d(v, &t[0], &t[1], &t[2]));
    edge_triangle(u, v, su, sv, t, ax, out);
}

/// Two segments (distinct ends each) known to intersect.
fn seg_seg(a0: &Point, a1: &Point, b0: &Point, b1: &Point, out: &mut Vec<Point>) {
    // A coordinate plane in which the four points are not all collinear, if any.
    let plane = (0..3).map(|k| ((k + 1) % 3, (k + 2) % 3)).find(|&ax| {
        let [p, q, r, s] = [a0, a1, b0, b1].map(|x| project(x, ax));
        orient2d(&p, &q, &r) != 0.0 || orient2d(&p, &q, &s) != 0.0 || {
            // a0, a1 may project to one point: test the other pair's line too.
            orient2d(&r, &s, &p) != 0.0 || orient2d(&r, &s, &q) != 0.0
        }
    });
    match plane {
        None => {
            // All on one line: the overlap of the two intervals.
            let k = (0..3).find(|&k| a0[k] != a1[k]).unwrap_or(0);
            let (alo, ahi) = if a0[k] <= a1[k] { (a0, a1) } else { (a1, a0) };
            let (blo, bhi) = if b0[k] <= b1[k] { (b0, b1) } else { (b1, b0) };
            out.push(if alo[k] >= blo[k] { *alo } else { *blo });
            out.push(if ahi[k] <= bhi[k] { *ahi } else { *bhi });
        }
        Some(ax) => {
            // One point: an end on the other segment, or a strict crossing.
            let on = |x: &Point, u: &Point, w: &Point| {
                let (x2, u2, w2) = (project(x, ax), project(u, ax), project(w, ax));
                orient2d(&u2, &w2, &x2) == 0.0
                    && (0..2).all(|i| x2[i] >= u2[i].min(w2[i]) && x2[i] <= u2[i].max(w2[i]))
            };
            for (x, u, w) in [(a0, b0, b1), (a1, b0, b1), (b0, a0, a1), (b1, a0, a1)] {
                if on(x, u, w) {
                    out.push(*x);
                }
            }
            if let Some(x) = strict_crossing(a0, a1, b0, b1, ax) {
                out.push(x);
            }
        }
    }
}

/// Coplanar triangles, both with an area: the convex polygon of their overlap.
fn coplanar(
    p: &[Point; 3],
    q: &[Point; 3],
    ax_p: (usize, usize),
    ax_q: (usize, usize),
) -> Intersection {
    // One projection for both: the planes coincide, so `p`'s coordinates project `q` one-to-one
    // too (its projected orientation is nonzero exactly when `p`'s is, up to rounding of the
    // inputs, which are exactly coplanar).
    let ax = if axis_ok(q, ax_p) { ax_p } else { ax_q };
    let p2 = p.map(|x| project(&x, ax));
    let q2 = q.map(|x| project(&x, ax));
    let mut pts: Vec<Point> = Vec::with_capacity(12);
    for x in p {
        if in_triangle2(&project(x, ax), &q2) {
            pts.push(*x);
        }
    }
    for x in q {
        if in_triangle2(&project(x, ax), &p2) {
            pts.push(*x);
        }
    }
    for i in 0..3 {
        for j in 0..3 {
            if let Some(x) = strict_crossing(&p[i], &p[(i + 1) % 3], &q[j], &q[(j + 1) % 3], ax) {
                pts.push(x);
            }
        }
    }
    hull(&pts, ax)
}

fn axis_ok(t: &[Point; 3], ax: (usize, usize)) -> bool {
    let [a, b, c] = t.map(|x| project(&x, ax));
    orient2d(&a, &b, &c) != 0.0
}

/// The convex hull of coplanar points (Andrew's monotone chain in the projection `ax`).
fn hull(pts: &[Point], ax: (usize, usize)) -> Intersection {
    let mut v: Vec<(P2, Point)> = pts.iter().map(|x| (project(x, ax), *x)).collect();
    v.sort_by(|a, b| a.0[0].total_cmp(&b.0[0]).then(a.0[1].total_cmp(&b.0[1])));
    v.dedup_by(|a, b| a.0 == b.0);
    match v.len() {
        0 => return Intersection::Empty,
        1 => return Intersection::Point(v[0].1),
        _ => {}
    }
    let turn = |o: &P2, a: &P2, b: &P2| cross2(sub2(a, o), sub2(b, o));
    let mut lower: Vec<(P2, Point)> = Vec::new();
    for x in &v {
        while lower.len() >= 2
            && turn(&lower[lower.len() - 2].0, &lower[lower.len() - 1].0, &x.0) <= 0.0
        {
            lower.pop();
        }
        lower.push(*x);
    }
    let mut upper: Vec<(P2, Point)> = Vec::new();
    for x in v.iter().rev() {
        while upper.len() >= 2
            && turn(&upper[upper.len() - 2].0, &upper[upper.len() - 1].0, &x.0) <= 0.0
        {
            upper.pop();
        }
        upper.push(*x);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    let corners: Vec<Point> = lower.into_iter().map(|(_, x)| x).collect();
    match corners.len() {
        0 => Intersection::Point(v[0].1),
        1 => Intersection::Point(corners[0]),
        // Collinear points: the chain keeps the two extremes.
        2 => Intersection::Segment(corners[0], corners[1]),
        _ => Intersection::Polygon(corners),
    }
}

/// Points on one line (or one point): the two farthest apart.
fn extremes(pts: &[Point]) -> Intersection {
    let Some(first) = pts.first() else {
        // Unreachable when the exact test said the triangles meet: every meeting has an end on
        // an edge of one of them. Kept total rather than panicking.
        return Intersection::Empty;
    };
    let (mut best, mut ends) = (0.0, (*first, *first));
    for (i, a) in pts.iter().enumerate() {
        for b in &pts[i + 1..] {
            let d = (a - b).norm_squared();
            if d > best {
                best = d;
                ends = (*a, *b);
            }
        }
    }
    if best > 0.0 {
        Intersection::Segment(ends.0, ends.1)
    } else {
        Intersection::Point(*first)
    }
}
