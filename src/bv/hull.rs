//! The convex hull step of the OBB fit (Gottschalk et al. 1996, §4): a box is oriented by the
//! area-weighted covariance of the surface of the convex hull of its group's vertices, so that
//! points inside the hull (which a denser sampling of the same shape would add) do not sway it.
//!
//! Two hull algorithms serve it, both exact. Most groups of a hierarchy are small (half the
//! internal nodes of a mesh's tree have two triangles and four to six vertices), and for them the
//! per-call cost of a general hull algorithm dominates the build; [`SmallHull`] is an incremental
//! hull (each point in turn removes the faces it sees and is joined to their horizon) whose every
//! visibility decision is an exact orientation predicate ([`crate::predicates`]), on fixed-size
//! arrays reused from call to call (one per thread), no allocation. Larger groups go through
//! [`QuickHull`], quickhull with outside sets and face adjacency on the same exact predicates, in
//! storage reused from call to call. Four points, the most common group, need neither: their
//! hull is their tetrahedron, or it is flat.
//!
//! (They replace the `quickhull` crate, single precision, whose hulls of large groups were not
//! the convex hulls of the points; an interior filter ahead of [`QuickHull`] did not pay:
//! docs/decisions.md, "Hull".)
//!
//! Degenerate input is valid (§7.1): repeated points, coplanar faces (the grids of the paper's
//! scenes are full of them) and flat or collinear groups, for which the hull has no volume and
//! the caller falls back to the triangles' covariance.

use super::fit::{covariance_and_volume, covariance_of_hull};
use crate::math::{Matrix3, Point, Real, Vector};
use crate::predicates::{Plane, PlaneLanes, exact_orient3d};

/// Groups of at most this many points (but four, which take their tetrahedron) get the
/// incremental hull on fixed-size arrays ([`SmallHull`]); larger ones [`QuickHull`].
pub(super) const SMALL: usize = 32;

/// The most faces a hull of [`SMALL`] points has (a closed triangulated surface with `n`
/// vertices has at most `2n − 4` faces).
pub(super) const MAX_FACES: usize = 2 * SMALL - 4;

/// The convex hull of at most [`SMALL`] points as a closed surface of triangles, each wound
/// counter-clockwise seen from outside (its normal `(b − a) × (c − a)` points out), by
/// reference to the input points.
///
/// Exact for any finite input: every input point lies inside or on every face's plane, every
/// edge is shared by exactly two faces, and no face has zero area. Coplanar points on the hull
/// yield coplanar neighbouring faces (any triangulation of the flat part: the surface integrals
/// of §4 do not depend on which).
pub(super) struct SmallHull {
    faces: [[u8; 3]; MAX_FACES],
    /// The faces' planes, prepared for the orientation filter (`side(x)` is positive when `x`
    /// is outside), component by component so that a point is tested against all faces in
    /// vector lanes; the first `len` are the faces' (docs/decisions.md, "Hull").
    planes: PlaneLanes<MAX_FACES>,
    len: usize,
}

impl SmallHull {
    /// The hull of `points`, or `None` when flat ([`SmallHull::build`] into a new hull).
    #[cfg(test)]
    fn new(points: &[Point]) -> Option<SmallHull> {
        let mut hull = SmallHull::empty();
        hull.build(points).then_some(hull)
    }

    /// No faces: storage for [`SmallHull::build`].
    fn empty() -> SmallHull {
        SmallHull {
            faces: [[0; 3]; MAX_FACES],
            planes: PlaneLanes::new(),
            len: 0,
        }
    }

    /// Builds the hull of `points` (4 ≤ `points.len()` ≤ [`SMALL`], finite) into `self`,
    /// replacing its faces; `false` when the points are coplanar (the hull is flat: §7.1) or
    /// within rounding of it (a volume below about 1e-15 of their extent cubed).
    fn build(&mut self, points: &[Point]) -> bool {
        self.len = 0;
        let n = points.len();
        if !(4..=SMALL).contains(&n) {
            return false;
        }
        let Some([i0, i1, i2, i3]) = initial_simplex(points).map(|s| s.map(|i| i as u8)) else {
            return false;
        };
        let hull = self;
        // Each face wound so that the opposite corner is inside. One orientation decides all
        // four: exchanging the last two points of orient3d flips its sign, and the faces'
        // point orders below alternate in parity.
        let flip = outside(points, [i0, i1, i2].map(u32::from), u32::from(i3));
        for (k, [a, b, c]) in [[i0, i1, i2], [i0, i1, i3], [i0, i2, i3], [i1, i2, i3]]
            .into_iter()
            .enumerate()
        {
            let face = if flip == (k % 2 == 0) {
                [a, c, b]
            } else {
                [a, b, c]
            };
            hull.push(points, face);
        }
        let mut visible = [0u8; MAX_FACES];
        let mut edges = [[0u8; 2]; 3 * MAX_FACES];
        let (mut det, mut bound) = ([0.0; MAX_FACES], [0.0; MAX_FACES]);
        for p in 0..n as u8 {
            if [i0, i1, i2, i3].contains(&p) {
                continue;
            }
            // The filter against every face at once, then the faces the point sees: those the
            // filter proves it outside of, and those the exact predicate does where the filter
            // cannot decide (the same decisions as one exact predicate per face).
            let q = &points[p as usize];
            hull.planes.filter(hull.len, q, &mut det, &mut bound);
            let mut seen = 0;
            for f in 0..hull.len {
                let sees = if det[f] > bound[f] {
                    true
                } else if det[f] < -bound[f] {
                    false
                } else {
                    hull.exactly_sees(points, f, p)
                };
                if sees {
                    visible[seen] = f as u8;
                    seen += 1;
                }
            }
            if seen == 0 {
                continue; // inside or on the hull
            }
            let mut edge_count = 0;
            for &f in &visible[..seen] {
                let [a, b, c] = hull.faces[f as usize];
                for e in [[a, b], [b, c], [c, a]] {
                    edges[edge_count] = e;
                    edge_count += 1;
                }
            }
            // Remove the visible faces (from the back, so that the indices still to remove stay
            // valid under swap-removal: `visible` is increasing).
            for &f in visible[..seen].iter().rev() {
                hull.len -= 1;
                hull.faces[f as usize] = hull.faces[hull.len];
                hull.planes.copy(hull.len, f as usize);
            }
            // The horizon: visible faces' edges whose twin is not a visible face's edge. The
            // visible faces form a disc (exact predicates), so these close one loop.
            for k in 0..edge_count {
                let [a, b] = edges[k];
                if edges[..edge_count].contains(&[b, a]) {
                    continue;
                }
                if hull.len == MAX_FACES {
                    return false; // cannot happen for a valid hull; the caller falls back
                }
                hull.push(points, [a, b, p]);
            }
        }
        true
    }

    /// The faces, as triples of indices into the points.
    pub(super) fn faces(&self) -> &[[u8; 3]] {
        &self.faces[..self.len]
    }

    fn push(&mut self, points: &[Point], [a, b, c]: [u8; 3]) {
        let p = |i: u8| &points[i as usize];
        // `side(x)` is orient3d(x, b, c, a) = −orient3d(a, b, c, x): positive outside.
        self.planes.set(self.len, &Plane::new(p(b), p(c), p(a)));
        self.faces[self.len] = [a, b, c];
        self.len += 1;
    }

    /// Whether point `p` lies strictly outside face `f`'s plane, decided by the exact
    /// predicate (where the filter could not).
    #[cold]
    fn exactly_sees(&self, points: &[Point], f: usize, p: u8) -> bool {
        let [a, b, c] = self.faces[f];
        let q = |i: u8| &points[i as usize];
        exact_orient3d(q(p), q(b), q(c), q(a)) > 0.0
    }
}

/// "No point" / "no face" in [`QuickHull`]'s links.
const NONE: u32 = u32::MAX;

/// The convex hull of any number of points by quickhull (Barber, Dobkin & Huhdanpaa 1996):
/// each face keeps the set of points strictly outside it (its outside set, each point in one
/// set); the farthest point of a face's set is added, the faces it sees (found by a walk over
/// face adjacency from that face) are removed and the horizon is joined to it, and the removed
/// faces' points are reassigned to the new faces (those outside none of them are inside the new
/// hull). The visibility of an added point is the exact orientation predicate, as in
/// [`SmallHull`], so the hull is a closed surface; see [`QuickHull::assign`] for the outside
/// sets. Storage is reused from call to call (one per thread).
#[derive(Default)]
pub(super) struct QuickHull {
    /// Every face made so far; the removed ones are marked in `alive`.
    faces: Vec<[u32; 3]>,
    planes: Vec<Plane>,
    /// `neighbours[f][k]`: the face across edge `k` of face `f` (`[a, b]`, `[b, c]`, `[c, a]`).
    neighbours: Vec<[u32; 3]>,
    alive: Vec<bool>,
    /// The last insertion whose visibility walk reached the face.
    visited: Vec<u32>,
    /// First point of each face's outside set.
    head: Vec<u32>,
    /// Next point of the same outside set.
    next: Vec<u32>,
    /// Each outside point's orientation against its face (the filter's value, or the exact
    /// predicate's where the filter cannot decide): the farthest has the largest (one face, one
    /// normal).
    height: Vec<Real>,
    /// Faces whose outside set was not empty when last filled.
    pending: Vec<u32>,
    visible: Vec<u32>,
    /// The horizon's edges `[a, b]` (as in the removed face) with the kept face across them.
    horizon: Vec<([u32; 2], u32)>,
    /// The new face whose horizon edge starts at a point (valid during one insertion).
    cone_from: Vec<u32>,
    orphans: Vec<u32>,
    /// The alive faces, gathered at the end.
    hull: Vec<[u32; 3]>,
    /// One bit per point: a vertex of the hull ([`QuickHull::vertices`]).
    used: Vec<u64>,
}

impl QuickHull {
    /// Builds the hull of `points` (at least 4, finite) into `self`; `false` when the points
    /// are coplanar (the hull is flat: §7.1) or within rounding of it (as [`SmallHull::build`]).
    pub(super) fn build(&mut self, points: &[Point]) -> bool {
        let n = points.len();
        self.reset(n);
        if n < 4 || n >= NONE as usize {
            return false;
        }
        let Some(simplex) = initial_simplex(points) else {
            return false;
        };
        self.start_tetrahedron(points, simplex);
        self.orphans.clear();
        self.orphans
            .extend((0..n as u32).filter(|p| !simplex.contains(&(*p as usize))));
        self.assign(points, 0);
        let mut insertion = 0;
        while let Some(f) = self.pending.pop() {
            if !self.alive[f as usize] || self.head[f as usize] == NONE {
                continue;
            }
            insertion += 1;
            let apex = self.farthest_outside(f);
            self.find_visible(points, f, apex, insertion);
            self.orphan_visible(apex);
            let first_new = self.add_cone(points, apex);
            self.assign(points, first_new);
        }
        for f in 0..self.faces.len() {
            if self.alive[f] {
                self.hull.push(self.faces[f]);
            }
        }
        true
    }

    /// Empties the storage for a hull of `n` points.
    #[inline(always)]
    fn reset(&mut self, n: usize) {
        self.faces.clear();
        self.planes.clear();
        self.neighbours.clear();
        self.alive.clear();
        self.visited.clear();
        self.head.clear();
        self.pending.clear();
        self.hull.clear();
        self.next.clear();
        self.next.resize(n, NONE);
        self.height.clear();
        self.height.resize(n, 0.0);
        self.cone_from.clear();
        self.cone_from.resize(n, NONE);
    }

    /// The initial tetrahedron's four faces, wound outward, and their adjacency.
    #[inline(always)]
    fn start_tetrahedron(&mut self, points: &[Point], simplex: [usize; 4]) {
        let [i0, i1, i2, i3] = simplex.map(|i| i as u32);
        // Wound outward: if the fourth corner is outside (i0, i1, i2), reverse all four.
        let faces = if outside(points, [i0, i1, i2], i3) {
            [[i0, i2, i1], [i0, i1, i3], [i1, i2, i3], [i2, i0, i3]]
        } else {
            [[i0, i1, i2], [i0, i3, i1], [i1, i3, i2], [i2, i3, i0]]
        };
        for face in faces {
            self.push(points, face);
        }
        // Each face's edges are shared with one other face of the tetrahedron: find it.
        for f in 0..4 {
            let [a, b, c] = self.faces[f];
            self.neighbours[f] = [[a, b], [b, c], [c, a]]
                .map(|[x, y]| (0..4).find(|&g| self.has_edge(g, [y, x])).unwrap_or(0) as u32);
        }
    }

    /// The farthest point of face `f`'s outside set.
    #[inline(always)]
    fn farthest_outside(&self, f: u32) -> u32 {
        let (mut apex, mut best) = (NONE, Real::NEG_INFINITY);
        let mut p = self.head[f as usize];
        while p != NONE {
            if self.height[p as usize] > best {
                (apex, best) = (p, self.height[p as usize]);
            }
            p = self.next[p as usize];
        }
        apex
    }

    /// The faces the apex sees into `visible`: a walk from `f` over the adjacency (the
    /// visible faces form a disc, exact predicates), collecting the horizon on the way.
    #[inline(always)]
    fn find_visible(&mut self, points: &[Point], f: u32, apex: u32, insertion: u32) {
        self.visible.clear();
        self.horizon.clear();
        self.visible.push(f);
        self.visited[f as usize] = insertion;
        let mut k = 0;
        while k < self.visible.len() {
            let g = self.visible[k] as usize;
            k += 1;
            let [a, b, c] = self.faces[g];
            for (e, edge) in [[a, b], [b, c], [c, a]].into_iter().enumerate() {
                let h = self.neighbours[g][e];
                if self.visited[h as usize] == insertion {
                    // Already found visible: an inner edge.
                    continue;
                }
                if self.sees(points, h as usize, apex) {
                    self.visited[h as usize] = insertion;
                    self.visible.push(h);
                } else {
                    self.horizon.push((edge, h));
                }
            }
        }
    }

    /// Removes the visible faces; their outside points (but the apex) wait in `orphans` for
    /// the new faces.
    #[inline(always)]
    fn orphan_visible(&mut self, apex: u32) {
        self.orphans.clear();
        for &g in &self.visible {
            let g = g as usize;
            self.alive[g] = false;
            let mut p = self.head[g];
            while p != NONE {
                if p != apex {
                    self.orphans.push(p);
                }
                p = self.next[p as usize];
            }
            self.head[g] = NONE;
        }
    }

    /// Joins the horizon to the apex with new faces linked to their neighbours; returns the
    /// first new face.
    #[inline(always)]
    fn add_cone(&mut self, points: &[Point], apex: u32) -> usize {
        let first_new = self.faces.len();
        for m in 0..self.horizon.len() {
            let ([a, b], kept) = self.horizon[m];
            let new = self.faces.len() as u32;
            self.push(points, [a, b, apex]);
            self.cone_from[a as usize] = new;
            // The kept face's link across [b, a] now leads to the new face.
            let e = (0..3)
                .find(|&e| {
                    let [x, y, z] = self.faces[kept as usize];
                    [[x, y], [y, z], [z, x]][e] == [b, a]
                })
                .expect("a horizon edge's twin is an edge of the kept face");
            self.neighbours[kept as usize][e] = new;
            self.neighbours[new as usize][0] = kept;
        }
        // Around the apex: new face [a, b, apex] meets the one starting at b across
        // [b, apex], and the one ending at a across [apex, a].
        for f in first_new..self.faces.len() {
            let b = self.faces[f][1];
            let after = self.cone_from[b as usize];
            self.neighbours[f][1] = after;
            self.neighbours[after as usize][2] = f as u32;
        }
        first_new
    }

    /// The hull's faces (after [`QuickHull::build`]), as triples of indices into the points.
    pub(super) fn surface(&self) -> &[[u32; 3]] {
        &self.hull
    }

    /// Appends the hull's vertices (after [`QuickHull::build`] of `n` points), as indices into
    /// the points, in increasing order, each once: marked in a bitset from the faces and read
    /// back in order (faster than sorting the faces' corners: docs/decisions.md, "Hull").
    pub(super) fn vertices(&mut self, n: usize, out: &mut Vec<u32>) {
        self.used.clear();
        self.used.resize(n.div_ceil(64), 0);
        for &[a, b, c] in &self.hull {
            for v in [a, b, c] {
                self.used[v as usize / 64] |= 1 << (v % 64);
            }
        }
        for (w, &bits) in self.used.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                out.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }

    fn has_edge(&self, f: usize, edge: [u32; 2]) -> bool {
        let [a, b, c] = self.faces[f];
        [[a, b], [b, c], [c, a]].contains(&edge)
    }

    /// Puts each orphan into the outside set of a face from `first` on that it lies strictly
    /// outside of (exact); drops it when there is none, for then it is inside or on the hull.
    /// (A point above a removed face and strictly outside the new hull is strictly outside one
    /// of the new faces: the segment from it to the removed face's interior, inside the new
    /// hull, leaves the hull through a face above that face's plane, which no kept face
    /// reaches.) The face is the first the orientation filter proves the point outside of, else
    /// the first the exact predicate does among those the filter left undecided, which spares
    /// most exact decisions. The filter alone is not enough: a point within rounding of a new
    /// face's plane can still be far outside the hull, beyond a kept face across that face's
    /// edge (a CI case, kept as a test below).
    fn assign(&mut self, points: &[Point], first: usize) {
        for k in 0..self.orphans.len() {
            let p = self.orphans[k];
            let q = &points[p as usize];
            let mut found = None;
            let mut undecided = false;
            for f in first..self.faces.len() {
                // NaN: the filter cannot decide (the points are finite).
                let h = self.planes[f].side(q, || Real::NAN);
                if h > 0.0 {
                    found = Some((f, h));
                    break;
                }
                undecided |= h.is_nan();
            }
            if found.is_none() && undecided {
                found = (first..self.faces.len())
                    .map(|f| (f, height(points, &self.planes[f], self.faces[f], p)))
                    .find(|&(_, h)| h > 0.0);
            }
            if let Some((f, h)) = found {
                self.height[p as usize] = h;
                if self.head[f] == NONE {
                    self.pending.push(f as u32);
                }
                self.next[p as usize] = self.head[f];
                self.head[f] = p;
            }
        }
    }

    fn push(&mut self, points: &[Point], [a, b, c]: [u32; 3]) {
        let q = |i: u32| &points[i as usize];
        // `side(x)` is orient3d(x, b, c, a) = −orient3d(a, b, c, x): positive outside.
        self.planes.push(Plane::new(q(b), q(c), q(a)));
        self.faces.push([a, b, c]);
        self.neighbours.push([NONE; 3]);
        self.alive.push(true);
        self.visited.push(0);
        self.head.push(NONE);
    }

    /// Whether point `p` lies strictly outside face `f` (exact).
    #[inline]
    fn sees(&self, points: &[Point], f: usize, p: u32) -> bool {
        height(points, &self.planes[f], self.faces[f], p) > 0.0
    }
}

/// Whether point `p` lies strictly outside the plane of face `[a, b, c]` wound as given (exact).
fn outside(points: &[Point], [a, b, c]: [u32; 3], p: u32) -> bool {
    let q = |i: u32| &points[i as usize];
    height(points, &Plane::new(q(b), q(c), q(a)), [a, b, c], p) > 0.0
}

/// `orient3d(p, b, c, a)` for the face `[a, b, c]` whose plane is `plane`: positive when `p` is
/// strictly outside, exact in sign (the filter's value when it decides).
#[inline]
fn height(points: &[Point], plane: &Plane, [a, b, c]: [u32; 3], p: u32) -> Real {
    let q = |i: u32| &points[i as usize];
    plane.side(q(p), || exact_orient3d(q(p), q(b), q(c), q(a)))
}

/// Four points of `points` spanning a tetrahedron of nonzero volume (exact), or `None` when all
/// points are coplanar or so nearly coplanar that the orientation filter cannot tell. The first
/// point, the one farthest from it, the one farthest from their line, the one farthest from
/// their plane (distances in double precision: any choice with nonzero volume is correct, far
/// ones keep the first faces well shaped).
fn initial_simplex(points: &[Point]) -> Option<[usize; 4]> {
    let p0 = points[0];
    // The point of largest positive score (`None` if none is positive).
    let far = |score: &dyn Fn(&Point) -> Real| {
        let mut best = (0.0, None);
        for (i, p) in points.iter().enumerate() {
            let s = score(p);
            if s > best.0 {
                best = (s, Some(i));
            }
        }
        best.1
    };
    let i1 = far(&|p| (p - p0).norm_squared())?;
    let p1 = points[i1];
    let i2 = far(&|p| (p1 - p0).cross(&(p - p0)).norm_squared())?;
    let p2 = points[i2];
    let plane = Plane::new(&p0, &p1, &p2);
    // Only orientations the filter decides count: a volume below the filter's bound (some
    // 1e-15 of the points' extent cubed) is flat to the caller anyway (`non_flat_covariance`
    // asks for 1e-9), and exactly coplanar points (the costliest case of the exact fallback)
    // are left out at no cost.
    let i3 = far(&|p| plane.side(p, || 0.0).abs())?;
    Some([0, i1, i2, i3])
}

/// Covariance of the convex hull of `points` (§4), or `None` when the hull is rank-deficient
/// (flat, collinear or a point: Gottschalk et al. 1996, §7.1). The points are at unit scale
/// (their largest coordinate magnitude in [1, 2)); `origin` is one of them, the frame the sums
/// are taken in. `vertices`, if given, receives the indices of the hull's vertices, increasing
/// (cleared first; empty when the points are flat), and `faces`, if given, the hull's faces
/// for 5 to [`SMALL`] points (cleared first; empty for four points, for more than [`SMALL`]
/// and for flat points): each face's corners as positions in `vertices`, wound
/// counter-clockwise seen from outside. (`faces` is filled only when `vertices` is given.)
pub(super) fn hull_covariance(
    points: &[Point],
    origin: &Point,
    mut vertices: Option<&mut Vec<u32>>,
    mut faces: Option<&mut Vec<[u8; 3]>>,
) -> Option<Matrix3> {
    if let Some(v) = vertices.as_deref_mut() {
        v.clear();
    }
    if let Some(f) = faces.as_deref_mut() {
        f.clear();
    }
    if points.len() < 4 {
        return None;
    }
    if points.len() == 4 {
        return tetrahedron_covariance(points, origin, vertices);
    }
    if points.len() <= SMALL {
        // (Four points take the closed form above.) Built in place, in storage reused from call
        // to call: a `SmallHull` returned by value is a copy of some 4.5 KB.
        thread_local! {
            static SMALL_HULL: std::cell::RefCell<SmallHull> =
                std::cell::RefCell::new(SmallHull::empty());
        }
        return SMALL_HULL.with_borrow_mut(|hull| {
            if !hull.build(points) {
                return None;
            }
            if let Some(v) = vertices {
                let mut used = 0u64;
                for &[a, b, c] in hull.faces() {
                    used |= 1 << a | 1 << b | 1 << c;
                }
                v.extend((0..points.len() as u32).filter(|&i| used >> i & 1 == 1));
                if let Some(f) = faces {
                    // A point's position among the vertices: the used points before it.
                    let at = |i: u8| (used & ((1u64 << i) - 1)).count_ones() as u8;
                    f.extend(hull.faces().iter().map(|&[a, b, c]| [at(a), at(b), at(c)]));
                }
            }
            let at = |i: u8| points[i as usize] - origin;
            non_flat_covariance(hull.faces().iter().map(|&[a, b, c]| [at(a), at(b), at(c)]))
        });
    }
    thread_local! {
        static HULL: std::cell::RefCell<QuickHull> = std::cell::RefCell::default();
    }
    HULL.with_borrow_mut(|hull| {
        if !hull.build(points) {
            return None;
        }
        if let Some(v) = vertices {
            hull.vertices(points.len(), v);
        }
        let at = |i: u32| points[i as usize] - origin;
        non_flat_covariance(
            hull.surface()
                .iter()
                .map(|&[a, b, c]| [at(a), at(b), at(c)]),
        )
    })
}

/// [`hull_covariance`] of four points (mostly groups of two triangles that share an edge;
/// groups of two triangles are a quarter of a hierarchy's nodes): their hull is the tetrahedron
/// they span when it has volume, else it is flat (§7.1: `None`), so no hull is built and no
/// predicate is needed. Its surface is its four faces, whatever their winding (the covariance of
/// §4 does not depend on it); the volume is the triple product's, held to
/// [`non_flat_covariance`]'s bound with the largest coordinate magnitude of all four points as
/// the extent. `vertices` gets all four.
fn tetrahedron_covariance(
    points: &[Point],
    origin: &Point,
    vertices: Option<&mut Vec<u32>>,
) -> Option<Matrix3> {
    let [p, q, r, s] = [0, 1, 2, 3].map(|i| points[i] - origin);
    let volume = (q - p).dot(&(r - p).cross(&(s - p))) / 6.0;
    let extent = p.amax().max(q.amax()).max(r.amax()).max(s.amax());
    if flat(volume, extent) {
        return None;
    }
    if let Some(v) = vertices {
        v.extend(0..4);
    }
    covariance_of_hull([[p, q, r], [p, q, s], [p, r, s], [q, r, s]].into_iter())
}

/// The area-weighted covariance of a closed hull's surface (§4), or `None` when the hull is flat:
/// its volume is below `1e-9` of the cube of its extent (a frame near the hull, so that the
/// volume does not cancel).
fn non_flat_covariance(tris: impl Iterator<Item = [Vector; 3]>) -> Option<Matrix3> {
    let (covariance, volume, extent) = covariance_and_volume(tris);
    if flat(volume, extent) {
        return None;
    }
    covariance
}

/// Whether a hull of `volume` is flat for the fit: `|volume|` at most `1e-9 · extent³`, or NaN.
#[inline]
fn flat(volume: Real, extent: Real) -> bool {
    // Negated so that a NaN volume also counts as flat.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    let flat = !(volume.abs() > 1e-9 * extent.powi(3));
    flat
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predicates::orient3d;
    use crate::query::has_area;
    use proptest::prelude::*;

    /// `points − origin` in single precision, as quickhull takes them.
    fn single_precision(points: &[Point], origin: &Point) -> Vec<glam::Vec3A> {
        points
            .iter()
            .map(|p| {
                let d = p - origin;
                glam::Vec3A::new(d.x as f32, d.y as f32, d.z as f32)
            })
            .collect()
    }

    /// The hull covariance by quickhull (single precision), `None` when the hull is flat or
    /// quickhull fails.
    fn quickhull_covariance(local: &[glam::Vec3A]) -> Option<Matrix3> {
        let hull = std::panic::catch_unwind(|| {
            quickhull::ConvexTriangleMesh::try_from_points(local, None)
        })
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
        non_flat_covariance(tris.iter().map(|t| [to_v(t[0]), to_v(t[1]), to_v(t[2])]))
    }

    /// The checks that make `faces` the convex hull's surface of `points`, each exact: every
    /// face has area, every point is inside or on every face's plane (so each face lies in a
    /// supporting plane), and every directed edge has exactly one twin (a closed surface),
    /// with Euler's characteristic of a sphere.
    fn check_hull<I: Copy + Ord + Into<u32> + std::fmt::Debug + std::fmt::Display>(
        points: &[Point],
        faces: &[[I; 3]],
    ) -> Result<(), TestCaseError> {
        let at = |i: I| points[i.into() as usize];
        for &[a, b, c] in faces {
            prop_assert!(
                has_area(&[at(a), at(b), at(c)]),
                "face {a} {b} {c} has no area"
            );
            for p in points {
                // orient3d(a, b, c, p) ≥ 0: p on the inner side of the outward face or on it.
                let v = orient3d(&at(a), &at(b), &at(c), p);
                prop_assert!(v >= 0.0, "{p} outside face {a} {b} {c} ({v})");
            }
        }
        let mut edges: Vec<[I; 2]> = faces
            .iter()
            .flat_map(|&[a, b, c]| [[a, b], [b, c], [c, a]])
            .collect();
        edges.sort_unstable();
        for w in edges.windows(2) {
            prop_assert!(w[0] != w[1], "edge {:?} used twice in one direction", w[0]);
        }
        for &[a, b] in &edges {
            prop_assert!(
                edges.binary_search(&[b, a]).is_ok(),
                "edge {a} {b} has no twin"
            );
        }
        let mut vertices: Vec<I> = faces.iter().flatten().copied().collect();
        vertices.sort_unstable();
        vertices.dedup();
        let (v, e, f) = (
            vertices.len() as i64,
            edges.len() as i64 / 2,
            faces.len() as i64,
        );
        prop_assert_eq!(v - e + f, 2);
        Ok(())
    }

    /// The production hull covariance of the points `raw` against the oracle, the `quickhull`
    /// crate on all the points (single precision, no interior filter): equal to 1e-4, or both
    /// flat. The crate also gives up on some sets that are thin but not flat (a tetrahedron of
    /// volume 2.7e-4 in a unit cube, found by CI): where it does, the set must be clearly not
    /// flat ([`largest_volume`] above 1e-6 of the extent cubed) for ours to have a hull.
    fn matches_the_crate(raw: &[[f64; 3]]) -> Result<(), TestCaseError> {
        let points: Vec<Point> = raw.iter().map(|&[x, y, z]| Point::new(x, y, z)).collect();
        let origin = points[0];
        let ours = hull_covariance(&points, &origin, None, None);
        let reference = quickhull_covariance(&single_precision(&points, &origin));
        match (ours, reference) {
            (Some(s), Some(r)) => {
                prop_assert!((s - r).amax() <= 1e-4 * r.amax(), "{s} vs {r}")
            }
            (Some(_), None) => {
                let (volume, extent) = largest_volume(&points);
                prop_assert!(
                    volume > 1e-6 * extent.powi(3),
                    "a hull where the crate has none, volume {volume}"
                );
            }
            (s, r) => prop_assert!(s.is_none() && r.is_none(), "{s:?} vs {r:?}"),
        }
        Ok(())
    }

    /// The largest volume (6× the tetrahedron's) of the first point and three others, one of
    /// them any point and two of up to 16 points spread over the set; and the points' extent
    /// from the first one.
    fn largest_volume(points: &[Point]) -> (f64, f64) {
        let extent = points
            .iter()
            .map(|p| (p - points[0]).amax())
            .fold(0.0, f64::max);
        let step = points.len().div_ceil(16);
        let spread: Vec<&Point> = points.iter().step_by(step).collect();
        let mut largest: f64 = 0.0;
        for a in points {
            for b in &spread {
                for c in &spread {
                    largest = largest.max(orient3d(&points[0], a, b, c).abs());
                }
            }
        }
        (largest, extent)
    }

    /// [`QuickHull`]'s hull of `points` is their convex hull ([`check_hull`]), or they are flat
    /// ([`check_flat`]).
    fn check_quickhull(points: &[Point]) -> Result<(), TestCaseError> {
        let mut hull = QuickHull::default();
        if hull.build(points) {
            check_hull(points, hull.surface())
        } else {
            check_flat(points)
        }
    }

    /// Every point within `1e-12` of the extent cubed of one plane ([`largest_volume`]).
    fn check_flat(points: &[Point]) -> Result<(), TestCaseError> {
        let (v, extent) = largest_volume(points);
        prop_assert!(v <= 1e-12 * extent.powi(3), "flat, yet volume {v}");
        Ok(())
    }

    /// Float points: random ones, some repeated, some on a few shared planes (a grid of a
    /// non-binary step, so that coplanarity is not exact unless the doubles make it so), some
    /// exactly coplanar (an axis-aligned plane), moved and scaled. Each point is of one of the
    /// first `kinds` kinds (5: one in five random, 8: half).
    fn points(max: usize, kinds: u8) -> impl Strategy<Value = Vec<Point>> {
        let coordinate = -1.0f64..1.0;
        (
            prop::collection::vec(
                (
                    prop::array::uniform3(coordinate),
                    0u8..kinds,
                    0u8..6,
                    0u8..6,
                ),
                4..=max,
            ),
            prop::array::uniform3(-1e3f64..1e3),
            -20i32..20,
        )
            .prop_map(|(raw, offset, e)| {
                let k = 2f64.powi(e);
                let mut out: Vec<Point> = Vec::with_capacity(raw.len());
                for ([x, y, z], kind, i, j) in raw {
                    let p = match kind {
                        0 if !out.is_empty() => out[(i as usize) % out.len()],
                        1 => Point::new(0.1 * i as f64, 0.1 * j as f64, 0.0),
                        2 => Point::new(0.1 * i as f64, 0.5, 0.1 * j as f64),
                        3 => Point::new(x, y, 0.3 * x + 0.7 * y),
                        _ => Point::new(x, y, z),
                    };
                    out.push(p);
                }
                out.into_iter()
                    .map(|p| Point::from((p.coords + Vector::from(offset)) * k))
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            cases: 2000,
            ..ProptestConfig::default()
        })]

        /// The hull is the convex hull (exact checks), or every point is on one plane to
        /// within the orientation filter's rounding.
        #[test]
        fn small_hull_is_the_convex_hull(points in points(SMALL, 8)) {
            match SmallHull::new(&points) {
                Some(hull) => check_hull(&points, hull.faces())?,
                None => check_flat(&points)?,
            }
        }

        /// The covariance of the exact hull is quickhull's (single precision) on points in
        /// general position.
        #[test]
        fn small_hull_covariance_matches_quickhull(
            raw in prop::collection::vec(prop::array::uniform3(-1.0f64..1.0), 4..=SMALL)
        ) {
            matches_the_crate(&raw)?;
        }

        /// Four points (of the same kinds: repeats, coplanar grids, exactly coplanar sets), at
        /// the fit's unit scale: the closed form's covariance (their tetrahedron's faces) is
        /// the incremental hull's to rounding, with all four points as the vertices, and both
        /// call the same groups flat, but for volumes at the flatness bound itself, whose
        /// extents differ (here all four points', there the faces' first corners': within a
        /// factor √3, the first corner after the origin being the point farthest from it).
        #[test]
        fn tetrahedron_covariance_is_the_small_hulls(points in points(4, 8)) {
            let k = crate::bv::fit::unit_scale(points.iter().copied());
            let points: Vec<Point> = points.iter().map(|p| p * k).collect();
            let origin = points[0];
            let mut vertices = vec![7];
            let closed = hull_covariance(&points, &origin, Some(&mut vertices), None);
            let at = |i: u8| points[i as usize] - origin;
            let small = SmallHull::new(&points).and_then(|hull| {
                non_flat_covariance(hull.faces().iter().map(|&[a, b, c]| [at(a), at(b), at(c)]))
            });
            match (closed, small) {
                (Some(closed), Some(small)) => {
                    let off = (closed - small).amax();
                    prop_assert!(off <= 1e-12 * small.amax(), "{closed} against {small}");
                    prop_assert_eq!(vertices, vec![0, 1, 2, 3]);
                }
                (None, None) => prop_assert!(vertices.is_empty()),
                _ => {
                    let [p, q, r, s] = [0, 1, 2, 3].map(at);
                    let volume = (q - p).dot(&(r - p).cross(&(s - p))).abs() / 6.0;
                    let extent = p.amax().max(q.amax()).max(r.amax()).max(s.amax());
                    let bound = 1e-9 * extent.powi(3);
                    prop_assert!(
                        volume <= bound * (1.0 + 1e-9) && volume >= bound / 5.3,
                        "one flat, the other not: volume {volume}, bound {bound}"
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            cases: 500,
            ..ProptestConfig::default()
        })]

        /// [`QuickHull`] on up to 300 points of the same kinds (repeats, coplanar grids, exactly
        /// coplanar sets): the convex hull (exact checks), or every point is on one plane to
        /// within the orientation filter's rounding.
        #[test]
        fn quickhull_is_the_convex_hull(points in points(300, 8)) {
            check_quickhull(&points)?;
        }

        /// The same with most points on the few planes: points within rounding of a face's
        /// plane, which the orientation filter cannot place, are common here (with the filter
        /// alone deciding the outside sets, one case in a few thousand failed).
        #[test]
        fn quickhull_on_near_coplanar_points(points in points(300, 5)) {
            check_quickhull(&points)?;
        }

        /// The covariance of [`QuickHull`]'s hull is the `quickhull` crate's (single precision)
        /// on points in general position (where the crate is right), through the production
        /// path.
        #[test]
        fn quickhull_covariance_matches_the_crate(
            raw in prop::collection::vec(prop::array::uniform3(-1.0f64..1.0), SMALL + 1..=1000)
        ) {
            matches_the_crate(&raw)?;
        }
    }

    /// The case CI found: four points spanning a thin tetrahedron (volume 2.7e-4 in a unit
    /// cube), where the crate gives no hull; ours has one.
    #[test]
    fn thin_tetrahedron_the_crate_gives_up_on() {
        let raw = [
            [
                -0.34101434855175566,
                -0.2012290451640146,
                -0.057534273277110144,
            ],
            [0.053945224380348204, 0.6460987894160631, 0.7726570319210898],
            [
                -0.21981466708543138,
                0.7110863081866722,
                0.060002333260684444,
            ],
            [
                -0.5382828597869199,
                -0.7598560303663098,
                -0.4499763879254338,
            ],
        ];
        matches_the_crate(&raw).unwrap();
        let points = raw.map(|[x, y, z]| Point::new(x, y, z));
        check_hull(&points, SmallHull::new(&points).unwrap().faces()).unwrap();
    }

    /// The case CI found (14 points near (619, −279, −549), one repeated): with the outside
    /// sets decided by the filter alone, the last insertion dropped a point within rounding of
    /// a new face's plane that lay outside a kept face by 1.8% of the extent cubed.
    #[test]
    fn quickhull_keeps_every_point_inside() {
        let raw = [
            [619.6494075516338, -278.99122512299795, -549.2494733953359],
            [619.6494075516338, -278.99122512299795, -549.2494733953359],
            [618.7581744077092, -279.28230620938945, -549.7360726784034],
            [618.5514798341469, -279.9754445505902, -550.2832778893126],
            [618.8292738754507, -280.0189725538192, -548.9978958574683],
            [618.8469716236557, -279.28230620938945, -548.7722415488884],
            [619.5377118755885, -280.16784231855286, -548.5763928344081],
            [618.9431236677095, -278.40884541153014, -549.0691653419018],
            [618.7403096622205, -280.151463321149, -550.3498420802816],
            [620.5276861864179, -280.066283160559, -549.5022114380396],
            [619.5377118755885, -279.28230620938945, -549.5022114380396],
            [618.8062750695173, -278.3893341458446, -549.0965620353795],
            [618.7563849805168, -278.5798440109513, -549.2448859676543],
            [619.2907232631152, -279.5585669898338, -549.7696905680926],
        ];
        let points = raw.map(|[x, y, z]| Point::new(x, y, z));
        let mut hull = QuickHull::default();
        assert!(hull.build(&points));
        check_hull(&points, hull.surface()).unwrap();
    }

    /// Real float input full of degeneracy: the pipes scene's model (cylinders on a grid, flat
    /// ends, thousands of coplanar and cocircular points), all of it and eight runs of its
    /// triangles. [`QuickHull`] must give each exact convex hull (the `quickhull` crate's hulls
    /// of such groups were not convex hulls, see the module's doc).
    #[test]
    fn quickhull_on_the_pipes_model() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/models/pipes.obj");
        let mesh = crate::mesh::load_obj(&path).unwrap();
        let all: Vec<Point> = mesh.vertices().to_vec();
        let n = mesh.triangle_count();
        let mut groups = vec![all];
        for k in 0..8 {
            let mut ids: Vec<u32> = (k * n / 8..(k + 1) * n / 8)
                .flat_map(|t| mesh.triangles()[t])
                .collect();
            ids.sort_unstable();
            ids.dedup();
            groups.push(ids.iter().map(|&v| mesh.vertices()[v as usize]).collect());
        }
        let mut hull = QuickHull::default();
        for points in &groups {
            assert!(hull.build(points), "{} points: flat?", points.len());
            check_hull(points, hull.surface()).unwrap();
        }
    }

    /// The 27 points of a 3×3×3 lattice of step 0.1 (not exact in binary) around a far centre:
    /// the hull is the cube, its flat faces carry 9 coplanar points each, and the covariance of
    /// a cube's surface is `5/9 h²` times the identity (`h` the half side: faces at ±h carry
    /// `h²` over `4h²` of area, the other four `h²/3`; `(8 + 16/3) h⁴ / 24 h²`).
    #[test]
    fn lattice_cube_has_the_cube_covariance() {
        let centre = Vector::new(123.4, -56.7, 8.9);
        let mut points = Vec::new();
        for i in -1..=1 {
            for j in -1..=1 {
                for k in -1..=1 {
                    points.push(Point::from(
                        centre + Vector::new(i as f64, j as f64, k as f64) * 0.1,
                    ));
                }
            }
        }
        let expected = Matrix3::identity() * (5.0 / 9.0 * 0.01);
        let hull = SmallHull::new(&points).expect("a cube is not flat");
        check_hull(&points, hull.faces()).unwrap();
        // The same cube through quickhull (shuffled, with repeats, so that points are met in
        // another order).
        let mut many: Vec<Point> = points.iter().chain(points.iter().rev()).copied().collect();
        many.rotate_left(7);
        let mut quick = QuickHull::default();
        assert!(quick.build(&many));
        check_hull(&many, quick.surface()).unwrap();
        let quick_cov = {
            let at = |i: u32| many[i as usize] - points[13];
            non_flat_covariance(
                quick
                    .surface()
                    .iter()
                    .map(|&[a, b, c]| [at(a), at(b), at(c)]),
            )
        }
        .unwrap();
        assert!((quick_cov - expected).amax() < 1e-12, "{quick_cov}");
        let cov = hull_covariance(&points, &points[13], None, None).unwrap();
        assert!((cov - expected).amax() < 1e-12, "{cov}");
        // Exactly coplanar (one lattice layer) and collinear (one row) sets are flat.
        assert!(SmallHull::new(&points[..9]).is_none());
        assert!(!quick.build(&points[..9]));
        assert!(SmallHull::new(&[points[0], points[1], points[2], points[1]]).is_none());
    }
}
