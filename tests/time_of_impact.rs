//! Time of impact by conservative advancement (`query::time_of_impact`) against a dense-sampling
//! oracle, through a wall one triangle thick at any speed, and the contact normals
//! (`query::contact_normal`, `QueryOptions::normals`) against an exact bisection oracle.

mod common;

use common::{exact_intersect_f64, load};
use obbtree::bv::{Aabb, Obb};
use obbtree::bvh::{BuildOptions, Bvh, ObbTree};
use obbtree::math::{Isometry, Point, Real, UnitQuaternion, Vector};
use obbtree::mesh::TriMesh;
use obbtree::motion::RigidMotion;
use obbtree::query::{
    CollideWith, CollisionReport, DistanceOptions, NormalFeature, QueryOptions, ToiError,
    ToiOptions, ToiOutcome, collide_with, contact_normal, distance_with, time_of_impact,
};

/// A deterministic stream of numbers in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn unit(&mut self) -> Vector {
        loop {
            let v = Vector::new(self.next(), self.next(), self.next()) * 2.0 - Vector::repeat(1.0);
            if v.norm() > 0.1 && v.norm() <= 1.0 {
                return v.normalize();
            }
        }
    }
    fn rotation(&mut self) -> UnitQuaternion {
        UnitQuaternion::from_scaled_axis(self.unit() * (self.next() * std::f64::consts::PI))
    }
}

fn parts(pose: &Isometry) -> (obbtree::math::Matrix3, Vector) {
    (
        pose.rotation.to_rotation_matrix().into_inner(),
        pose.translation.vector,
    )
}

fn touching<B: obbtree::bv::BoundingVolume>(a: &Bvh<B>, b: &Bvh<B>, pose: &Isometry) -> bool {
    let (rot, pos) = parts(pose);
    let mut r = CollisionReport::default();
    collide_with(
        a,
        b,
        &rot,
        &pos,
        &QueryOptions::first_contact(),
        CollideWith::default(),
        &mut r,
    );
    r.colliding()
}

/// The distance at `pose` on AABB trees: an oracle independent of the OBB trees the time of
/// impact walks.
fn aabb_distance(a: &Bvh<Aabb>, b: &Bvh<Aabb>, pose: &Isometry) -> Real {
    let (rot, pos) = parts(pose);
    distance_with(a, b, &rot, &pos, &DistanceOptions::default())
        .unwrap()
        .distance
}

/// A square sheet one triangle thick in the plane x = 0, 4 m on a side.
fn wall() -> TriMesh {
    let v = vec![
        Point::new(0.0, -2.0, -2.0),
        Point::new(0.0, 2.0, -2.0),
        Point::new(0.0, 2.0, 2.0),
        Point::new(0.0, -2.0, 2.0),
    ];
    TriMesh::new(v, vec![[0, 1, 2], [0, 2, 3]], "wall").unwrap()
}

/// A tetrahedron of edge about 0.1 m around the origin.
fn pebble() -> TriMesh {
    let v = vec![
        Point::new(0.05, 0.05, 0.05),
        Point::new(-0.05, -0.05, 0.05),
        Point::new(-0.05, 0.05, -0.05),
        Point::new(0.05, -0.05, -0.05),
    ];
    TriMesh::new(
        v,
        vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
        "pebble",
    )
    .unwrap()
}

#[test]
fn a_throw_through_a_one_triangle_wall_stops_on_its_side_at_any_speed() {
    let a = ObbTree::build(wall(), &BuildOptions::default());
    let b = ObbTree::build(pebble(), &BuildOptions::default());
    let tol = 1e-4;
    for speed in [50.0, 500.0] {
        for spin in [0.0, 40.0] {
            // One 1/60 s step from 0.5 m before the wall: it would end behind it.
            let dt = 1.0 / 60.0;
            let start = Isometry::new(Vector::new(-0.5, 0.1, -0.2), Vector::new(0.3, 0.1, 0.0));
            let motion = RigidMotion::about(
                &start,
                Point::origin(),
                Vector::new(speed * dt, 0.0, 0.0),
                Vector::new(0.0, spin * dt, spin * dt),
            );
            assert!(
                motion.pose_at(1.0).translation.vector.x > 0.3,
                "the end is behind the wall"
            );
            let report = time_of_impact(&a, &b, &motion, &ToiOptions::new(tol)).unwrap();
            let ToiOutcome::Impact(hit) = report.outcome else {
                panic!("{speed} m/s, spin {spin}: {:?}", report.outcome);
            };
            // On the near side, within the tolerance, not through it.
            let farthest = b
                .mesh()
                .vertices()
                .iter()
                .map(|p| (hit.pose * p).x)
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(
                farthest < 0.0 && farthest >= -tol,
                "{speed} m/s: nearest corner at x = {farthest}"
            );
            assert!(
                hit.distance <= tol && hit.distance >= 0.5 * tol - 1e-12,
                "{}",
                hit.distance
            );
            // The normal points from the wall to the pebble: −x.
            let n = hit.normal.unwrap();
            assert!((n - Vector::new(-1.0, 0.0, 0.0)).norm() < 1e-6, "{n}");
            // Dense sampling finds no contact before it.
            for k in 0..=10_000 {
                let t = hit.toi * k as f64 / 10_000.0;
                assert!(
                    !touching(&a, &b, &motion.pose_at(t)),
                    "contact at {t} < {}",
                    hit.toi
                );
            }
        }
    }
}

/// Random motions of `b` against `a` that pass close by or through it, against 10,000 sampled
/// poses each. Returns (motions, impacts, clear, sampled poses).
fn sampled_oracle(
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    motions: usize,
    seed: u64,
) -> (usize, usize, usize, usize) {
    let (lo, hi) = mesh_a.bounds();
    let size = (hi - lo).norm();
    let center = nalgebra::center(&lo, &hi);
    let tol = 1e-3 * size;
    let (oa, ob) = (
        ObbTree::build(mesh_a.clone(), &BuildOptions::default()),
        ObbTree::build(mesh_b.clone(), &BuildOptions::default()),
    );
    let (aa, ab) = (
        Bvh::<Aabb>::build(mesh_a, &BuildOptions::default()),
        Bvh::<Aabb>::build(mesh_b, &BuildOptions::default()),
    );
    let mut rng = Rng(seed);
    let (mut impacts, mut clear, mut samples) = (0, 0, 0);
    for m in 0..motions {
        // From well outside A to a point near its centre or past it, turning up to π.
        let from = center + rng.unit() * size * 1.2;
        let to = center + rng.unit() * size * (0.05 + 0.4 * rng.next());
        let start = Isometry::from_parts(from.into(), rng.rotation());
        let end = Isometry::from_parts(to.into(), rng.rotation());
        let motion = RigidMotion::between(&start, &end);
        let options = ToiOptions {
            rel_err: if m % 2 == 0 { 0.0 } else { 0.25 },
            max_iterations: 100_000,
            ..ToiOptions::new(tol)
        };
        let report = time_of_impact(&oa, &ob, &motion, &options).unwrap();
        let first_contact = (0..=10_000)
            .map(|k| k as f64 / 10_000.0)
            .find(|&t| touching(&oa, &ob, &motion.pose_at(t)));
        samples += 10_001;
        match report.outcome {
            ToiOutcome::Impact(hit) => {
                impacts += 1;
                if let Some(tc) = first_contact {
                    assert!(
                        hit.toi <= tc,
                        "motion {m}: toi {} after the first sampled contact {tc}",
                        hit.toi
                    );
                }
                let d = aabb_distance(&aa, &ab, &hit.pose);
                assert!(
                    d <= tol,
                    "motion {m}: {d} apart at the impact, tolerance {tol}"
                );
                // Before the impact, never closer than τ/2: every 100th sample checked.
                for k in (0..10_000).step_by(100) {
                    let t = hit.toi * k as f64 / 10_000.0;
                    let d = aabb_distance(&aa, &ab, &motion.pose_at(t));
                    assert!(
                        d >= 0.5 * tol * (1.0 - 1e-9),
                        "motion {m}: {d} apart at {t} < toi {}",
                        hit.toi
                    );
                }
            }
            ToiOutcome::Clear => {
                clear += 1;
                assert_eq!(
                    first_contact, None,
                    "motion {m}: clear, but a sampled contact"
                );
                for k in (0..=10_000).step_by(100) {
                    let d = aabb_distance(&aa, &ab, &motion.pose_at(k as f64 / 10_000.0));
                    assert!(
                        d >= 0.5 * tol * (1.0 - 1e-9),
                        "motion {m}: clear but {d} apart"
                    );
                }
            }
            ToiOutcome::Unresolved { reached } => panic!("motion {m}: unresolved at {reached}"),
        }
    }
    (motions, impacts, clear, samples)
}

#[test]
fn the_teapot_never_passes_its_first_sampled_contact() {
    let counts = sampled_oracle(load("teapot.obj"), load("teapot.obj"), 12, 0x7ea907);
    eprintln!("teapot: (motions, impacts, clear, sampled poses) = {counts:?}");
    assert_eq!(counts.0, counts.1 + counts.2);
    assert!(counts.1 >= 8, "most motions end in the teapot: {counts:?}");
}

#[test]
fn the_bunny_never_passes_its_first_sampled_contact() {
    let counts = sampled_oracle(load("bunny-500.obj"), load("stanford-bunny.obj"), 8, 0xb0b);
    eprintln!("bunny: (motions, impacts, clear, sampled poses) = {counts:?}");
    assert_eq!(counts.0, counts.1 + counts.2);
    assert!(counts.1 >= 5, "most motions end in the bunny: {counts:?}");
}

#[test]
fn a_start_within_the_tolerance_is_an_impact_at_zero_and_bad_requests_are_typed_errors() {
    let a = ObbTree::build(wall(), &BuildOptions::default());
    let b = ObbTree::build(pebble(), &BuildOptions::default());
    let start = Isometry::translation(-0.05, 0.0, 0.0); // a corner on the wall
    let motion = RigidMotion::between(&start, &Isometry::translation(-3.0, 0.0, 0.0));
    let r = time_of_impact(&a, &b, &motion, &ToiOptions::new(1e-3)).unwrap();
    assert_eq!(r.toi(), Some(0.0));
    assert_eq!(r.distance_queries, 1);
    // Moving away from far off: clear after the advancement's steps, the whole motion safe.
    let away = RigidMotion::between(
        &Isometry::translation(-1.0, 0.0, 0.0),
        &Isometry::translation(-3.0, 0.0, 0.0),
    );
    let r = time_of_impact(&a, &b, &away, &ToiOptions::new(1e-3)).unwrap();
    assert_eq!(r.outcome, ToiOutcome::Clear);
    assert_eq!(r.safe_until(), 1.0);
    // A motion along the wall at 1.2 τ: each step advances 0.7 τ, so 5 steps leave it
    // unresolved (never "clear"), and enough of them prove it clear.
    let graze = RigidMotion::between(
        &Isometry::translation(-0.0512, -1.5, 0.0),
        &Isometry::translation(-0.0512, 1.5, 0.0),
    );
    let options = ToiOptions {
        max_iterations: 5,
        ..ToiOptions::new(1e-3)
    };
    match time_of_impact(&a, &b, &graze, &options).unwrap().outcome {
        ToiOutcome::Unresolved { reached } => {
            // Five steps of (1.2 τ − τ/2) / (3 m per unit of t).
            assert!((reached - 5.0 * 0.7e-3 / 3.0).abs() < 1e-12, "{reached}");
        }
        other => panic!("{other:?}"),
    }
    let options = ToiOptions {
        max_iterations: 10_000,
        ..ToiOptions::new(1e-3)
    };
    let r = time_of_impact(&a, &b, &graze, &options).unwrap();
    assert_eq!(r.outcome, ToiOutcome::Clear);
    assert_eq!(r.distance_queries, (3.0f64 / 0.7e-3).ceil() as u32 + 1);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            time_of_impact(&a, &b, &motion, &ToiOptions::new(bad)),
            Err(ToiError::Tolerance(_))
        ));
    }
    let rel = ToiOptions {
        rel_err: 1.0,
        ..ToiOptions::new(1e-3)
    };
    assert_eq!(
        time_of_impact(&a, &b, &motion, &rel),
        Err(ToiError::RelativeError(1.0))
    );
    let mut nan = motion;
    nan.displacement.x = f64::NAN;
    assert_eq!(
        time_of_impact(&a, &b, &nan, &ToiOptions::new(1e-3)),
        Err(ToiError::Motion)
    );
}

/// A contact and its normal's bits (normal and depth).
type Keyed = ((u32, u32), Option<[u64; 4]>);

/// The contacts with their normals' bits, sorted: the parallel walk's order differs.
fn keyed(r: &CollisionReport) -> Vec<Keyed> {
    let mut v: Vec<_> = r
        .contacts
        .iter()
        .zip(&r.normals)
        .map(|(c, n)| {
            let bits = n.map(|n| {
                [
                    n.normal.x.to_bits(),
                    n.normal.y.to_bits(),
                    n.normal.z.to_bits(),
                    n.depth.to_bits(),
                ]
            });
            (*c, bits)
        })
        .collect();
    v.sort();
    v
}

/// The least translation along `u` that leaves `q` not intersecting `p` (exact test), by
/// bisection up to `hi`.
fn separation_along(p: &[Point; 3], q: &[Point; 3], u: &Vector, hi: f64) -> f64 {
    let moved = |s: f64| q.map(|x| x + u * s);
    if exact_intersect_f64(p, &moved(hi)) {
        return f64::INFINITY;
    }
    let (mut lo, mut hi) = (0.0, hi);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if exact_intersect_f64(p, &moved(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

#[test]
fn contact_normals_are_the_least_separating_translations_of_the_contacts() {
    let mesh = load("bunny-500.obj");
    let a = ObbTree::build(mesh.clone(), &BuildOptions::default());
    let b = ObbTree::build(mesh.clone(), &BuildOptions::default());
    let (lo, hi) = mesh.bounds();
    let size = (hi - lo).norm();
    let mut rng = Rng(0xc0ffee);
    let (mut checked, mut deep, mut faces, mut edges) = (0, 0, 0, 0);
    let options = QueryOptions {
        normals: true,
        ..QueryOptions::default()
    };
    for _ in 0..40 {
        let pose = Isometry::from_parts((rng.unit() * size * 0.3).into(), rng.rotation());
        let (rot, pos) = parts(&pose);
        let mut r = CollisionReport::default();
        collide_with(&a, &b, &rot, &pos, &options, CollideWith::default(), &mut r);
        assert_eq!(r.normals.len(), r.contacts.len());
        // The same normals on the parallel walk and without them none.
        let mut par = CollisionReport::default();
        collide_with(
            &a,
            &b,
            &rot,
            &pos,
            &options,
            CollideWith::parallel(),
            &mut par,
        );
        assert_eq!(keyed(&r), keyed(&par));
        let mut plain = CollisionReport::default();
        collide_with(
            &a,
            &b,
            &rot,
            &pos,
            &QueryOptions::default(),
            CollideWith::default(),
            &mut plain,
        );
        assert!(plain.normals.is_empty());
        for (&(ia, ib), n) in r.contacts.iter().zip(&r.normals).take(10) {
            let p = a.mesh().triangle(ia as usize);
            let q = b
                .mesh()
                .triangle(ib as usize)
                .map(|x| obbtree::math::transform_point(&rot, &pos, &x));
            let n = n.expect("the bunny's triangles have area");
            assert!((n.normal.norm() - 1.0).abs() < 1e-12);
            match n.feature {
                NormalFeature::FaceA | NormalFeature::FaceB => faces += 1,
                NormalFeature::Edges(..) => edges += 1,
            }
            // Moving B by the depth (and a hair) along the normal separates the pair ...
            let hair = 1e-9 * size;
            let beyond = separation_along(&p, &q, &n.normal, n.depth + hair);
            assert!(
                beyond <= n.depth + hair,
                "pair ({ia}, {ib}): {n:?} does not separate"
            );
            // ... and no direction separates it with less (100 random directions, exact test).
            for _ in 0..100 {
                let u = rng.unit();
                let s = separation_along(&p, &q, &u, 2.0 * size);
                assert!(
                    s >= n.depth - hair,
                    "pair ({ia}, {ib}): {s} along {u} < depth {}",
                    n.depth
                );
            }
            // Swapping the triangles flips the normal, the same depth.
            let swapped = contact_normal(&q, &p).unwrap();
            assert!((swapped.depth - n.depth).abs() <= 1e-12 * size);
            deep += (n.depth > hair) as usize;
            checked += 1;
        }
    }
    eprintln!(
        "contact normals: {checked} checked, {deep} interpenetrating, {faces} face, {edges} edge–edge"
    );
    assert!(
        checked >= 200 && deep >= 50,
        "{checked} checked, {deep} deep"
    );
}

#[test]
fn obb_and_aabb_trees_agree_on_the_time_of_impact() {
    let mesh = load("teapot.obj");
    let (oa, aa) = (
        ObbTree::build(mesh.clone(), &BuildOptions::default()),
        Bvh::<Aabb>::build(mesh.clone(), &BuildOptions::default()),
    );
    let _: &Bvh<Obb> = &oa;
    let mut rng = Rng(42);
    for _ in 0..10 {
        let start = Isometry::from_parts((rng.unit() * 8.0).into(), rng.rotation());
        let end = Isometry::from_parts((rng.unit() * 1.0).into(), rng.rotation());
        let motion = RigidMotion::between(&start, &end);
        let options = ToiOptions::new(1e-3);
        let (o, a) = (
            time_of_impact(&oa, &oa, &motion, &options).unwrap(),
            time_of_impact(&aa, &aa, &motion, &options).unwrap(),
        );
        // The same distances step by step (exact minima), so the same times.
        assert_eq!(o.toi(), a.toi());
        assert_eq!(o.distance_queries, a.distance_queries);
    }
}
