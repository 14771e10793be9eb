//! Exactness on real meshes: RAPID's (and FCL's) all-contacts answers for teapot vs teapot on
//! every pose of two pose files, and brute force at fixed poses on other public models.

mod common;
use common::*;
use obbtree::math::relative_parts;
use obbtree::pose::read_poses;
use obbtree::prelude::*;
use obbtree::query::brute_force;
use std::io::BufRead;

/// Reads a reference file: per pose, the sorted contact pairs.
fn reference(name: &str) -> Vec<Vec<(u32, u32)>> {
    let file = std::fs::File::open(data(name)).unwrap();
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
    let mut out = Vec::new();
    for (n, line) in reader.lines().enumerate() {
        let line = line.unwrap();
        let w: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            w[0].parse::<usize>().unwrap(),
            out.len(),
            "{name}:{}",
            n + 1
        );
        let count: usize = w[2].parse().unwrap();
        let pairs: Vec<(u32, u32)> = w[3..]
            .iter()
            .map(|p| {
                let (a, b) = p.split_once(':').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        assert_eq!(pairs.len(), count);
        assert_eq!(w[1] == "1", count > 0);
        out.push(pairs);
    }
    out
}

fn check_reference<B: BoundingVolume>(poses: &str, reference_file: &str, build: &BuildOptions) {
    let teapot = load("teapot.obj");
    let a = Bvh::<B>::build(teapot.clone(), build);
    let b = Bvh::<B>::build(teapot, build);
    a.validate().unwrap();
    let poses = read_poses(data(poses)).unwrap();
    let expected = reference(reference_file);
    assert_eq!(poses.len(), expected.len());
    let mut report = CollisionReport::default();
    let mut first = CollisionReport::default();
    let mut total = 0;
    for (i, (pose, want)) in poses.iter().zip(&expected).enumerate() {
        {
            let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), &pose.pose_ab);
            collide_with(
                &a,
                &b,
                &rot_ab,
                &pos_ab,
                &QueryOptions::default(),
                CollideWith::default(),
                &mut report,
            )
        };
        report.contacts.sort_unstable();
        assert_eq!(
            &report.contacts,
            want,
            "{:?} tree, {poses:?} pose {i}",
            B::KIND,
            poses = reference_file
        );
        {
            let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), &pose.pose_ab);
            collide_with(
                &a,
                &b,
                &rot_ab,
                &pos_ab,
                &QueryOptions::first_contact(),
                CollideWith::default(),
                &mut first,
            )
        };
        assert_eq!(
            first.colliding(),
            !want.is_empty(),
            "first contact, pose {i}"
        );
        total += want.len();
    }
    assert!(total > 100_000, "the reference has many contacts ({total})");
}

#[test]
fn teapot_random_equals_rapid_obb() {
    check_reference::<Obb>(
        "teapot_random.txt",
        "teapot_random.contacts.gz",
        &BuildOptions::default(),
    );
}

#[test]
fn teapot_path_equals_rapid_obb() {
    check_reference::<Obb>(
        "teapot_path.txt",
        "teapot_path.contacts.gz",
        &BuildOptions::default(),
    );
}

#[test]
fn teapot_random_equals_rapid_aabb_and_sphere() {
    check_reference::<Aabb>(
        "teapot_random.txt",
        "teapot_random.contacts.gz",
        &BuildOptions::van_den_bergen(),
    );
    check_reference::<Sphere>(
        "teapot_random.txt",
        "teapot_random.contacts.gz",
        &BuildOptions::default(),
    );
}

/// The other split rules: the median, and RAPID's own (the longest axis at the mean).
#[test]
fn teapot_path_equals_rapid_other_splits() {
    for split in [SplitRule::Median, SplitRule::Mean] {
        let b = BuildOptions {
            split,
            ..BuildOptions::default()
        };
        check_reference::<Obb>("teapot_path.txt", "teapot_path.contacts.gz", &b);
    }
}

/// Brute force on other public models at fixed poses (spot vs torus, f-16 vs f-16).
#[test]
fn other_models_equal_brute_force() {
    let cases = [
        (
            "spot.obj",
            "torus.obj",
            Isometry::new(Vector::new(0.1, 0.0, 0.2), Vector::new(0.3, 1.1, -0.4)),
        ),
        (
            "spot.obj",
            "torus.obj",
            Isometry::new(Vector::new(0.0, 0.3, 0.0), Vector::new(1.4, 0.0, 0.2)),
        ),
        (
            "f-16.obj",
            "f-16.obj",
            Isometry::new(Vector::new(0.3, 0.1, 0.05), Vector::new(0.0, 0.2, 1.3)),
        ),
    ];
    for (na, nb, pose) in cases {
        let (ma, mb) = (load(na), load(nb));
        let (rot, pos) = (rot_of(&pose), pose.translation.vector);
        let truth = brute_force(&ma, &mb, &rot, &pos);
        assert!(
            !truth.is_empty(),
            "{na} vs {nb}: the fixed pose should make contact"
        );
        let o = contacts_relative(
            &Bvh::<Obb>::build(ma.clone(), &BuildOptions::default()),
            &Bvh::<Obb>::build(mb.clone(), &BuildOptions::default()),
            &rot,
            &pos,
        );
        let a = contacts_relative(
            &Bvh::<Aabb>::build(ma.clone(), &BuildOptions::van_den_bergen()),
            &Bvh::<Aabb>::build(mb.clone(), &BuildOptions::van_den_bergen()),
            &rot,
            &pos,
        );
        assert_eq!(o.contacts, truth, "OBB {na} vs {nb}");
        assert_eq!(a.contacts, truth, "AABB {na} vs {nb}");
    }
}

#[test]
fn bunny_trees_are_well_formed() {
    let bunny = load("stanford-bunny.obj");
    assert_eq!(bunny.triangle_count(), 69_451);
    let obb = Bvh::<Obb>::build(bunny.clone(), &BuildOptions::default());
    obb.validate().unwrap();
    assert_eq!(obb.nodes().len(), 2 * 69_451 - 1);
    // The nodes (64 bytes each, 2n − 1 of them) and the leaves' copies of their triangles
    // (three corners of three doubles and the mesh index): about 204 bytes a triangle, where
    // RAPID 2.01 keeps two 144-byte boxes and an 80-byte triangle copy (368).
    assert_eq!(
        obb.memory_bytes(),
        (2 * 69_451 - 1) * 64 + 69_451 * (9 * 8 + 4),
        "{} bytes per triangle",
        obb.bytes_per_triangle()
    );
    // Each node is one 64-byte cache line, on a line boundary (a node across two lines costs a
    // second fetch on every visit, and a sibling pair three lines instead of two); the AABB
    // tree's nodes stay 28 bytes.
    assert_eq!(std::mem::size_of_val(&obb.nodes()[0]), 64);
    assert_eq!(obb.nodes().as_ptr() as usize % 64, 0);
    assert_eq!(std::mem::size_of::<obbtree::bvh::Node<Aabb>>(), 28);
    // Building on one thread gives the very same tree.
    let serial = Bvh::<Obb>::build(
        bunny.clone(),
        &BuildOptions {
            parallel: false,
            ..BuildOptions::default()
        },
    );
    assert!(
        (0..obb.nodes().len()).all(|i| obb.nodes()[i].bv == serial.nodes()[i].bv
            && obb.leaf_triangle(i) == serial.leaf_triangle(i))
    );
    Bvh::<Aabb>::build(bunny.clone(), &BuildOptions::van_den_bergen())
        .validate()
        .unwrap();
    Bvh::<Sphere>::build(bunny, &BuildOptions::default())
        .validate()
        .unwrap();
}

#[test]
fn levels_partition_the_leaves() {
    let t = Bvh::<Obb>::build(load("teapot.obj"), &BuildOptions::default());
    assert_eq!(t.nodes_at_depth(0).len(), 1);
    assert_eq!(t.nodes_at_depth(1).len(), 2);
    // Summed over all depths, every node appears exactly once.
    let total: usize = (0..=t.depth()).map(|d| t.nodes_at_depth(d).len()).sum();
    assert_eq!(total, t.nodes().len());
    assert!(t.nodes_at_depth(t.depth() + 1).is_empty());
}
