//! The boxes' pruning test of the distance and tolerance queries (OBB and AABB trees): two boxes
//! are surely farther apart than `d` when the gap between their projections on some line
//! exceeds it (any direction gives a lower bound of their distance; each box reaches
//! `Σ h_i |u_i · l̂|` along it). Two lines are tried: the line of centres, then the line between
//! near points of the boxes' mid-sections found by clamping one into the other and back
//! (alternating projections, which close in on the closest points of the rectangles of PQP's
//! swept sphere volumes, Larsen, Gottschalk, Lin & Manocha 1999, §3).
//!
//! Single precision throughout, on the stored floats: the directions may be rounded (any
//! direction's gap is a bound); the gap's own rounding and the axes' departure from orthonormal
//! are covered by growing `d` (a few units of f32's epsilon times the boxes' reach, and 8 ε
//! relative for `|l|`).

use crate::math::Real;

/// A box for the test: its centre, its axes (`axes[i]` axis `i`, unit up to rounding) and half
/// extents, all in one frame (A's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GapBox {
    pub center: [f32; 3],
    pub axes: [[f32; 3]; 3],
    pub half: [f32; 3],
}

/// Whether boxes `a` and `b` are surely more than `d` apart (see the module's text).
#[inline(always)]
pub(crate) fn farther_than(a: &GapBox, b: &GapBox, d: Real) -> bool {
    let t = sub3(b.center, a.center);
    let size = a
        .center
        .iter()
        .chain(&b.center)
        .map(|x| x.abs())
        .sum::<f32>()
        + a.half.iter().chain(&b.half).sum::<f32>();
    let eps = Real::from(f32::EPSILON);
    let d = d * (1.0 + 8.0 * eps) + 32.0 * eps * Real::from(size);
    let beyond = |l: [f32; 3]| gap_exceeds(l, t, [&a.axes, &b.axes], [&a.half, &b.half], d);
    if beyond(t) {
        return true;
    }
    let p = mid_section_point(a.center, &a.axes, &a.half, b.center);
    let q = mid_section_point(b.center, &b.axes, &b.half, p);
    let p = mid_section_point(a.center, &a.axes, &a.half, q);
    beyond(sub3(q, p))
}

/// `x − y`.
#[inline(always)]
fn sub3(x: [f32; 3], y: [f32; 3]) -> [f32; 3] {
    [x[0] - y[0], x[1] - y[1], x[2] - y[2]]
}

#[inline(always)]
fn dot3(x: [f32; 3], y: [f32; 3]) -> f32 {
    x[0] * y[0] + x[1] * y[1] + x[2] * y[2]
}

/// Whether the gap between two boxes' projections on the line along `l` exceeds `d`: that
/// gap, `|l̂ · (c_b − c_a)|` less each box's reach `Σ h_i |u_i · l̂|`, is a lower bound of
/// their distance (any non-zero direction; none for `l = 0`). Compared as `gap · |l| > d · |l|`.
#[inline(always)]
fn gap_exceeds(
    l: [f32; 3],
    centers: [f32; 3],
    axes: [&[[f32; 3]; 3]; 2],
    half: [&[f32; 3]; 2],
    d: Real,
) -> bool {
    let reach = |axes: &[[f32; 3]; 3], half: &[f32; 3]| {
        half[0] * dot3(axes[0], l).abs()
            + half[1] * dot3(axes[1], l).abs()
            + half[2] * dot3(axes[2], l).abs()
    };
    let scaled = dot3(centers, l).abs() - reach(axes[0], half[0]) - reach(axes[1], half[1]);
    Real::from(scaled) > d * Real::from(dot3(l, l).sqrt())
}

/// The point of the box's mid-section across its thinnest axis (centre `c`, axes, half
/// extents) nearest `x`: `x` projected on its plane and clamped to the rectangle.
#[inline(always)]
fn mid_section_point(c: [f32; 3], axes: &[[f32; 3]; 3], half: &[f32; 3], x: [f32; 3]) -> [f32; 3] {
    let thin = if half[0] <= half[1] && half[0] <= half[2] {
        0
    } else if half[1] <= half[2] {
        1
    } else {
        2
    };
    let r = sub3(x, c);
    let mut p = c;
    for i in 0..3 {
        if i != thin {
            let s = dot3(r, axes[i]).clamp(-half[i], half[i]);
            p = [
                p[0] + axes[i][0] * s,
                p[1] + axes[i][1] * s,
                p[2] + axes[i][2] * s,
            ];
        }
    }
    p
}
