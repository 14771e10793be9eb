//! Random placements of a pair of models, OBB trees against AABB trees, full SAT and SAT lite
//! (van den Bergen 1998, §5, Tables 1 and 2), and the build, refit and test times of his
//! Table 3.

use super::plot::{BarPlot, bar_plot};
use super::{
    Claim, ExperimentError, Progress, Settings, Summary, load_centered, median, shoemake,
    thousands, write_csv,
};
use crate::bv::{Aabb, BoundingVolume, Obb, OverlapOptions, SatMode};
use crate::bvh::{BuildOptions, Bvh};
use crate::math::{Matrix3, Point, UnitQuaternion, Vector, transform_point};
use crate::mesh::TriMesh;
use crate::query::{
    CollisionReport, ContactMode, QueryOptions, SeparationList, SeparationPolicy,
    collide_incremental, collide_relative, collide_traced, triangles_intersect,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

/// The models: (file, name in our tables, the row of van den Bergen's tables it stands for).
const MODELS: [(&str, &str, &str); 3] = [
    ("torus.obj", "torus", "Torus"),
    ("f-16.obj", "f-16", "X-wing"),
    ("teapot.obj", "teapot", "Teapot"),
];

/// van den Bergen's Tables 1 and 2: (model, tree, sat) → N_b, C_b µs, T_b s, N_p, C_p µs,
/// T_p s, T_total s (100K placements, Sun UltraSPARC-I 167 MHz).
#[rustfmt::skip]
const PAPER: [(&str, &str, &str, u64, f64, f64, u64, f64, f64, f64); 12] = [
    ("Torus", "obb", "full", 10178961, 4.9, 49.7, 197314, 15.0, 2.9, 52.6),
    ("X-wing", "obb", "full", 48890612, 4.6, 223.8, 975217, 10.0, 10.2, 234.0),
    ("Teapot", "obb", "full", 12025710, 4.8, 57.6, 186329, 14.0, 2.7, 60.3),
    ("Torus", "aabb", "full", 32913297, 3.7, 122.3, 3996806, 7.2, 28.7, 151.0),
    ("X-wing", "aabb", "full", 92376250, 3.1, 288.8, 8601433, 7.1, 61.3, 350.1),
    ("Teapot", "aabb", "full", 25810569, 3.3, 84.8, 1874830, 7.4, 13.9, 98.7),
    ("Torus", "obb", "lite", 13116295, 3.7, 47.9, 371345, 12.0, 4.4, 52.3),
    ("X-wing", "obb", "lite", 65041340, 3.4, 221.4, 2451543, 9.3, 22.9, 244.3),
    ("Teapot", "obb", "lite", 14404588, 3.5, 50.8, 279987, 13.0, 3.5, 54.3),
    ("Torus", "aabb", "lite", 40238149, 2.4, 96.1, 5222836, 7.4, 38.4, 134.5),
    ("X-wing", "aabb", "lite", 121462120, 1.9, 236.7, 13066095, 7.0, 91.3, 328.0),
    ("Teapot", "aabb", "lite", 30127623, 2.1, 62.5, 2214671, 7.0, 15.6, 78.1),
];

/// van den Bergen's Table 3: model → build OBB s, build AABB s, refit AABB ms, test OBB ms,
/// test AABB ms.
const PAPER_TIMES: [(&str, f64, f64, f64, f64, f64); 3] = [
    ("Torus", 0.35, 0.11, 15.0, 0.5, 1.3),
    ("X-wing", 0.46, 0.18, 18.0, 2.3, 3.3),
    ("Teapot", 0.27, 0.08, 11.0, 0.6, 0.8),
];

/// One row of Tables 1/2: one model pair, one tree type, one SAT variant.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PlacementRow {
    /// Model (both objects are copies of it).
    pub model: String,
    /// Triangles of the model.
    pub triangles: usize,
    /// `obb` or `aabb`.
    pub bv: &'static str,
    /// `full` (15 axes) or `lite` (6 face axes).
    pub sat: &'static str,
    /// Placements tested.
    pub placements: usize,
    /// Placements that collide (first-contact queries; the same for every row of a model).
    pub collisions: usize,
    /// N_b: box tests over all placements.
    pub n_b: u64,
    /// C_b: microseconds per box test (placing B's box in A's frame and testing), measured on
    /// the box pairs the queries tested in a sample of placements.
    pub c_b_us: f64,
    /// T_b = N_b · C_b, seconds.
    pub t_b_s: f64,
    /// N_p: triangle tests over all placements.
    pub n_p: u64,
    /// C_p: microseconds per triangle test, measured like C_b.
    pub c_p_us: f64,
    /// T_p = N_p · C_p, seconds.
    pub t_p_s: f64,
    /// T_total: measured wall time of all queries, seconds (includes the traversal itself,
    /// which T_b + T_p leave out).
    pub t_total_s: f64,
    /// Median time of one query, microseconds.
    pub median_query_us: f64,
}

/// One column of Table 3 (per model).
#[derive(Clone, Debug, serde::Serialize)]
pub struct TimingRow {
    /// Model.
    pub model: String,
    /// Triangles.
    pub triangles: usize,
    /// Build an OBB tree, seconds (median of 3).
    pub build_obb_s: f64,
    /// Build an AABB tree, seconds (median of 3).
    pub build_aabb_s: f64,
    /// Refit an AABB tree after every vertex moved, milliseconds (median of 5).
    pub refit_aabb_ms: f64,
    /// Test a pair of OBB trees: mean query time over the placements (full SAT), milliseconds.
    pub test_obb_ms: f64,
    /// Test a pair of AABB trees, milliseconds.
    pub test_aabb_ms: f64,
}

/// The result of `random-placements`.
#[derive(Clone, Debug)]
pub struct PlacementsResult {
    /// Tables 1 and 2.
    pub rows: Vec<PlacementRow>,
    /// Table 3.
    pub timings: Vec<TimingRow>,
    /// Cube side per model (positions uniform in the cube), model units.
    pub cube_sides: Vec<(String, f64)>,
    /// The summary's claims table.
    pub claims: Vec<Claim>,
}

/// B placed in A's frame.
#[derive(Clone, Copy)]
struct Placement {
    rot: Matrix3,
    pos: Vector,
}

/// A draw of random placements: per placement (rotation of A, rotation of B, origin of A, origin
/// of B), the rotations Shoemake-uniform and the origins uniform in the unit cube centred on the
/// origin, so the same draw can be rescaled to any cube side.
struct Draws(Vec<(UnitQuaternion, UnitQuaternion, Vector, Vector)>);

/// A point uniform in the unit cube centred on the origin.
fn in_unit_cube(rng: &mut Xoshiro256PlusPlus) -> Vector {
    Vector::new(
        rng.random::<f64>() - 0.5,
        rng.random::<f64>() - 0.5,
        rng.random::<f64>() - 0.5,
    )
}

impl Draws {
    /// `n` placements: all origins are drawn first, then all rotations.
    fn new(n: usize, rng: &mut Xoshiro256PlusPlus) -> Self {
        let origins: Vec<(Vector, Vector)> = (0..n)
            .map(|_| (in_unit_cube(rng), in_unit_cube(rng)))
            .collect();
        Draws(
            origins
                .into_iter()
                .map(|(ta, tb)| (shoemake(rng), shoemake(rng), ta, tb))
                .collect(),
        )
    }

    fn placements(&self, side: f64) -> Vec<Placement> {
        self.0
            .iter()
            .map(|(qa, qb, ta, tb)| {
                // x_a = qa⁻¹ (qb x_b + side·tb − side·ta)
                let inv = qa.inverse();
                Placement {
                    rot: *(inv * qb).to_rotation_matrix().matrix(),
                    pos: inv * ((tb - ta) * side),
                }
            })
            .collect()
    }
}

fn first_contact(sat: SatMode) -> QueryOptions {
    QueryOptions {
        mode: ContactMode::FirstContact,
        overlap: OverlapOptions {
            sat,
            ..OverlapOptions::default()
        },
    }
}

fn collision_rate(a: &Bvh<Obb>, placements: &[Placement]) -> f64 {
    let mut r = CollisionReport::default();
    let options = first_contact(SatMode::Full);
    let hits = placements
        .iter()
        .filter(|p| {
            collide_relative(a, a, &p.rot, &p.pos, &options, &mut r);
            r.colliding()
        })
        .count();
    hits as f64 / placements.len() as f64
}

/// The cube side giving a collision rate of about 60% (bisection on a pilot sample).
fn calibrate(a: &Bvh<Obb>, mesh: &TriMesh, pilot: &Draws) -> f64 {
    let (lo, hi) = mesh.bounds();
    let d = (hi - lo).norm();
    let (mut small, mut large) = (0.05 * d, 4.0 * d);
    for _ in 0..14 {
        let mid = 0.5 * (small + large);
        if collision_rate(a, &pilot.placements(mid)) > 0.6 {
            small = mid;
        } else {
            large = mid;
        }
    }
    0.5 * (small + large)
}

/// Runs all placements with one tree type and SAT variant: (collisions per placement, N_b,
/// N_p, total seconds, median µs).
fn run_all<B: BoundingVolume>(
    t: &Bvh<B>,
    placements: &[Placement],
    sat: SatMode,
    tick: &mut dyn FnMut(),
) -> (Vec<bool>, u64, u64, f64, f64) {
    let options = first_contact(sat);
    let mut r = CollisionReport::default();
    let (mut nb, mut np) = (0, 0);
    let mut hits = Vec::with_capacity(placements.len());
    let mut times = Vec::with_capacity(placements.len());
    let start = Instant::now();
    for (i, p) in placements.iter().enumerate() {
        let t0 = Instant::now();
        collide_relative(t, t, &p.rot, &p.pos, &options, &mut r);
        times.push(t0.elapsed().as_secs_f64());
        nb += r.bv_tests;
        np += r.tri_tests;
        hits.push(r.colliding());
        if i % 1000 == 999 {
            tick();
        }
    }
    let total = start.elapsed().as_secs_f64();
    (hits, nb, np, total, median(&mut times) * 1e6)
}

/// C_b and C_p in microseconds: the box pairs and triangle pairs the queries of a sample of
/// placements tested, each re-tested in a tight loop.
fn unit_costs<B: BoundingVolume>(t: &Bvh<B>, sample: &[Placement], sat: SatMode) -> (f64, f64) {
    let options = first_contact(sat);
    let mut r = CollisionReport::default();
    let mut overlapped = Vec::new();
    let mut list = SeparationList::new(SeparationPolicy::TopDown);
    let mut boxes: Vec<(usize, u32, u32)> = Vec::new();
    let mut tris: Vec<(usize, u32, u32)> = Vec::new();
    for (k, p) in sample.iter().enumerate() {
        collide_traced(t, t, &p.rot, &p.pos, &options, &mut r, &mut overlapped);
        collide_incremental(t, t, &p.rot, &p.pos, &options, &mut list, &mut r);
        // Tested pairs: the overlapping ones, plus the cut's disjoint ones; the cut's leaf
        // pairs are overlapping pairs whose triangles were tested.
        let nodes = t.nodes();
        boxes.extend(overlapped.iter().map(|&(a, b)| (k, a, b)));
        for &(a, b) in list.pairs() {
            match (nodes[a as usize].triangle(), nodes[b as usize].triangle()) {
                (Some(ta), Some(tb)) => tris.push((k, ta, tb)),
                _ => boxes.push((k, a, b)),
            }
        }
    }
    let nodes = t.nodes();
    let queries: Vec<B::Query> = sample
        .iter()
        .map(|p| crate::query::volume_query(t, t, &p.rot, &p.pos, &options.overlap))
        .collect();
    let reps = (2_000_000 / boxes.len().max(1)).clamp(1, 200);
    let start = Instant::now();
    let mut hits = 0u64;
    for _ in 0..reps {
        for &(k, a, b) in &boxes {
            let q = &queries[k];
            let pb = B::place(q, &nodes[b as usize].bv);
            hits += B::overlaps(q, black_box(&nodes[a as usize].bv), &pb) as u64;
        }
    }
    black_box(hits);
    let c_b = start.elapsed().as_secs_f64() * 1e6 / (reps * boxes.len().max(1)) as f64;
    let mesh = t.mesh();
    let reps = (500_000 / tris.len().max(1)).clamp(1, 200);
    let start = Instant::now();
    for _ in 0..reps {
        for &(k, ta, tb) in &tris {
            let p = &sample[k];
            let q: [Point; 3] = mesh
                .triangle(tb as usize)
                .map(|x| transform_point(&p.rot, &p.pos, &x));
            hits += triangles_intersect(black_box(&mesh.triangle(ta as usize)), &q) as u64;
        }
    }
    black_box(hits);
    let c_p = start.elapsed().as_secs_f64() * 1e6 / (reps * tris.len().max(1)) as f64;
    (c_b, c_p)
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let v = f();
    (v, t.elapsed().as_secs_f64())
}

pub(super) fn run(
    settings: &Settings,
    progress: Progress<'_>,
) -> Result<PlacementsResult, ExperimentError> {
    let n = if settings.quick { 4_000 } else { 100_000 };
    let pilot_n = if settings.quick { 400 } else { 2_000 };
    let build = BuildOptions::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(settings.seed);
    let mut rows = Vec::new();
    let mut timings = Vec::new();
    let mut cube_sides = Vec::new();
    let total_ticks = (MODELS.len() * 4 * n / 1000) as u64;
    let mut ticks = 0u64;

    for (file, name, _) in MODELS {
        let mesh = load_centered(settings, file)?;
        let tris = mesh.triangle_count();
        let stage = format!("random-placements {name}");
        progress(&stage, ticks, total_ticks);
        // Table 3: builds (median of 3) and refit (median of 5 after a deformation).
        let mut obb_builds = Vec::new();
        let mut aabb_builds = Vec::new();
        let mut obb = None;
        let mut aabb = None;
        for _ in 0..3 {
            let (t, s) = timed(|| Bvh::<Obb>::build(mesh.clone(), &build));
            obb_builds.push(s);
            obb = Some(t);
            let (t, s) = timed(|| Bvh::<Aabb>::build(mesh.clone(), &build));
            aabb_builds.push(s);
            aabb = Some(t);
        }
        let (obb, aabb) = (obb.expect("built"), aabb.expect("built"));
        let mut deformed = aabb.clone();
        let (lo, hi) = mesh.bounds();
        let wobble = 0.01 * (hi - lo).norm();
        let moved = mesh
            .vertices()
            .iter()
            .map(|p| p + Vector::new(p.y.sin(), p.z.cos(), p.x.sin()) * wobble)
            .collect();
        deformed.set_vertices(moved)?;
        let mut refits: Vec<f64> = (0..5).map(|_| timed(|| deformed.refit()).1).collect();

        let pilot = Draws::new(pilot_n, &mut rng);
        let side = calibrate(&obb, &mesh, &pilot);
        cube_sides.push((name.to_string(), side));
        let placements = Draws::new(n, &mut rng).placements(side);
        let sample: Vec<Placement> = placements
            .iter()
            .step_by((n / 200).max(1))
            .copied()
            .collect();

        let mut truth: Option<Vec<bool>> = None;
        let mut test_ms = [0.0f64; 2];
        for (sat, sat_name) in [(SatMode::Full, "full"), (SatMode::Lite, "lite")] {
            for bv in ["obb", "aabb"] {
                let mut tick = || {
                    ticks += 1;
                    progress(&stage, ticks, total_ticks);
                };
                let ((hits, n_b, n_p, total, med), (c_b, c_p)) = if bv == "obb" {
                    (
                        run_all(&obb, &placements, sat, &mut tick),
                        unit_costs(&obb, &sample, sat),
                    )
                } else {
                    (
                        run_all(&aabb, &placements, sat, &mut tick),
                        unit_costs(&aabb, &sample, sat),
                    )
                };
                match &truth {
                    None => truth = Some(hits.clone()),
                    Some(t) if *t != hits => {
                        return Err(ExperimentError::Inconsistent(format!(
                            "{name}: {bv} trees with {sat_name} SAT disagree with OBB trees on a placement"
                        )));
                    }
                    Some(_) => {}
                }
                if sat == SatMode::Full {
                    test_ms[(bv == "aabb") as usize] = total * 1e3 / n as f64;
                }
                rows.push(PlacementRow {
                    model: name.to_string(),
                    triangles: tris,
                    bv,
                    sat: sat_name,
                    placements: n,
                    collisions: hits.iter().filter(|&&h| h).count(),
                    n_b,
                    c_b_us: c_b,
                    t_b_s: n_b as f64 * c_b * 1e-6,
                    n_p,
                    c_p_us: c_p,
                    t_p_s: n_p as f64 * c_p * 1e-6,
                    t_total_s: total,
                    median_query_us: med,
                });
            }
        }
        timings.push(TimingRow {
            model: name.to_string(),
            triangles: tris,
            build_obb_s: median(&mut obb_builds),
            build_aabb_s: median(&mut aabb_builds),
            refit_aabb_ms: median(&mut refits) * 1e3,
            test_obb_ms: test_ms[0],
            test_aabb_ms: test_ms[1],
        });
    }
    progress("random-placements", total_ticks, total_ticks);
    let claims = claims(&rows, &timings);
    let result = PlacementsResult {
        rows,
        timings,
        cube_sides,
        claims,
    };
    write(&result, settings)?;
    Ok(result)
}

fn row<'a>(rows: &'a [PlacementRow], model: &str, bv: &str, sat: &str) -> &'a PlacementRow {
    rows.iter()
        .find(|r| r.model == model && r.bv == bv && r.sat == sat)
        .expect("every combination is measured")
}

fn paper_row(model: &str, bv: &str, sat: &str) -> (u64, u64, f64) {
    let p = PAPER
        .iter()
        .find(|p| p.0 == model && p.1 == bv && p.2 == sat)
        .expect("the paper has every combination");
    (p.3, p.6, p.9)
}

fn claims(rows: &[PlacementRow], timings: &[TimingRow]) -> Vec<Claim> {
    let mut c = Vec::new();
    for (_, name, paper) in MODELS {
        let (o, a) = (
            row(rows, name, "obb", "full"),
            row(rows, name, "aabb", "full"),
        );
        let (po, pa) = (
            paper_row(paper, "obb", "full"),
            paper_row(paper, "aabb", "full"),
        );
        c.push(Claim::new(
            format!("{name}: AABB trees need more box tests than OBB trees (N_b ratio)"),
            format!("{:.1}× ({paper})", pa.0 as f64 / po.0 as f64),
            format!("{:.1}×", a.n_b as f64 / o.n_b as f64),
            a.n_b > o.n_b,
        ));
        c.push(Claim::new(
            format!("{name}: OBB trees need fewer triangle tests (N_p ratio)"),
            format!("{:.1}×", pa.1 as f64 / po.1 as f64),
            format!("{:.1}×", a.n_p as f64 / o.n_p.max(1) as f64),
            a.n_p > o.n_p,
        ));
        c.push(Claim::new(
            format!("{name}: OBB tree T_total below AABB tree's (full SAT)"),
            format!("{:.1} s vs {:.1} s", po.2, pa.2),
            format!("{:.2} s vs {:.2} s", o.t_total_s, a.t_total_s),
            o.t_total_s < a.t_total_s,
        ));
    }
    for (_, name, _) in MODELS.iter().filter(|m| m.1 != "f-16") {
        let o = row(rows, name, "obb", "full");
        c.push(Claim::new(
            format!("{name}: fewer than two triangle tests per placement with OBB trees"),
            "< 2",
            format!("{:.2}", o.n_p as f64 / o.placements as f64),
            (o.n_p as f64 / o.placements as f64) < 2.0,
        ));
    }
    let gain = |bv: &str| {
        let g: Vec<f64> = MODELS
            .iter()
            .map(|m| {
                row(rows, m.1, bv, "full").t_total_s / row(rows, m.1, bv, "lite").t_total_s - 1.0
            })
            .collect();
        g.iter().sum::<f64>() / g.len() as f64
    };
    let (ga, go) = (gain("aabb"), gain("obb"));
    c.push(Claim::new(
        "SAT lite speeds up AABB trees (mean over the models)",
        "≈ +15%",
        format!("{:+.0}%", ga * 100.0),
        ga > 0.0,
    ));
    c.push(Claim::new(
        "SAT lite changes OBB tree times only marginally",
        "≈ ±0–10%",
        format!("{:+.0}%", go * 100.0),
        go.abs() < 0.15,
    ));
    for t in timings {
        c.push(Claim::new(
            format!(
                "{}: refitting an AABB tree is faster than rebuilding it",
                t.model
            ),
            "≈ 7–10× (Table 3, §4)",
            format!("{:.1}×", t.build_aabb_s * 1e3 / t.refit_aabb_ms),
            t.refit_aabb_ms < t.build_aabb_s * 1e3,
        ));
        c.push(Claim::new(
            format!("{}: refit AABB tree < 5% of an OBB tree build", t.model),
            "< 5% (3–4%)",
            format!("{:.1}%", 100.0 * t.refit_aabb_ms / (t.build_obb_s * 1e3)),
            t.refit_aabb_ms < 0.05 * t.build_obb_s * 1e3,
        ));
        c.push(Claim::new(
            format!(
                "{}: testing a pair of OBB trees is faster than a pair of AABB trees",
                t.model
            ),
            "yes (all three models)",
            format!("{:.3} ms vs {:.3} ms", t.test_obb_ms, t.test_aabb_ms),
            t.test_obb_ms < t.test_aabb_ms,
        ));
    }
    c
}

fn write(r: &PlacementsResult, settings: &Settings) -> Result<(), ExperimentError> {
    let out = &settings.out;
    write_csv(&out.join("random-placements.csv"), &r.rows)?;
    write_csv(&out.join("random-placements-times.csv"), &r.timings)?;
    let groups: Vec<String> = MODELS.iter().map(|m| m.1.to_string()).collect();
    // One bar series per (tree, SAT) configuration, one bar per model.
    let series = |value: fn(&PlacementRow) -> f64| -> Vec<(String, Vec<f64>)> {
        [
            ("obb", "full"),
            ("aabb", "full"),
            ("obb", "lite"),
            ("aabb", "lite"),
        ]
        .iter()
        .map(|(bv, sat)| {
            (
                format!("{} tree, {} SAT", bv.to_uppercase(), sat),
                MODELS
                    .iter()
                    .map(|m| value(row(&r.rows, m.1, bv, sat)))
                    .collect(),
            )
        })
        .collect()
    };
    bar_plot(
        out,
        "random-placements-box-tests",
        &BarPlot {
            title: "Random placements: box tests N_b (van den Bergen Tables 1–2)",
            y_label: "box tests over all placements",
            log_y: false,
            groups: &groups,
            series: &series(|x| x.n_b as f64),
        },
    )?;
    bar_plot(
        out,
        "random-placements-time",
        &BarPlot {
            title: "Random placements: T_total, seconds",
            y_label: "seconds for all placements",
            log_y: false,
            groups: &groups,
            series: &series(|x| x.t_total_s),
        },
    )?;

    let mut s = Summary::new(
        "random-placements",
        "Random placements: AABB trees vs OBB trees",
        "van den Bergen 1998, \"Efficient collision detection of complex deformable models using AABB trees\", §5, Tables 1–3",
        settings,
    );
    let n = r.rows.first().map_or(0, |x| x.placements);
    s.para(&format!(
        "Each model against a copy of itself (the f-16 stands in for his slender X-wing), {} random \
         placements: both models at Shoemake-uniform random rotations, their origins (the centres of \
         their bounding boxes) uniform in a cube sized by bisection on a pilot sample so that about \
         60% of placements collide (sides: {}). One first-contact query per placement (\"tested for \
         intersection\"); both tree types are built by the same top-down process (mean split, the \
         AABB tree with identity axes). C_b and C_p are measured by re-testing the box and triangle \
         pairs the queries of 200 sampled placements tested; T_b = N_b·C_b and T_p = N_p·C_p as in \
         his tables, while T_total is the measured time of all queries (it includes the traversal \
         itself). Paper: Sun UltraSPARC-I, 167 MHz; ours: this machine.",
        thousands(n as u64),
        r.cube_sides
            .iter()
            .map(|(m, side)| format!("{m} {side:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    s.images(&["random-placements-box-tests", "random-placements-time"]);
    s.claims(&r.claims);
    for (sat, title) in [
        ("full", "Table 1 (full SAT)"),
        ("lite", "Table 2 (SAT lite)"),
    ] {
        s.heading(title);
        let mut rows = Vec::new();
        for bv in ["obb", "aabb"] {
            for (_, name, paper) in MODELS {
                let p = PAPER
                    .iter()
                    .find(|p| p.0 == paper && p.1 == bv && p.2 == sat)
                    .expect("paper row");
                rows.push(vec![
                    format!("{} {paper} (paper)", bv.to_uppercase()),
                    "–".into(),
                    thousands(p.3),
                    format!("{}", p.4),
                    format!("{}", p.5),
                    thousands(p.6),
                    format!("{}", p.7),
                    format!("{}", p.8),
                    format!("{}", p.9),
                ]);
                let o = row(&r.rows, name, bv, sat);
                rows.push(vec![
                    format!("{} {name} (ours)", bv.to_uppercase()),
                    thousands(o.collisions as u64),
                    thousands(o.n_b),
                    format!("{:.3}", o.c_b_us),
                    format!("{:.3}", o.t_b_s),
                    thousands(o.n_p),
                    format!("{:.3}", o.c_p_us),
                    format!("{:.3}", o.t_p_s),
                    format!("{:.3}", o.t_total_s),
                ]);
            }
        }
        s.table(
            &[
                "tree, model",
                "collisions",
                "N_b",
                "C_b µs",
                "T_b s",
                "N_p",
                "C_p µs",
                "T_p s",
                "T_total s",
            ],
            &rows,
        );
    }
    s.heading("Table 3 (times of operations)");
    let mut rows = Vec::new();
    for ((_, _, paper), t) in MODELS.iter().zip(&r.timings) {
        let p = PAPER_TIMES
            .iter()
            .find(|p| p.0 == *paper)
            .expect("paper column");
        rows.push(vec![
            format!("{paper} (paper)"),
            format!("{} s", p.1),
            format!("{} s", p.2),
            format!("{} ms", p.3),
            format!("{} ms", p.4),
            format!("{} ms", p.5),
        ]);
        rows.push(vec![
            format!("{} ({} triangles, ours)", t.model, t.triangles),
            format!("{:.4} s", t.build_obb_s),
            format!("{:.4} s", t.build_aabb_s),
            format!("{:.3} ms", t.refit_aabb_ms),
            format!("{:.4} ms", t.test_obb_ms),
            format!("{:.4} ms", t.test_aabb_ms),
        ]);
    }
    s.table(
        &[
            "model",
            "build OBB tree",
            "build AABB tree",
            "refit AABB tree",
            "test OBB pair",
            "test AABB pair",
        ],
        &rows,
    );
    s.para(
        "Files: `random-placements.csv` (Tables 1–2), `random-placements-times.csv` (Table 3), \
         `random-placements-box-tests.{png,svg}`, `random-placements-time.{png,svg}`.",
    );
    s.write(out)
}
