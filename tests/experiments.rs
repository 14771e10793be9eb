//! Each experiment in `--quick` mode: its files are written and readable, and the papers'
//! qualitative claims hold on the data it wrote (read back from the CSV files, not from the
//! claims the experiment computed itself).
#![cfg(feature = "paper")]

use obbtree::experiments::{self, Experiment, Settings};
use std::path::{Path, PathBuf};

fn run(e: Experiment) -> PathBuf {
    let out = std::env::temp_dir().join(format!(
        "obbtree-experiment-{}-{}",
        e.name(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&out);
    let mut settings = Settings::new(&out);
    settings.quick = true;
    let mut calls = 0u64;
    let outcome = experiments::run(e, &settings, &mut |_, done, total| {
        assert!(done <= total, "progress {done}/{total}");
        calls += 1;
    })
    .unwrap_or_else(|err| panic!("{}: {err}", e.name()));
    assert!(calls > 0, "{}: progress was reported", e.name());
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
    out
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
    let out = run(Experiment::ParallelProximity);
    let r: Vec<ProximityRow> = rows(&out.join("parallel-proximity.csv"));
    assert!(r.len() >= 10);
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
    assert_plot(&out, "parallel-proximity");
}

#[test]
fn point_proximity_gap_widens() {
    let out = run(Experiment::PointProximity);
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
    assert_plot(&out, "point-proximity");
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
    build_aabb_s: f64,
    refit_aabb_ms: f64,
}

#[test]
fn random_placements_aabb_needs_more_box_tests_and_refit_beats_rebuild() {
    let out = run(Experiment::RandomPlacements);
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
    assert_eq!(t.len(), 3);
    for x in &t {
        assert!(
            x.refit_aabb_ms < x.build_aabb_s * 1e3,
            "{}: refit {} ms vs rebuild {} ms",
            x.model,
            x.refit_aabb_ms,
            x.build_aabb_s * 1e3
        );
    }
    assert_plot(&out, "random-placements-box-tests");
    assert_plot(&out, "random-placements-time");
}

#[derive(serde::Deserialize)]
struct SeparationRow {
    rotation_deg: f64,
    run: usize,
    bv: String,
    policy: String,
    bv_tests: u64,
}

#[test]
fn separation_list_deferred_saves_tests_on_coherent_motion() {
    let out = run(Experiment::SeparationList);
    let r: Vec<SeparationRow> = rows(&out.join("separation-list.csv"));
    // The coherent motion is the 1° one.
    for bv in ["sphere", "obb", "aabb"] {
        let total = |policy: &str| {
            r.iter()
                .filter(|x| x.rotation_deg == 1.0 && x.bv == bv && x.policy == policy)
                .map(|x| x.bv_tests)
                .sum::<u64>()
        };
        let (top, deferred) = (total("top-down"), total("deferred"));
        assert!(top > 0);
        assert!(
            deferred < top,
            "{bv}: deferred separation list {deferred} volume tests, top-down {top}"
        );
    }
    let runs = r.iter().map(|x| x.run).max().unwrap();
    assert_eq!(
        r.len(),
        2 * runs * 3 * 3,
        "2 rotations × runs × 3 trees × 3 policies"
    );
    assert_plot(&out, "separation-list-sphere-1deg");
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
    let out = run(Experiment::PaperTables);
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
    assert_plot(&out, "paper-tables");
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
    let out =
        std::env::temp_dir().join(format!("obbtree-experiment-missing-{}", std::process::id()));
    let mut settings = Settings::new(&out);
    settings.quick = true;
    settings.models = out.join("no-models-here");
    let err = experiments::run(Experiment::RandomPlacements, &settings, &mut |_, _, _| {})
        .expect_err("the models folder does not exist");
    assert!(err.to_string().contains("torus.obj"), "{err}");
    let err = experiments::run(Experiment::SeparationList, &settings, &mut |_, _, _| {})
        .expect_err("the models folder does not exist");
    assert!(err.to_string().contains("spot.obj"), "{err}");
}
