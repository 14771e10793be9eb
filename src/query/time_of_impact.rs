//! Time of impact by conservative advancement (Mirtich 1996, *Impulse-based Dynamic
//! Simulation of Rigid Body Systems*, §2.3; on polygon soups with hierarchies: Zhang, Redon,
//! Lee, Kim 2006, *Continuous Collision Detection for Articulated Models using Taylor Models
//! and Temporal Culling*, and Tang, Kim, Manocha 2009, *C2A*, §3–4).
//!
//! B sweeps a [`RigidMotion`] in A's frame. No point of B moves faster than the motion bound
//! `μ = |displacement| + |rotation| · r` per unit of `t` (`r`: the farthest vertex of B from the
//! motion's centre), so from a time `t` at distance `d` the meshes cannot come closer than
//! `d − μ·s` within `s`. The walk starts at `t = 0` and repeats: measure the distance ([`distance_with`],
//! each query seeded with the last closest pair); stop if it is within the tolerance `τ`;
//! otherwise advance by `(d − τ/2) / μ`, which no contact, however fast the motion or thin the
//! meshes, can lie within. Hence the answer's guarantees:
//!
//! - an impact at `t`: the meshes are within `τ` at `t` (the reported pair shows it) and never
//!   closer than `τ/2` before `t` — so `t` is no later than the first contact, and no later
//!   than the first time they come within `τ/2`;
//! - clear: they never come closer than `τ/2` over the whole motion;
//! - unresolved: the iteration limit was reached at `reached`; nothing closer than `τ/2`
//!   before it (a grazing motion at about the tolerance takes about `2μ/τ` steps).
//!
//! Each step is one distance query: a first-contact walk, then the distance walk
//! (Larsen et al. 1999, §4).

use super::contact_normal::contact_normal;
use super::distance::{DistanceOptions, DistanceReport, distance_with};
use crate::bv::{BoundingVolume, OverlapOptions};
use crate::bvh::Bvh;
use crate::math::{Isometry, Point, Real, Vector};
use crate::motion::RigidMotion;

/// A bad time-of-impact request.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum ToiError {
    /// The tolerance is not a finite positive distance (conservative advancement reaches a
    /// tolerance of 0 only in the limit).
    #[error("tolerance {0} is not a finite positive distance")]
    Tolerance(Real),
    /// The relative error bound is not in `[0, 1)`.
    #[error("relative error bound {0} is not in [0, 1)")]
    RelativeError(Real),
    /// The motion holds a NaN or an infinite number.
    #[error("the motion is not finite")]
    Motion,
}

/// Options of a time-of-impact query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToiOptions {
    /// τ (model units, > 0): the query stops where the meshes are within it.
    pub tolerance: Real,
    /// Relative error bound of each distance query (PQP's `rel_err`, in `[0, 1)`): a query may
    /// report up to `(1 + rel_err)` times the distance; the advancement uses the lower bound
    /// `d / (1 + rel_err)`, so the guarantees hold, with fewer volume tests per query.
    pub rel_err: Real,
    /// Distance queries at most; then the answer is [`ToiOutcome::Unresolved`].
    pub max_iterations: u32,
    /// An upper bound of the distance of B's vertices from the motion's centre (model units),
    /// where the caller knows it (a rigid body's mass properties); `None`: measured over B's
    /// vertices on every call. A smaller value voids the guarantees.
    pub body_radius: Option<Real>,
    /// The volume tests ([`OverlapOptions`]).
    pub overlap: OverlapOptions,
}

impl ToiOptions {
    /// Tolerance `tolerance`, exact distances, at most 1,000 distance queries.
    pub fn new(tolerance: Real) -> Self {
        ToiOptions {
            tolerance,
            rel_err: 0.0,
            max_iterations: 1000,
            body_radius: None,
            overlap: OverlapOptions::default(),
        }
    }
}

/// Where a motion brings the meshes within the tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// The time `t ∈ [0, 1]` of the motion.
    pub toi: Real,
    /// B's pose at `toi`, in A's frame.
    pub pose: Isometry,
    /// The distance there (≤ the tolerance; 0 where the meshes touch).
    pub distance: Real,
    /// The closest pair `(triangle of A, triangle of B)`.
    pub triangles: (u32, u32),
    /// The closest point on A, A's frame.
    pub closest_a: Point,
    /// The closest point on B, B's model frame.
    pub closest_b: Point,
    /// The contact normal, A's frame, unit, from A to B: from the closest point on A to that
    /// on B, or where they coincide the pair's contact normal
    /// ([`super::contact_normal`]); `None` only for two point-like triangles touching.
    pub normal: Option<Vector>,
}

/// How a time-of-impact query ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ToiOutcome {
    /// The meshes come within the tolerance (see the module documentation).
    Impact(Impact),
    /// They stay farther apart than half the tolerance over the whole motion.
    Clear,
    /// The iteration limit was reached; nothing comes within half the tolerance before
    /// `reached`.
    Unresolved {
        /// The time reached.
        reached: Real,
    },
}

/// The answer of a time-of-impact query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToiReport {
    /// The outcome.
    pub outcome: ToiOutcome,
    /// Distance queries made (conservative advancement steps).
    pub distance_queries: u32,
    /// N_v over all the distance queries.
    pub bv_tests: u64,
    /// N_p over all the distance queries.
    pub tri_tests: u64,
}

impl ToiReport {
    /// The time of impact, if any.
    pub fn toi(&self) -> Option<Real> {
        match self.outcome {
            ToiOutcome::Impact(i) => Some(i.toi),
            _ => None,
        }
    }

    /// How far the motion is proven free of contact: the time of impact, 1 when clear, the
    /// time reached when unresolved.
    pub fn safe_until(&self) -> Real {
        match self.outcome {
            ToiOutcome::Impact(i) => i.toi,
            ToiOutcome::Clear => 1.0,
            ToiOutcome::Unresolved { reached } => reached,
        }
    }
}

/// The first time B, moving by `motion` in A's frame (A fixed), comes within
/// `options.tolerance` of A, by conservative advancement (see the module documentation).
///
/// # Errors
/// [`ToiError`] for a tolerance that is not finite and positive, a relative error bound
/// outside `[0, 1)`, or a motion that is not finite.
///
/// # Examples
/// ```
/// use obbtree::prelude::*;
/// use obbtree::motion::RigidMotion;
/// use obbtree::query::{time_of_impact, ToiOptions};
/// let wall = TriMesh::new(
///     vec![Point::new(0., -1., -1.), Point::new(0., 1., -1.), Point::new(0., 0., 1.)],
///     vec![[0, 1, 2]], "wall").unwrap();
/// let a = ObbTree::build(wall.clone(), &BuildOptions::default());
/// // The same triangle thrown from x = -5 to x = 5, straight through the wall.
/// let motion = RigidMotion::between(&Isometry::translation(-5., 0., 0.), &Isometry::translation(5., 0., 0.));
/// let report = time_of_impact(&a, &a, &motion, &ToiOptions::new(1e-3))?;
/// let t = report.toi().unwrap();
/// assert!(t <= 0.5 && t > 0.49);
/// # Ok::<(), obbtree::query::ToiError>(())
/// ```
pub fn time_of_impact<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    motion: &RigidMotion,
    options: &ToiOptions,
) -> Result<ToiReport, ToiError> {
    let tol = options.tolerance;
    if !(tol.is_finite() && tol > 0.0) {
        return Err(ToiError::Tolerance(tol));
    }
    let rel = options.rel_err;
    if !(rel.is_finite() && (0.0..1.0).contains(&rel)) {
        return Err(ToiError::RelativeError(rel));
    }
    if !motion.is_finite() {
        return Err(ToiError::Motion);
    }
    let radius = options.body_radius.unwrap_or_else(|| {
        b.mesh()
            .vertices()
            .iter()
            .map(|v| (v - motion.center).norm())
            .fold(0.0, Real::max)
    });
    let mu = motion.speed_bound(radius);
    let query = DistanceOptions {
        rel_err: rel,
        abs_err: 0.0,
        overlap: options.overlap,
        seed: None,
    };
    let mut report = ToiReport {
        outcome: ToiOutcome::Clear,
        distance_queries: 0,
        bv_tests: 0,
        tri_tests: 0,
    };
    let mut seed = None;
    let mut t: Real = 0.0;
    loop {
        if report.distance_queries >= options.max_iterations {
            report.outcome = ToiOutcome::Unresolved { reached: t };
            return Ok(report);
        }
        let pose = motion.pose_at(t);
        let rot_ab = pose.rotation.to_rotation_matrix().into_inner();
        let pos_ab = pose.translation.vector;
        let d = distance_with(a, b, &rot_ab, &pos_ab, &DistanceOptions { seed, ..query })
            .expect("the bounds were checked");
        report.distance_queries += 1;
        report.bv_tests += d.bv_tests;
        report.tri_tests += d.tri_tests;
        seed = Some(d.triangles);
        // The reported distance is one pair's: the meshes are at most that far apart.
        if d.distance <= tol {
            report.outcome = ToiOutcome::Impact(impact(a, b, t, &pose, &d));
            return Ok(report);
        }
        if t >= 1.0 || mu == 0.0 {
            return Ok(report);
        }
        // They are at least d / (1 + rel_err) apart: nothing comes within τ/2 sooner.
        let step = (d.distance / (1.0 + rel) - 0.5 * tol) / mu;
        t = if step.is_finite() {
            (t + step).min(1.0)
        } else {
            1.0
        };
    }
}

fn impact<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    toi: Real,
    pose: &Isometry,
    d: &DistanceReport,
) -> Impact {
    let on_b = pose * d.closest_b;
    let gap = on_b - d.closest_a;
    let normal = if d.distance > 0.0 && gap.norm() > 0.0 {
        Some(gap / gap.norm())
    } else {
        let p = a.mesh().triangle(d.triangles.0 as usize);
        let q = b.mesh().triangle(d.triangles.1 as usize).map(|x| pose * x);
        contact_normal(&p, &q).map(|n| n.normal)
    };
    Impact {
        toi,
        pose: *pose,
        distance: d.distance,
        triangles: d.triangles,
        closest_a: d.closest_a,
        closest_b: d.closest_b,
        normal,
    }
}
