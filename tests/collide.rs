//! Hierarchy queries against brute force (all triangle pairs) and against each other, on random
//! soups with degenerate triangles, exact touching/coplanar configurations and nested models.

mod common;
use common::*;
use obbtree::prelude::*;
use obbtree::query::{CollideWith, brute_force, brute_force_posed, collide_with};
use proptest::prelude::*;

fn trees(m: &TriMesh) -> (Bvh<Obb>, Bvh<Aabb>, Bvh<Sphere>) {
    let o = Bvh::<Obb>::build(m.clone(), &BuildOptions::default());
    let a = Bvh::<Aabb>::build(m.clone(), &BuildOptions::van_den_bergen());
    let s = Bvh::<Sphere>::build(m.clone(), &BuildOptions::default());
    o.validate().unwrap();
    a.validate().unwrap();
    s.validate().unwrap();
    (o, a, s)
}

/// Every tree type, every split rule, both SAT variants and both leaf rules give exactly the
/// brute-force set.
fn check_all(
    ma: &TriMesh,
    mb: &TriMesh,
    rot: &Matrix3,
    pos: &Vector,
) -> Result<Vec<(u32, u32)>, TestCaseError> {
    let truth = brute_force(ma, mb, rot, pos);
    let (oa, aa, sa) = trees(ma);
    let (ob, ab, sb) = trees(mb);
    prop_assert_eq!(
        &contacts_relative(&oa, &ob, rot, pos).contacts,
        &truth,
        "OBB"
    );
    prop_assert_eq!(
        &contacts_relative(&aa, &ab, rot, pos).contacts,
        &truth,
        "AABB"
    );
    prop_assert_eq!(
        &contacts_relative(&sa, &sb, rot, pos).contacts,
        &truth,
        "sphere"
    );
    for (split, fit) in [
        (SplitRule::Binned, ObbFit::LeastVolume),
        (SplitRule::Mean, ObbFit::Dito),
        (SplitRule::MeanBestAxis, ObbFit::LeastVolume),
        (SplitRule::Mean, ObbFit::LeastVolume),
        (SplitRule::Median, ObbFit::LeastVolume),
        (SplitRule::BoxMidpoint, ObbFit::LeastVolume),
        (SplitRule::Mean, ObbFit::Smallest),
        (SplitRule::Mean, ObbFit::Hull),
        (SplitRule::Mean, ObbFit::Triangles),
    ] {
        let options = BuildOptions {
            split,
            fit,
            parallel: false,
        };
        let o1 = Bvh::<Obb>::build(ma.clone(), &options);
        let o2 = Bvh::<Obb>::build(mb.clone(), &options);
        o1.validate().unwrap();
        o2.validate().unwrap();
        prop_assert_eq!(
            &contacts_relative(&o1, &o2, rot, pos).contacts,
            &truth,
            "OBB {:?} {:?}",
            split,
            fit
        );
    }
    let lite = QueryOptions {
        overlap: OverlapOptions {
            sat: SatMode::Lite,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut r = CollisionReport::default();
    collide_with(&oa, &ob, rot, pos, &lite, CollideWith::default(), &mut r);
    prop_assert_eq!(sorted(r.contacts.clone()), truth.clone(), "OBB, SAT lite");
    // The OBB trees above test a leaf's triangle against internal nodes (the default); the
    // papers' rule tests its box, and must agree too.
    let boxes = QueryOptions::default().leaf_boxes();
    collide_with(&oa, &ob, rot, pos, &boxes, CollideWith::default(), &mut r);
    prop_assert_eq!(sorted(r.contacts.clone()), truth.clone(), "OBB, leaf boxes");
    // First contact agrees on whether there is one, and finds a real one.
    collide_with(
        &oa,
        &ob,
        rot,
        pos,
        &QueryOptions::first_contact(),
        CollideWith::default(),
        &mut r,
    );
    prop_assert_eq!(r.colliding(), !truth.is_empty());
    prop_assert!(r.contacts.len() <= 1);
    if let Some(c) = r.contacts.first() {
        prop_assert!(truth.contains(c));
    }
    Ok(truth)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_soups_match_brute_force(a in soup(60), b in soup(60), pose in pose(1.0)) {
        check_all(&a, &b, &rot_of(&pose), &pose.translation.vector)?;
    }

    /// Integer-grid soups under exact rotations: shared vertices and edges, coplanar and
    /// touching contact happen all the time, and every tree must still agree exactly.
    #[test]
    fn exact_touching_contacts_match_brute_force(a in grid_soup(30), b in grid_soup(30), (rot, pos) in exact_pose()) {
        let truth = check_all(&a, &b, &rot, &pos)?;
        // Swapping A and B swaps the pairs (the inverse of an exact pose is exact).
        let rot_ba = rot.transpose();
        let pos_ba = -(rot_ba * pos);
        let (ob, oa) = (Bvh::<Obb>::build(b.clone(), &BuildOptions::default()), Bvh::<Obb>::build(a.clone(), &BuildOptions::default()));
        let swapped = contacts_relative(&ob, &oa, &rot_ba, &pos_ba).contacts;
        prop_assert_eq!(sorted(swapped.iter().map(|&(x, y)| (y, x)).collect()), truth);
    }

    /// Moving both models by the same rigid motion changes nothing; swapping A and B swaps the
    /// pairs. (Random real coordinates: boundary cases have probability zero.)
    #[test]
    fn invariant_under_common_motion_and_swap(a in soup(40), b in soup(40), pa in pose(0.5), pb in pose(0.5), m in pose(3.0)) {
        let ta = Bvh::<Obb>::build(a.clone(), &BuildOptions::default());
        let tb = Bvh::<Obb>::build(b.clone(), &BuildOptions::default());
        let base = sorted(collide(&ta, &pa, &tb, &pb, &QueryOptions::default()).contacts);
        prop_assert_eq!(&base, &brute_force_posed(&a, &pa, &b, &pb));
        let moved = sorted(collide(&ta, &(m * pa), &tb, &(m * pb), &QueryOptions::default()).contacts);
        prop_assert_eq!(&moved, &base);
        let swapped = collide(&tb, &pb, &ta, &pa, &QueryOptions::default()).contacts;
        prop_assert_eq!(sorted(swapped.iter().map(|&(x, y)| (y, x)).collect()), base);
    }
}

/// A closed box mesh of half size `h` centred at the origin (12 triangles).
fn box_mesh(h: f64) -> TriMesh {
    let v: Vec<Point> = (0..8)
        .map(|k| {
            Point::new(
                if k & 1 == 0 { -h } else { h },
                if k & 2 == 0 { -h } else { h },
                if k & 4 == 0 { -h } else { h },
            )
        })
        .collect();
    let quads = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    let t = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    TriMesh::new(v, t, "box").unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// A small model nested inside a big closed one does not touch it (their volumes overlap,
    /// their surfaces do not); crossing the wall does.
    #[test]
    fn nested_models(inner in soup(30), pose in pose(5.0)) {
        let outer = box_mesh(10.0);
        let (oo, ao, so) = trees(&outer);
        let (oi, ai, si) = trees(&inner);
        let (rot, pos) = (rot_of(&pose), pose.translation.vector);
        let truth = brute_force(&outer, &inner, &rot, &pos);
        prop_assert!(truth.is_empty(), "a soup of size ≤ 2 within 5 + √3 of the centre cannot reach the walls at 10");
        prop_assert!(contacts_relative(&oo, &oi, &rot, &pos).contacts.is_empty());
        prop_assert!(contacts_relative(&ao, &ai, &rot, &pos).contacts.is_empty());
        prop_assert!(contacts_relative(&so, &si, &rot, &pos).contacts.is_empty());
        // Pushed to the wall, the same soup collides exactly as brute force says.
        let wall = pos + Vector::new(10.0 - pos.x, 0.0, 0.0);
        let truth = brute_force(&outer, &inner, &rot, &wall);
        prop_assert_eq!(contacts_relative(&oo, &oi, &rot, &wall).contacts, truth);
    }
}

#[test]
fn counts_follow_the_cost_equation() {
    // N_p ≤ number of leaf pairs; N_v ≥ 1; a far-away pose costs exactly one box test.
    let m = box_mesh(1.0);
    let t = Bvh::<Obb>::build(m, &BuildOptions::default());
    let far = collide(
        &t,
        &Isometry::identity(),
        &t,
        &Isometry::translation(100.0, 0.0, 0.0),
        &QueryOptions::default(),
    );
    assert_eq!((far.bv_tests, far.tri_tests, far.contacts.len()), (1, 0, 0));
    let near = collide(
        &t,
        &Isometry::identity(),
        &t,
        &Isometry::translation(1.5, 0.3, 0.2),
        &QueryOptions::default(),
    );
    assert!(
        near.tri_tests as usize <= 12 * 12 && near.bv_tests >= near.tri_tests && near.colliding()
    );
}

/// Found by `random_soups_match_brute_force`: B is a collinear triangle (third corner the
/// rounded midpoint of the others) whose cross product is rounding noise; tested as a plane,
/// it "hit" A although the segment passes 0.03 outside A's rectangle. Degenerate-by-noise
/// triangles must be tested as segments.
#[test]
fn regression_collinear_sliver_is_a_segment() {
    let a = TriMesh::new(
        vec![
            Point::new(0.0, 0.7324350888502219, 0.0),
            Point::new(-0.17087638332882885, 0.0, 0.0),
            Point::new(
                -0.14087023346587932,
                -0.7490480117220967,
                -0.7533567161398782,
            ),
        ],
        vec![[0, 1, 2]],
        "a",
    )
    .unwrap();
    let (p, q) = (
        Point::new(0.667702892954526, -0.6319510018602577, 0.3031952327757494),
        Point::new(
            -0.7451999340092064,
            -0.5663680152406585,
            -0.8241734571422047,
        ),
    );
    let b = TriMesh::new(
        vec![p, q, Point::from((p.coords + q.coords) * 0.5)],
        vec![[0, 1, 2]],
        "b",
    )
    .unwrap();
    let rotation = obbtree::math::UnitQuaternion::new_normalize(obbtree::math::Quaternion::new(
        -0.6256075850832065,
        0.2385186608498703,
        0.07947297344030767,
        -0.7385174638458453,
    ));
    let pose = Isometry::from_parts(
        obbtree::math::Translation::new(
            -0.9416475549617217,
            -0.3531923231162452,
            -0.6685819210640336,
        ),
        rotation,
    );
    let (rot, pos) = (rot_of(&pose), pose.translation.vector);
    assert!(brute_force(&a, &b, &rot, &pos).is_empty());
    let (oa, aa, sa) = trees(&a);
    let (ob, ab, sb) = trees(&b);
    assert!(contacts_relative(&oa, &ob, &rot, &pos).contacts.is_empty());
    assert!(contacts_relative(&aa, &ab, &rot, &pos).contacts.is_empty());
    assert!(contacts_relative(&sa, &sb, &rot, &pos).contacts.is_empty());
}

/// Found by `full_query_on_touching_soups` (tests/float_exact.rs) when a leaf's triangle first
/// stood for its box: a sliver of A (two edges of 70,000, the third 0.55) whose corner touches
/// B's point-like triangles. The box–triangle test took the short edge's projection width from
/// the triangle's normal, whose rounding (in proportion to the two long edges) was far beyond
/// that edge's slack, and separated the box of B's points from the sliver.
#[test]
fn regression_sliver_corner_touches_points() {
    let soup = |ts: &[[[f64; 3]; 3]]| {
        let v = ts.iter().flatten().map(|p| Point::new(p[0], p[1], p[2]));
        let n = ts.len() as u32;
        TriMesh::new(
            v.collect(),
            (0..n).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect(),
            "soup",
        )
        .unwrap()
    };
    let a = soup(&[
        [
            [0.0; 3],
            [-9562.4, 69749.27, -9562.4],
            [0.0, 0.5549218747655686, 0.0],
        ],
        [[0.0; 3]; 3],
        [[0.0, -0.0038887828554701295, 0.0], [0.0; 3], [0.0; 3]],
    ]);
    let b = soup(&[
        [[0.0; 3]; 3],
        [[0.0; 3]; 3],
        [[0.0; 3], [0.0; 3], [0.0, -0.015555131421880518, 0.0]],
    ]);
    let (rot, pos) = (Matrix3::identity(), Vector::zeros());
    let truth = brute_force(&a, &b, &rot, &pos);
    assert_eq!(truth.len(), 9);
    let (oa, _, _) = trees(&a);
    let (ob, _, _) = trees(&b);
    for options in [
        QueryOptions::default(),
        QueryOptions::default().leaf_boxes(),
    ] {
        let mut r = CollisionReport::default();
        collide_with(
            &oa,
            &ob,
            &rot,
            &pos,
            &options,
            CollideWith::default(),
            &mut r,
        );
        assert_eq!(sorted(r.contacts), truth, "{options:?}");
    }
}

fn traced_counts<B: BoundingVolume>(a: &Bvh<B>, b: &Bvh<B>, pose: &Isometry) {
    let rot = rot_of(pose);
    let pos = pose.translation.vector;
    let options = QueryOptions::default();
    let mut plain = CollisionReport::default();
    collide_with(
        a,
        b,
        &rot,
        &pos,
        &options,
        CollideWith::default(),
        &mut plain,
    );
    let mut traced = CollisionReport::default();
    let mut pairs = Vec::new();
    obbtree::query::collide_with(
        a,
        b,
        &rot,
        &pos,
        &options,
        CollideWith::trace(&mut pairs),
        &mut traced,
    );
    assert_eq!(traced, plain);
    // Every overlapping pair below the root is one passed volume test; a non-leaf pair opens
    // exactly two tests, a leaf pair one triangle test (the cost equation's counts).
    let leaf_pairs = pairs
        .iter()
        .filter(|&&(x, y)| a.nodes()[x as usize].is_leaf() && b.nodes()[y as usize].is_leaf())
        .count() as u64;
    assert_eq!(leaf_pairs, plain.tri_tests);
    if plain.bv_tests > 1 {
        assert_eq!(pairs[0], (0, 0));
        assert_eq!(plain.bv_tests, 1 + 2 * (pairs.len() as u64 - leaf_pairs));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn traced_query_records_exactly_the_overlapping_pairs(a in soup(40), b in soup(40), p in pose(1.5)) {
        let build = BuildOptions::default();
        traced_counts(&Bvh::<Obb>::build(a.clone(), &build), &Bvh::<Obb>::build(b.clone(), &build), &p);
        traced_counts(&Bvh::<Aabb>::build(a.clone(), &build), &Bvh::<Aabb>::build(b.clone(), &build), &p);
        traced_counts(&Bvh::<Sphere>::build(a, &build), &Bvh::<Sphere>::build(b, &build), &p);
    }
}

/// The parallel query finds exactly the sequential one's contacts, in the same order, with the
/// same counts, on pools of 1, 2 and 3 threads: teapot poses from the reference set and a deep
/// overlap (the bunny against a slightly moved copy of itself).
#[test]
#[cfg(feature = "parallel")]
fn parallel_query_equals_sequential() {
    use obbtree::query::{CollideWith, collide_with};
    let teapot = Bvh::<Obb>::build(load("teapot.obj"), &BuildOptions::default());
    let bunny = Bvh::<Obb>::build(load("stanford-bunny.obj"), &BuildOptions::default());
    let poses = obbtree::pose::read_poses(data("teapot_random.txt")).unwrap();
    let mut cases: Vec<(&Bvh<Obb>, Matrix3, Vector)> = poses
        .iter()
        .take(40)
        .map(|p| (&teapot, rot_of(&p.pose_ab), p.pose_ab.translation.vector))
        .collect();
    let turn = obbtree::math::UnitQuaternion::from_euler_angles(0.001, 0.002, -0.001);
    cases.push((
        &bunny,
        turn.to_rotation_matrix().into_inner(),
        Vector::new(1e-4, 0.0, 2e-4),
    ));
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for (tree, rot, pos) in &cases {
            let mut seq = CollisionReport::default();
            collide_with(
                tree,
                tree,
                rot,
                pos,
                &QueryOptions::default(),
                CollideWith::default(),
                &mut seq,
            );
            let mut par = CollisionReport::default();
            pool.install(|| {
                collide_with(
                    tree,
                    tree,
                    rot,
                    pos,
                    &QueryOptions::default(),
                    CollideWith::parallel(),
                    &mut par,
                )
            });
            assert_eq!(par, seq, "{threads} threads");
        }
    }
}
