//! The cost equation (Gottschalk et al. 1996, eq. (1)), `T = T_0 + N_v·C_v + N_p·C_p`, measured
//! on one query by timing three walks of it: the set-up alone (B moved out of reach: one box
//! test), the walk with no triangle tests, and the whole all-contacts query. The clock is the
//! caller's (the core has none), so the viewer, `obbtree bench`, the experiments and the
//! criterion bench measure C_v and C_p the same way.

use super::contacts::Contacts;
use super::triangles::Triangles;
use super::walk::{Control, Counts, LeafPair, Visitor, Walk};
use crate::bv::{BoundingVolume, OverlapOptions};
use crate::bvh::Bvh;
use crate::math::{Matrix3, Real, Vector};

/// Fewer box tests than this between the walk with no triangle tests and the set-up walk, or
/// fewer triangle tests, and the constant is not measured: the difference of two times would
/// be mostly noise.
pub const MIN_TESTS: u64 = 64;

/// One of the three walks a measurement times ([`CostProbe::run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostWalk {
    /// B moved out of reach of A: the query's set-up and one box test (T_0 + C_v).
    SetUp,
    /// The walk with every leaf pair skipped: T_0 + N_v·C_v.
    Boxes,
    /// The all-contacts query: T_0 + N_v·C_v + N_p·C_p.
    Query,
}

/// The visitor of [`CostWalk::Boxes`]: leaf pairs are counted, not tested.
struct NoTriangles;

impl<B: BoundingVolume> Visitor<B> for NoTriangles {
    const HEARS_PAIRS: bool = false;

    #[inline(always)]
    fn leaves(&mut self, _: LeafPair, _: &mut Triangles<'_>) -> Control {
        Control::Continue
    }
}

/// The three walks of one query: `a` against `b` placed in A's frame by
/// `x_a = rot_ab · x_b + pos_ab`.
pub struct CostProbe<'a, B: BoundingVolume> {
    a: &'a Bvh<B>,
    b: &'a Bvh<B>,
    rot_ab: Matrix3,
    pos_ab: Vector,
    /// Where B is out of reach of A: along x, beyond both bounding spheres.
    away: Vector,
    overlap: OverlapOptions,
    contacts: Vec<(u32, u32)>,
}

impl<'a, B: BoundingVolume> CostProbe<'a, B> {
    /// The walks of the query of `a` against `b` at `(rot_ab, pos_ab)` with `overlap`.
    pub fn new(
        a: &'a Bvh<B>,
        b: &'a Bvh<B>,
        rot_ab: &Matrix3,
        pos_ab: &Vector,
        overlap: &OverlapOptions,
    ) -> Self {
        let reach: Real = 4.0 * (a.reach() + b.reach()) + 1.0;
        CostProbe {
            a,
            b,
            rot_ab: *rot_ab,
            pos_ab: *pos_ab,
            away: Vector::new(reach, 0.0, 0.0),
            overlap: *overlap,
            contacts: Vec::new(),
        }
    }

    /// Runs one walk and returns its counts.
    #[inline(never)]
    pub fn run(&mut self, walk: CostWalk) -> Counts {
        let (a, b, rot) = (self.a, self.b, &self.rot_ab);
        match walk {
            CostWalk::SetUp => {
                let mut w = Walk::new(a, b, rot, &self.away, &self.overlap, 0.0, false);
                w.root(&mut NoTriangles);
                w.counts()
            }
            CostWalk::Boxes => {
                let mut w = Walk::new(a, b, rot, &self.pos_ab, &self.overlap, 0.0, false);
                w.root(&mut NoTriangles);
                w.counts()
            }
            CostWalk::Query => {
                let storage = std::mem::take(&mut self.contacts);
                let mut v = Contacts::with_storage(false, None, storage);
                v.contacts.clear();
                let mut w = Walk::new(a, b, rot, &self.pos_ab, &self.overlap, 0.0, false);
                w.root(&mut v);
                self.contacts = v.contacts;
                w.counts()
            }
        }
    }
}

/// Eq. (1)'s terms for one query, from the times of its three walks (seconds per walk).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Costs {
    /// N_v and N_p of the all-contacts query.
    pub counts: Counts,
    /// Seconds per walk: [`CostWalk::SetUp`], [`CostWalk::Boxes`], [`CostWalk::Query`].
    pub set_up: f64,
    /// See `set_up`.
    pub boxes: f64,
    /// See `set_up`.
    pub query: f64,
}

impl Costs {
    /// C_v, seconds per box test: `(T_boxes − T_set_up) / (N_v − 1)`; `None` where fewer than
    /// [`MIN_TESTS`] box tests separate the two walks.
    pub fn c_v(&self) -> Option<f64> {
        let n = self.counts.bv_tests.saturating_sub(1);
        (n >= MIN_TESTS).then(|| ((self.boxes - self.set_up) / n as f64).max(0.0))
    }

    /// C_p, seconds per triangle test: `(T_query − T_boxes) / N_p`; `None` below
    /// [`MIN_TESTS`] triangle tests.
    pub fn c_p(&self) -> Option<f64> {
        let n = self.counts.tri_tests;
        (n >= MIN_TESTS).then(|| ((self.query - self.boxes) / n as f64).max(0.0))
    }

    /// T_0, the query's fixed cost in seconds: the set-up walk less its one box test (less
    /// nothing where C_v is not measured).
    pub fn t_0(&self) -> f64 {
        (self.set_up - self.c_v().unwrap_or(0.0)).max(0.0)
    }

    /// Eq. (1)'s prediction for a query of `counts` (seconds): `T_0 + N_v·C_v + N_p·C_p`, the
    /// unmeasured constants taken as 0.
    pub fn predict(&self, counts: &Counts) -> f64 {
        self.t_0()
            + counts.bv_tests as f64 * self.c_v().unwrap_or(0.0)
            + counts.tri_tests as f64 * self.c_p().unwrap_or(0.0)
    }
}

/// Times the three walks of `probe` with `now` (a clock in seconds): each walk is repeated
/// until a batch takes at least `batch` seconds, the three alternate over `rounds` rounds, and
/// each time is the median of its rounds, per walk.
pub fn measure<B: BoundingVolume>(
    probe: &mut CostProbe<'_, B>,
    now: &mut dyn FnMut() -> f64,
    batch: f64,
    rounds: usize,
) -> Costs {
    let walks = [CostWalk::SetUp, CostWalk::Boxes, CostWalk::Query];
    let counts = probe.run(CostWalk::Query);
    // Repetitions per batch, found by doubling, for each walk.
    let reps = walks.map(|walk| {
        let mut n = 1usize;
        loop {
            let t = timed_batch(probe, walk, n, now);
            if t >= batch || n >= 1 << 20 {
                return n;
            }
            n *= 2;
        }
    });
    let mut times = [const { Vec::new() }; 3];
    for _ in 0..rounds.max(1) {
        for (k, &walk) in walks.iter().enumerate() {
            times[k].push(timed_batch(probe, walk, reps[k], now) / reps[k] as f64);
        }
    }
    let [set_up, boxes, query] = times.map(|mut t| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    });
    Costs {
        counts,
        set_up,
        boxes,
        query,
    }
}

/// Seconds taken by `n` runs of `walk`.
fn timed_batch<B: BoundingVolume>(
    probe: &mut CostProbe<'_, B>,
    walk: CostWalk,
    n: usize,
    now: &mut dyn FnMut() -> f64,
) -> f64 {
    let start = now();
    for _ in 0..n {
        std::hint::black_box(probe.run(walk));
    }
    now() - start
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bv::{Aabb, Obb};
    use crate::bvh::BuildOptions;
    use crate::mesh::TriMesh;
    use crate::query::{CollideWith, CollisionReport, QueryOptions, collide_with};

    fn grid(n: u32, z: f64) -> TriMesh {
        let mut v = Vec::new();
        let mut t = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let k = v.len() as u32;
                let (x, y) = (i as f64, j as f64);
                v.extend(
                    [[x, y, z], [x + 1.0, y, z], [x, y + 1.0, z]].map(crate::math::Point::from),
                );
                t.push([k, k + 1, k + 2]);
            }
        }
        TriMesh::new(v, t, "grid").unwrap()
    }

    /// The walks' counts: the set-up walk one box test and no triangle test; the other two the
    /// counts of the all-contacts query (the oracle: `collide_with`), on OBB and AABB trees.
    fn check<B: BoundingVolume>() {
        let a = Bvh::<B>::build(grid(12, 0.0), &BuildOptions::default());
        let b = Bvh::<B>::build(grid(12, 0.0), &BuildOptions::default());
        let rot = crate::math::UnitQuaternion::from_euler_angles(1.2, 0.1, 0.3)
            .to_rotation_matrix()
            .into_inner();
        let pos = Vector::new(5.5, 5.0, 0.0);
        let mut report = CollisionReport::default();
        let options = QueryOptions::default();
        collide_with(
            &a,
            &b,
            &rot,
            &pos,
            &options,
            CollideWith::default(),
            &mut report,
        );
        let mut probe = CostProbe::new(&a, &b, &rot, &pos, &options.overlap);
        let expected = Counts {
            bv_tests: report.bv_tests,
            tri_tests: report.tri_tests,
        };
        assert_eq!(probe.run(CostWalk::Query), expected);
        assert_eq!(probe.run(CostWalk::Boxes), expected);
        let set_up = Counts {
            bv_tests: 1,
            tri_tests: 0,
        };
        assert_eq!(probe.run(CostWalk::SetUp), set_up);
    }

    #[test]
    fn walks_count_as_the_query() {
        check::<Obb>();
        check::<Aabb>();
    }

    /// The algebra of eq. (1) on given times: C_v, C_p and T_0 recovered exactly, a dash
    /// (`None`) below [`MIN_TESTS`], and the prediction of the query's own counts its time.
    #[test]
    fn costs_from_times() {
        let (t0, cv, cp) = (2e-6, 9e-9, 40e-9);
        let counts = Counts {
            bv_tests: 1001,
            tri_tests: 100,
        };
        let costs = Costs {
            counts,
            set_up: t0 + cv,
            boxes: t0 + 1001.0 * cv,
            query: t0 + 1001.0 * cv + 100.0 * cp,
        };
        assert!((costs.c_v().unwrap() - cv).abs() < 1e-15);
        assert!((costs.c_p().unwrap() - cp).abs() < 1e-15);
        assert!((costs.t_0() - t0).abs() < 1e-15);
        assert!((costs.predict(&counts) - costs.query).abs() < 1e-12);
        let few = Costs {
            counts: Counts {
                bv_tests: MIN_TESTS,
                tri_tests: MIN_TESTS - 1,
            },
            ..costs
        };
        assert_eq!((few.c_v(), few.c_p()), (None, None));
    }
}
