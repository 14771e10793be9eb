//! Random placements of a pair of models, OBB trees against AABB trees, full SAT and SAT lite
//! (van den Bergen 1998, §5, Tables 1 and 2), and the build, refit and test times of his
//! Table 3.

use super::plot::{BarPlot, Plot};
use super::report::{CsvFile, Figure, Report, Section, Table, thousands};
use super::{Claim, ExperimentError, Progress, Settings, load_centered, shoemake};
use crate::bv::{Aabb, BoundingVolume, BvKind, Obb, OverlapOptions, SatMode};
use crate::bvh::Bvh;
use crate::math::{Matrix3, UnitQuaternion, Vector};
use crate::mesh::TriMesh;
use crate::query::{CollideWith, CollisionReport, ContactMode, QueryOptions, collide_with};
use crate::timing::{median, timed};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// A model of the experiment: its file, its name in our tables, and the model of van den
/// Bergen's tables it stands for.
#[derive(Clone, Copy, Debug)]
struct Model {
    file: &'static str,
    name: &'static str,
    paper: &'static str,
}

/// The models, in the order of van den Bergen's tables (the f-16 stands in for his slender
/// X-wing).
const MODELS: [Model; 3] = [
    Model {
        file: "torus.obj",
        name: "torus",
        paper: "Torus",
    },
    Model {
        file: "f-16.obj",
        name: "f-16",
        paper: "X-wing",
    },
    Model {
        file: "teapot.obj",
        name: "teapot",
        paper: "Teapot",
    },
];

/// A row of van den Bergen's Tables 1 (full SAT) and 2 (SAT lite): 100K placements of a model
/// against itself, on a Sun UltraSPARC-I at 167 MHz (van den Bergen 1998, §5).
#[derive(Clone, Copy, Debug)]
struct PaperPlacements {
    /// The paper's model name.
    model: &'static str,
    bv: BvKind,
    sat: SatMode,
    /// N_b: box tests.
    n_b: u64,
    /// C_b: microseconds per box test.
    c_b_us: f64,
    /// T_b = N_b · C_b, seconds.
    t_b_s: f64,
    /// N_p: triangle tests.
    n_p: u64,
    /// C_p: microseconds per triangle test.
    c_p_us: f64,
    /// T_p = N_p · C_p, seconds.
    t_p_s: f64,
    /// Total time, seconds.
    t_total_s: f64,
}

/// van den Bergen's Tables 1 and 2.
#[rustfmt::skip]
const PAPER_TABLES_1_2: [PaperPlacements; 12] = {
    use BvKind::{Aabb, Obb};
    use SatMode::{Full, Lite};
    [
        PaperPlacements { model: "Torus", bv: Obb, sat: Full, n_b: 10178961, c_b_us: 4.9, t_b_s: 49.7, n_p: 197314, c_p_us: 15.0, t_p_s: 2.9, t_total_s: 52.6 },
        PaperPlacements { model: "X-wing", bv: Obb, sat: Full, n_b: 48890612, c_b_us: 4.6, t_b_s: 223.8, n_p: 975217, c_p_us: 10.0, t_p_s: 10.2, t_total_s: 234.0 },
        PaperPlacements { model: "Teapot", bv: Obb, sat: Full, n_b: 12025710, c_b_us: 4.8, t_b_s: 57.6, n_p: 186329, c_p_us: 14.0, t_p_s: 2.7, t_total_s: 60.3 },
        PaperPlacements { model: "Torus", bv: Aabb, sat: Full, n_b: 32913297, c_b_us: 3.7, t_b_s: 122.3, n_p: 3996806, c_p_us: 7.2, t_p_s: 28.7, t_total_s: 151.0 },
        PaperPlacements { model: "X-wing", bv: Aabb, sat: Full, n_b: 92376250, c_b_us: 3.1, t_b_s: 288.8, n_p: 8601433, c_p_us: 7.1, t_p_s: 61.3, t_total_s: 350.1 },
        PaperPlacements { model: "Teapot", bv: Aabb, sat: Full, n_b: 25810569, c_b_us: 3.3, t_b_s: 84.8, n_p: 1874830, c_p_us: 7.4, t_p_s: 13.9, t_total_s: 98.7 },
        PaperPlacements { model: "Torus", bv: Obb, sat: Lite, n_b: 13116295, c_b_us: 3.7, t_b_s: 47.9, n_p: 371345, c_p_us: 12.0, t_p_s: 4.4, t_total_s: 52.3 },
        PaperPlacements { model: "X-wing", bv: Obb, sat: Lite, n_b: 65041340, c_b_us: 3.4, t_b_s: 221.4, n_p: 2451543, c_p_us: 9.3, t_p_s: 22.9, t_total_s: 244.3 },
        PaperPlacements { model: "Teapot", bv: Obb, sat: Lite, n_b: 14404588, c_b_us: 3.5, t_b_s: 50.8, n_p: 279987, c_p_us: 13.0, t_p_s: 3.5, t_total_s: 54.3 },
        PaperPlacements { model: "Torus", bv: Aabb, sat: Lite, n_b: 40238149, c_b_us: 2.4, t_b_s: 96.1, n_p: 5222836, c_p_us: 7.4, t_p_s: 38.4, t_total_s: 134.5 },
        PaperPlacements { model: "X-wing", bv: Aabb, sat: Lite, n_b: 121462120, c_b_us: 1.9, t_b_s: 236.7, n_p: 13066095, c_p_us: 7.0, t_p_s: 91.3, t_total_s: 328.0 },
        PaperPlacements { model: "Teapot", bv: Aabb, sat: Lite, n_b: 30127623, c_b_us: 2.1, t_b_s: 62.5, n_p: 2214671, c_p_us: 7.0, t_p_s: 15.6, t_total_s: 78.1 },
    ]
};

/// A column of van den Bergen's Table 3 (times of operations, same machine).
#[derive(Clone, Copy, Debug)]
struct PaperTimes {
    /// The paper's model name.
    model: &'static str,
    /// Building an OBB tree, seconds.
    build_obb_s: f64,
    /// Building an AABB tree, seconds.
    build_aabb_s: f64,
    /// Refitting an AABB tree, milliseconds.
    refit_aabb_ms: f64,
    /// Testing a pair of OBB trees, milliseconds.
    test_obb_ms: f64,
    /// Testing a pair of AABB trees, milliseconds.
    test_aabb_ms: f64,
}

/// van den Bergen's Table 3.
#[rustfmt::skip]
const PAPER_TABLE_3: [PaperTimes; 3] = [
    PaperTimes { model: "Torus", build_obb_s: 0.35, build_aabb_s: 0.11, refit_aabb_ms: 15.0, test_obb_ms: 0.5, test_aabb_ms: 1.3 },
    PaperTimes { model: "X-wing", build_obb_s: 0.46, build_aabb_s: 0.18, refit_aabb_ms: 18.0, test_obb_ms: 2.3, test_aabb_ms: 3.3 },
    PaperTimes { model: "Teapot", build_obb_s: 0.27, build_aabb_s: 0.08, refit_aabb_ms: 11.0, test_obb_ms: 0.6, test_aabb_ms: 0.8 },
];

/// One row of Tables 1/2: one model pair, one tree type, one SAT variant.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PlacementRow {
    /// Model (both objects are copies of it).
    pub model: String,
    /// Triangles of the model.
    pub triangles: usize,
    /// The trees (`obb` or `aabb` in CSV).
    pub bv: BvKind,
    /// Full SAT (15 axes) or SAT lite (6 face axes); `full` or `lite` in CSV.
    pub sat: SatMode,
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

/// The cube the origins of a model's placements are drawn in.
#[derive(Clone, Debug)]
pub struct CubeSide {
    /// Model.
    pub model: String,
    /// Side of the cube, model units (about 60% of placements collide).
    pub side: f64,
}

/// The result of `random-placements`.
#[derive(Clone, Debug)]
pub struct PlacementsResult {
    /// Tables 1 and 2: per model, OBB then AABB trees with full SAT, then with SAT lite.
    pub rows: Vec<PlacementRow>,
    /// Table 3, per model.
    pub timings: Vec<TimingRow>,
    /// Cube side per model.
    pub cube_sides: Vec<CubeSide>,
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
        normals: false,
    }
    .leaf_boxes()
}

fn collision_rate(a: &Bvh<Obb>, placements: &[Placement]) -> f64 {
    let mut r = CollisionReport::default();
    let options = first_contact(SatMode::Full);
    let hits = placements
        .iter()
        .filter(|p| {
            collide_with(
                a,
                a,
                &p.rot,
                &p.pos,
                &options,
                CollideWith::default(),
                &mut r,
            );
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

/// The queries of all placements with one tree type and SAT variant.
struct Queries {
    /// Whether each placement collides.
    hits: Vec<bool>,
    /// N_b.
    n_b: u64,
    /// N_p.
    n_p: u64,
    /// Time of all queries, seconds.
    total_s: f64,
    /// Median time of a query, microseconds.
    median_us: f64,
}

/// Runs all placements with one tree type and SAT variant (first contact), `tick` every 1,000.
fn run_all<B: BoundingVolume>(
    t: &Bvh<B>,
    placements: &[Placement],
    sat: SatMode,
    tick: &mut dyn FnMut(),
) -> Queries {
    let options = first_contact(sat);
    let mut r = CollisionReport::default();
    let (mut n_b, mut n_p) = (0, 0);
    let mut hits = Vec::with_capacity(placements.len());
    let mut times = Vec::with_capacity(placements.len());
    for (i, p) in placements.iter().enumerate() {
        let ((), seconds) = timed(|| {
            collide_with(
                t,
                t,
                &p.rot,
                &p.pos,
                &options,
                CollideWith::default(),
                &mut r,
            )
        });
        times.push(seconds);
        n_b += r.bv_tests;
        n_p += r.tri_tests;
        hits.push(r.colliding());
        if i % 1000 == 999 {
            tick();
        }
    }
    let total_s = times.iter().sum();
    Queries {
        hits,
        n_b,
        n_p,
        total_s,
        median_us: median(&mut times) * 1e6,
    }
}

/// C_b and C_p in microseconds over a sample of placements, measured as the viewer and the
/// benches measure them ([`crate::timing::sample_costs`], [`crate::query::cost`]).
fn unit_costs<B: BoundingVolume>(t: &Bvh<B>, sample: &[Placement], sat: SatMode) -> (f64, f64) {
    let overlap = first_contact(sat).overlap;
    let c = crate::timing::sample_costs(t, t, sample.iter().map(|p| (p.rot, p.pos)), &overlap);
    (c.c_v.unwrap_or(0.0) * 1e6, c.c_p.unwrap_or(0.0) * 1e6)
}

/// Sizes of a run: placements per model, and pilot placements for the cube's calibration.
fn sizes(settings: &Settings) -> (usize, usize) {
    if settings.quick {
        (4_000, 400)
    } else {
        (100_000, 2_000)
    }
}

/// Measures `random-placements`: per model, Table 3's build and refit times, then Tables 1–2.
pub(super) fn measure(
    settings: &Settings,
    progress: Progress<'_>,
) -> Result<PlacementsResult, ExperimentError> {
    let (n, _) = sizes(settings);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(settings.seed);
    let mut result = PlacementsResult {
        rows: Vec::new(),
        timings: Vec::new(),
        cube_sides: Vec::new(),
        claims: Vec::new(),
    };
    let total_ticks = (MODELS.len() * 4 * n / 1000) as u64;
    let mut ticks = 0u64;
    for model in MODELS {
        let stage = format!("random-placements {}", model.name);
        progress(&stage, ticks, total_ticks);
        let mut tick = || {
            ticks += 1;
            progress(&stage, ticks, total_ticks);
        };
        measure_model(settings, model, &mut rng, &mut tick, &mut result)?;
    }
    progress("random-placements", total_ticks, total_ticks);
    result.claims = claims(&result.rows, &result.timings);
    Ok(result)
}

/// Both trees and their build times, seconds (median of 3 builds each, alternating):
/// (OBB tree, AABB tree, OBB s, AABB s).
fn builds(mesh: &TriMesh) -> (Bvh<Obb>, Bvh<Aabb>, f64, f64) {
    let build = super::build_options();
    let (obb, s) = timed(|| Bvh::<Obb>::build(mesh.clone(), &build));
    let mut obb_s = vec![s];
    let (aabb, s) = timed(|| Bvh::<Aabb>::build(mesh.clone(), &build));
    let mut aabb_s = vec![s];
    for _ in 0..2 {
        obb_s.push(timed(|| Bvh::<Obb>::build(mesh.clone(), &build)).1);
        aabb_s.push(timed(|| Bvh::<Aabb>::build(mesh.clone(), &build)).1);
    }
    (obb, aabb, median(&mut obb_s), median(&mut aabb_s))
}

/// Refit time of an AABB tree after every vertex moved by about 1% of the model's size,
/// seconds (median of 5).
fn refit_time(aabb: &Bvh<Aabb>, mesh: &TriMesh) -> Result<f64, ExperimentError> {
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
    Ok(median(&mut refits))
}

/// One model: its Table 3 column and its four rows of Tables 1–2 (the same placements for
/// every configuration, which must all give the same answers).
fn measure_model(
    settings: &Settings,
    model: Model,
    rng: &mut Xoshiro256PlusPlus,
    tick: &mut dyn FnMut(),
    result: &mut PlacementsResult,
) -> Result<(), ExperimentError> {
    let (n, pilot_n) = sizes(settings);
    let mesh = load_centered(settings, model.file)?;
    let (obb, aabb, build_obb_s, build_aabb_s) = builds(&mesh);
    let refit_s = refit_time(&aabb, &mesh)?;
    let pilot = Draws::new(pilot_n, rng);
    let side = calibrate(&obb, &mesh, &pilot);
    result.cube_sides.push(CubeSide {
        model: model.name.into(),
        side,
    });
    let placements = Draws::new(n, rng).placements(side);
    let sample: Vec<Placement> = placements
        .iter()
        .step_by((n / 200).max(1))
        .copied()
        .collect();
    let mut rows = Vec::with_capacity(4);
    let mut truth: Option<Vec<bool>> = None;
    for sat in [SatMode::Full, SatMode::Lite] {
        for (row, hits) in [
            config_row(&obb, model, &placements, &sample, sat, tick),
            config_row(&aabb, model, &placements, &sample, sat, tick),
        ] {
            if *truth.get_or_insert_with(|| hits.clone()) != hits {
                return Err(ExperimentError::Inconsistent(format!(
                    "{}: {} trees with {sat:?} SAT disagree with OBB trees on a placement",
                    model.name, row.bv
                )));
            }
            rows.push(row);
        }
    }
    let test_ms = |bv: BvKind| {
        rows.iter()
            .find(|r| r.bv == bv && r.sat == SatMode::Full)
            .map_or(0.0, |r| r.t_total_s * 1e3 / n as f64)
    };
    result.timings.push(TimingRow {
        model: model.name.into(),
        triangles: mesh.triangle_count(),
        build_obb_s,
        build_aabb_s,
        refit_aabb_ms: refit_s * 1e3,
        test_obb_ms: test_ms(BvKind::Obb),
        test_aabb_ms: test_ms(BvKind::Aabb),
    });
    result.rows.extend(rows);
    Ok(())
}

/// The row of one tree type and SAT variant, with the per-placement answers.
fn config_row<B: BoundingVolume>(
    tree: &Bvh<B>,
    model: Model,
    placements: &[Placement],
    sample: &[Placement],
    sat: SatMode,
    tick: &mut dyn FnMut(),
) -> (PlacementRow, Vec<bool>) {
    let q = run_all(tree, placements, sat, tick);
    let (c_b, c_p) = unit_costs(tree, sample, sat);
    let row = PlacementRow {
        model: model.name.into(),
        triangles: tree.mesh().triangle_count(),
        bv: B::KIND,
        sat,
        placements: placements.len(),
        collisions: q.hits.iter().filter(|&&h| h).count(),
        n_b: q.n_b,
        c_b_us: c_b,
        t_b_s: q.n_b as f64 * c_b * 1e-6,
        n_p: q.n_p,
        c_p_us: c_p,
        t_p_s: q.n_p as f64 * c_p * 1e-6,
        t_total_s: q.total_s,
        median_query_us: q.median_us,
    };
    (row, q.hits)
}

fn row<'a>(
    rows: &'a [PlacementRow],
    model: &str,
    bv: BvKind,
    sat: SatMode,
) -> Option<&'a PlacementRow> {
    rows.iter()
        .find(|r| r.model == model && r.bv == bv && r.sat == sat)
}

fn paper_row(model: Model, bv: BvKind, sat: SatMode) -> Option<&'static PaperPlacements> {
    PAPER_TABLES_1_2
        .iter()
        .find(|p| p.model == model.paper && p.bv == bv && p.sat == sat)
}

/// Whether every row of both tables was measured (they are, by construction).
fn complete(rows: &[PlacementRow]) -> bool {
    MODELS.iter().all(|m| {
        [BvKind::Obb, BvKind::Aabb].iter().all(|&bv| {
            [SatMode::Full, SatMode::Lite]
                .iter()
                .all(|&sat| row(rows, m.name, bv, sat).is_some())
        })
    })
}

fn claims(rows: &[PlacementRow], timings: &[TimingRow]) -> Vec<Claim> {
    if !complete(rows) {
        return Vec::new();
    }
    let get = |m: &str, bv, sat| row(rows, m, bv, sat).expect("complete");
    let mut c = Vec::new();
    for m in MODELS {
        let (o, a) = (
            get(m.name, BvKind::Obb, SatMode::Full),
            get(m.name, BvKind::Aabb, SatMode::Full),
        );
        c.extend(model_claims(m, o, a));
    }
    for m in MODELS.iter().filter(|m| m.name != "f-16") {
        let o = get(m.name, BvKind::Obb, SatMode::Full);
        let per = o.n_p as f64 / o.placements as f64;
        c.push(Claim::new(
            format!(
                "{}: fewer than two triangle tests per placement with OBB trees",
                m.name
            ),
            "< 2",
            format!("{per:.2}"),
            per < 2.0,
        ));
    }
    let gain = |bv| {
        let g: Vec<f64> = MODELS
            .iter()
            .map(|m| {
                get(m.name, bv, SatMode::Full).t_total_s / get(m.name, bv, SatMode::Lite).t_total_s
                    - 1.0
            })
            .collect();
        g.iter().sum::<f64>() / g.len() as f64
    };
    let (ga, go) = (gain(BvKind::Aabb), gain(BvKind::Obb));
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
    c.extend(timings.iter().flat_map(timing_claims));
    c
}

/// Tables 1's claims for one model: OBB rows `o`, AABB rows `a` (full SAT).
fn model_claims(m: Model, o: &PlacementRow, a: &PlacementRow) -> Vec<Claim> {
    let (Some(po), Some(pa)) = (
        paper_row(m, BvKind::Obb, SatMode::Full),
        paper_row(m, BvKind::Aabb, SatMode::Full),
    ) else {
        return Vec::new();
    };
    let name = m.name;
    vec![
        Claim::new(
            format!("{name}: AABB trees need more box tests than OBB trees (N_b ratio)"),
            format!("{:.1}× ({})", pa.n_b as f64 / po.n_b as f64, m.paper),
            format!("{:.1}×", a.n_b as f64 / o.n_b as f64),
            a.n_b > o.n_b,
        ),
        Claim::new(
            format!("{name}: OBB trees need fewer triangle tests (N_p ratio)"),
            format!("{:.1}×", pa.n_p as f64 / po.n_p as f64),
            format!("{:.1}×", a.n_p as f64 / o.n_p.max(1) as f64),
            a.n_p > o.n_p,
        ),
        Claim::new(
            format!("{name}: OBB tree T_total below AABB tree's (full SAT)"),
            format!("{:.1} s vs {:.1} s", po.t_total_s, pa.t_total_s),
            format!("{:.2} s vs {:.2} s", o.t_total_s, a.t_total_s),
            o.t_total_s < a.t_total_s,
        ),
    ]
}

/// Table 3's claims for one model.
fn timing_claims(t: &TimingRow) -> [Claim; 3] {
    [
        Claim::new(
            format!(
                "{}: refitting an AABB tree is faster than rebuilding it",
                t.model
            ),
            "≈ 7–10× (Table 3, §4)",
            format!("{:.1}×", t.build_aabb_s * 1e3 / t.refit_aabb_ms),
            t.refit_aabb_ms < t.build_aabb_s * 1e3,
        ),
        Claim::new(
            format!("{}: refit AABB tree < 5% of an OBB tree build", t.model),
            "< 5% (3–4%)",
            format!("{:.1}%", 100.0 * t.refit_aabb_ms / (t.build_obb_s * 1e3)),
            t.refit_aabb_ms < 0.05 * t.build_obb_s * 1e3,
        ),
        Claim::new(
            format!(
                "{}: testing a pair of OBB trees is faster than a pair of AABB trees",
                t.model
            ),
            "yes (all three models)",
            format!("{:.3} ms vs {:.3} ms", t.test_obb_ms, t.test_aabb_ms),
            t.test_obb_ms < t.test_aabb_ms,
        ),
    ]
}

/// The (tree, SAT) configurations in the order of the tables and the plots' series.
const CONFIGS: [(BvKind, SatMode); 4] = [
    (BvKind::Obb, SatMode::Full),
    (BvKind::Aabb, SatMode::Full),
    (BvKind::Obb, SatMode::Lite),
    (BvKind::Aabb, SatMode::Lite),
];

fn sat_name(sat: SatMode) -> &'static str {
    match sat {
        SatMode::Full => "full",
        SatMode::Lite => "lite",
    }
}

/// The report of `random-placements`.
pub(super) fn report(r: &PlacementsResult) -> Result<Report, ExperimentError> {
    let mut sections = Vec::new();
    for (sat, title) in [
        (SatMode::Full, "Table 1 (full SAT)"),
        (SatMode::Lite, "Table 2 (SAT lite)"),
    ] {
        sections.push(Section::table(title, placements_table(r, sat)));
    }
    sections.push(Section::table(
        "Table 3 (times of operations)",
        times_table(r),
    ));
    Ok(Report {
        experiment: super::Experiment::RandomPlacements,
        title: "Random placements: AABB trees vs OBB trees".into(),
        source:
            "van den Bergen 1998, \"Efficient collision detection of complex deformable models \
                 using AABB trees\", §5, Tables 1–3"
                .into(),
        setup: setup(r),
        csv: vec![
            CsvFile::new("random-placements.csv", &r.rows)?,
            CsvFile::new("random-placements-times.csv", &r.timings)?,
        ],
        figures: vec![
            bars(
                r,
                "random-placements-box-tests",
                "Random placements: box tests N_b (van den Bergen Tables 1–2)",
                "box tests over all placements",
                |x| x.n_b as f64,
            ),
            bars(
                r,
                "random-placements-time",
                "Random placements: T_total, seconds",
                "seconds for all placements",
                |x| x.t_total_s,
            ),
        ],
        claims: r.claims.clone(),
        sections,
    })
}

fn setup(r: &PlacementsResult) -> String {
    let n = r.rows.first().map_or(0, |x| x.placements);
    let sides: Vec<String> = r
        .cube_sides
        .iter()
        .map(|c| format!("{} {:.3}", c.model, c.side))
        .collect();
    format!(
        "Each model against a copy of itself (the f-16 stands in for his slender X-wing), {} random \
         placements: both models at Shoemake-uniform random rotations, their origins (the centres of \
         their bounding boxes) uniform in a cube sized by bisection on a pilot sample so that about \
         60% of placements collide (sides: {}). One first-contact query per placement (\"tested for \
         intersection\"); both tree types are built by the same top-down process (split \
         at the centroids' mean along the best axis; the AABB tree with identity axes). C_b and C_p are measured on 200 sampled placements by timing \
         three walks of each query (set-up, boxes only, all contacts: `obbtree::query::cost`); T_b = N_b·C_b and T_p = N_p·C_p as in \
         his tables, while T_total is the measured time of all queries (it includes the traversal \
         itself). Paper: Sun UltraSPARC-I, 167 MHz; ours: this machine.",
        thousands(n as u64),
        sides.join(", ")
    )
}

/// A bar plot: one series per (tree, SAT) configuration, one bar per model.
fn bars(
    r: &PlacementsResult,
    stem: &str,
    title: &str,
    y_label: &str,
    value: fn(&PlacementRow) -> f64,
) -> Figure {
    let series = CONFIGS
        .iter()
        .map(|&(bv, sat)| {
            (
                format!("{} tree, {} SAT", bv.name().to_uppercase(), sat_name(sat)),
                MODELS
                    .iter()
                    .map(|m| row(&r.rows, m.name, bv, sat).map_or(0.0, value))
                    .collect(),
            )
        })
        .collect();
    Figure {
        stem: stem.into(),
        plot: Plot::Bar(BarPlot {
            title: title.into(),
            y_label: y_label.into(),
            log_y: false,
            groups: MODELS.iter().map(|m| m.name.to_string()).collect(),
            series,
        }),
    }
}

/// Table 1 or 2: the paper's row above ours for each tree type and model.
fn placements_table(r: &PlacementsResult, sat: SatMode) -> Table {
    let mut rows = Vec::new();
    for bv in [BvKind::Obb, BvKind::Aabb] {
        let tree = bv.name().to_uppercase();
        for m in MODELS {
            if let Some(p) = paper_row(m, bv, sat) {
                rows.push(vec![
                    format!("{tree} {} (paper)", m.paper),
                    "–".into(),
                    thousands(p.n_b),
                    format!("{}", p.c_b_us),
                    format!("{}", p.t_b_s),
                    thousands(p.n_p),
                    format!("{}", p.c_p_us),
                    format!("{}", p.t_p_s),
                    format!("{}", p.t_total_s),
                ]);
            }
            if let Some(o) = row(&r.rows, m.name, bv, sat) {
                rows.push(vec![
                    format!("{tree} {} (ours)", m.name),
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
    }
    Table::new(
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
        rows,
    )
}

/// Table 3: the paper's column above ours for each model.
fn times_table(r: &PlacementsResult) -> Table {
    let mut rows = Vec::new();
    for (m, t) in MODELS.iter().zip(&r.timings) {
        if let Some(p) = PAPER_TABLE_3.iter().find(|p| p.model == m.paper) {
            rows.push(vec![
                format!("{} (paper)", p.model),
                format!("{} s", p.build_obb_s),
                format!("{} s", p.build_aabb_s),
                format!("{} ms", p.refit_aabb_ms),
                format!("{} ms", p.test_obb_ms),
                format!("{} ms", p.test_aabb_ms),
            ]);
        }
        rows.push(vec![
            format!("{} ({} triangles, ours)", t.model, t.triangles),
            format!("{:.4} s", t.build_obb_s),
            format!("{:.4} s", t.build_aabb_s),
            format!("{:.3} ms", t.refit_aabb_ms),
            format!("{:.4} ms", t.test_obb_ms),
            format!("{:.4} ms", t.test_aabb_ms),
        ]);
    }
    Table::new(
        &[
            "model",
            "build OBB tree",
            "build AABB tree",
            "refit AABB tree",
            "test OBB pair",
            "test AABB pair",
        ],
        rows,
    )
}
