//! Nine models in coherent random motion, all 36 pairs queried each step: the top-down traversal
//! against separation lists, without and with deferred rebuilds (Li & Chen §4–§5, Table 1),
//! for sphere, OBB and AABB trees. Three settings: Li & Chen's own (nine ~500-polygon bunnies,
//! 5° steps), and nine `spot` cows (5,856 triangles) at 5° and at 1°.

use super::plot::{LinePlot, Plot, Series};
use super::report::{CsvFile, Figure, Report, Section, Table, thousands};
use super::{Claim, Experiment, ExperimentError, Progress, Settings, load_centered, shoemake};
use crate::bv::{Aabb, BoundingVolume, BvKind, Obb, Sphere};
use crate::bvh::Bvh;
use crate::math::{Isometry, Matrix3, UnitQuaternion, Vector, relative_pose};
use crate::query::{
    CollideWith, CollisionReport, QueryOptions, SeparationList, SeparationPolicy, collide_with,
};
use crate::timing::timed;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

const OBJECTS: usize = 9;

/// One setting of the experiment: a model and a rotation per step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeparationSetting {
    /// The model's file in the models folder.
    pub file: &'static str,
    /// The model's name in the CSV and the tables.
    pub model: &'static str,
    /// Rotation per step, degrees.
    pub rotation_deg: f64,
    /// The part of the plots' file names naming the setting (`separation-list-{bv}-{stem}`).
    pub stem: &'static str,
}

/// `spot` at the paper's 5° and at 1° (a more coherent motion for a model ten times finer than
/// the paper's), then Li & Chen's own setting (§5.2: nine bunnies of 500 polygons, 5° per step;
/// ours is the Stanford bunny decimated to 499 triangles, see tests/data/SOURCES.md).
pub const SETTINGS: [SeparationSetting; 3] = [
    SeparationSetting {
        file: "spot.obj",
        model: "spot",
        rotation_deg: 5.0,
        stem: "5deg",
    },
    SeparationSetting {
        file: "spot.obj",
        model: "spot",
        rotation_deg: 1.0,
        stem: "1deg",
    },
    SeparationSetting {
        file: "bunny-500.obj",
        model: "bunny-500",
        rotation_deg: 5.0,
        stem: "bunny-500-5deg",
    },
];

/// The tree kinds, in the order of the rows.
const KINDS: [BvKind; 3] = [BvKind::Sphere, BvKind::Obb, BvKind::Aabb];

/// A run of Li & Chen's Table 1 (sphere trees, 133 MHz AMD K5), seconds.
#[derive(Clone, Copy, Debug)]
struct PaperRun {
    /// Top-down (§3.3, Fig. 1).
    top_down_s: f64,
    /// "Using SL" (§4.3, Fig. 4a).
    sl_s: f64,
    /// "Deferred SL" (§4.4, Fig. 4b).
    deferred_s: f64,
}

/// Li & Chen's Table 1: ten runs.
#[rustfmt::skip]
const PAPER_TABLE_1: [PaperRun; 10] = [
    PaperRun { top_down_s: 1507.9, sl_s: 1075.7, deferred_s: 759.2 },
    PaperRun { top_down_s: 1744.0, sl_s: 1252.2, deferred_s: 1021.7 },
    PaperRun { top_down_s: 1552.8, sl_s: 1077.7, deferred_s: 781.5 },
    PaperRun { top_down_s: 1713.0, sl_s: 1177.3, deferred_s: 980.1 },
    PaperRun { top_down_s: 1548.4, sl_s: 1080.5, deferred_s: 808.2 },
    PaperRun { top_down_s: 1653.4, sl_s: 1168.3, deferred_s: 969.5 },
    PaperRun { top_down_s: 1403.0, sl_s: 1021.2, deferred_s: 687.5 },
    PaperRun { top_down_s: 1570.5, sl_s: 1120.2, deferred_s: 831.4 },
    PaperRun { top_down_s: 1564.9, sl_s: 1163.1, deferred_s: 900.4 },
    PaperRun { top_down_s: 1580.5, sl_s: 1139.2, deferred_s: 865.7 },
];

/// One run (seed) of one setting with one tree type and one policy.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SeparationRow {
    /// The model (nine copies of it): `bunny-500` or `spot`.
    pub model: &'static str,
    /// Rotation per step, degrees (the paper's 5°, and 1° for more coherent motion).
    pub rotation_deg: f64,
    /// Run number, 1-based (seed = base seed + run).
    pub run: usize,
    /// The trees (`sphere`, `obb` or `aabb` in CSV).
    pub bv: BvKind,
    /// `top-down`, `predicted` (Fig. 4a, "Using SL") or `deferred` (Fig. 4b) in CSV.
    pub policy: SeparationPolicy,
    /// Steps (each queries all 36 pairs).
    pub steps: usize,
    /// Steps whose move was rejected because a pair would collide.
    pub rejected: usize,
    /// Bounding volume tests over all queries, N_v.
    pub bv_tests: u64,
    /// Triangle tests over all queries, N_p.
    pub tri_tests: u64,
    /// Queries that started from the root pair.
    pub rebuilds: u64,
    /// Wall time of all queries, seconds.
    pub seconds: f64,
    /// Speedup over top-down in time (T_top-down / T − 1), as Li & Chen define it.
    pub speedup_time: f64,
    /// Speedup over top-down in volume tests (N_v top-down / N_v − 1).
    pub speedup_tests: f64,
}

/// What a setting's model is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingModel {
    /// The setting.
    pub setting: SeparationSetting,
    /// Triangles of the model.
    pub triangles: usize,
    /// Nodes of its sphere tree (Li & Chen's bunny: 3,747 spheres).
    pub sphere_nodes: usize,
    /// Translation per step: the radius of the smallest leaf sphere, model units.
    pub step_translation: f64,
}

/// The result of `separation-list`.
#[derive(Clone, Debug)]
pub struct SeparationResult {
    /// Per setting, its model's sizes and step.
    pub settings: Vec<SettingModel>,
    /// One row per setting, run, tree type and policy.
    pub rows: Vec<SeparationRow>,
    /// The summary's claims table.
    pub claims: Vec<Claim>,
}

/// A recorded motion: per step, each pair's relative pose at the proposed poses (B in A's
/// frame, in [`pairs`] order) and whether the pair collides there (any collision rejects the
/// step).
struct Motion {
    relative: Vec<[(Matrix3, Vector); 36]>,
    colliding: Vec<[bool; 36]>,
}

fn pairs() -> impl Iterator<Item = (usize, usize)> {
    (0..OBJECTS).flat_map(|i| (i + 1..OBJECTS).map(move |j| (i, j)))
}

fn relative(poses: &[Isometry; OBJECTS], i: usize, j: usize) -> (Matrix3, Vector) {
    let ab = relative_pose(&poses[i], &poses[j]);
    (
        *ab.rotation.to_rotation_matrix().matrix(),
        ab.translation.vector,
    )
}

/// A small random move: a translation of length `step` in a uniform direction, and a rotation
/// of `deg` degrees about a uniform axis through the model's origin.
fn perturb(pose: &Isometry, step: f64, deg: f64, rng: &mut Xoshiro256PlusPlus) -> Isometry {
    let dir = shoemake(rng) * Vector::x();
    let axis = shoemake(rng) * Vector::z();
    let turn = UnitQuaternion::from_scaled_axis(axis * deg.to_radians());
    Isometry::from_parts(
        (pose.translation.vector + dir * step).into(),
        turn * pose.rotation,
    )
}

/// Records the motion of one run with OBB trees and first-contact queries: nine copies in a
/// 3 × 3 grid, as close as they can start without touching; every step each model proposes a
/// move, all 36 pairs are queried at the proposed poses, and if any pair collides the whole
/// step is rejected (every model stays).
fn record(tree: &Bvh<Obb>, steps: usize, step: f64, deg: f64, seed: u64) -> Motion {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (lo, hi) = tree.mesh().bounds();
    let size = (hi - lo).norm();
    let rotations: Vec<UnitQuaternion> = (0..OBJECTS).map(|_| shoemake(&mut rng)).collect();
    let options = QueryOptions::first_contact().leaf_boxes();
    let mut r = CollisionReport::default();
    let any_collision = |poses: &[Isometry; OBJECTS], r: &mut CollisionReport| {
        pairs().any(|(i, j)| {
            let (rot, pos) = relative(poses, i, j);
            collide_with(tree, tree, &rot, &pos, &options, CollideWith::default(), r);
            r.colliding()
        })
    };
    let mut spacing = 0.3 * size;
    let mut poses = loop {
        let poses: [Isometry; OBJECTS] = std::array::from_fn(|k| {
            let (x, y) = ((k % 3) as f64 - 1.0, (k / 3) as f64 - 1.0);
            Isometry::from_parts(
                Vector::new(x * spacing, y * spacing, 0.0).into(),
                rotations[k],
            )
        });
        if !any_collision(&poses, &mut r) {
            break poses;
        }
        spacing *= 1.02;
    };
    let mut motion = Motion {
        relative: Vec::with_capacity(steps),
        colliding: Vec::with_capacity(steps),
    };
    for _ in 0..steps {
        let proposal: [Isometry; OBJECTS] =
            std::array::from_fn(|k| perturb(&poses[k], step, deg, &mut rng));
        let mut rel = [(Matrix3::identity(), Vector::zeros()); 36];
        let mut hits = [false; 36];
        for (k, (i, j)) in pairs().enumerate() {
            rel[k] = relative(&proposal, i, j);
            collide_with(
                tree,
                tree,
                &rel[k].0,
                &rel[k].1,
                &options,
                CollideWith::default(),
                &mut r,
            );
            hits[k] = r.colliding();
        }
        if !hits.iter().any(|&h| h) {
            poses = proposal;
        }
        motion.relative.push(rel);
        motion.colliding.push(hits);
    }
    motion
}

/// The counts and time of a replay.
struct Replay {
    /// N_v.
    bv_tests: u64,
    /// N_p.
    tri_tests: u64,
    /// Queries that started from the root pair.
    rebuilds: u64,
    /// Time of all queries.
    seconds: f64,
}

/// Replays a recorded motion with one tree type and policy; every answer must be the
/// recorded one.
fn replay<B: BoundingVolume>(
    tree: &Bvh<B>,
    motion: &Motion,
    policy: SeparationPolicy,
) -> Result<Replay, ExperimentError> {
    let options = QueryOptions::first_contact().leaf_boxes();
    let mut lists: Vec<SeparationList> = (0..36).map(|_| SeparationList::new(policy)).collect();
    let mut r = CollisionReport::default();
    let (mut nv, mut np) = (0u64, 0u64);
    let mut seconds = 0.0;
    for (step, (rel, truth)) in motion.relative.iter().zip(&motion.colliding).enumerate() {
        let mut hits = [false; 36];
        let ((), step_seconds) = timed(|| {
            for (k, (rot, pos)) in rel.iter().enumerate() {
                if policy == SeparationPolicy::TopDown {
                    collide_with(
                        tree,
                        tree,
                        rot,
                        pos,
                        &options,
                        CollideWith::default(),
                        &mut r,
                    );
                } else {
                    collide_with(
                        tree,
                        tree,
                        rot,
                        pos,
                        &options,
                        CollideWith::separation(&mut lists[k]),
                        &mut r,
                    );
                }
                hits[k] = r.colliding();
                nv += r.bv_tests;
                np += r.tri_tests;
            }
        });
        seconds += step_seconds;
        if hits != *truth {
            return Err(ExperimentError::Inconsistent(format!(
                "{} trees, {} policy: step {step} answers differ from the recorded motion",
                B::KIND.name(),
                policy.name()
            )));
        }
    }
    let rebuilds = if policy == SeparationPolicy::TopDown {
        (motion.relative.len() * 36) as u64
    } else {
        lists.iter().map(|l| l.rebuilds()).sum()
    };
    Ok(Replay {
        bv_tests: nv,
        tri_tests: np,
        rebuilds,
        seconds,
    })
}

/// The trees of one model.
struct Trees {
    obb: Bvh<Obb>,
    aabb: Bvh<Aabb>,
    sphere: Bvh<Sphere>,
}

impl Trees {
    fn build(mesh: &crate::mesh::TriMesh) -> Self {
        let build = super::build_options();
        Trees {
            obb: Bvh::build(mesh.clone(), &build),
            aabb: Bvh::build(mesh.clone(), &build),
            sphere: Bvh::build(mesh.clone(), &build),
        }
    }

    /// The radius of the smallest leaf sphere.
    fn smallest_leaf_radius(&self) -> f64 {
        self.sphere
            .nodes()
            .iter()
            .filter(|n| n.is_leaf())
            .map(|n| n.bv.as_box().2.x)
            .fold(f64::INFINITY, f64::min)
            .max(1e-9)
    }

    fn replay(
        &self,
        kind: BvKind,
        motion: &Motion,
        policy: SeparationPolicy,
    ) -> Result<Replay, ExperimentError> {
        match kind {
            BvKind::Sphere => replay(&self.sphere, motion, policy),
            BvKind::Obb => replay(&self.obb, motion, policy),
            BvKind::Aabb => replay(&self.aabb, motion, policy),
        }
    }
}

/// Runs and steps per run: the paper's 10 × 1,000, or 2 × 200 quick.
fn sizes(settings: &Settings) -> (usize, usize) {
    if settings.quick { (2, 200) } else { (10, 1000) }
}

/// Measures `separation-list`: every setting, run, tree type and policy.
pub(super) fn measure(
    settings: &Settings,
    progress: Progress<'_>,
) -> Result<SeparationResult, ExperimentError> {
    let (runs, _) = sizes(settings);
    let spot = load_centered(settings, "spot.obj")?;
    let bunny = load_centered(settings, "bunny-500.obj")?;
    let (spot, bunny) = (Trees::build(&spot), Trees::build(&bunny));
    let total = (SETTINGS.len() * runs * (1 + KINDS.len() * 3)) as u64;
    let mut done = 0u64;
    let mut models = Vec::new();
    let mut rows = Vec::new();
    for setting in SETTINGS {
        let trees = if setting.file == "spot.obj" {
            &spot
        } else {
            &bunny
        };
        models.push(SettingModel {
            setting,
            triangles: trees.obb.mesh().triangle_count(),
            sphere_nodes: trees.sphere.nodes().len(),
            step_translation: trees.smallest_leaf_radius(),
        });
        for run in 1..=runs {
            let stage = format!(
                "separation-list {} {}° run {run}/{runs}",
                setting.model, setting.rotation_deg
            );
            let mut tick = || {
                done += 1;
                progress(&stage, done, total);
            };
            rows.extend(measure_run(settings, setting, trees, run, &mut tick)?);
        }
    }
    progress("separation-list", total, total);
    let claims = claims(&rows);
    Ok(SeparationResult {
        settings: models,
        rows,
        claims,
    })
}

/// One run of a setting: the motion recorded once, replayed by every tree type and policy.
fn measure_run(
    settings: &Settings,
    setting: SeparationSetting,
    trees: &Trees,
    run: usize,
    tick: &mut dyn FnMut(),
) -> Result<Vec<SeparationRow>, ExperimentError> {
    let (_, steps) = sizes(settings);
    let step = trees.smallest_leaf_radius();
    let seed = settings.seed + run as u64;
    let motion = record(&trees.obb, steps, step, setting.rotation_deg, seed);
    tick();
    let rejected = motion
        .colliding
        .iter()
        .filter(|h| h.iter().any(|&x| x))
        .count();
    let mut rows = Vec::new();
    for bv in KINDS {
        let mut base: Option<(u64, f64)> = None;
        for policy in SeparationPolicy::ALL {
            let r = trees.replay(bv, &motion, policy)?;
            let (base_tests, base_s) = *base.get_or_insert((r.bv_tests, r.seconds));
            rows.push(SeparationRow {
                model: setting.model,
                rotation_deg: setting.rotation_deg,
                run,
                bv,
                policy,
                steps,
                rejected,
                bv_tests: r.bv_tests,
                tri_tests: r.tri_tests,
                rebuilds: r.rebuilds,
                seconds: r.seconds,
                speedup_time: base_s / r.seconds - 1.0,
                speedup_tests: base_tests as f64 / r.bv_tests.max(1) as f64 - 1.0,
            });
            tick();
        }
    }
    Ok(rows)
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    s / n.max(1) as f64
}

/// The rows of one setting, tree type and policy.
fn select<'a>(
    rows: &'a [SeparationRow],
    setting: &SeparationSetting,
    bv: BvKind,
    policy: SeparationPolicy,
) -> impl Iterator<Item = &'a SeparationRow> {
    let (model, deg) = (setting.model, setting.rotation_deg);
    rows.iter().filter(move |r| {
        r.model == model && r.rotation_deg == deg && r.bv == bv && r.policy == policy
    })
}

/// The mean of `f` over the runs of one setting, tree type and policy.
fn avg(
    rows: &[SeparationRow],
    setting: &SeparationSetting,
    bv: BvKind,
    policy: SeparationPolicy,
    f: impl Fn(&SeparationRow) -> f64,
) -> f64 {
    mean(select(rows, setting, bv, policy).map(f))
}

/// N_v summed over the runs of one setting, tree type and policy.
fn total_tests(
    rows: &[SeparationRow],
    setting: &SeparationSetting,
    bv: BvKind,
    policy: SeparationPolicy,
) -> u64 {
    select(rows, setting, bv, policy).map(|r| r.bv_tests).sum()
}

/// The paper's mean speedups: (Using SL, Deferred SL).
fn paper_speedups() -> (f64, f64) {
    let sl = mean(PAPER_TABLE_1.iter().map(|p| p.top_down_s / p.sl_s - 1.0));
    let dsl = mean(
        PAPER_TABLE_1
            .iter()
            .map(|p| p.top_down_s / p.deferred_s - 1.0),
    );
    (sl, dsl)
}

/// A setting's label in claims and tables: `bunny-500, 5°`.
fn label(s: &SeparationSetting) -> String {
    format!("{}, {}°", s.model, s.rotation_deg)
}

fn claims(rows: &[SeparationRow]) -> Vec<Claim> {
    use SeparationPolicy::{Deferred, Predicted, TopDown};
    let (psl, pdsl) = paper_speedups();
    let mut c = Vec::new();
    for setting in &SETTINGS {
        let at = label(setting);
        for bv in KINDS {
            let (td, dsl) = (
                total_tests(rows, setting, bv, TopDown),
                total_tests(rows, setting, bv, Deferred),
            );
            let s_sl = avg(rows, setting, bv, Predicted, |r| r.speedup_time);
            let s_dsl = avg(rows, setting, bv, Deferred, |r| r.speedup_time);
            c.push(Claim::new(
                format!("{at}, {bv} trees: the deferred separation list does fewer volume tests than top-down"),
                "yes (its purpose, §4)",
                format!(
                    "{} vs {} ({:+.0}%)",
                    thousands(dsl),
                    thousands(td),
                    avg(rows, setting, bv, Deferred, |r| r.speedup_tests) * 100.0
                ),
                dsl < td,
            ));
            c.push(Claim::new(
                format!("{at}, {bv} trees: the separation list (Fig. 4a) is faster than top-down (mean time speedup)"),
                format!("{:+.0}% (sphere trees, 5°)", psl * 100.0),
                format!("{:+.0}%", s_sl * 100.0),
                s_sl > 0.0,
            ));
            c.push(Claim::new(
                format!(
                    "{at}, {bv} trees: deferred rebuilds (Fig. 4b) beat Fig. 4a (mean time speedup)"
                ),
                format!("{:+.0}% vs {:+.0}%", pdsl * 100.0, psl * 100.0),
                format!("{:+.0}% vs {:+.0}%", s_dsl * 100.0, s_sl * 100.0),
                s_dsl > s_sl,
            ));
        }
    }
    c
}

/// The setting of Li & Chen's own experiment.
fn paper_setting() -> &'static SeparationSetting {
    &SETTINGS[2]
}

/// The report of `separation-list`.
pub(super) fn report(r: &SeparationResult) -> Result<Report, ExperimentError> {
    let figures = SETTINGS
        .iter()
        .flat_map(|s| KINDS.map(|bv| figure(r, s, bv)))
        .collect();
    Ok(Report {
        experiment: Experiment::SeparationList,
        title: "Separation lists: top-down vs incremental".into(),
        source: "Li & Chen, \"Incremental 3D collision detection with hierarchical data \
                 structures\", §4–§5, Table 1"
            .into(),
        setup: setup(r),
        csv: vec![CsvFile::new("separation-list.csv", &r.rows)?],
        figures,
        claims: r.claims.clone(),
        sections: vec![
            Section {
                heading: "At the paper's setting: nine 500-polygon bunnies, 5° steps".into(),
                text: Some(verdict(r)),
                table: Some(paper_setting_table(r)),
            },
            Section::table(
                "Table 1, per setting and tree type (means over runs)",
                means_table(r),
            ),
            Section::table("Per run", runs_table(r)),
        ],
    })
}

fn setup(r: &SeparationResult) -> String {
    let runs = r.rows.iter().map(|x| x.run).max().unwrap_or(0);
    let steps = r.rows.first().map_or(0, |x| x.steps);
    let models: Vec<String> = r
        .settings
        .iter()
        .filter(|m| m.setting.rotation_deg == 5.0)
        .map(|m| {
            format!(
                "`{}` ({} triangles, {} spheres in its tree, translation step {:.5})",
                m.setting.model,
                thousands(m.triangles as u64),
                thousands(m.sphere_nodes as u64),
                m.step_translation
            )
        })
        .collect();
    format!(
        "Nine copies of one model, {runs} runs of {steps} steps per setting (the paper: nine \
         500-polygon bunnies covered by 3,747 spheres, 10 runs of 1,000 steps, 5° per step). Three \
         settings: the paper's own, with the Stanford bunny decimated to about 500 triangles \
         (`bunny-500`, tests/data/SOURCES.md), and `spot`, ten times finer, at 5° and at 1° (a \
         more coherent motion: at 5° its surface moves by many leaf sizes per step). Models: {}. \
         The copies start in a 3 × 3 grid at random orientations, as close as they can without \
         touching. Every step each copy proposes a random move — a translation of the smallest \
         leaf sphere's radius in a uniform direction and a rotation about a uniform axis — and all \
         36 pairs are queried (first contact) at the proposed poses; if any pair would collide, \
         the step is rejected. The motion is recorded once per run and replayed by every tree \
         type and policy, which must give the same answer on every query. Policies: top-down \
         (§3.3, Fig. 1), separation list rebuilt once it stops growing (§4.3, Fig. 4a: the \
         paper's \"Using SL\"), and the same with the rebuild deferred until the list has not \
         grown for two queries (§4.4, Fig. 4b). Speedup = T_top-down / T − 1, as the paper \
         defines it. Paper: 133 MHz AMD K5, sphere trees only.",
        models.join("; ")
    )
}

/// Li & Chen's claim at their own setting: for sphere trees (theirs), whether each list policy
/// beats the top-down traversal in volume tests and in time, and the verdict.
fn verdict(r: &SeparationResult) -> String {
    use SeparationPolicy::{Deferred, Predicted};
    let s = paper_setting();
    let (psl, pdsl) = paper_speedups();
    let sphere = BvKind::Sphere;
    let beats: Vec<(SeparationPolicy, f64, f64)> = [Predicted, Deferred]
        .into_iter()
        .map(|p| {
            let (tests, time) = (
                avg(&r.rows, s, sphere, p, |x| x.speedup_tests),
                avg(&r.rows, s, sphere, p, |x| x.speedup_time),
            );
            (p, tests, time)
        })
        .collect();
    let wins = beats
        .iter()
        .flat_map(|b| [b.1 > 0.0, b.2 > 0.0])
        .filter(|&w| w)
        .count();
    let word = match wins {
        4 => "holds",
        0 => "does not hold",
        _ => "holds only in part",
    };
    let figures: Vec<String> = beats
        .iter()
        .map(|(p, tests, time)| {
            format!(
                "{} {:+.0}% in volume tests and {:+.0}% in time",
                if *p == Predicted {
                    "the separation list (Fig. 4a)"
                } else {
                    "the deferred list (Fig. 4b)"
                },
                tests * 100.0,
                time * 100.0
            )
        })
        .collect();
    format!(
        "Li & Chen's claim, that separation lists beat the top-down traversal (Table 1, sphere \
         trees: {:+.0}% in time with the list, {:+.0}% with the deferred list), **{word}** at \
         their setting here. Speedups over top-down (T_top-down / T − 1, and likewise for volume \
         tests), sphere trees, means over the runs: {}. Volume tests are the machine-independent \
         part of the claim; the times are this machine's, for far fewer tests per query than the \
         paper's 1998 machine made. All tree types, in the table below and in the claims table.",
        psl * 100.0,
        pdsl * 100.0,
        figures.join("; ")
    )
}

/// Li & Chen's setting: per tree type and policy, volume tests and time (means over runs).
fn paper_setting_table(r: &SeparationResult) -> Table {
    let s = paper_setting();
    let (psl, pdsl) = paper_speedups();
    let paper_mean = |f: fn(&PaperRun) -> f64| mean(PAPER_TABLE_1.iter().map(f));
    let mut rows = vec![
        vec![
            "sphere (paper)".into(),
            "top-down".into(),
            "–".into(),
            "–".into(),
            format!("{:.1} s", paper_mean(|p| p.top_down_s)),
            "–".into(),
        ],
        vec![
            "sphere (paper)".into(),
            "separation list".into(),
            "–".into(),
            "–".into(),
            format!("{:.1} s", paper_mean(|p| p.sl_s)),
            format!("{:+.0}%", psl * 100.0),
        ],
        vec![
            "sphere (paper)".into(),
            "deferred".into(),
            "–".into(),
            "–".into(),
            format!("{:.1} s", paper_mean(|p| p.deferred_s)),
            format!("{:+.0}%", pdsl * 100.0),
        ],
    ];
    for bv in KINDS {
        for p in SeparationPolicy::ALL {
            let avg = |f: fn(&SeparationRow) -> f64| avg(&r.rows, s, bv, p, f);
            rows.push(vec![
                format!("{bv} (ours)"),
                p.name().into(),
                thousands(avg(|x| x.bv_tests as f64).round() as u64),
                format!("{:+.0}%", avg(|x| x.speedup_tests) * 100.0),
                format!("{:.4} s", avg(|x| x.seconds)),
                format!("{:+.0}%", avg(|x| x.speedup_time) * 100.0),
            ]);
        }
    }
    Table::new(
        &[
            "trees",
            "policy",
            "N_v per run",
            "speedup in N_v",
            "time per run",
            "speedup in time",
        ],
        rows,
    )
}

fn figure(r: &SeparationResult, s: &SeparationSetting, bv: BvKind) -> Figure {
    let series = SeparationPolicy::ALL
        .iter()
        .map(|&p| Series {
            name: match p {
                SeparationPolicy::TopDown => "top-down".into(),
                SeparationPolicy::Predicted => "separation list (Fig. 4a)".into(),
                SeparationPolicy::Deferred => "deferred separation list (Fig. 4b)".into(),
            },
            points: select(&r.rows, s, bv, p)
                .map(|x| (x.run as f64, x.seconds))
                .collect(),
        })
        .collect();
    Figure {
        stem: format!("separation-list-{bv}-{}", s.stem),
        plot: Plot::Line(LinePlot {
            title: format!(
                "{} trees, {}: time of all queries per run (Li & Chen Table 1)",
                bv.name().to_uppercase(),
                label(s)
            ),
            x_label: "run (seed)".into(),
            y_label: "seconds".into(),
            log_x: false,
            log_y: false,
            series,
        }),
    }
}

fn means_table(r: &SeparationResult) -> Table {
    use SeparationPolicy::{Deferred, Predicted, TopDown};
    let (psl, pdsl) = paper_speedups();
    let paper_mean = |f: fn(&PaperRun) -> f64| mean(PAPER_TABLE_1.iter().map(f));
    let mut rows = vec![vec![
        "bunny (500 polygons), 5°, sphere (paper)".into(),
        "–".into(),
        format!("{:.1} s", paper_mean(|p| p.top_down_s)),
        format!("{:.1} s", paper_mean(|p| p.sl_s)),
        format!("{:+.0}%", psl * 100.0),
        "–".into(),
        format!("{:.1} s", paper_mean(|p| p.deferred_s)),
        format!("{:+.0}%", pdsl * 100.0),
        "–".into(),
    ]];
    for s in &SETTINGS {
        for bv in KINDS {
            let avg = |p, f: fn(&SeparationRow) -> f64| avg(&r.rows, s, bv, p, f);
            rows.push(vec![
                format!("{}, {bv} (ours)", label(s)),
                thousands(avg(TopDown, |x| x.bv_tests as f64) as u64),
                format!("{:.3} s", avg(TopDown, |x| x.seconds)),
                format!("{:.3} s", avg(Predicted, |x| x.seconds)),
                format!("{:+.0}%", avg(Predicted, |x| x.speedup_time) * 100.0),
                format!("{:+.0}%", avg(Predicted, |x| x.speedup_tests) * 100.0),
                format!("{:.3} s", avg(Deferred, |x| x.seconds)),
                format!("{:+.0}%", avg(Deferred, |x| x.speedup_time) * 100.0),
                format!("{:+.0}%", avg(Deferred, |x| x.speedup_tests) * 100.0),
            ]);
        }
    }
    Table::new(
        &[
            "setting, trees",
            "top-down N_v",
            "top-down time",
            "SL time",
            "SL speedup",
            "SL speedup in N_v",
            "deferred SL time",
            "deferred speedup",
            "deferred speedup in N_v",
        ],
        rows,
    )
}

fn runs_table(r: &SeparationResult) -> Table {
    let rows = r
        .rows
        .iter()
        .map(|x| {
            vec![
                x.model.to_string(),
                format!("{}°", x.rotation_deg),
                x.run.to_string(),
                x.bv.to_string(),
                x.policy.name().to_string(),
                x.rejected.to_string(),
                thousands(x.bv_tests),
                thousands(x.tri_tests),
                thousands(x.rebuilds),
                format!("{:.4}", x.seconds),
                format!("{:+.0}%", x.speedup_time * 100.0),
                format!("{:+.0}%", x.speedup_tests * 100.0),
            ]
        })
        .collect();
    Table::new(
        &[
            "model",
            "rotation",
            "run",
            "trees",
            "policy",
            "rejected steps",
            "N_v",
            "N_p",
            "rebuilds",
            "seconds",
            "speedup",
            "speedup in N_v",
        ],
        rows,
    )
}
