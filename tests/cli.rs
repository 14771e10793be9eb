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

/// `obbtree distance --json`: one line per pose as `compare_distance.py` reads it, the distances
/// and closest points of the library (run cold, and carried from pose to pose), `--tolerance`'s
/// answers and `--within`'s pairs; a bad tolerance is an error naming it.
#[test]
fn distance_lines_match_the_library() {
    use obbtree::query::{DistanceOptions, distance_with, within_pairs_with, within_with};
    let poses = poses_file(40);
    let teapot = data("teapot.obj");
    let (t, p) = (teapot.to_str().unwrap(), poses.to_str().unwrap());
    let mesh = load_obj(&teapot).unwrap();
    let tree = ObbTree::build(mesh, &BuildOptions::default());
    let parsed = read_poses(poses.to_str().unwrap()).unwrap();
    let lines = |args: &[&str]| -> Vec<serde_json::Value> {
        run(args)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    for extra in [None, Some("--cold")] {
        let mut args = vec!["distance", t, t, "--poses", p, "--json"];
        args.extend(extra);
        let out = lines(&args);
        assert_eq!(out.len(), parsed.len() + 1);
        assert_eq!(out[parsed.len()]["summary"]["poses"], parsed.len());
        for (i, (line, pose)) in out.iter().zip(&parsed).enumerate() {
            assert_eq!(line["pose"], i);
            let (rot, pos) = obbtree::math::relative_parts(&Isometry::identity(), &pose.pose_ab);
            let r = distance_with(&tree, &tree, &rot, &pos, &DistanceOptions::default()).unwrap();
            // serde_json reads floats to within an ulp (its exact parsing is a feature left
            // off); the command prints them exactly.
            let near = |x: &serde_json::Value, y: f64| {
                (x.as_f64().unwrap() - y).abs() <= 2.0 * f64::EPSILON * y.abs()
            };
            assert!(near(&line["distance"], r.distance), "{line}");
            assert_eq!(line["distance"] == 0.0, r.distance == 0.0);
            let closest = &line["closest"];
            assert!(near(&closest[0][0], r.closest_a.x));
            assert!(near(&closest[1][2], r.closest_b.z));
            // The pair too where each query starts cold (from the previous pose's pair, another
            // pair at the same distance, or another contact, may be found).
            if extra.is_some() {
                let triangles: [u32; 2] =
                    serde_json::from_value(line["triangles"].clone()).unwrap();
                assert_eq!(triangles, [r.triangles.0, r.triangles.1]);
            }
        }
    }
    let out = lines(&[
        "distance",
        t,
        t,
        "--poses",
        p,
        "--json",
        "--tolerance",
        "0.1",
    ]);
    let out_pairs = lines(&["distance", t, t, "--poses", p, "--json", "--within", "0.05"]);
    for ((line, pairs), pose) in out.iter().zip(&out_pairs).zip(&parsed) {
        let (rot, pos) = obbtree::math::relative_parts(&Isometry::identity(), &pose.pose_ab);
        let w = within_with(&tree, &tree, &rot, &pos, 0.1, &Default::default()).unwrap();
        assert_eq!(line["within"].as_bool().unwrap(), w.within);
        let mut expected: Vec<_> =
            within_pairs_with(&tree, &tree, &rot, &pos, 0.05, &Default::default())
                .unwrap()
                .pairs
                .iter()
                .map(|p| [p.0.0, p.0.1])
                .collect();
        expected.sort_unstable();
        let got: Vec<[u32; 2]> = serde_json::from_value(pairs["pairs"].clone()).unwrap();
        assert_eq!(got, expected);
    }
    let bad = Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(["distance", t, t, "--poses", p, "--tolerance", "-1"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("tolerance -1 is not a finite non-negative distance")
    );
}

/// `self-intersections --json`: one line per pair (ta < tb, sorted) and a summary, the library's
/// pairs for every tree type, on one thread and two; `--curves` adds each pair's intersection;
/// the exit status is 0 with pairs or without; a broken OBJ is an error naming the line.
#[test]
fn self_intersection_lines_match_the_library() {
    use obbtree::query::{SelfIntersectionOptions, self_intersections};
    let f16 = data("f-16.obj");
    let f = f16.to_str().unwrap();
    let tree = Bvh::<Aabb>::build(load("f-16.obj"), &BuildOptions::van_den_bergen());
    let expected = self_intersections(&tree, &SelfIntersectionOptions::default());
    assert_eq!(expected.pairs.len(), 534);
    for extra in [
        vec![],
        vec!["--bv", "obb"],
        vec!["--bv", "sphere"],
        vec!["--threads", "2"],
        vec!["--curves"],
    ] {
        let mut args = vec!["self-intersections", f, "--json"];
        args.extend(&extra);
        let out = run(&args);
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (summary, pairs) = lines.split_last().unwrap();
        let got: Vec<(u32, u32)> = pairs
            .iter()
            .map(|l| {
                let p: [u32; 2] = serde_json::from_value(l["pair"].clone()).unwrap();
                (p[0], p[1])
            })
            .collect();
        assert_eq!(got, expected.pairs, "{extra:?}");
        let s = &summary["summary"];
        assert_eq!(s["pairs"], 534);
        if extra.is_empty() {
            // The default tree is van den Bergen's AABB tree: the library's counts.
            assert_eq!(s["bv_tests"], expected.bv_tests);
            assert_eq!(s["tri_tests"], expected.tri_tests);
        }
        if extra == ["--curves"] {
            let m = load("f-16.obj");
            for (l, &(a, b)) in pairs.iter().zip(&expected.pairs) {
                let corners: Vec<[f64; 3]> = serde_json::from_value(l["curve"].clone()).unwrap();
                let truth = obbtree::query::triangle_intersection(
                    &m.triangle(a as usize),
                    &m.triangle(b as usize),
                );
                // serde_json's parser (without its float_roundtrip feature) may land one ulp off
                // the printed shortest form.
                assert_eq!(corners.len(), truth.points().len());
                for (c, t) in corners.iter().zip(truth.points()) {
                    for k in 0..3 {
                        assert!(
                            (c[k] - t[k]).abs() <= 4.0 * f64::EPSILON * t[k].abs(),
                            "{c:?} {t:?}"
                        );
                    }
                }
            }
        } else {
            assert!(pairs.iter().all(|l| l.get("curve").is_none()));
        }
    }
    // No pairs: still exit status 0, and the summary says 0.
    let spot = data("spot.obj");
    let out = run(&["self-intersections", spot.to_str().unwrap(), "--json"]);
    let summary: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(summary["summary"]["pairs"], 0);
    assert_eq!(out.lines().count(), 1);
    // The table form ends with the summary line.
    let table = run(&["self-intersections", f]);
    assert!(
        table
            .lines()
            .last()
            .unwrap()
            .starts_with("summary: 534 intersecting pairs")
    );
    // A broken OBJ: exit status 1 and the line named.
    let broken = temp_file("broken.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n");
    let bad = Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(["self-intersections", broken.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("line 4"), "{err}");
}

/// `toi --json`: one line per motion with the library's time of impact (the same distance
/// queries), then a summary; a bad motion line and a bad tolerance are typed errors.
#[test]
fn toi_lines_match_the_library() {
    use obbtree::motion::RigidMotion;
    use obbtree::pose::read_motions;
    use obbtree::query::{ToiOptions, ToiOutcome, time_of_impact};
    // Motions from pairs of the random poses, pushed 8 units apart at the start.
    let all = std::fs::read_to_string(data("teapot_random.txt")).unwrap();
    let poses: Vec<Vec<f64>> = all
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .take(30)
        .map(|l| l.split_whitespace().map(|w| w.parse().unwrap()).collect())
        .collect();
    let mut text = String::from("# start pose, end pose (B in A's frame)\n");
    for w in poses.chunks(2) {
        let (s, e) = (&w[0], &w[1]);
        let f = |v: &[f64]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut s = s.clone();
        s[4] += 8.0;
        text += &format!("{}  {}\n", f(&s), f(e));
    }
    let motions_file = temp_file("toi_motions.txt", text);
    let teapot = data("teapot.obj");
    let (t, m) = (teapot.to_str().unwrap(), motions_file.to_str().unwrap());
    let tree = ObbTree::build(load_obj(&teapot).unwrap(), &BuildOptions::default());
    let motions = read_motions(m).unwrap();
    let out: Vec<serde_json::Value> =
        run(&["toi", t, t, "--motions", m, "--tolerance", "0.01", "--json"])
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    assert_eq!(out.len(), motions.len() + 1);
    let mut impacts = 0;
    for (i, (line, motion)) in out.iter().zip(&motions).enumerate() {
        assert_eq!(line["motion"], i);
        let r = time_of_impact(
            &tree,
            &tree,
            &RigidMotion::between(&motion.start, &motion.end),
            &ToiOptions::new(0.01),
        )
        .unwrap();
        assert_eq!(line["distance_queries"], r.distance_queries, "{line}");
        assert_eq!(line["bv_tests"], r.bv_tests);
        match r.outcome {
            ToiOutcome::Impact(hit) => {
                impacts += 1;
                assert_eq!(line["outcome"], "impact");
                assert!((line["toi"].as_f64().unwrap() - hit.toi).abs() <= 2.0 * f64::EPSILON);
                let triangles: [u32; 2] =
                    serde_json::from_value(line["triangles"].clone()).unwrap();
                assert_eq!(triangles, [hit.triangles.0, hit.triangles.1]);
            }
            ToiOutcome::Clear => {
                assert_eq!(line["outcome"], "clear");
                assert!(line["toi"].is_null());
            }
            ToiOutcome::Unresolved { .. } => assert_eq!(line["outcome"], "unresolved"),
        }
    }
    assert_eq!(out[motions.len()]["summary"]["impacts"], impacts);
    assert!(
        impacts >= 5,
        "most motions end inside the teapot: {impacts}"
    );
    // A line of 13 numbers, a tolerance of 0: errors naming what.
    let bad_file = temp_file("toi_bad.txt", "1 0 0 0 0 0 0  1 0 0 0 0 0\n");
    let bad = Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(["toi", t, t, "--motions", bad_file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&bad.stderr);
    assert!(
        msg.contains(
            "toi_bad.txt:1: expected 14 numbers (2 poses of qw qx qy qz tx ty tz), found 13"
        ),
        "{msg}"
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(["toi", t, t, "--motions", m, "--tolerance", "0"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("tolerance 0 is not a finite positive distance")
    );
}

/// `collide --normals`: each contact's normal, in the order of the contacts, as the library's.
#[test]
fn collide_normals_match_the_library() {
    use obbtree::query::{CollideWith, CollisionReport, QueryOptions, collide_with};
    let poses = poses_file(20);
    let teapot = data("teapot.obj");
    let (t, p) = (teapot.to_str().unwrap(), poses.to_str().unwrap());
    let tree = ObbTree::build(load_obj(&teapot).unwrap(), &BuildOptions::default());
    let parsed = read_poses(p).unwrap();
    let out: Vec<serde_json::Value> = run(&["collide", t, t, "--poses", p, "--json", "--normals"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut checked = 0;
    for (line, pose) in out.iter().zip(&parsed) {
        let (rot, pos) = obbtree::math::relative_parts(&Isometry::identity(), &pose.pose_ab);
        let mut r = CollisionReport::default();
        let options = QueryOptions {
            normals: true,
            ..QueryOptions::default()
        };
        collide_with(
            &tree,
            &tree,
            &rot,
            &pos,
            &options,
            CollideWith::default(),
            &mut r,
        );
        let mut expected: Vec<_> = r.contacts.iter().zip(&r.normals).collect();
        expected.sort_by_key(|(c, _)| **c);
        let normals = line["normals"].as_array().unwrap();
        assert_eq!(normals.len(), expected.len());
        for (got, (_, n)) in normals.iter().zip(expected) {
            let n = n.unwrap();
            for (k, want) in [n.normal.x, n.normal.y, n.normal.z, n.depth]
                .into_iter()
                .enumerate()
            {
                assert!(
                    (got[k].as_f64().unwrap() - want).abs()
                        <= 2.0 * f64::EPSILON * want.abs().max(1e-300)
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "{checked} normals checked");
    // Without --json the flag is refused (clap), with the reason.
    let bad = Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(["collide", t, t, "--poses", p, "--normals"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// `build` writes a tree file that `collide`, `distance` and `toi` load with `--tree-a` and
/// `--tree-b`: the same lines as with trees built on the spot (the tree's options are the
/// file's), the summary saying "loaded"; a tree of another mesh, or a damaged one, is refused
/// with the reason and the file's name.
#[test]
fn saved_trees_load_in_collide_distance_and_toi() {
    let dir = tempfile::tempdir().unwrap();
    let teapot = data("teapot.obj");
    let bunny = data("bunny-500.obj");
    let t = teapot.to_str().unwrap();
    let tree_path = dir.path().join("teapot-rapid.obbt");
    let tree = tree_path.to_str().unwrap();
    let built: serde_json::Value = serde_json::from_str(&run(&[
        "build", t, "-o", tree, "--preset", "rapid", "--json",
    ]))
    .unwrap();
    let mesh = load_obj(&teapot).unwrap();
    assert_eq!(built["triangles"], mesh.triangle_count());
    assert_eq!(built["fit"], "triangles");
    assert_eq!(built["split"], "mean");
    assert_eq!(
        built["file_bytes"],
        std::fs::metadata(&tree_path).unwrap().len()
    );
    assert_eq!(
        built["mesh_hash"],
        obbtree::bvh::mesh_hash(&mesh).to_hex().as_str()
    );
    let poses = poses_file(40);
    let p = poses.to_str().unwrap();
    // Without a preset the built trees would be the default's: the loaded trees keep RAPID's
    // fit and split, so the box tests are those of `--preset rapid` (with leaf triangles).
    let strip = |out: String| -> (Vec<serde_json::Value>, serde_json::Value) {
        let mut lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let summary = lines.pop().unwrap();
        for line in &mut lines {
            line.as_object_mut().unwrap().remove("micros");
        }
        (lines, summary)
    };
    let (expected, summary) = strip(run(&[
        "collide",
        t,
        t,
        "--poses",
        p,
        "--json",
        "--split",
        "mean",
        "--fit",
        "triangles",
    ]));
    assert_eq!(
        summary["summary"]["trees"],
        serde_json::json!(["built", "built"])
    );
    let (loaded, summary) = strip(run(&[
        "collide", t, t, "--poses", p, "--json", "--tree-a", tree, "--tree-b", tree,
    ]));
    assert_eq!(
        summary["summary"]["trees"],
        serde_json::json!(["loaded", "loaded"])
    );
    assert_eq!(loaded, expected);
    assert!(expected.iter().any(|l| l["colliding"] == true));
    // `distance` and `toi` (B's tree only).
    let (d_expected, _) = strip(run(&["distance", t, t, "--poses", p, "--json", "--cold"]));
    let default_tree = dir.path().join("teapot.obbt");
    run(&["build", t, "-o", default_tree.to_str().unwrap()]);
    let (d_loaded, summary) = strip(run(&[
        "distance",
        t,
        t,
        "--poses",
        p,
        "--json",
        "--cold",
        "--tree-b",
        default_tree.to_str().unwrap(),
    ]));
    assert_eq!(
        summary["summary"]["trees"],
        serde_json::json!(["built", "loaded"])
    );
    assert_eq!(d_loaded, d_expected);
    // The standard error of a command that must fail with status 1.
    let refused = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_obbtree"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // A tree of the teapot offered for the bunny.
    let b = bunny.to_str().unwrap();
    let stderr = refused(&["collide", b, t, "--poses", p, "--tree-a", tree]);
    assert!(
        stderr.contains(&format!(
            "error: {tree}: the tree was built for another mesh"
        )),
        "{stderr}"
    );
    // A damaged file.
    let mut bytes = std::fs::read(&tree_path).unwrap();
    bytes.truncate(bytes.len() - 10);
    std::fs::write(&tree_path, &bytes).unwrap();
    let motion = temp_file("motion.txt", "1 0 0 0 3 0 0  1 0 0 0 0 0 0\n");
    let m = motion.to_str().unwrap();
    let stderr = refused(&["toi", t, t, "--motions", m, "--tree-a", tree]);
    assert!(stderr.contains("truncated tree file"), "{stderr}");
}
