//! Exact orientation predicates: the sign of `orient3d` and `orient2d` for any finite `f64`
//! input, with a floating-point filter in front.
//!
//! Every sign decision of the triangle–triangle test ([`crate::query::triangles_intersect`]) is
//! one of these determinants, and so is every visibility decision of the small convex hulls of
//! the §4 fit (`crate::bv::hull`). Each is evaluated in three stages:
//!
//! 1. **Filter**: the determinant in plain double precision together with the bound on its
//!    rounding error of Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust
//!    Geometric Predicates" (Discrete Comput. Geom. 18, 1997, §4.3: `errboundA` times the
//!    permanent). A value farther from zero than the bound has the exact sign. This is the fast
//!    path: it costs a few more multiplications than the plain determinant.
//! 2. **Adaptive exact arithmetic** (Shewchuk's `orient3d`/`orient2d`, the `robust` crate) when
//!    the filter cannot decide, e.g. for corners that lie exactly on the other triangle's plane,
//!    as every shared vertex does.
//! 3. **Big integers** when the coordinates are so large or so small that expansion arithmetic
//!    could overflow or underflow (a nonzero magnitude outside `[2^-200, 2^200]`): the
//!    coordinates are scaled to integers by a common power of two and the determinant is
//!    computed exactly.
//!
//! The functions return a value whose sign is the exact sign; its magnitude is only an
//! approximation.

use crate::math::{Point, Real, Vector};
use num_bigint::BigInt;

/// Shewchuk's `o3derrboundA = (7 + 56ε)ε` with his ε = 2⁻⁵³, rounded up to `8ε` = 4 · `f64::EPSILON`.
const O3D_BOUND: Real = 4.0 * Real::EPSILON;
/// Shewchuk's `ccwerrboundA = (3 + 16ε)ε`, rounded up to `4ε` = 2 · `f64::EPSILON`.
const O2D_BOUND: Real = 2.0 * Real::EPSILON;
/// Below this permanent, products may have underflowed and the relative bound does not hold.
const MIN_PERMANENT: Real = 1e-250;

/// `(a − d) · ((b − d) × (c − d))` with its exact sign: positive when `d` lies below the plane
/// through `a`, `b`, `c` seen counter-clockwise from above (Shewchuk's convention).
#[inline]
pub fn orient3d(a: &Point, b: &Point, c: &Point, d: &Point) -> Real {
    let plane = Plane::new(b, c, d);
    plane.side(a, || exact_orient3d(a, b, c, d))
}

/// `(a − c) × (b − c)` (the z component of the cross product) with its exact sign: positive
/// when `a`, `b`, `c` turn counter-clockwise.
#[inline]
pub fn orient2d(a: &[Real; 2], b: &[Real; 2], c: &[Real; 2]) -> Real {
    let left = (a[0] - c[0]) * (b[1] - c[1]);
    let right = (a[1] - c[1]) * (b[0] - c[0]);
    let det = left - right;
    let perm = left.abs() + right.abs();
    if det.abs() > O2D_BOUND * perm && perm > MIN_PERMANENT {
        return det;
    }
    exact_orient2d(a, b, c)
}

/// The plane through three points `b`, `c`, `d`, prepared to decide the side of many points:
/// `side(a)` is `orient3d(a, b, c, d)`. The normal `(b − d) × (c − d)` and the per-component
/// sums of its products' magnitudes are computed once (Guigue–Devillers test each triangle's
/// three corners against the other's plane).
#[derive(Clone, Copy, Debug)]
pub struct Plane {
    d: Point,
    normal: Vector,
    perm: Vector,
}

impl Plane {
    /// The plane through `b`, `c`, `d` (oriented as [`orient3d`]).
    #[inline(always)]
    pub fn new(b: &Point, c: &Point, d: &Point) -> Plane {
        let bd = b - d;
        let cd = c - d;
        let (yz, zy) = (bd.y * cd.z, bd.z * cd.y);
        let (zx, xz) = (bd.z * cd.x, bd.x * cd.z);
        let (xy, yx) = (bd.x * cd.y, bd.y * cd.x);
        Plane {
            d: *d,
            normal: Vector::new(yz - zy, zx - xz, xy - yx),
            perm: Vector::new(
                yz.abs() + zy.abs(),
                zx.abs() + xz.abs(),
                xy.abs() + yx.abs(),
            ),
        }
    }

    /// Whether the filter proves the normal nonzero: one of its components (each a 2D
    /// orientation of the projected points) is farther from zero than its rounding error. `false`
    /// does not mean degenerate; decide exactly then.
    #[inline(always)]
    pub fn certainly_has_area(&self) -> bool {
        let ok = |n: Real, p: Real| n.abs() > O2D_BOUND * p && p > MIN_PERMANENT;
        ok(self.normal.x, self.perm.x)
            || ok(self.normal.y, self.perm.y)
            || ok(self.normal.z, self.perm.z)
    }

    /// [`Plane::side`] of three points at once: the filter's arithmetic for all three first,
    /// then one branch on all three passing (the usual case), else `exact(k)` (which must
    /// compute point `k`'s determinant exactly) for each point that does not pass. The same
    /// values as three calls of [`Plane::side`].
    #[inline(always)]
    pub fn sides(&self, points: [&Point; 3], exact: impl Fn(usize) -> Real) -> [Real; 3] {
        let mut det = [0.0; 3];
        let mut sure = [false; 3];
        for k in 0..3 {
            let (value, bound) = self.filter(points[k]);
            (det[k], sure[k]) = (value, value.abs() > bound);
        }
        if sure[0] & sure[1] & sure[2] {
            det
        } else {
            unsure(det, sure, exact)
        }
    }

    /// `orient3d(a, b, c, d)`: the filter, else `exact()` (which must compute the same
    /// determinant exactly).
    #[inline(always)]
    pub fn side(&self, a: &Point, exact: impl FnOnce() -> Real) -> Real {
        let (det, bound) = self.filter(a);
        if det.abs() > bound { det } else { exact() }
    }

    /// The filter for point `a` ([`filter_lane`]): the determinant and its error bound.
    #[inline(always)]
    fn filter(&self, a: &Point) -> (Real, Real) {
        let (d, n, p) = (self.d, self.normal, self.perm);
        filter_lane(a, [d.x, d.y, d.z], [n.x, n.y, n.z], [p.x, p.y, p.z])
    }
}

/// Up to `N` planes ([`Plane`]) side by side, component by component (a structure of arrays),
/// so that the filter of one point against consecutive planes runs in vector lanes
/// ([`PlaneLanes::filter`]). Slots are written by [`PlaneLanes::set`] before they are read.
pub(crate) struct PlaneLanes<const N: usize> {
    /// Per component (x, y, z): each plane's corner `d`, its normal, and its permanent's sums.
    d: [[Real; N]; 3],
    normal: [[Real; N]; 3],
    perm: [[Real; N]; 3],
}

impl<const N: usize> PlaneLanes<N> {
    /// All slots zero (no plane yet).
    pub(crate) const fn new() -> Self {
        PlaneLanes {
            d: [[0.0; N]; 3],
            normal: [[0.0; N]; 3],
            perm: [[0.0; N]; 3],
        }
    }

    /// Writes `plane` into slot `k`.
    #[inline(always)]
    pub(crate) fn set(&mut self, k: usize, plane: &Plane) {
        for c in 0..3 {
            self.d[c][k] = plane.d[c];
            self.normal[c][k] = plane.normal[c];
            self.perm[c][k] = plane.perm[c];
        }
    }

    /// Copies slot `from` into slot `to`.
    #[inline(always)]
    pub(crate) fn copy(&mut self, from: usize, to: usize) {
        for c in 0..3 {
            self.d[c][to] = self.d[c][from];
            self.normal[c][to] = self.normal[c][from];
            self.perm[c][to] = self.perm[c][from];
        }
    }

    /// The filter of [`Plane::side`] for point `a` against the planes of slots `0..len`: slot
    /// `k`'s determinant in `det[k]` and its bound in `bound[k]` (infinite where the permanent
    /// is too small for the relative bound). The filter decides where `|det[k]| > bound[k]`
    /// (the sign of `det[k]` is then exact, the same decision and value as `side`'s); elsewhere
    /// the caller decides exactly. Loops without a branch over the components' arrays: the
    /// compiler runs them in vector lanes.
    #[inline(always)]
    pub(crate) fn filter(&self, len: usize, a: &Point, det: &mut [Real; N], bound: &mut [Real; N]) {
        let len = len.min(N);
        let ([dx, dy, dz], [nx, ny, nz], [px, py, pz]) = (&self.d, &self.normal, &self.perm);
        for k in 0..len {
            (det[k], bound[k]) = filter_lane(
                a,
                [dx[k], dy[k], dz[k]],
                [nx[k], ny[k], nz[k]],
                [px[k], py[k], pz[k]],
            );
        }
    }
}

/// The orientation filter of [`Plane`] (and [`PlaneLanes`]) for point `a` and the plane with
/// corner `d`, normal `n` and permanent's sums `p`: the determinant and its bound (Shewchuk's
/// `errboundA` times the permanent; infinite where the permanent is too small for the relative
/// bound). The sign of `det` is exact where `|det| > bound`.
#[inline(always)]
fn filter_lane(a: &Point, d: [Real; 3], n: [Real; 3], p: [Real; 3]) -> (Real, Real) {
    let (x, y, z) = (a.x - d[0], a.y - d[1], a.z - d[2]);
    let det = x * n[0] + y * n[1] + z * n[2];
    let perm = x.abs() * p[0] + y.abs() * p[1] + z.abs() * p[2];
    let bound = if perm > MIN_PERMANENT {
        O3D_BOUND * perm
    } else {
        Real::INFINITY
    };
    (det, bound)
}

/// [`Plane::sides`] when the filter is unsure of some point: those get `exact(k)`.
#[cold]
#[inline(never)]
fn unsure(det: [Real; 3], sure: [bool; 3], exact: impl Fn(usize) -> Real) -> [Real; 3] {
    std::array::from_fn(|k| if sure[k] { det[k] } else { exact(k) })
}

/// Magnitudes within which Shewchuk's expansion arithmetic can neither overflow nor underflow
/// for a 3×3 determinant of differences (products of three differences of such numbers and their
/// roundoff terms stay between 2⁻⁹⁰⁰ and 2⁶⁰⁰).
#[inline]
fn expansion_safe(values: impl IntoIterator<Item = Real>) -> bool {
    const LO: Real = 6.223_015_277_861_142e-61; // 2^-200
    const HI: Real = 1.606_938_044_258_990_3e60; // 2^200
    values.into_iter().all(|x| {
        let m = x.abs();
        m == 0.0 || (LO..=HI).contains(&m)
    })
}

/// `orient3d(a, b, c, d)` without the filter: exact sign, any finite input.
#[cold]
#[inline(never)]
pub(crate) fn exact_orient3d(a: &Point, b: &Point, c: &Point, d: &Point) -> Real {
    let all = [a, b, c, d];
    // Exact zeros the filter cannot decide and expansion arithmetic decides slowest, common in
    // meshes: a repeated point (a zero row of the determinant of differences, or two equal
    // rows) and four points on one axis-aligned plane (a zero column), e.g. the faces of the
    // paper's pipes cube.
    if (0..3).any(|k| a[k] == d[k] && b[k] == d[k] && c[k] == d[k])
        || a == d
        || b == d
        || c == d
        || a == b
        || a == c
        || b == c
    {
        return 0.0;
    }
    if expansion_safe(all.iter().flat_map(|p| p.iter().copied())) {
        let co = |p: &Point| robust::Coord3D {
            x: p.x,
            y: p.y,
            z: p.z,
        };
        return robust::orient3d(co(a), co(b), co(c), co(d));
    }
    big_orient3d(a, b, c, d)
}

/// The sign of `orient3d(a, b, c, d)` in big integers (any finite input; slow): the fallback of
/// [`exact_orient3d`] outside the range of expansion arithmetic, and the tests' oracle.
fn big_orient3d(a: &Point, b: &Point, c: &Point, d: &Point) -> Real {
    let [a, b, c, d] = BigFixed::convert([a, b, c, d].map(|p| [p.x, p.y, p.z]));
    let diff = |p: &[BigInt; 3]| -> [BigInt; 3] { std::array::from_fn(|k| &p[k] - &d[k]) };
    let (ad, bd, cd) = (diff(&a), diff(&b), diff(&c));
    let det = &ad[0] * (&bd[1] * &cd[2] - &bd[2] * &cd[1])
        + &ad[1] * (&bd[2] * &cd[0] - &bd[0] * &cd[2])
        + &ad[2] * (&bd[0] * &cd[1] - &bd[1] * &cd[0]);
    sign_of(&det)
}

#[cold]
#[inline(never)]
fn exact_orient2d(a: &[Real; 2], b: &[Real; 2], c: &[Real; 2]) -> Real {
    if expansion_safe(a.iter().chain(b).chain(c).copied()) {
        let co = |p: &[Real; 2]| robust::Coord { x: p[0], y: p[1] };
        return robust::orient2d(co(a), co(b), co(c));
    }
    let [a, b, c] = BigFixed::convert([*a, *b, *c]);
    let det = (&a[0] - &c[0]) * (&b[1] - &c[1]) - (&a[1] - &c[1]) * (&b[0] - &c[0]);
    sign_of(&det)
}

fn sign_of(x: &BigInt) -> Real {
    match x.sign() {
        num_bigint::Sign::Minus => -1.0,
        num_bigint::Sign::NoSign => 0.0,
        num_bigint::Sign::Plus => 1.0,
    }
}

/// Finite doubles as integers scaled by one common power of two (exact).
struct BigFixed;

impl BigFixed {
    /// Returns `x · 2^-e` as integers, `e` the smallest exponent among the inputs' mantissas.
    fn convert<const N: usize, const M: usize>(points: [[Real; M]; N]) -> [[BigInt; M]; N] {
        let parts = points.map(|p| p.map(decompose));
        let min_exp = parts
            .iter()
            .flatten()
            .filter(|(m, _)| *m != 0)
            .map(|&(_, e)| e)
            .min()
            .unwrap_or(0);
        parts.map(|p| p.map(|(m, e)| BigInt::from(m) << ((e - min_exp) as usize)))
    }
}

/// A finite double as `mantissa · 2^exponent` with an integer mantissa.
fn decompose(x: Real) -> (i64, i32) {
    debug_assert!(x.is_finite());
    let bits = x.to_bits();
    let sign = if bits >> 63 == 0 { 1 } else { -1 };
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    if exp == 0 {
        // Zero or subnormal.
        (sign * frac, -1074)
    } else {
        (sign * (frac | (1i64 << 52)), exp - 1075)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reproducible uniform doubles in [-1, 1) (xorshift64 from `seed`).
    fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    fn sign(x: Real) -> i8 {
        (x > 0.0) as i8 - (x < 0.0) as i8
    }

    #[test]
    fn decompose_is_exact() {
        for x in [0.0, -0.0, 1.0, -3.5, 0.1, 1e-310, -5e-324, 1e300, f64::MAX] {
            let (m, e) = decompose(x);
            // 2^e in two normal halves: `powi(-1074)` alone is 1 / 2^1074 = 0 where it is not
            // folded at compile time (debug builds). Each product is exact.
            let scaled = (m as f64) * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
            assert_eq!(scaled, x, "{x}");
        }
    }

    #[test]
    fn filter_robust_and_big_integers_agree_on_near_coplanar_points() {
        // Points on a plane z = 0.1 x + 0.3 y (not exact in binary), nudged by a few ulps.
        let mut next = uniform(0x2545F4914F6CDD1D);
        let mut nonzero = 0;
        for scale in [1.0, 1e-100, 1e100, 1e-250, 1e250] {
            for _ in 0..2000 {
                let mut p = || {
                    let (x, y) = (next() * scale, next() * scale);
                    Point::new(x, y, 0.1 * x + 0.3 * y)
                };
                let (a, b, c, mut d) = (p(), p(), p(), p());
                if next() > 0.0 {
                    d.z = d.z.next_up();
                }
                let expected = big_orient3d(&a, &b, &c, &d);
                nonzero += (expected != 0.0) as usize;
                assert_eq!(sign(orient3d(&a, &b, &c, &d)), sign(expected));
                assert_eq!(sign(exact_orient3d(&a, &b, &c, &d)), sign(expected));
            }
        }
        assert!(nonzero > 1000, "the cases must not all be degenerate");
    }

    /// The exact-zero shortcuts (a repeated point, four points on one axis-aligned plane) and
    /// their near misses (one coordinate off by one ulp) against big integers.
    #[test]
    fn exact_orient3d_shortcuts_agree_with_big_integers() {
        let mut next = uniform(0x9E3779B97F4A7C15);
        let (mut zeros, mut nonzeros) = (0, 0);
        for case in 0..6000 {
            let mut p = || Point::new(next() * 10.0, next() * 10.0, next() * 10.0);
            let mut q = [p(), p(), p(), p()];
            let k = case % 3;
            match case % 4 {
                // One axis-aligned plane, the last point possibly nudged off it.
                0 | 1 => {
                    for i in 1..4 {
                        q[i][k] = q[0][k];
                    }
                    if case % 4 == 1 {
                        q[case % 3 + 1][k] = q[0][k].next_up();
                    }
                }
                // A repeated point.
                2 => q[case % 3] = q[3],
                _ => q[(case + 1) % 4] = q[case % 4],
            }
            let [a, b, c, d] = q;
            let expected = big_orient3d(&a, &b, &c, &d);
            if expected == 0.0 {
                zeros += 1
            } else {
                nonzeros += 1
            }
            assert_eq!(
                sign(exact_orient3d(&a, &b, &c, &d)),
                sign(expected),
                "{q:?}"
            );
            assert_eq!(sign(orient3d(&a, &b, &c, &d)), sign(expected), "{q:?}");
        }
        assert!(
            zeros > 3000 && nonzeros > 1000,
            "{zeros} zeros, {nonzeros} nonzero"
        );
    }

    #[test]
    fn orient2d_exact_on_collinear_decimals() {
        // 0.1, 0.2, 0.3 on the line y = 2x: exactly collinear only if the doubles are.
        let (a, b, c) = ([0.1, 0.2], [0.2, 0.4], [0.3, 0.6]);
        let [ba, bb, bc] = BigFixed::convert([a, b, c]);
        let det = (&ba[0] - &bc[0]) * (&bb[1] - &bc[1]) - (&ba[1] - &bc[1]) * (&bb[0] - &bc[0]);
        assert_eq!(sign(orient2d(&a, &b, &c)), sign(sign_of(&det)));
        // Exactly collinear far below the range of expansion arithmetic.
        let t = 1e-300;
        assert_eq!(sign(orient2d(&[t, 0.0], &[0.0, t], &[t / 2.0, t / 2.0])), 0);
        assert_eq!(sign(orient2d(&[t, 0.0], &[0.0, t], &[t / 2.0, t])), -1);
    }
}
