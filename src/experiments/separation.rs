//! Nine models in coherent random motion, all 36 pairs queried each step: the top-down traversal
//! against separation lists, without and with deferred rebuilds (Li & Chen §4–§5, Table 1),
//! for sphere, OBB and AABB trees.

use super::plot::{LinePlot, Series, line_plot};
use super::{
    Claim, ExperimentError, Progress, Settings, Summary, load_centered, shoemake, thousands,
    write_csv,
};
use crate::bv::{Aabb, BoundingVolume, Obb, Sphere};
use crate::bvh::{BuildOptions, Bvh};
use crate::math::{Isometry, Matrix3, UnitQuaternion, Vector, relative_pose};
use crate::query::{
    CollisionReport, QueryOptions, SeparationList, SeparationPolicy, collide_incremental,
    collide_relative,
};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use std::time::Instant;

/// The model (a small real mesh from tests/data).
const MODEL: &str = "spot.obj";
const OBJECTS: usize = 9;
/// Rotation per step, degrees: the paper's 5°, and 1°, a more coherent motion for a model
/// ten times finer than the paper's 500-polygon bunny.
pub const ROTATIONS: [f64; 2] = [5.0, 1.0];

/// Li & Chen's Table 1: run → (top-down s, SL s, deferred SL s) on a 133 MHz AMD K5.
const PAPER: [(f64, f64, f64); 10] = [
    (1507.9, 1075.7, 759.2),
    (1744.0, 1252.2, 1021.7),
    (1552.8, 1077.7, 781.5),
    (1713.0, 1177.3, 980.1),
    (1548.4, 1080.5, 808.2),
    (1653.4, 1168.3, 969.5),
    (1403.0, 1021.2, 687.5),
    (1570.5, 1120.2, 831.4),
    (1564.9, 1163.1, 900.4),
    (1580.5, 1139.2, 865.7),
];

/// One run (seed) with one tree type and one policy.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SeparationRow {
    /// Rotation per step, degrees (the paper's 5°, and 1° for more coherent motion).
    pub rotation_deg: f64,
    /// Run number, 1-based (seed = base seed + run).
    pub run: usize,
    /// `sphere`, `obb` or `aabb`.
    pub bv: &'static str,
    /// `top-down`, `predicted` (Fig. 4a, "Using SL") or `deferred` (Fig. 4b).
    pub policy: &'static str,
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

/// The result of `separation-list`.
#[derive(Clone, Debug)]
pub struct SeparationResult {
    /// One row per run, tree type and policy.
    pub rows: Vec<SeparationRow>,
    /// Translation step: the radius of the smallest leaf sphere, model units.
    pub step_translation: f64,
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
    let options = QueryOptions::first_contact();
    let mut r = CollisionReport::default();
    let any_collision = |poses: &[Isometry; OBJECTS], r: &mut CollisionReport| {
        pairs().any(|(i, j)| {
            let (rot, pos) = relative(poses, i, j);
            collide_relative(tree, tree, &rot, &pos, &options, r);
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
            collide_relative(tree, tree, &rel[k].0, &rel[k].1, &options, &mut r);
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

/// Replays a recorded motion with one tree type and policy: (N_v, N_p, rebuilds, seconds).
fn replay<B: BoundingVolume>(
    tree: &Bvh<B>,
    motion: &Motion,
    policy: SeparationPolicy,
) -> Result<(u64, u64, u64, f64), ExperimentError> {
    let options = QueryOptions::first_contact();
    let mut lists: Vec<SeparationList> = (0..36).map(|_| SeparationList::new(policy)).collect();
    let mut r = CollisionReport::default();
    let (mut nv, mut np) = (0u64, 0u64);
    let mut seconds = 0.0;
    for (step, (rel, truth)) in motion.relative.iter().zip(&motion.colliding).enumerate() {
        let start = Instant::now();
        let mut hits = [false; 36];
        for (k, (rot, pos)) in rel.iter().enumerate() {
            if policy == SeparationPolicy::TopDown {
                collide_relative(tree, tree, rot, pos, &options, &mut r);
            } else {
                collide_incremental(tree, tree, rot, pos, &options, &mut lists[k], &mut r);
            }
            hits[k] = r.colliding();
            nv += r.bv_tests;
            np += r.tri_tests;
        }
        seconds += start.elapsed().as_secs_f64();
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
    Ok((nv, np, rebuilds, seconds))
}

pub(super) fn run(
    settings: &Settings,
    progress: Progress<'_>,
) -> Result<SeparationResult, ExperimentError> {
    let (steps, runs) = if settings.quick { (200, 2) } else { (1000, 10) };
    let mesh = load_centered(settings, MODEL)?;
    let build = BuildOptions::default();
    let obb = Bvh::<Obb>::build(mesh.clone(), &build);
    let aabb = Bvh::<Aabb>::build(mesh.clone(), &build);
    let sphere = Bvh::<Sphere>::build(mesh.clone(), &build);
    // The radius of the smallest leaf sphere.
    let step = sphere
        .nodes()
        .iter()
        .filter(|n| n.is_leaf())
        .map(|n| n.bv.as_box().2.x)
        .fold(f64::INFINITY, f64::min)
        .max(1e-9);
    let mut rows = Vec::new();
    let total = (ROTATIONS.len() * runs * 10) as u64;
    let mut done = 0u64;
    for deg in ROTATIONS {
        for run in 1..=runs {
            let stage = format!("separation-list {deg}° run {run}/{runs}");
            progress(&stage, done, total);
            let motion = record(&obb, steps, step, deg, settings.seed + run as u64);
            done += 1;
            let rejected = motion
                .colliding
                .iter()
                .filter(|h| h.iter().any(|&x| x))
                .count();
            for bv in ["sphere", "obb", "aabb"] {
                let mut base: Option<(u64, f64)> = None;
                for policy in SeparationPolicy::ALL {
                    let (nv, np, rebuilds, seconds) = match bv {
                        "sphere" => replay(&sphere, &motion, policy)?,
                        "obb" => replay(&obb, &motion, policy)?,
                        _ => replay(&aabb, &motion, policy)?,
                    };
                    let (bnv, bs) = *base.get_or_insert((nv, seconds));
                    rows.push(SeparationRow {
                        rotation_deg: deg,
                        run,
                        bv,
                        policy: policy.name(),
                        steps,
                        rejected,
                        bv_tests: nv,
                        tri_tests: np,
                        rebuilds,
                        seconds,
                        speedup_time: bs / seconds - 1.0,
                        speedup_tests: bnv as f64 / nv.max(1) as f64 - 1.0,
                    });
                    done += 1;
                    progress(&stage, done, total);
                }
            }
        }
    }
    progress("separation-list", total, total);
    let claims = claims(&rows);
    let result = SeparationResult {
        rows,
        step_translation: step,
        claims,
    };
    write(&result, settings)?;
    Ok(result)
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    s / n.max(1) as f64
}

fn avg(
    rows: &[SeparationRow],
    deg: f64,
    bv: &str,
    policy: &str,
    f: impl Fn(&SeparationRow) -> f64,
) -> f64 {
    mean(
        rows.iter()
            .filter(|r| r.rotation_deg == deg && r.bv == bv && r.policy == policy)
            .map(f),
    )
}

fn paper_speedups() -> (f64, f64) {
    let sl = mean(PAPER.iter().map(|p| p.0 / p.1 - 1.0));
    let dsl = mean(PAPER.iter().map(|p| p.0 / p.2 - 1.0));
    (sl, dsl)
}

fn claims(rows: &[SeparationRow]) -> Vec<Claim> {
    let (psl, pdsl) = paper_speedups();
    let mut c = Vec::new();
    for deg in ROTATIONS {
        for bv in ["sphere", "obb", "aabb"] {
            let tests = |p: &str| {
                rows.iter()
                    .filter(|r| r.rotation_deg == deg && r.bv == bv && r.policy == p)
                    .map(|r| r.bv_tests)
                    .sum::<u64>()
            };
            let (td, dsl) = (tests("top-down"), tests("deferred"));
            c.push(Claim::new(
                format!("{deg}°, {bv} trees: the deferred separation list does fewer volume tests than top-down"),
                "yes (its purpose, §4)",
                format!(
                    "{} vs {} ({:+.0}%)",
                    thousands(dsl),
                    thousands(td),
                    avg(rows, deg, bv, "deferred", |r| r.speedup_tests) * 100.0
                ),
                dsl < td,
            ));
            let s_sl = avg(rows, deg, bv, "predicted", |r| r.speedup_time);
            let s_dsl = avg(rows, deg, bv, "deferred", |r| r.speedup_time);
            c.push(Claim::new(
                format!("{deg}°, {bv} trees: the separation list (Fig. 4a) is faster than top-down (mean time speedup)"),
                format!("{:+.0}% (sphere trees, 5°)", psl * 100.0),
                format!("{:+.0}%", s_sl * 100.0),
                s_sl > 0.0,
            ));
            c.push(Claim::new(
                format!("{deg}°, {bv} trees: deferred rebuilds (Fig. 4b) beat Fig. 4a (mean time speedup)"),
                format!("{:+.0}% vs {:+.0}%", pdsl * 100.0, psl * 100.0),
                format!("{:+.0}% vs {:+.0}%", s_dsl * 100.0, s_sl * 100.0),
                s_dsl > s_sl,
            ));
        }
    }
    c
}

fn write(r: &SeparationResult, settings: &Settings) -> Result<(), ExperimentError> {
    let out = &settings.out;
    write_csv(&out.join("separation-list.csv"), &r.rows)?;
    let runs = r.rows.iter().map(|x| x.run).max().unwrap_or(0);
    let mut stems = Vec::new();
    for (deg, bv) in ROTATIONS
        .iter()
        .flat_map(|&d| ["sphere", "obb", "aabb"].map(move |b| (d, b)))
    {
        let series: Vec<Series> = SeparationPolicy::ALL
            .iter()
            .map(|p| Series {
                name: match p {
                    SeparationPolicy::TopDown => "top-down".into(),
                    SeparationPolicy::Predicted => "separation list (Fig. 4a)".into(),
                    SeparationPolicy::Deferred => "deferred separation list (Fig. 4b)".into(),
                },
                points: r
                    .rows
                    .iter()
                    .filter(|x| x.rotation_deg == deg && x.bv == bv && x.policy == p.name())
                    .map(|x| (x.run as f64, x.seconds))
                    .collect(),
            })
            .collect();
        let stem = format!("separation-list-{bv}-{deg}deg");
        let title = format!(
            "{} trees, {deg}° steps: time of all queries per run (Li & Chen Table 1)",
            bv.to_uppercase()
        );
        line_plot(
            out,
            &stem,
            &LinePlot {
                title: &title,
                x_label: "run (seed)",
                y_label: "seconds",
                log_x: false,
                log_y: false,
                series: &series,
            },
        )?;
        stems.push(stem);
    }
    let steps = r.rows.first().map_or(0, |x| x.steps);
    let mut s = Summary::new(
        "separation-list",
        "Separation lists: top-down vs incremental",
        "Li & Chen, \"Incremental 3D collision detection with hierarchical data structures\", §4–§5, Table 1",
        settings,
    );
    s.para(&format!(
        "Nine copies of `{MODEL}` ({} runs of {steps} steps; the paper used nine 500-polygon bunnies \
         and 1,000 steps). They start in a 3 × 3 grid at random orientations, as close as they can \
         without touching. Every step each copy proposes a random move — a translation of the \
         smallest leaf sphere's radius ({:.5} model units) in a uniform direction and a rotation \
         about a uniform axis, 5° as in the paper or 1° (a more coherent motion: our model is ten \
         times finer than the paper's, so 5° moves its surface by many leaf sizes) — and all 36 pairs are queried (first contact) at the \
         proposed poses; if any pair would collide, the step is rejected. The motion is recorded \
         once per run and replayed by every tree type and policy, which must give the same answer \
         on every query. Policies: top-down (§3.3, Fig. 1), separation list rebuilt once it stops \
         growing (§4.3, Fig. 4a: the paper's \"Using SL\"), and the same with the rebuild deferred \
         until the list has not grown for two queries (§4.4, Fig. 4b). Speedup = T_top-down / T − 1, \
         as the paper defines it. Paper: 133 MHz AMD K5, sphere trees only.",
        runs, r.step_translation
    ));
    let stem_refs: Vec<&str> = stems.iter().map(String::as_str).collect();
    s.images(&stem_refs);
    s.claims(&r.claims);
    s.heading("Table 1, per tree type (means over runs)");
    let (psl, pdsl) = paper_speedups();
    let mut rows = vec![vec![
        "sphere (paper)".into(),
        "–".into(),
        format!("{:.1} s", mean(PAPER.iter().map(|p| p.0))),
        format!("{:.1} s", mean(PAPER.iter().map(|p| p.1))),
        format!("{:+.0}%", psl * 100.0),
        "–".into(),
        format!("{:.1} s", mean(PAPER.iter().map(|p| p.2))),
        format!("{:+.0}%", pdsl * 100.0),
        "–".into(),
    ]];
    for (deg, bv) in ROTATIONS
        .iter()
        .flat_map(|&d| ["sphere", "obb", "aabb"].map(move |b| (d, b)))
    {
        let avg = |policy: &str, f: fn(&SeparationRow) -> f64| avg(&r.rows, deg, bv, policy, f);
        rows.push(vec![
            format!("{bv}, {deg}° (ours)"),
            thousands(avg("top-down", |x| x.bv_tests as f64) as u64),
            format!("{:.3} s", avg("top-down", |x| x.seconds)),
            format!("{:.3} s", avg("predicted", |x| x.seconds)),
            format!("{:+.0}%", avg("predicted", |x| x.speedup_time) * 100.0),
            format!("{:+.0}%", avg("predicted", |x| x.speedup_tests) * 100.0),
            format!("{:.3} s", avg("deferred", |x| x.seconds)),
            format!("{:+.0}%", avg("deferred", |x| x.speedup_time) * 100.0),
            format!("{:+.0}%", avg("deferred", |x| x.speedup_tests) * 100.0),
        ]);
    }
    s.table(
        &[
            "trees",
            "top-down N_v",
            "top-down time",
            "SL time",
            "SL speedup",
            "SL speedup in N_v",
            "deferred SL time",
            "deferred speedup",
            "deferred speedup in N_v",
        ],
        &rows,
    );
    s.heading("Per run");
    let mut rows = Vec::new();
    for x in &r.rows {
        rows.push(vec![
            format!("{}°", x.rotation_deg),
            x.run.to_string(),
            x.bv.to_string(),
            x.policy.to_string(),
            x.rejected.to_string(),
            thousands(x.bv_tests),
            thousands(x.tri_tests),
            thousands(x.rebuilds),
            format!("{:.4}", x.seconds),
            format!("{:+.0}%", x.speedup_time * 100.0),
            format!("{:+.0}%", x.speedup_tests * 100.0),
        ]);
    }
    s.table(
        &[
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
        &rows,
    );
    s.para("Files: `separation-list.csv`, `separation-list-{sphere,obb,aabb}-{5,1}deg.{png,svg}`.");
    s.write(out)
}
