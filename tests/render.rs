//! A real render of each scene under Xvfb with Mesa's software Vulkan (lavapipe): `obbtree view
//! --scene S --screenshot out.png --frames 60` must save a PNG that is not blank, shows the
//! contact highlight colour where the scene has contacts, and shows the UI panel. This test
//! fails (it does not skip) when the machine cannot render: CI installs `xvfb` and
//! `mesa-vulkan-drivers` (see `.ci/run`).
#![cfg(feature = "app")]

use obbtree::bvh::{BuildOptions, ObbTree};
use obbtree::math::Isometry;
use obbtree::query::{QueryOptions, collide};
use obbtree::scenes::{self, SceneId};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The step each scene's screenshot starts at: inside the resting part of its path.
fn start_step(id: SceneId) -> usize {
    match id {
        SceneId::Pipes => 360,
        SceneId::Torus => 600,
        SceneId::Torpedo => 845,
    }
}

fn render(id: SceneId, out: &Path) -> String {
    let exe = env!("CARGO_BIN_EXE_obbtree");
    let output = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(exe)
        .args(["view", "--scene", id.name(), "--frames", "60"])
        .args(["--step", &start_step(id).to_string()])
        .arg("--screenshot")
        .arg(out)
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .expect("xvfb-run must be installed (Debian package xvfb): this test does not skip");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "obbtree view failed for {id}: {}\n{}",
        stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn check(id: SceneId, png: &Path, stdout: &str) {
    let img = image::open(png).expect("a PNG").to_rgb8();
    let (w, h) = img.dimensions();
    assert!(w >= 1000 && h >= 600, "{w}×{h}");
    // Not blank: many distinct colours.
    let mut colours = std::collections::HashSet::new();
    for p in img.pixels() {
        colours.insert(p.0);
    }
    assert!(colours.len() > 200, "{id}: only {} colours", colours.len());

    // The UI panel: the left strip is egui's neutral grey with light text on it.
    let (mut grey, mut text, mut total) = (0u32, 0u32, 0u32);
    for y in 10..h - 10 {
        for x in 5..300 {
            let [r, g, b] = img.get_pixel(x, y).0;
            total += 1;
            if r.abs_diff(g) < 4 && g.abs_diff(b) < 4 {
                grey += 1;
                if r > 150 {
                    text += 1;
                }
            }
        }
    }
    assert!(
        grey as f64 > 0.8 * total as f64,
        "{id}: panel not found ({grey}/{total} grey)"
    );
    assert!(
        text > 300,
        "{id}: no text on the panel ({text} light pixels)"
    );

    // The 3D view: not the panel's grey.
    let mut neutral = 0u32;
    let mut view = 0u32;
    for y in 10..h - 10 {
        for x in 420..w - 10 {
            let [r, g, b] = img.get_pixel(x, y).0;
            view += 1;
            if r.abs_diff(g) < 4 && g.abs_diff(b) < 4 {
                neutral += 1;
            }
        }
    }
    assert!(
        (neutral as f64) < 0.5 * view as f64,
        "{id}: the 3D view looks empty"
    );

    // The highlight colour (unlit, untonemapped sRGB (255, 20, 20)) where the scene has contacts.
    let highlight = img
        .pixels()
        .filter(|p| p.0[0] >= 235 && p.0[1] <= 45 && p.0[2] <= 45)
        .count();
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
    let scene = scenes::load_scene(&assets(), id).unwrap();
    let env = ObbTree::build(scene.environment.clone(), &BuildOptions::default());
    let obj = ObbTree::build(scene.object.clone(), &BuildOptions::default());
    let truth = collide(
        &env,
        &Isometry::identity(),
        &obj,
        &scene.path[step].pose_ab,
        &QueryOptions::default(),
    );
    assert_eq!(contacts, truth.contacts.len(), "{id}: step {step}");
    assert!(
        contacts > 0,
        "{id}: choose a start step whose screenshot frame has contacts (step {step})"
    );
    assert!(
        highlight >= 15,
        "{id}: contacts but only {highlight} highlight pixels"
    );
}

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

#[test]
fn every_scene_renders_with_highlights_and_panel() {
    let dir = std::env::temp_dir().join(format!("obbtree_render_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for id in SceneId::ALL {
        let png = dir.join(format!("{}.png", id.name()));
        let stdout = render(id, &png);
        assert!(stdout.contains("screenshot"), "{stdout}");
        println!("{stdout}");
        check(id, &png, &stdout);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
