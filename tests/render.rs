//! A real render of each scene under Xvfb with Mesa's software Vulkan (lavapipe): `obbtree view
//! --scene S --screenshot out.png --frames 15` must save a PNG that is not blank, shows the
//! contact highlight colour where the scene has contacts, shows the intersection curve's colour
//! where the library's contacts project on the image (through the camera the app reports), and
//! shows the UI panel. This test fails (it does not skip) when the machine cannot render: CI
//! installs `xvfb` and `mesa-vulkan-drivers` (see `.ci/run`).
#![cfg(feature = "app")]

mod common;

use common::screen::{
    Truth, check_layout, is_curve, is_highlight, is_segment, is_tolerance, truth_at,
};
use obbtree::bv::OverlapOptions;
use obbtree::bvh::{BuildOptions, ObbTree};
use obbtree::math::{Isometry, Point, UnitQuaternion, Vector};
use obbtree::query::{
    DistanceOptions, Intersection, QueryOptions, collide, distance, triangle_intersection,
    within_pairs,
};
use obbtree::scenes::{self, SceneId};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Frames the app renders (one path step each) before it takes the screenshot. Under lavapipe
/// on 2 cores a frame takes 0.5-4 s; the capture itself waits, past these, until the render
/// pipelines are compiled, so more frames only cost CI time.
const FRAMES: usize = 15;

/// The step each scene's screenshot starts at: `FRAMES` steps (the frames the app renders before the
/// screenshot, one step each) before the middle of the first stretch of steps with contacts at
/// every step (by the library's query along the recorded path) in the resting part of the
/// path: 11 steps long, 3 for the torpedo, which bounces on its rollers (its contacts come and
/// go from step to step).
fn start_step(id: SceneId) -> usize {
    let scene = scenes::load_scene(&assets(), id).unwrap();
    let env = ObbTree::build(scene.environment.clone(), &BuildOptions::default());
    let obj = ObbTree::build(scene.object.clone(), &BuildOptions::default());
    let first = QueryOptions::first_contact();
    let (need, from) = match id {
        SceneId::Torpedo => (3, 60),
        _ => (11, scene.path.len() / 2),
    };
    let mut run = 0;
    for (step, pose) in scene.path.iter().enumerate().skip(from) {
        let touching =
            collide(&env, &Isometry::identity(), &obj, &pose.pose_ab, &first).colliding();
        run = if touching { run + 1 } else { 0 };
        if run == need {
            return step - need / 2 - FRAMES;
        }
    }
    panic!("{id}: no {need} steps in a row with contacts on the path");
}

fn render(id: SceneId, step: usize, out: &Path, extra: &[&str]) -> String {
    render_scene(id.name(), step, out, extra)
}

/// [`render`] of the scene named `name` (the paper's, or `wobble`).
fn render_scene(name: &str, step: usize, out: &Path, extra: &[&str]) -> String {
    let exe = env!("CARGO_BIN_EXE_obbtree");
    let output = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(exe)
        .args(["view", "--scene", name, "--frames", &FRAMES.to_string()])
        .args(["--step", &step.to_string()])
        .arg("--screenshot")
        .arg(out)
        .args(extra)
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .expect("xvfb-run must be installed (Debian package xvfb): this test does not skip");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "obbtree view failed for {name}: {}\n{}",
        stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn check(id: SceneId, png: &Path, stdout: &str) {
    let img = image::open(png).expect("a PNG").to_rgb8();
    let (w, h) = img.dimensions();
    check_layout(id, &img);
    let highlight = img.pixels().filter(|p| is_highlight(p)).count();
    // The step on screen and its contact count, as the app reports them, against the library.
    let shown: Vec<usize> = stdout
        .split_whitespace()
        .skip_while(|w| *w != "step")
        .skip(1)
        .take(3)
        .filter_map(|w| w.trim_end_matches(';').parse().ok())
        .collect();
    assert_eq!(shown.len(), 2, "{stdout}");
    let (step, contacts) = (shown[0], shown[1]);
    let Truth {
        scene,
        env,
        obj,
        report: truth,
    } = truth_at(&assets(), id, step);
    assert_eq!(contacts, truth.contacts.len(), "{id}: step {step}");
    assert!(
        contacts > 0,
        "{id}: choose a start step whose screenshot frame has contacts (step {step})"
    );
    // Touching: no segment is drawn, and nothing else in the 3D view has its colour (what
    // makes the segment's check in `check_proximity` able to fail).
    let white = (0..h)
        .flat_map(|y| (420..w).map(move |x| (x, y)))
        .filter(|&(x, y)| is_segment(img.get_pixel(x, y)))
        .count();
    assert_eq!(white, 0, "{id}: segment-coloured pixels while touching");
    // The lit triangles are on screen (on the pipes scene they are a few pixels each: the
    // intersection curve checked below is what makes those contacts legible).
    assert!(
        highlight >= 4,
        "{id}: contacts but only {highlight} highlight pixels"
    );

    // The intersection curve: the library's pieces for the reported contacts, projected through
    // the app's camera, must have the curve's colour (sRGB (0, 255, 90), drawn over everything)
    // within a few pixels.
    let camera = Camera::parse(stdout).unwrap_or_else(|| panic!("no camera in {stdout}"));
    let pose = scene.path[step].pose_ab;
    let mut pieces: Vec<Point> = Vec::new();
    for &(ia, ib) in &truth.contacts {
        let ta = env.mesh().triangle(ia as usize);
        let tb = obj.mesh().triangle(ib as usize).map(|p| pose * p);
        match triangle_intersection(&ta, &tb) {
            Intersection::Empty => {}
            Intersection::Point(p) => pieces.push(p),
            Intersection::Segment(a, b) => pieces.push(nalgebra::center(&a, &b)),
            Intersection::Polygon(v) => pieces.extend(v),
        }
    }
    assert!(
        !pieces.is_empty(),
        "{id}: contacts but no intersection pieces"
    );
    let curve_at = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && (x as u32) < w
            && (y as u32) < h
            && is_curve(img.get_pixel(x as u32, y as u32))
    };
    let (mut visible, mut found) = (0, 0);
    for p in &pieces {
        let Some((x, y)) = camera.project(p) else {
            continue;
        };
        visible += 1;
        let near = (-4..=4).any(|dy| (-4..=4).any(|dx| curve_at(x + dx, y + dy)));
        found += usize::from(near);
    }
    assert!(visible > 0, "{id}: no contact piece in the view");
    assert!(
        found * 10 >= visible * 8,
        "{id}: the curve's colour is at only {found} of {visible} projected contact pieces"
    );
}

/// The camera the app reported: world transform, vertical field of view, viewport.
struct Camera {
    position: Vector,
    rotation: UnitQuaternion,
    fov: f64,
    viewport: [f64; 4],
}

/// The numbers after `key` in the capture line, up to the next `;`.
fn numbers_after(stdout: &str, key: &str) -> Vec<f64> {
    let words: Vec<&str> = stdout.split_whitespace().collect();
    let Some(i) = words.iter().position(|w| *w == key) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for w in &words[i + 1..] {
        let Ok(x) = w.trim_end_matches(';').parse::<f64>() else {
            break;
        };
        out.push(x);
        if w.ends_with(';') {
            break;
        }
    }
    out
}

/// Whether a pixel within `r` of `(x, y)` satisfies `colour`.
fn near(
    img: &image::RgbImage,
    (x, y): (i64, i64),
    r: i64,
    colour: fn(&image::Rgb<u8>) -> bool,
) -> bool {
    let (w, h) = img.dimensions();
    (-r..=r).any(|dy| {
        (-r..=r).any(|dx| {
            let (px, py) = (x + dx, y + dy);
            px >= 0
                && py >= 0
                && (px as u32) < w
                && (py as u32) < h
                && colour(img.get_pixel(px as u32, py as u32))
        })
    })
}

/// The proximity shots: the distance the app reports is the library's at the step, its segment
/// is drawn in its colour at both closest points as projected through the app's camera; with a
/// tolerance, the pairs within it are the library's count and some are filled in their colour.
fn check_proximity(id: SceneId, png: &Path, stdout: &str, tolerance: Option<f64>) {
    let img = image::open(png).expect("a PNG").to_rgb8();
    check_layout(id, &img);
    let step = numbers_after(stdout, "step")[0] as usize;
    let Truth {
        scene,
        env,
        obj,
        report,
    } = truth_at(&assets(), id, step);
    assert!(
        report.contacts.is_empty(),
        "{id}: step {step} must be apart"
    );
    let pose = scene.path[step].pose_ab;
    let id_pose = obbtree::math::Isometry::identity();
    let want = distance(&env, &id_pose, &obj, &pose, &DistanceOptions::default()).unwrap();
    let shown = numbers_after(stdout, "distance");
    assert_eq!(
        shown.first().copied(),
        Some(want.distance),
        "{id} step {step}: {stdout}"
    );
    let segment = numbers_after(stdout, "segment");
    assert_eq!(segment.len(), 6, "{stdout}");
    let camera = Camera::parse(stdout).unwrap_or_else(|| panic!("no camera in {stdout}"));
    for end in [&segment[..3], &segment[3..]] {
        let p = Point::new(end[0], end[1], end[2]);
        let at = camera
            .project(&p)
            .unwrap_or_else(|| panic!("{id}: {p} not in view"));
        assert!(
            near(&img, at, 7, is_segment),
            "{id}: no segment colour near the closest point {p} (pixel {at:?})"
        );
    }
    if let Some(t) = tolerance {
        let pairs = within_pairs(&env, &id_pose, &obj, &pose, t, &OverlapOptions::default())
            .unwrap()
            .pairs
            .len();
        assert_eq!(
            numbers_after(stdout, "pairs").first().copied(),
            Some(pairs as f64),
            "{stdout}"
        );
        let lit = img.pixels().filter(|p| is_tolerance(p)).count();
        assert!(
            lit >= 20,
            "{id}: {pairs} pairs within {t} but {lit} pixels of their colour"
        );
    }
}

impl Camera {
    /// Reads `camera x y z qx qy qz qw fov F viewport X Y W H` from the app's line.
    fn parse(stdout: &str) -> Option<Camera> {
        let words: Vec<&str> = stdout
            .split_whitespace()
            .skip_while(|w| *w != "camera")
            .collect();
        let num = |i: usize| words.get(i)?.trim_end_matches(';').parse::<f64>().ok();
        let v: Vec<f64> = (1..=7).map(num).collect::<Option<_>>()?;
        (words.get(8) == Some(&"fov")).then_some(())?;
        let fov = num(9)?;
        (words.get(10) == Some(&"viewport")).then_some(())?;
        let viewport = [num(11)?, num(12)?, num(13)?, num(14)?];
        Some(Camera {
            position: Vector::new(v[0], v[1], v[2]),
            rotation: UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
                v[6], v[3], v[4], v[5],
            )),
            fov,
            viewport,
        })
    }

    /// The pixel a world point lands on (Bevy's camera looks along its −z, y up), if in front
    /// of the camera and inside the viewport.
    fn project(&self, p: &Point) -> Option<(i64, i64)> {
        let v = self.rotation.inverse() * (p.coords - self.position);
        if v.z >= 0.0 {
            return None;
        }
        let [x0, y0, w, h] = self.viewport;
        let f = 1.0 / (self.fov * 0.5).tan();
        let (nx, ny) = (f * h / w * v.x / -v.z, f * v.y / -v.z);
        if nx.abs() > 0.98 || ny.abs() > 0.98 {
            return None;
        }
        Some((
            (x0 + (nx + 1.0) * 0.5 * w).round() as i64,
            (y0 + (1.0 - ny) * 0.5 * h).round() as i64,
        ))
    }
}

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

#[test]
fn every_scene_renders_with_highlights_and_panel() {
    let dir = std::env::temp_dir().join(format!("obbtree_render_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Each scene at a resting step, and the pipes where the small cube first lands among the
    // large pipes: at step 2190 its 22 contacts are pieces a few pixels long, drawn as rings.
    let shots = SceneId::ALL
        .into_iter()
        .map(|id| (id, start_step(id)))
        .chain([(SceneId::Pipes, 2190 - FRAMES)]);
    for (id, step) in shots {
        let png = dir.join(format!("{}-{step}.png", id.name()));
        let stdout = render(id, step, &png, &[]);
        assert!(stdout.contains("screenshot"), "{stdout}");
        println!("{stdout}");
        // One more render when the first capture fails its checks: under lavapipe a capture
        // has now and then shown a 3D view that did not match the app's state (once in CI the
        // resting torus, its 4 contacts reported, with no highlight drawn; never here in 8
        // renders of that step). The second capture must pass every check; the first
        // failure is printed, so a retry shows in the log.
        let first = std::panic::catch_unwind(|| check(id, &png, &stdout));
        if let Err(e) = first {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            println!("{id}: the first capture failed ({why}); rendering it again");
            let stdout = render(id, step, &png, &[]);
            println!("{stdout}");
            check(id, &png, &stdout);
        }
    }
    // Apart: the torus above the landscape (its segment a few hundred pixels long), the
    // torpedo over its rollers with the pairs within 0.02 lit.
    for (id, step, tolerance) in [
        (SceneId::Torus, 0, None),
        (SceneId::Torpedo, 50 - FRAMES, Some(0.02)),
    ] {
        let png = dir.join(format!("{}-{step}-apart.png", id.name()));
        let t = tolerance.map(|t: f64| t.to_string());
        let extra: Vec<&str> = t.iter().flat_map(|t| ["--tolerance", t.as_str()]).collect();
        let stdout = render(id, step, &png, &extra);
        println!("{stdout}");
        check_proximity(id, &png, &stdout, tolerance);
    }
    // The wobbling torus squeezed through itself (its clock at 4 s, the deepest squeeze).
    let png = dir.join("wobble-240.png");
    let stdout = render_scene("wobble", 240 - FRAMES, &png, &[]);
    println!("{stdout}");
    check_self_intersection(&png, &stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The squeezed torus: the self-intersecting pairs the app reports are the library's for the
/// mesh at the reported clock (an OBB tree built anew, against the app's refitted AABB tree),
/// and the pieces where they cross, placed by the path's pose and projected through the app's
/// camera, have the curve's colour.
fn check_self_intersection(png: &Path, stdout: &str) {
    use obbtree::query::{SelfIntersectionOptions, self_intersections};
    let img = image::open(png).expect("a PNG").to_rgb8();
    check_layout(SceneId::Torus, &img);
    let step = numbers_after(stdout, "step")[0] as usize;
    let shown = numbers_after(stdout, "pairs");
    let time = numbers_after(stdout, "time");
    assert_eq!((shown.len(), time.len()), (1, 1), "{stdout}");
    let scene = scenes::load_scene(&assets(), SceneId::Torus).unwrap();
    let rest = scene.object.vertices();
    let mesh = obbtree::mesh::TriMesh::new(
        obbtree::app::wobble(rest, time[0]),
        scene.object.triangles().to_vec(),
        "squeezed torus",
    )
    .unwrap();
    let tree = ObbTree::build(mesh, &BuildOptions::default());
    let options = SelfIntersectionOptions {
        curves: true,
        ..SelfIntersectionOptions::default()
    };
    let report = self_intersections(&tree, &options);
    assert_eq!(shown[0] as usize, report.pairs.len(), "{stdout}");
    assert!(
        !report.pairs.is_empty(),
        "the shot must show the torus through itself"
    );
    let camera = Camera::parse(stdout).unwrap_or_else(|| panic!("no camera in {stdout}"));
    let pose = scene.path[step].pose_ab;
    let (mut visible, mut found) = (0, 0);
    for piece in &report.curves {
        let points: Vec<Point> = match piece {
            Intersection::Segment(a, b) => vec![nalgebra::center(a, b)],
            other => other.points(),
        };
        for p in points {
            let Some(at) = camera.project(&(pose * p)) else {
                continue;
            };
            visible += 1;
            found += usize::from(near(&img, at, 4, is_curve));
        }
    }
    assert!(visible > 0, "no self-intersection piece in the view");
    assert!(
        found * 10 >= visible * 8,
        "the curve's colour is at only {found} of {visible} projected self-intersection pieces"
    );
}
