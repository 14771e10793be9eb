//! Every class of bad input gets its typed error naming what and where; the CLI prints it and
//! exits with status 1, never a panic.

mod common;
#[cfg(feature = "cli")]
use common::*;
use obbtree::pose::{PoseError, parse_poses, read_poses};
use obbtree::prelude::*;
use std::path::{Path, PathBuf};
#[cfg(feature = "cli")]
use std::process::Command;

fn temp(name: &str, contents: impl AsRef<[u8]>) -> common::TempFile {
    common::temp_file(name, contents)
}

/// Loads `contents` written to a file `name` and returns the error, checking that its message
/// names the file and `line N`.
fn obj_error(name: &str, contents: impl AsRef<[u8]>, line: usize) -> MeshError {
    let p = temp(name, contents);
    let e = load_obj(&p).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains(&p.display().to_string()) && msg.contains(&format!("line {line}:")),
        "expected {name} and line {line}: {msg}"
    );
    e
}

/// The oracle: the mesh tobj 4 makes of an OBJ file with the options this crate used to load
/// through it (`triangulate`, multi-index, points and lines ignored, no materials), models
/// concatenated in file order.
fn tobj_mesh(path: &Path) -> TriMesh {
    let bytes = std::fs::read(path).unwrap();
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let (models, _) =
        tobj::load_obj_buf(&mut bytes.as_slice(), &options, |_| Ok(Default::default())).unwrap();
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for model in &models {
        let base = vertices.len() as u32;
        for p in model.mesh.positions.chunks_exact(3) {
            vertices.push(Point::new(p[0], p[1], p[2]));
        }
        for t in model.mesh.indices.chunks_exact(3) {
            triangles.push([base + t[0], base + t[1], base + t[2]]);
        }
    }
    TriMesh::new(vertices, triangles, "tobj").unwrap()
}

#[test]
fn missing_file() {
    let e = load_obj("/nonexistent/model.obj").unwrap_err();
    assert!(matches!(e, MeshError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("/nonexistent/model.obj"));
}

const TRIANGLE: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

#[test]
fn broken_obj_names_the_line() {
    let e = obj_error("broken.obj", "v 0 0 0\nv 1 0 0\nv 0 1 zero\nf 1 2 3\n", 3);
    assert!(matches!(e, MeshError::ObjSyntax { line: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("'zero'"), "{e}");
    let e = obj_error(
        "broken_face.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3.5\n",
        4,
    );
    assert!(matches!(e, MeshError::ObjSyntax { line: 4, .. }), "{e:?}");
    // No position index before the slash.
    let e = obj_error(
        "no_position.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 /3\n",
        4,
    );
    assert!(matches!(e, MeshError::ObjSyntax { line: 4, .. }), "{e:?}");
}

#[test]
fn obj_face_index_out_of_range_names_the_line() {
    let cases = [
        ("range.obj", "f 1 2 3\nf 1 2 9\n", 5, 9, 3),
        ("zero.obj", "f 1 2 3\nf 0 1 2\n", 5, 0, 3),
        ("relative.obj", "f 1 2 3\nf -1 -2 -4\n", 5, -4, 3),
        // A positive index may point forward, but not beyond the file's last vertex.
        ("forward.obj", "f 1 2 4\nv 1 1 1\nf 1 2 5\n", 6, 5, 4),
    ];
    for (name, faces, line, index, vertex_count) in cases {
        let text = format!("v 0 0 0\nv 1 0 0\nv 0 1 0\n{faces}");
        match obj_error(name, text, line) {
            MeshError::ObjFaceIndex {
                line: l,
                index: i,
                vertex_count: n,
                ..
            } => assert_eq!((l, i, n), (line, index, vertex_count), "{name}"),
            e => panic!("{name}: {e:?}"),
        }
    }
}

#[test]
fn non_finite_coordinate() {
    let cases = [
        ("nan.obj", "v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n", 2, 2),
        // Overflows to infinity as read.
        (
            "inf.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1e400 0 0\nf 1 2 3\n",
            4,
            4,
        ),
        // Overflows when divided by w; the vertex is rejected even though no face uses it.
        (
            "w.obj",
            "v 0 0 0\n# c\nv 1e300 0 0 1e-300\nv 1 0 0\nv 0 1 0\nf 1 3 4\n",
            3,
            2,
        ),
    ];
    for (name, text, line, vertex) in cases {
        match obj_error(name, text, line) {
            MeshError::ObjNonFinite {
                line: l, vertex: v, ..
            } => assert_eq!((l, v), (line, vertex), "{name}"),
            e => panic!("{name}: {e:?}"),
        }
    }
    let e = TriMesh::new(
        vec![Point::new(0.0, f64::INFINITY, 0.0)],
        vec![[0, 0, 0]],
        "inline",
    )
    .unwrap_err();
    assert!(matches!(e, MeshError::NonFinite { vertex: 0, .. }));
}

/// A coordinate beyond ±1e30 names the file, its line and the file's 1-based vertex number, as
/// the other loader errors do: not the 0-based index into the vertices the faces use.
#[test]
fn out_of_range_coordinate_names_the_line_and_vertex() {
    let cases = [
        // The vertex after a comment line: line 4, the file's third vertex.
        (
            "big.obj",
            "v 0 0 0\nv 1 0 0\n# c\nv 0 -2e30 0\nf 1 2 3\n",
            4,
            3,
            -2e30,
        ),
        // Beyond the limit only once divided by w.
        (
            "big_w.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 6e29 0.5\nf 1 2 3\n",
            4,
            4,
            1.2e30,
        ),
        // A vertex no face uses, before those the faces use (it is not in the mesh's vertices).
        (
            "unused.obj",
            "v 5e30 0 0\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 2 3 4\n",
            1,
            1,
            5e30,
        ),
    ];
    for (name, text, line, vertex, value) in cases {
        let e = obj_error(name, text, line);
        let msg = e.to_string();
        match e {
            MeshError::ObjOutOfRange {
                line: l,
                vertex: v,
                value: x,
                limit,
                ..
            } => {
                assert_eq!(
                    (l, v, x, limit),
                    (line, vertex, value, obbtree::mesh::MAX_COORDINATE),
                    "{name}"
                );
                assert!(
                    msg.ends_with(&format!(
                        "{name}, line {line}: vertex {vertex} has the coordinate {value:e}, beyond the limit of ±1e30"
                    )),
                    "{msg}"
                );
            }
            e => panic!("{name}: {e:?}"),
        }
    }
    // The limit itself loads.
    let p = temp(
        "limit.obj",
        "v -1e30 0 0\nv 1e30 0 0\nv 0 1e30 1e30\nf 1 2 3\n",
    );
    assert_eq!(load_obj(&p).unwrap().triangle_count(), 1);
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
fn faces_of_fewer_than_three_vertices_are_errors() {
    for (face, vertices) in [
        ("f 1 2", 2),
        ("f 1", 1),
        ("f", 0),
        ("f 1/1 2//2 # a segment", 2),
    ] {
        let text = format!("{TRIANGLE}# before\n{face}\nf 1 2 3\n");
        match obj_error("short.obj", text, 6) {
            MeshError::ObjShortFace {
                line, vertices: n, ..
            } => assert_eq!((line, n), (6, vertices), "{face}"),
            e => panic!("{face}: {e:?}"),
        }
    }
}

#[test]
fn vertex_values_xyz_xyzw_or_xyzrgb() {
    let plain = load_obj(temp("plain.obj", "v 0 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\n")).unwrap();
    // w divides the coordinates.
    let w = load_obj(temp("w2.obj", "v 0 0 0 2\nv 4 0 0 2\nv 0 2 0 2\nf 1 2 3\n")).unwrap();
    assert_eq!(w, plain);
    // Colours are skipped.
    let rgb = "v 0 0 0 1 0 0\nv 2 0 0 0 1 0\nv 0 1 0 0 0 1\nf 1 2 3\n";
    assert_eq!(load_obj(temp("rgb.obj", rgb)).unwrap(), plain);
    let bad = [
        ("v5.obj", "v 0 0 0 1 1", "this one 5"),
        ("v7.obj", "v 0 0 0 1 1 1 1", "this one 7"),
        ("v2.obj", "v 0 0", "this one 2"),
        ("w0.obj", "v 0 1 0 0", "w = 0"),
        ("wnan.obj", "v 0 1 0 nan", "not finite"),
        ("wword.obj", "v 0 1 0 one", "'one'"),
    ];
    for (name, vertex, what) in bad {
        let text = format!("v 0 0 0\nv 1 0 0\n{vertex}\nf 1 2 3\n");
        let e = obj_error(name, text, 3);
        assert!(matches!(e, MeshError::ObjSyntax { line: 3, .. }), "{e:?}");
        assert!(e.to_string().contains(what), "{name}: {e}");
    }
}

/// A file using the OBJ features that matter for triangle order: models (`o`, `g`), quads and
/// polygons, negative indices, vertices shared between models or used by none, a forward
/// reference.
const MODELS: &str = "# models
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
o first
f 1 2 3 4
f -5 -3 -1
g second
v 2 0 0
f 1 6 5
f 6 2 3 4 5
o third
f 2 3 4 7
v 2 2 2
v 3 3 3
g
f -1 -2 -3
";

/// [`MODELS`] with everything collision skips added: `vt`/`vn` lines, malformed ones included,
/// texture and normal references (out of range, malformed), materials, smoothing groups, line and
/// point elements, comments with invalid UTF-8, trailing comments, CRLF line ends, a byte-order
/// mark.
const NOISY_MODELS: &[u8] = b"\xEF\xBB\xBF# models \xe9t\xe9 \xff\xfe
mtllib missing.mtl
v 0 0 0
vn 0 0
vt garbage here
vt 0.5 0.5
vn 1 0 0\r
v 1 0 0 # trailing comment \xff
v 1 1 0\r
vp 0.5
v 0 1 0
v 0 0 1
s 1
o first
usemtl
usemtl wood \xff
f 1/1/1 2/99/99 3//7 4/x/y
f -5/-9 -3/1/1 -1//-4
l 1 2 3
p 1 2 3
s off
#\xc3\x28 not UTF-8
g second
v 2 0 0
f 1 6 5 # f 1 2
f 6/1 2/2 3/3 4/4 5/5
o third
f 2 3 4 7\r
v 2 2 2
v 3 3 3
curv 0 1 2
g
f -1 -2 -3
";

#[test]
fn statements_collision_skips_do_not_change_the_mesh() {
    let clean = temp("models.obj", MODELS);
    let noisy = temp("noisy_models.obj", NOISY_MODELS);
    let m = load_obj(&clean).unwrap();
    // The oracle is tobj on the clean file; the noisy one must give the very same mesh.
    assert_eq!(m, tobj_mesh(&clean));
    assert_eq!(load_obj(&noisy).unwrap(), m);
    assert_eq!(m.triangle_count(), 2 + 1 + 1 + 3 + 2 + 1);
}

#[test]
fn invalid_utf8_in_a_comment_is_skipped() {
    let with_comment = b"# caf\xe9\nv 0 0 0\nv 1 0 0 #\xff\xfe\nv 0 1 0\n#\x80\nf 1 2 3\n";
    let m = load_obj(temp("utf8_comment.obj", with_comment)).unwrap();
    assert_eq!(m, load_obj(temp("no_comment.obj", TRIANGLE)).unwrap());
}

#[test]
fn invalid_utf8_in_a_statement_names_the_line() {
    for (name, line) in [
        ("utf8_v.obj", &b"v 0 0 \xff0"[..]),
        ("utf8_f.obj", &b"f 1 2 3\xe9"[..]),
    ] {
        let mut text = b"v 0 0 0\nv 1 0 0\nv 0 1 0\n".to_vec();
        text.extend_from_slice(line);
        text.extend_from_slice(b"\nf 1 2 3\n");
        let e = obj_error(name, text, 4);
        assert!(matches!(e, MeshError::ObjSyntax { line: 4, .. }), "{e:?}");
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }
}

#[test]
fn binary_data_names_the_line() {
    // A PNG's first bytes.
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00";
    let e = obj_error("png.obj", png, 1);
    assert!(matches!(e, MeshError::ObjSyntax { line: 1, .. }), "{e:?}");
    assert!(e.to_string().contains("binary"), "{e}");
    // Binary bytes after a good triangle: valid UTF-8 control characters, then invalid bytes.
    for (name, garbage) in [
        ("nul.obj", &b"\x00\x00\x01\x02 \x03"[..]),
        ("bytes.obj", &b"\xfe\xed\xfa\xce\x00\x07"[..]),
    ] {
        let mut text = TRIANGLE.as_bytes().to_vec();
        text.extend_from_slice(garbage);
        text.extend_from_slice(b"\nf 1 2 3\n");
        let e = obj_error(name, text, 5);
        assert!(matches!(e, MeshError::ObjSyntax { line: 5, .. }), "{e:?}");
        assert!(e.to_string().contains("binary"), "{e}");
    }
}

#[test]
fn models_load_as_tobj_loads_them() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for sub in ["tests/data", "assets/models"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "obj") {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 5, "{files:?}");
    for path in files {
        assert!(load_obj(&path).unwrap() == tobj_mesh(&path), "{path:?}");
    }
}

#[test]
fn long_words_and_numbers_are_cut_short() {
    let long = "9".repeat(400);
    let text = format!("v 0 0 0\nv 1 0 0\nv 0 1 {long}x\nf 1 2 3\n");
    let msg = obj_error("long_word.obj", text, 3).to_string();
    assert!(msg.len() < 200, "{} chars: {msg}", msg.len());
    let text = format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 {long}\n");
    let msg = obj_error("long_index.obj", text, 4).to_string();
    assert!(msg.len() < 200, "{} chars: {msg}", msg.len());
    let text = "v 0 0 0\nv 1e300 -1e-300 nan\nv 0 1 0\nf 1 2 3\n";
    let msg = obj_error("long_number.obj", text, 2).to_string();
    assert!(msg.contains("(1e300, -1e-300, NaN)"), "{msg}");

    let e = parse_poses("1e200 0 0 0 0 0 0\n", Path::new("poses.txt")).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, PoseError::BadLine { line: 1, .. }), "{e:?}");
    assert!(
        msg.len() < 120 && msg.contains("1e200"),
        "{} chars: {msg}",
        msg.len()
    );
    let text = format!("1 0 0 0 {long}x 0 0\n");
    let msg = parse_poses(&text, Path::new("poses.txt"))
        .unwrap_err()
        .to_string();
    assert!(msg.len() < 120, "{} chars: {msg}", msg.len());
}

#[test]
fn pose_files_with_invalid_utf8() {
    let p = temp(
        "utf8_poses.txt",
        b"# poses\n1 0 0 0 0 0 0\n1 0 0 0 \xff 0 0\n",
    );
    let e = read_poses(&p).unwrap_err();
    assert!(matches!(e, PoseError::BadLine { line: 3, .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("{}:3:", p.display())) && msg.contains("UTF-8"),
        "{msg}"
    );
    // An earlier bad line is reported first.
    let p = temp("utf8_later_poses.txt", b"1 0 0 0 0 0\n1 0 0 0 \xff 0 0\n");
    assert!(matches!(
        read_poses(&p).unwrap_err(),
        PoseError::BadLine { line: 1, .. }
    ));
    // In a comment line, any bytes are fine.
    let p = temp(
        "utf8_comment_poses.txt",
        b"# caf\xe9\n1 0 0 0 0 0 0\n  #\xff\n1 0 0 0 1 0 0\n",
    );
    let poses = read_poses(&p).unwrap();
    assert_eq!(poses.iter().map(|p| p.line).collect::<Vec<_>>(), [2, 4]);
}

#[test]
fn quaternion_norm_tolerance() {
    use obbtree::pose::QUATERNION_NORM_TOLERANCE as TOL;
    assert_eq!(TOL, 1e-3);
    let path = Path::new("poses.txt");
    // Within the tolerance: normalised.
    let s = 1.0 + 0.9 * TOL;
    let poses = parse_poses(&format!("{s} 0 0 0 0 0 0\n0 0 0 {s} 0 0 0\n"), path).unwrap();
    for p in &poses {
        assert!((p.pose_ab.rotation.quaternion().norm() - 1.0).abs() < 1e-15);
    }
    assert_eq!(poses[0].pose_ab.rotation.angle(), 0.0);
    // Beyond it, on either side: the line is rejected.
    for s in [1.0 + 1.1 * TOL, 1.0 - 1.1 * TOL] {
        let text = format!("1 0 0 0 0 0 0\n{s} 0 0 0 0 0 0\n");
        match parse_poses(&text, path).unwrap_err() {
            PoseError::BadLine { line, message, .. } => {
                assert_eq!(line, 2);
                assert!(message.contains("norm"), "{message}");
            }
            e => panic!("{e:?}"),
        }
    }
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

#[cfg(feature = "cli")]
fn obbtree(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(args)
        .output()
        .unwrap()
}

#[cfg(feature = "cli")]
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
