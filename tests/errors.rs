//! Every class of bad input gets its typed error naming what and where; the CLI prints it and
//! exits with status 1, never a panic.

mod common;
use common::*;
use obbtree::pose::{PoseError, parse_poses, read_poses};
use obbtree::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn temp(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("obbtree_errors_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

#[test]
fn missing_file() {
    let e = load_obj("/nonexistent/model.obj").unwrap_err();
    assert!(matches!(e, MeshError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("/nonexistent/model.obj"));
}

#[test]
fn broken_obj_names_the_line() {
    let p = temp("broken.obj", "v 0 0 0\nv 1 0 0\nv 0 1 zero\nf 1 2 3\n");
    let e = load_obj(&p).unwrap_err();
    assert!(matches!(e, MeshError::Parse { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("broken.obj") && msg.contains("line 3"),
        "{msg}"
    );
}

#[test]
fn obj_face_index_out_of_range_names_the_line() {
    let p = temp("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n");
    let msg = load_obj(&p).unwrap_err().to_string();
    assert!(msg.contains("range.obj") && msg.contains("line 5"), "{msg}");
}

#[test]
fn non_finite_coordinate() {
    let p = temp("nan.obj", "v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n");
    match load_obj(&p).unwrap_err() {
        MeshError::NonFinite { vertex, .. } => assert_eq!(vertex, 1),
        e => panic!("{e:?}"),
    }
    let e = TriMesh::new(
        vec![Point::new(0.0, f64::INFINITY, 0.0)],
        vec![[0, 0, 0]],
        "inline",
    )
    .unwrap_err();
    assert!(matches!(e, MeshError::NonFinite { vertex: 0, .. }));
}

#[test]
fn index_out_of_range() {
    let e = TriMesh::new(
        vec![Point::origin(); 3],
        vec![[0, 1, 2], [0, 1, 3]],
        "inline",
    )
    .unwrap_err();
    match e {
        MeshError::IndexOutOfRange {
            triangle,
            index,
            vertex_count,
            ..
        } => assert_eq!((triangle, index, vertex_count), (1, 3, 3)),
        e => panic!("{e:?}"),
    }
}

#[test]
fn no_triangles() {
    let p = temp("empty.obj", "# only vertices\nv 0 0 0\nv 1 0 0\n");
    assert!(matches!(load_obj(&p).unwrap_err(), MeshError::Empty { .. }));
    assert!(matches!(
        TriMesh::new(vec![], vec![], "inline").unwrap_err(),
        MeshError::Empty { .. }
    ));
}

#[test]
fn degenerate_triangles_are_valid_input() {
    let p = temp(
        "degenerate.obj",
        "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\nf 1 1 1\nf 1 1 2\n",
    );
    let m = load_obj(&p).unwrap();
    assert_eq!(m.triangle_count(), 3);
    let t = Bvh::<Obb>::build(m, &BuildOptions::default());
    t.validate().unwrap();
}

#[test]
fn bad_pose_lines() {
    let path = Path::new("poses.txt");
    let cases = [
        ("1 0 0 0 1 2\n", 1, "7 numbers"),
        ("# c\n\n1 0 0 0 1 2 x\n", 3, "'x'"),
        ("1 0 0 0 1 2 3\n2 0 0 0 0 0 0\n", 2, "norm"),
        ("1 0 0 0 inf 0 0\n", 1, "not finite"),
    ];
    for (text, line, what) in cases {
        match parse_poses(text, path).unwrap_err() {
            PoseError::BadLine {
                line: l, message, ..
            } => {
                assert_eq!(l, line, "{text:?}");
                assert!(message.contains(what), "{message}");
            }
            e => panic!("{e:?}"),
        }
    }
    assert!(matches!(
        parse_poses("# nothing\n", path).unwrap_err(),
        PoseError::Empty { .. }
    ));
    assert!(matches!(
        read_poses("/nonexistent/poses.txt").unwrap_err(),
        PoseError::Io { .. }
    ));
}

fn obbtree(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_reports_errors_and_exits_1() {
    let teapot = data("teapot.obj");
    let teapot = teapot.to_str().unwrap();
    let poses = data("teapot_random.txt");
    let broken = temp("cli_broken.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n");
    let bad_poses = temp("cli_poses.txt", "1 0 0 0 0 0 0\n1 0 0 0 0 0\n");
    let cases: Vec<(Vec<&str>, Vec<String>)> = vec![
        (
            vec![
                "collide",
                "/nonexistent.obj",
                teapot,
                "--poses",
                poses.to_str().unwrap(),
            ],
            vec!["/nonexistent.obj".into()],
        ),
        (
            vec![
                "collide",
                broken.to_str().unwrap(),
                teapot,
                "--poses",
                poses.to_str().unwrap(),
            ],
            vec!["cli_broken.obj".into(), "line 4".into()],
        ),
        (
            vec![
                "collide",
                teapot,
                teapot,
                "--poses",
                bad_poses.to_str().unwrap(),
            ],
            vec![format!("{}:2", bad_poses.display())],
        ),
        (
            vec![
                "collide",
                teapot,
                teapot,
                "--poses",
                poses.to_str().unwrap(),
                "--epsilon=-1",
            ],
            vec!["--epsilon".into()],
        ),
    ];
    for (args, needles) in cases {
        let out = obbtree(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        for n in needles {
            assert!(
                stderr.contains(&n),
                "{args:?}: stderr lacks {n:?}: {stderr}"
            );
        }
    }
}
