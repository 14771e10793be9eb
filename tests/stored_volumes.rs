//! A stored volume holds the points it was fitted to, exactly: the boxes are kept in single
//! precision, rounded outward from double-precision extents, and the overlap tests' exactness
//! rests on every stored box containing its triangles. Checked in exact integer arithmetic on
//! float points far from the origin and at scales from 2^-30 to 2^30 (the oracle: every
//! point's offset from the stored centre, projected on each stored axis, is within that axis's
//! stored half extent; no rounding anywhere).

mod common;
use common::*;
use num_bigint::BigInt;
use obbtree::math::{Quaternion, UnitQuaternion};
use obbtree::prelude::*;
use proptest::prelude::*;

/// Whether every point lies in the box with unit-ish `axes` (any finite vectors, as stored),
/// `center` and `half` extents along them, evaluated exactly: `|axis_k · (p − center)| ≤
/// half_k` with all values converted to integers over common powers of two.
fn holds_exactly(points: &[Point], axes: &[Vector; 3], center: &Point, half: &Vector) -> bool {
    // Positions and half extents on one scale; the axes on another, with the unit (1, 0, 0)
    // among them to read that scale's factor.
    let mut positions: Vec<Point> = points.to_vec();
    positions.push(*center);
    positions.push(Point::from(*half));
    let z = scaled_integers(&positions);
    let (c, h) = (&z[points.len()], &z[points.len() + 1]);
    let mut directions: Vec<Point> = axes.iter().map(|a| Point::from(*a)).collect();
    directions.push(Point::new(1.0, 0.0, 0.0));
    let d = scaled_integers(&directions);
    let unit = &d[3][0];
    z[..points.len()].iter().all(|p| {
        let offset: Z3 = std::array::from_fn(|k| &p[k] - &c[k]);
        (0..3).all(|k| {
            let reach = zdot(&d[k], &offset);
            let reach = if reach < BigInt::from(0) {
                -reach
            } else {
                reach
            };
            reach <= &h[k] * unit
        })
    })
}

/// A unit quaternion's rotation rows: the box's axes before storage.
fn rotation_rows(q: [f64; 4]) -> [Vector; 3] {
    let r = UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]))
        .to_rotation_matrix()
        .into_inner();
    [
        r.row(0).transpose(),
        r.row(1).transpose(),
        r.row(2).transpose(),
    ]
}

/// The mesh triangles under node `i` of `tree`.
fn triangles_under(tree: &Bvh<Obb>, i: usize, out: &mut Vec<u32>) {
    match tree.nodes()[i].children() {
        Some((l, r)) => {
            triangles_under(tree, l, out);
            triangles_under(tree, r, out);
        }
        None => out.push(tree.leaf_triangle(i).expect("a leaf")),
    }
}

/// Float points: `n` of them in a unit cube about `offset`, all times 2^e; some repeated.
fn cloud() -> impl Strategy<Value = Vec<Point>> {
    (
        prop::collection::vec(prop::array::uniform3(-1.0f64..1.0), 1..40),
        prop::array::uniform3(-1e6f64..1e6),
        -30i32..30,
        0usize..4,
    )
        .prop_map(|(raw, offset, e, repeats)| {
            let k = 2f64.powi(e);
            let mut points: Vec<Point> = raw
                .iter()
                .map(|c| Point::from((Vector::from(*c) + Vector::from(offset)) * k))
                .collect();
            for i in 0..repeats.min(points.len()) {
                points.push(points[i]);
            }
            points
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `Obb::with_axes` (the builder's and the refit's box) holds its points exactly, for any
    /// orientation.
    #[test]
    fn stored_obb_holds_its_points(
        points in cloud(),
        q in prop::array::uniform4(-1.0f64..1.0),
    ) {
        prop_assume!(q.iter().map(|x| x * x).sum::<f64>() > 1e-3);
        let obb = Obb::with_axes(&rotation_rows(q), points.iter().copied());
        prop_assert!(
            holds_exactly(&points, &obb.axes(), &obb.center(), &obb.half_extents()),
            "{obb:?}"
        );
    }

    /// `Aabb::from_points` holds its points exactly.
    #[test]
    fn stored_aabb_holds_its_points(points in cloud()) {
        let aabb = Aabb::from_points(points.iter().copied());
        let axes = [Vector::x(), Vector::y(), Vector::z()];
        prop_assert!(
            holds_exactly(&points, &axes, &aabb.center(), &aabb.half_extents()),
            "{aabb:?}"
        );
    }

    /// Every node of a tree built on a float soup far from the origin holds its triangles
    /// exactly (the boxes stored relative to the tree's volume frame, `Bvh::origin`).
    #[test]
    fn tree_boxes_hold_their_triangles(mesh in soup(24), shift in prop::array::uniform3(-1e6f64..1e6)) {
        let by = Vector::from(shift);
        let mesh = TriMesh::new(
            mesh.vertices().iter().map(|p| p + by).collect(),
            mesh.triangles().to_vec(),
            "shifted",
        )
        .unwrap();
        let tree = Bvh::<Obb>::build(mesh.clone(), &BuildOptions::default());
        let origin = tree.origin();
        for (i, node) in tree.nodes().iter().enumerate() {
            let mut under = Vec::new();
            triangles_under(&tree, i, &mut under);
            let points: Vec<Point> = under
                .iter()
                .flat_map(|&t| mesh.triangle(t as usize))
                .map(|p| p - origin)
                .collect();
            let bv = &node.bv;
            prop_assert!(
                holds_exactly(&points, &bv.axes(), &bv.center(), &bv.half_extents()),
                "node {i}: {bv:?}"
            );
        }
    }
}
