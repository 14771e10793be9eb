//! The separating axis test of a box against a triangle, in single-precision lanes: the test a
//! leaf's triangle makes, in place of its box, against the other model's internal nodes.
//!
//! A box and a triangle are disjoint iff their projections onto one of 13 axes are disjoint
//! (the separating axis theorem of Gottschalk et al. 1996, §5, for a box and a triangle): the
//! box's 3 face axes, the triangle's normal and the 9 cross products of a box axis and a
//! triangle edge. In the box's frame (`P_i` the corners relative to its centre, `E_j` the
//! edges `P_{j+1} − P_j`, `N = E_0 × E_1`):
//! * face axis `k`: the corners' coordinates `P_i,k` all beyond `±h_k`;
//! * the normal: `|N · P_0| > Σ_k h_k |N_k|` (all three corners project alike);
//! * `e_k × E_j`: corners `j` and `j + 1` project alike, so the triangle's projection is
//!   centred at half of `(E_j × (P_j + P_{j+2}))_k` with radius half of
//!   `|(E_j × (P_{j+2} − P_j))_k|` (`|N_k|` for edges 0 and 1, `|(E_1 × E_2)_k|` for edge 2),
//!   and the box's radius is `h_{k+1} |E_{j,k+2}| + h_{k+2} |E_{j,k+1}|`: the three axes of
//!   one edge are the three lanes of one cross product.
//!
//! The test never reports a separation that exact arithmetic on the stored box and the
//! triangle's double-precision corners would not: every inequality gets a slack, a bound on
//! the length of its axis times [`super::Slack`]'s relative part of the distances and sizes
//! involved plus the absolute part (the query's margin and the corners' rounding to single
//! precision). The edges come from the rounded corners: an axis that is not exactly
//! perpendicular to an edge is still an axis, and the slack covers the corners of that edge
//! projecting slightly apart. Each edge's projection width is a cross product with that edge
//! itself, so that its rounding is in proportion to the edge's length, which its slack is: a
//! sliver's short edge must not take the width of its two long ones (`N`), whose rounding is
//! in proportion to their product.

use super::Slack;
use super::lanes::{self, X8};
use crate::math::Point;

/// A triangle laid out for [`separated_pair`], in A's volume frame, single precision.
///
/// Made once per leaf (the traversal keeps the last one of each model) from the corners in
/// double precision; `usable` is `false` where single precision cannot carry the test (a
/// triangle smaller than 1e-6 or larger than 1e6 in the sum of its edges' 1-norms, or
/// corners beyond 1e12 from the origin): the traversal then tests the leaf's box.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub struct LaneTriangle {
    /// Corner 0 in lanes 1, 2, 3 (lane 0 zero), where the test subtracts a box centre.
    corner: [f32; 4],
    /// Edges 0 and 1: corner 1 − corner 0, corner 2 − corner 1 (the test's corners 1 and 2
    /// are corner 0 plus these, in the box's frame).
    edges: [[f32; 3]; 2],
    /// Σ_j |edge_j|₁ (a little over): with the distance from a box centre to corner 0, it
    /// bounds the distance to every corner.
    size: f32,
    /// For the cross axes of edge `j`: about 4 · max(|edge_j|₁, 2⁻²⁰ size) (twice a bound on
    /// the axes' lengths, for a projection that is a sum of two).
    edge_reach: [f32; 3],
    /// For the normal: about size², over twice a bound on `|N|₁` (and on its rounding, for a
    /// sliver whose normal is ill-defined).
    normal_reach: f32,
    /// How far a corner moved in its rounding to single precision (along any unit axis),
    /// twice over: 2⁻²² · max |corner coordinate|.
    rounding: f32,
    /// Whether single precision carries the test for this triangle (see the type's doc).
    pub usable: bool,
}

impl LaneTriangle {
    /// No triangle (not usable): a placeholder for a traversal's cache of the last one.
    pub const NONE: LaneTriangle = LaneTriangle {
        corner: [0.0; 4],
        edges: [[0.0; 3]; 2],
        size: 0.0,
        edge_reach: [0.0; 3],
        normal_reach: 0.0,
        rounding: 0.0,
        usable: false,
    };

    /// The triangle with corners `t` (A's volume frame, model units).
    ///
    /// The corners are rounded to single precision and the edges computed from the rounded
    /// corners (in lanes). Their errors tilt the axes, which is harmless (any axis may
    /// separate), and make the corners of an edge project slightly apart on its axes, which
    /// the axes' length factors cover (those of the edges at least 2⁻²⁰ `size`).
    #[inline(always)]
    pub fn new(t: &[Point; 3]) -> LaneTriangle {
        use super::lanes::F32x4;
        let c = t.map(|p| [p.x as f32, p.y as f32, p.z as f32, 0.0]);
        let v = c.map(|c| F32x4::load(&c));
        let e = [v[1].sub(v[0]), v[2].sub(v[1]), v[0].sub(v[2])].map(F32x4::to_array);
        let norm1 = |v: &[f32; 4]| v[0].abs() + v[1].abs() + v[2].abs();
        let en = e.each_ref().map(norm1);
        let size = (en[0] + en[1] + en[2]) * (1.0 + 1e-6);
        let floor = size * (2.0f32).powi(-20);
        // The largest corner coordinate (rounded: 2⁻²⁴ of it at most, inside the factor 2).
        let m = v[0].abs().max(v[1].abs()).max(v[2].abs()).to_array();
        let reach = m[0].max(m[1]).max(m[2]);
        LaneTriangle {
            corner: [0.0, c[0][0], c[0][1], c[0][2]],
            edges: [[e[0][0], e[0][1], e[0][2]], [e[1][0], e[1][1], e[1][2]]],
            size,
            edge_reach: en.map(|en| 4.01 * en.max(floor)),
            normal_reach: 1.01 * size * size,
            rounding: reach * (2.0f32).powi(-22),
            usable: (1e-6..=1e6).contains(&size) && reach <= 1e12,
        }
    }
}

/// One box of a paired box–triangle test: its axes as the lanes of three coordinates
/// (`cols[k]` lane `i` = coordinate `k` of axis `i`, four floats read), its half extents
/// (lanes 0–2) and its centre in lanes 1–3 (four floats read each).
#[derive(Clone, Copy)]
pub struct BoxLanes<'a> {
    /// The axes, coordinate by coordinate.
    pub cols: [&'a [f32]; 3],
    /// The half extents.
    pub half: &'a [f32],
    /// The centre, lanes 1–3.
    pub center: &'a [f32],
}

/// Whether a separating axis proves each of two boxes disjoint from the triangle `t` (all in
/// A's volume frame): `[box 0 separated, box 1 separated]`, each in its own half of eight
/// lanes. `slack` as for the box test ([`super::separated_f32`]); the triangle's own rounding
/// is added to its absolute part. `t` must be [`LaneTriangle::usable`].
///
/// All 13 axes are computed, with no branch after the face axes and the normal: one there was
/// slower (docs/decisions.md, "Separating axis test").
#[inline(always)]
pub fn separated_pair(
    wide: lanes::Wide,
    p: [BoxLanes<'_>; 2],
    t: &LaneTriangle,
    slack: Slack,
) -> [bool; 2] {
    match wide.0 {
        #[cfg(simd_x86)]
        // SAFETY: a `Wide` says AVX2 only where the CPU has it (`Wide::detect`).
        lanes::WideKind::Avx2 => unsafe { separated_avx2(p, t, slack) },
        #[cfg(simd_x86)]
        lanes::WideKind::Avx2Inline => separated_x8::<lanes::Avx8>(p, t, slack),
        _ => separated_x8::<lanes::Halves>(p, t, slack),
    }
}

/// [`separated_x8`] compiled for AVX2 (see [`super::separated_f32_pair`]).
#[cfg(simd_x86)]
#[target_feature(enable = "avx2")]
#[inline]
fn separated_avx2(p: [BoxLanes<'_>; 2], t: &LaneTriangle, slack: Slack) -> [bool; 2] {
    separated_x8::<lanes::Avx8>(p, t, slack)
}

/// [`separated_pair`] on eight lanes (no closures or `map`: see [`super::separated_f32_pair`]).
#[inline(always)]
fn separated_x8<W: X8>(p: [BoxLanes<'_>; 2], t: &LaneTriangle, slack: Slack) -> [bool; 2] {
    #[inline(always)]
    fn madd<W: X8>(c: [W; 3], x: W, y: W, z: W) -> W {
        c[0].mul(x).add(c[1].mul(y)).add(c[2].mul(z))
    }
    #[inline(always)]
    fn rotate<W: X8>(c: [W; 3], v: &[f32; 3]) -> W {
        madd(c, W::splat(v[0]), W::splat(v[1]), W::splat(v[2]))
    }
    /// `a × b` lane by lane, given `a`'s rotations.
    #[inline(always)]
    fn cross<W: X8>((a1, a2): (W, W), b: W) -> W {
        a1.mul(b.rot2()).sub(a2.mul(b.rot1()))
    }
    #[inline(always)]
    fn hsum<W: X8>(v: W) -> W {
        v.broadcast::<0>()
            .add(v.broadcast::<1>())
            .add(v.broadcast::<2>())
    }
    let [p0, p1] = p;
    let cols = [
        W::load2(p0.cols[0], p1.cols[0]),
        W::load2(p0.cols[1], p1.cols[1]),
        W::load2(p0.cols[2], p1.cols[2]),
    ];
    let h = W::load2(p0.half, p1.half);
    let center = W::load2(p0.center, p1.center);
    // Corner 0 in the box's frame, the edges turned into it, and corners 1 and 2 from them.
    let d = W::load2(&t.corner, &t.corner).sub(center);
    let (dx, dy, dz) = (d.broadcast::<1>(), d.broadcast::<2>(), d.broadcast::<3>());
    let c0 = madd(cols, dx, dy, dz);
    let e0 = rotate(cols, &t.edges[0]);
    let e1 = rotate(cols, &t.edges[1]);
    // Edge 2 reversed (corner 2 − corner 0): an axis's sign does not matter.
    let e2 = e0.add(e1);
    let c1 = c0.add(e0);
    let c2 = c1.add(e1);
    // The slack of a unit axis: relative to the distance to corner 0, the triangle's size
    // and twice the box's (its axes' departure from orthonormal), plus the absolute part.
    let gap = dx.abs().add(dy.abs()).add(dz.abs());
    let sizes = hsum(h);
    let s = W::splat(slack.relative)
        .mul(gap.add(W::splat(t.size)).add(sizes.add(sizes)))
        .add(W::splat(slack.absolute).add(W::splat(t.rounding)));
    // Face axes: all three corners beyond the same face.
    let hs = h.add(s);
    let lo = c0.min(c1).min(c2);
    let hi = c0.max(c1).max(c2);
    let faces = W::or(lo.gt(hs), W::splat(0.0).gt(hi.add(hs)));
    // The normal.
    let r0 = (e0.rot1(), e0.rot2());
    let r1 = (e1.rot1(), e1.rot2());
    let n = cross(r0, e1);
    let nabs = n.abs();
    let dist = hsum(n.mul(c0)).abs();
    let reach = hsum(nabs.mul(h)).add(W::splat(t.normal_reach).mul(s));
    let first = W::or(faces, dist.gt(reach));
    // Edge × box axis: three axes per edge, one per lane.
    let (h1, h2) = (h.rot1(), h.rot2());
    let r2 = (e2.rot1(), e2.rot2());
    // Each edge's projection width, a cross product with the edge itself.
    let widths = [nabs, nabs, cross(r1, e2).abs()];
    let edges = [
        (e0, r0, c0.add(c2)),
        (e1, r1, c1.add(c0)),
        (e2, r2, c2.add(c1)),
    ];
    let mut any = first;
    for j in 0..3 {
        let (e, r, q) = edges[j];
        let lhs = cross(r, q).abs();
        let ea = e.abs();
        let rad = h1.mul(ea.rot2()).add(h2.mul(ea.rot1()));
        let rhs = rad
            .add(rad)
            .add(widths[j])
            .add(W::splat(t.edge_reach[j]).mul(s));
        any = W::or(any, lhs.gt(rhs));
    }
    W::any3(any)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Matrix3, Vector, f32_up};
    use proptest::prelude::*;

    /// A box's stored layout: axes (rows of `rot`) coordinate by coordinate, half extents,
    /// centre in lanes 1–3.
    fn layout(
        rot: &Matrix3,
        half: [f32; 3],
        center: &Vector,
    ) -> ([[f32; 4]; 3], [f32; 4], [f32; 4]) {
        let cols = std::array::from_fn(|k| {
            [
                rot[(0, k)] as f32,
                rot[(1, k)] as f32,
                rot[(2, k)] as f32,
                0.0,
            ]
        });
        (
            cols,
            [half[0], half[1], half[2], 0.0],
            [0.0, center.x as f32, center.y as f32, center.z as f32],
        )
    }

    fn test(rot: &Matrix3, half: [f32; 3], center: &Vector, t: &[Point; 3]) -> bool {
        let (cols, h, c) = layout(rot, half, center);
        let b = BoxLanes {
            cols: [&cols[0], &cols[1], &cols[2]],
            half: &h,
            center: &c,
        };
        let tri = LaneTriangle::new(t);
        let slack = Slack {
            relative: super::super::super::obb::SLACK,
            absolute: 0.0,
        };
        let wide = separated_pair(lanes::Wide::detect(), [b, b], &tri, slack);
        let halves = separated_pair(lanes::Wide::HALVES, [b, b], &tri, slack);
        assert_eq!(wide, halves);
        assert_eq!(wide[0], wide[1]);
        wide[0]
    }

    #[test]
    fn separates_what_is_apart_and_not_what_touches() {
        let id = Matrix3::identity();
        let t = [
            Point::new(2.0, 0.0, 0.0),
            Point::new(3.0, 1.0, 0.0),
            Point::new(3.0, -1.0, 0.5),
        ];
        // Face axis x.
        assert!(test(&id, [1.0; 3], &Vector::zeros(), &t));
        // Touching at a corner of the triangle: not separated.
        assert!(!test(&id, [2.0, 1.0, 1.0], &Vector::zeros(), &t));
        // Only the normal separates: a triangle slanted over a box's corner.
        let slanted = [
            Point::new(3.0, 0.0, 0.0),
            Point::new(0.0, 3.0, 0.0),
            Point::new(0.0, 0.0, 3.0),
        ];
        assert!(test(&id, [0.9; 3], &Vector::zeros(), &slanted));
        assert!(!test(&id, [1.0; 3], &Vector::zeros(), &slanted));
        // Only an edge's cross axis separates: an edge skew to a box edge.
        let skew = [
            Point::new(1.5, -5.0, 1.5),
            Point::new(1.5, 5.0, 1.5),
            Point::new(5.0, 0.0, 5.0),
        ];
        let half = |k: f32| [k, 10.0, k];
        // The line x = z = 1.5 clears the box |x|, |z| ≤ 1 along (1, 0, 1)/√2.
        assert!(test(&id, half(1.0), &Vector::zeros(), &skew));
        assert!(!test(&id, half(1.6), &Vector::zeros(), &skew));
    }

    /// The largest gap, over the 13 axes (each normalised), between the projections of the box
    /// (unit axes the rows of `rot`, half extents `h`, centre `c`) and of the triangle `t`, in
    /// double precision: positive when an axis separates them (by that much), negative when
    /// none does (they intersect). Also the largest over the well-conditioned axes only (the
    /// faces; the normal where the triangle is no sliver; an edge's axes where the box axis is
    /// not within 6° of the edge and the edge not 2¹⁸ times shorter than the triangle): there
    /// the test's slack, in proportion to bounds on the axes' lengths, is near its real size.
    fn widest_gap(rot: &Matrix3, h: &[f64; 3], c: &Vector, t: &[Point; 3]) -> (f64, f64) {
        let u: [Vector; 3] = std::array::from_fn(|i| rot.row(i).transpose());
        let e = [t[1] - t[0], t[2] - t[1], t[0] - t[2]];
        let size: f64 = e.iter().map(|e| e.norm()).sum();
        let n = e[0].cross(&e[1]);
        let mut axes = vec![
            (u[0], true),
            (u[1], true),
            (u[2], true),
            (n, n.norm() > 0.05 * size * size),
        ];
        for ui in &u {
            for ej in &e {
                let l = ui.cross(ej);
                let good = l.norm() > 0.1 * ej.norm() && ej.norm() > size * 2f64.powi(-18);
                axes.push((l, good));
            }
        }
        let mut widest = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for (l, good) in axes {
            if l.norm() <= 1e-9 * e[0].norm().max(e[1].norm()) {
                continue;
            }
            let l = l.normalize();
            let r: f64 = (0..3).map(|k| h[k] * l.dot(&u[k]).abs()).sum();
            let p = t.map(|x| l.dot(&(x.coords - c)));
            let (lo, hi) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
            let gap = (lo - r).max(-r - hi);
            widest.0 = widest.0.max(gap);
            if good {
                widest.1 = widest.1.max(gap);
            }
        }
        widest
    }

    /// Random corners in [-1, 1]³ made into a `shape`: 0 as they are, 1 a sliver (corner 2
    /// within `2^thin` of edge 0's line, between its corners), 2 a short edge (corner 2
    /// within `2^thin` of corner 0).
    fn shaped(c: [[f64; 3]; 3], shape: u8, thin: i32) -> [Vector; 3] {
        let v = c.map(Vector::from);
        let f = 2f64.powi(thin);
        match shape {
            1 => [
                v[0],
                v[1],
                v[0] + (v[1] - v[0]) * (0.5 + 0.4 * v[2].x) + v[2] * f,
            ],
            2 => [v[0], v[1], v[0] + v[2] * f],
            _ => v,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 6000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Against the 13 axes in double precision: a box and a triangle that intersect by more
        /// than a rounding's width are never separated, and ones that a well-conditioned axis
        /// separates by 5% of the triangle's scale always are.
        #[test]
        fn agrees_with_the_double_precision_axes(
            corners in prop::array::uniform3(prop::array::uniform3(-1.0f64..1.0)),
            shape in 0u8..3,
            thin in -30i32..0,
            angles in prop::array::uniform3(-3.2f64..3.2),
            half in prop::array::uniform3(0.0f64..1.0),
            near in prop::array::uniform2(prop_oneof![Just(0.0), Just(1.0), 0.0f64..1.0]),
            center in prop::array::uniform3(-1.5f64..1.5),
            offset in prop::array::uniform3(-1e3f64..1e3),
            e in -15i32..15,
        ) {
            let k = 2f64.powi(e);
            let o = Vector::from(offset) * k;
            let t = shaped(corners, shape, thin).map(|c| Point::from(c * k + o));
            let rot = *nalgebra::Rotation3::from_euler_angles(angles[0], angles[1], angles[2]).matrix();
            let (cols, _, _) = layout(&rot, [0.0; 3], &Vector::zeros());
            let rot = Matrix3::from_fn(|i, j| cols[j][i] as f64);
            let h = half.map(|h| (h * k) as f32);
            // Centred about a point of the triangle (a corner, on an edge or inside).
            let (u, v) = (near[0], near[1] * (1.0 - near[0]));
            let x = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
            let c = (x.coords + Vector::from(center) * k).map(|x| x as f32).map(|x| x as f64);
            prop_assume!(LaneTriangle::new(&t).usable);
            let (gap, good) = widest_gap(&rot, &h.map(|h| h as f64), &c, &t);
            let sep = test(&rot, h, &c, &t);
            if gap < -1e-3 * k {
                prop_assert!(!sep, "intersecting by {} but separated", -gap);
            }
            if good > 0.05 * k {
                prop_assert!(sep, "separated by {good} but not found");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 6000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// A box through a point of the triangle (a corner, on an edge or inside; the point
        /// exactly on one of the box's faces, rounded outward; the box sometimes flat or a
        /// point) is never separated from it, at any orientation, offset and scale, slivers
        /// and short edges included; and a box well clear of the triangle's bounding sphere
        /// always is (one of the 13 axes separates two convex sets that far apart).
        #[test]
        fn never_separates_a_box_through_the_triangle(
            corners in prop::array::uniform3(prop::array::uniform3(-1.0f64..1.0)),
            shape in 0u8..3,
            thin in -30i32..0,
            bary in prop::array::uniform2(prop_oneof![Just(0.0), Just(1.0), 0.0f64..1.0]),
            angles in prop::array::uniform3(-3.2f64..3.2),
            half in prop::array::uniform3(prop_oneof![Just(0.0), 0.0f64..2.0]),
            face in 0usize..6,
            offset in prop::array::uniform3(-1e3f64..1e3),
            e in -15i32..15,
        ) {
            let k = 2f64.powi(e);
            let o = Vector::from(offset) * k;
            let t = shaped(corners, shape, thin).map(|c| Point::from(c * k + o));
            let (u, v) = if bary[0] + bary[1] > 1.0 {
                (1.0 - bary[0], 1.0 - bary[1])
            } else {
                (bary[0], bary[1])
            };
            let x = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
            let rot = *nalgebra::Rotation3::from_euler_angles(angles[0], angles[1], angles[2]).matrix();
            // The box's axes as stored (rows of `rot` rounded), half extents rounded up.
            let (cols, _, _) = layout(&rot, [0.0; 3], &Vector::zeros());
            let axes: [Vector; 3] = std::array::from_fn(|i| {
                Vector::new(cols[0][i] as f64, cols[1][i] as f64, cols[2][i] as f64)
            });
            let h = half.map(|h| f32_up(h * k));
            // The centre puts `x` on face `face` of the box.
            let (axis, sign) = (face % 3, if face < 3 { 1.0 } else { -1.0 });
            let c = x.coords - axes[axis] * (sign * h[axis] as f64);
            let c32 = c.map(|x| x as f32).map(|x| x as f64);
            // Rounding the centre moves the face: widen the box by what it moved.
            let moved = (c32 - c).amax() * 2.0;
            let h = h.map(|h| f32_up(h as f64 + moved));
            let rows = Matrix3::from_rows(&[axes[0].transpose(), axes[1].transpose(), axes[2].transpose()]);
            let tri = LaneTriangle::new(&t);
            prop_assume!(tri.usable);
            prop_assert!(!test(&rows, h, &c32, &t), "box through {x:?} separated");
            // Far away: beyond the triangle's and the box's bounding spheres.
            let r_t = t.iter().map(|p| (p - t[0]).norm()).fold(0.0, f64::max);
            let r_b = h.iter().map(|&h| h as f64).sum::<f64>();
            let far = t[0].coords + axes[axis] * (2.0 * (r_t + r_b) + k);
            let far32 = far.map(|x| x as f32).map(|x| x as f64);
            prop_assert!(test(&rows, h, &far32, &t), "box at {far:?} not separated");
        }
    }
}
