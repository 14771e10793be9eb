//! Separation lists (Li & Chen §4) against the top-down query: same contacts on coherent random
//! walks, the list always a complete cut of the recursion tree, and the top-down policy costing
//! exactly what a query from the root pair costs.

mod common;
use common::*;
use obbtree::prelude::*;
use obbtree::query::{CollideWith, SeparationList, SeparationPolicy, collide_with};
use proptest::prelude::*;

/// Leaves under each node of a hierarchy.
fn leaf_counts<B: BoundingVolume>(t: &Bvh<B>) -> Vec<u64> {
    let n = t.nodes();
    let mut count = vec![0u64; n.len()];
    for i in (0..n.len()).rev() {
        count[i] = match n[i].children() {
            None => 1,
            Some((l, r)) => count[l] + count[r],
        };
    }
    count
}

/// The list covers every leaf pair exactly once: the leaf pairs under its separation nodes add
/// up to all pairs, and no separation node lies under another one.
fn assert_cut<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    list: &SeparationList,
) -> Result<(), TestCaseError> {
    let (ca, cb) = (leaf_counts(a), leaf_counts(b));
    let covered: u64 = list
        .pairs()
        .iter()
        .map(|&(i, j)| ca[i as usize] * cb[j as usize])
        .sum();
    prop_assert_eq!(covered, ca[0] * cb[0], "leaf pairs covered by the cut");
    // Parent links, to check that no separation node has another one as an ancestor pair.
    let parents = |t: &[obbtree::bvh::Node<B>]| {
        let mut p = vec![usize::MAX; t.len()];
        for (i, n) in t.iter().enumerate() {
            if let Some((l, r)) = n.children() {
                p[l] = i;
                p[r] = i;
            }
        }
        p
    };
    let (pa, pb) = (parents(a.nodes()), parents(b.nodes()));
    let set: std::collections::HashSet<(u32, u32)> = list.pairs().iter().copied().collect();
    prop_assert_eq!(set.len(), list.len(), "duplicate separation nodes");
    for &(i, j) in list.pairs() {
        // Every ancestor pair (i', j') with i' ⊇ i and j' ⊇ j, other than (i, j) itself.
        let mut ai = i as usize;
        loop {
            let mut bj = j as usize;
            loop {
                if (ai, bj) != (i as usize, j as usize) {
                    prop_assert!(
                        !set.contains(&(ai as u32, bj as u32)),
                        "nested separation nodes"
                    );
                }
                if pb[bj] == usize::MAX {
                    break;
                }
                bj = pb[bj];
            }
            if pa[ai] == usize::MAX {
                break;
            }
            ai = pa[ai];
        }
    }
    Ok(())
}

/// A coherent random walk: small rotations and translations from a start pose.
fn walk() -> impl Strategy<Value = (Isometry, Vec<(Vector, Vector)>)> {
    let step = (
        (-0.05f64..0.05, -0.05f64..0.05, -0.05f64..0.05),
        (-0.1f64..0.1, -0.1f64..0.1, -0.1f64..0.1),
    )
        .prop_map(|((x, y, z), (a, b, c))| (Vector::new(x, y, z), Vector::new(a, b, c)));
    (pose(1.2), prop::collection::vec(step, 1..25))
}

fn check_walk<B: BoundingVolume>(
    ma: &TriMesh,
    mb: &TriMesh,
    start: &Isometry,
    steps: &[(Vector, Vector)],
    mode: ContactMode,
) -> Result<(), TestCaseError> {
    let a = Bvh::<B>::build(ma.clone(), &BuildOptions::default());
    let b = Bvh::<B>::build(mb.clone(), &BuildOptions::default());
    let options = QueryOptions {
        mode,
        ..QueryOptions::default()
    };
    let mut lists = SeparationPolicy::ALL.map(SeparationList::new);
    let (mut top, mut inc) = (CollisionReport::default(), CollisionReport::default());
    let mut pose = *start;
    for (dt, dr) in steps {
        pose = Isometry::new(*dt, *dr) * pose;
        let (rot, pos) = (rot_of(&pose), pose.translation.vector);
        collide_with(
            &a,
            &b,
            &rot,
            &pos,
            &options,
            CollideWith::default(),
            &mut top,
        );
        for list in &mut lists {
            collide_with(
                &a,
                &b,
                &rot,
                &pos,
                &options,
                CollideWith::separation(list),
                &mut inc,
            );
            match mode {
                ContactMode::AllContacts => {
                    prop_assert_eq!(sorted(inc.contacts.clone()), sorted(top.contacts.clone()))
                }
                ContactMode::FirstContact => prop_assert_eq!(inc.colliding(), top.colliding()),
            }
            if list.policy() == SeparationPolicy::TopDown {
                prop_assert_eq!(inc.bv_tests, top.bv_tests);
                prop_assert_eq!(inc.tri_tests, top.tri_tests);
                if mode == ContactMode::FirstContact {
                    prop_assert_eq!(&inc.contacts, &top.contacts);
                }
            }
            assert_cut(&a, &b, list)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn separation_lists_find_the_top_down_contacts(
        ma in soup(40), mb in soup(40), (start, steps) in walk(), first in any::<bool>()
    ) {
        let mode = if first { ContactMode::FirstContact } else { ContactMode::AllContacts };
        check_walk::<Obb>(&ma, &mb, &start, &steps, mode)?;
        check_walk::<Aabb>(&ma, &mb, &start, &steps, mode)?;
        check_walk::<Sphere>(&ma, &mb, &start, &steps, mode)?;
    }
}

/// On a real model sliding slowly past a copy of itself, the deferred list saves volume tests
/// over the top-down traversal (the claim of Li & Chen §4.4) and finds the same contacts.
#[test]
fn deferred_list_saves_tests_on_coherent_motion() {
    let mesh = load("torus.obj");
    let (lo, hi) = mesh.bounds();
    let size = (hi - lo).norm();
    let a = ObbTree::build(mesh.clone(), &BuildOptions::default());
    let b = ObbTree::build(mesh, &BuildOptions::default());
    let mut list = SeparationList::new(SeparationPolicy::Deferred);
    let (mut top, mut inc) = (CollisionReport::default(), CollisionReport::default());
    let (mut top_tests, mut inc_tests) = (0, 0);
    for step in 0..400 {
        let s = step as f64 / 400.0;
        let pos = Vector::new(size * (0.9 - 0.2 * s), 0.05 * size, 0.02 * size);
        let rot = *obbtree::math::UnitQuaternion::from_scaled_axis(Vector::new(0.3, 0.2, 0.1) * s)
            .to_rotation_matrix()
            .matrix();
        collide_with(
            &a,
            &b,
            &rot,
            &pos,
            &QueryOptions::default(),
            CollideWith::default(),
            &mut top,
        );
        collide_with(
            &a,
            &b,
            &rot,
            &pos,
            &QueryOptions::default(),
            CollideWith::separation(&mut list),
            &mut inc,
        );
        assert_eq!(
            sorted(inc.contacts.clone()),
            sorted(top.contacts.clone()),
            "step {step}"
        );
        top_tests += top.bv_tests;
        inc_tests += inc.bv_tests;
    }
    assert!(list.rebuilds() < list.queries(), "the list was reused");
    assert!(
        inc_tests < top_tests,
        "deferred separation list {inc_tests} volume tests, top-down {top_tests}"
    );
}
