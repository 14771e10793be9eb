//! Each experiment in `--quick` mode: its files are written and readable, and the papers'
//! qualitative claims hold on the data it wrote (read back from the CSV files, not from the
//! claims the experiment computed itself).
#![cfg(feature = "paper")]

use obbtree::experiments::{self, Experiment, Settings};
use std::path::Path;

/// Runs `e` quickly into a folder of its own, removed when the returned guard is dropped.
fn run(e: Experiment) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("obbtree-experiment-{}-", e.name()))
        .tempdir()
        .unwrap();
    let out = dir.path();
    let mut settings = Settings::new(out);
    settings.quick = true;
    let mut last = None;
    let outcome = experiments::run(e, &settings, &mut |_, done, total| {
        assert!(done <= total, "progress {done}/{total}");
        last = Some((done, total));
    })
    .unwrap_or_else(|err| panic!("{}: {err}", e.name()));
    // The last report is of all the work done.
    match last {
        Some((done, total)) => assert!(done == total && total > 0, "{}: {done}/{total}", e.name()),
        None => panic!("{}: no progress was reported", e.name()),
    }
    // The summary has the claims table, one line per claim.
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("| claim | paper | ours | holds? |"),
        "{}",
        e.name()
    );
    for c in outcome.claims() {
        assert!(
            summary.contains(&c.claim),
            "{}: summary lists {:?}",
            e.name(),
            c.claim
        );
    }
    dir
}

fn rows<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    r.deserialize().map(|row| row.unwrap()).collect()
}

/// Both plot files exist; the PNG decodes to a non-blank image and the SVG has text.
fn assert_plot(dir: &Path, stem: &str) {
    let png = image::open(dir.join(format!("{stem}.png")))
        .unwrap_or_else(|e| panic!("{stem}.png: {e}"))
        .to_rgb8();
    let colours: std::collections::HashSet<[u8; 3]> = png.pixels().map(|p| p.0).collect();
    assert!(
        colours.len() > 8,
        "{stem}.png has {} colours",
        colours.len()
    );
    let svg = std::fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap();
    assert!(svg.contains("<svg") && svg.contains("<text"), "{stem}.svg");
}

#[derive(serde::Deserialize)]
struct ProximityRow {
    epsilon: f64,
    obb_box_tests: u64,
    aabb_box_tests: u64,
}

/// Least-squares slope of log10 y against log10 x.
fn loglog_slope(pts: &[(f64, f64)]) -> f64 {
    let l: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (x.log10(), y.log10())).collect();
    let n = l.len() as f64;
    let (mx, my) = (
        l.iter().map(|p| p.0).sum::<f64>() / n,
        l.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = l.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = l.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

/// The steepest one-decade slope of a curve: its linear part's slope, found independently of
/// the experiment's own fit.
fn steepest(rows: &[ProximityRow], y: impl Fn(&ProximityRow) -> u64) -> f64 {
    let pts: Vec<(f64, f64)> = rows.iter().map(|r| (r.epsilon, y(r) as f64)).collect();
    // ε decreases by a fixed factor per row: one decade spans this many rows.
    let per_decade = (1.0 / (pts[0].0 / pts[1].0).log10()).round() as usize;
    pts.windows(per_decade + 1)
        .map(loglog_slope)
        .fold(0.0, |m: f64, s| if s.abs() > m.abs() { s } else { m })
}

#[test]
fn parallel_proximity_obb_slope_is_shallower_than_aabb() {
    let dir = run(Experiment::ParallelProximity);
    let out = dir.path();
    let r: Vec<ProximityRow> = rows(&out.join("parallel-proximity.csv"));
    // Quick: ε from 1 down to 1e-6, three points per decade.
    assert_eq!(r.len(), 19);
    for (k, x) in r.iter().enumerate() {
        let want = 10f64.powf(-(k as f64) / 3.0);
        assert!(
            (x.epsilon - want).abs() <= 1e-12 * want,
            "row {k}: ε {}",
            x.epsilon
        );
    }
    let (obb, aabb) = (
        steepest(&r, |x| x.obb_box_tests),
        steepest(&r, |x| x.aabb_box_tests),
    );
    assert!(
        obb < 0.0 && aabb < 0.0,
        "box tests grow as ε shrinks: {obb} {aabb}"
    );
    assert!(
        obb.abs() < aabb.abs(),
        "parallel proximity: |OBB slope| {obb:.2} must be below |AABB slope| {aabb:.2} (paper: 1 vs 2)"
    );
    // Both curves level off at the bottom of the range.
    let last = &r[r.len() - 2..];
    for y in [
        |x: &ProximityRow| x.obb_box_tests,
        |x: &ProximityRow| x.aabb_box_tests,
    ] {
        let (a, b) = (y(&last[0]) as f64, y(&last[1]) as f64);
        assert!((a - b).abs() <= 0.05 * a, "levelled off: {a} {b}");
    }
    assert_plot(out, "parallel-proximity");
}

#[test]
fn point_proximity_gap_widens() {
    let dir = run(Experiment::PointProximity);
    let out = dir.path();
    let r: Vec<ProximityRow> = rows(&out.join("point-proximity.csv"));
    let ratio = |x: &ProximityRow| x.aabb_box_tests as f64 / x.obb_box_tests as f64;
    let first = ratio(&r[0]);
    let close = r
        .iter()
        .filter(|x| x.epsilon <= 1e-2)
        .map(ratio)
        .fold(0.0, f64::max);
    assert!(
        close > 2.0 * first,
        "AABB/OBB ratio {first:.2} at ε = 1 widens to {close:.2} close up"
    );
    assert!(r.iter().all(|x| x.aabb_box_tests >= x.obb_box_tests));
    assert_plot(out, "point-proximity");
}

#[derive(serde::Deserialize)]
struct PlacementRow {
    model: String,
    bv: String,
    sat: String,
    placements: usize,
    collisions: usize,
    n_b: u64,
    n_p: u64,
}

#[derive(serde::Deserialize)]
struct TimingRow {
    model: String,
}

/// The experiment's refit, checked by what it computes rather than how long it takes: each
/// model's AABB tree with every vertex moved by about 1% of the model's size (the experiment's
/// deformation) keeps its shape, validates, holds the smallest box of its subtree's vertices at
/// every node (up to the stored boxes' padding), and answers as an OBB tree built on the moved
/// mesh.
fn check_refit(file: &str) {
    use obbtree::prelude::*;
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let mesh = load_obj(&path).unwrap();
    let tree = Bvh::<Aabb>::build(mesh.clone(), &BuildOptions::default());
    let (lo, hi) = mesh.bounds();
    let wobble = 0.01 * (hi - lo).norm();
    let moved: Vec<Point> = mesh
        .vertices()
        .iter()
        .map(|p| p + Vector::new(p.y.sin(), p.z.cos(), p.x.sin()) * wobble)
        .collect();
    let mut refitted = tree.clone();
    refitted.set_vertices(moved).unwrap();
    refitted.validate().unwrap();
    let moved = refitted.mesh().clone();
    // The same shape: children and leaves as before.
    for i in 0..tree.nodes().len() {
        assert_eq!(
            refitted.nodes()[i].children(),
            tree.nodes()[i].children(),
            "{file} node {i}"
        );
        assert_eq!(refitted.leaf_triangle(i), tree.leaf_triangle(i));
    }
    // Every node's box is the smallest around its subtree's vertices (in the tree's frame).
    let origin = refitted.origin();
    let mut points = vec![Vec::new(); tree.nodes().len()];
    for i in (0..tree.nodes().len()).rev() {
        points[i] = match tree.nodes()[i].children() {
            None => moved
                .triangle(tree.leaf_triangle(i).unwrap() as usize)
                .map(|p| p - origin)
                .to_vec(),
            Some((l, r)) => [points[l].as_slice(), points[r].as_slice()].concat(),
        };
        let fresh = Aabb::from_points(points[i].iter().copied());
        let got = refitted.nodes()[i].bv;
        let tol = 2e-6 * (fresh.half_extents().sum() + fresh.center().coords.amax()) + 1e-12;
        assert!(
            (got.mins() - fresh.mins()).amax() <= tol && (got.maxs() - fresh.maxs()).amax() <= tol,
            "{file} node {i}: {got:?} vs {fresh:?}"
        );
        if let Some((l, r)) = tree.nodes()[i].children() {
            points[l] = Vec::new();
            points[r] = Vec::new();
        }
    }
    // Queries on the refitted tree equal an OBB tree's built on the moved mesh.
    let rebuilt = Bvh::<Obb>::build(moved.clone(), &BuildOptions::default());
    let other = Bvh::<Aabb>::build(mesh.clone(), &BuildOptions::default());
    let other_obb = Bvh::<Obb>::build(mesh, &BuildOptions::default());
    let id = Isometry::identity();
    for pose in [
        Isometry::identity(),
        Isometry::new(
            Vector::new(0.3 * wobble, 0.0, 0.0),
            Vector::new(0.0, 0.2, 0.0),
        ),
        Isometry::new(
            Vector::new(0.0, 20.0 * wobble, 0.0),
            Vector::new(0.1, 0.0, 0.3),
        ),
    ] {
        let opts = QueryOptions::default();
        let got = collide(&refitted, &id, &other, &pose, &opts).sorted_contacts();
        let want = collide(&rebuilt, &id, &other_obb, &pose, &opts).sorted_contacts();
        assert_eq!(got, want, "{file} {pose}");
    }
}

#[test]
fn random_placements_aabb_needs_more_box_tests_and_refit_keeps_the_tree() {
    let dir = run(Experiment::RandomPlacements);
    let out = dir.path();
    let r: Vec<PlacementRow> = rows(&out.join("random-placements.csv"));
    assert_eq!(r.len(), 12, "3 models × 2 trees × 2 SAT variants");
    let get = |m: &str, bv: &str, sat: &str| {
        r.iter()
            .find(|x| x.model == m && x.bv == bv && x.sat == sat)
            .unwrap_or_else(|| panic!("{m} {bv} {sat}"))
    };
    for m in ["torus", "f-16", "teapot"] {
        // Every configuration answers the same placements identically.
        let c = get(m, "obb", "full").collisions;
        assert!(r.iter().filter(|x| x.model == m).all(|x| x.collisions == c));
        let rate = c as f64 / get(m, "obb", "full").placements as f64;
        assert!(
            (0.45..=0.75).contains(&rate),
            "{m}: collision rate {rate} should be about 60%"
        );
    }
    let (o, a) = (get("torus", "obb", "full"), get("torus", "aabb", "full"));
    assert!(
        a.n_b > o.n_b,
        "torus: AABB box tests {} vs OBB {}",
        a.n_b,
        o.n_b
    );
    assert!(
        a.n_p > o.n_p,
        "torus: AABB tri tests {} vs OBB {}",
        a.n_p,
        o.n_p
    );
    let t: Vec<TimingRow> = rows(&out.join("random-placements-times.csv"));
    let models: Vec<&str> = t.iter().map(|x| x.model.as_str()).collect();
    assert_eq!(models, ["torus", "f-16", "teapot"]);
    for file in ["torus.obj", "f-16.obj", "teapot.obj"] {
        check_refit(file);
    }
    assert_plot(out, "random-placements-box-tests");
    assert_plot(out, "random-placements-time");
}

#[derive(serde::Deserialize)]
struct SeparationRow {
    model: String,
    rotation_deg: f64,
    run: usize,
    bv: String,
    policy: String,
    steps: usize,
    bv_tests: u64,
}

#[test]
fn separation_list_deferred_saves_tests_on_coherent_motion() {
    let dir = run(Experiment::SeparationList);
    let out = dir.path();
    let r: Vec<SeparationRow> = rows(&out.join("separation-list.csv"));
    // The coherent motion is spot's 1° one.
    for bv in ["sphere", "obb", "aabb"] {
        let rows_of = |policy: &'static str| {
            r.iter().filter(move |x| {
                x.model == "spot" && x.rotation_deg == 1.0 && x.bv == bv && x.policy == policy
            })
        };
        let total = |policy: &'static str| rows_of(policy).map(|x| x.bv_tests).sum::<u64>();
        let (top, deferred) = (total("top-down"), total("deferred"));
        // Each step queries the 36 pairs, and a query from the root pair tests it at least.
        let queries = 36 * rows_of("top-down").map(|x| x.steps as u64).sum::<u64>();
        assert!(
            queries > 0 && top >= queries,
            "{bv}: {top} volume tests, {queries} queries"
        );
        assert!(
            deferred < top,
            "{bv}: deferred separation list {deferred} volume tests, top-down {top}"
        );
    }
    let runs = r.iter().map(|x| x.run).max().unwrap();
    assert_eq!(
        r.len(),
        3 * runs * 3 * 3,
        "3 settings (spot 5°, spot 1°, bunny-500 5°) × runs × 3 trees × 3 policies"
    );
    for (model, deg) in [("spot", 5.0), ("spot", 1.0), ("bunny-500", 5.0)] {
        assert_eq!(
            r.iter()
                .filter(|x| x.model == model && x.rotation_deg == deg)
                .count(),
            runs * 9,
            "{model} at {deg}°"
        );
    }
    // At Li & Chen's own setting (nine ~500-polygon bunnies, 5°), with their sphere trees, the
    // separation list (Fig. 4a) does fewer volume tests than top-down.
    let bunny = |policy: &str| {
        r.iter()
            .filter(|x| x.model == "bunny-500" && x.bv == "sphere" && x.policy == policy)
            .map(|x| x.bv_tests)
            .sum::<u64>()
    };
    assert!(
        bunny("predicted") < bunny("top-down"),
        "bunny-500, 5°: separation list {} volume tests, top-down {}",
        bunny("predicted"),
        bunny("top-down")
    );
    assert_plot(out, "separation-list-sphere-1deg");
    assert_plot(out, "separation-list-sphere-bunny-500-5deg");
    // The summary says whether Li & Chen's claim holds at their own setting.
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("At the paper's setting: nine 500-polygon bunnies, 5° steps")
            && summary.contains("Li & Chen's claim"),
        "{summary}"
    );
}

#[derive(serde::Deserialize)]
struct TableRow {
    scene: String,
    source: String,
    box_tests: Option<u64>,
    contacts: Option<u64>,
}

#[test]
fn paper_tables_obb_needs_fewer_box_tests() {
    let dir = run(Experiment::PaperTables);
    let out = dir.path();
    let r: Vec<TableRow> = rows(&out.join("paper-tables.csv"));
    for scene in ["pipes", "torus", "torpedo"] {
        let get = |src: &str| {
            r.iter()
                .find(|x| x.scene == scene && x.source == src)
                .unwrap()
        };
        let (o, a) = (get("obb"), get("aabb"));
        assert_eq!(o.contacts, a.contacts, "{scene}: same contacts");
        assert!(
            o.box_tests.unwrap() < a.box_tests.unwrap(),
            "{scene}: OBB fewer box tests"
        );
    }
    assert_eq!(
        r.iter().filter(|x| x.source.starts_with("paper")).count(),
        3
    );
    assert_plot(out, "paper-tables");
}

#[cfg(feature = "cli")]
#[test]
fn unknown_experiment_is_an_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_obbtree"))
        .args(["experiment", "no-such-thing", "--out"])
        .arg(std::env::temp_dir().join("obbtree-experiment-none"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-thing") && err.contains("parallel-proximity"),
        "{err}"
    );
}

#[test]
fn missing_model_is_named() {
    let dir = tempfile::Builder::new()
        .prefix("obbtree-experiment-missing-")
        .tempdir()
        .unwrap();
    let out = dir.path();
    let mut settings = Settings::new(out);
    settings.quick = true;
    settings.models = out.join("no-models-here");
    let err = experiments::run(Experiment::RandomPlacements, &settings, &mut |_, _, _| {})
        .expect_err("the models folder does not exist");
    assert!(err.to_string().contains("torus.obj"), "{err}");
    let err = experiments::run(Experiment::SeparationList, &settings, &mut |_, _, _| {})
        .expect_err("the models folder does not exist");
    assert!(err.to_string().contains("spot.obj"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// The ~500-polygon bunny of Li & Chen's setting (§5.2: "9 bunny models of 500 polygons").

/// The decimated bunny's file, beside its source.
const BUNNY_500: &str = "tests/data/bunny-500.obj";
/// Triangles asked of the simplifier.
const BUNNY_TRIANGLES: usize = 500;
/// meshoptimizer's error limit, relative to the mesh's extent: 1 puts no limit, so the
/// triangle count alone stops the simplification.
const BUNNY_ERROR: f32 = 1.0;

/// Decimates `tests/data/stanford-bunny.obj` with meshoptimizer's edge-collapse simplifier
/// (`meshopt` 0.7.0, meshoptimizer 1.3, `simplify` with `RegularizeLight`: more even triangles,
/// and unlike no options it leaves no doubled sliver at this count) to [`BUNNY_TRIANGLES`]
/// triangles, and returns the OBJ text of `tests/data/bunny-500.obj`: the kept vertices in order
/// of first use, each `v` line copied unchanged from the source (an edge collapse moves no
/// vertex), then the triangles as `f` lines (1-based).
fn decimate_bunny() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/data/stanford-bunny.obj")).unwrap();
    let mut v_lines: Vec<&str> = Vec::new();
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let p: Vec<f32> = words.map(|w| w.parse::<f64>().unwrap() as f32).collect();
                positions.push([p[0], p[1], p[2]]);
                v_lines.push(line);
            }
            Some("f") => {
                let f: Vec<u32> = words.map(|w| w.parse::<u32>().unwrap() - 1).collect();
                assert_eq!(f.len(), 3, "the normalised bunny has triangles only");
                indices.extend(f);
            }
            _ => {}
        }
    }
    let bytes: Vec<u8> = positions
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let adapter = meshopt::VertexDataAdapter::new(&bytes, 12, 0).unwrap();
    let mut error = 0.0f32;
    let kept = meshopt::simplify(
        &indices,
        &adapter,
        3 * BUNNY_TRIANGLES,
        BUNNY_ERROR,
        meshopt::SimplifyOptions::RegularizeLight,
        Some(&mut error),
    );
    // Renumber the kept vertices in order of first use.
    let mut new_index = vec![u32::MAX; positions.len()];
    let mut order: Vec<usize> = Vec::new();
    let faces: Vec<u32> = kept
        .iter()
        .map(|&i| {
            let i = i as usize;
            if new_index[i] == u32::MAX {
                new_index[i] = order.len() as u32;
                order.push(i);
            }
            new_index[i] + 1
        })
        .collect();
    let mut out = format!(
        "# bunny-500.obj: tests/data/stanford-bunny.obj decimated by meshopt 0.7.0 (meshoptimizer 1.3) \
         simplify(target {} indices, target_error {BUNNY_ERROR}, options RegularizeLight): {} vertices, {} \
         triangles, relative error {error:.6}; regenerate: OBBTREE_WRITE_BUNNY=1 cargo test --release \
         --no-default-features --test experiments bunny_500\n",
        3 * BUNNY_TRIANGLES,
        order.len(),
        faces.len() / 3
    );
    for &i in &order {
        out.push_str(v_lines[i]);
        out.push('\n');
    }
    for f in faces.chunks(3) {
        out.push_str(&format!("f {} {} {}\n", f[0], f[1], f[2]));
    }
    out
}

/// `tests/data/bunny-500.obj` is exactly what [`decimate_bunny`] makes (its provenance, proven),
/// has about 500 triangles, and loads as a valid mesh. With `OBBTREE_WRITE_BUNNY=1` the file is
/// (re)written first.
#[test]
fn bunny_500_is_the_decimated_stanford_bunny() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(BUNNY_500);
    let made = decimate_bunny();
    if std::env::var_os("OBBTREE_WRITE_BUNNY").is_some() {
        std::fs::write(&path, &made).unwrap();
    }
    let stored = std::fs::read_to_string(&path).unwrap();
    assert!(
        stored == made,
        "{BUNNY_500} differs from the decimation of stanford-bunny.obj"
    );
    let mesh = obbtree::mesh::load_obj(&path).unwrap();
    let n = mesh.triangle_count();
    assert!((480..=500).contains(&n), "{n} triangles");
    // The decimated bunny still spans the source's bounding box (to 5% of its diagonal).
    let source = obbtree::mesh::load_obj(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/stanford-bunny.obj"),
    )
    .unwrap();
    let ((lo, hi), (slo, shi)) = (mesh.bounds(), source.bounds());
    let d = (shi - slo).norm();
    assert!((lo - slo).norm() < 0.05 * d && (hi - shi).norm() < 0.05 * d);
    // No triangle twice, no edge shared by more than two triangles.
    let mut faces = std::collections::HashSet::new();
    let mut edges = std::collections::HashMap::<(u32, u32), u32>::new();
    for t in mesh.triangles() {
        let mut s = *t;
        s.sort_unstable();
        assert!(faces.insert(s), "triangle {t:?} twice");
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    assert!(edges.values().all(|&n| n <= 2), "a non-manifold edge");
}
