//! `obbtree toi A.obj B.obj --motions MOTIONS`: for each motion of B (two poses a line, B in
//! A's frame), the first time it comes within a tolerance of A, by conservative advancement
//! (`query::time_of_impact`).

use super::{TreeFiles, origin_word, progress_bar, tree_for};
use obbtree::bvh::Persistent;
use obbtree::motion::RigidMotion;
use obbtree::pose::{MotionLine, read_motions};
use obbtree::prelude::*;
use obbtree::query::{ToiError, ToiOptions, ToiOutcome, ToiReport, time_of_impact};
use std::path::PathBuf;
use std::time::Instant;

/// The arguments of `toi`.
#[derive(clap::Args)]
pub struct Args {
    /// Model A (OBJ), fixed at the identity.
    pub a: PathBuf,
    /// Model B (OBJ), moving in A's frame.
    pub b: PathBuf,
    /// Motion file: lines `qw qx qy qz tx ty tz  qw qx qy qz tx ty tz`, B's pose at the start
    /// and at the end (in A's frame); B turns by shortest-arc slerp about its model origin
    /// while the origin moves on a straight line. `#` starts a comment line.
    #[arg(long)]
    pub motions: PathBuf,
    /// Stop where the models are within this distance (model units, > 0) [default: 1e-4 of
    /// the diagonal of A's bounding box].
    #[arg(long, allow_negative_numbers = true)]
    pub tolerance: Option<f64>,
    /// Relative error bound of each distance query, in [0, 1): fewer box tests per step, the
    /// same guarantees.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub rel_err: f64,
    /// Distance queries per motion at most (then the motion is "unresolved").
    #[arg(long, default_value_t = 1000)]
    pub max_iterations: u32,
    /// Bounding volume of both hierarchies.
    #[arg(long, value_enum, default_value = "obb")]
    pub bv: BvKind,
    /// One JSON object per motion, then a summary object.
    #[arg(long)]
    pub json: bool,
    /// Trees to load instead of building.
    #[command(flatten)]
    pub trees: TreeFiles,
}

/// Runs `obbtree toi`.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(t) = args.tolerance
        && !(t.is_finite() && t > 0.0)
    {
        return Err(ToiError::Tolerance(t).into());
    }
    if !(args.rel_err.is_finite() && (0.0..1.0).contains(&args.rel_err)) {
        return Err(ToiError::RelativeError(args.rel_err).into());
    }
    let mesh_a = load_obj(&args.a)?;
    let mesh_b = load_obj(&args.b)?;
    let motions = read_motions(&args.motions)?;
    let tolerance = args.tolerance.unwrap_or_else(|| {
        let (lo, hi) = mesh_a.bounds();
        let t = 1e-4 * (hi - lo).norm();
        if t > 0.0 { t } else { 1e-6 }
    });
    let options = ToiOptions {
        rel_err: args.rel_err,
        max_iterations: args.max_iterations,
        ..ToiOptions::new(tolerance)
    };
    let build = BuildOptions::default();
    match args.bv {
        BvKind::Obb => run_with::<Obb>(args, mesh_a, mesh_b, &motions, &build, &options),
        BvKind::Aabb => run_with::<Aabb>(args, mesh_a, mesh_b, &motions, &build, &options),
        BvKind::Sphere => run_with::<Sphere>(args, mesh_a, mesh_b, &motions, &build, &options),
    }
}

fn run_with<B: Persistent>(
    args: &Args,
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    motions: &[MotionLine],
    build: &BuildOptions,
    options: &ToiOptions,
) -> Result<(), Box<dyn std::error::Error>> {
    let (a, ms_a, origin_a) = tree_for::<B>(mesh_a, args.trees.tree_a.as_deref(), build)?;
    let (b, ms_b, origin_b) = tree_for::<B>(mesh_b, args.trees.tree_b.as_deref(), build)?;
    let build_ms = ms_a + ms_b;
    let obtained = if origin_a == origin_b {
        origin_word(origin_a)
    } else {
        "built or loaded"
    };
    let bar = progress_bar(motions.len(), "motions");
    if motions.len() < 200 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut results: Vec<(ToiReport, f64)> = Vec::with_capacity(motions.len());
    for m in motions {
        let motion = RigidMotion::between(&m.start, &m.end);
        let start = Instant::now();
        let report = time_of_impact(&a, &b, &motion, options)?;
        results.push((report, start.elapsed().as_secs_f64() * 1e6));
        bar.inc(1);
    }
    bar.finish_and_clear();
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if !args.json {
        writeln!(
            out,
            "A: {} ({} triangles), B: {} ({} triangles), {} trees {obtained} in {build_ms:.1} ms, tolerance {}",
            args.a.display(),
            a.mesh().triangle_count(),
            args.b.display(),
            b.mesh().triangle_count(),
            B::KIND,
            options.tolerance
        )?;
    }
    let (mut impacts, mut unresolved, mut queries, mut bv_tests, mut tri_tests) = (0, 0, 0, 0, 0);
    let mut micros = Vec::with_capacity(results.len());
    for (i, ((r, us), m)) in results.iter().zip(motions).enumerate() {
        micros.push(*us);
        queries += r.distance_queries as u64;
        bv_tests += r.bv_tests;
        tri_tests += r.tri_tests;
        let p = |x: &Point| [x.x, x.y, x.z];
        let (outcome, detail) = match r.outcome {
            ToiOutcome::Impact(hit) => {
                impacts += 1;
                let normal = hit.normal.map(|n| [n.x, n.y, n.z]);
                (
                    "impact",
                    serde_json::json!({"toi": hit.toi, "triangles": [hit.triangles.0, hit.triangles.1],
                        "distance": hit.distance, "closest": [p(&hit.closest_a), p(&hit.closest_b)],
                        "normal": normal}),
                )
            }
            ToiOutcome::Clear => ("clear", serde_json::json!({"toi": null, "triangles": null})),
            ToiOutcome::Unresolved { reached } => {
                unresolved += 1;
                (
                    "unresolved",
                    serde_json::json!({"toi": null, "triangles": null, "reached": reached}),
                )
            }
        };
        if args.json {
            let mut line = serde_json::json!({"motion": i, "outcome": outcome,
                "distance_queries": r.distance_queries, "bv_tests": r.bv_tests,
                "tri_tests": r.tri_tests, "micros": us});
            for (k, v) in detail.as_object().expect("an object") {
                line[k] = v.clone();
            }
            writeln!(out, "{line}")?;
        } else {
            let what = match r.outcome {
                ToiOutcome::Impact(hit) => format!(
                    "impact at t = {:.9}, triangles {} and {}, distance {:.3e}",
                    hit.toi, hit.triangles.0, hit.triangles.1, hit.distance
                ),
                ToiOutcome::Clear => "clear".to_string(),
                ToiOutcome::Unresolved { reached } => {
                    format!("unresolved (no contact before t = {reached:.9})")
                }
            };
            writeln!(
                out,
                "motion {i:>5} (line {:>5}): {what}, {} distance queries, {} box tests, {} tri tests, {us:.1} µs",
                m.line, r.distance_queries, r.bv_tests, r.tri_tests
            )?;
        }
    }
    let mean = micros.iter().sum::<f64>() / micros.len().max(1) as f64;
    let median = obbtree::timing::median(&mut micros);
    if args.json {
        let summary = serde_json::json!({"summary": {
            "motions": motions.len(), "impacts": impacts, "unresolved": unresolved,
            "tolerance": options.tolerance, "distance_queries": queries,
            "bv_tests": bv_tests, "tri_tests": tri_tests,
            "mean_micros": mean, "median_micros": median, "build_ms": build_ms,
        }});
        writeln!(out, "{summary}")?;
    } else {
        writeln!(
            out,
            "summary: {} motions, {impacts} impacts, {unresolved} unresolved, {queries} distance queries, {bv_tests} box tests, {tri_tests} tri tests, mean {mean:.1} µs, median {median:.1} µs",
            motions.len()
        )?;
    }
    out.flush()?;
    Ok(())
}
