//! Turning a box's axes towards a box of less volume around the same points: the last step of
//! the default OBB fit ([`super::ObbFit::LeastVolume`]).
//!
//! The §4 fit (Gottschalk et al. 1996) orients a box by the principal axes of its group's hull
//! surface: a statistic, cheap and independent of how densely the surface is sampled, but not
//! the tightest box. Where the hull's spreads are near equal or a few parts stand out (a quarter
//! of the pipes cube, the torpedo's fins, the rollers of its cradle) a box turned by a few
//! degrees holds the same points in less volume. This step starts from a given orientation and
//! rotates it about one of its axes at a time to the least volume that rotation can reach, until
//! no rotation about any axis gains. With one axis kept, the box's extent along it is fixed and
//! its volume is that extent times the area of a rectangle around the other two coordinates of
//! the points, whose least area is reached with one side along an edge of their planar convex
//! hull (Freeman & Shapira 1975): each rotation is exact, found by rotating calipers over that
//! hull (Toussaint 1983), or for a few points along every pair of them. A small group's planar
//! hull is read off its 3D hull (the outline of the faces turned towards the axis), a large
//! group's sorted out of the projections. The whole is a local search (it finds a box no turn
//! about one of its own axes improves, not the minimum-volume box), so the caller may run it
//! from more than one starting orientation (the fit: the §4 box, and for large groups also the
//! frame's axes).
//!
//! It trades build time for fewer box tests than the unturned boxes (docs/decisions.md, "Fit").

use crate::math::{Point, Real, Vector};

/// Working storage of [`least_volume_axes`], reused between calls.
#[derive(Default)]
pub(super) struct Scratch {
    /// The points' coordinates in the plane of the rotation.
    planar: Vec<[Real; 2]>,
    /// Their convex hull.
    hull: Vec<[Real; 2]>,
}

/// Rotations about one axis at most this many times: two rounds over the three axes (other
/// limits: docs/decisions.md, "Least-volume search").
const MAX_STEPS: usize = 6;

/// Up to this many points (hull vertices) the search rotates first about the axis along which
/// the points are thinnest, then on in cyclic order; more points start with the first axis.
/// The groups near the leaves are nearly flat (two or three triangles: the thin axis is near
/// their normal), so the turn in their plane, where the volume is to be gained, comes first,
/// and the search can end after three rotations instead of running to [`MAX_STEPS`]
/// (docs/decisions.md, "Least-volume search").
const THIN_FIRST: usize = 32;

/// Up to this many points (a group of two triangles that share an edge: a flat quad or a
/// tetrahedron) the search makes one rotation only, about the thinnest axis ([`THIN_FIRST`]).
/// The rotations after it would only confirm it, and the fit is faster (docs/decisions.md,
/// "Least-volume search").
const ONE_TURN: usize = 4;

/// A rotation is taken only when it reduces the volume by more than this fraction: rounding
/// cannot make the search cycle, ties keep the starting axes, and the slow zigzag of rotations
/// about alternating axes near an optimum (each gaining less than the last) is cut short.
const GAIN: Real = 1e-3;

/// Axes (rows of a rotation, right-handed, unit) near `start` whose box around `points` has a
/// padded volume ([`padded_volume`] of its extents) no larger than `start`'s, with that volume:
/// `start` rotated about one of its axes at a time by the angle that minimises the volume
/// (exactly, for that axis), until no axis gains; the thinnest axis first for few points
/// ([`THIN_FIRST`]), and only that rotation for up to four points ([`ONE_TURN`]).
///
/// `points` are the group's points or any subset with the same convex hull (its vertices: the
/// box depends on nothing else), at unit scale (the fit's frame), not empty. `faces` are the
/// triangles of that hull by indices into `points`, each counter-clockwise seen from outside,
/// or empty. Each extent is padded by `pad` (> 0) before the product, so that a flat group's
/// box is turned to the least area in its plane rather than left at volume 0. `scratch` is
/// working storage reused between calls.
///
/// Each rotation's least rectangle is found three ways by the number of points: up to
/// [`PAIRS`] points along every pair of them ([`pairs_rectangle`], no planar hull); then, up to
/// [`SILHOUETTE`] points with their hull's `faces`, around the outline of the faces turned
/// towards the rotation's axis ([`silhouette`]); else around the planar hull of the sorted
/// projections ([`convex_hull_2d`]).
pub(super) fn least_volume_axes(
    start: [Vector; 3],
    points: &[Point],
    faces: &[[u8; 3]],
    pad: Real,
    scratch: &mut Scratch,
) -> ([Vector; 3], Real) {
    let faces = if (PAIRS + 1..=SILHOUETTE).contains(&points.len()) && faces.len() <= MAX_FACES {
        faces
    } else {
        &[]
    };
    let mut axes = start;
    let extents = axes.map(|a| extent(&a, points));
    let mut volume = padded_volume(&extents, pad);
    // The first rotation: about the thinnest axis for few points (see [`THIN_FIRST`]), else
    // about the first axis. Ties take the earlier axis.
    let mut first = 0;
    if points.len() <= THIN_FIRST {
        for k in 1..3 {
            if extents[k] < extents[first] {
                first = k;
            }
        }
    }
    // How many axes in a row no rotation about which gains; the axis just rotated about
    // counts (the rotation made it the best about that axis).
    let mut unchanged = 0;
    let steps = if points.len() <= ONE_TURN {
        1
    } else {
        MAX_STEPS
    };
    for step in 0..steps {
        if unchanged == 3 {
            break;
        }
        let k = (first + step) % 3;
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let Scratch { planar, hull } = scratch;
        // The points in the plane of the rotation, and their extent along its axis.
        planar.clear();
        let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
        for p in points {
            let w = axes[k].dot(&p.coords);
            lo = lo.min(w);
            hi = hi.max(w);
            planar.push([axes[i].dot(&p.coords), axes[j].dot(&p.coords)]);
        }
        let extent_k = hi - lo + pad;
        let found = if points.len() <= PAIRS {
            // Its area is measured over all the points already.
            pairs_rectangle(planar, pad)
        } else {
            if faces.is_empty() || !silhouette(faces, planar, hull) {
                convex_hull_2d(planar, hull);
            }
            // The chosen direction's area measured again on the hull (rounding on a sliver of
            // a hull could mislead the calipers' walks; this keeps every step from growing the
            // box whatever they return).
            least_area_rectangle(hull, pad).map(|(d, _)| (d, padded_area(hull, d, pad)))
        };
        match found {
            Some(([c, s], area)) if extent_k * area < volume * (1.0 - GAIN) => {
                // The rectangle's first side along (c, s) in the (axis i, axis j) plane: its
                // sides' padded lengths are the new extents along axes i and j.
                let turned = (axes[i] * c + axes[j] * s).normalize();
                axes[j] = axes[k].cross(&turned).normalize();
                axes[i] = turned;
                volume = extent_k * area;
                unchanged = 1;
            }
            _ => unchanged += 1,
        }
    }
    (axes, volume)
}

/// The padding of [`least_volume_axes`] for `points`: `1e-6` of their largest extent along the
/// frame's axes.
pub(super) fn padding(points: &[Point]) -> Real {
    1e-6 * [Vector::x(), Vector::y(), Vector::z()]
        .iter()
        .map(|a| extent(a, points))
        .fold(0.0, Real::max)
}

/// The product of the `extents`, each padded by `pad`.
fn padded_volume(extents: &[Real; 3], pad: Real) -> Real {
    extents.iter().map(|e| e + pad).product()
}

/// The extent of `points` along the unit vector `axis`.
pub(super) fn extent(axis: &Vector, points: &[Point]) -> Real {
    let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
    for p in points {
        let d = axis.dot(&p.coords);
        lo = lo.min(d);
        hi = hi.max(d);
    }
    hi - lo
}

/// The convex hull of `points` by Andrew's monotone chain into `hull`, counter-clockwise
/// without collinear points (a segment's two ends for collinear points, empty for one point or
/// none); `points` are filtered and sorted on the way. Double precision: the hull only chooses
/// a direction, the box is fitted to all points afterwards. Rounding can keep a vertex of
/// nearly collinear points that one chain saw turn left and the other would have dropped (a
/// sliver; the calipers skip its tiny edges and the chosen direction is rechecked).
fn convex_hull_2d(points: &mut Vec<[Real; 2]>, hull: &mut Vec<[Real; 2]>) {
    hull.clear();
    if points.len() > FILTER {
        drop_interior(points);
    }
    // Lexicographic on the values (the coordinates are finite), by one integer key per point:
    // branch-free comparisons (docs/decisions.md, "Least-volume search").
    points.sort_unstable_by_key(|p| point_key(*p));
    for &p in points.iter() {
        push_left_turn(hull, p, 2);
    }
    let lower = hull.len() + 1;
    for &p in points.iter().rev().skip(1) {
        push_left_turn(hull, p, lower);
    }
    // The chain ends where it began.
    hull.pop();
}

/// Up to this many points (the hull vertices of a group of up to about four triangles) each
/// rotation's rectangle is the least of those along the directions of all pairs of points
/// ([`pairs_rectangle`]): at most 28 directions, each measured over at most eight points in
/// loops without a branch, against a planar hull's sort or outline walk and a scan of its
/// edges. The least rectangle is among them: the least one has a side along an edge of the
/// points' planar hull (Freeman & Shapira 1975), and that edge joins two of the points. Faster
/// than a planar hull up to eight points; from nine on the pairs' cubic count costs more
/// (docs/decisions.md, "Least-volume search").
pub(super) const PAIRS: usize = 8;

/// The most pairs of [`PAIRS`] points.
const MAX_PAIRS: usize = PAIRS * (PAIRS - 1) / 2;

/// The rectangle of least area around `points` (at most [`PAIRS`]) with a side along the
/// direction from one of them to another: that unit direction and the rectangle's padded area
/// `(width + pad)(height + pad)`; `None` when all points are equal. The least is taken
/// unpadded (`width · height`, from the pairs' unnormalised directions: one square root in
/// all), the first of equal areas in the order of the pairs; it is the least rectangle around
/// the points (see [`PAIRS`]), and the padded least to within `pad` times its perimeter.
fn pairs_rectangle(points: &[[Real; 2]], pad: Real) -> Option<([Real; 2], Real)> {
    let n = points.len();
    debug_assert!(n <= PAIRS);
    let mut du = [0.0; MAX_PAIRS];
    let mut dv = [0.0; MAX_PAIRS];
    let mut m = 0;
    for a in 0..n {
        for b in a + 1..n {
            du[m] = points[b][0] - points[a][0];
            dv[m] = points[b][1] - points[a][1];
            m += 1;
        }
    }
    let first = *points.first()?;
    let (mut lx, mut hx, mut ly, mut hy) = (
        [0.0; MAX_PAIRS],
        [0.0; MAX_PAIRS],
        [0.0; MAX_PAIRS],
        [0.0; MAX_PAIRS],
    );
    for k in 0..m {
        let x = du[k] * first[0] + dv[k] * first[1];
        let y = du[k] * first[1] - dv[k] * first[0];
        (lx[k], hx[k], ly[k], hy[k]) = (x, x, y, y);
    }
    for p in &points[1..] {
        for k in 0..m {
            let x = du[k] * p[0] + dv[k] * p[1];
            let y = du[k] * p[1] - dv[k] * p[0];
            lx[k] = if x < lx[k] { x } else { lx[k] };
            hx[k] = if x > hx[k] { x } else { hx[k] };
            ly[k] = if y < ly[k] { y } else { ly[k] };
            hy[k] = if y > hy[k] { y } else { hy[k] };
        }
    }
    // The least of (width · height) / |d|² (unpadded: the caller pads the chosen one's).
    let (mut best, mut num, mut den) = (usize::MAX, 0.0, 0.0);
    for k in 0..m {
        let l2 = du[k] * du[k] + dv[k] * dv[k];
        let area = (hx[k] - lx[k]) * (hy[k] - ly[k]);
        if l2 > 0.0 && (best == usize::MAX || area * den < num * l2) {
            (best, num, den) = (k, area, l2);
        }
    }
    if best == usize::MAX {
        return None;
    }
    let inv = 1.0 / den.sqrt();
    let area = ((hx[best] - lx[best]) * inv + pad) * ((hy[best] - ly[best]) * inv + pad);
    Some(([du[best] * inv, dv[best] * inv], area))
}

/// Up to this many points [`least_volume_axes`] takes its planar hulls from the 3D hull's faces
/// when it has them ([`silhouette`]): the small hull's limit ([`super::hull::SMALL`]), for only
/// those hulls come with faces. Faster than sorting from nine points up (docs/decisions.md,
/// "Least-volume search"); the hulls are the sorted chain's but for rounding's slivers, and a
/// rotation whose faces do not make one closed outline falls back to the sort.
pub(super) const SILHOUETTE: usize = super::hull::SMALL;

/// The most faces [`silhouette`] takes (the small hull's most: a closed triangulated surface
/// of [`SILHOUETTE`] vertices has at most `2n − 4`).
const MAX_FACES: usize = super::hull::MAX_FACES;

// A point's outgoing edges fit in one `u32`, the faces' facing bits in one `u64`.
const _: () = assert!(SILHOUETTE <= 32 && MAX_FACES <= 64);

/// The convex hull of the projections `planar` (of the points, on the two axes after an axis in
/// a right-handed frame) into `hull`, from the points' 3D hull: the outline of a convex
/// polytope seen along that axis is the loop of edges between the faces turned towards it and
/// the others, and walking the turned faces' own edges of that loop goes counter-clockwise in
/// the plane. A face is turned towards the axis when its normal has a positive component along
/// it, that is when its projection turns counter-clockwise (that component is the projected
/// triangle's doubled area: no normals needed). No sort: each rotation of the least-volume
/// search reads its hull off the faces. Vertices whose turn is not to the left (collinear, or
/// rounding's slivers) are left out, as [`convex_hull_2d`] leaves them out; the loop starts at
/// the least point in the order of [`convex_hull_2d`]'s sort, as its chain does.
///
/// `faces` index `planar` (at most [`SILHOUETTE`] points, [`MAX_FACES`] faces), each
/// counter-clockwise seen from outside. `false` (and `hull` undefined) when rounding on faces
/// nearly parallel to the axis breaks the loop (the turned faces touch at a vertex, or the
/// loop is not all of the outline) or leaves fewer than three vertices: the caller sorts
/// instead.
fn silhouette(faces: &[[u8; 3]], planar: &[[Real; 2]], hull: &mut Vec<[Real; 2]>) -> bool {
    debug_assert!(planar.len() <= SILHOUETTE && faces.len() <= MAX_FACES);
    let mut facing = 0u64;
    for (f, &[a, b, c]) in faces.iter().enumerate() {
        let p = |i: u8| planar[i as usize];
        facing |= u64::from(turn(p(a), p(b), p(c)) > 0.0) << f;
    }
    // The turned faces' edges, as a bit per head for each tail.
    let mut out = [0u32; SILHOUETTE];
    for (f, &[a, b, c]) in faces.iter().enumerate() {
        let m = (facing >> f & 1) as u32;
        out[a as usize] |= m << b;
        out[b as usize] |= m << c;
        out[c as usize] |= m << a;
    }
    // The outline: a turned face's edge whose twin is not a turned face's.
    let mut next = [u8::MAX; SILHOUETTE];
    let (mut count, mut start) = (0usize, 0u8);
    for (f, &[a, b, c]) in faces.iter().enumerate() {
        if facing >> f & 1 == 0 {
            continue;
        }
        for [u, v] in [[a, b], [b, c], [c, a]] {
            if out[v as usize] >> u & 1 == 0 {
                next[u as usize] = v;
                count += 1;
                start = u;
            }
        }
    }
    // A loop through distinct vertices has at most one edge per point: more edges (faces
    // turned towards the axis that are not one disc) cannot be walked as one.
    if count < 3 || count > planar.len() {
        return false;
    }
    // One loop through every edge of the outline, or the faces were not a disc.
    let mut ring = [0u8; SILHOUETTE];
    let (mut len, mut v) = (0, start);
    loop {
        ring[len] = v;
        len += 1;
        v = next[v as usize];
        if v == start || v == u8::MAX || len == count {
            break;
        }
    }
    if v != start || len != count {
        return false;
    }
    // From the least point (a vertex of the planar hull: it starts the sorted chain too), left
    // turns only, as the chain keeps them: each point drops the kept ones it does not turn left
    // from (collinear points, and one of two that rounding puts within a sliver of each other).
    let key = |v: u8| point_key(planar[v as usize]);
    let mut least = 0;
    for r in 1..len {
        if key(ring[r]) < key(ring[least]) {
            least = r;
        }
    }
    hull.clear();
    for r in (least..len).chain(0..least) {
        push_left_turn(hull, planar[ring[r] as usize], 2);
    }
    // The loop closes at the least point.
    while hull.len() >= 3 && turn(hull[hull.len() - 2], hull[hull.len() - 1], hull[0]) <= 0.0 {
        hull.pop();
    }
    hull.len() >= 3
}

/// Pushes `p` onto the chain `hull` after popping the vertices it does not turn left from
/// (while the chain keeps at least `floor` of them): the step of Andrew's monotone chain.
fn push_left_turn(hull: &mut Vec<[Real; 2]>, p: [Real; 2], floor: usize) {
    while hull.len() >= floor && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
        hull.pop();
    }
    hull.push(p);
}

/// The lexicographic order of a point's finite coordinates as one integer ([`order_key`] of
/// each), the planar hulls' sort key.
fn point_key(p: [Real; 2]) -> u128 {
    (u128::from(order_key(p[0])) << 64) | u128::from(order_key(p[1]))
}

/// Twice the signed area of the triangle `o a b` (floats): positive where `o → a → b` turns
/// left.
fn turn(o: [Real; 2], a: [Real; 2], b: [Real; 2]) -> Real {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// An unsigned integer in the order of the finite value `v` (-0 and +0 alike): the sign bit
/// flipped for non-negative values, all bits for negative ones (their magnitudes order the other
/// way).
fn order_key(v: Real) -> u64 {
    // `+ 0.0` turns -0 into +0.
    let bits = (v + 0.0).to_bits();
    bits ^ ((((bits as i64) >> 63) as u64) | (1 << 63))
}

/// The padded area `(width + pad)(height + pad)` of the rectangle around `points` with its first
/// side along the unit direction `d`.
fn padded_area(points: &[[Real; 2]], d: [Real; 2], pad: Real) -> Real {
    let (mut lo, mut hi) = ([Real::INFINITY; 2], [Real::NEG_INFINITY; 2]);
    for p in points {
        let x = [d[0] * p[0] + d[1] * p[1], d[0] * p[1] - d[1] * p[0]];
        for m in 0..2 {
            lo[m] = lo[m].min(x[m]);
            hi[m] = hi[m].max(x[m]);
        }
    }
    (hi[0] - lo[0] + pad) * (hi[1] - lo[1] + pad)
}

/// Above this many points the planar hull first drops the points inside the octagon of their
/// extremes ([`drop_interior`]).
const FILTER: usize = 32;

/// Removes from `points` those strictly inside the polygon of their extreme points along eight
/// directions 45° apart (Akl & Toussaint 1978): they are not vertices of the convex hull, and
/// for the projections of a large group's hull most points are among them. Every point on or
/// outside any of the polygon's edges is kept (a polygon with no interior keeps all).
fn drop_interior(points: &mut Vec<[Real; 2]>) {
    // The directions in counter-clockwise order, so their extremes are too.
    const DIRS: [[Real; 2]; 8] = [
        [1.0, 0.0],
        [1.0, 1.0],
        [0.0, 1.0],
        [-1.0, 1.0],
        [-1.0, 0.0],
        [-1.0, -1.0],
        [0.0, -1.0],
        [1.0, -1.0],
    ];
    let mut extreme = [points[0]; 8];
    let mut best = [Real::NEG_INFINITY; 8];
    for p in points.iter() {
        for m in 0..8 {
            let x = DIRS[m][0] * p[0] + DIRS[m][1] * p[1];
            if x > best[m] {
                best[m] = x;
                extreme[m] = *p;
            }
        }
    }
    // Edge m from extreme m to extreme m + 1: `p` is strictly inside it when
    // normal · p > offset (the normal points left, into the polygon); a repeated extreme gives a
    // zero normal and offset −1, no constraint.
    let mut normal = [[0.0; 2]; 8];
    let mut offset = [-1.0; 8];
    for m in 0..8 {
        let (a, b) = (extreme[m], extreme[(m + 1) % 8]);
        if a != b {
            normal[m] = [a[1] - b[1], b[0] - a[0]];
            offset[m] = normal[m][0] * a[0] + normal[m][1] * a[1];
        }
    }
    points.retain(|p| !(0..8).all(|m| normal[m][0] * p[0] + normal[m][1] * p[1] > offset[m]));
}

/// Polygons of up to this many vertices have their rectangles measured by scanning every vertex
/// for each edge ([`scanned_rectangle`]); larger ones by the calipers' walks
/// ([`walked_rectangle`]). The two find the same rectangles up to rounding (the walks stop at
/// the extremes a scan finds on a convex polygon). The scan's extremes are branch-free where
/// the walks take a data-dependent branch per step (docs/decisions.md, "Least-volume search").
const SCANNED: usize = 16;

/// The rectangle of least padded area `(width + pad)(height + pad)` around the convex polygon
/// `hull` (counter-clockwise, no collinear vertices; a segment counts as a polygon with one
/// edge each way): the unit direction of its first side and its padded area. The least is
/// reached with a side along one of the polygon's edges (Freeman & Shapira 1975, for
/// `pad = 0`; for `pad > 0` both padded extents are still positive and concave in the angle
/// between two such positions, so their product is quasi-concave there and least at an end).
/// `None` for a single point or none (nothing to turn). Edges in order from the first; ties
/// keep the earlier edge.
fn least_area_rectangle(hull: &[[Real; 2]], pad: Real) -> Option<([Real; 2], Real)> {
    if hull.len() <= SCANNED {
        scanned_rectangle(hull, pad)
    } else {
        walked_rectangle(hull, pad)
    }
}

/// The edge directions of `hull` worth a rectangle, with the edges' first ends: edges no
/// longer than `1e-9` of the polygon's width plus height are rounding (a sliver's ends) and
/// their direction means nothing.
fn edges(hull: &[[Real; 2]]) -> impl Iterator<Item = (usize, [Real; 2])> + '_ {
    let n = hull.len();
    let (mut lo, mut hi) = ([Real::INFINITY; 2], [Real::NEG_INFINITY; 2]);
    for p in hull {
        for m in 0..2 {
            lo[m] = lo[m].min(p[m]);
            hi[m] = hi[m].max(p[m]);
        }
    }
    let shortest = 1e-9 * (hi[0] - lo[0] + hi[1] - lo[1]);
    (0..n).filter_map(move |e| {
        let (a, b) = (hull[e], hull[if e + 1 == n { 0 } else { e + 1 }]);
        let (du, dv) = (b[0] - a[0], b[1] - a[1]);
        let norm = (du * du + dv * dv).sqrt();
        (norm > shortest).then(|| (e, [du / norm, dv / norm]))
    })
}

/// [`least_area_rectangle`] by scanning all of `hull`'s vertices for each edge's extents.
fn scanned_rectangle(hull: &[[Real; 2]], pad: Real) -> Option<([Real; 2], Real)> {
    if hull.len() < 2 {
        return None;
    }
    let dot = |p: [Real; 2], d: [Real; 2]| p[0] * d[0] + p[1] * d[1];
    let mut best: Option<([Real; 2], Real)> = None;
    for (e, d) in edges(hull) {
        // The inward normal (the interior is on the left of a counter-clockwise edge): the
        // edge is the rectangle's side, the farthest vertex from it the opposite side.
        let up = [-d[1], d[0]];
        let (mut lo, mut hi, mut top) = (Real::INFINITY, Real::NEG_INFINITY, Real::NEG_INFINITY);
        for &p in hull {
            let (x, y) = (dot(p, d), dot(p, up));
            lo = if x < lo { x } else { lo };
            hi = if x > hi { x } else { hi };
            top = if y > top { y } else { top };
        }
        let area = (hi - lo + pad) * (top - dot(hull[e], up) + pad);
        if best.is_none_or(|(_, least)| area < least) {
            best = Some((d, area));
        }
    }
    best
}

/// [`least_area_rectangle`] by rotating calipers (Toussaint 1983): three pointers to the
/// extreme vertices walk forward around the polygon as the edges turn.
fn walked_rectangle(hull: &[[Real; 2]], pad: Real) -> Option<([Real; 2], Real)> {
    let n = hull.len();
    if n < 2 {
        return None;
    }
    let dot = |p: [Real; 2], d: [Real; 2]| p[0] * d[0] + p[1] * d[1];
    // The pointers below count on past `n` (a few turns at most): no division to wrap them.
    let at = |mut i: usize| {
        while i >= n {
            i -= n;
        }
        hull[i]
    };
    // From vertex `i` on, the first vertex farthest along `d` (walking while it grows).
    let farthest = |mut i: usize, d: [Real; 2]| {
        for _ in 0..n {
            if dot(at(i + 1), d) > dot(at(i), d) {
                i += 1;
            } else {
                break;
            }
        }
        i
    };
    let mut best: Option<([Real; 2], Real)> = None;
    // The vertices farthest along the edge (`right`), from it (`top`) and back along it
    // (`left`): each only moves forward as the edges turn counter-clockwise.
    let (mut right, mut top, mut left) = (1, 1, 1);
    for (e, d) in edges(hull) {
        let a = hull[e];
        // The inward normal (the interior is on the left of a counter-clockwise edge).
        let up = [-d[1], d[0]];
        // Each pointer starts no earlier than the one before it (they stay in this order
        // around the polygon, and each extreme is reached from there by a monotone walk).
        right = farthest(right.max(e + 1), d);
        top = farthest(top.max(right), up);
        left = farthest(left.max(top), [-d[0], -d[1]]);
        let width = dot(at(right), d) - dot(at(left), d);
        let height = dot(at(top), up) - dot(a, up);
        let area = (width + pad) * (height + pad);
        if best.is_none_or(|(_, least)| area < least) {
            best = Some((d, area));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The volume of the box with `axes` around `points` (not empty), each extent padded by
    /// `pad`.
    fn box_volume(axes: &[Vector; 3], points: &[Point], pad: Real) -> Real {
        padded_volume(&axes.map(|a| extent(&a, points)), pad)
    }

    /// The least-area rectangle by brute force: every edge direction of the hull, extents over
    /// all input points.
    fn brute_force(points: &[[Real; 2]], hull: &[[Real; 2]], pad: Real) -> Real {
        let n = hull.len();
        (0..n)
            .map(|e| {
                let (a, b) = (hull[e], hull[(e + 1) % n]);
                let (du, dv) = (b[0] - a[0], b[1] - a[1]);
                let norm = du.hypot(dv);
                let (d, up) = ([du / norm, dv / norm], [-dv / norm, du / norm]);
                let span = |v: [Real; 2]| {
                    let (lo, hi) =
                        points
                            .iter()
                            .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), p| {
                                let x = p[0] * v[0] + p[1] * v[1];
                                (lo.min(x), hi.max(x))
                            });
                    hi - lo
                };
                (span(d) + pad) * (span(up) + pad)
            })
            .fold(Real::INFINITY, Real::min)
    }

    /// Up to [`PAIRS`] points, float and on a coarse grid (ties, repeats, collinear runs).
    fn few_points() -> impl Strategy<Value = Vec<[Real; 2]>> {
        prop_oneof![
            prop::collection::vec(prop::array::uniform2(-10.0..10.0f64), 1..=PAIRS),
            prop::collection::vec(prop::array::uniform2(-2i32..=2), 1..=PAIRS)
                .prop_map(|v| v.iter().map(|c| c.map(|k| 0.3 * Real::from(k))).collect()),
        ]
    }

    /// Points in a ball of radius 1.9 (the fit's unit scale), float or on a grid (coplanar
    /// faces, points on edges), for hulls of [`PAIRS`]` + 1` to [`SILHOUETTE`] points.
    fn solid_points() -> impl Strategy<Value = Vec<Point>> {
        let n = PAIRS + 1..=SILHOUETTE;
        prop_oneof![
            prop::collection::vec(prop::array::uniform3(-1.0..1.0f64), n.clone()),
            prop::collection::vec(prop::array::uniform3(-2i32..=2), n)
                .prop_map(|v| v.iter().map(|c| c.map(|k| 0.5 * Real::from(k))).collect()),
        ]
        .prop_map(|v| {
            v.iter()
                .map(|c| Point::from(*c) * 1.9 / 3f64.sqrt())
                .collect()
        })
    }

    /// An outline: at least three vertices, each one of `planar`, turning left at each.
    fn check_loop(outline: &[[Real; 2]], planar: &[[Real; 2]]) -> Result<(), TestCaseError> {
        let n = outline.len();
        prop_assert!(n >= 3);
        for e in 0..n {
            let (a, b, c) = (outline[e], outline[(e + 1) % n], outline[(e + 2) % n]);
            prop_assert!(planar.contains(&a), "{a:?} is not a point");
            prop_assert!(turn(a, b, c) > 0.0, "{a:?} {b:?} {c:?} turns right");
        }
        Ok(())
    }

    fn planar() -> impl Strategy<Value = Vec<[Real; 2]>> {
        prop::collection::vec(prop::array::uniform2(-10.0..10.0f64), 3..60)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 500,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// The calipers find the brute-force least area, and the hull holds every point; the
        /// scan of small polygons and the walks of large ones find the same rectangle.
        #[test]
        fn calipers_match_brute_force(
            points in planar(),
            pad in prop_oneof![Just(0.0), 1e-6..1.0],
        ) {
            let (mut work, mut hull) = (points.clone(), Vec::new());
            convex_hull_2d(&mut work, &mut hull);
            let n = hull.len();
            for e in 0..n {
                let (a, b) = (hull[e], hull[(e + 1) % n]);
                for p in &points {
                    let t = turn(a, b, *p);
                    prop_assert!(t >= -1e-9, "{p:?} right of hull edge {a:?} {b:?}");
                }
            }
            let (scanned, walked) = (scanned_rectangle(&hull, pad), walked_rectangle(&hull, pad));
            prop_assert_eq!(scanned.is_some(), walked.is_some());
            if let (Some((d, area)), Some((e, other))) = (scanned, walked) {
                prop_assert!((area - other).abs() <= 1e-12 * area, "{area} vs {other}");
                // The same area: the same edge (both keep the first of equal areas).
                if area == other {
                    prop_assert_eq!(d, e);
                }
            }
            if let Some((_, area)) = least_area_rectangle(&hull, pad) {
                let reference = brute_force(&points, &hull, pad);
                prop_assert!(
                    (area - reference).abs() <= 1e-9 * reference.max(1.0),
                    "{area} vs {reference}"
                );
                // No direction at all does better (the edge-flush theorem, padded).
                for step in 0..900 {
                    let angle = step as Real * std::f64::consts::FRAC_PI_2 / 900.0;
                    let (d, up) = ([angle.cos(), angle.sin()], [-angle.sin(), angle.cos()]);
                    let span = |v: [Real; 2]| {
                        let xs = points.iter().map(|p| p[0] * v[0] + p[1] * v[1]);
                        xs.clone().fold(Real::NEG_INFINITY, Real::max)
                            - xs.fold(Real::INFINITY, Real::min)
                    };
                    let other = (span(d) + pad) * (span(up) + pad);
                    prop_assert!(other >= area * (1.0 - 1e-9), "angle {angle}: {other} < {area}");
                }
            } else {
                prop_assert!(n < 2);
            }
        }

        /// The least rectangle along all pairs of points is the least rectangle along the
        /// planar hull's edges (the brute force over the hull), padded to within `pad` times
        /// the perimeter (the pairs are compared unpadded), and never smaller than the hull's;
        /// the area it returns is the rectangle's own.
        #[test]
        fn pairs_match_the_hull_edges(
            points in few_points(),
            pad in prop_oneof![Just(0.0), 1e-6..1e-2],
        ) {
            let (mut work, mut hull) = (points.clone(), Vec::new());
            convex_hull_2d(&mut work, &mut hull);
            let Some((d, area)) = pairs_rectangle(&points, pad) else {
                prop_assert!(points.iter().all(|p| p == &points[0]), "{points:?} gave none");
                return Ok(());
            };
            prop_assert!((d[0].hypot(d[1]) - 1.0).abs() < 1e-12, "{d:?} not unit");
            // The area returned is the rectangle's in that direction (the search takes it as
            // it is).
            let ours = padded_area(&points, d, pad);
            let reference = brute_force(&points, &hull, pad);
            let diameter = points
                .iter()
                .flat_map(|p| points.iter().map(move |q| (p[0] - q[0]).hypot(p[1] - q[1])))
                .fold(0.0, Real::max);
            let rounding = 1e-12 * (diameter + pad) * (diameter + pad);
            prop_assert!((area - ours).abs() <= rounding, "{area} vs {ours}");
            prop_assert!(
                ours >= reference * (1.0 - 1e-9) - 1e-12 * diameter * diameter,
                "{ours} below the hull's least {reference}"
            );
            prop_assert!(
                ours <= reference * (1.0 + 1e-9) + 4.0 * pad * diameter + 1e-12 * diameter * diameter,
                "{ours} above the hull's least {reference}"
            );
        }

        /// The outline of a 3D hull's faces seen along any axis is the planar hull of the
        /// projected vertices: every vertex is one of the points, it turns left at every vertex,
        /// every point lies on or left of every edge, and its least rectangle is the sorted
        /// chain's. Float points in general position never fall back to the sort; the whole
        /// search finds the same box with the faces as without.
        #[test]
        fn silhouette_is_the_planar_hull(
            points in solid_points(),
            axis in prop::array::uniform3(-1.0..1.0f64),
            angle in 0.0..std::f64::consts::PI,
        ) {
            let (mut vertices, mut faces) = (Vec::new(), Vec::new());
            let hull3 = crate::bv::hull::hull_covariance(
                &points, &points[0], Some(&mut vertices), Some(&mut faces),
            );
            prop_assume!(hull3.is_some() && vertices.len() > PAIRS);
            prop_assert!(!faces.is_empty());
            let bounded: Vec<Point> = vertices.iter().map(|&i| points[i as usize]).collect();
            let axes = rows(&nalgebra::Rotation3::new(Vector::from(axis) * angle));
            let on_grid = points.iter().all(|p| p.coords.iter().all(|x| {
                let k = x * 3f64.sqrt() / 1.9 / 0.5;
                (k - k.round()).abs() < 1e-9
            }));
            for k in 0..3 {
                let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                let planar: Vec<[Real; 2]> = bounded
                    .iter()
                    .map(|p| [axes[i].dot(&p.coords), axes[j].dot(&p.coords)])
                    .collect();
                let mut outline = Vec::new();
                if !silhouette(&faces, &planar, &mut outline) {
                    prop_assert!(on_grid, "float points fell back to the sort about axis {k}");
                    continue;
                }
                check_loop(&outline, &planar)?;
                let n = outline.len();
                for e in 0..n {
                    let (a, b) = (outline[e], outline[(e + 1) % n]);
                    for p in &planar {
                        prop_assert!(turn(a, b, *p) >= -1e-12, "{p:?} right of {a:?} {b:?}");
                    }
                }
                let (mut work, mut chain) = (planar.clone(), Vec::new());
                convex_hull_2d(&mut work, &mut chain);
                let (ours, theirs) = (brute_force(&planar, &outline, 0.0), brute_force(&planar, &chain, 0.0));
                prop_assert!((ours - theirs).abs() <= 1e-12 * theirs, "{ours} vs {theirs}");
            }
            if !on_grid {
                let pad = padding(&bounded);
                let with = least_volume_axes(axes, &bounded, &faces, pad, &mut Scratch::default());
                let without = least_volume_axes(axes, &bounded, &[], pad, &mut Scratch::default());
                prop_assert!((with.1 - without.1).abs() <= 1e-9 * without.1, "{with:?} vs {without:?}");
            }
        }

        /// Whatever the faces turned towards the axis (here from projections unrelated to the
        /// hull, so that they need not make a disc: a pipes scene's grid once gave more
        /// outline edges than points, and the walk ran past its storage), the outline is one
        /// closed loop of left turns through the given points, or `false`.
        #[test]
        fn silhouette_of_any_facing_is_a_loop_or_nothing(
            points in solid_points(),
            planar in prop::collection::vec(prop::array::uniform2(-1.0..1.0f64), SILHOUETTE),
        ) {
            let (mut vertices, mut faces) = (Vec::new(), Vec::new());
            let hull3 = crate::bv::hull::hull_covariance(
                &points,
                &points[0],
                Some(&mut vertices),
                Some(&mut faces),
            );
            prop_assume!(hull3.is_some() && vertices.len() > PAIRS);
            let planar = &planar[..vertices.len()];
            let mut outline = Vec::new();
            if silhouette(&faces, planar, &mut outline) {
                check_loop(&outline, planar)?;
            }
        }

        /// The sort key orders finite values as the comparison of values does, -0 with +0.
        #[test]
        fn order_key_orders_like_values(
            a in prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO,
            b in prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO,
        ) {
            for (x, y) in [(a, b), (a, a), (a, -a), (b, a)] {
                prop_assert_eq!(
                    order_key(x).cmp(&order_key(y)),
                    x.partial_cmp(&y).unwrap(),
                    "{} vs {}", x, y
                );
            }
        }

        /// Points with many equal coordinates (a float grid, signed zeros among them): the
        /// planar hull is convex and counter-clockwise up to rounding (the chains' orientation
        /// tests are in floats: grid points that are collinear in exact arithmetic may stay as a
        /// sliver), and holds every point.
        #[test]
        fn hull_of_ties_is_convex(
            cells in prop::collection::vec((-3i32..=3, -3i32..=3, any::<bool>()), 1..40),
        ) {
            let points: Vec<[Real; 2]> = cells
                .iter()
                .map(|&(i, j, negative_zero)| {
                    let c = |k: i32| {
                        if k == 0 && negative_zero { -0.0 } else { 0.1 * Real::from(k) }
                    };
                    [c(i), c(j)]
                })
                .collect();
            let (mut work, mut hull) = (points.clone(), Vec::new());
            convex_hull_2d(&mut work, &mut hull);
            let n = hull.len();
            if n >= 3 {
                for e in 0..n {
                    let (a, b, c) = (hull[e], hull[(e + 1) % n], hull[(e + 2) % n]);
                    let t = turn(a, b, c);
                    prop_assert!(t >= -1e-12, "{a:?} {b:?} {c:?} turns right");
                    prop_assert!(a != b, "repeated vertex {a:?}");
                    for p in &points {
                        let t = turn(a, b, *p);
                        prop_assert!(t >= -1e-12, "{p:?} right of hull edge {a:?} {b:?}");
                    }
                }
            } else if n == 2 {
                // Collinear points: all on the line through the segment's ends.
                for p in &points {
                    prop_assert!(turn(hull[0], hull[1], *p).abs() <= 1e-12, "{p:?} off {hull:?}");
                }
            } else {
                // One point, however often (signed zeros alike), gives no hull.
                prop_assert_eq!(n, 0);
                prop_assert!(points.iter().all(|p| p == &points[0]), "{points:?} gave no hull");
            }
        }
    }

    /// Points of a box with half extents `half` and axes the rows of `rot`: its corners and
    /// points inside and on its faces.
    fn box_points(
        rot: &nalgebra::Rotation3<Real>,
        half: [Real; 3],
        inner: &[[Real; 3]],
    ) -> Vec<Point> {
        let corners =
            (0..8).map(|c| [0, 1, 2].map(|k| if c >> k & 1 == 1 { half[k] } else { -half[k] }));
        corners
            .chain(inner.iter().map(|u| [0, 1, 2].map(|k| u[k] * half[k])))
            .map(|l| Point::from(rot.transpose() * Vector::from(l)))
            .collect()
    }

    fn rows(rot: &nalgebra::Rotation3<Real>) -> [Vector; 3] {
        [0, 1, 2].map(|k| rot.matrix().row(k).transpose())
    }

    fn check_basis(axes: &[Vector; 3]) -> Result<(), TestCaseError> {
        for i in 0..3 {
            prop_assert!((axes[i].norm() - 1.0).abs() < 1e-12);
            prop_assert!(axes[i].dot(&axes[(i + 1) % 3]).abs() < 1e-12);
        }
        prop_assert!(
            (axes[0].cross(&axes[1]) - axes[2]).norm() < 1e-12,
            "not right-handed"
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 300,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// From axes a few degrees off a box's own, the search returns to the box: a volume
        /// within 1% of the box's (the oracle: its extents), never more than the start's, and
        /// a right-handed orthonormal basis.
        #[test]
        fn search_finds_a_tilted_box(
            axis in prop::array::uniform3(-1.0..1.0f64),
            angle in 0.0..std::f64::consts::PI,
            tilt in prop::array::uniform3(-0.08..0.08f64),
            half in prop::array::uniform3(0.05..2.0f64),
            inner in prop::collection::vec(prop::array::uniform3(-1.0..1.0f64), 0..20),
        ) {
            let rot = nalgebra::Rotation3::new(Vector::from(axis) * angle);
            let points = box_points(&rot, half, &inner);
            let pad = padding(&points);
            let start = rows(&(rot * nalgebra::Rotation3::new(Vector::from(tilt))));
            let (axes, volume) = least_volume_axes(start, &points, &[], pad, &mut Scratch::default());
            check_basis(&axes)?;
            let truth: Real = half.iter().map(|h| 2.0 * h + pad).product();
            prop_assert!((box_volume(&axes, &points, pad) - volume).abs() <= 1e-9 * volume);
            prop_assert!(volume <= box_volume(&start, &points, pad) * (1.0 + 1e-12));
            prop_assert!(volume <= truth * 1.01, "{volume} vs the box's {truth}");
        }

        /// A flat rectangle of points, from a start whose first axis is its normal but whose
        /// others are turned in its plane: the padding turns them to the rectangle's edges
        /// (volume 0 would leave them).
        #[test]
        fn flat_groups_turn_in_their_plane(
            axis in prop::array::uniform3(-1.0..1.0f64),
            angle in 0.0..std::f64::consts::PI,
            turn in 0.1..1.4f64,
            half in prop::array::uniform2(0.05..2.0f64),
        ) {
            let rot = nalgebra::Rotation3::new(Vector::from(axis) * angle);
            let points = box_points(&rot, [0.0, half[0], half[1]], &[]);
            let pad = padding(&points);
            let start = rows(&(nalgebra::Rotation3::new(Vector::x() * turn) * rot));
            // The eight corners (each twice), and the four alone: a quad turns once
            // (`ONE_TURN`), about its thinnest axis, its normal.
            let quad: Vec<Point> = points.iter().step_by(2).copied().collect();
            for points in [&points, &quad] {
                let (axes, _) = least_volume_axes(start, points, &[], pad, &mut Scratch::default());
                check_basis(&axes)?;
                // The normal may end up as any of the three axes.
                let mut extents = axes.map(|a| extent(&a, points));
                extents.sort_by(Real::total_cmp);
                prop_assert!(extents[0] < 1e-9, "off the plane: {extents:?}");
                let area = extents[1] * extents[2];
                prop_assert!(
                    (area - 4.0 * half[0] * half[1]).abs() < 1e-9,
                    "{extents:?} for {half:?}, {} points", points.len()
                );
            }
        }
    }
}
