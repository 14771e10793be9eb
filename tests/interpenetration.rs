//! No recorded pose of any scene path has one body passing through the other (issue: motion
//! that shows what the paper shows).
//!
//! The oracle, independent of the dynamics engine's own check: at every step of every committed
//! path, no edge of either body passes through a triangle of the other with both ends more than
//! the scene's tolerance ([`DynamicsConfig::penetration`]) off that triangle's plane, in both
//! directions (the environment's edges through the body, the body's edges through the
//! environment). Whether an edge passes through a triangle is decided with the library's exact
//! orientation predicates (the ends strictly on opposite sides of the plane, the line through
//! the closed triangle); the distances to the plane in double precision. The candidates are the
//! triangle pairs the OBB trees report intersecting: an edge can only pass through a triangle
//! that the edge's own triangle intersects.
#![cfg(feature = "paper")]

mod common;

use common::{edges_through, passes_through};
use obbtree::bvh::{BuildOptions, ObbTree};
use obbtree::math::relative_parts;
use obbtree::math::{Isometry, Point};
use obbtree::query::{CollideWith, CollisionReport, QueryOptions, collide_with};
use obbtree::scenes::{self, SceneId, SceneSpec, dynamics::DynamicsConfig};
use std::path::Path;

/// (steps checked, contact pairs checked, crossings found) of the committed path.
fn check(id: SceneId) -> (usize, u64, Vec<String>) {
    let scene = scenes::load_scene(&assets(), id).unwrap();
    let poses: Vec<Isometry> = scene.path.iter().map(|p| p.pose_ab).collect();
    check_poses(&scene, id, &poses)
}

fn assets() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// (steps checked, contact pairs checked, crossings found) of a path of the scene's object.
fn check_poses(
    scene: &scenes::Scene,
    id: SceneId,
    poses: &[Isometry],
) -> (usize, u64, Vec<String>) {
    let config: DynamicsConfig = SceneSpec::of(id).dynamics;
    let env = ObbTree::build(scene.environment.clone(), &BuildOptions::default());
    let obj = ObbTree::build(scene.object.clone(), &BuildOptions::default());
    let mut report = CollisionReport::default();
    let (mut pairs, mut found) = (0u64, Vec::new());
    for (step, pose_ab) in poses.iter().enumerate() {
        {
            let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), pose_ab);
            collide_with(
                &env,
                &obj,
                &rot_ab,
                &pos_ab,
                &QueryOptions::default(),
                CollideWith::default(),
                &mut report,
            )
        };
        for &(ia, ib) in &report.contacts {
            pairs += 1;
            let ta = env.mesh().triangle(ia as usize);
            let tb = obj.mesh().triangle(ib as usize).map(|p| pose_ab * p);
            if edges_through(&tb, &ta, config.penetration) {
                found.push(format!(
                    "step {step}: body triangle {ib}'s edge through environment triangle {ia}"
                ));
            }
            if edges_through(&ta, &tb, config.penetration) {
                found.push(format!(
                    "step {step}: environment triangle {ia}'s edge through body triangle {ib}"
                ));
            }
        }
    }
    (poses.len(), pairs, found)
}

#[test]
fn the_oracle_sees_a_tooth_through_the_torus() {
    // The oracle itself: a triangle pierced by a long edge is found, a touching one is not.
    let t = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
    ];
    let tol = 5e-4;
    assert!(passes_through(
        &Point::new(0.2, 0.2, -0.1),
        &Point::new(0.25, 0.2, 0.3),
        &t,
        tol
    ));
    assert!(!passes_through(
        &Point::new(0.2, 0.2, -1e-4),
        &Point::new(0.25, 0.2, 0.3),
        &t,
        tol
    ));
    assert!(!passes_through(
        &Point::new(0.9, 0.9, -0.1),
        &Point::new(0.9, 0.9, 0.3),
        &t,
        tol
    ));
    assert!(!passes_through(
        &Point::new(0.2, 0.2, 0.1),
        &Point::new(0.25, 0.2, 0.3),
        &t,
        tol
    ));
}

#[test]
fn the_path_check_finds_a_crossing_injected_into_the_torus_path() {
    // The real pipeline's positive control: the committed torus path with one pose, where the
    // torus rests on the landscape, lowered 5 cm into it.
    let scene = scenes::load_scene(&assets(), SceneId::Torus).unwrap();
    let mut poses: Vec<Isometry> = scene.path.iter().map(|p| p.pose_ab).collect();
    let k = poses.len() - 10;
    poses[k].translation.vector.y -= 0.05;
    let (_, _, found) = check_poses(&scene, SceneId::Torus, &poses);
    assert!(!found.is_empty(), "the injected crossing is not reported");
    let prefix = format!("step {k}:");
    assert!(
        found.iter().all(|f| f.starts_with(&prefix)),
        "only step {k} crosses: {:?}",
        &found[..found.len().min(3)]
    );
}

#[test]
fn no_pipes_pose_interpenetrates() {
    let (steps, pairs, found) = check(SceneId::Pipes);
    assert!(
        found.is_empty(),
        "{} crossings: {:?}",
        found.len(),
        &found[..found.len().min(5)]
    );
    assert_eq!(steps, 4008);
    assert!(pairs > 0, "the path must touch to test anything");
}

#[test]
fn no_torus_pose_interpenetrates() {
    let (steps, pairs, found) = check(SceneId::Torus);
    assert!(
        found.is_empty(),
        "{} crossings: {:?}",
        found.len(),
        &found[..found.len().min(5)]
    );
    assert_eq!(steps, 1298);
    assert!(pairs > 0, "the path must touch to test anything");
}

#[test]
fn no_torpedo_pose_interpenetrates() {
    let (steps, pairs, found) = check(SceneId::Torpedo);
    assert!(
        found.is_empty(),
        "{} crossings: {:?}",
        found.len(),
        &found[..found.len().min(5)]
    );
    assert_eq!(steps, 1500);
    assert!(pairs > 0, "the path must touch to test anything");
}

/// A closed box of half size `h` centred at `c`: 12 triangles.
fn cube(c: [f64; 3], h: f64) -> (Vec<Point>, Vec<[u32; 3]>) {
    let v: Vec<Point> = (0..8)
        .map(|k| {
            let s = |bit: u32| if k & bit == 0 { -h } else { h };
            Point::new(c[0] + s(1), c[1] + s(2), c[2] + s(4))
        })
        .collect();
    let f = [
        [0, 1, 3],
        [0, 3, 2],
        [4, 6, 7],
        [4, 7, 5],
        [0, 4, 5],
        [0, 5, 1],
        [2, 3, 7],
        [2, 7, 6],
        [0, 2, 6],
        [0, 6, 4],
        [1, 5, 7],
        [1, 7, 3],
    ];
    (v, f.to_vec())
}

#[test]
fn a_dropped_box_lands_on_a_spiked_floor_and_rests_without_passing_through() {
    use obbtree::math::Vector;
    use obbtree::mesh::TriMesh;
    use obbtree::scenes::dynamics::{Gravity, Simulation};
    // A floor at y = 0 with a thin spike (a tall, narrow tetrahedron) the box falls across.
    let mut v = vec![
        Point::new(-3.0, 0.0, -3.0),
        Point::new(3.0, 0.0, -3.0),
        Point::new(3.0, 0.0, 3.0),
        Point::new(-3.0, 0.0, 3.0),
        Point::new(0.3, 0.0, 0.0),
        Point::new(0.35, 0.0, 0.05),
        Point::new(0.35, 0.0, -0.05),
        Point::new(0.33, 0.6, 0.0),
    ];
    let f = vec![[0, 2, 1], [0, 3, 2], [4, 5, 7], [5, 6, 7], [6, 4, 7]];
    let floor = TriMesh::new(std::mem::take(&mut v), f, "spiked floor").unwrap();
    let (bv, bf) = cube([0.0, 0.0, 0.0], 0.25);
    let body = TriMesh::new(bv, bf, "box").unwrap();
    let env = ObbTree::build(floor, &BuildOptions::default());
    let obj = ObbTree::build(body, &BuildOptions::default());
    let config = DynamicsConfig {
        steps: 600,
        gravity: Gravity::Uniform(Vector::new(0.0, -9.81, 0.0)),
        ..SceneSpec::of(SceneId::Torus).dynamics
    };
    let start = Isometry::new(Vector::new(0.2, 1.4, 0.1), Vector::new(0.3, 0.2, 0.5));
    let mut sim = Simulation::new(
        &env,
        &obj,
        &start,
        Vector::zeros(),
        Vector::zeros(),
        &config,
    );
    let (mut touched, mut most) = (0, 0);
    for step in 0..config.steps {
        let pose = *sim.pose();
        for &(ia, ib) in &sim.report().contacts {
            let ta = env.mesh().triangle(ia as usize);
            let tb = obj.mesh().triangle(ib as usize).map(|p| pose * p);
            assert!(
                !edges_through(&ta, &tb, config.penetration)
                    && !edges_through(&tb, &ta, config.penetration),
                "step {step}: pair ({ia}, {ib}) passes through"
            );
        }
        touched += !sim.report().contacts.is_empty() as usize;
        most = most.max(sim.report().contacts.len());
        sim.step(&env, &obj);
    }
    assert!(sim.asleep(), "the box must come to rest");
    assert!(
        touched > 0 && !sim.report().contacts.is_empty(),
        "it rests touching"
    );
    assert!(
        most <= 24,
        "at most a few contacts per step, not growing ones ({most})"
    );
    // It rests above the floor, not through it: every vertex at y ≥ −tolerance.
    let pose = *sim.pose();
    let lowest = obj
        .mesh()
        .vertices()
        .iter()
        .map(|p| (pose * p).y)
        .fold(f64::INFINITY, f64::min);
    assert!(lowest >= -config.penetration, "lowest vertex at {lowest}");
}

/// Parallel sheets `x = k·spacing` for `k` in `-n..=n`, 20 m on a side, two triangles each.
fn sheets(n: i32, spacing: f64) -> obbtree::mesh::TriMesh {
    let (mut v, mut f) = (Vec::new(), Vec::new());
    for k in -n..=n {
        let x = k as f64 * spacing;
        let b = v.len() as u32;
        v.extend([
            Point::new(x, -10.0, -10.0),
            Point::new(x, 10.0, -10.0),
            Point::new(x, 10.0, 10.0),
            Point::new(x, -10.0, 10.0),
        ]);
        f.extend([[b, b + 1, b + 2], [b, b + 2, b + 3]]);
    }
    obbtree::mesh::TriMesh::new(v, f, "sheets").unwrap()
}

#[test]
fn a_body_thrown_at_a_one_triangle_wall_never_passes_through_at_50_or_500_m_per_s() {
    use obbtree::math::Vector;
    use obbtree::mesh::TriMesh;
    use obbtree::scenes::dynamics::{Gravity, Simulation};
    let env = ObbTree::build(sheets(0, 1.0), &BuildOptions::default());
    let (bv, bf) = cube([0.0, 0.0, 0.0], 0.05);
    let obj = ObbTree::build(
        TriMesh::new(bv, bf, "box").unwrap(),
        &BuildOptions::default(),
    );
    let config = DynamicsConfig {
        dt: 1.0 / 60.0,
        steps: 120,
        gravity: Gravity::Uniform(Vector::zeros()),
        max_speed: 1000.0,
        max_angular_speed: 100.0,
        linear_damping: 0.0,
        ..SceneSpec::of(SceneId::Torus).dynamics
    };
    for speed in [50.0, 500.0] {
        let start = Isometry::new(Vector::new(-1.0, 0.3, -0.2), Vector::new(0.2, 0.4, 0.1));
        let mut sim = Simulation::new(
            &env,
            &obj,
            &start,
            Vector::new(speed, 0.0, 0.0),
            Vector::new(0.0, 20.0, 7.0),
            &config,
        );
        let mut nearest = f64::INFINITY;
        for step in 0..config.steps {
            sim.step(&env, &obj);
            let pose = *sim.pose();
            let front = obj
                .mesh()
                .vertices()
                .iter()
                .map(|p| (pose * p).x)
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(
                front <= config.penetration,
                "{speed} m/s, step {step}: a corner {front} m behind the wall"
            );
            nearest = nearest.min(-front);
        }
        // It reached the wall and came back from it.
        assert!(
            nearest <= config.toi_tolerance,
            "{speed} m/s: it never reached the wall ({nearest} m)"
        );
        assert!(
            sim.state().velocity.x < 0.0,
            "{speed} m/s: it bounced back ({})",
            sim.state().velocity
        );
    }
}

#[test]
fn a_torus_released_through_the_landscape_is_pushed_out_and_a_buried_box_is_refused() {
    use obbtree::math::Vector;
    use obbtree::mesh::TriMesh;
    use obbtree::scenes::dynamics::{ReleaseError, Simulation, interpenetrates};
    let scene = scenes::load_scene(&assets(), SceneId::Torus).unwrap();
    let config = SceneSpec::of(SceneId::Torus).dynamics;
    let env = ObbTree::build(scene.environment.clone(), &BuildOptions::default());
    let obj = ObbTree::build(scene.object.clone(), &BuildOptions::default());
    let rest = scene.path.last().unwrap().pose_ab;
    let mut sim = Simulation::new(&env, &obj, &rest, Vector::zeros(), Vector::zeros(), &config);
    // Dragged 8 cm down into the landscape and let go.
    let mut inside = rest;
    inside.translation.vector.y -= 0.08;
    let deep = |sim: &Simulation| {
        interpenetrates(
            env.mesh(),
            obj.mesh(),
            sim.pose(),
            &sim.report().contacts,
            config.penetration,
        )
    };
    {
        let mut probe = CollisionReport::default();
        let (rot, pos) = relative_parts(&Isometry::identity(), &inside);
        collide_with(
            &env,
            &obj,
            &rot,
            &pos,
            &QueryOptions::default(),
            CollideWith::default(),
            &mut probe,
        );
        assert!(
            interpenetrates(
                env.mesh(),
                obj.mesh(),
                &inside,
                &probe.contacts,
                config.penetration
            ),
            "the release pose is inside"
        );
    }
    let shift = sim
        .set_pose(&env, &obj, &inside, Vector::zeros(), Vector::zeros())
        .unwrap()
        .expect("pushed out");
    assert!(!deep(&sim), "pushed out to an admissible pose");
    assert!(shift.norm() <= 0.2, "by a short translation ({shift})");
    for step in 0..600 {
        sim.step(&env, &obj);
        assert!(!deep(&sim), "step {step}: interpenetrates");
    }
    assert!(sim.asleep(), "it comes to rest");

    // A box among sheets 4 cm apart is pierced wherever it moves within reach: refused.
    let env = ObbTree::build(sheets(40, 0.04), &BuildOptions::default());
    let (bv, bf) = cube([0.0, 0.0, 0.0], 0.05);
    let obj = ObbTree::build(
        TriMesh::new(bv, bf, "box").unwrap(),
        &BuildOptions::default(),
    );
    let free = Isometry::translation(-3.0, 0.0, 0.0);
    let mut sim = Simulation::new(&env, &obj, &free, Vector::zeros(), Vector::zeros(), &config);
    let before = *sim.pose();
    let buried = Isometry::translation(0.01, 0.0, 0.0);
    let err = sim
        .set_pose(&env, &obj, &buried, Vector::zeros(), Vector::zeros())
        .unwrap_err();
    assert!(matches!(err, ReleaseError::Buried { .. }), "{err}");
    assert!(err.to_string().contains("stays where it was"), "{err}");
    assert_eq!(*sim.pose(), before, "the box stays where it was");
}
