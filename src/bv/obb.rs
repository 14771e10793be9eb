//! Oriented bounding boxes (Gottschalk et al. 1996, §4–§5): the fit and the overlap test.

use super::fit::{
    covariance_of_hull, covariance_of_points, covariance_of_triangles, principal_axes,
};
use super::{BoundingVolume, BvKind, Fitted, Group, OverlapOptions, SatMode, store_box, v3};
use crate::math::{Matrix3, Point, Real, Vector};

/// An oriented bounding box, stored in single precision (60 bytes; a tree node is one 64-byte
/// cache line).
///
/// Frame: the model's. The box is `{ center + Σ u_k half_k axis_k : |u_k| ≤ 1 }`; the axes are
/// the rows of a rotation, right-handed (`axis_2 = axis_0 × axis_1`), unit and orthogonal to
/// single precision. The stored numbers are rounded outward so the box contains what it was
/// fitted to.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)] // the SIMD test reads the fields as 15 consecutive floats
pub struct Obb {
    /// Column-major: `cols[k][i]` is coordinate `k` of axis `i` (so `cols[k]` lines up the three
    /// axes' `k` components for the SIMD test).
    cols: [[f32; 3]; 3],
    half: [f32; 3],
    center: [f32; 3],
}

impl Obb {
    /// Fits an OBB to points and triangles given directly (the builder uses
    /// [`BoundingVolume::fit`]). Follows Gottschalk et al. 1996, §4: convex hull of the points,
    /// area-weighted covariance of the hull's surface, eigenvectors as axes, extents from all
    /// points. Falls back (§7.1) to the covariance of the triangles when the hull is flat,
    /// and to that of the points when the triangles have no area.
    pub fn fit_points(points: &[Point], triangles: &[[Point; 3]]) -> Obb {
        let axes = fit_axes(points, || triangles.iter().copied());
        Self::with_axes(&axes, points.iter().copied())
    }

    /// The box with the given orientation (rows of a rotation, rounded to `f32`) that bounds
    /// `points`, stored conservatively.
    pub fn with_axes(axes: &[Vector; 3], points: impl Iterator<Item = Point> + Clone) -> Obb {
        let a0 = [axes[0].x as f32, axes[0].y as f32, axes[0].z as f32];
        let a1 = [axes[1].x as f32, axes[1].y as f32, axes[1].z as f32];
        let c = v3(&a0).cross(&v3(&a1));
        let a2 = [c.x as f32, c.y as f32, c.z as f32];
        let stored = [v3(&a0), v3(&a1), v3(&a2)];
        let (center, half) = store_box(&stored, points);
        let rows = [a0, a1, a2];
        Obb {
            cols: std::array::from_fn(|k| std::array::from_fn(|i| rows[i][k])),
            half,
            center,
        }
    }

    /// The three axes in the model frame, as the tests use them.
    #[inline(always)]
    pub fn axes(&self) -> [Vector; 3] {
        let c = &self.cols;
        std::array::from_fn(|i| Vector::new(c[0][i] as Real, c[1][i] as Real, c[2][i] as Real))
    }

    /// The centre, model frame.
    #[inline(always)]
    pub fn center(&self) -> Point {
        Point::from(v3(&self.center))
    }

    /// The half extents along the three axes (model units).
    #[inline(always)]
    pub fn half_extents(&self) -> Vector {
        v3(&self.half)
    }

    fn corners(&self) -> impl Iterator<Item = Point> + Clone {
        let [a0, a1, a2] = self.axes();
        let c = self.center();
        let h = self.half_extents();
        (0..8).map(move |k| {
            let s = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
            c + a0 * (s(1) * h[0]) + a1 * (s(2) * h[1]) + a2 * (s(4) * h[2])
        })
    }
}

/// The orientation of §4 for a group: hull covariance, or the fallbacks.
fn fit_axes<I: Iterator<Item = [Point; 3]>>(
    points: &[Point],
    triangles: impl Fn() -> I,
) -> [Vector; 3] {
    if points.is_empty() {
        return [Vector::x(), Vector::y(), Vector::z()];
    }
    // The axes do not depend on the scale: fit at unit scale, so that squares and products
    // neither overflow nor underflow for huge or tiny models.
    let k = unit_scale(points.iter());
    let points: Vec<Point> = points.iter().map(|p| p * k).collect();
    let origin = points[0];
    let cov = hull_covariance(&points, &origin)
        .or_else(|| covariance_of_triangles(&origin, triangles().map(|t| t.map(|p| p * k))))
        .unwrap_or_else(|| covariance_of_points(&points));
    principal_axes(&cov)
}

/// A power of two that brings the largest coordinate magnitude of `points` to [1, 2) (exact
/// scaling; clamped to the range of normal doubles).
fn unit_scale<'p>(points: impl Iterator<Item = &'p Point>) -> Real {
    let m = points.fold(0.0, |m: Real, p| m.max(p.coords.amax()));
    if m == 0.0 {
        return 1.0;
    }
    let e = (m.log2().floor() as i32).clamp(-1020, 1020);
    (2.0 as Real).powi(-e)
}

/// The §4 axes of a single non-degenerate triangle in closed form: its hull is the triangle
/// itself (flat, so §7.1's fallback applies), whose area-weighted covariance has the normal as
/// the eigenvector of eigenvalue 0 and the in-plane eigenvectors of a 2×2 symmetric matrix.
/// The same basis `SymmetricEigen` would give, in a fraction of the time (leaves are half the
/// nodes). `None` for a degenerate or sliver triangle (see [`crate::query::has_area`]).
fn triangle_axes(t: &[Point; 3]) -> Option<[Vector; 3]> {
    if !crate::query::has_area(t) {
        return None;
    }
    // At unit scale (exact), so that the normal's norm neither overflows nor underflows.
    let k = unit_scale(t.iter());
    let t = &t.map(|p| p * k);
    let e1 = t[1] - t[0];
    let u = e1.try_normalize(1e-300)?;
    let n = e1.cross(&(t[2] - t[0]));
    // Orthogonalise against rounding, then complete the right-handed frame.
    let n = (n - u * u.dot(&n)).try_normalize(1e-300)?;
    let v = n.cross(&u);
    // In-plane coordinates relative to the centroid; for one triangle the closed form of §4
    // reduces to (9 c c^T + p p^T + q q^T + r r^T) / 12 − c c^T = (p p^T + q q^T + r r^T) / 12
    // with p, q, r relative to the centroid c.
    let c = (t[0].coords + t[1].coords + t[2].coords) / 3.0;
    let (mut suu, mut suv, mut svv) = (0.0, 0.0, 0.0);
    for p in t {
        let d = p.coords - c;
        let (x, y) = (d.dot(&u), d.dot(&v));
        suu += x * x;
        suv += x * y;
        svv += y * y;
    }
    let theta = 0.5 * (2.0 * suv).atan2(suu - svv);
    let major = u * theta.cos() + v * theta.sin();
    let minor = n.cross(&major);
    Some([major, minor, major.cross(&minor)])
}

/// Covariance of the convex hull of `points` (quickhull), or `None` when the hull is
/// rank-deficient (flat, collinear or a point: Gottschalk et al. 1996, §7.1).
fn hull_covariance(points: &[Point], origin: &Point) -> Option<Matrix3> {
    if points.len() < 4 {
        return None;
    }
    let local: Vec<glam::Vec3A> = points
        .iter()
        .map(|p| {
            let d = p - origin;
            glam::Vec3A::new(d.x as f32, d.y as f32, d.z as f32)
        })
        .collect();
    let hull =
        std::panic::catch_unwind(|| quickhull::ConvexTriangleMesh::try_from_points(&local, None))
            .ok()?
            .ok()?;
    let verts = hull.vertices();
    let tris = hull.indices();
    if verts.len() < 4 || tris.len() < 4 {
        return None;
    }
    let to_v = |i: u32| {
        let p = verts[i as usize];
        Vector::new(p.x as Real, p.y as Real, p.z as Real)
    };
    // Reject flat hulls: volume relative to the cube of the extent.
    let mut volume = 0.0;
    let mut extent: Real = 0.0;
    for t in tris {
        let (p, q, r) = (to_v(t[0]), to_v(t[1]), to_v(t[2]));
        volume += p.dot(&q.cross(&r)) / 6.0;
        extent = extent.max(p.amax());
    }
    // Negated so that a NaN volume also counts as flat.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(volume.abs() > 1e-9 * extent.powi(3)) {
        return None;
    }
    covariance_of_hull(tris.iter().map(|t| [to_v(t[0]), to_v(t[1]), to_v(t[2])]))
}

/// B's box expressed in A's frame, laid out for the overlap test: B's axes in A's frame in
/// single precision, also transposed, the half extents, and the centre in double precision.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub struct PlacedObb {
    /// `axes[j]` = axis `j` (lane 3 zero).
    axes: [[f32; 4]; 3],
    /// `bt[k][j]` = coordinate `k` of axis `j` (lane 3 zero).
    bt: [[f32; 4]; 3],
    /// Half extents (lane 3 zero).
    half: [f32; 4],
    sum_half: f32,
    center: [Real; 3],
}

/// Per-query constants of OBB tests.
#[derive(Clone, Copy, Debug)]
pub struct ObbQuery {
    rot_ab: Matrix3,
    /// The columns of `rot_ab` in single precision (lane 3 zero).
    rot_cols: [[f32; 4]; 3],
    pos_ab: Vector,
    epsilon: f32,
    /// Absolute growth of B's boxes (rounded up).
    margin: f32,
    lite: bool,
}

/// Relative rounding slack of the single-precision overlap test: every separating inequality
/// gets `SLACK · (|d|₁ + Σa + Σb)` added to its right-hand side (`d` the vector between the
/// centres, `a`, `b` the half extents). The test's own rounding errors are below a tenth of it,
/// so it only ever errs toward "overlap".
pub const SLACK: f32 = 4e-6;

/// Absolute slack added to every separating inequality: among subnormal numbers (models
/// smaller than about 1e-38, where single precision keeps only an absolute precision of
/// 1.4e-45) the relative [`SLACK`] does not cover the test's rounding; some twenty operations
/// each err by at most half of 1.4e-45.
pub const SUBNORMAL_SLACK: f32 = 1e-42;

impl BoundingVolume for Obb {
    const KIND: BvKind = BvKind::Obb;
    type Query = ObbQuery;
    type Placed = PlacedObb;

    fn fit(group: &Group<'_>) -> Fitted<Obb> {
        let points: Vec<Point> = group.points().collect();
        let axes = match group.triangles {
            [t] => triangle_axes(&group.triangle(*t))
                .unwrap_or_else(|| fit_axes(&points, std::iter::empty)),
            _ => fit_axes(&points, || {
                group.triangles.iter().map(|&t| group.triangle(t))
            }),
        };
        let bv = Obb::with_axes(&axes, points.iter().copied());
        let mut split_axes = bv.axes().map(|a| a.normalize());
        let h = bv.half;
        let mut order = [0usize, 1, 2];
        order.sort_by(|&i, &j| h[j].total_cmp(&h[i]));
        split_axes = order.map(|k| split_axes[k]);
        Fitted {
            bv,
            split_axes,
            center: bv.center(),
        }
    }

    fn prepare(
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        margin: Real,
        options: &OverlapOptions,
    ) -> ObbQuery {
        ObbQuery {
            rot_ab: *rot_ab,
            rot_cols: std::array::from_fn(|k| {
                [
                    rot_ab[(0, k)] as f32,
                    rot_ab[(1, k)] as f32,
                    rot_ab[(2, k)] as f32,
                    0.0,
                ]
            }),
            pos_ab: *pos_ab,
            // Rounded up: never a smaller margin than asked for.
            epsilon: crate::math::f32_up(options.epsilon),
            margin: crate::math::f32_up(margin) + SUBNORMAL_SLACK,
            lite: options.sat == SatMode::Lite,
        }
    }

    #[inline(always)]
    fn place(q: &ObbQuery, b: &Obb) -> PlacedObb {
        // Axes in single precision (their rounding is far inside the test's slack); the centre
        // in double precision, as the distance between centres must not carry the absolute
        // rounding error of large coordinates.
        let m = &q.rot_ab;
        let (x, y, z) = (
            b.center[0] as Real,
            b.center[1] as Real,
            b.center[2] as Real,
        );
        let center = [
            m[(0, 0)] * x + m[(0, 1)] * y + m[(0, 2)] * z + q.pos_ab.x,
            m[(1, 0)] * x + m[(1, 1)] * y + m[(1, 2)] * z + q.pos_ab.y,
            m[(2, 0)] * x + m[(2, 1)] * y + m[(2, 2)] * z + q.pos_ab.z,
        ];
        let h = b.half;
        let (axes, bt) = sat_f32::rotate_axes(&q.rot_cols, &b.cols);
        PlacedObb {
            axes,
            bt,
            half: [h[0], h[1], h[2], 0.0],
            sum_half: h[0] + h[1] + h[2],
            center,
        }
    }

    #[inline(always)]
    fn overlaps(q: &ObbQuery, a: &Obb, b: &PlacedObb) -> bool {
        let d = [
            b.center[0] - a.center[0] as Real,
            b.center[1] - a.center[1] as Real,
            b.center[2] - a.center[2] as Real,
        ];
        let slack = SLACK
            * ((d[0].abs() + d[1].abs() + d[2].abs()) as f32
                + a.half[0]
                + a.half[1]
                + a.half[2]
                + b.sum_half)
            + q.margin;
        !sat_f32::separated(
            a,
            b,
            [d[0] as f32, d[1] as f32, d[2] as f32],
            q.epsilon,
            slack,
            q.lite,
        )
    }

    #[inline(always)]
    fn center_distance2(a: &Obb, b: &PlacedObb) -> Real {
        (0..3)
            .map(|k| (b.center[k] - a.center[k] as Real).powi(2))
            .sum()
    }

    #[inline(always)]
    fn size(&self) -> f32 {
        // Surface area (up to a factor 4): meaningful for flat boxes too, and it gave 2–3% fewer
        // box tests than RAPID's largest extent on teapot and bunny pose sets.
        self.half[0] * self.half[1] + self.half[1] * self.half[2] + self.half[2] * self.half[0]
    }

    fn well_formed(&self) -> bool {
        let a = self.axes();
        let finite = self
            .cols
            .iter()
            .flatten()
            .chain(&self.center)
            .chain(&self.half)
            .all(|x| x.is_finite());
        let orthonormal = (0..3).all(|i| {
            (0..3).all(|j| (a[i].dot(&a[j]) - if i == j { 1.0 } else { 0.0 }).abs() <= 1e-6)
        });
        finite
            && orthonormal
            && a[0].cross(&a[1]).dot(&a[2]) > 0.0
            && self.half.iter().all(|&h| h >= 0.0)
    }

    fn contains(&self, p: &Point) -> bool {
        let d = p - self.center();
        let axes = self.axes();
        (0..3).all(|k| axes[k].dot(&d).abs() <= self.half[k] as Real)
    }

    fn refit_leaf(old: &Obb, triangle: &[Point; 3]) -> Obb {
        Obb::with_axes(&old.axes(), triangle.iter().copied())
    }

    fn refit_parent(old: &Obb, left: &Obb, right: &Obb) -> Obb {
        Obb::with_axes(&old.axes(), left.corners().chain(right.corners()))
    }

    fn as_box(&self) -> (Point, Matrix3, Vector) {
        let [a0, a1, a2] = self.axes();
        (
            self.center(),
            Matrix3::from_columns(&[a0, a1, a2]),
            self.half_extents(),
        )
    }
}

/// The separating axis test of Gottschalk et al. 1996, §5, for a box of A against a placed box
/// of B, in single precision with the [`SLACK`] margin. `d` is B's centre minus A's, in A's
/// model frame. Returns `true` if an axis separates. Vectors over the three axes of A are
/// evaluated as SIMD lanes (SSE on x86-64; a scalar loop elsewhere).
mod sat_f32 {
    use super::{Obb, PlacedObb};

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn separated(
        a: &Obb,
        b: &PlacedObb,
        d: [f32; 3],
        eps: f32,
        slack: f32,
        lite: bool,
    ) -> bool {
        use std::arch::x86_64::*;
        // SAFETY: SSE and SSE2 belong to the x86-64 baseline, so these intrinsics are always
        // available; every 16-byte read lies inside `a` (15 floats) or a `[f32; 4]` of `b`.
        unsafe {
            let load4 = |v: &[f32; 4]| _mm_loadu_ps(v.as_ptr());
            let abs = |v: __m128| _mm_andnot_ps(_mm_set1_ps(-0.0), v);
            let rot1 = |v: __m128| _mm_shuffle_ps::<0b11_00_10_01>(v, v); // (v1, v2, v0, v3)
            let rot2 = |v: __m128| _mm_shuffle_ps::<0b11_01_00_10>(v, v); // (v2, v0, v1, v3)
            let gt3 = |x: __m128, y: __m128| _mm_movemask_ps(_mm_cmpgt_ps(x, y)) & 0b111 != 0;
            // Four-lane loads from the struct (`#[repr(C)]`: cols, half, centre = 15 floats): the
            // vector at float k holds floats k..k+4, all inside `a`; lane 3 is never used.
            let base = a as *const Obb as *const f32;
            let colx = _mm_loadu_ps(base);
            let coly = _mm_loadu_ps(base.add(3));
            let colz = _mm_loadu_ps(base.add(6));
            let ha = _mm_loadu_ps(base.add(9));
            let (dx, dy, dz) = (_mm_set1_ps(d[0]), _mm_set1_ps(d[1]), _mm_set1_ps(d[2]));
            let epsv = _mm_set1_ps(eps);
            let sl = _mm_set1_ps(slack);
            let madd = |x: __m128, y: __m128, z: __m128| {
                _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(colx, x), _mm_mul_ps(coly, y)),
                    _mm_mul_ps(colz, z),
                )
            };
            // T (lanes over A's axes) and the columns of R.
            let t = madd(dx, dy, dz);
            let rc: [__m128; 3] = std::array::from_fn(|j| {
                let bj = load4(&b.axes[j]);
                madd(
                    _mm_shuffle_ps::<0x00>(bj, bj),
                    _mm_shuffle_ps::<0x55>(bj, bj),
                    _mm_shuffle_ps::<0xAA>(bj, bj),
                )
            });
            let ra = rc.map(|c| _mm_add_ps(abs(c), epsv));
            let hbv = load4(&b.half);
            let hb = [
                _mm_shuffle_ps::<0x00>(hbv, hbv),
                _mm_shuffle_ps::<0x55>(hbv, hbv),
                _mm_shuffle_ps::<0xAA>(hbv, hbv),
            ];
            // A's face axes: |T_i| > a_i + Σ_j b_j |R_ij|.
            let rhs = _mm_add_ps(
                _mm_add_ps(ha, sl),
                _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(hb[0], ra[0]), _mm_mul_ps(hb[1], ra[1])),
                    _mm_mul_ps(hb[2], ra[2]),
                ),
            );
            if gt3(abs(t), rhs) {
                return true;
            }
            // B's face axes (lanes over B's axes): |B_j · d| > b_j + Σ_i a_i |R_ij|.
            let bt = b.bt.map(|v| load4(&v));
            let sb = _mm_add_ps(
                _mm_add_ps(_mm_mul_ps(bt[0], dx), _mm_mul_ps(bt[1], dy)),
                _mm_mul_ps(bt[2], dz),
            );
            let t0 = _mm_unpacklo_ps(ra[0], ra[1]);
            let t1 = _mm_unpackhi_ps(ra[0], ra[1]);
            let t2 = _mm_unpacklo_ps(ra[2], ra[2]);
            let t3 = _mm_unpackhi_ps(ra[2], ra[2]);
            let rows = [
                _mm_movelh_ps(t0, t2),
                _mm_movehl_ps(t2, t0),
                _mm_movelh_ps(t1, t3),
            ];
            let ha0 = _mm_shuffle_ps::<0x00>(ha, ha);
            let ha1 = _mm_shuffle_ps::<0x55>(ha, ha);
            let ha2 = _mm_shuffle_ps::<0xAA>(ha, ha);
            let rhs = _mm_add_ps(
                _mm_add_ps(hbv, sl),
                _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(ha0, rows[0]), _mm_mul_ps(ha1, rows[1])),
                    _mm_mul_ps(ha2, rows[2]),
                ),
            );
            if gt3(abs(sb), rhs) || lite {
                return gt3(abs(sb), rhs);
            }
            // Edge–edge axes A_i × B_j, lanes over i, one vector per j:
            // |T_i2 R_i1j − T_i1 R_i2j| > a_i1 |R_i2j| + a_i2 |R_i1j| + b_j1 |R_ij2| + b_j2 |R_ij1|.
            let (t1r, t2r) = (rot1(t), rot2(t));
            let (ha1r, ha2r) = (rot1(ha), rot2(ha));
            let mut any = _mm_setzero_ps();
            for j in 0..3 {
                let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
                let (c1, c2) = (rot1(rc[j]), rot2(rc[j]));
                let lhs = abs(_mm_sub_ps(_mm_mul_ps(t2r, c1), _mm_mul_ps(t1r, c2)));
                let (a1, a2) = (_mm_add_ps(abs(c1), epsv), _mm_add_ps(abs(c2), epsv));
                let rhs = _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(ha1r, a2), _mm_mul_ps(ha2r, a1)),
                    _mm_add_ps(
                        _mm_add_ps(_mm_mul_ps(hb[j1], ra[j2]), _mm_mul_ps(hb[j2], ra[j1])),
                        sl,
                    ),
                );
                any = _mm_or_ps(any, _mm_cmpgt_ps(lhs, rhs));
            }
            _mm_movemask_ps(any) & 0b111 != 0
        }
    }

    /// B's axes (columns `cols[k][j]` = coordinate `k` of axis `j`) rotated by the matrix with
    /// columns `m`: returns the rotated axes and their transpose (lane 3 zero).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn rotate_axes(
        m: &[[f32; 4]; 3],
        cols: &[[f32; 3]; 3],
    ) -> ([[f32; 4]; 3], [[f32; 4]; 3]) {
        use std::arch::x86_64::*;
        // SAFETY: SSE belongs to the x86-64 baseline; reads and writes are of whole `[f32; 4]`.
        unsafe {
            let (m0, m1, m2) = (
                _mm_loadu_ps(m[0].as_ptr()),
                _mm_loadu_ps(m[1].as_ptr()),
                _mm_loadu_ps(m[2].as_ptr()),
            );
            let v: [__m128; 3] = std::array::from_fn(|j| {
                _mm_add_ps(
                    _mm_add_ps(
                        _mm_mul_ps(m0, _mm_set1_ps(cols[0][j])),
                        _mm_mul_ps(m1, _mm_set1_ps(cols[1][j])),
                    ),
                    _mm_mul_ps(m2, _mm_set1_ps(cols[2][j])),
                )
            });
            let zero = _mm_setzero_ps();
            let t0 = _mm_unpacklo_ps(v[0], v[1]);
            let t1 = _mm_unpackhi_ps(v[0], v[1]);
            let t2 = _mm_unpacklo_ps(v[2], zero);
            let t3 = _mm_unpackhi_ps(v[2], zero);
            let rows = [
                _mm_movelh_ps(t0, t2),
                _mm_movehl_ps(t2, t0),
                _mm_movelh_ps(t1, t3),
            ];
            let mut axes = [[0.0f32; 4]; 3];
            let mut bt = [[0.0f32; 4]; 3];
            for j in 0..3 {
                _mm_storeu_ps(axes[j].as_mut_ptr(), v[j]);
                _mm_storeu_ps(bt[j].as_mut_ptr(), rows[j]);
            }
            (axes, bt)
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub(super) fn rotate_axes(
        m: &[[f32; 4]; 3],
        cols: &[[f32; 3]; 3],
    ) -> ([[f32; 4]; 3], [[f32; 4]; 3]) {
        let axes: [[f32; 4]; 3] = std::array::from_fn(|j| {
            let mut a = [0.0f32; 4];
            for r in 0..3 {
                a[r] = m[0][r] * cols[0][j] + m[1][r] * cols[1][j] + m[2][r] * cols[2][j];
            }
            a
        });
        let bt = std::array::from_fn(|k| [axes[0][k], axes[1][k], axes[2][k], 0.0]);
        (axes, bt)
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub(super) fn separated(
        a: &Obb,
        b: &PlacedObb,
        d: [f32; 3],
        eps: f32,
        slack: f32,
        lite: bool,
    ) -> bool {
        let c = &a.cols;
        let ha = a.half;
        let hb = [b.half[0], b.half[1], b.half[2]];
        let axis = |i: usize| [c[0][i], c[1][i], c[2][i]];
        let baxis = |j: usize| {
            [
                b.splat[3 * j][0],
                b.splat[3 * j + 1][0],
                b.splat[3 * j + 2][0],
            ]
        };
        let dot = |u: [f32; 3], v: [f32; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        let r: [[f32; 3]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|j| dot(axis(i), baxis(j))));
        let ra = r.map(|row| row.map(|x| x.abs() + eps));
        let t: [f32; 3] = std::array::from_fn(|i| dot(axis(i), d));
        for i in 0..3 {
            if t[i].abs() > ha[i] + hb[0] * ra[i][0] + hb[1] * ra[i][1] + hb[2] * ra[i][2] + slack {
                return true;
            }
        }
        for j in 0..3 {
            if dot(baxis(j), d).abs()
                > hb[j] + ha[0] * ra[0][j] + ha[1] * ra[1][j] + ha[2] * ra[2][j] + slack
            {
                return true;
            }
        }
        if lite {
            return false;
        }
        for i in 0..3 {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            for j in 0..3 {
                let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
                let s = t[i2] * r[i1][j] - t[i1] * r[i2][j];
                if s.abs()
                    > ha[i1] * ra[i2][j]
                        + ha[i2] * ra[i1][j]
                        + hb[j1] * ra[i][j2]
                        + hb[j2] * ra[i][j1]
                        + slack
                {
                    return true;
                }
            }
        }
        false
    }
}
