//! Oriented bounding boxes (Gottschalk et al. 1996, §4–§5): the fit and the overlap test.

use super::box_gap::{self, GapBox};
use super::fit::{
    covariance_of_moments, covariance_of_points, covariance_of_triangles, principal_axes,
    unit_scale,
};
use super::hull::hull_covariance;
use super::least_volume::{Scratch, least_volume_axes, padding};
use super::sat;
use super::sat::batch::BATCH;
use super::sat::box_triangle::{BoxLanes, LaneTriangle};
use super::sat::lanes::Wide;
use super::{
    BoundingVolume, BvKind, CacheLine, Fitted, Group, ObbFit, OverlapOptions, SatMode, VolumeTests,
    store_box, store_box_of_ranges, v3,
};
use crate::math::{Matrix3, Point, Real, Vector};
use std::cell::RefCell;

/// An oriented bounding box, stored in single precision (60 bytes; a tree node is one 64-byte
/// cache line).
///
/// Frame: the model's. The box is `{ center + Σ u_k half_k axis_k : |u_k| ≤ 1 }`; the axes are
/// the rows of a rotation, right-handed (`axis_2 = axis_0 × axis_1`), unit and orthogonal to
/// single precision. The stored numbers are rounded outward so the box contains what it was
/// fitted to.
#[derive(Clone, Copy, Debug, PartialEq)]
// Saved trees (`bvh::tree_file`) as plain floats; a loaded volume is checked with `well_formed`.
#[cfg_attr(feature = "persist", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(C)] // the overlap test reads the fields as 15 consecutive floats (`Obb::floats`)
pub struct Obb {
    /// Column-major: `cols[k][i]` is coordinate `k` of axis `i` (so `cols[k]` lines up the three
    /// axes' `k` components for the lanes of the overlap test).
    cols: [[f32; 3]; 3],
    half: [f32; 3],
    center: [f32; 3],
}

// The layout `Obb::floats` relies on: 15 consecutive floats, no padding, in field order.
const _: () = {
    assert!(std::mem::size_of::<Obb>() == 15 * 4);
    assert!(std::mem::align_of::<Obb>() == std::mem::align_of::<f32>());
    assert!(std::mem::offset_of!(Obb, cols) == 0);
    assert!(std::mem::offset_of!(Obb, half) == 9 * 4);
    assert!(std::mem::offset_of!(Obb, center) == 12 * 4);
};

impl Obb {
    /// `b` placed in A's frame, given its rotated axes and their transpose, all in single
    /// precision: the axes' rounding is far inside the test's relative slack, and the centre's
    /// absolute rounding error (from coordinates as large as the distance between the volume
    /// frames) is covered by the query's margin ([`BoundingVolume::prepare`]).
    #[inline(always)]
    fn placed(q: &ObbQuery, b: &Obb, axes: [[f32; 4]; 3], bt: [[f32; 4]; 3]) -> PlacedObb {
        // In lanes, in the order of the scalar sums (no fused multiply-add), so every
        // implementation of the lanes gives the same bits.
        use sat::lanes::F32x4;
        let [c0, c1, c2] = q.rot_cols.map(|c| F32x4::load(&c));
        let [x, y, z] = b.center;
        let p = F32x4::load(&q.pos);
        // Moved up a lane and written as one vector, as the test reads it (see `half`).
        let center = c0
            .mul(F32x4::splat(x))
            .add(c1.mul(F32x4::splat(y)))
            .add(c2.mul(F32x4::splat(z)))
            .add(p)
            .shift_up()
            .to_array();
        PlacedObb {
            axes,
            bt,
            center,
            // One 16-byte vector, so one store: the paired test reads both boxes' half extents
            // right after they are placed, and a load is forwarded from a store only when that
            // one store covers it (see docs/decisions.md, "Separating axis test").
            half: F32x4::load3(&b.floats()[9..]).to_array(),
        }
    }

    /// The slack of every test of this query ([`SLACK`] and the margin), computed by the test
    /// in its lanes. Its sums are a tree rather than a chain: the slack feeds every inequality
    /// of the test, so its latency after the centres are known is on the path to the test's
    /// branches (docs/decisions.md, "Separating axis test").
    #[inline(always)]
    fn slack(q: &ObbQuery) -> sat::Slack {
        sat::Slack {
            relative: SLACK,
            absolute: q.margin,
        }
    }

    /// Fits an OBB to points and triangles given directly (the builder uses
    /// [`BoundingVolume::fit`]). Follows Gottschalk et al. 1996, §4: convex hull of the points,
    /// area-weighted covariance of the hull's surface, eigenvectors as axes, extents from all
    /// points. Falls back (§7.1) to the covariance of the triangles when the hull is flat,
    /// and to that of the points when the triangles have no area. `fit` chooses among that box
    /// and others ([`ObbFit`]).
    pub fn fit_points(points: &[Point], triangles: &[[Point; 3]], fit: ObbFit) -> Obb {
        let axes = fit_axes(
            points.iter().copied(),
            |origin, k| of_triangles(origin, k, triangles.iter().copied()),
            fit,
        );
        Self::with_axes(&axes, points.iter().copied())
    }

    /// The box with the given orientation (rows of a rotation, rounded to `f32`) that bounds
    /// `points`, stored conservatively.
    pub fn with_axes(axes: &[Vector; 3], points: impl Iterator<Item = Point>) -> Obb {
        let (rows, stored) = stored_axes(axes);
        let (center, half) = store_box(&stored, points);
        Obb::of_rows(&rows, center, half)
    }

    /// The box with stored axes `rows` (rows of its rotation), centre and half extents.
    fn of_rows(rows: &[[f32; 3]; 3], center: [f32; 3], half: [f32; 3]) -> Obb {
        Obb {
            cols: std::array::from_fn(|k| std::array::from_fn(|i| rows[i][k])),
            half,
            center,
        }
    }

    /// The stored box with `axes` around `points` (volume frame) and the builder's split
    /// directions: its axes, longest first.
    fn fitted(axes: [Vector; 3], points: impl Iterator<Item = Point>) -> Fitted<Obb> {
        let bv = Obb::with_axes(&axes, points);
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

    /// The box as 15 consecutive floats: axes column by column, half extents, centre (the
    /// layout [`sat::separated_f32`] reads).
    #[inline(always)]
    fn floats(&self) -> &[f32; 15] {
        // SAFETY: `Obb` is `repr(C)` with exactly 15 `f32` fields in this order and no padding
        // (checked at compile time above); `[f32; 15]` has the same size and alignment.
        unsafe { &*(self as *const Obb as *const [f32; 15]) }
    }

    /// The box as the box–triangle test reads it: the axes coordinate by coordinate, the half
    /// extents, the centre in lanes 1–3 (read with the last half extent in lane 0).
    #[inline(always)]
    fn lanes(&self) -> BoxLanes<'_> {
        let f = self.floats();
        BoxLanes {
            cols: [&f[0..], &f[3..], &f[6..]],
            half: &f[9..],
            center: &f[11..],
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

/// The covariance of triangles given by their corners (§4's closed form), fitted at the scale `k`
/// relative to `origin` (both of [`fit_axes`]'s unit-scale frame).
/// The axes a box with `axes` stores (the first two rounded to `f32`, the third their cross
/// product rounded), as `f32` rows and as vectors.
fn stored_axes(axes: &[Vector; 3]) -> ([[f32; 3]; 3], [Vector; 3]) {
    let a0 = [axes[0].x as f32, axes[0].y as f32, axes[0].z as f32];
    let a1 = [axes[1].x as f32, axes[1].y as f32, axes[1].z as f32];
    let c = v3(&a0).cross(&v3(&a1));
    let a2 = [c.x as f32, c.y as f32, c.z as f32];
    ([a0, a1, a2], [v3(&a0), v3(&a1), v3(&a2)])
}

/// [`ObbFit::Dito`]'s axes of a group, from its points read straight from the mesh (no copy;
/// the fit moves its 14 extremal points to unit scale itself).
fn dito_group_axes(group: &Group<'_>) -> [Vector; 3] {
    super::dito::Extremes::of_indexed(group.mesh.vertices(), group.vertices, &group.origin)
        .map_or([Vector::x(), Vector::y(), Vector::z()], |e| {
            super::dito::dito_axes(&e)
        })
}

fn of_triangles(
    origin: &Point,
    k: Real,
    triangles: impl Iterator<Item = [Point; 3]>,
) -> Option<Matrix3> {
    covariance_of_triangles(origin, triangles.map(|t| t.map(|p| p * k)))
}

/// Groups of up to this many points turn the §4 box alone in the least-volume fit; larger ones
/// also turn the frame's own axes and keep the lesser box: fewer box tests than turning all
/// three [`ObbFit::Smallest`] candidates, for shorter builds (docs/decisions.md, "Fit").
const ONE_START: usize = 128;

/// Groups of up to this many points (a few triangles: two that share no corner have six)
/// start the least-volume search from the principal axes of their triangles' covariance (§4's
/// closed form, as RAPID's fit) instead of their hull's, and search over all their points: no
/// hull is built. A group this small is a patch of surface whose hull is a thin slab over it,
/// and the search ends at the same boxes from either start, in less build time; eight points
/// cost the torpedo path box tests (docs/decisions.md, "Fit"). The
/// count is the group's own points: a large group fitted from its children's hull vertices
/// ([`Obb::fit_group`]'s candidates) builds its hull however few they are.
const TRIANGLES_START: usize = 7;

/// The orientation of a group's box ([`ObbFit`]): the hull covariance of §4 (with its
/// fallbacks), and for [`ObbFit::Smallest`] also the triangles' covariance and the frame's own
/// axes, keeping the box of least surface; for [`ObbFit::LeastVolume`] the §4 box and, for
/// more than [`ONE_START`] points, the frame's axes turned to less volume
/// ([`least_volume_axes`]), keeping the lesser. `of_triangles(origin, k)` is the
/// triangles' covariance (any scale: only its eigenvectors are used), given the unit-scale frame
/// the points are fitted in (scale `k`, origin `origin` in it) should it need one.
fn fit_axes(
    points: impl Iterator<Item = Point> + Clone,
    of_triangles: impl Fn(&Point, Real) -> Option<Matrix3>,
    fit: ObbFit,
) -> [Vector; 3] {
    fit_axes_of(points, None, of_triangles, fit, None)
}

/// [`fit_axes`] for a group of `count` points (`None`: as many as `points` yields), which
/// may be fewer than the group's as long as they include its hull's vertices (only the
/// number of points decides whether the least-volume search has a second start, see
/// [`ONE_START`]), and, with `hull`, the indices (in `points`' order) of a superset of the
/// hull's vertices: the hull's own, or all the points where no hull was built (flat points,
/// RAPID's fit).
fn fit_axes_of(
    points: impl Iterator<Item = Point> + Clone,
    count: Option<usize>,
    of_triangles: impl Fn(&Point, Real) -> Option<Matrix3>,
    fit: ObbFit,
    mut hull: Option<&mut Vec<u32>>,
) -> [Vector; 3] {
    if let Some(h) = hull.as_deref_mut() {
        h.clear();
    }
    if points.clone().next().is_none() {
        return [Vector::x(), Vector::y(), Vector::z()];
    }
    // The axes do not depend on the scale: fit at unit scale, so that squares and products
    // neither overflow nor underflow for huge or tiny models.
    let k = unit_scale(points.clone());
    thread_local! {
        static SCRATCH: RefCell<FitScratch> = RefCell::default();
    }
    SCRATCH.with_borrow_mut(|scratch| {
        let FitScratch {
            scaled,
            vertices,
            faces,
            hull_points,
            least,
        } = scratch;
        scaled.clear();
        scaled.extend(points.map(|p| p * k));
        let points: &[Point] = scaled;
        let count = count.unwrap_or(points.len());
        let origin = points[0];
        let of_triangles = || of_triangles(&origin, k);
        // The hull's vertices, where the caller wants them.
        let wanted = hull.is_some().then_some(&mut *vertices);
        let axes = match fit {
            ObbFit::Hull => hull_axes(points, &of_triangles, wanted, None),
            ObbFit::Triangles => triangles_axes(points, &of_triangles),
            ObbFit::Dito => match super::dito::Extremes::of(points) {
                Some(e) => super::dito::dito_axes(&e),
                None => [Vector::x(), Vector::y(), Vector::z()],
            },
            ObbFit::Smallest => smallest_axes(points, &of_triangles, wanted),
            ObbFit::LeastVolume => least_volume_fit(
                points,
                count,
                &of_triangles,
                vertices,
                faces,
                hull_points,
                least,
            ),
        };
        if let Some(h) = hull {
            // RAPID's fit builds no hull, and a flat hull has no vertices: then all the points.
            if matches!(fit, ObbFit::Triangles | ObbFit::Dito) || vertices.is_empty() {
                h.extend(0..points.len() as u32);
            } else {
                h.extend_from_slice(vertices);
            }
        }
        axes
    })
}

/// The §4 axes of `points` (unit scale, origin the first point): the hull's covariance, else
/// the triangles', else the points'. The hull's vertices are gathered for the least-volume
/// search and where the caller wants them.
#[inline(always)]
fn hull_axes(
    points: &[Point],
    of_triangles: &impl Fn() -> Option<Matrix3>,
    vertices: Option<&mut Vec<u32>>,
    faces: Option<&mut Vec<[u8; 3]>>,
) -> [Vector; 3] {
    principal_axes(
        &hull_covariance(points, &points[0], vertices, faces)
            .or_else(of_triangles)
            .unwrap_or_else(|| covariance_of_points(points)),
    )
}

/// RAPID's axes: the triangles' covariance, else the points'.
#[inline(always)]
fn triangles_axes(points: &[Point], of_triangles: &impl Fn() -> Option<Matrix3>) -> [Vector; 3] {
    principal_axes(&of_triangles().unwrap_or_else(|| covariance_of_points(points)))
}

/// [`ObbFit::Smallest`]: the candidate box of least surface. The candidates in order of
/// preference on ties: the hull's, the triangles', the frame's own axes.
#[inline(always)]
fn smallest_axes(
    points: &[Point],
    of_triangles: &impl Fn() -> Option<Matrix3>,
    wanted: Option<&mut Vec<u32>>,
) -> [Vector; 3] {
    let candidates = [
        Some(hull_axes(points, of_triangles, wanted, None)),
        of_triangles().map(|c| principal_axes(&c)),
        Some([Vector::x(), Vector::y(), Vector::z()]),
    ];
    let areas = surfaces(&candidates, points);
    let mut best = 0;
    for i in 1..3 {
        if areas[i] < areas[best] {
            best = i;
        }
    }
    candidates[best].expect("the hull's candidate is always there")
}

/// [`ObbFit::LeastVolume`]: the §4 box turns alone for up to `ONE_START` points, the §4 box
/// and the frame's axes above (see `ONE_START`); up to `TRIANGLES_START` points the
/// triangles' axes, without a hull.
#[inline(always)]
fn least_volume_fit(
    points: &[Point],
    count: usize,
    of_triangles: &impl Fn() -> Option<Matrix3>,
    vertices: &mut Vec<u32>,
    faces: &mut Vec<[u8; 3]>,
    hull_points: &mut Vec<Point>,
    least: &mut Scratch,
) -> [Vector; 3] {
    let start = if count <= TRIANGLES_START {
        vertices.clear();
        faces.clear();
        triangles_axes(points, of_triangles)
    } else {
        hull_axes(
            points,
            of_triangles,
            Some(&mut *vertices),
            Some(&mut *faces),
        )
    };
    let frame = (count > ONE_START).then_some([Vector::x(), Vector::y(), Vector::z()]);
    let candidates = [Some(start), frame];
    // The hull's vertices bound the same boxes as all the points, and are fewer.
    let bounded: &[Point] = if vertices.is_empty() {
        points
    } else {
        hull_points.clear();
        hull_points.extend(vertices.iter().map(|&i| points[i as usize]));
        hull_points
    };
    let pad = padding(bounded);
    // Ties keep the earlier candidate.
    let mut best: Option<([Vector; 3], Real)> = None;
    for start in candidates.into_iter().flatten() {
        let (axes, volume) = least_volume_axes(start, bounded, faces, pad, least);
        if best.is_none_or(|(_, v)| volume < v) {
            best = Some((axes, volume));
        }
    }
    best.expect("the hull's candidate is always there").0
}

/// The surface areas (up to a factor 2) of the boxes with the candidates' axes around `points`,
/// in one pass over the points; `+∞` for a missing candidate.
fn surfaces(candidates: &[Option<[Vector; 3]>; 3], points: &[Point]) -> [Real; 3] {
    let axes: [[Vector; 3]; 3] =
        candidates.map(|c| c.unwrap_or([Vector::zeros(), Vector::zeros(), Vector::zeros()]));
    let mut lo = [[Real::INFINITY; 3]; 3];
    let mut hi = [[Real::NEG_INFINITY; 3]; 3];
    for p in points {
        for c in 0..3 {
            for a in 0..3 {
                let d = axes[c][a].dot(&p.coords);
                lo[c][a] = lo[c][a].min(d);
                hi[c][a] = hi[c][a].max(d);
            }
        }
    }
    std::array::from_fn(|c| {
        if candidates[c].is_none() {
            return Real::INFINITY;
        }
        let e: [Real; 3] = std::array::from_fn(|a| hi[c][a] - lo[c][a]);
        e[0] * e[1] + e[1] * e[2] + e[2] * e[0]
    })
}

/// Working storage of [`fit_axes`], one per thread.
#[derive(Default)]
struct FitScratch {
    /// The group's points at unit scale.
    scaled: Vec<Point>,
    /// Indices of the hull's vertices.
    vertices: Vec<u32>,
    /// The hull's faces by positions in `vertices` (small hulls only).
    faces: Vec<[u8; 3]>,
    /// The hull's vertices.
    hull_points: Vec<Point>,
    least: Scratch,
}

/// The axes of a single non-degenerate triangle's box, in closed form: with `least_area`, those
/// of the least-area rectangle around it (the default fit, [`ObbFit::LeastVolume`]), else §4's.
/// `None` for a degenerate or sliver triangle (see [`crate::query::has_area`]); the caller
/// falls back to the general fit. Leaves are half the nodes, so they skip the general fit.
///
/// - §4: the triangle's hull is the triangle itself (flat, so §7.1's fallback applies), whose
///   area-weighted covariance has the normal as the eigenvector of eigenvalue 0 and the in-plane
///   eigenvectors of a 2×2 symmetric matrix: the basis `SymmetricEigen` would give.
/// - Least area: the first axis along the triangle's longest edge, the last along its normal.
///   The rectangle with a side on the longest edge has exactly twice the triangle's area (both
///   angles at that edge are at most 90°, so the opposite corner projects onto the edge), and
///   no rectangle around a triangle has less: it is what the least-volume turn's one rotation
///   about the normal ([`least_volume_axes`]) looks for. For an obtuse triangle it is the only
///   such rectangle; for a right or acute one, the rectangles on the other edges whose angles
///   are at most 90° have the same area, and the longest edge is the choice measured best
///   (the variants tried and their figures: docs/decisions.md, "Fit").
fn triangle_axes(t: &[Point; 3], least_area: bool) -> Option<[Vector; 3]> {
    // At unit scale (exact), so that the normal's norm neither overflows nor underflows.
    let k = unit_scale(t.iter().copied());
    let t = &t.map(|p| p * k);
    let area2 = (t[1] - t[0]).cross(&(t[2] - t[0])).norm_squared();
    // A triangle whose normal is rounding noise has no plane to fit: the caller falls back.
    // (Negated so that a NaN area also falls back.)
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(area2 > 1e-24 * (t[1] - t[0]).norm_squared() * (t[2] - t[0]).norm_squared()) {
        return None;
    }
    let e1 = t[1] - t[0];
    let u = e1.try_normalize(1e-300)?;
    let n = e1.cross(&(t[2] - t[0]));
    // Orthogonalise against rounding, then complete the right-handed frame.
    let n = (n - u * u.dot(&n)).try_normalize(1e-300)?;
    if least_area {
        // The longest edge (ties: the earlier), in the plane against rounding.
        let edges = [e1, t[2] - t[1], t[0] - t[2]];
        let mut longest = 0;
        for i in 1..3 {
            if edges[i].norm_squared() > edges[longest].norm_squared() {
                longest = i;
            }
        }
        let along = edges[longest];
        let major = (along - n * n.dot(&along)).try_normalize(1e-300)?;
        let minor = n.cross(&major);
        return Some([major, minor, major.cross(&minor)]);
    }
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

/// B's box expressed in A's frame, laid out for the overlap test: B's axes in A's frame in
/// single precision, also transposed, the half extents and the centre.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub struct PlacedObb {
    /// `axes[j]` = axis `j` (lane 3 zero).
    axes: [[f32; 4]; 3],
    /// `bt[k][j]` = coordinate `k` of axis `j` (lane 3 zero).
    bt: [[f32; 4]; 3],
    /// The centre in lanes 1, 2, 3 (lane 0 zero), where the test subtracts A's centre from it
    /// ([`sat::SatPair::b_center`]).
    center: [f32; 4],
    /// Half extents (lane 3 zero), written as one vector ([`Obb::placed`]).
    half: [f32; 4],
}

impl PlacedObb {
    /// The placed box as the box–triangle test reads it (its transposed axes are the axes
    /// coordinate by coordinate).
    #[inline(always)]
    fn lanes(&self) -> BoxLanes<'_> {
        BoxLanes {
            cols: [&self.bt[0], &self.bt[1], &self.bt[2]],
            half: &self.half,
            center: &self.center,
        }
    }
}

/// Two tests' boxes as the paired test reads them: `a[k]` against the placed `b[k]`.
#[inline(always)]
fn sat_pairs<'a>(a: [&'a Obb; 2], b: [&'a PlacedObb; 2]) -> [sat::SatPair<'a>; 2] {
    let side = |k: usize| sat::SatPair {
        a: a[k].floats(),
        b_axes: &b[k].axes,
        b_rows: &b[k].bt,
        b_half: &b[k].half,
        b_center: &b[k].center,
    };
    [side(0), side(1)]
}

/// Per-query constants of OBB tests.
#[derive(Clone, Copy, Debug)]
pub struct ObbQuery {
    /// The columns of `rot_ab` in single precision (lane 3 zero).
    rot_cols: [[f32; 4]; 3],
    /// `pos_ab` in single precision (lane 3 zero).
    pos: [f32; 4],
    epsilon: f32,
    /// Absolute growth of B's boxes (rounded up): the margin asked for and the rounding error
    /// of placing B's centres in single precision.
    margin: f32,
    lite: bool,
}

/// Relative rounding slack of the single-precision overlap test: every separating inequality
/// gets `SLACK · (|d|₁ + Σa + Σb)` added to its right-hand side (`d` the vector between the
/// centres, `a`, `b` the half extents). The test's own rounding errors are below a tenth of it,
/// so it only ever errs toward "overlap".
pub const SLACK: f32 = 4e-6;

/// A bound on the error of placing the centre `c` of a box of B in A's frame in single
/// precision (`rot_ab · c + pos_ab`, with `rot_ab` and `pos_ab` rounded to single precision),
/// for `|c| ≤ center_reach_b`. Each coordinate errs by at most `3.5 ε₃₂ (center_reach_b +
/// |pos_ab|∞)` (the rounding of `rot_ab` and `pos_ab`, three products and three sums;
/// `ε₃₂ = 2⁻²³`), the vector by √3 times that, and so does its projection on any axis of the
/// separating axis test (all of length at most 1): 6.1 ε₃₂ of that sum. The slack of every
/// inequality gets 8 ε₃₂ of it: for models in contact, about 1e-6 of their size.
fn placement_error(center_reach_b: Real, pos_ab: &Vector) -> Real {
    8.0 * Real::from(f32::EPSILON) * (center_reach_b + pos_ab.amax())
}

/// Absolute slack added to every separating inequality: among subnormal numbers (models
/// smaller than about 1e-38, where single precision keeps only an absolute precision of
/// 1.4e-45) the relative [`SLACK`] does not cover the test's rounding; some twenty operations
/// each err by at most half of 1.4e-45.
pub const SUBNORMAL_SLACK: f32 = 1e-42;

impl Obb {
    /// [`BoundingVolume::fit`] and [`BoundingVolume::fit_with_hull`]: the hull is built from
    /// the points `candidates` names (mesh indices) if given, else from the group's; the box
    /// bounds all of the group's points either way; `hull` receives the mesh indices of a
    /// superset of the hull's vertices.
    fn fit_group(
        group: &Group<'_>,
        candidates: Option<&[u32]>,
        mut hull: Option<&mut Vec<u32>>,
    ) -> Fitted<Obb> {
        // Where no hull is built, all of the group's points stand for its hull's vertices.
        let all_points = |hull: Option<&mut Vec<u32>>| {
            if let Some(h) = hull {
                h.clear();
                h.extend_from_slice(group.vertices);
            }
        };
        // RAPID's fit from the build's summed moments needs the points only for the box's
        // extents (read straight from the mesh) and for the fallback of a group with no area:
        // no copy of them, no unit-scale pass (the same axes and box bit for bit).
        if group.triangles.len() > 1 && !group.moments.is_empty() {
            let moments = group.triangles.iter().map(|&t| &group.moments[t as usize]);
            if let Some(covariance) = covariance_of_moments(moments) {
                all_points(hull);
                return Self::fitted(principal_axes(&covariance), group.points());
            }
        }
        // A leaf's box in closed form, from the mesh's corners (no copy of them: half the
        // nodes are leaves).
        let leaf_axes = match group.triangles {
            [t] => triangle_axes(
                &group.triangle(*t),
                matches!(group.fit, ObbFit::LeastVolume | ObbFit::Dito),
            ),
            _ => None,
        };
        if let Some(axes) = leaf_axes {
            all_points(hull);
            return Self::fitted(axes, group.points());
        }
        if group.fit == ObbFit::Dito {
            all_points(hull);
            return Self::fitted(dito_group_axes(group), group.points());
        }
        // (The group's points are read from the mesh each time they are needed, not copied.)
        let points = group.points();
        let axes = if group.triangles.len() == 1 || !group.moments.is_empty() {
            // A leaf whose triangle has no closed-form box (degenerate), or RAPID's fit of a
            // group whose triangles have no area (the fast path above took the others): the
            // fit of its points.
            all_points(hull.as_deref_mut());
            fit_axes(points.clone(), |_, _| None, group.fit)
        } else {
            // The hull from the candidates where given (they hold its vertices), else from all
            // the group's points.
            let ids = candidates.unwrap_or(group.vertices);
            let (v, o) = (group.mesh.vertices(), group.origin);
            let from = ids.iter().map(move |&i| v[i as usize] - o);
            let of_group = |origin: &Point, k| {
                of_triangles(
                    origin,
                    k,
                    group.triangles.iter().map(|&t| group.triangle(t)),
                )
            };
            let count = Some(group.vertices.len());
            let axes = fit_axes_of(from, count, of_group, group.fit, hull.as_deref_mut());
            // The hull's vertices as mesh indices.
            if let Some(h) = hull {
                for i in h.iter_mut() {
                    *i = ids[*i as usize];
                }
            }
            axes
        };
        Self::fitted(axes, points)
    }
}

impl BoundingVolume for Obb {
    const KIND: BvKind = BvKind::Obb;

    fn fit(group: &Group<'_>) -> Fitted<Obb> {
        Obb::fit_group(group, None, None)
    }

    fn prepare(
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        margin: Real,
        center_reach_b: Real,
        options: &OverlapOptions,
    ) -> ObbQuery {
        ObbQuery {
            rot_cols: std::array::from_fn(|k| {
                [
                    rot_ab[(0, k)] as f32,
                    rot_ab[(1, k)] as f32,
                    rot_ab[(2, k)] as f32,
                    0.0,
                ]
            }),
            pos: [pos_ab.x as f32, pos_ab.y as f32, pos_ab.z as f32, 0.0],
            // Rounded up: never a smaller margin than asked for.
            epsilon: crate::math::f32_up(options.epsilon),
            margin: crate::math::f32_up(margin + placement_error(center_reach_b, pos_ab))
                + SUBNORMAL_SLACK,
            lite: options.sat == SatMode::Lite,
        }
    }

    #[inline(always)]
    fn place(q: &ObbQuery, b: &Obb) -> PlacedObb {
        let (axes, bt) = sat::rotate_axes(&q.rot_cols, &b.cols);
        Self::placed(q, b, axes, bt)
    }

    #[inline(always)]
    fn overlaps(q: &ObbQuery, a: &Obb, b: &PlacedObb) -> bool {
        !sat::separated_f32(
            a.floats(),
            &b.axes,
            &b.bt,
            &b.half,
            &b.center,
            q.epsilon,
            Self::slack(q),
            q.lite,
        )
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
        // The dot products are symmetric: each pair once.
        let orthonormal = (0..3).all(|i| {
            (i..3).all(|j| (a[i].dot(&a[j]) - if i == j { 1.0 } else { 0.0 }).abs() <= 1e-6)
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

impl VolumeTests for Obb {
    type NodeAlign = CacheLine;

    /// [`ObbFit::Dito`] of two triangles or more: the pass that sizes the box on its stored
    /// axes leaves the projections for the split (the box's [`Fitted::bv`] and split axes are
    /// [`BoundingVolume::fit`]'s, bit for bit).
    fn fit_projecting(
        group: &Group<'_>,
        projections: &mut Vec<[Real; 6]>,
    ) -> Option<(Fitted<Obb>, [Real; 3], [Real; 3])> {
        if group.fit != ObbFit::Dito || group.triangles.len() < 2 {
            return None;
        }
        let (rows, stored) = stored_axes(&dito_group_axes(group));
        let (v, o) = (group.mesh.vertices(), group.origin);
        let mut lo = [Real::INFINITY; 3];
        let mut hi = [Real::NEG_INFINITY; 3];
        projections.clear();
        projections.extend(group.vertices.iter().map(|&i| {
            let p = (v[i as usize] - o).coords;
            let d = [stored[0].dot(&p), stored[1].dot(&p), stored[2].dot(&p)];
            for k in 0..3 {
                lo[k] = lo[k].min(d[k]);
                hi[k] = hi[k].max(d[k]);
            }
            [d[0], d[1], d[2], 0.0, 0.0, 0.0]
        }));
        let (center, half) = store_box_of_ranges(&stored, &lo, &hi);
        let bv = Obb::of_rows(&rows, center, half);
        // Longest first, as `fitted` orders them.
        let mut order = [0usize, 1, 2];
        order.sort_by(|&i, &j| half[j].total_cmp(&half[i]));
        if order != [0, 1, 2] {
            for row in projections.iter_mut() {
                let d = *row;
                for (slot, &k) in order.iter().enumerate() {
                    row[slot] = d[k];
                }
            }
        }
        let axes = bv.axes();
        let fitted = Fitted {
            bv,
            split_axes: order.map(|k| axes[k].normalize()),
            center: bv.center(),
        };
        Some((fitted, order.map(|k| lo[k]), order.map(|k| hi[k])))
    }

    type Query = ObbQuery;

    type Placed = PlacedObb;

    /// The boxes' gap along two directions ([`box_gap`]).
    #[inline(always)]
    fn farther_than(_: &ObbQuery, a: &Obb, b: &PlacedObb, d: Real) -> bool {
        let box_a = GapBox {
            center: a.center,
            axes: [0, 1, 2].map(|i| [a.cols[0][i], a.cols[1][i], a.cols[2][i]]),
            half: a.half,
        };
        let box_b = GapBox {
            center: [b.center[1], b.center[2], b.center[3]],
            axes: [0, 1, 2].map(|j| [b.axes[j][0], b.axes[j][1], b.axes[j][2]]),
            half: [b.half[0], b.half[1], b.half[2]],
        };
        box_gap::farther_than(&box_a, &box_b, d)
    }

    fn fit_with_hull(
        group: &Group<'_>,
        candidates: Option<&[u32]>,
        hull: &mut Vec<u32>,
    ) -> Fitted<Obb> {
        Obb::fit_group(group, candidates, Some(hull))
    }

    #[inline(always)]
    fn place_pair(q: &ObbQuery, b: [&Obb; 2], wide: Wide) -> [PlacedObb; 2] {
        let [(x0, t0), (x1, t1)] =
            sat::rotate_axes_pair(wide, &q.rot_cols, [&b[0].cols, &b[1].cols]);
        [Self::placed(q, b[0], x0, t0), Self::placed(q, b[1], x1, t1)]
    }

    #[inline]
    fn overlaps_batch(q: &ObbQuery, a: &[&Obb; BATCH], b: &[&Obb; BATCH], wide: Wide) -> u8 {
        let batch = sat::batch::BatchQuery {
            rot_cols: q.rot_cols,
            pos: q.pos,
            eps: q.epsilon,
            slack: Self::slack(q),
            lite: q.lite,
        };
        !sat::batch::separated_batch(wide, &batch, &a.map(Obb::floats), &b.map(Obb::floats))
    }

    #[inline(always)]
    fn overlaps_pair(q: &ObbQuery, a: [&Obb; 2], b: [&PlacedObb; 2], wide: Wide) -> [bool; 2] {
        let sep = sat::separated_f32_pair(wide, sat_pairs(a, b), q.epsilon, Self::slack(q), q.lite);
        [!sep[0], !sep[1]]
    }

    #[inline(always)]
    fn overlaps_pair_depth(
        q: &ObbQuery,
        a: [&Obb; 2],
        b: [&PlacedObb; 2],
        wide: Wide,
    ) -> ([bool; 2], Option<[f32; 2]>) {
        let (sep, depth) =
            sat::separated_f32_pair_depth(wide, sat_pairs(a, b), q.epsilon, Self::slack(q), q.lite);
        ([!sep[0], !sep[1]], Some(depth))
    }

    const TRIANGLE_TESTS: bool = true;

    const BATCH_TESTS: bool = true;

    #[inline(always)]
    fn triangle_overlaps_pair(
        q: &ObbQuery,
        a: [&Obb; 2],
        t: &LaneTriangle,
        wide: Wide,
    ) -> [bool; 2] {
        let boxes = [a[0].lanes(), a[1].lanes()];
        let sep = sat::box_triangle::separated_pair(wide, boxes, t, Self::slack(q));
        [!sep[0], !sep[1]]
    }

    #[inline(always)]
    fn triangle_overlaps_placed_pair(
        q: &ObbQuery,
        b: [&PlacedObb; 2],
        t: &LaneTriangle,
        wide: Wide,
    ) -> [bool; 2] {
        let boxes = [b[0].lanes(), b[1].lanes()];
        let sep = sat::box_triangle::separated_pair(wide, boxes, t, Self::slack(q));
        [!sep[0], !sep[1]]
    }

    #[inline(always)]
    fn center_distance2(a: &Obb, b: &PlacedObb) -> Real {
        (0..3)
            .map(|k| (Real::from(b.center[k + 1]) - Real::from(a.center[k])).powi(2))
            .sum()
    }

    #[inline(always)]
    fn size(&self) -> f32 {
        // Surface area (up to a factor 4): meaningful for flat boxes too, and fewer box tests
        // than RAPID's largest extent or sizes that favour long boxes (docs/decisions.md,
        // "Descend rule").
        self.half[0] * self.half[1] + self.half[1] * self.half[2] + self.half[2] * self.half[0]
    }

    #[inline(always)]
    fn order_radius2(&self) -> Real {
        // 0.3 of the squared half diagonal (docs/decisions.md, "First-contact order").
        let h = self.half.map(Real::from);
        0.3 * (h[0] * h[0] + h[1] * h[1] + h[2] * h[2])
    }
}

#[cfg(test)]
mod tests {
    use super::super::least_volume::extent;
    use super::*;
    use crate::bv::volume_tests::sampled_least_distance;
    use proptest::prelude::*;

    /// A point of `b` at coordinates `t` ∈ [−1, 1]³ along its axes.
    fn box_point(b: &Obb, t: [f64; 3]) -> Point {
        let (axes, h) = (b.axes(), b.half_extents());
        b.center() + axes[0] * (h.x * t[0]) + axes[1] * (h.y * t[1]) + axes[2] * (h.z * t[2])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The proximity pruning test: boxes said to be farther apart than `d` have no two
        /// points (corners and sampled points) within `d`; B placed by a rotation and a shift.
        #[test]
        fn farther_than_is_a_lower_bound(
            pa in prop::collection::vec(prop::array::uniform3(-1.0..1.0f64), 1..8),
            pb in prop::collection::vec(prop::array::uniform3(-1.0..1.0f64), 1..8),
            angles in prop::array::uniform3(-3.2..3.2f64),
            axes in prop::array::uniform3(-3.2..3.2f64),
            shift in prop::array::uniform3(-4.0..4.0f64),
            ts in prop::collection::vec((prop::array::uniform3(-1.0..1.0f64), prop::array::uniform3(-1.0..1.0f64)), 32),
        ) {
            let frame = |e: [f64; 3]| {
                let r = crate::math::UnitQuaternion::from_euler_angles(e[0], e[1], e[2]);
                [r * Vector::x(), r * Vector::y(), r * Vector::z()]
            };
            let a = Obb::with_axes(&frame(axes), pa.iter().map(|p| Point::from(*p)));
            let b = Obb::with_axes(&frame(angles), pb.iter().map(|p| Point::from(*p)));
            let rot = crate::math::UnitQuaternion::from_euler_angles(angles[2], angles[0], angles[1])
                .to_rotation_matrix()
                .into_inner();
            let pos = Vector::from(shift);
            let q = Obb::prepare(&rot, &pos, 0.0, 3.0, &OverlapOptions::default());
            let placed = Obb::place(&q, &b);
            let to_a = |x: Point| crate::math::transform_point(&rot, &pos, &x);
            let least = sampled_least_distance(|t| box_point(&a, t), |t| to_a(box_point(&b, t)), &ts);
            for d in [0.0, 0.25 * least, 0.5 * least, 0.9 * least, least, 2.0 * least] {
                if Obb::farther_than(&q, &a, &placed, d) {
                    prop_assert!(least > d, "{} {}", least, d);
                }
            }
        }
    }

    /// The extents of the rectangle with sides along `u` and `v` around `t`'s corners.
    fn rectangle(t: &[Point; 3], u: &Vector, v: &Vector) -> (Real, Real) {
        (extent(u, t), extent(v, t))
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 500,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// A leaf's box under the default fit is the least-area rectangle around its triangle
        /// (float corners far from the origin, at any scale): its area is twice the triangle's
        /// (the least any rectangle can have), no in-plane angle of 1,440 gives less, §4's
        /// box is no smaller, the basis is right-handed and orthonormal, and the last axis
        /// is the normal.
        #[test]
        fn leaf_box_is_the_least_area_rectangle(
            corners in prop::array::uniform3(prop::array::uniform3(-1.0f64..1.0)),
            offset in prop::array::uniform3(-1e3f64..1e3),
            e in -30i32..30,
        ) {
            let k = 2f64.powi(e);
            let t = corners.map(|c| Point::from((Vector::from(c) + Vector::from(offset)) * k));
            let normal = (t[1] - t[0]).cross(&(t[2] - t[0]));
            // Slivers take the general fit instead.
            prop_assume!(normal.norm() > 1e-3 * k * k);
            let Some(axes) = triangle_axes(&t, true) else {
                return Err(TestCaseError::fail("no axes for a triangle with area"));
            };
            for i in 0..3 {
                prop_assert!((axes[i].norm() - 1.0).abs() < 1e-12);
                prop_assert!(axes[i].dot(&axes[(i + 1) % 3]).abs() < 1e-12);
            }
            prop_assert!((axes[0].cross(&axes[1]) - axes[2]).norm() < 1e-12);
            prop_assert!(axes[2].cross(&normal.normalize()).norm() < 1e-9);
            let (w, h) = rectangle(&t, &axes[0], &axes[1]);
            let least = normal.norm();
            prop_assert!((w * h - least).abs() <= 1e-9 * least, "area {} against {}", w * h, least);
            let (u, v) = (axes[0], axes[1]);
            for step in 0..1440 {
                let angle = step as Real * std::f64::consts::PI / 1440.0;
                let a = u * angle.cos() + v * angle.sin();
                let (w2, h2) = rectangle(&t, &a, &axes[2].cross(&a));
                prop_assert!(w2 * h2 >= w * h * (1.0 - 1e-9), "angle {angle}: {} < {}", w2 * h2, w * h);
            }
            if let Some(paper) = triangle_axes(&t, false) {
                let (w4, h4) = rectangle(&t, &paper[0], &paper[1]);
                prop_assert!(w4 * h4 >= w * h * (1.0 - 1e-9));
            }
        }
    }
}
