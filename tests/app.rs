//! The app's ECS logic, headless (`MinimalPlugins` + `app.update()`): scenes load off the main
//! thread, the per-frame query matches an independent oracle, drag messages move bodies and
//! change contacts, overlay toggles change the box list, timings fill every frame, bad files
//! become the UI's error state.
#![cfg(feature = "app")]

mod common;

use bevy::prelude::*;
use obbtree::app::*;
use obbtree::bv::{BvKind, Obb};
use obbtree::bvh::{BuildOptions, Bvh};
use obbtree::math::{UnitQuaternion, Vector};
use obbtree::query::brute_force_posed;
use obbtree::scenes::SceneId;
use std::path::Path;
use std::time::{Duration, Instant};

fn app_with(choice: SceneChoice) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(LogicPlugins {
        assets: Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"),
        initial: Some(choice),
    });
    app
}

/// Updates until no load is running; the window stays responsive meanwhile (frames run).
fn settle(app: &mut App) -> u32 {
    let start = Instant::now();
    let mut frames = 0;
    loop {
        app.update();
        frames += 1;
        let status = app.world().resource::<SceneStatus>();
        if status.loading.is_none() && frames > 1 {
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
    assert!(last.query_us > 0.0);

    // Move along the path to a resting step, then the OBB query must equal the AABB query.
    {
        let mut p = app.world_mut().resource_mut::<Playback>();
        p.step = 1200;
        p.follow_path = true;
    }
    app.update();
    let obb = app.world().resource::<LastQuery>().report.sorted_contacts();
    assert!(
        !obb.is_empty(),
        "the torpedo rests on its rollers at step 1200"
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
    // The body turned about its centre, and the centre moved by the drag.
    use obbtree::bv::BoundingVolume;
    let center = scene.obj.obb.node_box(0).0;
    let shift = moved * center - start * center;
    assert!((shift - Vector::new(dx, 0.0, 0.0)).norm() < 1e-9, "{shift}");
    assert!(moved.rotation.angle_to(&start.rotation) > 0.29);
    let truth = brute_force_posed(&scene.env.mesh, &scene.env.pose, &scene.obj.mesh, &moved);
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
        let tree = Bvh::<Obb>::build(scene.obj.mesh.clone(), &BuildOptions::default());
        (0..5)
            .map(|d| tree.nodes_at_depth(d).len())
            .collect::<Vec<_>>()
    };
    for level in 0..5 {
        *app.world_mut().resource_mut::<OverlaySettings>() = OverlaySettings {
            show: true,
            level,
            body: BodyId::Object,
            tree: BvKind::Obb,
            ..OverlaySettings::default()
        };
        app.update();
        let boxes = app.world().resource::<OverlayBoxes>();
        assert_eq!(boxes.at_level, oracle[level], "level {level}");
        assert_eq!(
            boxes.boxes.len(),
            oracle[level].min(OverlaySettings::default().max_boxes)
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
    app.world_mut().resource_mut::<Playback>().step = 0;
    app.update();
    app.update();
    let floating = app.world().resource::<OverlayBoxes>().boxes.len();
    app.world_mut().resource_mut::<Playback>().step = 1200;
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
    let first = app.world().resource::<CollisionScene>().obj.aabb.nodes()[0].bv;
    for _ in 0..10 {
        app.update();
    }
    let scene = app.world().resource::<CollisionScene>();
    assert_ne!(
        scene.obj.aabb.nodes()[0].bv,
        first,
        "the root box follows the wobble"
    );
    // The refitted tree still bounds the deformed mesh, and the query agrees with brute force
    // restricted to the contacts found by a fresh build.
    scene.obj.aabb.validate().unwrap();
    let fresh =
        Bvh::<obbtree::bv::Aabb>::build(scene.obj.aabb.mesh().clone(), &BuildOptions::default());
    let env = &scene.env.aabb;
    let rel = scene.env.pose.inv_mul(&scene.obj.pose);
    let expect = obbtree::query::collide(
        env,
        &obbtree::math::Isometry::identity(),
        &fresh,
        &rel,
        &Default::default(),
    );
    let got = app.world().resource::<LastQuery>().report.sorted_contacts();
    assert_eq!(got, expect.sorted_contacts());
    assert!(app.world().resource::<Timings>().last().unwrap().refit_us > 0.0);
}

#[test]
fn the_separation_list_option_keeps_the_contacts_of_the_plain_query() {
    use obbtree::query::SeparationPolicy;
    let mut app = app_with(SceneChoice::Paper(SceneId::Torus));
    settle(&mut app);
    {
        let mut p = app.world_mut().resource_mut::<Playback>();
        p.step = 1000;
        p.follow_path = true;
        p.playing = true;
    }
    app.world_mut().resource_mut::<QuerySettings>().separation = Some(SeparationPolicy::Deferred);
    let mut touching = 0;
    for frame in 0..40 {
        app.update();
        let scene = app.world().resource::<CollisionScene>();
        let rel = scene.env.pose.inv_mul(&scene.obj.pose);
        let expect = obbtree::query::collide(
            &scene.env.obb,
            &obbtree::math::Isometry::identity(),
            &scene.obj.obb,
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
