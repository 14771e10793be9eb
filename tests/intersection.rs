//! The intersection of two triangles (`query::triangle_intersection`) against oracles:
//!
//! * integer-grid cases whose exact answer is known (segments, touching points, shared edges,
//!   coplanar polygons up to a hexagon, degenerate triangles), compared exactly, and their
//!   points checked on both triangles with the exact predicates;
//! * random pairs (integer grid biased to coplanar, degenerate and shared-corner pairs, and
//!   float pairs in general position): the answer is non-empty exactly when
//!   `triangles_intersect` says so; every corner of the answer lies on both closed triangles
//!   (an independent closest-point distance, tight tolerance), so by convexity the whole answer
//!   does; the answer is complete — points of the true intersection sampled by an independent
//!   method (one triangle cut by the other's plane, then kept if inside the other; for coplanar
//!   pairs a barycentric grid of one kept if inside the other) all lie on it; and swapping the
//!   arguments gives the same set.

mod common;
use common::*;
use obbtree::math::{Point, Real, Vector};
use obbtree::query::{
    Intersection, orient2d, orient3d, triangle_intersection, triangles_intersect,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn p(x: f64, y: f64, z: f64) -> Point {
    Point::new(x, y, z)
}

/// The answer's corners sorted (lexicographically), for exact comparisons.
fn sorted_points(i: &Intersection) -> Vec<[f64; 3]> {
    let mut v: Vec<[f64; 3]> = i.points().iter().map(|x| [x.x, x.y, x.z]).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}

/// Whether `x` lies on the closed triangle `t` (non-degenerate), decided exactly: on its plane
/// and inside in a projection that keeps it one-to-one.
fn exactly_on_triangle(x: &Point, t: &[Point; 3]) -> bool {
    if orient3d(x, &t[0], &t[1], &t[2]) != 0.0 {
        return false;
    }
    (0..3).any(|k| {
        let ax = ((k + 1) % 3, (k + 2) % 3);
        let pr = |q: &Point| [q[ax.0], q[ax.1]];
        let (a, b, c, y) = (pr(&t[0]), pr(&t[1]), pr(&t[2]), pr(x));
        let o = orient2d(&a, &b, &c);
        if o == 0.0 {
            return false;
        }
        let s = o.signum();
        orient2d(&a, &b, &y) * s >= 0.0
            && orient2d(&b, &c, &y) * s >= 0.0
            && orient2d(&c, &a, &y) * s >= 0.0
    })
}

fn check_known(a: [[f64; 3]; 3], b: [[f64; 3]; 3], expected: &[[f64; 3]], kind: &str) {
    let ta = a.map(|v| p(v[0], v[1], v[2]));
    let tb = b.map(|v| p(v[0], v[1], v[2]));
    for (x, y) in [(&ta, &tb), (&tb, &ta)] {
        let got = triangle_intersection(x, y);
        let name = match &got {
            Intersection::Empty => "empty",
            Intersection::Point(_) => "point",
            Intersection::Segment(..) => "segment",
            Intersection::Polygon(_) => "polygon",
        };
        assert_eq!(name, kind, "{a:?} {b:?}: {got:?}");
        let mut want = expected.to_vec();
        want.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(sorted_points(&got), want, "{a:?} {b:?}");
        assert_eq!(got.is_empty(), !triangles_intersect(x, y));
        for q in got.points() {
            for t in [x, y] {
                if obbtree::query::has_area(t) {
                    assert!(exactly_on_triangle(&q, t), "{q} not on {t:?}");
                }
            }
        }
    }
}

#[test]
fn integer_cases_have_their_exact_answers() {
    let floor = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]];
    // A wall crossing the floor triangle.
    check_known(
        floor,
        [[1.0, 1.0, -1.0], [1.0, 1.0, 1.0], [1.0, 3.0, 1.0]],
        &[[1.0, 1.0, 0.0], [1.0, 2.0, 0.0]],
        "segment",
    );
    // A wall reaching past the floor's hypotenuse: cut at x + y = 4.
    check_known(
        floor,
        [[1.0, 1.0, -2.0], [1.0, 1.0, 2.0], [1.0, 9.0, 2.0]],
        &[[1.0, 1.0, 0.0], [1.0, 3.0, 0.0]],
        "segment",
    );
    // Parallel planes.
    check_known(
        floor,
        [[0.0, 0.0, 1.0], [4.0, 0.0, 1.0], [0.0, 4.0, 1.0]],
        &[],
        "empty",
    );
    // A shared corner, planes crossing along the x axis, triangles on opposite sides of it.
    check_known(
        [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 2.0], [-2.0, 0.0, 0.0]],
        &[[0.0, 0.0, 0.0]],
        "point",
    );
    // A shared edge (a hinge).
    check_known(
        [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 2.0]],
        &[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
        "segment",
    );
    // A vertex resting on the face.
    check_known(
        floor,
        [[1.0, 1.0, 0.0], [1.0, 1.0, 2.0], [2.0, 1.0, 2.0]],
        &[[1.0, 1.0, 0.0]],
        "point",
    );
    // An edge lying in the floor's plane, entering through the floor's edge y = 0.
    check_known(
        floor,
        [[2.0, -1.0, 0.0], [2.0, 1.0, 0.0], [2.0, 0.0, 3.0]],
        &[[2.0, 0.0, 0.0], [2.0, 1.0, 0.0]],
        "segment",
    );
    // Coplanar: half of the floor.
    check_known(
        floor,
        [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 4.0, 0.0]],
        &[[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [2.0, 2.0, 0.0]],
        "polygon",
    );
    // Coplanar: shifted copy.
    check_known(
        floor,
        [[1.0, 1.0, 0.0], [5.0, 1.0, 0.0], [1.0, 5.0, 0.0]],
        &[[1.0, 1.0, 0.0], [3.0, 1.0, 0.0], [1.0, 3.0, 0.0]],
        "polygon",
    );
    // Coplanar: a hexagon.
    check_known(
        [[0.0, 0.0, 0.0], [6.0, 0.0, 0.0], [0.0, 6.0, 0.0]],
        [[4.0, 4.0, 0.0], [-2.0, 4.0, 0.0], [4.0, -2.0, 0.0]],
        &[
            [2.0, 0.0, 0.0],
            [4.0, 0.0, 0.0],
            [4.0, 2.0, 0.0],
            [2.0, 4.0, 0.0],
            [0.0, 4.0, 0.0],
            [0.0, 2.0, 0.0],
        ],
        "polygon",
    );
    // Coplanar, touching at one corner.
    check_known(
        [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        [[2.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 2.0, 0.0]],
        &[[2.0, 0.0, 0.0]],
        "point",
    );
    // Coplanar, sharing an edge.
    check_known(
        [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [2.0, 2.0, 0.0]],
        &[[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        "segment",
    );
    // A segment (repeated corner) piercing the floor.
    check_known(
        floor,
        [[1.0, 1.0, -1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
        &[[1.0, 1.0, 0.0]],
        "point",
    );
    // A segment lying across the floor.
    check_known(
        floor,
        [[-1.0, 1.0, 0.0], [5.0, 1.0, 0.0], [5.0, 1.0, 0.0]],
        &[[0.0, 1.0, 0.0], [3.0, 1.0, 0.0]],
        "segment",
    );
    // Two collinear segments overlapping.
    check_known(
        [[0.0, 0.0, 0.0], [4.0, 4.0, 4.0], [2.0, 2.0, 2.0]],
        [[1.0, 1.0, 1.0], [6.0, 6.0, 6.0], [6.0, 6.0, 6.0]],
        &[[1.0, 1.0, 1.0], [4.0, 4.0, 4.0]],
        "segment",
    );
    // Two segments crossing.
    check_known(
        [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 0.0, 0.0]],
        [[2.0, -1.0, 0.0], [2.0, 3.0, 0.0], [2.0, 3.0, 0.0]],
        &[[2.0, 0.0, 0.0]],
        "point",
    );
    // A point (three equal corners) on the floor.
    check_known(
        floor,
        [[1.0, 2.0, 0.0], [1.0, 2.0, 0.0], [1.0, 2.0, 0.0]],
        &[[1.0, 2.0, 0.0]],
        "point",
    );
}

// ---------------------------------------------------------------------------------------------
// The independent oracles for random pairs.

/// Distance from `x` to segment `a b`.
fn dist_segment(x: &Point, a: &Point, b: &Point) -> Real {
    let ab = b - a;
    let len2 = ab.norm_squared();
    let t = if len2 > 0.0 {
        ((x - a).dot(&ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (x - (a + ab * t)).norm()
}

/// Distance from `x` to the closed triangle `t` (degenerate ones as their edges): Ericson,
/// "Real-Time Collision Detection", §5.1.5, by barycentric regions.
fn dist_triangle(x: &Point, t: &[Point; 3]) -> Real {
    let [a, b, c] = t;
    let n: Vector = (b - a).cross(&(c - a));
    let edges = dist_segment(x, a, b)
        .min(dist_segment(x, b, c))
        .min(dist_segment(x, c, a));
    let n2 = n.norm_squared();
    if n2 <= 1e-30 * (b - a).norm_squared().max((c - a).norm_squared()).powi(2) {
        return edges;
    }
    // Projection onto the plane, inside test by barycentric signs.
    let d = (x - a).dot(&n) / n2;
    let y = x - n * d;
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|(u, v)| (*v - *u).cross(&(y - *u)).dot(&n) >= 0.0);
    if inside { (x - y).norm() } else { edges }
}

/// Distance from `x` to the answer (a point, a segment or a coplanar convex polygon).
fn dist_answer(x: &Point, i: &Intersection) -> Real {
    match i {
        Intersection::Empty => Real::INFINITY,
        Intersection::Point(q) => (x - q).norm(),
        Intersection::Segment(a, b) => dist_segment(x, a, b),
        Intersection::Polygon(v) => (1..v.len() - 1)
            .map(|k| dist_triangle(x, &[v[0], v[k], v[k + 1]]))
            .fold(Real::INFINITY, Real::min),
    }
}

/// Points of `t` on `u`'s plane, by plane distances and interpolation along the edges (a
/// different construction from the library's exact-sign edge tests).
fn cut_by_plane(t: &[Point; 3], u: &[Point; 3]) -> Vec<Point> {
    let n = (u[1] - u[0]).cross(&(u[2] - u[0]));
    let len = n.norm();
    if len == 0.0 {
        return Vec::new();
    }
    let n = n / len;
    let d = t.map(|x| (x - u[0]).dot(&n));
    let mut out = Vec::new();
    for k in 0..3 {
        let l = (k + 1) % 3;
        if d[k] == 0.0 {
            out.push(t[k]);
        }
        if d[k] * d[l] < 0.0 {
            out.push(t[k] + (t[l] - t[k]) * (d[k] / (d[k] - d[l])));
        }
    }
    out
}

/// Samples of the true intersection, by an independent method: (sample, distance of the sample
/// to both triangles, which is not exactly 0 after rounding).
fn samples(a: &[Point; 3], b: &[Point; 3]) -> Vec<Point> {
    let mut out = Vec::new();
    let coplanar = (0..3).all(|k| orient3d(&a[k], &b[0], &b[1], &b[2]) == 0.0);
    if coplanar {
        // A barycentric grid of `a`, kept where inside `b`.
        let m = 24;
        for i in 0..=m {
            for j in 0..=m - i {
                let (s, t) = (i as f64 / m as f64, j as f64 / m as f64);
                out.push(a[0] + (a[1] - a[0]) * s + (a[2] - a[0]) * t);
            }
        }
    } else {
        for (t, u) in [(a, b), (b, a)] {
            let cut = cut_by_plane(t, u);
            for i in 0..cut.len() {
                for j in i..cut.len() {
                    for k in 0..=50 {
                        let f = k as f64 / 50.0;
                        out.push(cut[i] + (cut[j] - cut[i]) * f);
                    }
                }
            }
        }
    }
    out
}

fn scale(a: &[Point; 3], b: &[Point; 3]) -> Real {
    a.iter()
        .chain(b.iter())
        .map(|x| x.coords.amax())
        .fold(1.0, Real::max)
}

/// Every check of the module documentation on one pair.
fn check_pair(a: &[Point; 3], b: &[Point; 3]) -> Result<(), TestCaseError> {
    let got = triangle_intersection(a, b);
    prop_assert_eq!(
        got.is_empty(),
        !triangles_intersect(a, b),
        "{:?} {:?}: {:?}",
        a,
        b,
        got
    );
    let tol = 1e-12 * scale(a, b);
    // Sound: every corner on both closed triangles.
    for q in got.points() {
        prop_assert!(
            dist_triangle(&q, a) <= tol && dist_triangle(&q, b) <= tol,
            "{} off the triangles by {:e} / {:e}: {:?} {:?}",
            q,
            dist_triangle(&q, a),
            dist_triangle(&q, b),
            a,
            b
        );
    }
    if let Intersection::Segment(u, v) = &got {
        prop_assert!(u != v, "a segment has distinct ends");
    }
    // Complete: the sampled true intersection lies on the answer. Samples within a hair of both
    // triangles (rounding of the independent construction) count as inside.
    if !got.is_empty() {
        for s in samples(a, b) {
            if dist_triangle(&s, a) <= 1e-14 * scale(a, b)
                && dist_triangle(&s, b) <= 1e-14 * scale(a, b)
            {
                let d = dist_answer(&s, &got);
                prop_assert!(
                    d <= 1e-9 * scale(a, b),
                    "sample {} of the intersection is {:e} off the answer {:?} for {:?} {:?}",
                    s,
                    d,
                    got,
                    a,
                    b
                );
            }
        }
    }
    // Symmetric: the same set either way round.
    let swapped = triangle_intersection(b, a);
    prop_assert_eq!(swapped.is_empty(), got.is_empty());
    for q in swapped.points() {
        prop_assert!(
            dist_answer(&q, &got) <= 1e-9 * scale(a, b),
            "{:?} vs {:?}",
            got,
            swapped
        );
    }
    for q in got.points() {
        prop_assert!(
            dist_answer(&q, &swapped) <= 1e-9 * scale(a, b),
            "{:?} vs {:?}",
            got,
            swapped
        );
    }
    Ok(())
}

fn float_triangle() -> impl Strategy<Value = [Point; 3]> {
    let c = -1.0f64..1.0;
    proptest::array::uniform3((c.clone(), c.clone(), c).prop_map(|(x, y, z)| p(x, y, z)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn integer_pairs_meet_the_oracles((a, b) in int_triangle_pair()) {
        check_pair(&to_points(&a), &to_points(&b))?;
    }

    #[test]
    fn float_pairs_meet_the_oracles(a in float_triangle(), b in float_triangle()) {
        check_pair(&a, &b)?;
    }

    #[test]
    fn float_pairs_sharing_a_corner_touch_there(
        a in float_triangle(), b in float_triangle(), i in 0usize..3, j in 0usize..3,
    ) {
        let mut b = b;
        b[j] = a[i];
        check_pair(&a, &b)?;
        let got = triangle_intersection(&a, &b);
        // The shared corner is in the answer: a corner itself, or on its segment or polygon.
        prop_assert!(dist_answer(&a[i], &got) <= 1e-12, "{:?}", got);
    }
}

#[test]
fn crossing_pairs_are_segments_whose_ends_are_on_edges() {
    // Float triangles crossing in general position: the answer is a segment, and each end lies
    // on an edge of one of the triangles (where the intersection leaves it).
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut crossing = 0;
    for _ in 0..5000 {
        let a = float_triangle().new_tree(&mut runner).unwrap().current();
        let b = float_triangle().new_tree(&mut runner).unwrap().current();
        if !triangles_intersect(&a, &b) {
            continue;
        }
        crossing += 1;
        let got = triangle_intersection(&a, &b);
        let Intersection::Segment(u, v) = got else {
            panic!("general position crossing gives a segment: {got:?}");
        };
        for end in [u, v] {
            let on_edge = [&a, &b]
                .iter()
                .any(|t| (0..3).any(|k| dist_segment(&end, &t[k], &t[(k + 1) % 3]) <= 1e-12));
            assert!(on_edge, "{end} is on no edge of {a:?} {b:?}");
        }
    }
    assert!(crossing > 500, "only {crossing} crossing pairs");
}
