//! DiTO-14: a tight OBB orientation in linear time (Larsson & Källberg 2011, *Fast Computation
//! of Tight-Fitting Oriented Bounding Boxes*, Game Engine Gems 2, ch. 1).
//!
//! One pass finds the points of least and greatest projection on seven fixed slab directions
//! (the frame's axes and the cube's four diagonals): 14 *extremal points*. The farthest pair
//! of them and the extremal point farthest from their line make the *large base triangle*;
//! the extremal points farthest below and above its plane make two tetrahedra with it (the
//! *ditetrahedron*). Each of those seven triangles offers three orientations (an edge, the
//! normal, their cross product); each is scored by the box it gives the extremal points, and
//! the best is kept unless the box along the frame's axes, exact from the same pass, is
//! better. The score is the box's half surface area, the chapter's quality measure.
//!
//! Frame: whatever frame the points are in; the axes are unit, orthonormal, right-handed.

use super::sat::lanes::F32x4;
use crate::math::{Point, Real, Vector};

/// The seven slab directions of DiTO-14 (unnormalised: only the order along each matters).
const SLABS: usize = 7;

/// The projections of `p` on the seven slab directions.
#[inline(always)]
fn slabs(p: &Point) -> [Real; SLABS] {
    let (x, y, z) = (p.x, p.y, p.z);
    [x, y, z, x + y + z, x + y - z, x - y + z, x - y - z]
}

/// The extremal points of a point set along the seven slab directions, and their
/// projections ([`Extremes::of_indexed`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extremes {
    /// Per slab direction: the least projection, then the greatest.
    pub lo: [Real; SLABS],
    pub hi: [Real; SLABS],
    /// The points attaining them, and their indices (to tell repeated points apart cheaply).
    pub lo_point: [Point; SLABS],
    pub hi_point: [Point; SLABS],
    lo_id: [u32; SLABS],
    hi_id: [u32; SLABS],
}

impl Extremes {
    /// The extremal points of `points`; `None` if there are none.
    pub(crate) fn of(points: &[Point]) -> Option<Extremes> {
        Self::scan(0..points.len() as u32, |i| points[i as usize])
    }

    /// The extremal points of `vertices[i] − origin` for `i` in `ids`; `None` if `ids` is
    /// empty.
    pub(crate) fn of_indexed(vertices: &[Point], ids: &[u32], origin: &Vector) -> Option<Extremes> {
        Self::scan(ids.iter().copied(), |i| vertices[i as usize] - origin)
    }

    /// One pass over the points `at(i)` for `i` in `ids` that keeps indices (branch-free
    /// selects), then the points.
    #[inline(always)]
    fn scan(mut ids: impl Iterator<Item = u32>, at: impl Fn(u32) -> Point) -> Option<Extremes> {
        let first = ids.next()?;
        let d = slabs(&at(first));
        let (mut lo, mut hi) = (d, d);
        let (mut lo_id, mut hi_id) = ([first; SLABS], [first; SLABS]);
        for i in ids {
            let d = slabs(&at(i));
            for k in 0..SLABS {
                let below = d[k] < lo[k];
                lo[k] = if below { d[k] } else { lo[k] };
                lo_id[k] = if below { i } else { lo_id[k] };
                let above = d[k] > hi[k];
                hi[k] = if above { d[k] } else { hi[k] };
                hi_id[k] = if above { i } else { hi_id[k] };
            }
        }
        Some(Extremes {
            lo,
            hi,
            lo_point: lo_id.map(&at),
            hi_point: hi_id.map(&at),
            lo_id,
            hi_id,
        })
    }

    /// The distinct extremal points (at most 14; a small group has few, as a point is often
    /// extreme along several directions): the first `count` of the array.
    fn points(&self) -> ([Point; 2 * SLABS], usize) {
        let mut out = [self.lo_point[0]; 2 * SLABS];
        let mut ids = [self.lo_id[0]; 2 * SLABS];
        let mut count = 0;
        let all = self.lo_id.iter().zip(&self.lo_point);
        for (id, p) in all.chain(self.hi_id.iter().zip(&self.hi_point)) {
            if !ids[..count].contains(id) {
                (ids[count], out[count]) = (*id, *p);
                count += 1;
            }
        }
        (out, count)
    }
}

/// Up to 16 points relative to a point of the set, in single precision, four lanes at a time
/// (the last group of four padded with the first point): the candidates' scoring, where only
/// the choice among them rests on it (the box is then sized in double precision).
struct Lanes {
    x: [F32x4; 4],
    y: [F32x4; 4],
    z: [F32x4; 4],
    groups: usize,
}

impl Lanes {
    fn new(points: &[Point], origin: &Point) -> Lanes {
        let groups = points.len().div_ceil(4);
        let mut c = [[0.0f32; 16]; 3];
        let padded = points.iter().chain(std::iter::repeat(&points[0]));
        for (i, p) in padded.take(4 * groups).enumerate() {
            let v = p - origin;
            for (k, row) in c.iter_mut().enumerate() {
                row[i] = v[k] as f32;
            }
        }
        let lanes = |c: &[f32; 16]| std::array::from_fn(|g| F32x4::load(&c[4 * g..]));
        Lanes {
            x: lanes(&c[0]),
            y: lanes(&c[1]),
            z: lanes(&c[2]),
            groups,
        }
    }

    /// The points' projections on `u`, `v` and `m` (a frame), each direction's width, and
    /// the first two projections kept for [`Projected::widths`].
    #[inline(always)]
    fn project(&self, u: &Vector, v: &Vector, m: &Vector) -> (Projected, [Real; 2], Real) {
        let splat3 = |a: &Vector| [a.x, a.y, a.z].map(|c| F32x4::splat(c as f32));
        let ([ux, uy, uz], [vx, vy, vz], [mx, my, mz]) = (splat3(u), splat3(v), splat3(m));
        let dot = |g: usize, ax: F32x4, ay: F32x4, az: F32x4| {
            self.x[g]
                .mul(ax)
                .add(self.y[g].mul(ay))
                .add(self.z[g].mul(az))
        };
        let mut out = Projected {
            s: [F32x4::splat(0.0); 4],
            t: [F32x4::splat(0.0); 4],
            groups: self.groups,
        };
        let mut r = Ranges::new();
        let (mut h_lo, mut h_hi) = (F32x4::splat(f32::INFINITY), F32x4::splat(f32::NEG_INFINITY));
        for g in 0..self.groups {
            let (s, t) = (dot(g, ux, uy, uz), dot(g, vx, vy, vz));
            (out.s[g], out.t[g]) = (s, t);
            r.add(s, t);
            let h = dot(g, mx, my, mz);
            (h_lo, h_hi) = (h_lo.min(h), h_hi.max(h));
        }
        (out, r.widths(), lane_width(h_lo, h_hi))
    }
}

/// Lane-wise ranges of two directions' projections.
struct Ranges {
    lo: [F32x4; 2],
    hi: [F32x4; 2],
}

impl Ranges {
    #[inline(always)]
    fn new() -> Ranges {
        Ranges {
            lo: [F32x4::splat(f32::INFINITY); 2],
            hi: [F32x4::splat(f32::NEG_INFINITY); 2],
        }
    }

    #[inline(always)]
    fn add(&mut self, a: F32x4, b: F32x4) {
        self.lo = [self.lo[0].min(a), self.lo[1].min(b)];
        self.hi = [self.hi[0].max(a), self.hi[1].max(b)];
    }

    /// The two widths.
    #[inline(always)]
    fn widths(&self) -> [Real; 2] {
        std::array::from_fn(|k| lane_width(self.lo[k], self.hi[k]))
    }
}

/// The greatest of `hi`'s lanes minus the least of `lo`'s.
#[inline(always)]
fn lane_width(lo: F32x4, hi: F32x4) -> Real {
    let (lo, hi) = (lo.to_array(), hi.to_array());
    let low = lo[0].min(lo[1]).min(lo[2].min(lo[3]));
    let high = hi[0].max(hi[1]).max(hi[2].max(hi[3]));
    Real::from(high - low)
}

/// The points' coordinates `s`, `t` in a plane's basis ([`Lanes::project`]).
struct Projected {
    s: [F32x4; 4],
    t: [F32x4; 4],
    groups: usize,
}

impl Projected {
    /// The widths along `(c, d)` and `(−d, c)` (unit) in the plane's basis.
    #[inline(always)]
    fn widths(&self, c: f32, d: f32) -> [Real; 2] {
        let (c, d, nd) = (F32x4::splat(c), F32x4::splat(d), F32x4::splat(-d));
        let mut r = Ranges::new();
        for g in 0..self.groups {
            let (s, t) = (self.s[g], self.t[g]);
            r.add(s.mul(c).add(t.mul(d)), s.mul(nd).add(t.mul(c)));
        }
        r.widths()
    }
}

/// Half the surface area of a box of widths `w`: DiTO's score (less is better).
#[inline(always)]
fn half_area(w: &[Real; 3]) -> Real {
    w[0] * w[1] + w[1] * w[2] + w[2] * w[0]
}

/// The orthonormal right-handed frame with first axis `u` (unit) and last axis `m` made
/// orthogonal to `u`; `None` if `m` is (nearly) parallel to `u`.
#[inline(always)]
fn frame_of(u: &Vector, m: &Vector) -> Option<[Vector; 3]> {
    let w = (m - u * u.dot(m)).try_normalize(1e-12)?;
    Some([*u, w.cross(u), w])
}

/// The widths of `points` along `axes`.
#[inline(always)]
fn widths(axes: &[Vector; 3], points: &[Point]) -> [Real; 3] {
    let (lo, hi) = super::ranges(axes, points.iter().copied());
    std::array::from_fn(|k| hi[k] - lo[k])
}

/// The best candidate so far: its score on the extremal points, and its axes.
struct Best {
    score: Real,
    axes: Option<[Vector; 3]>,
}

impl Best {
    /// Scores the three orientations of the triangle with unit edges `edges` and normal
    /// `normal` (unit) on the extremal points `lanes`: one pass projects them on the plane
    /// (in the basis of the first edge) and the normal, and each other edge's two widths are
    /// read from the plane's coordinates.
    fn triangle(&mut self, edges: &[Vector; 3], normal: &Vector, lanes: &Lanes) {
        let Some([u, v, m]) = frame_of(&edges[0], normal) else {
            return;
        };
        let (plane, [a, b], height) = lanes.project(&u, &v, &m);
        self.offer(a, b, height, || [u, v, m]);
        for e in &edges[1..] {
            // The edge in the plane's basis, made unit against rounding.
            let (c, d) = (e.dot(&u), e.dot(&v));
            let r = (c * c + d * d).sqrt();
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            if !(r > 0.5) {
                continue;
            }
            let (c, d) = (c / r, d / r);
            let [a, b] = plane.widths(c as f32, d as f32);
            self.offer(a, b, height, || {
                let w = u * c + v * d;
                [w, m.cross(&w), m]
            });
        }
    }

    /// Keeps the box of widths `a`, `b`, `height` along `axes()` if it scores best.
    #[inline(always)]
    fn offer(&mut self, a: Real, b: Real, height: Real, axes: impl FnOnce() -> [Vector; 3]) {
        let score = a * b + (a + b) * height;
        if score < self.score {
            self.score = score;
            self.axes = Some(axes());
        }
    }
}

/// DiTO-14's axes for the point set whose extremal points are `e` (unit, orthonormal,
/// right-handed; any order). The frame's axes when the points' box along them scores no worse
/// on the extremal points, or when the points are (nearly) all one point.
pub(crate) fn dito_axes(e: &Extremes) -> [Vector; 3] {
    let frame = [Vector::x(), Vector::y(), Vector::z()];
    // At unit scale about the first extremal point, by an exact power of two: the squares and
    // products below neither overflow nor underflow (a set spanning less than 1e-300 or more
    // than 1e300 keeps the frame's box).
    let origin = e.lo_point[0];
    let span = e
        .lo_point
        .iter()
        .chain(&e.hi_point)
        .fold(0.0, |s: Real, p| s.max((p - origin).amax()));
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(span > 1e-300 && span < 1e300) {
        return frame;
    }
    let k = Real::from_bits((2 * 1023 - (span.to_bits() >> 52)) << 52);
    let unit = |p: &Point| Point::from((p - origin) * k);
    let (lo_point, hi_point) = (e.lo_point.map(|p| unit(&p)), e.hi_point.map(|p| unit(&p)));
    let (ext, count) = e.points();
    let ext = &ext.map(|p| unit(&p))[..count];
    // The box along the frame's axes, exact from the pass.
    let aabb = half_area(&std::array::from_fn(|i| (e.hi[i] - e.lo[i]) * k));
    // The large base triangle: the farthest pair of extremal points…
    let (mut p0, mut p1, mut far2) = (ext[0], ext[0], -1.0);
    for i in 0..SLABS {
        let d2 = (hi_point[i] - lo_point[i]).norm_squared();
        if d2 > far2 {
            (p0, p1, far2) = (lo_point[i], hi_point[i], d2);
        }
    }
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(far2 > 0.0) || !far2.is_finite() {
        return frame;
    }
    let e0 = (p1 - p0) / far2.sqrt();
    // …and the extremal point farthest from their line.
    let (mut p2, mut line2) = (p0, 0.0);
    for q in ext {
        let v = q - p0;
        let d2 = (v - e0 * e0.dot(&v)).norm_squared();
        if d2 > line2 {
            (p2, line2) = (*q, d2);
        }
    }
    let mut best = Best {
        score: aabb,
        axes: None,
    };
    if line2 <= 1e-24 * far2 {
        // The extremal points lie on a line: the box along it, turned about it to the frame.
        let [x, y, z] = frame;
        let m = [x, y, z]
            .into_iter()
            .min_by(|a, b| a.dot(&e0).abs().total_cmp(&b.dot(&e0).abs()))
            .unwrap_or(z);
        if let Some(axes) = frame_of(&e0, &m) {
            let score = half_area(&widths(&axes, ext));
            if score < best.score {
                return axes;
            }
        }
        return frame;
    }
    let unit = |v: Vector| v.try_normalize(0.0);
    let (Some(e1), Some(e2)) = (unit(p2 - p1), unit(p0 - p2)) else {
        return frame;
    };
    let Some(n) = unit((p1 - p0).cross(&(p2 - p0))) else {
        return frame;
    };
    let lanes = Lanes::new(ext, &p0);
    best.triangle(&[e0, e1, e2], &n, &lanes);
    // The ditetrahedron: the extremal points farthest below and above the base's plane.
    let base = n.dot(&p0.coords);
    let (mut below, mut above) = ((0.0, p0), (0.0, p0));
    for q in ext {
        let d = n.dot(&q.coords) - base;
        if d < below.0 {
            below = (d, *q);
        }
        if d > above.0 {
            above = (d, *q);
        }
    }
    let scale2 = far2;
    for (d, q) in [below, above] {
        if d * d <= 1e-24 * scale2 {
            continue;
        }
        let f = [p0, p1, p2].map(|p| unit(q - p));
        let (Some(f0), Some(f1), Some(f2)) = (f[0], f[1], f[2]) else {
            continue;
        };
        for (edge, a, b) in [(e0, f0, f1), (e1, f1, f2), (e2, f2, f0)] {
            if let Some(m) = unit(edge.cross(&a)) {
                best.triangle(&[edge, a, b], &m, &lanes);
            }
        }
    }
    best.axes.unwrap_or(frame)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn orthonormal(a: &[Vector; 3]) -> bool {
        (0..3).all(|i| (a[i].norm() - 1.0).abs() < 1e-12)
            && a[0].dot(&a[1]).abs() < 1e-12
            && a[1].dot(&a[2]).abs() < 1e-12
            && a[0].dot(&a[2]).abs() < 1e-12
            && (a[0].cross(&a[1]) - a[2]).norm() < 1e-12
    }

    /// A box turned by `rot` is found exactly: its points' DiTO box has its volume.
    #[test]
    fn a_turned_box_is_found() {
        let rot = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1);
        let half = Vector::new(3.0, 1.0, 0.25);
        let corners: Vec<Point> = (0..8)
            .map(|i| {
                let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
                Point::from(rot * Vector::new(s(0) * half.x, s(1) * half.y, s(2) * half.z))
            })
            .collect();
        let axes = dito_axes(&Extremes::of(&corners).unwrap());
        assert!(orthonormal(&axes));
        let w = widths(&axes, &corners);
        let volume = w[0] * w[1] * w[2];
        assert!(
            (volume - 8.0 * half.x * half.y * half.z).abs() < 1e-9,
            "{volume}"
        );
    }

    /// The axes do not depend on the scale: the same points times 2^±600 or 1e±200 give the
    /// same axes (the fit works at unit scale), orthonormal.
    #[test]
    fn the_axes_do_not_depend_on_the_scale() {
        let points: Vec<Point> = (0..20)
            .map(|i| {
                let t = i as Real * 0.7;
                Point::new(t.sin() * 3.0, (1.3 * t).cos(), 0.2 * t)
            })
            .collect();
        let axes_at = |s: Real| {
            let scaled: Vec<Point> = points.iter().map(|p| p * s).collect();
            dito_axes(&Extremes::of(&scaled).unwrap())
        };
        let one = axes_at(1.0);
        for s in [2f64.powi(600), 2f64.powi(-600)] {
            assert_eq!(axes_at(s), one);
        }
        for s in [1e200, 1e-200, 1e-300 * 8.0] {
            let a = axes_at(s);
            assert!(orthonormal(&a));
            for k in 0..3 {
                assert!((a[k] - one[k]).norm() < 1e-9, "{s}: {a:?} {one:?}");
            }
        }
    }

    proptest! {
        /// The axes are orthonormal and right-handed, and the box they give scores no worse on
        /// the extremal points than the frame's box (DiTO's last comparison; the candidates are
        /// scored in single precision).
        #[test]
        fn axes_are_a_frame_no_worse_than_the_frame_box(
            points in prop::collection::vec(
                (-10.0..10.0f64, -10.0..10.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| Point::new(x, y, z)),
                1..40,
            )
        ) {
            let e = Extremes::of(&points).unwrap();
            let axes = dito_axes(&e);
            prop_assert!(orthonormal(&axes));
            let (ext, count) = e.points();
            let ext = &ext[..count];
            let frame = [Vector::x(), Vector::y(), Vector::z()];
            prop_assert!(
                half_area(&widths(&axes, ext)) <= half_area(&widths(&frame, ext)) * (1.0 + 1e-5)
            );
        }
    }
}
