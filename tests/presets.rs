//! The build presets: `BuildOptions::rapid()` (RAPID 2.01's fit and split) and
//! `BuildOptions::paper()` (Gottschalk et al. 1996, §4) hold those settings, and trees built
//! with them are valid and find brute force's contacts.

mod common;
use common::*;
use obbtree::prelude::*;
use obbtree::query::brute_force;

#[test]
fn presets_hold_their_papers_settings() {
    let rapid = BuildOptions::rapid();
    assert_eq!(
        (rapid.split, rapid.fit),
        (SplitRule::Mean, ObbFit::Triangles)
    );
    let paper = BuildOptions::paper();
    assert_eq!((paper.split, paper.fit), (SplitRule::Mean, ObbFit::Hull));
    // Threads are the default's: they never change the tree.
    assert_eq!(rapid.parallel, BuildOptions::default().parallel);
    assert_eq!(paper.parallel, BuildOptions::default().parallel);
    // Neither is the default (DiTO fit, binned split).
    assert_ne!(rapid, BuildOptions::default());
    assert_ne!(paper, BuildOptions::default());
}

/// Every tree type built with each preset validates and gives, at every pose, brute force's
/// contacts: bunny-500 against itself (the first bunny random poses, calibrated to collide
/// 60% of the time, and near copies of itself: deep overlaps).
#[test]
fn preset_trees_are_valid_and_exact() {
    let mesh = load("bunny-500.obj");
    let mut poses: Vec<Isometry> = obbtree::pose::read_poses(data("bunny_random.txt"))
        .unwrap()
        .iter()
        .take(12)
        .map(|p| p.pose_ab)
        .collect();
    poses.push(Isometry::translation(1e-3, 0.0, 0.0));
    poses.push(Isometry::new(
        Vector::new(0.0, 2e-3, 0.0),
        Vector::new(0.0, 0.05, 0.0),
    ));
    let truths: Vec<Vec<(u32, u32)>> = poses
        .iter()
        .map(|p| sorted(brute_force(&mesh, &mesh, &rot_of(p), &p.translation.vector)))
        .collect();
    // The case has contacts to find and poses without any.
    assert!(truths.iter().any(|t| t.len() >= 10), "{truths:?}");
    assert!(truths.iter().any(Vec::is_empty));
    for (name, build) in [
        ("rapid", BuildOptions::rapid()),
        ("paper", BuildOptions::paper()),
    ] {
        let obb = Bvh::<Obb>::build(mesh.clone(), &build);
        let aabb = Bvh::<Aabb>::build(mesh.clone(), &build);
        let sphere = Bvh::<Sphere>::build(mesh.clone(), &build);
        obb.validate().unwrap();
        aabb.validate().unwrap();
        sphere.validate().unwrap();
        for options in [
            QueryOptions::default(),
            QueryOptions::default().leaf_boxes(),
        ] {
            for (pose, truth) in poses.iter().zip(&truths) {
                let id = Isometry::identity();
                let got = [
                    collide(&obb, &id, &obb, pose, &options).sorted_contacts(),
                    collide(&aabb, &id, &aabb, pose, &options).sorted_contacts(),
                    collide(&sphere, &id, &sphere, pose, &options).sorted_contacts(),
                ];
                for (kind, g) in ["OBB", "AABB", "sphere"].iter().zip(&got) {
                    assert_eq!(g, truth, "{name} {kind} {options:?} {pose}");
                }
            }
        }
    }
}

/// `QueryOptions::paper()`: the 1996 settings, field by field (all contacts, full SAT, RAPID's
/// ε, leaves tested by their boxes).
#[test]
fn query_paper_preset_fields() {
    use obbtree::bv::{OverlapOptions, SatMode};
    use obbtree::query::{ContactMode, QueryOptions};
    let p = QueryOptions::paper();
    assert_eq!(p.mode, ContactMode::AllContacts);
    assert_eq!(
        p.overlap,
        OverlapOptions {
            epsilon: 1e-6,
            sat: SatMode::Full,
            leaf_triangles: false
        }
    );
}

/// `build_with_progress` counts every triangle into a leaf exactly once, on one thread and on
/// several, with every split rule (van den Bergen's AABB builder included), and builds the tree
/// `build` builds.
#[test]
fn build_progress_counts_every_triangle_once() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // 69,451 triangles: past the parallel threshold and many progress steps.
    let mesh = std::sync::Arc::new(load("stanford-bunny.obj"));
    for split in [SplitRule::Binned, SplitRule::Mean, SplitRule::BoxMidpoint] {
        for parallel in [false, true] {
            let options = BuildOptions {
                split,
                parallel,
                ..BuildOptions::default()
            };
            let done = AtomicUsize::new(0);
            let aabb = Bvh::<Aabb>::build_with_progress(mesh.clone(), &options, &done);
            assert_eq!(
                done.load(Ordering::Relaxed),
                mesh.triangle_count(),
                "{split:?}"
            );
            let built = Bvh::<Aabb>::build(mesh.clone(), &options);
            assert!(
                aabb.nodes()
                    .iter()
                    .zip(built.nodes())
                    .all(|(x, y)| x.bv == y.bv)
            );
        }
    }
    let done = AtomicUsize::new(0);
    Bvh::<Obb>::build_with_progress(mesh.clone(), &BuildOptions::default(), &done);
    assert_eq!(done.load(Ordering::Relaxed), mesh.triangle_count());
}
