//! The web build in a real browser: `assets/web/browser.py` serves the folder `assets/web/build.sh` wrote
//! (`target/web`, or `$OBBTREE_WEB_DIR`) on 127.0.0.1, opens each scene paused at its step in
//! headless Chromium (software GL), and saves a screenshot with the page title of that frame.
//! Checked as the native render test checks its screenshot (not blank, the panel drawn, the
//! highlight colour on screen), and the per-frame query the title reports (`step S contacts
//! K`) against the library's own count at that step, computed here natively. Two more tests
//! drive the torus scene, with keys and the mouse in the view and with the mouse on the panel,
//! and check each input's effect in the title.
//!
//! Run with `assets/web/test.sh` (build, then `cargo test --release --features web --test web`). It
//! fails, and does not skip, without the built folder or Chromium.
#![cfg(feature = "web")]

mod common;

use common::screen::{check_layout, is_curve, is_highlight, truth_at};
use obbtree::scenes::SceneId;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn web_dir() -> PathBuf {
    std::env::var_os("OBBTREE_WEB_DIR").map_or_else(|| root().join("target/web"), PathBuf::from)
}

/// The step each scene is shown paused at: at rest on the environment, with contacts.
fn step(id: SceneId) -> usize {
    match id {
        SceneId::Pipes => 3000,
        SceneId::Torus => 600,
        SceneId::Torpedo => 847,
    }
}

/// Opens `scene` in the browser; returns the page title of the screenshot's frame.
fn browse(id: SceneId, out: &Path) -> String {
    browse_with(id, out, "[]").0
}

/// [`browse`], then sends `actions` (browser.py's `--actions`); returns the page title of the
/// screenshot's frame and the title after each action.
fn browse_with(id: SceneId, out: &Path, actions: &str) -> (String, Vec<String>) {
    let dir = web_dir();
    assert!(
        dir.join("index.html").exists() && dir.join("obbtree-web_bg.wasm").exists(),
        "{} has no web build: run assets/web/build.sh first (assets/web/test.sh does)",
        dir.display()
    );
    let output = Command::new("python3")
        .arg(root().join("assets/web/browser.py"))
        .arg("--dir")
        .arg(&dir)
        .args([
            "--query",
            &format!("scene={}&step={}&play=0", id.name(), step(id)),
        ])
        .arg("--out")
        .arg(out)
        .args(["--actions", actions, "--timeout", "1500"])
        .output()
        .expect("python3 must be installed: this test does not skip");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(
        output.status.success(),
        "browser.py failed for {id}:\n{stdout}\n{stderr}"
    );
    eprintln!("{id}: {stdout}");
    let title = |prefix: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} in {stdout}"))
            .to_string()
    };
    let (before, after) = (title("title: "), title("title after: "));
    // Paused: the frame the screenshot shows is the one the title describes.
    assert_eq!(
        step_and_contacts(&before),
        step_and_contacts(&after),
        "{id}"
    );
    let after_actions = (0..)
        .map_while(|i| {
            let prefix = format!("action {i}: ");
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(prefix.as_str()))
                .map(str::to_string)
        })
        .collect();
    (before, after_actions)
}

/// `step S contacts K` of the title.
fn step_and_contacts(title: &str) -> (usize, usize) {
    let words: Vec<&str> = title.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == "step")
        .unwrap_or_else(|| panic!("no step in {title:?}"));
    let num = |i: usize| -> usize {
        words[i]
            .trim_end_matches(';')
            .parse()
            .unwrap_or_else(|_| panic!("bad number in {title:?}"))
    };
    assert_eq!(words[at + 2], "contacts", "{title:?}");
    (num(at + 1), num(at + 3))
}

fn check(id: SceneId, png: &Path, title: &str) {
    let img = image::open(png).expect("a PNG").to_rgb8();
    check_layout(id, &img);

    // The per-frame query: the title's step and contact count against the library's.
    let (step_shown, contacts) = step_and_contacts(title);
    assert_eq!(step_shown, step(id), "{id}: {title}");
    let truth = truth_at(&root().join("assets"), id, step_shown);
    assert_eq!(
        contacts,
        truth.report.contacts.len(),
        "{id}: step {step_shown}"
    );
    assert!(contacts > 0, "{id}: the step must have contacts");

    // The contacts on screen: the highlight colour and the intersection curve's. In the pipes
    // the contacting triangles lie mostly inside the translucent pipes, so there the curve
    // carries most of the marks; the highlight must still show.
    let highlight = img.pixels().filter(|p| is_highlight(p)).count();
    let curve = img.pixels().filter(|p| is_curve(p)).count();
    eprintln!("{id}: {highlight} highlight pixels, {curve} curve pixels");
    assert!(
        highlight >= 5,
        "{id}: contacts but only {highlight} highlight pixels"
    );
    assert!(
        highlight + curve >= 40,
        "{id}: contacts but only {highlight} highlight and {curve} curve pixels"
    );
}

fn scene_in_browser(id: SceneId) {
    let out = root().join("target/web-test");
    std::fs::create_dir_all(&out).unwrap();
    let png = out.join(format!("{}.png", id.name()));
    let title = browse(id, &png);
    check(id, &png, &title);
    // The 3D view lies right of the panel, as on native: its viewport starts where the panel
    // ends (the panel is 300–500 pixels wide) and reaches the page's right edge.
    let viewport: Vec<u32> = field(&title, "viewport ")
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(
        (300..=500).contains(&viewport[0]) && viewport[0] + viewport[2] == 1280,
        "{id}: viewport {viewport:?}"
    );
}

/// Two OBJ files dropped on the page (a synthetic drop, as from the desktop: the teapot, then
/// bunny-500) become the scene as the same files do natively (`obbtree view --obj`): the title
/// names them, and its contact count and distance are those of the native app's logic loading
/// the two files, run here headless.
#[test]
fn dropped_files_in_browser() {
    use bevy::prelude::*;
    use obbtree::app::{LastProximity, LastQuery, LogicPlugins, SceneChoice, SceneStatus};
    let out = root().join("target/web-test");
    std::fs::create_dir_all(&out).unwrap();
    let (a, b) = (
        root().join("tests/data/teapot.obj"),
        root().join("tests/data/bunny-500.obj"),
    );
    let shot = out.join("dropped.png");
    let actions = format!(
        r#"[{{"drop":["{}","{}"],"until":"teapot.obj + bunny-500.obj"}},{{"wait":true,"shot":"{}"}}]"#,
        a.display(),
        b.display(),
        shot.display()
    );
    let (_, t) = browse_with(SceneId::Torus, &out.join("torus-drop-start.png"), &actions);
    assert_eq!(t.len(), 2, "{t:#?}");
    assert!(
        t[1].starts_with("obbtree: teapot.obj + bunny-500.obj: step 0 contacts "),
        "{}",
        t[1]
    );
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(LogicPlugins::headless(
            root().join("assets"),
            Some(SceneChoice::Files(a, b)),
        ));
    for frame in 0.. {
        app.update();
        let status = app.world().resource::<SceneStatus>();
        assert!(status.error.is_none(), "{:?}", status.error);
        if frame > 2
            && status.loading.is_none()
            && app.world().resource::<LastProximity>().distance.is_some()
        {
            break;
        }
        assert!(frame < 100_000, "the native scene never loaded");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let contacts = app.world().resource::<LastQuery>().report.contacts.len();
    let distance = app
        .world()
        .resource::<LastProximity>()
        .distance
        .as_ref()
        .unwrap()
        .distance;
    assert_eq!(step_and_contacts(&t[1]), (0, contacts), "{}", t[1]);
    assert_eq!(
        field(&t[1], "distance "),
        format!("{distance:.6}"),
        "{}",
        t[1]
    );
}

#[test]
fn torus_in_browser() {
    scene_in_browser(SceneId::Torus);
}

#[test]
fn pipes_in_browser() {
    scene_in_browser(SceneId::Pipes);
}

#[test]
fn torpedo_in_browser() {
    scene_in_browser(SceneId::Torpedo);
}

/// The text of the title after `key` up to the next `;` (or the end).
fn field<'a>(title: &'a str, key: &str) -> &'a str {
    let at = title
        .find(key)
        .unwrap_or_else(|| panic!("no {key:?} in {title:?}"));
    let rest = &title[at + key.len()..];
    rest.split(';').next().unwrap().trim()
}

/// What the native viewer's keys and mouse do, done in the browser, on the torus scene: each
/// input is sent through the DevTools protocol as a user's would be (key events to the
/// focused canvas, mouse presses, moves and the wheel at window pixels), and the page title
/// after it must show its effect and nothing else: O steps once; Space plays, Space pauses; a
/// left-drag on the torus moves it (not the camera); the wheel zooms and a drag on empty sky
/// orbits (the camera, not the object); 3 loads the torpedo scene.
#[test]
fn keys_and_mouse_in_browser() {
    let out = root().join("target/web-test");
    std::fs::create_dir_all(&out).unwrap();
    let actions = r#"[{"key":"KeyO"},{"key":"Space"},{"wait":true},{"key":"Space"},{"wait":true},
        {"drag":[760,390,780,300]},{"wheel":[900,400,-300]},{"drag":[450,20,550,40]},
        {"key":"Digit3","until":"Torpedo"}]"#;
    let (start, t) = browse_with(SceneId::Torus, &out.join("torus-input.png"), actions);
    assert_eq!(t.len(), 9, "{t:#?}");
    let step_of = |title: &str| step_and_contacts(title).0;
    let (object, camera) = (
        |t: &str| field(t, "object at ").to_string(),
        |t: &str| field(t, "camera ").to_string(),
    );
    assert_eq!(step_of(&start), step(SceneId::Torus));
    // O: one step.
    assert_eq!(step_of(&t[0]), step_of(&start) + 1, "O: {}", t[0]);
    // Space: playing, the steps go on; Space again: paused, they stay.
    assert!(step_of(&t[1]) > step_of(&t[0]), "Space: {}", t[1]);
    assert!(step_of(&t[2]) > step_of(&t[1]), "playing: {}", t[2]);
    assert_eq!(
        step_of(&t[4]),
        step_of(&t[3]),
        "paused: {} / {}",
        t[3],
        t[4]
    );
    // Left-drag on the torus: it moves, up the screen; the camera stays.
    assert_ne!(object(&t[5]), object(&t[4]), "drag: {}", t[5]);
    assert_eq!(
        camera(&t[5]),
        camera(&t[4]),
        "drag moved the camera: {}",
        t[5]
    );
    assert!(t[5].contains("pointer 780 300 over the view"), "{}", t[5]);
    // The wheel: the camera comes closer; the object stays.
    assert_ne!(camera(&t[6]), camera(&t[5]), "wheel: {}", t[6]);
    assert_eq!(
        object(&t[6]),
        object(&t[5]),
        "wheel moved the object: {}",
        t[6]
    );
    // A drag on the sky: the camera orbits; the object stays.
    assert_ne!(camera(&t[7]), camera(&t[6]), "orbit: {}", t[7]);
    assert_eq!(
        object(&t[7]),
        object(&t[6]),
        "orbit moved the object: {}",
        t[7]
    );
    // 3: the torpedo scene.
    assert!(t[8].starts_with("obbtree: Torpedo"), "3: {}", t[8]);
}

/// `hierarchy obb object level L: K volumes, D drawn` of a title: (L, K).
fn hierarchy_level(title: &str) -> (usize, usize) {
    let text = field(title, "hierarchy obb object level ");
    let (level, rest) = text
        .split_once(':')
        .unwrap_or_else(|| panic!("no level in {title:?}"));
    let volumes = rest
        .split_whitespace()
        .next()
        .unwrap_or_else(|| panic!("no count in {title:?}"));
    (level.parse().unwrap(), volumes.parse().unwrap())
}

/// The panel, used with the mouse in the browser on the torus scene (its positions: a 1280×720
/// page, the sections as they open by default): a click on the Drawing
/// section's header opens it; a click on "Show hierarchy level" draws the object's OBB tree at
/// a level, and a drag on the level slider changes the level — at each, the title's volume
/// count must be the library's number of nodes at that depth; a click on the side-by-side
/// checkbox runs the OBB, AABB and sphere trees on the pose — the title's box tests, triangle
/// tests and contacts of each must be the library's, computed here natively. The screenshot
/// after it must still pass the render checks (the layout, the contacts on screen).
#[test]
fn panel_in_browser() {
    use obbtree::bv::{Aabb, BoundingVolume, Sphere};
    use obbtree::bvh::{BuildOptions, Bvh};
    use obbtree::math::Isometry;
    use obbtree::query::{QueryOptions, collide};

    let out = root().join("target/web-test");
    std::fs::create_dir_all(&out).unwrap();
    let shot = out.join("torus-panel.png");
    let actions = format!(
        r#"[{{"click":[50,459]}},{{"click":[33,556]}},{{"drag":[48,619,100,619]}},
        {{"click":[33,341],"until":"side by side"}},{{"wait":true,"shot":"{}"}}]"#,
        shot.display()
    );
    let (start, t) = browse_with(SceneId::Torus, &out.join("torus-panel-start.png"), &actions);
    assert_eq!(t.len(), 5, "{t:#?}");
    let id = SceneId::Torus;
    let truth = truth_at(&root().join("assets"), id, step(id));
    // The overlay is off at the start.
    assert!(!start.contains("hierarchy"), "{start}");
    // "Show hierarchy level": the object's OBB tree at the default level.
    let (first, volumes) = hierarchy_level(&t[1]);
    assert_eq!(volumes, truth.obj.nodes_at_depth(first).len(), "{}", t[1]);
    // The slider: another level, again the library's count.
    let (second, volumes) = hierarchy_level(&t[2]);
    assert_ne!(
        second, first,
        "the slider did not change the level: {}",
        t[2]
    );
    assert_eq!(volumes, truth.obj.nodes_at_depth(second).len(), "{}", t[2]);
    // Side by side: each tree type's counts equal the library's on the same pose.
    let pose = &truth.scene.path[step(id)].pose_ab;
    fn row<B: BoundingVolume>(truth: &common::screen::Truth, pose: &Isometry) -> String {
        let build = BuildOptions::default();
        let env = Bvh::<B>::build(truth.scene.environment.clone(), &build);
        let obj = Bvh::<B>::build(truth.scene.object.clone(), &build);
        let r = collide(
            &env,
            &Isometry::identity(),
            &obj,
            pose,
            &QueryOptions::default(),
        );
        format!(
            "{} {} {} {}",
            B::KIND,
            r.bv_tests,
            r.tri_tests,
            r.contacts.len()
        )
    }
    // The OBB row is the library's query at the step, which `truth_at` ran already.
    let r = &truth.report;
    let expected = format!(
        "side by side obb {} {} {}, {}, {}, same contacts yes",
        r.bv_tests,
        r.tri_tests,
        r.contacts.len(),
        row::<Aabb>(&truth, pose),
        row::<Sphere>(&truth, pose)
    );
    assert!(
        t[3].contains(&expected),
        "expected {expected:?} in {}",
        t[3]
    );
    // The hierarchy is still shown, and the frame still passes the render checks.
    assert!(t[4].contains("hierarchy obb object level"), "{}", t[4]);
    check(id, &shot, &t[4]);
}
