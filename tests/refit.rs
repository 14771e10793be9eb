//! Refit (van den Bergen 1998, §4) after random vertex motion: the refitted tree bounds the
//! moved mesh, its AABBs equal the smallest boxes of their subtrees (what a rebuild of the
//! bounds gives), and queries still equal brute force.

mod common;
use common::*;
use obbtree::prelude::*;
use obbtree::query::brute_force;
use proptest::prelude::*;

/// The vertices of the triangles under node `i`.
fn subtree_points<B: BoundingVolume>(
    tree: &Bvh<B>,
    mesh: &TriMesh,
    i: usize,
    out: &mut Vec<Point>,
) {
    match tree.nodes()[i].children() {
        None => out.extend(mesh.triangle(tree.leaf_triangle(i).unwrap() as usize)),
        Some((l, r)) => {
            subtree_points(tree, mesh, l, out);
            subtree_points(tree, mesh, r, out);
        }
    }
}

fn moved(m: &TriMesh, offsets: &[(f64, f64, f64)]) -> Vec<Point> {
    m.vertices()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let o = offsets[i % offsets.len()];
            p + Vector::new(o.0, o.1, o.2)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn refit_bounds_the_moved_mesh(
        a in soup(50),
        b in soup(20),
        offsets in prop::collection::vec((-0.5f64..0.5, -0.5f64..0.5, -0.5f64..0.5), 1..20),
        pose in pose(1.0),
    ) {
        let mut aabb = Bvh::<Aabb>::build(a.clone(), &BuildOptions::van_den_bergen());
        let mut obb = Bvh::<Obb>::build(a.clone(), &BuildOptions::default());
        let mut sphere = Bvh::<Sphere>::build(a.clone(), &BuildOptions::default());
        let new = moved(&a, &offsets);
        aabb.set_vertices(new.clone()).unwrap();
        obb.set_vertices(new.clone()).unwrap();
        sphere.set_vertices(new.clone()).unwrap();
        aabb.validate().unwrap();
        obb.validate().unwrap();
        sphere.validate().unwrap();

        // Each refitted AABB is the smallest box of its subtree, as a rebuild would make it
        // (both in the tree's volume frame, which refits keep).
        let mesh = aabb.mesh().clone();
        let origin = aabb.origin();
        for i in 0..aabb.nodes().len() {
            let mut pts = Vec::new();
            subtree_points(&aabb, &mesh, i, &mut pts);
            let fresh = Aabb::from_points(pts.iter().map(|p| p - origin));
            let got = aabb.nodes()[i].bv;
            // Equal up to the conservative padding of the stored boxes (1e-6 of the sum of the
            // half extents, see obbtree::bv).
            let tol = 2e-6 * (fresh.half_extents().sum() + fresh.center().coords.amax()) + 1e-12;
            prop_assert!((got.mins() - fresh.mins()).amax() <= tol, "node {} min {:?} {:?} tol {}", i, got, fresh, tol);
            prop_assert!((got.maxs() - fresh.maxs()).amax() <= tol, "node {} max", i);
        }

        // Queries on the refitted trees equal brute force on the moved mesh.
        let tb_a = Bvh::<Aabb>::build(b.clone(), &BuildOptions::van_den_bergen());
        let tb_o = Bvh::<Obb>::build(b.clone(), &BuildOptions::default());
        let tb_s = Bvh::<Sphere>::build(b.clone(), &BuildOptions::default());
        let (rot, pos) = (rot_of(&pose), pose.translation.vector);
        let truth = brute_force(&mesh, &b, &rot, &pos);
        prop_assert_eq!(&contacts_relative(&aabb, &tb_a, &rot, &pos).contacts, &truth);
        prop_assert_eq!(&contacts_relative(&obb, &tb_o, &rot, &pos).contacts, &truth);
        prop_assert_eq!(&contacts_relative(&sphere, &tb_s, &rot, &pos).contacts, &truth);
    }
}

#[test]
fn bad_vertices_leave_the_tree_unchanged() {
    let m = load("torus.obj");
    let mut t = Bvh::<Aabb>::build(m.clone(), &BuildOptions::van_den_bergen());
    let before = t.nodes()[0].bv;
    let mut v = m.vertices().to_vec();
    v[7].y = f64::NAN;
    assert!(matches!(
        t.set_vertices(v),
        Err(MeshError::NonFinite { vertex: 7, .. })
    ));
    assert!(matches!(
        t.set_vertices(vec![Point::origin(); 3]),
        Err(MeshError::IndexOutOfRange { .. })
    ));
    assert_eq!(t.nodes()[0].bv, before);
    t.validate().unwrap();
}
