//! The app's ECS logic, headless (`MinimalPlugins` + `app.update()`): scenes load off the main
//! thread, the per-frame query matches an independent oracle, drag messages move bodies and
//! change contacts, overlay toggles change the box list, timings fill every frame, bad files
//! become the UI's error state; simulate mode drops the torus onto the landscape and it comes to
//! rest without passing through, throws and resets; intersection curves, the side-by-side
//! comparison, split-rule rebuilds, picking through the trees, the cost terms and the input
//! gating.
#![cfg(feature = "app")]

mod common;

use common::edges_through;

use bevy::input::mouse::AccumulatedMouseScroll;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy::window::PrimaryWindow;
use obbtree::app::*;
use obbtree::bv::OverlapOptions;
use obbtree::bv::{Aabb, BvKind, Obb, Sphere};
use obbtree::bvh::{BuildOptions, Bvh, SplitRule};
use obbtree::math::relative_parts;
use obbtree::math::{Isometry, Point, UnitQuaternion, Vector};
use obbtree::query::cost::MIN_TESTS;
use obbtree::query::{
    CollideWith, CollisionReport, DistanceOptions, QueryOptions, brute_force_posed, collide,
    collide_with, distance, within_pairs,
};
use obbtree::scenes::{SceneId, SceneSpec};
use std::path::Path;
use std::time::{Duration, Instant};

fn app_with(choice: SceneChoice) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(LogicPlugins::headless(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"),
            Some(choice),
        ));
    app
}

/// Updates until no load or rebuild is running; the window stays responsive meanwhile (frames
/// run).
fn settle(app: &mut App) -> u32 {
    let start = Instant::now();
    let mut frames = 0;
    loop {
        app.update();
        frames += 1;
        let status = app.world().resource::<SceneStatus>();
        if status.loading.is_none() && status.rebuilding.is_none() && frames > 1 {
            return frames;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "loading never finished"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn pause(app: &mut App) {
    app.world_mut().resource_mut::<Playback>().playing = false;
}

fn go_to_step(app: &mut App, step: usize) {
    let mut p = app.world_mut().resource_mut::<Playback>();
    p.step = step;
    p.mode = MotionMode::Path;
}

/// The oracle of the app's queries: the library's all-contacts query of the scene's trees of
/// `kind` with the object at `relative` in the environment's frame.
/// The first step of the torpedo's committed path from 1200 on at which it touches its rollers
/// (by the library's query): it bounces on them, so not every step of its resting part does.
fn torpedo_touching_step() -> usize {
    use obbtree::scenes::load_scene;
    let scene = load_scene(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"),
        SceneId::Torpedo,
    )
    .unwrap();
    let env = Bvh::<Obb>::build(scene.environment.clone(), &BuildOptions::default());
    let obj = Bvh::<Obb>::build(scene.object.clone(), &BuildOptions::default());
    (1200..scene.path.len())
        .find(|&k| {
            let pose = scene.path[k].pose_ab;
            obbtree::query::collide(
                &env,
                &Isometry::identity(),
                &obj,
                &pose,
                &Default::default(),
            )
            .colliding()
        })
        .expect("the torpedo touches its rollers after step 1200")
}

fn library_query(scene: &CollisionScene, kind: BvKind, relative: &Isometry) -> CollisionReport {
    let (id, options) = (Isometry::identity(), QueryOptions::default());
    let (env, obj) = (&scene.env.trees, &scene.obj.trees);
    match kind {
        BvKind::Obb => collide(env.obb(), &id, obj.obb(), relative, &options),
        BvKind::Aabb => collide(
            env.get::<Aabb>(),
            &id,
            obj.get::<Aabb>(),
            relative,
            &options,
        ),
        BvKind::Sphere => collide(
            env.get::<Sphere>(),
            &id,
            obj.get::<Sphere>(),
            relative,
            &options,
        ),
    }
}

#[test]
fn a_scene_loads_and_every_frame_runs_the_query_and_records_timings() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    settle(&mut app);
    assert!(app.world().contains_resource::<CollisionScene>());
    assert!(app.world().resource::<SceneStatus>().error.is_none());
    pause(&mut app);
    let before = app.world().resource::<Timings>().total;
    for _ in 0..5 {
        app.update();
    }
    let timings = app.world().resource::<Timings>();
    assert_eq!(timings.total, before + 5, "one sample per frame");
    let last = *timings.last().unwrap();
    let q = app.world().resource::<LastQuery>().clone();
    assert_eq!(last.contacts, q.report.contacts.len());
    assert_eq!(last.bv_tests, q.report.bv_tests);
    assert!(last.query_us() > 0.0);

    // Move along the path to a resting step, then the OBB query must equal the AABB query.
    go_to_step(&mut app, torpedo_touching_step());
    app.update();
    let obb = app.world().resource::<LastQuery>().report.sorted_contacts();
    assert!(
        !obb.is_empty(),
        "the torpedo rests on its rollers at that step"
    );
    app.world_mut().resource_mut::<QuerySettings>().bv = BvKind::Aabb;
    app.update();
    let q = app.world().resource::<LastQuery>();
    assert_eq!(q.bv, Some(BvKind::Aabb));
    assert_eq!(q.report.sorted_contacts(), obb);
}

#[test]
fn a_drag_message_moves_the_object_and_changes_the_contacts() {
    let teapot = common::data("teapot.obj");
    let mut app = app_with(SceneChoice::Files(teapot.clone(), teapot));
    settle(&mut app);
    app.update();
    assert!(
        app.world()
            .resource::<LastQuery>()
            .report
            .contacts
            .is_empty(),
        "B starts beside A"
    );
    let start = app.world().resource::<CollisionScene>().obj.pose;
    // Drag B halfway back toward A and turn it a little.
    let dx = -0.5 * start.translation.vector.x;
    app.world_mut().write_message(DragBody {
        body: BodyId::Object,
        translation: Vector::new(dx, 0.0, 0.0),
        rotation: UnitQuaternion::from_euler_angles(0.0, 0.3, 0.0),
    });
    app.update();
    let scene = app.world().resource::<CollisionScene>();
    let moved = scene.obj.pose;
    assert_eq!(
        app.world().resource::<Playback>().mode,
        MotionMode::Free,
        "no path: free motion"
    );
    // The body turned about its centre, and the centre moved by the drag.
    let center = scene.obj.trees.obb().node_box(0).0;
    let shift = moved * center - start * center;
    assert!((shift - Vector::new(dx, 0.0, 0.0)).norm() < 1e-9, "{shift}");
    assert!(moved.rotation.angle_to(&start.rotation) > 0.29);
    let truth = brute_force_posed(scene.env.mesh(), &scene.env.pose, scene.obj.mesh(), &moved);
    let got = app.world().resource::<LastQuery>().report.sorted_contacts();
    assert!(!truth.is_empty(), "the drag brings B into A");
    assert_eq!(got, truth);
}

#[test]
fn overlay_toggles_change_what_would_be_drawn() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    settle(&mut app);
    pause(&mut app);
    app.update();
    assert!(
        app.world().resource::<OverlayBoxes>().boxes.is_empty(),
        "overlay off"
    );

    let oracle = {
        let scene = app.world().resource::<CollisionScene>();
        let tree = Bvh::<Obb>::build(scene.obj.mesh().clone(), &BuildOptions::default());
        (0..5)
            .map(|d| tree.nodes_at_depth(d).len())
            .collect::<Vec<_>>()
    };
    for (level, &want) in oracle.iter().enumerate() {
        *app.world_mut().resource_mut::<OverlaySettings>() = OverlaySettings {
            show: true,
            level,
            body: BodyId::Object,
            tree: BvKind::Obb,
            ..OverlaySettings::default()
        };
        app.update();
        let boxes = app.world().resource::<OverlayBoxes>();
        assert_eq!(boxes.at_level, want, "level {level}");
        assert_eq!(
            boxes.boxes.len(),
            want.min(OverlaySettings::default().max_boxes)
        );
    }
    // A deep level is capped, and says so.
    app.world_mut().resource_mut::<OverlaySettings>().max_boxes = 3;
    app.update();
    let boxes = app.world().resource::<OverlayBoxes>();
    assert!(boxes.capped && boxes.boxes.len() == 3 && boxes.eligible > 3);

    // Only overlapped volumes: none while the torpedo hangs above the rollers, some at rest.
    {
        let mut s = app.world_mut().resource_mut::<OverlaySettings>();
        s.max_boxes = 100_000;
        s.only_overlapped = true;
        s.level = 6;
        s.body = BodyId::Environment;
    }
    go_to_step(&mut app, 0);
    app.update();
    app.update();
    let floating = app.world().resource::<OverlayBoxes>().boxes.len();
    go_to_step(&mut app, torpedo_touching_step());
    app.update();
    app.update();
    let resting = app.world().resource::<OverlayBoxes>().boxes.len();
    assert!(app.world().resource::<LastQuery>().traced);
    assert!(resting > floating, "{resting} vs {floating}");
    // Switching the tree type changes the boxes drawn.
    app.world_mut()
        .resource_mut::<OverlaySettings>()
        .only_overlapped = false;
    app.update();
    let obb = app.world().resource::<OverlayBoxes>().boxes.clone();
    app.world_mut().resource_mut::<OverlaySettings>().tree = BvKind::Aabb;
    app.update();
    let aabb = app.world().resource::<OverlayBoxes>().boxes.clone();
    assert_ne!(obb, aabb);
    assert!(
        aabb.iter()
            .all(|b| b.rotation.abs_diff_eq(Quat::IDENTITY, 1e-6))
    );
}

#[test]
fn a_bad_obj_becomes_the_error_state_and_the_app_keeps_running() {
    let dir = std::env::temp_dir().join(format!("obbtree_app_bad_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("broken.obj");
    std::fs::write(&bad, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n").unwrap();
    let teapot = common::data("teapot.obj");
    let mut app = app_with(SceneChoice::Files(bad.clone(), teapot.clone()));
    settle(&mut app);
    let status = app.world().resource::<SceneStatus>().clone();
    let err = status.error.expect("an error");
    assert!(err.contains("broken.obj"), "{err}");
    assert!(!app.world().contains_resource::<CollisionScene>());
    // Still running: a good load afterwards works and clears the error.
    app.world_mut()
        .write_message(LoadScene(SceneChoice::Files(teapot.clone(), teapot)));
    settle(&mut app);
    assert!(app.world().contains_resource::<CollisionScene>());
    assert!(app.world().resource::<SceneStatus>().error.is_none());
    // A missing file afterwards keeps the current scene.
    app.world_mut().write_message(LoadScene(SceneChoice::Files(
        dir.join("missing.obj"),
        dir.join("missing.obj"),
    )));
    settle(&mut app);
    assert!(
        app.world()
            .resource::<SceneStatus>()
            .error
            .as_deref()
            .is_some_and(|e| e.contains("missing.obj"))
    );
    assert!(app.world().contains_resource::<CollisionScene>());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_wobbling_torus_refits_its_aabb_tree_every_frame() {
    let mut app = app_with(SceneChoice::Wobble);
    settle(&mut app);
    assert_eq!(app.world().resource::<QuerySettings>().bv, BvKind::Aabb);
    let first = app
        .world()
        .resource::<CollisionScene>()
        .obj
        .trees
        .get::<Aabb>()
        .nodes()[0]
        .bv;
    for _ in 0..10 {
        app.update();
    }
    let scene = app.world().resource::<CollisionScene>();
    let tree = scene.obj.trees.get::<Aabb>();
    assert_ne!(tree.nodes()[0].bv, first, "the root box follows the wobble");
    // One mesh per body: the body's mesh is the refitted tree's, the current wobble.
    let deform = scene.deform.as_ref().unwrap();
    assert_eq!(
        scene.obj.mesh().vertices(),
        wobble(&deform.rest, deform.time).as_slice()
    );
    assert_eq!(scene.obj.mesh().vertices(), tree.mesh().vertices());
    // The refitted tree still bounds the deformed mesh, and the query agrees with a fresh build.
    tree.validate().unwrap();
    let fresh = Bvh::<Aabb>::build(tree.mesh().clone(), &BuildOptions::default());
    let env = scene.env.trees.get::<Aabb>();
    let rel = scene.relative_pose();
    let expect = obbtree::query::collide(
        env,
        &Isometry::identity(),
        &fresh,
        &rel,
        &Default::default(),
    );
    let got = app.world().resource::<LastQuery>().report.sorted_contacts();
    assert_eq!(got, expect.sorted_contacts());
    assert!(
        app.world()
            .resource::<Timings>()
            .last()
            .unwrap()
            .us(Stage::Refit)
            > 0.0
    );
    assert!(
        app.world().resource::<Simulator>().unavailable.is_some(),
        "no simulation of a deforming body"
    );

    // Switching the query to OBB trees refits the OBB tree to the same current shape.
    app.world_mut().resource_mut::<QuerySettings>().bv = BvKind::Obb;
    app.update();
    let scene = app.world().resource::<CollisionScene>();
    assert!(scene.obj.trees.is_current(BvKind::Obb));
    scene.obj.trees.obb().validate().unwrap();
    let deform = scene.deform.as_ref().unwrap();
    assert_eq!(
        scene.obj.trees.obb().mesh().vertices(),
        wobble(&deform.rest, deform.time).as_slice()
    );
    let brute = brute_force_posed(
        scene.env.mesh(),
        &scene.env.pose,
        scene.obj.mesh(),
        &scene.obj.pose,
    );
    assert_eq!(
        app.world().resource::<LastQuery>().report.sorted_contacts(),
        brute
    );
}

#[test]
fn the_separation_list_option_keeps_the_contacts_of_the_plain_query() {
    use obbtree::query::SeparationPolicy;
    let mut app = app_with(SceneChoice::Paper(SceneId::Torus));
    settle(&mut app);
    go_to_step(&mut app, 1000);
    app.world_mut().resource_mut::<Playback>().playing = true;
    app.world_mut().resource_mut::<QuerySettings>().separation = Some(SeparationPolicy::Deferred);
    let mut touching = 0;
    for frame in 0..40 {
        app.update();
        let scene = app.world().resource::<CollisionScene>();
        let rel = scene.relative_pose();
        let expect = obbtree::query::collide(
            scene.env.trees.obb(),
            &Isometry::identity(),
            scene.obj.trees.obb(),
            &rel,
            &Default::default(),
        );
        let got = app.world().resource::<LastQuery>().report.sorted_contacts();
        assert_eq!(got, expect.sorted_contacts(), "frame {frame}");
        touching += usize::from(!got.is_empty());
    }
    assert!(
        touching > 0,
        "the torus touches the landscape along this part of its path"
    );
    let list = &app.world().resource::<SeparationCache>().list;
    assert_eq!(list.queries(), 40);
    assert!(list.rebuilds() < 40, "the list was reused between frames");
    // Switching the tree type starts a new list.
    app.world_mut().resource_mut::<QuerySettings>().bv = BvKind::Aabb;
    app.update();
    let list = &app.world().resource::<SeparationCache>().list;
    assert_eq!((list.queries(), list.rebuilds()), (1, 1));
}

// ---------------------------------------------------------------------------------------------
// Simulate mode.

/// The oracle on the scene's current pose: (contact pairs, crossings found). The candidates are
/// the contacting pairs of an all-contacts OBB query: only intersecting triangles can cross.
fn crossings(scene: &CollisionScene, tol: f64) -> (usize, Vec<String>) {
    let rel = scene.relative_pose();
    let mut report = CollisionReport::default();
    {
        let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), &rel);
        collide_with(
            scene.env.trees.obb(),
            scene.obj.trees.obb(),
            &rot_ab,
            &pos_ab,
            &QueryOptions::default(),
            CollideWith::default(),
            &mut report,
        )
    };
    let mut found = Vec::new();
    for &(ia, ib) in &report.contacts {
        let ta = scene.env.mesh().triangle(ia as usize);
        let tb = scene.obj.mesh().triangle(ib as usize).map(|p| rel * p);
        if edges_through(&tb, &ta, tol) || edges_through(&ta, &tb, tol) {
            found.push(format!("pair ({ia}, {ib})"));
        }
    }
    (report.contacts.len(), found)
}

/// An app on `choice` in simulate mode, 20 ms of time per update (two time steps).
fn simulating(choice: SceneChoice) -> App {
    let mut app = app_with(choice);
    settle(&mut app);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        20,
    )));
    app.world_mut()
        .write_message(PlaybackCommand::SetMode(MotionMode::Simulate));
    app.update();
    assert_eq!(
        app.world().resource::<Playback>().mode,
        MotionMode::Simulate
    );
    app
}

/// The speed below which the torus counts as at rest if the engine has not put it to sleep,
/// m/s (and rad/s for the angular speed).
const REST_SPEED: f64 = 0.02;

#[test]
fn simulate_mode_drops_the_torus_onto_the_landscape_until_it_rests_without_passing_through() {
    let mut app = simulating(SceneChoice::Paper(SceneId::Torus));
    let penetration = app
        .world()
        .resource::<Simulator>()
        .start()
        .expect("the torus scene simulates")
        .config
        .penetration;
    // 1,500 frames of 2 steps: 30 s of simulated time, the recorded path's 13 s over twice.
    const MAX_FRAMES: usize = 1500;
    const MAX_CONTACTS: usize = 2000;
    let start_y = app
        .world()
        .resource::<CollisionScene>()
        .obj
        .pose
        .translation
        .y;
    let (mut rested, mut slow_frames, mut most, mut touching, mut steps) = (None, 0, 0, 0, 0);
    for frame in 0..MAX_FRAMES {
        app.update();
        let scene = app.world().resource::<CollisionScene>();
        let (contacts, found) = crossings(scene, penetration);
        assert!(
            found.is_empty(),
            "frame {frame}: {} crossings: {:?}",
            found.len(),
            &found[..found.len().min(5)]
        );
        // The app's own query saw the same pose.
        assert_eq!(
            app.world().resource::<LastQuery>().report.contacts.len(),
            contacts
        );
        most = most.max(contacts);
        touching += usize::from(contacts > 0);
        let work = app.world().resource::<FrameWork>().engine;
        assert!(work.active && work.steps <= MAX_STEPS_PER_FRAME);
        steps += work.steps as usize;
        let sim = app.world().resource::<Simulator>().simulation().unwrap();
        let s = sim.state();
        let slow = s.velocity.norm() < REST_SPEED && s.angular_velocity.norm() < REST_SPEED;
        slow_frames = if slow { slow_frames + 1 } else { 0 };
        if sim.asleep() || slow_frames >= 50 {
            rested = Some(frame);
            break;
        }
    }
    let rested = rested.expect("the torus must come to rest within 1,500 frames");
    assert!(touching > 0, "it lands");
    assert!(most <= MAX_CONTACTS, "{most} contacts in one frame");
    assert!(
        steps >= 2 * rested,
        "two steps per 20 ms frame: {steps} in {rested} frames"
    );
    let scene = app.world().resource::<CollisionScene>();
    assert!(scene.obj.pose.translation.y < start_y - 0.5, "it fell");
    assert!(
        !app.world()
            .resource::<LastQuery>()
            .report
            .contacts
            .is_empty(),
        "it rests touching"
    );
    println!(
        "torus at rest after {rested} frames ({steps} steps), at most {most} contacts per frame"
    );
}

#[test]
fn simulate_mode_throws_the_torus_down_at_50_and_500_m_per_s_without_passing_through() {
    for speed in [50.0, 500.0] {
        let mut app = app_with(SceneChoice::Paper(SceneId::Torus));
        app.insert_resource(SimulateSettings {
            throw: Some(Vector::new(0.0, -speed, 0.0)),
        });
        settle(&mut app);
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            20,
        )));
        app.world_mut()
            .write_message(PlaybackCommand::SetMode(MotionMode::Simulate));
        let (floor, penetration) = {
            let scene = app.world().resource::<CollisionScene>();
            let floor = scene.env.mesh().bounds().0.y;
            (floor, SceneSpec::of(SceneId::Torus).dynamics.penetration)
        };
        let (mut impacts, mut toi_queries) = (0, 0);
        for frame in 0..40 {
            app.update();
            let scene = app.world().resource::<CollisionScene>();
            let (_, found) = crossings(scene, penetration);
            assert!(found.is_empty(), "{speed} m/s, frame {frame}: {found:?}");
            // Never below the landscape: a body through it would fall on under it.
            let lowest = scene
                .obj
                .mesh()
                .vertices()
                .iter()
                .map(|p| (scene.obj.pose * p).y)
                .fold(f64::INFINITY, f64::min);
            assert!(
                lowest > floor,
                "{speed} m/s, frame {frame}: at {lowest} below the landscape ({floor})"
            );
            let work = app.world().resource::<FrameWork>().engine;
            impacts += work.impacts;
            toi_queries += work.toi_queries;
        }
        let sim = app.world().resource::<Simulator>();
        assert_eq!(sim.start().unwrap().velocity, Vector::new(0.0, -speed, 0.0));
        assert!(
            impacts > 0 && toi_queries > 0,
            "{speed} m/s: {impacts} impacts, {toi_queries} distance queries"
        );
        // The impacts' normals are drawn where the impulses acted.
        assert!(!sim.simulation().unwrap().last_impact().is_empty());
        assert!(!sim.impact().is_empty(), "shown in simulate mode");
        println!("{speed} m/s: {impacts} impacts, {toi_queries} distance queries in 40 frames");
    }
}

#[test]
fn an_undisturbed_simulation_follows_the_recorded_path_until_the_first_impact() {
    // The scene's path was recorded by the same engine from the same start: simulate mode at one
    // step per frame follows it pose for pose through the free fall. (After impacts the motion
    // is chaotic: the app's models are the OBJ files, whose 8-decimal coordinates differ from
    // the generator's in-memory meshes, so the bounces diverge. The drop test above holds the
    // app's own motion to the interpenetration oracle instead.)
    let mut app = app_with(SceneChoice::Paper(SceneId::Torus));
    settle(&mut app);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        10,
    )));
    app.world_mut()
        .write_message(PlaybackCommand::SetMode(MotionMode::Simulate));
    app.update();
    let path = app.world().resource::<CollisionScene>().path.clone();
    let mut compared = 0;
    for _ in 0..300 {
        let sim = app.world().resource::<Simulator>();
        let simulation = sim.simulation().unwrap();
        if !simulation.report().contacts.is_empty() {
            break;
        }
        let steps = (sim.sim_time / 0.01).round() as usize;
        let pose = *simulation.pose();
        let want = path[steps];
        assert!(
            (pose.translation.vector - want.translation.vector).norm() < 1e-6
                && pose.rotation.angle_to(&want.rotation) < 1e-6,
            "step {steps}: {pose} vs {want}"
        );
        compared += 1;
        app.update();
    }
    assert!(
        (10..300).contains(&compared),
        "{compared} steps before the first impact"
    );
}

#[test]
fn letting_go_of_a_dragged_object_throws_it_and_reset_puts_it_back() {
    let mut app = simulating(SceneChoice::Paper(SceneId::Torus));
    for _ in 0..5 {
        app.update();
    }
    app.world_mut().write_message(Grab::Take(BodyId::Object));
    app.update();
    // Drag 1 cm along +x and turn 0.01 rad about y per 20 ms frame: 0.5 m/s, 0.5 rad/s.
    for _ in 0..10 {
        app.world_mut().write_message(DragBody {
            body: BodyId::Object,
            translation: Vector::new(0.01, 0.0, 0.0),
            rotation: UnitQuaternion::from_euler_angles(0.0, 0.01, 0.0),
        });
        let before = app.world().resource::<CollisionScene>().obj.pose;
        app.update();
        let after = app.world().resource::<CollisionScene>().obj.pose;
        assert!(
            after.translation.x > before.translation.x,
            "held: the drag moves it"
        );
        assert!(app.world().resource::<Simulator>().held());
        assert_eq!(
            app.world().resource::<FrameWork>().engine.steps,
            0,
            "held: no steps"
        );
    }
    app.world_mut().write_message(Grab::Release(BodyId::Object));
    app.update();
    let sim = app.world().resource::<Simulator>();
    assert!(!sim.held());
    let (v, w) = sim.last_throw.expect("a throw");
    assert!((v.x - 0.5).abs() < 0.05 && v.z.abs() < 0.05, "{v}");
    assert!((w.y - 0.5).abs() < 0.05, "{w}");
    // The engine took over with that velocity (capped, damped, under gravity).
    let state = *sim.simulation().unwrap().state();
    assert!(state.velocity.x > 0.3, "{}", state.velocity);
    // Reset: back at the start, with the start's velocities.
    app.world_mut().write_message(PlaybackCommand::Restart);
    app.update();
    let sim = app.world().resource::<Simulator>();
    let start = *sim.start().unwrap();
    assert!(sim.sim_time <= 0.02 + 1e-9, "{}", sim.sim_time);
    let scene = app.world().resource::<CollisionScene>();
    let first = scene.path[0];
    let pose = scene.relative_pose();
    assert!((start.pose.translation.vector - first.translation.vector).norm() < 1e-12);
    // At most two steps of the fall since the reset.
    let max_speed = start.config.max_speed;
    assert!(
        (pose.translation.vector - first.translation.vector).norm()
            <= 2.0 * 0.01 * max_speed * 1.5 + 1e-6,
        "{pose} vs {first}"
    );
}

// ---------------------------------------------------------------------------------------------
// Curves, comparison, rebuilds, picking, costs.

#[test]
fn the_intersection_curve_has_one_piece_per_contact_on_both_bodies() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    settle(&mut app);
    pause(&mut app);
    go_to_step(&mut app, torpedo_touching_step());
    app.update();
    app.update();
    let q = app.world().resource::<LastQuery>();
    let curves = app.world().resource::<ContactCurves>();
    let n = q.report.contacts.len();
    // The frame's contacts are the AABB trees' (another tree type) on the same pose; the torpedo
    // rests on its rollers at that step.
    let oracle = library_query(
        app.world().resource::<CollisionScene>(),
        BvKind::Aabb,
        &q.relative,
    );
    assert_eq!(q.report.sorted_contacts(), oracle.sorted_contacts());
    assert!(n > 0, "the torpedo rests on its rollers at that step");
    assert_eq!(curves.pairs, n);
    // Every contacting pair meets: a segment, a point or a polygon's edges each.
    assert!(curves.segments.len() + curves.points.len() >= n);
    let scene = app.world().resource::<CollisionScene>();
    // World frame, on both bodies: each end near a contacting triangle of each body.
    let dist = |x: &Point, t: &[Point; 3]| {
        let c = Point::from((t[0].coords + t[1].coords + t[2].coords) / 3.0);
        let r = t.iter().map(|p| (p - c).norm()).fold(0.0, f64::max);
        (x - c).norm() - r
    };
    for (a, b) in &curves.segments {
        for x in [a, b] {
            let on_env = q.report.contacts.iter().any(|&(ia, _)| {
                dist(
                    x,
                    &scene
                        .env
                        .mesh()
                        .triangle(ia as usize)
                        .map(|p| scene.env.pose * p),
                ) <= 1e-9
            });
            let on_obj = q.report.contacts.iter().any(|&(_, ib)| {
                dist(
                    x,
                    &scene
                        .obj
                        .mesh()
                        .triangle(ib as usize)
                        .map(|p| scene.obj.pose * p),
                ) <= 1e-9
            });
            assert!(on_env && on_obj, "{x}");
        }
    }
    assert!(curves.length() > 0.0);
    // Off: nothing.
    app.world_mut().resource_mut::<CurveSettings>().show = false;
    app.update();
    assert_eq!(app.world().resource::<ContactCurves>().pairs, 0);
}

/// Pauses at `step`, turns the side-by-side comparison on and waits for its second finished
/// job (the first may be of the pose before the step): the comparison.
fn compared_at(app: &mut App, step: usize) -> Comparison {
    pause(app);
    go_to_step(app, step);
    app.world_mut().resource_mut::<CompareSettings>().enabled = true;
    let start = Instant::now();
    while app.world().resource::<Comparison>().jobs < 2 {
        app.update();
        assert!(start.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(2));
    }
    app.world().resource::<Comparison>().clone()
}

#[test]
fn side_by_side_runs_all_three_trees_on_the_same_pose() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    settle(&mut app);
    let c = compared_at(&mut app, torpedo_touching_step());
    let scene = app.world().resource::<CollisionScene>();
    assert_eq!(c.relative, scene.relative_pose(), "the paused pose");
    assert_eq!(c.rows.len(), 3);
    let kinds: Vec<BvKind> = c.rows.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, KINDS.to_vec());
    // Each row is that tree's query on the pose, and all find the same contacts.
    let q = app.world().resource::<LastQuery>();
    for r in &c.rows {
        assert!(r.same_contacts, "{:?}", r.kind);
        assert_eq!(r.contacts, q.report.contacts.len());
        // The row's counts are the library's query with that tree type on the job's pose.
        let want = library_query(scene, r.kind, &c.relative);
        assert_eq!(
            (r.bv_tests, r.tri_tests, r.contacts),
            (want.bv_tests, want.tri_tests, want.contacts.len()),
            "{:?}",
            r.kind
        );
    }
    assert_eq!(
        c.rows[0].bv_tests, q.report.bv_tests,
        "the OBB row is the frame's query"
    );
    assert_eq!(c.rows[0].tri_tests, q.report.tri_tests);
    // A job's time is its three queries' (the last job's are the rows'); the percentiles are
    // the jobs' times, one per finished job.
    assert_eq!(c.job_micros.len() as u64, c.jobs);
    assert_eq!(
        c.job_micros.back().copied(),
        Some(
            c.rows
                .iter()
                .map(|r| r.micros + r.distance.map_or(0.0, |d| d.micros))
                .sum::<f64>()
        )
    );
    let (med, p95) = c.job_percentiles();
    assert!(c.job_micros.contains(&med) && c.job_micros.contains(&p95));
    assert!(p95 >= med);
    // Off: cleared.
    app.world_mut().resource_mut::<CompareSettings>().enabled = false;
    app.update();
    assert!(app.world().resource::<Comparison>().rows.is_empty());
}

#[test]
fn another_split_rule_rebuilds_the_trees_off_the_main_thread_and_keeps_the_contacts() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    settle(&mut app);
    pause(&mut app);
    go_to_step(&mut app, torpedo_touching_step());
    app.update();
    let before = app.world().resource::<LastQuery>().report.sorted_contacts();
    let (mean_depth, revision) = {
        let s = app.world().resource::<CollisionScene>();
        (s.env.trees.depth(BvKind::Obb), s.trees_revision)
    };
    app.world_mut()
        .write_message(RebuildTrees(SplitRule::Median));
    app.update();
    assert_eq!(
        app.world().resource::<SceneStatus>().rebuilding,
        Some(SplitRule::Median),
        "building in the background"
    );
    // Frames go on while the trees build: one timing sample per frame.
    let samples = app.world().resource::<Timings>().total;
    let frames = settle(&mut app);
    assert_eq!(
        app.world().resource::<Timings>().total,
        samples + u64::from(frames)
    );
    app.update();
    let scene = app.world().resource::<CollisionScene>();
    assert_eq!(scene.env.trees.split, SplitRule::Median);
    assert_eq!(scene.obj.trees.split, SplitRule::Median);
    assert_eq!(scene.trees_revision, revision + 1);
    scene.env.trees.obb().validate().unwrap();
    scene.obj.trees.get::<Aabb>().validate().unwrap();
    // Median splits balance the tree: no deeper than the mean split's.
    assert!(scene.env.trees.depth(BvKind::Obb) <= mean_depth);
    // Each tree's statistics are the tree's own figures.
    let trees = &scene.env.trees;
    let figures = [
        (trees.obb().memory_bytes(), trees.obb().depth()),
        (
            trees.get::<Aabb>().memory_bytes(),
            trees.get::<Aabb>().depth(),
        ),
        (
            trees.get::<Sphere>().memory_bytes(),
            trees.get::<Sphere>().depth(),
        ),
    ];
    for (k, (memory, depth)) in KINDS.into_iter().zip(figures) {
        let st = trees.stats[k as usize];
        assert_eq!(
            (st.memory, st.depth, st.nodes),
            (memory, depth, 2 * scene.env.mesh().triangle_count() - 1),
            "{k:?}"
        );
        assert!(st.build_ms > 0.0);
    }
    assert_eq!(
        app.world().resource::<LastQuery>().report.sorted_contacts(),
        before
    );
}

#[test]
fn picking_through_the_trees_finds_what_testing_every_triangle_finds() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    settle(&mut app);
    pause(&mut app);
    go_to_step(&mut app, 900);
    app.update();
    let scene = app.world().resource::<CollisionScene>();
    let c = scene.obj.center();
    let eye = c + Vector::new(3.0, 2.0, 4.0);
    let mut hits = 0;
    for i in 0..200 {
        // Rays from the eye through points around the object's centre.
        let a = i as f64 * 0.731;
        let target = c + Vector::new(a.cos() * 0.8, (a * 1.7).sin() * 0.5, (a * 0.3).sin() * 2.0);
        let dir = (target - eye).normalize();
        let fast = pick(scene, eye, dir);
        let slow = pick_brute_force(scene, eye, dir);
        assert_eq!(fast.map(|h| h.0), slow.map(|h| h.0), "ray {i}");
        if let (Some(f), Some(s)) = (fast, slow) {
            assert!((f.1 - s.1).abs() < 1e-12, "ray {i}: {} vs {}", f.1, s.1);
            hits += 1;
        }
    }
    assert!(hits > 50, "{hits} hits");
}

#[test]
fn the_cost_terms_are_measured_every_frame() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    settle(&mut app);
    pause(&mut app);
    go_to_step(&mut app, torpedo_touching_step());
    for _ in 0..5 {
        app.update();
    }
    let f = *app.world().resource::<Timings>().last().unwrap();
    // N_v and N_p are the library's query's on the frame's pose (the torpedo on its rollers:
    // triangle tests and contacts).
    let q = app.world().resource::<LastQuery>();
    let want = library_query(
        app.world().resource::<CollisionScene>(),
        BvKind::Obb,
        &q.relative,
    );
    assert_eq!(
        (f.bv_tests, f.tri_tests, f.contacts),
        (want.bv_tests, want.tri_tests, want.contacts.len())
    );
    assert!(want.tri_tests > 0 && !want.contacts.is_empty());
    // C_v and C_p are measured (obbtree::query::cost) exactly where the all-contacts query has
    // enough tests for the difference of two times to mean something; T_0 always.
    let measured = |n: u64| n >= MIN_TESTS;
    assert_eq!(f.c_v_ns.is_some(), measured(want.bv_tests - 1));
    assert_eq!(f.c_p_ns.is_some(), measured(want.tri_tests));
    assert!(f.t0_ns.is_some(), "T_0 is always measured");
    for x in [f.t0_ns, f.c_v_ns, f.c_p_ns].into_iter().flatten() {
        assert!(x.is_finite() && x >= 0.0, "{x}");
    }
    assert!(f.us(Stage::Costs) > 0.0);
    // Away from contact: the library's counts again; no triangle tests, no C_p.
    go_to_step(&mut app, 0);
    app.update();
    let f = *app.world().resource::<Timings>().last().unwrap();
    let q = app.world().resource::<LastQuery>();
    let want = library_query(
        app.world().resource::<CollisionScene>(),
        BvKind::Obb,
        &q.relative,
    );
    assert_eq!((f.bv_tests, f.tri_tests), (want.bv_tests, want.tri_tests));
    assert_eq!(f.tri_tests, 0, "step 0 is away from contact");
    assert_eq!(f.c_p_ns, None, "no triangle tests: no C_p");
    assert_eq!(f.c_v_ns.is_some(), measured(want.bv_tests - 1));
}

// ---------------------------------------------------------------------------------------------
// Input gating.

fn input_app() -> App {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    app.init_resource::<ButtonInput<MouseButton>>()
        .init_resource::<ButtonInput<KeyCode>>()
        .init_resource::<AccumulatedMouseScroll>()
        .add_plugins((CameraPlugin, InputPlugin));
    let mut window = Window::default();
    window.set_cursor_position(Some(Vec2::new(900.0, 400.0)));
    app.world_mut().spawn((window, PrimaryWindow));
    // The viewer's other cameras: egui's panel and the curve overlay. Input must use the view's
    // camera among them (a query for "the" camera matched all three and never ran).
    app.world_mut().spawn(Camera2d);
    app.world_mut().spawn((Camera3d::default(), CurveCamera));
    settle(&mut app);
    pause(&mut app);
    app.update();
    app
}

/// One frame with the wheel turned `lines` and the cursor at `cursor`, a button pressed or held.
fn frame(
    app: &mut App,
    lines: f32,
    cursor: Vec2,
    press: Option<MouseButton>,
    key: Option<KeyCode>,
) {
    app.world_mut()
        .resource_mut::<AccumulatedMouseScroll>()
        .delta = Vec2::new(0.0, lines);
    let mut q = app
        .world_mut()
        .query_filtered::<&mut Window, With<PrimaryWindow>>();
    q.single_mut(app.world_mut())
        .unwrap()
        .set_cursor_position(Some(cursor));
    if let Some(b) = press {
        app.world_mut()
            .resource_mut::<ButtonInput<MouseButton>>()
            .press(b);
    }
    if let Some(k) = key {
        app.world_mut()
            .resource_mut::<ButtonInput<KeyCode>>()
            .press(k);
    }
    app.update();
    app.world_mut()
        .resource_mut::<AccumulatedMouseScroll>()
        .delta = Vec2::ZERO;
    app.world_mut()
        .resource_mut::<ButtonInput<MouseButton>>()
        .clear();
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.clear();
    keys.reset_all();
}

fn release(app: &mut App) {
    app.world_mut()
        .resource_mut::<ButtonInput<MouseButton>>()
        .release_all();
    app.update();
    app.world_mut()
        .resource_mut::<ButtonInput<MouseButton>>()
        .clear();
}

#[test]
fn no_camera_or_body_input_while_the_ui_wants_the_pointer_the_wheel_included() {
    let mut app = input_app();
    let orbit = *app.world().resource::<OrbitCamera>();
    let poses = |app: &App| {
        let s = app.world().resource::<CollisionScene>();
        (s.env.pose, s.obj.pose)
    };
    let before = poses(&app);

    // The pointer over the panel: the wheel, a drag and keys do nothing.
    app.insert_resource(PointerCapture {
        pointer: true,
        keyboard: true,
    });
    frame(&mut app, 3.0, Vec2::new(100.0, 300.0), None, None);
    frame(
        &mut app,
        0.0,
        Vec2::new(100.0, 300.0),
        Some(MouseButton::Left),
        Some(KeyCode::KeyH),
    );
    for x in [120.0, 160.0, 220.0] {
        frame(&mut app, 0.0, Vec2::new(x, 330.0), None, None);
    }
    release(&mut app);
    assert_eq!(
        *app.world().resource::<OrbitCamera>(),
        orbit,
        "the camera did not move"
    );
    assert_eq!(poses(&app), before, "no body moved");
    assert!(!app.world().resource::<DragState>().active());
    assert!(
        !app.world().resource::<HelpVisible>().0,
        "keys go to the text field"
    );

    // The pointer over the view: the wheel zooms, a drag orbits, H opens the help.
    app.insert_resource(PointerCapture::default());
    frame(&mut app, 3.0, Vec2::new(900.0, 400.0), None, None);
    let zoomed = app.world().resource::<OrbitCamera>().distance;
    assert!(
        zoomed < orbit.distance * 0.8,
        "{zoomed} vs {}",
        orbit.distance
    );
    frame(
        &mut app,
        0.0,
        Vec2::new(1200.0, 50.0),
        Some(MouseButton::Middle),
        Some(KeyCode::KeyH),
    );
    assert!(app.world().resource::<DragState>().active());
    // A drag that started in the view goes on over the panel, but the wheel there does not zoom.
    app.insert_resource(PointerCapture {
        pointer: true,
        keyboard: false,
    });
    frame(&mut app, 2.0, Vec2::new(1100.0, 60.0), None, None);
    let after = *app.world().resource::<OrbitCamera>();
    assert_ne!(after.yaw, orbit.yaw, "the drag orbits");
    assert_eq!(after.distance, zoomed, "no zoom over the panel");
    release(&mut app);
    assert!(!app.world().resource::<DragState>().active());
    assert!(app.world().resource::<HelpVisible>().0, "H opens the help");
}

#[test]
fn the_help_is_closed_at_start() {
    let app = input_app();
    assert!(!app.world().resource::<HelpVisible>().0);
}

#[test]
fn uploaded_bytes_load_as_the_same_files_and_bad_bytes_become_the_error_state() {
    // The browser's file picker delivers bytes, not paths: the same scene as from the files.
    let teapot = common::data("teapot.obj");
    let bytes: std::sync::Arc<[u8]> = std::fs::read(&teapot).unwrap().into();
    let upload = |name: &str, bytes: std::sync::Arc<[u8]>| ObjUpload {
        name: name.into(),
        bytes,
    };
    let mut from_files = app_with(SceneChoice::Files(teapot.clone(), teapot));
    settle(&mut from_files);
    let mut app = app_with(SceneChoice::Uploaded(
        upload("teapot.obj", bytes.clone()),
        upload("teapot.obj", bytes.clone()),
    ));
    settle(&mut app);
    let (a, b) = (
        from_files.world().resource::<CollisionScene>(),
        app.world().resource::<CollisionScene>(),
    );
    assert_eq!(a.env.mesh().vertices(), b.env.mesh().vertices());
    assert_eq!(a.obj.mesh().triangles(), b.obj.mesh().triangles());
    assert_eq!(a.obj.pose, b.obj.pose);
    assert_eq!(b.name, "teapot.obj + teapot.obj");
    // A broken upload: the error names it, the scene stays.
    app.world_mut()
        .write_message(LoadScene(SceneChoice::Uploaded(
            upload("broken.obj", b"v 0 0 0\nf 1 2 3\n".as_slice().into()),
            upload("teapot.obj", bytes),
        )));
    settle(&mut app);
    let err = app.world().resource::<SceneStatus>().error.clone();
    assert!(
        err.as_deref().is_some_and(|e| e.contains("broken.obj")),
        "{err:?}"
    );
    assert_eq!(
        app.world().resource::<CollisionScene>().name,
        "teapot.obj + teapot.obj"
    );
}

#[test]
fn the_number_keys_switch_between_the_papers_scenes() {
    let mut app = input_app();
    let name = |app: &App| app.world().resource::<CollisionScene>().name.clone();
    let torpedo = name(&app);
    for (key, id) in [
        (KeyCode::Digit2, SceneId::Torus),
        (KeyCode::Digit1, SceneId::Pipes),
        (KeyCode::Digit3, SceneId::Torpedo),
    ] {
        frame(&mut app, 0.0, Vec2::new(900.0, 400.0), None, Some(key));
        settle(&mut app);
        // The scene the panel's list would load for that entry.
        let label = SceneChoice::Paper(id).label();
        assert_eq!(name(&app), label, "{key:?}");
    }
    assert_eq!(name(&app), torpedo);
}

/// The library's distance and pairs within `tolerance` with the scene's trees of `kind`, the
/// object at `relative` in the environment's frame: (distance, sorted pairs).
fn library_proximity(
    scene: &CollisionScene,
    kind: BvKind,
    relative: &Isometry,
    tolerance: f64,
) -> (f64, Vec<(u32, u32)>) {
    fn run<B: obbtree::app::TreeKind>(
        scene: &CollisionScene,
        relative: &Isometry,
        tolerance: f64,
    ) -> (f64, Vec<(u32, u32)>) {
        let (env, obj) = (scene.env.trees.get::<B>(), scene.obj.trees.get::<B>());
        let id = Isometry::identity();
        let d = distance(env, &id, obj, relative, &DistanceOptions::default()).unwrap();
        let pairs = within_pairs(
            env,
            &id,
            obj,
            relative,
            tolerance,
            &OverlapOptions::default(),
        );
        let mut pairs: Vec<(u32, u32)> = pairs.unwrap().pairs.iter().map(|p| p.0).collect();
        pairs.sort_unstable();
        (d.distance, pairs)
    }
    match kind {
        BvKind::Obb => run::<Obb>(scene, relative, tolerance),
        BvKind::Aabb => run::<Aabb>(scene, relative, tolerance),
        BvKind::Sphere => run::<Sphere>(scene, relative, tolerance),
    }
}

#[test]
fn the_distance_segment_and_the_pairs_within_the_tolerance_are_the_librarys() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torus));
    settle(&mut app);
    pause(&mut app);
    go_to_step(&mut app, 0);
    app.update();
    app.update();
    // Apart: the distance and its segment, in the world frame, as the library measures them;
    // the same with the AABB tree (another tree type as the oracle).
    let mut distances = Vec::new();
    for kind in [BvKind::Obb, BvKind::Aabb] {
        app.world_mut().resource_mut::<QuerySettings>().bv = kind;
        app.update();
        app.update();
        let near = app.world().resource::<LastProximity>().clone();
        let scene = app.world().resource::<CollisionScene>();
        let last = app.world().resource::<LastQuery>();
        assert!(last.report.contacts.is_empty(), "step 0 is in the air");
        let r = near.distance.expect("a distance while apart");
        let (want, _) = library_proximity(scene, kind, &last.relative, 0.0);
        assert_eq!(r.distance, want, "{kind:?}");
        let (a, b) = near.segment.unwrap();
        assert!(((b - a).norm() - r.distance).abs() <= 1e-9 * r.distance.max(1.0));
        assert!((a - scene.env.pose * r.closest_a).norm() < 1e-12);
        assert!((b - scene.obj.pose * r.closest_b).norm() < 1e-9);
        let sample = app.world().resource::<Timings>().last().copied().unwrap();
        assert_eq!(sample.distance_us, Some(near.distance_micros));
        distances.push(r.distance);
    }
    assert_eq!(distances[0], distances[1]);
    let d = distances[0];

    // Tolerance pairs: none below the distance, the library's pairs above it.
    app.world_mut().resource_mut::<QuerySettings>().bv = BvKind::Obb;
    for (tolerance, some) in [(0.5 * d, false), (1.5 * d, true)] {
        *app.world_mut().resource_mut::<ProximitySettings>() = ProximitySettings {
            pairs: true,
            tolerance,
            ..ProximitySettings::default()
        };
        app.update();
        let near = app.world().resource::<LastProximity>();
        let scene = app.world().resource::<CollisionScene>();
        let last = app.world().resource::<LastQuery>();
        let (_, want) = library_proximity(scene, BvKind::Obb, &last.relative, tolerance);
        let mut got = near.pairs.clone();
        got.sort_unstable();
        assert_eq!(got, want, "tolerance {tolerance}");
        assert_eq!(
            !got.is_empty(),
            some,
            "tolerance {tolerance} against distance {d}"
        );
    }

    // Touching: no distance, and the pairs within the tolerance hold the contacts.
    app.world_mut()
        .resource_mut::<ProximitySettings>()
        .tolerance = 0.05;
    go_to_step(&mut app, 654);
    app.update();
    let near = app.world().resource::<LastProximity>();
    let last = app.world().resource::<LastQuery>();
    assert!(
        !last.report.contacts.is_empty(),
        "step 654 rests on the landscape"
    );
    assert!(near.distance.is_none() && near.segment.is_none());
    assert!(!near.capped);
    for c in &last.report.contacts {
        assert!(
            near.pairs.contains(c),
            "contact {c:?} not within the tolerance"
        );
    }

    // A bad tolerance is the panel's error, no pairs, and the app keeps running.
    app.world_mut()
        .resource_mut::<ProximitySettings>()
        .tolerance = -1.0;
    app.update();
    app.update();
    let near = app.world().resource::<LastProximity>();
    assert!(near.pairs.is_empty());
    assert_eq!(
        near.error.as_deref(),
        Some("tolerance -1 is not a finite non-negative distance")
    );
}

#[test]
fn side_by_side_measures_the_distance_with_every_tree_while_apart() {
    let mut app = app_with(SceneChoice::Paper(SceneId::Torpedo));
    settle(&mut app);
    let c = compared_at(&mut app, 0);
    let scene = app.world().resource::<CollisionScene>();
    for r in &c.rows {
        assert_eq!(r.contacts, 0, "step 0 is apart");
        let d = r.distance.expect("a distance per tree type while apart");
        let (want, _) = library_proximity(scene, r.kind, &c.relative, 0.0);
        assert_eq!(d.distance, want, "{:?}", r.kind);
        assert_eq!(
            d.distance,
            c.rows[0].distance.unwrap().distance,
            "{:?}",
            r.kind
        );
    }
}

/// The squeezed torus against itself: every frame the app's pairs are those of a fresh OBB tree
/// of the frame's mesh (another tree type, built anew, against the scene's refitted AABB tree,
/// also while the query uses OBB trees),
/// none at rest (time 0, the torus as modelled) and some while squeezed through itself; the
/// curve holds each pair's piece (world frame) besides the contacts'.
#[test]
fn the_squeezed_torus_finds_its_self_intersection_every_frame() {
    use obbtree::query::{SelfIntersectionOptions, self_intersections, triangle_intersection};
    let mut app = app_with(SceneChoice::Wobble);
    settle(&mut app);
    pause(&mut app);
    let fresh = |app: &App| {
        let scene = app.world().resource::<CollisionScene>();
        let deform = scene.deform.as_ref().unwrap();
        assert_eq!(
            scene.obj.mesh().vertices(),
            wobble(&deform.rest, deform.time).as_slice()
        );
        let tree = Bvh::<Obb>::build(scene.obj.mesh().clone(), &BuildOptions::default());
        self_intersections(&tree, &SelfIntersectionOptions::default()).pairs
    };
    let set_time = |app: &mut App, time: f64| {
        let mut scene = app.world_mut().resource_mut::<CollisionScene>();
        scene.deform.as_mut().unwrap().time = time;
        app.update();
    };
    set_time(&mut app, 0.0);
    let last = app.world().resource::<LastSelfIntersection>().clone();
    assert!(last.ran);
    assert_eq!(last.pairs, Vec::<(u32, u32)>::new());
    assert_eq!(fresh(&app), last.pairs);
    // Through the squeeze, frame by frame (the tree refitted each time).
    let mut most = 0;
    for k in 0..8 {
        set_time(&mut app, 3.0 + 0.25 * k as f64);
        let last = app.world().resource::<LastSelfIntersection>().clone();
        assert_eq!(last.pairs, fresh(&app), "time {}", last.time);
        assert_eq!(last.triangles, 20_000);
        most = most.max(last.pairs.len());
        // The pieces where the pairs cross, placed by the body's pose.
        let scene = app.world().resource::<CollisionScene>();
        let m = scene.obj.mesh();
        let pieces: usize = last
            .pairs
            .iter()
            .map(|&(a, b)| {
                triangle_intersection(&m.triangle(a as usize), &m.triangle(b as usize))
                    .edges()
                    .len()
            })
            .sum();
        assert_eq!(last.segments.len(), pieces);
        let curves = app.world().resource::<ContactCurves>();
        for s in &last.segments {
            assert!(curves.segments.contains(s));
        }
        if let Some(&(a, b)) = last.pairs.first() {
            let piece = triangle_intersection(&m.triangle(a as usize), &m.triangle(b as usize));
            let first = piece.edges()[0];
            assert_eq!(
                last.segments[0],
                (scene.obj.pose * first.0, scene.obj.pose * first.1)
            );
        }
    }
    assert!(most > 0, "the squeeze must pass the torus through itself");
    // With OBB trees for the query, the deformation still refits the AABB tree the self-test
    // walks (both are declared in use).
    app.world_mut().resource_mut::<QuerySettings>().bv = BvKind::Obb;
    set_time(&mut app, 4.0);
    let scene = app.world().resource::<CollisionScene>();
    assert!(scene.obj.trees.is_current(BvKind::Obb) && scene.obj.trees.is_current(BvKind::Aabb));
    let last = app.world().resource::<LastSelfIntersection>().clone();
    assert!(last.ran);
    assert_eq!(last.pairs, fresh(&app));
    assert!(!last.pairs.is_empty());
    // Switched off: nothing is computed.
    app.world_mut()
        .resource_mut::<SelfIntersectionSettings>()
        .show = false;
    app.update();
    assert!(!app.world().resource::<LastSelfIntersection>().ran);
}

/// With a tree cache, the first start of a scene builds its six trees and saves them; the second
/// start of the same scene (a new app) builds nothing, loads all six, and its queries are the
/// first's; a split-rule rebuild builds the other split's trees, and going back loads them.
#[test]
fn the_second_start_of_a_scene_loads_its_trees_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = obbtree::bvh::TreeCache::new(dir.path().join("trees"));
    let start = |cache: &obbtree::bvh::TreeCache| {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins).add_plugins(LogicPlugins {
            tree_cache: Some(cache.clone()),
            ..LogicPlugins::headless(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"),
                Some(SceneChoice::Paper(SceneId::Torus)),
            )
        });
        settle(&mut app);
        pause(&mut app);
        go_to_step(&mut app, 656);
        app.update();
        app
    };
    let origins = |app: &App| -> Vec<obbtree::bvh::TreeOrigin> {
        let scene = app.world().resource::<CollisionScene>();
        [&scene.env, &scene.obj]
            .iter()
            .flat_map(|b| b.trees.stats.map(|s| s.origin))
            .collect()
    };
    use obbtree::bvh::TreeOrigin::{Built, Loaded};
    let first = start(&cache);
    assert_eq!(origins(&first), vec![Built; 6]);
    assert_eq!(std::fs::read_dir(cache.dir()).unwrap().count(), 6);
    let mut second = start(&cache);
    assert_eq!(origins(&second), vec![Loaded; 6]);
    let contacts = |app: &App| app.world().resource::<LastQuery>().report.sorted_contacts();
    assert!(
        !contacts(&first).is_empty(),
        "the torus rests on the landscape at step 656"
    );
    assert_eq!(contacts(&second), contacts(&first));
    // Another split: built (and saved), then back to the default: loaded.
    second
        .world_mut()
        .write_message(RebuildTrees(SplitRule::Median));
    settle(&mut second);
    assert_eq!(origins(&second), vec![Built; 6]);
    assert_eq!(std::fs::read_dir(cache.dir()).unwrap().count(), 12);
    second
        .world_mut()
        .write_message(RebuildTrees(SplitRule::default()));
    settle(&mut second);
    assert_eq!(origins(&second), vec![Loaded; 6]);
}
