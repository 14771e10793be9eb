//! The triangle–triangle test on general `f64` coordinates, where floating-point arithmetic is
//! not exact (issue 10): touching pairs built so that the contact is exact — a shared vertex, a
//! shared edge, a triangle against itself, a vertex exactly on an edge or inside a face, edges
//! crossing at an exact point, coplanar pairs, degenerate triangles (repeated or exactly
//! collinear corners) — and their near misses one ulp away, at ordinary and extreme scales.
//!
//! Oracle: `common::exact_intersect_f64`, a separating axis test in big-integer arithmetic on the
//! coordinates converted exactly (independent of the library's predicates). The constructions
//! never decide the expected answer; they only make touching frequent, and where a contact is
//! exact by construction the oracle is also required to find it. The oracle itself is checked
//! against the integer oracle of `tests/tri_tri.rs` on integer triangles, and against the full
//! candidate axis set on float triangles. Each property also requires a share of both answers,
//! so that it can fail.
//!
//! The full query on soups of such pairs (B placed by an exact or a general rigid motion) must
//! report exactly the oracle's pairs with OBB, AABB and sphere trees: bounding volumes must never
//! reject a touching pair. Also the two reproducers of the issue, through `triangles_intersect`,
//! through OBJ loading and through the full query with each tree type; and models whose
//! coordinates leave the normal range of single precision (the volumes are stored as `f32`):
//! tiny ones must still touch, huge ones are refused with a typed error.

mod common;
use common::*;
use obbtree::math::Point;
use obbtree::prelude::*;
use obbtree::query::triangles_intersect;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::cell::Cell;

const CASES: u32 = 20_000;

// ---------------------------------------------------------------------------------------------
// Running a property with statistics.

#[derive(Default)]
struct Stats {
    cases: Cell<usize>,
    touching: Cell<usize>,
    coplanar: Cell<usize>,
    degenerate: Cell<usize>,
}

impl Stats {
    fn bump(c: &Cell<usize>) {
        c.set(c.get() + 1);
    }
    fn record(&self, p: &[Point; 3], q: &[Point; 3], touching: bool) {
        Stats::bump(&self.cases);
        if touching {
            Stats::bump(&self.touching);
        }
        if exactly_coplanar(p, q) {
            Stats::bump(&self.coplanar);
        }
        if exactly_degenerate(p) || exactly_degenerate(q) {
            Stats::bump(&self.degenerate);
        }
    }
    fn report(&self, name: &str) {
        let n = self.cases.get();
        eprintln!(
            "{name}: {n} cases, {} touching, {} apart, {} exactly coplanar, {} with a degenerate triangle",
            self.touching.get(),
            n - self.touching.get(),
            self.coplanar.get(),
            self.degenerate.get()
        );
    }
    /// At least `fraction` of the cases touch, and at least `fraction` do not.
    fn require_both(&self, fraction: f64) {
        let n = self.cases.get() as f64;
        let t = self.touching.get() as f64;
        assert!(t >= fraction * n, "too few touching cases: {t} of {n}");
        assert!(
            n - t >= fraction * n,
            "too few separated cases: {} of {n}",
            n - t
        );
    }
}

fn run<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value, &Stats) -> Result<(), TestCaseError>,
) -> Stats {
    let mut runner = TestRunner::new(Config {
        cases,
        source_file: Some(file!()),
        ..Config::default()
    });
    let stats = Stats::default();
    if let Err(e) = runner.run(&strategy, |v| test(v, &stats)) {
        panic!("{name}: {e}");
    }
    stats.report(name);
    stats
}

fn fmt(t: &[Point; 3]) -> String {
    format!("{:?}", t.map(|p| [p.x, p.y, p.z]))
}

/// The oracle's answer for (p, q), after requiring the library to give it on the pair, on the
/// pair swapped, and with each triangle's corners rotated and reversed.
fn check(p: &[Point; 3], q: &[Point; 3], stats: &Stats) -> Result<bool, TestCaseError> {
    let expected = exact_intersect_f64(p, q);
    let rot = |t: &[Point; 3], k: usize| [t[k % 3], t[(k + 1) % 3], t[(k + 2) % 3]];
    let rev = |t: &[Point; 3]| [t[0], t[2], t[1]];
    for k in 0..3 {
        let (pk, qk) = (rot(p, k), rot(q, (k + 1) % 3));
        for (a, b) in [(pk, qk), (qk, pk), (rev(&pk), qk), (pk, rev(&qk))] {
            prop_assert_eq!(
                triangles_intersect(&a, &b),
                expected,
                "oracle says {}\np = {}\nq = {}\n(tested as {} against {})",
                if expected { "touching" } else { "apart" },
                fmt(p),
                fmt(q),
                fmt(&a),
                fmt(&b)
            );
        }
    }
    stats.record(p, q, expected);
    Ok(expected)
}

// ---------------------------------------------------------------------------------------------
// Float inputs.

fn decimal(n: i64, k: u32) -> f64 {
    format!("{n}e-{k}").parse().unwrap()
}

/// A general double: uniform in [-1, 1], OBJ-like decimals (7 or 16–17 significant digits, as
/// -0.82093099999999997), or uniform values scaled over a range of binary exponents.
fn coord() -> BoxedStrategy<f64> {
    (prop_oneof![
        -1.0f64..1.0,
        (-9_999_999i64..=9_999_999, 0u32..=7).prop_map(|(n, k)| decimal(n, k)),
        (
            -99_999_999_999_999_999i64..=99_999_999_999_999_999,
            16u32..=17
        )
            .prop_map(|(n, k)| decimal(n, k)),
        (-1.0f64..1.0, -30i32..=30).prop_map(|(x, s)| x * 2f64.powi(s)),
    ])
    .boxed()
}

fn point() -> BoxedStrategy<Point> {
    ([coord(), coord(), coord()].prop_map(|[x, y, z]| Point::new(x, y, z))).boxed()
}

fn triangle() -> BoxedStrategy<[Point; 3]> {
    ([point(), point(), point()]).boxed()
}

/// A one-ulp move of one coordinate.
#[derive(Clone, Copy, Debug)]
enum Nudge {
    None,
    /// One corner of q, along an axis, up or down.
    Corner(usize, usize, bool),
    /// Every corner of q along an axis, up or down.
    Whole(usize, bool),
}

fn nudge() -> impl Strategy<Value = Nudge> {
    prop_oneof![
        2 => Just(Nudge::None),
        1 => (0usize..3, 0usize..3, any::<bool>()).prop_map(|(c, k, up)| Nudge::Corner(c, k, up)),
        1 => (0usize..3, any::<bool>()).prop_map(|(k, up)| Nudge::Whole(k, up)),
    ]
}

fn ulp_step(x: f64, up: bool) -> f64 {
    if up { x.next_up() } else { x.next_down() }
}

impl Nudge {
    fn apply(self, q: &mut [Point; 3]) {
        match self {
            Nudge::None => {}
            Nudge::Corner(c, k, up) => q[c][k] = ulp_step(q[c][k], up),
            Nudge::Whole(k, up) => q.iter_mut().for_each(|v| v[k] = ulp_step(v[k], up)),
        }
    }
    fn is_none(self) -> bool {
        matches!(self, Nudge::None)
    }
}

// ---------------------------------------------------------------------------------------------
// Exact constructions.

/// `u`, `v` moved by at most a rounding error of their sum so that `u + v` is exact, and their
/// midpoint (exact). Fast2Sum: with |u| ≥ |v| and s = fl(u + v), s − u is exact.
fn mid1(u: f64, v: f64) -> (f64, f64, f64) {
    let s = u + v;
    let (u, v) = if u.abs() >= v.abs() {
        (u, s - u)
    } else {
        (s - v, v)
    };
    (u, v, s * 0.5)
}

/// Two doubles with midpoint exactly `x`, the first ≈ `lam · 2x` (lam in [-1, 1]): with y = 2x,
/// t = fl(lam · y) (|t| ≤ |y|) and v = fl(y − t), y − v is exact (Fast2Sum).
fn split1(x: f64, lam: f64) -> (f64, f64) {
    let y = 2.0 * x;
    let v = y - lam * y;
    (y - v, v)
}

fn mid(u: Point, v: Point) -> (Point, Point, Point) {
    let c: [(f64, f64, f64); 3] = std::array::from_fn(|k| mid1(u[k], v[k]));
    (
        Point::new(c[0].0, c[1].0, c[2].0),
        Point::new(c[0].1, c[1].1, c[2].1),
        Point::new(c[0].2, c[1].2, c[2].2),
    )
}

fn split(x: Point, lam: [f64; 3]) -> (Point, Point) {
    let c: [(f64, f64); 3] = std::array::from_fn(|k| split1(x[k], lam[k]));
    (
        Point::new(c[0].0, c[1].0, c[2].0),
        Point::new(c[0].1, c[1].1, c[2].1),
    )
}

/// How one side of a pair is built around a point x that it contains exactly.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// x is a corner.
    Vertex,
    /// x is the midpoint of an edge.
    Edge,
    /// x is on an edge parallel to a coordinate axis (any double between its ends is on it).
    AxisEdge,
    /// x = a/2 + b/4 + c/4, inside the face.
    Face,
    /// Three corners at x.
    Pt,
    /// A segment (repeated corner) ending at x.
    SegEnd,
    /// A segment (repeated corner) with midpoint x.
    SegMid,
    /// Three exactly collinear corners u, v and their midpoint x.
    Collinear,
    /// Unrelated to x: a random triangle.
    Random,
    /// Unrelated to x: a random segment (repeated corner).
    RandomSeg,
}

const TRIANGLE_KINDS: [Kind; 4] = [Kind::Vertex, Kind::Edge, Kind::AxisEdge, Kind::Face];
const DEGENERATE_KINDS: [Kind; 4] = [Kind::Pt, Kind::SegEnd, Kind::SegMid, Kind::Collinear];
const ALL_KINDS: [Kind; 10] = [
    Kind::Vertex,
    Kind::Edge,
    Kind::AxisEdge,
    Kind::Face,
    Kind::Pt,
    Kind::SegEnd,
    Kind::SegMid,
    Kind::Collinear,
    Kind::Random,
    Kind::RandomSeg,
];

impl Kind {
    fn contains_x(self) -> bool {
        !matches!(self, Kind::Random | Kind::RandomSeg)
    }

    /// A shape of this kind from free points; x is defined by it (None if unrelated).
    fn free(self, t: &[Point; 3], lam: [f64; 3], axis: usize) -> ([Point; 3], Option<Point>) {
        let [t0, t1, t2] = *t;
        match self {
            Kind::Vertex => ([t0, t1, t2], Some(t0)),
            Kind::AxisEdge => (
                Kind::AxisEdge.through(t0, &[t2, t1, t2], [lam; 2], axis),
                Some(t0),
            ),
            Kind::Edge => {
                let (u, v, x) = mid(t0, t1);
                ([u, v, t2], Some(x))
            }
            Kind::Face => {
                let (a, m, x) = mid(t0, t1);
                let (b, c) = split(m, lam);
                ([a, b, c], Some(x))
            }
            Kind::Pt => ([t0; 3], Some(t0)),
            Kind::SegEnd => ([t0, t1, t1], Some(t0)),
            Kind::SegMid => {
                let (u, v, x) = mid(t0, t1);
                ([u, v, v], Some(x))
            }
            Kind::Collinear => {
                let (u, v, x) = mid(t0, t1);
                ([u, x, v], Some(x))
            }
            Kind::Random => ([t0, t1, t2], None),
            Kind::RandomSeg => ([t0, t1, t1], None),
        }
    }

    /// A shape of this kind around x.
    fn through(self, x: Point, t: &[Point; 3], lam: [[f64; 3]; 2], axis: usize) -> [Point; 3] {
        let [t0, t1, t2] = *t;
        match self {
            Kind::Vertex => [x, t0, t1],
            Kind::AxisEdge => {
                // x_k − |a| ≤ x_k ≤ x_k + |b| after rounding too.
                let (mut u, mut v) = (x, x);
                u[axis] = x[axis] - t1[axis].abs();
                v[axis] = x[axis] + t1[(axis + 1) % 3].abs();
                [u, v, t0]
            }
            Kind::Edge => {
                let (u, v) = split(x, lam[0]);
                [u, v, t0]
            }
            Kind::Face => {
                let (a, m) = split(x, lam[0]);
                let (b, c) = split(m, lam[1]);
                [a, b, c]
            }
            Kind::Pt => [x; 3],
            Kind::SegEnd => [x, t0, t0],
            Kind::SegMid => {
                let (u, v) = split(x, lam[0]);
                [u, v, v]
            }
            Kind::Collinear => {
                let (u, v) = split(x, lam[0]);
                [v, u, x]
            }
            Kind::Random => [t0, t1, t2],
            Kind::RandomSeg => [t0, t1, t1],
        }
    }
}

fn lam() -> impl Strategy<Value = [f64; 3]> {
    [-1.0f64..=1.0, -1.0f64..=1.0, -1.0f64..=1.0]
}

/// A pair built around a common point (when both kinds contain it), before any nudge.
#[derive(Clone, Debug)]
struct Case {
    p: [Point; 3],
    q: [Point; 3],
    /// A contact by construction (the oracle must agree).
    touching: bool,
}

fn around(kinds_p: &'static [Kind], kinds_q: &'static [Kind]) -> BoxedStrategy<Case> {
    ((
        prop::sample::select(kinds_p),
        prop::sample::select(kinds_q),
        triangle(),
        triangle(),
        lam(),
        [lam(), lam()],
        [0usize..3, 0usize..3],
    )
        .prop_map(|(kp, kq, tp, tq, lp, lq, [ap, aq])| {
            let (p, x) = kp.free(&tp, lp, ap);
            let x = x.unwrap_or(tp[0]);
            let q = kq.through(x, &tq, lq, aq);
            Case {
                p,
                q,
                touching: kp.contains_x() && kq.contains_x(),
            }
        }))
    .boxed()
}

/// Checks one case with a nudge applied to q; a contact by construction must be one for the
/// oracle too.
fn check_case(case: &Case, n: Nudge, stats: &Stats) -> Result<bool, TestCaseError> {
    let mut q = case.q;
    n.apply(&mut q);
    if case.touching && n.is_none() {
        prop_assert!(
            exact_intersect_f64(&case.p, &q),
            "construction: a contact by construction, the oracle disagrees: p = {}, q = {}",
            fmt(&case.p),
            fmt(&q)
        );
    }
    check(&case.p, &q, stats)
}

// ---------------------------------------------------------------------------------------------
// The oracle itself.

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    /// On integer triangles (f64 exact) scaled by a power of two, the float oracle gives the
    /// integer oracle's answer.
    #[test]
    fn float_oracle_agrees_with_the_integer_oracle((p, q) in int_triangle_pair(), s in -80i32..=80) {
        let expected = exact_intersect(&p, &q);
        let scale = |t: &[[i64; 3]; 3]| to_points(t).map(|v| v * 2f64.powi(s));
        prop_assert_eq!(exact_intersect_f64(&scale(&p), &scale(&q)), expected, "p = {:?}, q = {:?}", p, q);
    }
}

fn any_case() -> BoxedStrategy<Case> {
    (prop_oneof![
        around(&TRIANGLE_KINDS, &TRIANGLE_KINDS),
        around(&DEGENERATE_KINDS, &ALL_KINDS),
        coplanar_case(),
        (triangle(), 0usize..3, 0usize..3).prop_map(|(p, i, j)| {
            let mut q = p;
            q.rotate_left(i);
            q[j] = Point::new(q[j].x.next_up(), q[j].y.next_up(), q[j].z.next_up());
            Case {
                p,
                q,
                touching: false,
            }
        }),
    ])
    .boxed()
}

/// The reduced candidate axes agree with the full candidate set of the integer oracle (in big
/// integers) on float triangles.
#[test]
fn reduced_axes_agree_with_all_axes_on_floats() {
    let stats = run(
        "reduced vs all axes",
        1_000,
        (any_case(), nudge()),
        |(case, n), stats| {
            let mut q = case.q;
            n.apply(&mut q);
            let expected = exact_intersect_f64_all_axes(&case.p, &q);
            prop_assert_eq!(
                exact_intersect_f64(&case.p, &q),
                expected,
                "p = {}, q = {}",
                fmt(&case.p),
                fmt(&q)
            );
            stats.record(&case.p, &q, expected);
            Ok(())
        },
    );
    stats.require_both(0.1);
}

// ---------------------------------------------------------------------------------------------
// Touching by construction, and one ulp away.

#[test]
fn shared_vertex() {
    let stats = run(
        "shared vertex",
        CASES,
        (triangle(), triangle(), 0usize..3, 0usize..3, nudge()),
        |(p, mut q, i, j, n), stats| {
            q[j] = p[i];
            let n = match n {
                Nudge::Corner(_, k, up) => Nudge::Corner(j, k, up), // move the shared vertex
                n => n,
            };
            check_case(
                &Case {
                    p,
                    q,
                    touching: true,
                },
                n,
                stats,
            )?;
            Ok(())
        },
    );
    stats.require_both(0.05);
}

#[test]
fn shared_edge() {
    let stats = run(
        "shared edge",
        CASES,
        (
            triangle(),
            triangle(),
            0usize..3,
            0usize..3,
            any::<bool>(),
            nudge(),
        ),
        |(p, mut q, i, j, flip, n), stats| {
            q[j] = p[i];
            q[(j + 1) % 3] = p[if flip { (i + 2) % 3 } else { (i + 1) % 3 }];
            let n = match n {
                Nudge::Corner(_, k, up) => Nudge::Corner(j, k, up),
                n => n,
            };
            check_case(
                &Case {
                    p,
                    q,
                    touching: true,
                },
                n,
                stats,
            )?;
            Ok(())
        },
    );
    stats.require_both(0.05);
}

#[test]
fn triangle_against_itself() {
    let stats = run(
        "triangle against itself",
        CASES,
        (triangle(), 0usize..3, any::<bool>(), nudge()),
        |(p, k, reverse, n), stats| {
            let mut q = p;
            q.rotate_left(k);
            if reverse {
                q.swap(1, 2);
            }
            check_case(
                &Case {
                    p,
                    q,
                    touching: true,
                },
                n,
                stats,
            )?;
            Ok(())
        },
    );
    stats.require_both(0.05);
}

/// A vertex exactly on an edge (its exact midpoint, or anywhere on an axis-parallel edge) or
/// inside a face of the other triangle, edges crossing at an exact point, an edge through a face
/// at an exact point.
#[test]
fn vertex_on_edge_or_face() {
    let stats = run(
        "vertex on edge or face",
        CASES,
        (around(&TRIANGLE_KINDS, &TRIANGLE_KINDS), nudge()),
        |(case, n), stats| {
            check_case(&case, n, stats)?;
            Ok(())
        },
    );
    stats.require_both(0.05);
}

/// Degenerate triangles — a point, a segment with a repeated corner, three exactly collinear
/// corners — through an exact common point with any other shape, or unrelated to it.
#[test]
fn degenerate_triangles() {
    let stats = run(
        "degenerate triangles",
        CASES,
        (around(&DEGENERATE_KINDS, &ALL_KINDS), nudge()),
        |(case, n), stats| {
            check_case(&case, n, stats)?;
            Ok(())
        },
    );
    stats.require_both(0.05);
    assert!(stats.degenerate.get() * 2 >= stats.cases.get());
}

/// Collinear segments on one exact line: sub-segments, shared endpoints, one ulp apart.
#[test]
fn collinear_segments_on_one_line() {
    let stats = run(
        "collinear segments",
        CASES,
        (point(), point(), 0usize..6, nudge()),
        |(a, b, mode, n), stats| {
            let (u, v, x) = mid(a, b);
            let (p, q) = match mode {
                0 => ([u, v, x], [x, v, v]),
                1 => ([u, x, x], [x, v, v]),
                2 => ([u, x, u], [v, v, x]),
                3 => ([u, v, x], [x, x, x]),
                4 => ([u, u, x], [v, v, v]),
                _ => ([u, v, v], [u, x, v]),
            };
            check_case(
                &Case {
                    p,
                    q,
                    touching: mode != 4,
                },
                n,
                stats,
            )?;
            Ok(())
        },
    );
    stats.require_both(0.05);
}

// ---------------------------------------------------------------------------------------------
// Coplanar pairs.

/// A plane holding 2D points exactly: (s, t) ↦ (s, t, c) or (s, ±s, t), then a signed
/// permutation of the coordinates (all exact).
#[derive(Clone, Copy, Debug)]
struct PlaneMap {
    diagonal: Option<bool>,
    c: f64,
    perm: usize,
    signs: u8,
}

impl PlaneMap {
    fn map(&self, p: Point) -> Point {
        let (s, t) = (p.x, p.y);
        let base = match self.diagonal {
            None => [s, t, self.c],
            Some(neg) => [s, if neg { -s } else { s }, t],
        };
        const PERMS: [[usize; 3]; 6] = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let k = PERMS[self.perm];
        let c: [f64; 3] = std::array::from_fn(|i| {
            let x = base[k[i]];
            if self.signs & (1 << i) != 0 { -x } else { x }
        });
        Point::new(c[0], c[1], c[2])
    }
}

fn plane_map() -> impl Strategy<Value = PlaneMap> {
    (
        prop_oneof![Just(None), any::<bool>().prop_map(Some)],
        coord(),
        0usize..6,
        0u8..8,
    )
        .prop_map(|(diagonal, c, perm, signs)| PlaneMap {
            diagonal,
            c,
            perm,
            signs,
        })
}

/// Points k · 2^-26 with |k| < 2^26 (29 significant bits at most after the lattice sums below),
/// so that a + i·d1 + j·d2 is exact for |i|, |j| ≤ 3; products in a determinant are not.
fn grid_point() -> impl Strategy<Value = Point> {
    let g = (-(1i64 << 26) + 1..(1i64 << 26)).prop_map(|k| k as f64 / (1u64 << 26) as f64);
    [g.clone(), g.clone(), g].prop_map(|[x, y, z]| Point::new(x, y, z))
}

fn coplanar_case() -> BoxedStrategy<Case> {
    let in_plane = (
        plane_map(),
        prop_oneof![
            3 => around(&ALL_KINDS, &ALL_KINDS),
            1 => (triangle(), triangle(), 0usize..3, 0usize..3).prop_map(|(p, mut q, i, j)| {
                q[j] = p[i];
                q[(j + 1) % 3] = p[(i + 1) % 3];
                Case { p, q, touching: true }
            }),
            1 => (triangle(), 0usize..3).prop_map(|(p, k)| {
                let mut q = p;
                q.rotate_left(k);
                Case { p, q, touching: true }
            }),
        ],
    )
        .prop_map(|(plane, c)| Case {
            p: c.p.map(|v| plane.map(v)),
            q: c.q.map(|v| plane.map(v)),
            touching: c.touching,
        });
    // A plane of general normal through lattice points, coordinates scaled by 2^s.
    let lattice = (
        grid_point(),
        grid_point(),
        grid_point(),
        prop::array::uniform6([-3i32..=3, -3i32..=3]),
        -20i32..=20,
    )
        .prop_map(|(a, d1, d2, ij, s)| {
            let at = |[i, j]: [i32; 2]| {
                Point::from((a.coords + d1.coords * i as f64 + d2.coords * j as f64) * 2f64.powi(s))
            };
            Case {
                p: [at(ij[0]), at(ij[1]), at(ij[2])],
                q: [at(ij[3]), at(ij[4]), at(ij[5])],
                touching: false,
            }
        });
    prop_oneof![3 => in_plane, 1 => lattice].boxed()
}

#[test]
fn coplanar_pairs() {
    let stats = run(
        "coplanar pairs",
        CASES,
        (coplanar_case(), nudge()),
        |(case, n), stats| {
            check_case(&case, n, stats)?;
            Ok(())
        },
    );
    stats.require_both(0.05);
    assert!(
        stats.coplanar.get() * 2 >= stats.cases.get(),
        "most cases must be exactly coplanar"
    );
}

// ---------------------------------------------------------------------------------------------
// Extreme magnitudes.

/// All of the above scaled by 2^s over the whole exponent range (exact, except where the result
/// is subnormal: then the configuration changes, and the oracle still decides).
#[test]
fn extreme_scales() {
    let stats = run(
        "extreme scales",
        CASES,
        (any_case(), nudge(), -1070i32..=1015),
        |(case, n, s), stats| {
            let mut q = case.q;
            n.apply(&mut q);
            // No overflow: the largest magnitude stays below 2^1020.
            let max = case
                .p
                .iter()
                .chain(&q)
                .flat_map(|v| v.iter().map(|c| c.abs()))
                .fold(0.0, f64::max);
            let s = s.min(1020 - max.log2().ceil() as i32);
            let f = 2f64.powi(s);
            let scale = |t: [Point; 3]| t.map(|v| v * f);
            check(&scale(case.p), &scale(q), stats)?;
            Ok(())
        },
    );
    stats.require_both(0.05);
}

// ---------------------------------------------------------------------------------------------
// The reproducers of issue 10.

const SELF_OBJ: &str = "\
v -0.047541 -0.1345746 0.1682382
v -0.0399540000000001 -0.1422036 0.1897743
v -0.038577 -0.1365486 0.1897743
f 1 2 3
";

const SHARED_A_OBJ: &str = "\
v -0.825668 2.4945 -1.125061
v -0.82093099999999997 2.482687 -1.118607
v -0.639915 2.482687 -1.229959
f 1 2 3
";

const SHARED_B_OBJ: &str = "\
v -0.987042 2.4945 -0.987042
v -0.98138 2.482687 -0.98138
v -0.82093099999999997 2.482687 -1.118607
f 1 2 3
";

/// The vertices of an OBJ text, parsed by Rust's (correctly rounded) `f64::from_str`.
fn parse_vertices(obj: &str) -> Vec<Point> {
    obj.lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let c: Vec<f64> = l.split_whitespace().map(|w| w.parse().unwrap()).collect();
            Point::new(c[0], c[1], c[2])
        })
        .collect()
}

fn temp_obj(name: &str, text: &str) -> TriMesh {
    load_obj(temp_file(name, text)).unwrap()
}

/// Every intersecting pair (triangle of a, triangle of b), by the oracle.
fn oracle_pairs(a: &TriMesh, b: &TriMesh) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..a.triangle_count() {
        for j in 0..b.triangle_count() {
            if exact_intersect_f64(&a.triangle(i), &b.triangle(j)) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

fn query<B: BoundingVolume>(a: &TriMesh, b: &TriMesh) -> Vec<(u32, u32)> {
    let ta = Bvh::<B>::build(a.clone(), &BuildOptions::default());
    let tb = Bvh::<B>::build(b.clone(), &BuildOptions::default());
    let r = collide(
        &ta,
        &Isometry::identity(),
        &tb,
        &Isometry::identity(),
        &QueryOptions::default(),
    );
    r.sorted_contacts()
}

/// Requires the oracle, and the full query of `a` against `b` (identity poses) with each tree
/// type, to give exactly the `expected` pairs.
fn check_query(a: &TriMesh, b: &TriMesh, expected: &[(u32, u32)]) {
    assert_eq!(&oracle_pairs(a, b), expected, "oracle");
    assert_eq!(query::<Obb>(a, b), expected, "OBB tree");
    assert_eq!(query::<Aabb>(a, b), expected, "AABB tree");
    assert_eq!(query::<Sphere>(a, b), expected, "sphere tree");
}

#[test]
fn issue_triangle_against_itself() {
    let v = parse_vertices(SELF_OBJ);
    let t = [v[0], v[1], v[2]];
    assert!(exact_intersect_f64(&t, &t), "oracle");
    assert!(triangles_intersect(&t, &t));
    let mesh = temp_obj("self.obj", SELF_OBJ);
    assert_eq!(mesh.vertices(), &v[..], "OBJ parsing is correctly rounded");
    assert!(triangles_intersect(&mesh.triangle(0), &mesh.triangle(0)));
    check_query(&mesh, &mesh, &[(0, 0)]);
}

#[test]
fn issue_shared_vertex() {
    let (va, vb) = (parse_vertices(SHARED_A_OBJ), parse_vertices(SHARED_B_OBJ));
    let (a, b) = ([va[0], va[1], va[2]], [vb[0], vb[1], vb[2]]);
    assert_eq!(a[1], b[2], "the vertex is shared exactly");
    assert!(exact_intersect_f64(&a, &b), "oracle");
    assert!(triangles_intersect(&a, &b));
    assert!(triangles_intersect(&b, &a));
    let (ma, mb) = (
        temp_obj("shared_a.obj", SHARED_A_OBJ),
        temp_obj("shared_b.obj", SHARED_B_OBJ),
    );
    assert_eq!(ma.vertices(), &va[..], "OBJ parsing is correctly rounded");
    assert_eq!(mb.vertices(), &vb[..], "OBJ parsing is correctly rounded");
    check_query(&ma, &mb, &[(0, 0)]);
    check_query(&mb, &ma, &[(0, 0)]);
    // Both triangles in one model, against itself: every pair touches.
    let both = temp_obj(
        "shared_both.obj",
        &format!(
            "{}{}",
            SHARED_A_OBJ,
            SHARED_B_OBJ.replace("f 1 2 3", "f 4 5 6")
        ),
    );
    check_query(&both, &both, &[(0, 0), (0, 1), (1, 0), (1, 1)]);
}

// ---------------------------------------------------------------------------------------------
// The full query: bounding volumes must never reject a touching pair.

/// Where B is placed in A's frame.
#[derive(Clone, Debug)]
enum Placement {
    Identity,
    /// A signed permutation matrix, no translation: B's coordinates map exactly.
    Exact(Matrix3),
    /// A general rigid motion: the contacts become near contacts after rounding.
    General(Isometry),
}

fn placement() -> BoxedStrategy<Placement> {
    prop_oneof![
        Just(Placement::Identity),
        exact_pose().prop_map(|(m, _)| Placement::Exact(m)),
        pose(0.5).prop_map(Placement::General),
    ]
    .boxed()
}

/// Intersecting pairs of `a` against `b` placed by (rot, pos), with each tree type; each must
/// equal the oracle's set on the coordinates the query tests (B's transformed by
/// `transform_point`, as the traversal does).
fn check_full_query(
    a: &TriMesh,
    b: &TriMesh,
    rot: &Matrix3,
    pos: &Vector,
    stats: &Stats,
) -> Result<(), TestCaseError> {
    let tb: Vec<[Point; 3]> = (0..b.triangle_count())
        .map(|j| {
            b.triangle(j)
                .map(|v| obbtree::math::transform_point(rot, pos, &v))
        })
        .collect();
    let mut expected = Vec::new();
    for i in 0..a.triangle_count() {
        for (j, t) in tb.iter().enumerate() {
            let touching = exact_intersect_f64(&a.triangle(i), t);
            if touching {
                expected.push((i as u32, j as u32));
            }
            stats.record(&a.triangle(i), t, touching);
        }
    }
    fn tree<B: BoundingVolume>(m: &TriMesh) -> Bvh<B> {
        Bvh::<B>::build(m.clone(), &BuildOptions::default())
    }
    let got = [
        contacts_relative(&tree::<Obb>(a), &tree::<Obb>(b), rot, pos).contacts,
        contacts_relative(&tree::<Aabb>(a), &tree::<Aabb>(b), rot, pos).contacts,
        contacts_relative(&tree::<Sphere>(a), &tree::<Sphere>(b), rot, pos).contacts,
    ];
    for (kind, g) in ["OBB", "AABB", "sphere"].iter().zip(&got) {
        prop_assert_eq!(
            g,
            &expected,
            "{} tree; A = {:?}\nB placed = {:?}",
            kind,
            (0..a.triangle_count())
                .map(|i| fmt(&a.triangle(i)))
                .collect::<Vec<_>>(),
            tb.iter().map(fmt).collect::<Vec<_>>()
        );
    }
    Ok(())
}

/// Soups of three pairs built to touch (or one ulp apart), scaled over the whole range a mesh
/// may have (tiny models far below single precision's normal range included), B placed by an
/// exact or a general rigid motion: OBB, AABB and sphere trees report exactly the oracle's pairs.
#[test]
fn full_query_on_touching_soups() {
    let stats = run(
        "full query (per triangle pair)",
        10_000,
        (
            prop::array::uniform3((any_case(), nudge())),
            placement(),
            prop_oneof![Just(0), -1074i32..=1023],
        ),
        |(cases, place, s), stats| {
            // Scaled by 2^s, clamped so that every triangle that is not all zero keeps a
            // coordinate of magnitude at least 2^-1000 and no vertex of A or B (in B's own
            // frame) exceeds 2^99 (below `MAX_COORDINATE` = 1e30, beyond which loading refuses
            // a mesh: see `beyond_single_precision_is_refused`).
            let tri_max = |t: &[Point; 3]| {
                t.iter()
                    .flat_map(|v| v.iter().map(|x| x.abs()))
                    .fold(0.0, f64::max)
            };
            let maxima: Vec<f64> = cases
                .iter()
                .flat_map(|(c, _)| [tri_max(&c.p), tri_max(&c.q)])
                .filter(|&m| m > 0.0)
                .collect();
            let (lo, hi) = maxima.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &m| {
                (lo.min(m), hi.max(m))
            });
            // B's vertices in its own frame are R^T (q − t): up to |q|₂ + |t|₂ < 4 max(|q|∞,
            // |t|∞), so the translation counts too, and the cap is 2^97 (4 · 2^97 < 1e30).
            let hi = match &place {
                Placement::General(iso) => hi.max(iso.translation.vector.amax()),
                _ => hi,
            };
            let s = if maxima.is_empty() {
                0
            } else {
                let lowest = -1000 - lo.log2().floor() as i32;
                let highest = 97 - hi.log2().ceil() as i32;
                s.max(lowest).min(highest)
            };
            let f = 2f64.powi(s);
            let place = match place {
                Placement::General(iso) => Placement::General(Isometry::from_parts(
                    (iso.translation.vector * f).into(),
                    iso.rotation,
                )),
                other => other,
            };
            let (rot, pos) = match &place {
                Placement::Identity => (Matrix3::identity(), Vector::zeros()),
                Placement::Exact(m) => (*m, Vector::zeros()),
                Placement::General(iso) => (rot_of(iso), iso.translation.vector),
            };
            let mut va = Vec::new();
            let mut vb = Vec::new();
            for (case, n) in &cases {
                let mut q = case.q;
                n.apply(&mut q);
                let q = q.map(|v| v * f);
                va.extend(case.p.map(|v| v * f));
                // B in its own frame, so that placing it brings q (exactly, or nearly) back.
                vb.extend(q.map(|v| match &place {
                    Placement::Identity => v,
                    Placement::Exact(m) => Point::from(m.transpose() * v.coords),
                    Placement::General(iso) => iso.inverse_transform_point(&v),
                }));
            }
            let tris = vec![[0, 1, 2], [3, 4, 5], [6, 7, 8]];
            let a = TriMesh::new(va, tris.clone(), "A").unwrap();
            let b = TriMesh::new(vb, tris, "B").unwrap();
            // Counted by triangle pair (9 per soup).
            check_full_query(&a, &b, &rot, &pos, stats)
        },
    );
    stats.require_both(0.05);
}

/// Coordinates beyond the range the single-precision volumes can bound (|x| > 1e30): the load
/// is refused with a typed error naming the vertex and the limit, never a silent miss (the limit
/// itself is checked in `tests/frames.rs`).
#[test]
fn beyond_single_precision_is_refused() {
    let path = temp_file("huge.obj", "v 1e39 0 0\nv 0 1e39 0\nv 0 0 1e39\nf 1 2 3\n");
    match load_obj(&path).unwrap_err() {
        MeshError::ObjOutOfRange {
            line,
            vertex,
            value,
            ..
        } => assert_eq!((line, vertex, value), (1, 1, 1e39)),
        e => panic!("{e:?}"),
    }
}

/// Coordinates below the normal range of single precision (|x| < 1.2e-38, normal in double
/// precision): two triangles sharing a vertex, scaled by 2^-140, must touch.
/// (Found failing for OBB trees before the single-precision overlap test got an absolute slack
/// for subnormals.)
#[test]
fn below_single_precision() {
    let f = 2f64.powi(-140);
    let one = |corners: [[f64; 3]; 3]| {
        let v = corners.map(|c| Point::new(c[0] * f, c[1] * f, c[2] * f));
        TriMesh::new(v.to_vec(), vec![[0, 1, 2]], "tiny").unwrap()
    };
    let a = one([[-1.0, -1.0, -1.0], [0.0, 0.0, 0.0], [-1.0, 1.0, 0.0]]);
    let b = one([[-1.0, 0.0, 1.0], [0.0, -1.0, 0.0], [-1.0, -1.0, -1.0]]);
    check_query(&a, &b, &[(0, 0)]);
}
