//! Where a model sits must not matter (issue: per-model volume frames): a model far from the
//! origin gets trees as tight as at the origin (the same box tests, an oracle from the unshifted
//! model) and the same answers as brute force; tiny and huge models answer like brute force;
//! coordinates beyond [`obbtree::mesh::MAX_COORDINATE`] are rejected by name; models too far
//! apart for single precision are decided by their bounding spheres.

mod common;
use common::*;
use obbtree::mesh::MAX_COORDINATE;
use obbtree::prelude::*;
use obbtree::query::{CollideWith, brute_force, collide_with};
use proptest::prelude::*;

fn shifted(m: &TriMesh, by: Vector) -> TriMesh {
    TriMesh::new(
        m.vertices().iter().map(|p| p + by).collect(),
        m.triangles().to_vec(),
        "shifted",
    )
    .unwrap()
}

fn scaled(m: &TriMesh, s: f64) -> TriMesh {
    TriMesh::new(
        m.vertices().iter().map(|p| p * s).collect(),
        m.triangles().to_vec(),
        "scaled",
    )
    .unwrap()
}

/// The pose `(rot, pos)` between two copies each shifted by `by`: `pos + by − rot · by`.
fn shifted_pose(rot: &Matrix3, pos: &Vector, by: &Vector) -> Vector {
    pos + by - rot * by
}

fn query<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot: &Matrix3,
    pos: &Vector,
    mode: ContactMode,
) -> CollisionReport {
    let mut r = CollisionReport::default();
    let options = QueryOptions {
        mode,
        ..QueryOptions::default()
    };
    collide_with(a, b, rot, pos, &options, CollideWith::default(), &mut r);
    r.contacts.sort_unstable();
    r
}

/// Teapot against teapot over 60 of the random poses, both shifted by `o` along (1, 1, 1), for
/// `o` = 1e5, 1e7, 1e8 and every tree type: the contacts are brute force's for the shifted pose
/// (the first 10 poses; after them, the unshifted OBB tree's, the same generic configuration),
/// and the box tests stay within 2% of the unshifted trees' (tight volumes: before volume frames,
/// 1e7 cost 18× the time).
#[test]
fn trees_far_from_the_origin() {
    let m = load("teapot.obj");
    let poses = obbtree::pose::read_poses(data("teapot_random.txt")).unwrap();
    let unshifted = Trees::new(&m);
    for o in [1e5, 1e7, 1e8] {
        let by = Vector::repeat(o);
        let ms = shifted(&m, by);
        let trees = Trees::new(&ms);
        let mut counts = [(0u64, 0u64); 3];
        for (k, p) in poses.iter().take(60).enumerate() {
            let rot = rot_of(&p.pose_ab);
            let pos = p.pose_ab.translation.vector;
            let pos_s = shifted_pose(&rot, &pos, &by);
            let r0 = unshifted.all(&rot, &pos);
            let rs = trees.all(&rot, &pos_s);
            let truth = if k < 10 {
                brute_force(&ms, &ms, &rot, &pos_s)
            } else {
                r0[0].contacts.clone()
            };
            for (i, (r0, rs)) in r0.iter().zip(&rs).enumerate() {
                assert_eq!(rs.contacts, truth, "tree {i} at {o}, pose {k}");
                counts[i].0 += r0.bv_tests;
                counts[i].1 += rs.bv_tests;
            }
            let first = query(
                &trees.obb,
                &trees.obb,
                &rot,
                &pos_s,
                ContactMode::FirstContact,
            );
            assert_eq!(first.colliding(), !truth.is_empty(), "{o}");
        }
        for (i, (n0, ns)) in counts.into_iter().enumerate() {
            assert!(
                (ns as f64) <= 1.02 * n0 as f64,
                "tree {i} at {o}: {ns} box tests vs {n0} at the origin"
            );
        }
    }
}

/// OBB, AABB and sphere trees of one mesh, validated.
struct Trees {
    obb: Bvh<Obb>,
    aabb: Bvh<Aabb>,
    sphere: Bvh<Sphere>,
}

impl Trees {
    fn new(m: &TriMesh) -> Trees {
        let t = Trees {
            obb: Bvh::build(m.clone(), &BuildOptions::default()),
            aabb: Bvh::build(m.clone(), &BuildOptions::van_den_bergen()),
            sphere: Bvh::build(m.clone(), &BuildOptions::default()),
        };
        t.obb.validate().unwrap();
        t.aabb.validate().unwrap();
        t.sphere.validate().unwrap();
        t
    }

    /// All-contacts queries of the mesh against itself with each tree type.
    fn all(&self, rot: &Matrix3, pos: &Vector) -> [CollisionReport; 3] {
        let c = ContactMode::AllContacts;
        [
            query(&self.obb, &self.obb, rot, pos, c),
            query(&self.aabb, &self.aabb, rot, pos, c),
            query(&self.sphere, &self.sphere, rot, pos, c),
        ]
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Soups scaled from 1e-300 to 1e29 and shifted up to 1e29 answer like brute force, with
    /// every tree type, and every tree validates.
    #[test]
    fn any_scale_and_offset_matches_brute_force(
        a in soup(25),
        b in soup(25),
        pose in pose(1.5),
        exp in -300i32..=29,
        shift in prop_oneof![Just(0.0), -1e29f64..1e29],
    ) {
        let s = 10f64.powi(exp);
        let by = Vector::new(shift, -0.5 * shift, 0.25 * shift);
        let (ma, mb) = (shifted(&scaled(&a, s), by), shifted(&scaled(&b, s), by));
        let rot = rot_of(&pose);
        let pos = shifted_pose(&rot, &(pose.translation.vector * s), &by);
        let truth = brute_force(&ma, &mb, &rot, &pos);
        let o = (Bvh::<Obb>::build(ma.clone(), &BuildOptions::default()), Bvh::<Obb>::build(mb.clone(), &BuildOptions::default()));
        let aa = (Bvh::<Aabb>::build(ma.clone(), &BuildOptions::default()), Bvh::<Aabb>::build(mb.clone(), &BuildOptions::default()));
        let sp = (Bvh::<Sphere>::build(ma.clone(), &BuildOptions::default()), Bvh::<Sphere>::build(mb.clone(), &BuildOptions::default()));
        for r in [o.0.validate(), o.1.validate(), aa.0.validate(), aa.1.validate(), sp.0.validate(), sp.1.validate()] {
            prop_assert!(r.is_ok(), "{:?}", r);
        }
        prop_assert_eq!(&query(&o.0, &o.1, &rot, &pos, ContactMode::AllContacts).contacts, &truth, "OBB");
        prop_assert_eq!(&query(&aa.0, &aa.1, &rot, &pos, ContactMode::AllContacts).contacts, &truth, "AABB");
        prop_assert_eq!(&query(&sp.0, &sp.1, &rot, &pos, ContactMode::AllContacts).contacts, &truth, "sphere");
    }
}

#[test]
fn coordinates_beyond_the_limit_are_rejected_by_name() {
    let vertices = vec![
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1e39, 0.0),
    ];
    match TriMesh::new(vertices, vec![[0, 1, 2]], "inline").unwrap_err() {
        MeshError::OutOfRange {
            vertex,
            value,
            limit,
            ..
        } => {
            assert_eq!((vertex, value, limit), (2, 1e39, MAX_COORDINATE));
        }
        e => panic!("{e:?}"),
    }
    let path = temp_file("huge.obj", "v 0 0 0\nv 1 0 0\nv 0 -1e39 0\nf 1 2 3\n");
    let msg = load_obj(&path).unwrap_err().to_string();
    assert!(
        msg.contains("huge.obj, line 3: vertex 3 ") && msg.contains("1e30"),
        "{msg}"
    );
    // The limit itself is accepted and every tree type finds the triangle touching itself.
    let at_limit = TriMesh::new(
        vec![
            Point::new(-MAX_COORDINATE, 0.0, 0.0),
            Point::new(MAX_COORDINATE, 0.0, 0.0),
            Point::new(0.0, MAX_COORDINATE, MAX_COORDINATE),
        ],
        vec![[0, 1, 2]],
        "at the limit",
    )
    .unwrap();
    let id = Matrix3::identity();
    let zero = Vector::zeros();
    let o = Bvh::<Obb>::build(at_limit.clone(), &BuildOptions::default());
    let a = Bvh::<Aabb>::build(at_limit.clone(), &BuildOptions::default());
    let s = Bvh::<Sphere>::build(at_limit, &BuildOptions::default());
    o.validate().unwrap();
    a.validate().unwrap();
    s.validate().unwrap();
    for contacts in [
        query(&o, &o, &id, &zero, ContactMode::AllContacts).contacts,
        query(&a, &a, &id, &zero, ContactMode::AllContacts).contacts,
        query(&s, &s, &id, &zero, ContactMode::AllContacts).contacts,
    ] {
        assert_eq!(contacts, vec![(0, 0)]);
    }
}

#[test]
fn models_beyond_single_precision_apart_are_one_sphere_test() {
    let m = load("spot.obj");
    let t = Bvh::<Obb>::build(m.clone(), &BuildOptions::default());
    let s = Bvh::<Sphere>::build(m.clone(), &BuildOptions::default());
    let id = Matrix3::identity();
    for d in [1e36, 1e200, -1e300] {
        let pos = Vector::new(d, 0.5 * d, 0.0);
        let r = query(&t, &t, &id, &pos, ContactMode::AllContacts);
        assert_eq!((r.contacts.len(), r.bv_tests, r.tri_tests), (0, 1, 0));
        let r = query(&s, &s, &id, &pos, ContactMode::FirstContact);
        assert_eq!((r.contacts.len(), r.bv_tests, r.tri_tests), (0, 1, 0));
    }
    // Just inside single precision's range the trees themselves decide, still disjoint.
    let pos = Vector::new(1e34, 0.0, 0.0);
    let r = query(&t, &t, &id, &pos, ContactMode::AllContacts);
    assert!(!r.colliding() && r.bv_tests == 1, "{r:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A tiny triangle of B placed against a tiny triangle of A, a vertex of each at the same
    /// point (to rounding), where both sit far from the centres of their volume frames: A
    /// reaches from a large triangle near `−reach` to the tiny one near `+reach` along x, so the
    /// volume frames are `reach` apart while the boxes tested last are `size` across. Placing
    /// B's boxes in single precision errs by about `1e-7 · reach`, far more than the boxes'
    /// relative slack: the tests must still find exactly brute force's contacts, with every tree
    /// type and in first-contact mode.
    #[test]
    fn tiny_triangles_touching_far_from_the_frames_origins(
        reach in 100.0f64..1e4,
        size in 1e-4f64..1e-2,
        corner in (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0),
        edges in prop::array::uniform4((-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0)),
        pose in pose(1.0),
    ) {
        let v = |(x, y, z): (f64, f64, f64)| Vector::new(x, y, z);
        let a0 = Point::new(reach, 0.0, 0.0) + v(corner) * size;
        let ma = TriMesh::new(
            vec![
                Point::new(-reach, -1.0, 0.0),
                Point::new(-reach, 1.0, 0.5),
                Point::new(-reach + 1.0, 0.0, -0.5),
                a0,
                a0 + v(edges[0]) * size,
                a0 + v(edges[1]) * size,
            ],
            vec![[0, 1, 2], [3, 4, 5]],
            "far tiny triangle",
        )
        .unwrap();
        let rot = rot_of(&pose);
        // B's frame sits near the shared vertex; its first vertex is A's `a0` once placed.
        let pos = a0.coords + pose.translation.vector * size;
        let b0 = Point::from(rot.transpose() * (a0.coords - pos));
        let mb = TriMesh::new(
            vec![b0, b0 + v(edges[2]) * size, b0 + v(edges[3]) * size],
            vec![[0, 1, 2]],
            "tiny triangle",
        )
        .unwrap();
        let truth = brute_force(&ma, &mb, &rot, &pos);
        let o = (Bvh::<Obb>::build(ma.clone(), &BuildOptions::default()), Bvh::<Obb>::build(mb.clone(), &BuildOptions::default()));
        let aa = (Bvh::<Aabb>::build(ma.clone(), &BuildOptions::default()), Bvh::<Aabb>::build(mb.clone(), &BuildOptions::default()));
        let sp = (Bvh::<Sphere>::build(ma.clone(), &BuildOptions::default()), Bvh::<Sphere>::build(mb.clone(), &BuildOptions::default()));
        prop_assert_eq!(&query(&o.0, &o.1, &rot, &pos, ContactMode::AllContacts).contacts, &truth, "OBB");
        prop_assert_eq!(query(&o.0, &o.1, &rot, &pos, ContactMode::FirstContact).colliding(), !truth.is_empty(), "OBB first contact");
        prop_assert_eq!(&query(&aa.0, &aa.1, &rot, &pos, ContactMode::AllContacts).contacts, &truth, "AABB");
        prop_assert_eq!(&query(&sp.0, &sp.1, &rot, &pos, ContactMode::AllContacts).contacts, &truth, "sphere");
    }
}
