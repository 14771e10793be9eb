//! Proximity queries on the walk (Larsen, Gottschalk, Lin, Manocha 1999, *Fast Proximity
//! Queries with Swept Sphere Volumes*, §4–5, PQP's `PQP_Distance` and `PQP_Tolerance`): the
//! distance between two models with closest points, whether they are within a tolerance, and
//! every triangle pair within a tolerance.
//!
//! Each is a visitor of the one walk ([`super::traverse`]) whose volumes count as overlapping
//! when they are within the visitor's tolerance ([`Visitor::tolerance`]): the distance query's
//! tolerance is the best distance found so far, so a volume pair farther apart than it is
//! pruned, and the walk goes first to the child pair that overlaps deeper (the nearer one).

use super::contacts::Contacts;
use super::triangles::Triangles;
use super::walk::{Control, Counts, LeafPair, Visitor, Walk};
use crate::bv::{BoundingVolume, OverlapOptions};
use crate::bvh::Bvh;
use crate::math::{Isometry, Matrix3, Point, Real, Vector, relative_parts, transform_point};

/// A bad tolerance or error bound: negative, NaN or infinite.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum ProximityError {
    /// The tolerance is negative, NaN or infinite.
    #[error("tolerance {0} is not a finite non-negative distance")]
    Tolerance(Real),
    /// The relative error bound is negative, NaN or infinite.
    #[error("relative error bound {0} is not a finite non-negative number")]
    RelativeError(Real),
    /// The absolute error bound is negative, NaN or infinite.
    #[error("absolute error bound {0} is not a finite non-negative distance")]
    AbsoluteError(Real),
    /// The seed names a triangle a model does not have.
    #[error("seed triangle pair ({0}, {1}) is out of range: the models have {2} and {3} triangles")]
    Seed(u32, u32, usize, usize),
}

/// Options of a distance query.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DistanceOptions {
    /// Relative error bound (PQP's `rel_err`): the reported distance `d` satisfies
    /// `d ≤ (1 + rel_err) · d_min`. 0: the minimum (up to rounding).
    pub rel_err: Real,
    /// Absolute error bound (PQP's `abs_err`, model units): `d ≤ d_min + abs_err`. With both
    /// bounds, a volume pair is pruned when either would allow it.
    pub abs_err: Real,
    /// The volume tests: ε, full SAT or SAT lite, leaf triangles ([`OverlapOptions`]).
    pub overlap: OverlapOptions,
    /// A triangle pair `(triangle of A, triangle of B)` to start from: its distance is the
    /// walk's first bound, and where it intersects, the answer. The last query's
    /// [`DistanceReport::triangles`] on a coherent path (PQP keeps it in its models).
    pub seed: Option<(u32, u32)>,
}

impl DistanceOptions {
    /// `Ok(())`, or the first bound that is negative, NaN or infinite.
    pub fn check(&self) -> Result<(), ProximityError> {
        if !(self.rel_err.is_finite() && self.rel_err >= 0.0) {
            return Err(ProximityError::RelativeError(self.rel_err));
        }
        if !(self.abs_err.is_finite() && self.abs_err >= 0.0) {
            return Err(ProximityError::AbsoluteError(self.abs_err));
        }
        Ok(())
    }
}

/// The answer of a distance query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceReport {
    /// The distance between the models (model units): 0 exactly when they intersect (touching
    /// counts), decided by the exact triangle test.
    pub distance: Real,
    /// The closest point on A, in A's model frame.
    pub closest_a: Point,
    /// The closest point on B, in B's model frame.
    pub closest_b: Point,
    /// The triangles the closest points lie on `(triangle of A, triangle of B)`, indices into
    /// each mesh; where the distance is 0, an intersecting pair.
    pub triangles: (u32, u32),
    /// N_v: volume pair tests.
    pub bv_tests: u64,
    /// N_p: triangle pair tests.
    pub tri_tests: u64,
}

/// The answer of a tolerance query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WithinReport {
    /// Whether the models come within the tolerance (distance ≤ tolerance).
    pub within: bool,
    /// The triangle pair that proves it `(triangle of A, triangle of B)`; `None` when not
    /// within.
    pub triangles: Option<(u32, u32)>,
    /// N_v: volume pair tests.
    pub bv_tests: u64,
    /// N_p: triangle pair tests.
    pub tri_tests: u64,
}

/// The answer of an all-pairs tolerance query.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PairsReport {
    /// Every triangle pair `(triangle of A, triangle of B)` within the tolerance, with its
    /// distance, in walk order. With tolerance 0, exactly the contacts of
    /// [`super::collide`].
    pub pairs: Vec<((u32, u32), Real)>,
    /// N_v: volume pair tests.
    pub bv_tests: u64,
    /// N_p: triangle pair tests.
    pub tri_tests: u64,
}

/// The distance between two models placed in a common (world) frame, with a closest point on
/// each (each in its model's frame) and their triangles (PQP's `PQP_Distance`). See
/// [`distance_with`].
///
/// # Errors
/// [`ProximityError`] for a negative, NaN or infinite error bound.
///
/// # Examples
/// ```
/// use obbtree::prelude::*;
/// use obbtree::query::{distance, DistanceOptions};
/// let tri = TriMesh::new(
///     vec![Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.)],
///     vec![[0, 1, 2]], "triangle").unwrap();
/// let a = ObbTree::build(tri, &BuildOptions::default());
/// let lifted = Isometry::translation(0.0, 0.0, 2.0);
/// let report = distance(&a, &Isometry::identity(), &a, &lifted, &DistanceOptions::default())?;
/// assert_eq!(report.distance, 2.0);
/// # Ok::<(), obbtree::query::ProximityError>(())
/// ```
pub fn distance<B: BoundingVolume>(
    a: &Bvh<B>,
    pose_a: &Isometry,
    b: &Bvh<B>,
    pose_b: &Isometry,
    options: &DistanceOptions,
) -> Result<DistanceReport, ProximityError> {
    let (rot_ab, pos_ab) = relative_parts(pose_a, pose_b);
    distance_with(a, b, &rot_ab, &pos_ab, options)
}

/// [`distance`] with B placed in A's frame by `x_a = rot_ab · x_b + pos_ab`.
///
/// A first-contact walk goes first (a contact ends the query at distance 0). Then the distance
/// walk starts with the distance of one leaf pair, reached by descending both hierarchies
/// towards each other (the nearer child by centre distance), as its bound; then every volume
/// pair farther apart than the bound (shrunk by the error bounds) is pruned, and each leaf
/// pair's triangles are tested exactly for contact ([`super::triangles_intersect`]; a contact
/// ends the query at distance 0) and otherwise measured ([`super::triangle_distance`]).
/// Models too far apart for single-precision volume tests (beyond 1e35) are measured over every
/// triangle pair in double precision.
///
/// # Errors
/// [`ProximityError`] for a negative, NaN or infinite error bound.
pub fn distance_with<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &DistanceOptions,
) -> Result<DistanceReport, ProximityError> {
    options.check()?;
    let seeded = match options.seed {
        Some((ta, tb)) => {
            let (na, nb) = (a.mesh().triangle_count(), b.mesh().triangle_count());
            if ta as usize >= na || tb as usize >= nb {
                return Err(ProximityError::Seed(ta, tb, na, nb));
            }
            let m = Measured::of_triangles(a, b, rot_ab, pos_ab, (ta, tb));
            if m.distance == 0.0 {
                return Ok(m.report(
                    rot_ab,
                    pos_ab,
                    Counts {
                        bv_tests: 0,
                        tri_tests: 1,
                    },
                ));
            }
            Some(m)
        }
        None => None,
    };
    // Contact first: the first-contact walk, far cheaper than the distance walk where the
    // models touch (its order goes to the deeper overlaps).
    let mut touch = Contacts::with_storage(true, None, Vec::new());
    let mut w = Walk::new(a, b, rot_ab, pos_ab, &options.overlap, 0.0, true);
    w.root(&mut touch);
    let first = w.counts();
    if let Some(&pair) = touch.contacts.first() {
        let m = Measured::of_triangles(a, b, rot_ab, pos_ab, pair);
        return Ok(m.report(rot_ab, pos_ab, first));
    }
    // The nearer of the seed and the pair the descent towards each other reaches.
    let slots = seed(a, b, rot_ab, pos_ab, &options.overlap);
    let triangles = (a.slot_triangles()[slots.0], b.slot_triangles()[slots.1]);
    let descent = Measured::of_triangles(a, b, rot_ab, pos_ab, triangles);
    let best = match seeded {
        Some(m) if m.distance <= descent.distance => m,
        _ => descent,
    };
    let mut v = Nearest {
        best,
        shrink: 1.0 / (1.0 + options.rel_err),
        abs_err: options.abs_err,
    };
    let tolerance = Visitor::<B>::tolerance(&v);
    let mut w = Walk::new(a, b, rot_ab, pos_ab, &options.overlap, tolerance, true);
    let counts = if w.far() {
        let counts = Counts {
            bv_tests: 1,
            tri_tests: a.slot_triangles().len() as u64 * b.slot_triangles().len() as u64,
        };
        v.best = every_pair(a, b, rot_ab, pos_ab);
        counts
    } else {
        w.root(&mut v);
        let mut c = w.counts();
        c.tri_tests += 1 + u64::from(seeded.is_some()); // the start's
        c
    };
    let counts = Counts {
        bv_tests: counts.bv_tests + first.bv_tests,
        tri_tests: counts.tri_tests + first.tri_tests,
    };
    Ok(v.best.report(rot_ab, pos_ab, counts))
}

/// Whether two models placed in a common frame come within `tolerance` of each other (distance
/// ≤ tolerance; PQP's `PQP_Tolerance`), and the triangle pair that shows it. The walk stops at
/// the first such pair; a contact counts at any tolerance.
///
/// # Errors
/// [`ProximityError::Tolerance`] for a negative, NaN or infinite tolerance.
pub fn within<B: BoundingVolume>(
    a: &Bvh<B>,
    pose_a: &Isometry,
    b: &Bvh<B>,
    pose_b: &Isometry,
    tolerance: Real,
    overlap: &OverlapOptions,
) -> Result<WithinReport, ProximityError> {
    let (rot_ab, pos_ab) = relative_parts(pose_a, pose_b);
    within_with(a, b, &rot_ab, &pos_ab, tolerance, overlap)
}

/// [`within`] with B placed in A's frame by `x_a = rot_ab · x_b + pos_ab`.
///
/// # Errors
/// [`ProximityError::Tolerance`] for a negative, NaN or infinite tolerance.
pub fn within_with<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    tolerance: Real,
    overlap: &OverlapOptions,
) -> Result<WithinReport, ProximityError> {
    let r = close(a, b, rot_ab, pos_ab, tolerance, overlap, false)?;
    let triangles = r.pairs.first().map(|p| p.0);
    Ok(WithinReport {
        within: triangles.is_some(),
        triangles,
        bv_tests: r.bv_tests,
        tri_tests: r.tri_tests,
    })
}

/// Every triangle pair of two models placed in a common frame within `tolerance` of each other
/// (distance ≤ tolerance), with its distance: the contacts grown by a safety margin. Tolerance
/// 0 gives exactly the contacts (decided by the exact test).
///
/// # Errors
/// [`ProximityError::Tolerance`] for a negative, NaN or infinite tolerance.
pub fn within_pairs<B: BoundingVolume>(
    a: &Bvh<B>,
    pose_a: &Isometry,
    b: &Bvh<B>,
    pose_b: &Isometry,
    tolerance: Real,
    overlap: &OverlapOptions,
) -> Result<PairsReport, ProximityError> {
    let (rot_ab, pos_ab) = relative_parts(pose_a, pose_b);
    within_pairs_with(a, b, &rot_ab, &pos_ab, tolerance, overlap)
}

/// [`within_pairs`] with B placed in A's frame by `x_a = rot_ab · x_b + pos_ab`.
///
/// # Errors
/// [`ProximityError::Tolerance`] for a negative, NaN or infinite tolerance.
pub fn within_pairs_with<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    tolerance: Real,
    overlap: &OverlapOptions,
) -> Result<PairsReport, ProximityError> {
    close(a, b, rot_ab, pos_ab, tolerance, overlap, true)
}

/// The tolerance visitor's walk: the pairs within `tolerance`, all of them or the first (the
/// walk then goes to the deeper overlaps first).
fn close<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    tolerance: Real,
    overlap: &OverlapOptions,
    all: bool,
) -> Result<PairsReport, ProximityError> {
    check_tolerance(tolerance)?;
    let mut v = Close {
        tolerance,
        all,
        pairs: Vec::new(),
    };
    let mut w = Walk::new(a, b, rot_ab, pos_ab, overlap, tolerance, !all);
    w.root(&mut v);
    let c = w.counts();
    Ok(PairsReport {
        pairs: v.pairs,
        bv_tests: c.bv_tests,
        tri_tests: c.tri_tests,
    })
}

fn check_tolerance(tolerance: Real) -> Result<(), ProximityError> {
    if tolerance.is_finite() && tolerance >= 0.0 {
        Ok(())
    } else {
        Err(ProximityError::Tolerance(tolerance))
    }
}

/// A measured triangle pair: its distance, the closest points (both in A's frame) and the
/// triangles (mesh indices).
#[derive(Clone, Copy, Debug)]
struct Measured {
    distance: Real,
    on_a: Point,
    on_b: Point,
    triangles: (u32, u32),
}

impl Measured {
    /// The triangles `(ta, tb)` (mesh indices, in range), measured outside a walk.
    fn of_triangles<B: BoundingVolume>(
        a: &Bvh<B>,
        b: &Bvh<B>,
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        (ta, tb): (u32, u32),
    ) -> Measured {
        let p = a.mesh().triangle(ta as usize);
        let q = b
            .mesh()
            .triangle(tb as usize)
            .map(|x| transform_point(rot_ab, pos_ab, &x));
        let (distance, on_a, on_b) = super::triangle_distance(&p, &q);
        Measured {
            distance,
            on_a,
            on_b,
            triangles: (ta, tb),
        }
    }

    /// The report of this pair, B's point taken back to B's frame.
    fn report(&self, rot_ab: &Matrix3, pos_ab: &Vector, counts: Counts) -> DistanceReport {
        DistanceReport {
            distance: self.distance,
            closest_a: self.on_a,
            closest_b: Point::from(rot_ab.transpose() * (self.on_b - pos_ab)),
            triangles: self.triangles,
            bv_tests: counts.bv_tests,
            tri_tests: counts.tri_tests,
        }
    }
}

/// A first leaf pair for the distance query's bound: from the root pair down, the node with the
/// larger volume is split and the child nearer the other node (by centre distance) taken.
fn seed<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    overlap: &OverlapOptions,
) -> (usize, usize) {
    let query = super::volume_query(a, b, rot_ab, pos_ab, overlap);
    let (na, nb) = (a.nodes(), b.nodes());
    let (mut i, mut j) = (0, 0);
    let mut placed = B::place(&query, &nb[0].bv);
    loop {
        let (ca, cb) = (na[i].children(), nb[j].children());
        let split_a = ca.filter(|_| cb.is_none() || na[i].bv.size() >= nb[j].bv.size());
        if let Some((l, r)) = split_a {
            let dl = B::center_distance2(&na[l].bv, &placed);
            let dr = B::center_distance2(&na[r].bv, &placed);
            i = if dr < dl { r } else { l };
        } else if let Some((l, r)) = cb {
            let (pl, pr) = (B::place(&query, &nb[l].bv), B::place(&query, &nb[r].bv));
            let dl = B::center_distance2(&na[i].bv, &pl);
            let dr = B::center_distance2(&na[i].bv, &pr);
            (j, placed) = if dr < dl { (r, pr) } else { (l, pl) };
        } else {
            return (na[i].leaf_slot(), nb[j].leaf_slot());
        }
    }
}

/// Every triangle pair measured in double precision: the distance query of models too far
/// apart for the volume tests.
fn every_pair<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
) -> Measured {
    let mut best = Measured::of_triangles(a, b, rot_ab, pos_ab, (0, 0));
    for ta in 0..a.mesh().triangle_count() as u32 {
        for tb in 0..b.mesh().triangle_count() as u32 {
            let m = Measured::of_triangles(a, b, rot_ab, pos_ab, (ta, tb));
            if m.distance < best.distance {
                best = m;
            }
        }
    }
    best
}

/// The distance visitor, on models that do not touch: keeps the nearest pair; its tolerance is
/// the best distance shrunk by the error bounds, so that the walk prunes every volume pair that
/// cannot improve it enough.
struct Nearest {
    best: Measured,
    /// `1 / (1 + rel_err)`.
    shrink: Real,
    abs_err: Real,
}

impl<B: BoundingVolume> Visitor<B> for Nearest {
    const HEARS_PAIRS: bool = false;
    const TOLERANCE: bool = true;
    const SHRINKING: bool = true;

    #[inline(always)]
    fn ordered(&self) -> bool {
        true
    }

    #[inline(always)]
    fn tolerance(&self) -> Real {
        let d = self.best.distance;
        (d * self.shrink).min(d - self.abs_err).max(0.0)
    }

    /// No pair intersects here (the first-contact walk found none): each pair's distance is
    /// that of its nearest features, measured where its planes do not already show it farther
    /// than the best.
    fn leaves(&mut self, pair: LeafPair, triangles: &mut Triangles<'_>) -> Control {
        let (sa, sb) = (pair.slot_a, pair.slot_b);
        let p = triangles.corners_a(sa);
        let q = triangles.placed_b(sb);
        if super::tri_dist::plane_gap(&p, &q) >= self.best.distance {
            return Control::Continue;
        }
        let (d, on_a, on_b) = super::tri_dist::apart(&p, &q);
        let d = d.max(Real::from_bits(1));
        if d < self.best.distance {
            self.best = Measured {
                distance: d,
                on_a,
                on_b,
                triangles: triangles.indices(sa, sb),
            };
        }
        Control::Continue
    }
}

/// The tolerance visitor: the pairs within the tolerance, all of them or the first.
struct Close {
    tolerance: Real,
    all: bool,
    pairs: Vec<((u32, u32), Real)>,
}

impl<B: BoundingVolume> Visitor<B> for Close {
    const HEARS_PAIRS: bool = false;
    const TOLERANCE: bool = true;

    #[inline(always)]
    fn tolerance(&self) -> Real {
        self.tolerance
    }

    fn leaves(&mut self, pair: LeafPair, triangles: &mut Triangles<'_>) -> Control {
        let (sa, sb) = (pair.slot_a, pair.slot_b);
        let d = if triangles.intersect(sa, sb) {
            0.0
        } else if self.tolerance == 0.0 {
            return Control::Continue;
        } else {
            let p = triangles.corners_a(sa);
            let q = triangles.placed_b(sb);
            super::tri_dist::apart(&p, &q).0.max(Real::from_bits(1))
        };
        if d > self.tolerance {
            return Control::Continue;
        }
        self.pairs.push((triangles.indices(sa, sb), d));
        if self.all {
            Control::Continue
        } else {
            Control::Stop
        }
    }
}
