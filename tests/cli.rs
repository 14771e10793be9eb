//! The `collide` command's output contract (README, `obbtree collide`): one JSON object per pose, then a
//! summary, agreeing with the library.
#![cfg(feature = "cli")]

mod common;
use common::*;
use obbtree::pose::read_poses;
use obbtree::prelude::*;
use std::process::Command;

fn poses_file(n: usize) -> TempFile {
    let all = std::fs::read_to_string(data("teapot_random.txt")).unwrap();
    let lines: Vec<&str> = all
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(n)
        .collect();
    temp_file(
        &format!("teapot_random_{n}.txt"),
        format!("# first {n} poses of teapot_random\n{}\n", lines.join("\n")),
    )
}

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn json_lines_match_the_library() {
    let poses = poses_file(60);
    let teapot = data("teapot.obj");
    for (bv, extra) in [
        ("obb", None),
        ("aabb", None),
        ("sphere", None),
        ("obb", Some("--first-contact")),
    ] {
        let mut args = vec![
            "collide",
            teapot.to_str().unwrap(),
            teapot.to_str().unwrap(),
            "--poses",
            poses.to_str().unwrap(),
            "--json",
            "--bv",
            bv,
        ];
        args.extend(extra);
        let stdout = run(&args);
        let lines: Vec<serde_json::Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 61, "60 poses + summary");

        let mesh = load("teapot.obj");
        let t = Bvh::<Obb>::build(mesh, &BuildOptions::default());
        let opts = if extra.is_some() {
            QueryOptions::first_contact()
        } else {
            QueryOptions::default()
        };
        let (mut contacts, mut colliding, mut bv_tests, mut tri_tests) = (0u64, 0u64, 0u64, 0u64);
        for (i, pose) in read_poses(&poses).unwrap().iter().enumerate() {
            let o = &lines[i];
            assert_eq!(o["pose"], i as u64);
            for key in ["colliding", "contacts", "bv_tests", "tri_tests", "micros"] {
                assert!(o.get(key).is_some(), "pose {i} lacks {key}");
            }
            let got: Vec<(u32, u32)> = o["contacts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_u64().unwrap() as u32, p[1].as_u64().unwrap() as u32))
                .collect();
            let want = collide(&t, &Isometry::identity(), &t, &pose.pose_ab, &opts);
            if extra.is_none() {
                assert_eq!(got, want.sorted_contacts(), "{bv} pose {i}");
            } else {
                assert_eq!(got.is_empty(), !want.colliding(), "{bv} pose {i}");
            }
            assert_eq!(o["colliding"], !got.is_empty());
            contacts += got.len() as u64;
            colliding += (!got.is_empty()) as u64;
            bv_tests += o["bv_tests"].as_u64().unwrap();
            tri_tests += o["tri_tests"].as_u64().unwrap();
        }
        let s = &lines[60]["summary"];
        assert_eq!(s["poses"], 60);
        assert_eq!(s["colliding"], colliding);
        assert_eq!(s["contacts"], contacts);
        assert_eq!(s["bv_tests"], bv_tests);
        assert_eq!(s["tri_tests"], tri_tests);
        assert!(
            s["mean_micros"].as_f64().unwrap() > 0.0 && s["median_micros"].as_f64().unwrap() > 0.0
        );
        assert_eq!(s["build_ms"].as_array().unwrap().len(), 2);
    }
}

#[test]
fn table_without_json() {
    let poses = poses_file(5);
    let teapot = data("teapot.obj");
    let stdout = run(&[
        "collide",
        teapot.to_str().unwrap(),
        teapot.to_str().unwrap(),
        "--poses",
        poses.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("A: ") && lines[1].starts_with("B: "));
    assert!(lines[2].contains("box tests") && lines[2].contains("tri tests"));
    assert_eq!(lines.len(), 3 + 5 + 1);
    assert!(lines[8].starts_with("summary: 5 poses"));
}

/// `--threads 2` gives every pose's line as one thread does (times aside), in pose order.
#[test]
fn threads_give_the_same_lines() {
    let poses = poses_file(120);
    let teapot = data("teapot.obj");
    let lines = |threads: &str| -> Vec<serde_json::Value> {
        run(&[
            "collide",
            teapot.to_str().unwrap(),
            teapot.to_str().unwrap(),
            "--poses",
            poses.to_str().unwrap(),
            "--json",
            "--threads",
            threads,
        ])
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if let Some(o) = v.as_object_mut() {
                o.remove("micros");
            }
            if let Some(s) = v.get_mut("summary").and_then(|s| s.as_object_mut()) {
                for k in ["mean_micros", "median_micros", "build_ms"] {
                    s.remove(k);
                }
            }
            v
        })
        .collect()
    };
    let one = lines("1");
    assert_eq!(one.len(), 121);
    assert!(one.iter().any(|v| v["colliding"] == true));
    assert_eq!(lines("2"), one);
}

/// `--start deferred` on a coherent path (teapot_path) finds every pose's contacts as the
/// top-down query does (fewer box tests is not promised: on this deep overlap the lists are
/// large and cost ten times the tests).
#[test]
fn separation_list_start_gives_the_same_contacts() {
    let teapot = data("teapot.obj");
    let path = data("teapot_path.txt");
    let lines = |start: &str| -> Vec<serde_json::Value> {
        run(&[
            "collide",
            teapot.to_str().unwrap(),
            teapot.to_str().unwrap(),
            "--poses",
            path.to_str().unwrap(),
            "--json",
            "--start",
            start,
        ])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
    };
    let (top, listed) = (lines("top-down"), lines("deferred"));
    assert_eq!(top.len(), listed.len());
    for (t, l) in top.iter().zip(&listed).take(top.len() - 1) {
        assert_eq!(t["contacts"], l["contacts"], "pose {}", t["pose"]);
    }
    assert_eq!(
        top.last().unwrap()["summary"]["contacts"],
        listed.last().unwrap()["summary"]["contacts"]
    );
}

/// `collide --preset rapid|paper` builds with `BuildOptions::rapid()` / `paper()` and tests
/// leaf boxes: every pose's contacts and counts equal the library's with those options;
/// `--split`/`--fit` override the preset's, and `--preset default` is the default.
#[test]
fn presets_match_the_library() {
    let poses = poses_file(30);
    let teapot = data("teapot.obj");
    let mesh = load("teapot.obj");
    let cases = [
        ("rapid", None, BuildOptions::rapid(), true),
        ("paper", None, BuildOptions::paper(), true),
        (
            "paper",
            Some(["--split", "binned"]),
            BuildOptions {
                split: SplitRule::Binned,
                ..BuildOptions::paper()
            },
            true,
        ),
        ("default", None, BuildOptions::default(), false),
    ];
    for (preset, extra, build, leaf_boxes) in cases {
        let mut args = vec![
            "collide",
            teapot.to_str().unwrap(),
            teapot.to_str().unwrap(),
            "--poses",
            poses.to_str().unwrap(),
            "--json",
            "--preset",
            preset,
        ];
        args.extend(extra.iter().flatten());
        let stdout = run(&args);
        let lines: Vec<serde_json::Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 31, "30 poses + summary");
        let t = Bvh::<Obb>::build(mesh.clone(), &build);
        let opts = if leaf_boxes {
            QueryOptions::default().leaf_boxes()
        } else {
            QueryOptions::default()
        };
        for (i, pose) in read_poses(&poses).unwrap().iter().enumerate() {
            let o = &lines[i];
            let want = collide(&t, &Isometry::identity(), &t, &pose.pose_ab, &opts);
            let got: Vec<(u32, u32)> = o["contacts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_u64().unwrap() as u32, p[1].as_u64().unwrap() as u32))
                .collect();
            assert_eq!(got, want.sorted_contacts(), "{preset} {extra:?} pose {i}");
            assert_eq!(
                (o["bv_tests"].as_u64(), o["tri_tests"].as_u64()),
                (Some(want.bv_tests), Some(want.tri_tests)),
                "{preset} {extra:?} pose {i}"
            );
        }
    }
}
