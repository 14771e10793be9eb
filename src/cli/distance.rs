//! `obbtree distance A.obj B.obj --poses POSES`: the distance between model B and model A at
//! every pose, with closest points; `--tolerance T` asks only whether they are within T,
//! `--within T` for every triangle pair within T (PQP's distance and tolerance queries).

use super::{TreeFiles, origin_word, progress_bar, tree_for};
use obbtree::bvh::Persistent;
use obbtree::math::relative_parts;
use obbtree::pose::{Pose, read_poses};
use obbtree::prelude::*;
use obbtree::query::{
    DistanceOptions, ProximityError, distance_with, within_pairs_with, within_with,
};
use std::path::PathBuf;
use std::time::Instant;

/// The arguments of `distance`.
#[derive(clap::Args)]
pub struct Args {
    /// Model A (OBJ), at the identity.
    pub a: PathBuf,
    /// Model B (OBJ), placed in A's frame by each pose.
    pub b: PathBuf,
    /// Pose file: lines `qw qx qy qz tx ty tz` (B in A's frame); `#` starts a comment line.
    #[arg(long)]
    pub poses: PathBuf,
    /// Bounding volume of both hierarchies.
    #[arg(long, value_enum, default_value = "obb")]
    pub bv: BvKind,
    /// Only whether the models come within this distance (PQP's tolerance query), and the
    /// triangle pair that shows it.
    #[arg(long, conflicts_with = "within", allow_negative_numbers = true)]
    pub tolerance: Option<f64>,
    /// Every triangle pair within this distance (0: the contacts).
    #[arg(long, allow_negative_numbers = true)]
    pub within: Option<f64>,
    /// Relative error bound of the distance (PQP's rel_err): d ≤ (1 + E) · d_min.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub rel_err: f64,
    /// Absolute error bound of the distance (PQP's abs_err): d ≤ d_min + E.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub abs_err: f64,
    /// Where a leaf meets an internal node, test the leaf's box instead of its triangle.
    #[arg(long)]
    pub leaf_boxes: bool,
    /// One JSON object per pose, then a summary object.
    #[arg(long)]
    pub json: bool,
    /// Each distance query from scratch. By default each starts from the previous pose's
    /// closest triangle pair (`DistanceOptions::seed`), as PQP's models keep it.
    #[arg(long)]
    pub cold: bool,
    /// Trees to load instead of building.
    #[command(flatten)]
    pub trees: TreeFiles,
}

/// What each pose's query answered.
enum Answer {
    Distance(obbtree::query::DistanceReport),
    Within(obbtree::query::WithinReport),
    Pairs(obbtree::query::PairsReport),
}

impl Answer {
    fn counts(&self) -> (u64, u64) {
        match self {
            Answer::Distance(r) => (r.bv_tests, r.tri_tests),
            Answer::Within(r) => (r.bv_tests, r.tri_tests),
            Answer::Pairs(r) => (r.bv_tests, r.tri_tests),
        }
    }
}

/// Runs `obbtree distance`.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let options = DistanceOptions {
        rel_err: args.rel_err,
        abs_err: args.abs_err,
        overlap: OverlapOptions {
            leaf_triangles: !args.leaf_boxes,
            ..OverlapOptions::default()
        },
        seed: None,
    };
    options.check()?;
    for t in [args.tolerance, args.within].into_iter().flatten() {
        if !(t.is_finite() && t >= 0.0) {
            return Err(ProximityError::Tolerance(t).into());
        }
    }
    let mesh_a = load_obj(&args.a)?;
    let mesh_b = load_obj(&args.b)?;
    let poses = read_poses(&args.poses)?;
    let build = BuildOptions::default();
    match args.bv {
        BvKind::Obb => run_with::<Obb>(args, mesh_a, mesh_b, &poses, &build, &options),
        BvKind::Aabb => run_with::<Aabb>(args, mesh_a, mesh_b, &poses, &build, &options),
        BvKind::Sphere => run_with::<Sphere>(args, mesh_a, mesh_b, &poses, &build, &options),
    }
}

fn run_with<B: Persistent>(
    args: &Args,
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    poses: &[Pose],
    build: &BuildOptions,
    options: &DistanceOptions,
) -> Result<(), Box<dyn std::error::Error>> {
    let (a, build_a, origin_a) = tree_for::<B>(mesh_a, args.trees.tree_a.as_deref(), build)?;
    let (b, build_b, origin_b) = tree_for::<B>(mesh_b, args.trees.tree_b.as_deref(), build)?;
    let bar = progress_bar(poses.len(), "poses");
    if poses.len() < 200 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut results = Vec::with_capacity(poses.len());
    let mut seed = None;
    for pose in poses {
        let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), &pose.pose_ab);
        let start = Instant::now();
        let answer = if let Some(t) = args.tolerance {
            Answer::Within(within_with(&a, &b, &rot_ab, &pos_ab, t, &options.overlap)?)
        } else if let Some(t) = args.within {
            Answer::Pairs(within_pairs_with(
                &a,
                &b,
                &rot_ab,
                &pos_ab,
                t,
                &options.overlap,
            )?)
        } else {
            let options = DistanceOptions { seed, ..*options };
            let r = distance_with(&a, &b, &rot_ab, &pos_ab, &options)?;
            seed = (!args.cold).then_some(r.triangles);
            Answer::Distance(r)
        };
        let us = start.elapsed().as_secs_f64() * 1e6;
        bar.inc(1);
        results.push((answer, us));
    }
    bar.finish_and_clear();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    use std::io::Write;
    if !args.json {
        writeln!(
            out,
            "A: {} ({} triangles), B: {} ({} triangles), {} trees {} in {:.1} ms and {} in {:.1} ms",
            args.a.display(),
            a.mesh().triangle_count(),
            args.b.display(),
            b.mesh().triangle_count(),
            B::KIND,
            origin_word(origin_a),
            build_a,
            origin_word(origin_b),
            build_b
        )?;
    }
    let mut micros = Vec::with_capacity(results.len());
    let (mut bv_tests, mut tri_tests) = (0, 0);
    for (i, ((answer, us), pose)) in results.iter().zip(poses).enumerate() {
        micros.push(*us);
        let (nv, np) = answer.counts();
        bv_tests += nv;
        tri_tests += np;
        write_row(&mut out, args.json, i, pose.line, answer, *us)?;
    }
    let mean = micros.iter().sum::<f64>() / micros.len().max(1) as f64;
    let median = obbtree::timing::median(&mut micros);
    if args.json {
        let summary = serde_json::json!({"summary": {
            "poses": poses.len(),
            "bv_tests": bv_tests,
            "tri_tests": tri_tests,
            "mean_micros": mean,
            "median_micros": median,
            "build_ms": [build_a, build_b],
            "trees": [origin_word(origin_a), origin_word(origin_b)],
        }});
        writeln!(out, "{summary}")?;
    } else {
        writeln!(
            out,
            "summary: {} poses, {bv_tests} box tests, {tri_tests} tri tests, query mean {mean:.1} µs, median {median:.1} µs",
            poses.len()
        )?;
    }
    out.flush()?;
    Ok(())
}

/// One pose's line: JSON as `../shared/peers/compare_distance.py` reads it, or a table row.
fn write_row(
    out: &mut impl std::io::Write,
    json: bool,
    i: usize,
    line: usize,
    answer: &Answer,
    us: f64,
) -> std::io::Result<()> {
    let (nv, np) = answer.counts();
    let p = |x: &Point| [x.x, x.y, x.z];
    match (answer, json) {
        (Answer::Distance(r), true) => writeln!(
            out,
            "{}",
            serde_json::json!({"pose": i, "distance": r.distance,
                "closest": [p(&r.closest_a), p(&r.closest_b)],
                "triangles": [r.triangles.0, r.triangles.1],
                "bv_tests": nv, "tri_tests": np, "micros": us})
        ),
        (Answer::Within(r), true) => writeln!(
            out,
            "{}",
            serde_json::json!({"pose": i, "within": r.within,
                "triangles": r.triangles.map(|(x, y)| [x, y]),
                "bv_tests": nv, "tri_tests": np, "micros": us})
        ),
        (Answer::Pairs(r), true) => {
            let mut pairs: Vec<_> = r.pairs.iter().map(|&((x, y), d)| ([x, y], d)).collect();
            pairs.sort_by_key(|u| u.0);
            writeln!(
                out,
                "{}",
                serde_json::json!({"pose": i,
                    "pairs": pairs.iter().map(|(t, _)| t).collect::<Vec<_>>(),
                    "distances": pairs.iter().map(|(_, d)| d).collect::<Vec<_>>(),
                    "bv_tests": nv, "tri_tests": np, "micros": us})
            )
        }
        (Answer::Distance(r), false) => writeln!(
            out,
            "pose {i:>5} (line {line:>5}): distance {:.9} between triangles {} and {}, {nv} box tests, {np} tri tests, {us:.1} µs",
            r.distance, r.triangles.0, r.triangles.1
        ),
        (Answer::Within(r), false) => writeln!(
            out,
            "pose {i:>5} (line {line:>5}): {}, {nv} box tests, {np} tri tests, {us:.1} µs",
            match r.triangles {
                Some((x, y)) => format!("within (triangles {x} and {y})"),
                None => "not within".to_string(),
            }
        ),
        (Answer::Pairs(r), false) => writeln!(
            out,
            "pose {i:>5} (line {line:>5}): {} pairs within, {nv} box tests, {np} tri tests, {us:.1} µs",
            r.pairs.len()
        ),
    }
}
