//! The exact triangle–triangle test against an independent exact oracle (integer separating
//! axes), including coplanar, degenerate and shared-vertex/edge pairs.

mod common;
use common::*;
use obbtree::math::Point;
use obbtree::query::triangles_intersect;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_exact_oracle((p, q) in int_triangle_pair()) {
        let expected = exact_intersect(&p, &q);
        let (fp, fq) = (to_points(&p), to_points(&q));
        prop_assert_eq!(triangles_intersect(&fp, &fq), expected, "p = {:?}, q = {:?}", p, q);
        // Symmetric, and independent of corner order.
        prop_assert_eq!(triangles_intersect(&fq, &fp), expected);
        let rotated = [fp[1], fp[2], fp[0]];
        let flipped = [fq[0], fq[2], fq[1]];
        prop_assert_eq!(triangles_intersect(&rotated, &flipped), expected);
    }
}

#[test]
fn hand_made_cases_match_the_oracle() {
    // (p, q, expected) — each also checked against the oracle so the expectation is not trusted.
    type Tri = [[i64; 3]; 3];
    let cases: Vec<(Tri, Tri, bool)> = vec![
        // Crossing in general position.
        (
            [[0, 0, 0], [4, 0, 0], [0, 4, 0]],
            [[1, 1, -1], [1, 1, 1], [2, 1, 1]],
            true,
        ),
        // Parallel planes.
        (
            [[0, 0, 0], [4, 0, 0], [0, 4, 0]],
            [[0, 0, 1], [4, 0, 1], [0, 4, 1]],
            false,
        ),
        // Coplanar, touching at one vertex.
        (
            [[0, 0, 0], [2, 0, 0], [0, 2, 0]],
            [[2, 0, 0], [4, 0, 0], [4, 2, 0]],
            true,
        ),
        // Coplanar, disjoint, separated only along an edge normal.
        (
            [[0, 0, 0], [2, 0, 0], [0, 2, 0]],
            [[2, 2, 0], [4, 2, 0], [2, 4, 0]],
            false,
        ),
        // A segment (repeated corner) piercing a triangle.
        (
            [[0, 0, 0], [4, 0, 0], [0, 4, 0]],
            [[1, 1, -1], [1, 1, 1], [1, 1, 1]],
            true,
        ),
        // A segment lying in the plane, beside the triangle (only the segment's normal separates).
        (
            [[0, 0, 0], [4, 0, 0], [0, 4, 0]],
            [[3, 3, 0], [5, 1, 0], [4, 2, 0]],
            false,
        ),
        // A point on an edge.
        (
            [[0, 0, 0], [4, 0, 0], [0, 4, 0]],
            [[2, 0, 0], [2, 0, 0], [2, 0, 0]],
            true,
        ),
        // Two points, equal and not.
        (
            [[1, 1, 1], [1, 1, 1], [1, 1, 1]],
            [[1, 1, 1], [1, 1, 1], [1, 1, 1]],
            true,
        ),
        (
            [[1, 1, 1], [1, 1, 1], [1, 1, 1]],
            [[1, 1, 2], [1, 1, 2], [1, 1, 2]],
            false,
        ),
        // Collinear segments, overlapping and disjoint.
        (
            [[0, 0, 0], [2, 2, 2], [1, 1, 1]],
            [[2, 2, 2], [3, 3, 3], [3, 3, 3]],
            true,
        ),
        (
            [[0, 0, 0], [2, 2, 2], [1, 1, 1]],
            [[3, 3, 3], [4, 4, 4], [4, 4, 4]],
            false,
        ),
        // Skew segments.
        (
            [[0, 0, 0], [2, 0, 0], [2, 0, 0]],
            [[1, -1, 1], [1, 1, 1], [1, 1, 1]],
            false,
        ),
    ];
    for (p, q, expected) in cases {
        assert_eq!(exact_intersect(&p, &q), expected, "oracle on {p:?} {q:?}");
        assert_eq!(
            triangles_intersect(&to_points(&p), &to_points(&q)),
            expected,
            "{p:?} {q:?}"
        );
    }
}

#[test]
fn shared_edge_touches_and_a_gap_separates() {
    // Shared edge at non-integer coordinates that are exact in binary.
    let p = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(0.5, 0.0, 0.0),
        Point::new(0.0, 0.25, 0.0),
    ];
    let q = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(0.5, 0.0, 0.0),
        Point::new(0.125, 0.0, 0.75),
    ];
    assert!(triangles_intersect(&p, &q));
    let q_above = q.map(|v| v + obbtree::math::Vector::new(0.0, 0.0, 1e-9));
    assert!(!triangles_intersect(&p, &q_above));
}
