//! The committed scenes and paths (issue: scenes, motion paths, Table 3): generators are
//! deterministic and match the committed files, counts are the paper's, paths are continuous and
//! really exercise contacts, OBB/AABB/sphere trees agree along them, bad assets are named.
#![cfg(feature = "paper")]

use obbtree::bv::{Aabb, Obb, Sphere};
use obbtree::query::{QueryOptions, SeparationPolicy};
use obbtree::scenes::{self, SceneError, SceneId, SceneSpec, bench};
use std::path::{Path, PathBuf};

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("obbtree_scenes_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn committed_files_match_the_manifest_hashes() {
    let manifest = scenes::read_manifest(&assets().join(scenes::MANIFEST)).unwrap();
    assert_eq!(manifest.scenes.len(), 3);
    for s in &manifest.scenes {
        for (file, hash) in [
            (&s.environment.file, &s.environment.blake3),
            (&s.object.file, &s.object.blake3),
            (&s.path.file, &s.path.blake3),
        ] {
            let bytes = std::fs::read(assets().join(file)).unwrap();
            assert_eq!(&blake3::hash(&bytes).to_hex().to_string(), hash, "{file}");
        }
    }
}

#[test]
fn regenerating_every_asset_reproduces_the_committed_ones() {
    // The whole of `generate-assets`: models, simulated paths and manifest, byte for byte.
    let committed = scenes::read_manifest(&assets().join(scenes::MANIFEST)).unwrap();
    let out = temp_dir("regen");
    let fresh = scenes::generate_assets(&out, committed.seed, &mut |_, _, _| {}).unwrap();
    assert_eq!(fresh, committed);
    for s in &fresh.scenes {
        for file in [&s.environment.file, &s.object.file, &s.path.file] {
            assert!(
                std::fs::read(out.join(file)).unwrap()
                    == std::fs::read(assets().join(file)).unwrap(),
                "{file} differs from the committed file"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn triangle_counts_are_within_one_percent_of_the_paper() {
    for id in SceneId::ALL {
        let scene = scenes::load_scene(&assets(), id).unwrap();
        let paper = SceneSpec::of(id).paper;
        for (ours, theirs, what) in [
            (
                scene.environment.triangle_count(),
                paper.environment_triangles,
                "environment",
            ),
            (
                scene.object.triangle_count(),
                paper.object_triangles,
                "object",
            ),
        ] {
            assert!(
                ours.abs_diff(theirs) * 100 <= theirs,
                "{id} {what}: {ours} triangles, paper {theirs}"
            );
        }
        if let Some(steps) = paper.steps {
            assert_eq!(scene.path.len(), steps, "{id} steps");
        }
    }
}

#[test]
fn paths_are_continuous_within_the_integrators_bounds() {
    for id in SceneId::ALL {
        let scene = scenes::load_scene(&assets(), id).unwrap();
        let limits = &scene.entry.path;
        let mut largest = (0.0f64, 0.0f64);
        for w in scene.path.windows(2) {
            let (a, b) = (&w[0].pose_ab, &w[1].pose_ab);
            let dt = (b.translation.vector - a.translation.vector).norm();
            let dr = a.rotation.angle_to(&b.rotation);
            largest = (largest.0.max(dt), largest.1.max(dr));
            // Slack for the 8 decimals of the file.
            assert!(
                dt <= limits.max_step_translation + 1e-7,
                "{id}: line {} jumps {dt} m (bound {})",
                w[1].line,
                limits.max_step_translation
            );
            assert!(
                dr <= limits.max_step_rotation + 1e-6,
                "{id}: line {} turns {dr} rad (bound {})",
                w[1].line,
                limits.max_step_rotation
            );
        }
        // The object really moves.
        assert!(largest.0 > 0.0 && largest.1 > 0.0, "{id} never moves");
    }
}

#[test]
fn replayed_paths_exercise_contacts_as_recorded() {
    for id in SceneId::ALL {
        let scene = scenes::load_scene(&assets(), id).unwrap();
        let row = bench::bench::<Obb>(
            &scene,
            1,
            SeparationPolicy::TopDown,
            &QueryOptions::default(),
            None,
            &mut |_| {},
        );
        // From the separation list: the same contacts.
        let listed = bench::bench::<Obb>(
            &scene,
            1,
            SeparationPolicy::Deferred,
            &QueryOptions::default(),
            None,
            &mut |_| {},
        );
        assert_eq!(listed.contacts, row.contacts, "{id}");
        // The replay from the file finds exactly the contacts the simulation found.
        assert_eq!(row.contacts, scene.entry.path.contacts, "{id}");
        assert_eq!(row.steps, scene.path.len());
        let second_half: u64 = {
            let half: Vec<usize> = (scene.path.len() / 2..scene.path.len()).collect();
            let contacts = bench::contacts_at::<Obb>(&scene, &half);
            contacts.iter().map(|c| c.len() as u64).sum()
        };
        let mean = second_half as f64 / (scene.path.len() - scene.path.len() / 2) as f64;
        assert!((mean - scene.entry.path.mean_contacts_second_half).abs() < 1e-9);
        assert!(
            mean > 0.0,
            "{id}: the body must end touching its environment"
        );
        // Per-step work near the paper's (Table 3): contacts and box tests per step within 3×.
        let paper = SceneSpec::of(id).paper;
        if let (Some(steps), Some(contacts), Some(boxes)) =
            (paper.steps, paper.contacts, paper.box_tests)
        {
            let ratio = |ours: f64, theirs: f64| ours / theirs;
            let c = ratio(
                row.contacts as f64 / row.steps as f64,
                contacts as f64 / steps as f64,
            );
            let b = ratio(
                row.box_tests as f64 / row.steps as f64,
                boxes as f64 / steps as f64,
            );
            assert!(
                (1.0 / 3.0..=3.0).contains(&c) && (1.0 / 3.0..=3.0).contains(&b),
                "{id}: contacts per step {c:.2}× and box tests per step {b:.2}× the paper's"
            );
        }
    }
}

#[test]
fn obb_aabb_and_sphere_trees_agree_along_the_paths() {
    for id in SceneId::ALL {
        let scene = scenes::load_scene(&assets(), id).unwrap();
        // Eight steps spread over those where the OBB trees find contacts.
        let all: Vec<usize> = (0..scene.path.len()).collect();
        let touching: Vec<usize> = bench::contacts_at::<Obb>(&scene, &all)
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_empty())
            .map(|(k, _)| k)
            .collect();
        let steps: Vec<usize> = (0..8)
            .map(|k| touching[k * (touching.len().max(1) - 1) / 7])
            .collect();
        let obb = bench::contacts_at::<Obb>(&scene, &steps);
        let aabb = bench::contacts_at::<Aabb>(&scene, &steps);
        let sphere = bench::contacts_at::<Sphere>(&scene, &steps);
        assert!(
            obb.iter().any(|c| !c.is_empty()),
            "{id}: no contacts on the sample"
        );
        assert_eq!(obb, aabb, "{id}: OBB vs AABB");
        assert_eq!(obb, sphere, "{id}: OBB vs sphere");
    }
}

#[cfg(feature = "cli")]
#[test]
fn bench_json_has_every_field() {
    let exe = env!("CARGO_BIN_EXE_obbtree");
    let out = std::process::Command::new(exe)
        .args(["bench", "torpedo", "--bv", "aabb", "--json", "--assets"])
        .arg(assets())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "scene",
        "bv",
        "environment_triangles",
        "object_triangles",
        "steps",
        "contacts",
        "box_tests",
        "tri_tests",
        "total_seconds",
        "avg_query_micros",
        "avg_box_test_nanos",
        "avg_contacts_per_step",
        "build_ms",
        "bytes_per_triangle",
        "paper",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    let manifest = scenes::read_manifest(&assets().join(scenes::MANIFEST)).unwrap();
    let entry = manifest
        .scenes
        .iter()
        .find(|s| s.scene == SceneId::Torpedo)
        .unwrap();
    assert_eq!(v["scene"], "torpedo");
    assert_eq!(v["bv"], "aabb");
    assert_eq!(v["steps"], entry.path.steps);
    assert_eq!(v["contacts"], entry.path.contacts);
    assert_eq!(v["environment_triangles"], entry.environment.triangles);
    assert_eq!(v["paper"]["object_triangles"], 4780);
}

/// A copy of the committed assets in a temporary folder, to corrupt.
fn copy_assets(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    for sub in ["models", "paths"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(assets().join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
        }
    }
    dir
}

#[test]
fn a_corrupt_manifest_is_named_with_its_line() {
    let dir = copy_assets("bad_manifest");
    let path = dir.join(scenes::MANIFEST);
    let text = std::fs::read_to_string(&path).unwrap();
    // Break line 4: `"scenes": [` loses its colon.
    let broken: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 3 {
                l.replace(':', "")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&path, broken.join("\n")).unwrap();
    let err = scenes::load_scene(&dir, SceneId::Torus).unwrap_err();
    match &err {
        SceneError::Manifest { path: p, line, .. } => {
            assert_eq!(p, &path);
            assert_eq!(*line, 4, "{err}");
        }
        other => panic!("expected a manifest error, got {other}"),
    }
    assert!(err.to_string().contains("manifest.json:4:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_path_line_is_named_with_its_file_and_line() {
    let dir = copy_assets("bad_path");
    let path = dir.join("paths/torpedo.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let bad = 100;
    lines[bad - 1] = "1 0 0 0 0.5 nan 0".into();
    std::fs::write(&path, lines.join("\n")).unwrap();
    let err = scenes::load_scene(&dir, SceneId::Torpedo).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("torpedo.txt:100:"), "{msg}");
    // A truncated path is caught by the manifest's step count.
    lines.truncate(50);
    std::fs::write(&path, lines.join("\n")).unwrap();
    let err = scenes::load_scene(&dir, SceneId::Torpedo).unwrap_err();
    assert!(
        matches!(err, SceneError::Mismatch { what: "poses", .. }),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_model_is_named() {
    let dir = copy_assets("missing_model");
    std::fs::remove_file(dir.join("models/torpedo.obj")).unwrap();
    let err = scenes::load_scene(&dir, SceneId::Torpedo).unwrap_err();
    assert!(err.to_string().contains("torpedo.obj"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
