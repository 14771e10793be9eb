//! `obbtree collide A.obj B.obj --poses POSES`: model B against model A at every pose, as a
//! table or JSON lines (the command-line contract of the project's design).

use super::{TreeFiles, origin_word, progress_bar, tree_for};
use obbtree::bvh::{Persistent, TreeOrigin};
use obbtree::math::relative_parts;
use obbtree::pose::read_poses;
use obbtree::prelude::*;
use obbtree::query::{CollideWith, SeparationList, SeparationPolicy, collide_with};
use std::path::PathBuf;
use std::time::Instant;

/// The arguments of `collide`.
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
    /// Stop each query at the first contact.
    #[arg(long)]
    pub first_contact: bool,
    /// One JSON object per pose, then a summary object.
    #[arg(long)]
    pub json: bool,
    /// With --json, each contact's normal too: `"normals": [[nx, ny, nz, depth] or null, …]`,
    /// in the order of `"contacts"` (A's frame, unit, from A to B; the depth of an
    /// interpenetrating pair, 0 for touching; `query::contact_normal`).
    #[arg(long, requires = "json")]
    pub normals: bool,
    /// Error margin ε added to |R| in the separating axis test (Gottschalk et al. §7.1).
    #[arg(long, default_value_t = 1e-6)]
    pub epsilon: f64,
    /// Test only the 6 face axes (SAT lite, van den Bergen 1998).
    #[arg(long)]
    pub sat_lite: bool,
    /// Where a leaf meets an internal node, test the leaf's box (as RAPID does) instead of
    /// its triangle (the default for OBB trees: fewer tests of both kinds).
    #[arg(long)]
    pub leaf_boxes: bool,
    /// Settings to start from: `default` (this crate's), `rapid` (RAPID 2.01's fit and split,
    /// leaf boxes: `BuildOptions::rapid`) or `paper` (the 1996 paper's §4 hull fit and mean
    /// split, leaf boxes: `BuildOptions::paper`). `--split` and `--fit` override its build
    /// options.
    #[arg(long, value_enum, default_value = "default")]
    pub preset: Preset,
    /// Split rule of the hierarchy builder [default: binned, or the preset's].
    #[arg(long, value_enum)]
    pub split: Option<SplitRule>,
    /// Where each query starts: from the root pair (`top-down`, the default: every pose on its
    /// own) or from the previous pose's separation list (`predicted`, `deferred`: Li & Chen §4,
    /// for a pose file that is a coherent path; the same contacts, fewer box tests).
    #[arg(long, value_enum, default_value = "top-down")]
    pub start: SeparationPolicy,
    /// Run the poses on this many threads (1: one after the other). Each query is still timed
    /// alone, on its thread.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: u64,
    /// How OBBs are oriented: dito (DiTO-14's best of 21 orientations from the group's
    /// extremal points, or the model axes), least-volume (the §4 hull fit turned to the least
    /// volume it reaches, for groups of up to seven points the triangles' fit turned, and for
    /// groups of more than 128 points also the model axes turned, the lesser kept), smallest
    /// (the least surface of the §4 fit, the triangles' fit and the model axes, unturned), hull
    /// (§4 alone) or triangles (RAPID's) [default: dito, or the preset's].
    #[arg(long, value_enum)]
    pub fit: Option<ObbFit>,
    /// Trees to load instead of building.
    #[command(flatten)]
    pub trees: TreeFiles,
}

/// The settings `collide --preset` starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// `BuildOptions::default()`, leaf triangles.
    Default,
    /// `BuildOptions::rapid()`, leaf boxes.
    Rapid,
    /// `BuildOptions::paper()`, leaf boxes.
    Paper,
}

/// The build options of `preset` with `split` and `fit` in place of its own where given.
pub fn build_options(
    preset: Preset,
    split: Option<SplitRule>,
    fit: Option<ObbFit>,
) -> BuildOptions {
    let preset = match preset {
        Preset::Default => BuildOptions::default(),
        Preset::Rapid => BuildOptions::rapid(),
        Preset::Paper => BuildOptions::paper(),
    };
    BuildOptions {
        split: split.unwrap_or(preset.split),
        fit: fit.unwrap_or(preset.fit),
        ..preset
    }
}

/// Runs `obbtree collide`.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    if args.threads > 1 && args.start != SeparationPolicy::TopDown {
        return Err("--start predicted/deferred carries a separation list from pose to pose: it runs the poses in order, without --threads".into());
    }
    if !(args.epsilon.is_finite() && args.epsilon >= 0.0) {
        return Err(format!("--epsilon {} must be finite and non-negative", args.epsilon).into());
    }
    let mesh_a = load_obj(&args.a)?;
    let mesh_b = load_obj(&args.b)?;
    let poses = read_poses(&args.poses)?;
    let build = build_options(args.preset, args.split, args.fit);
    let options = QueryOptions {
        mode: if args.first_contact {
            ContactMode::FirstContact
        } else {
            ContactMode::AllContacts
        },
        overlap: OverlapOptions {
            epsilon: args.epsilon,
            sat: if args.sat_lite {
                SatMode::Lite
            } else {
                SatMode::Full
            },
            leaf_triangles: !args.leaf_boxes && args.preset == Preset::Default,
        },
        normals: args.normals,
    };
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
    poses: &[obbtree::pose::Pose],
    build: &BuildOptions,
    options: &QueryOptions,
) -> Result<(), Box<dyn std::error::Error>> {
    let (a, build_a, origin_a) = tree_for::<B>(mesh_a, args.trees.tree_a.as_deref(), build)?;
    let (b, build_b, origin_b) = tree_for::<B>(mesh_b, args.trees.tree_b.as_deref(), build)?;

    let bar = progress_bar(poses.len(), "poses");
    if poses.len() < 200 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }

    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    use std::io::Write;
    if !args.json {
        write_header(
            &mut out,
            args,
            &a,
            &b,
            [(build_a, origin_a), (build_b, origin_b)],
        )?;
    }
    let results = query_poses(args, &a, &b, poses, options, &bar)?;
    let mut totals = write_rows(&mut out, args, poses, &results)?;
    bar.finish_and_clear();
    write_summary(
        &mut out,
        args,
        poses.len(),
        &mut totals,
        [build_a, build_b],
        [origin_a, origin_b],
    )?;
    out.flush()?;
    Ok(())
}

/// The table's header: both models' trees, then the column names.
fn write_header<B: BoundingVolume>(
    out: &mut impl std::io::Write,
    args: &Args,
    a: &Bvh<B>,
    b: &Bvh<B>,
    obtained: [(f64, TreeOrigin); 2],
) -> std::io::Result<()> {
    for (name, path, tree, (ms, origin)) in [
        ("A", &args.a, a, obtained[0]),
        ("B", &args.b, b, obtained[1]),
    ] {
        writeln!(
            out,
            "{name}: {} ({} triangles, {} tree {} in {:.1} ms, {:.0} bytes/triangle)",
            path.display(),
            tree.mesh().triangle_count(),
            B::KIND,
            origin_word(origin),
            ms,
            tree.bytes_per_triangle()
        )?;
    }
    writeln!(
        out,
        "{:>6} {:>6} {:>9} {:>8} {:>10} {:>9} {:>10}",
        "pose", "line", "colliding", "contacts", "box tests", "tri tests", "µs"
    )
}

/// Every pose's report and query time, in pose order: one after the other, or on
/// `--threads` threads (each query timed on its own thread).
fn query_poses<B: BoundingVolume>(
    args: &Args,
    a: &Bvh<B>,
    b: &Bvh<B>,
    poses: &[obbtree::pose::Pose],
    options: &QueryOptions,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<(CollisionReport, f64)>, Box<dyn std::error::Error>> {
    let query = |pose: &obbtree::pose::Pose| {
        let mut report = CollisionReport::default();
        let us = query_timed(a, b, pose, options, &mut report);
        bar.inc(1);
        (report, us)
    };
    Ok(if args.start != SeparationPolicy::TopDown {
        query_carried(args.start, a, b, poses, options, bar)
    } else if args.threads > 1 {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads as usize)
            .build()?;
        pool.install(|| poses.par_iter().map(query).collect())
    } else {
        poses.iter().map(query).collect()
    })
}

/// One top-down query of B at `pose` against A, and its time in microseconds.
fn query_timed<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    pose: &obbtree::pose::Pose,
    options: &QueryOptions,
    report: &mut CollisionReport,
) -> f64 {
    let start = Instant::now();
    {
        let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), &pose.pose_ab);
        collide_with(
            a,
            b,
            &rot_ab,
            &pos_ab,
            options,
            CollideWith::default(),
            report,
        )
    };
    start.elapsed().as_secs_f64() * 1e6
}

/// The poses' reports and times with one separation list carried from pose to pose, in
/// file order.
fn query_carried<B: BoundingVolume>(
    policy: SeparationPolicy,
    a: &Bvh<B>,
    b: &Bvh<B>,
    poses: &[obbtree::pose::Pose],
    options: &QueryOptions,
    bar: &indicatif::ProgressBar,
) -> Vec<(CollisionReport, f64)> {
    let mut list = SeparationList::new(policy);
    poses
        .iter()
        .map(|pose| {
            let mut report = CollisionReport::default();
            let rot = pose.pose_ab.rotation.to_rotation_matrix().into_inner();
            let pos = pose.pose_ab.translation.vector;
            let start = Instant::now();
            collide_with(
                a,
                b,
                &rot,
                &pos,
                options,
                CollideWith::separation(&mut list),
                &mut report,
            );
            let us = start.elapsed().as_secs_f64() * 1e6;
            bar.inc(1);
            (report, us)
        })
        .collect()
}

/// The sums over all poses and each pose's query time.
struct Totals {
    micros: Vec<f64>,
    colliding: u64,
    contacts: u64,
    bv_tests: u64,
    tri_tests: u64,
}

/// One row (or JSON line) per pose; returns the totals.
fn write_rows(
    out: &mut impl std::io::Write,
    args: &Args,
    poses: &[obbtree::pose::Pose],
    results: &[(CollisionReport, f64)],
) -> std::io::Result<Totals> {
    let mut micros = Vec::with_capacity(poses.len());
    let (mut colliding, mut contacts, mut bv_tests, mut tri_tests) = (0u64, 0u64, 0u64, 0u64);
    for (i, (pose, (report, us))) in poses.iter().zip(results).enumerate() {
        let us = *us;
        micros.push(us);
        colliding += report.colliding() as u64;
        contacts += report.contacts.len() as u64;
        bv_tests += report.bv_tests;
        tri_tests += report.tri_tests;
        if args.json {
            let mut order: Vec<usize> = (0..report.contacts.len()).collect();
            order.sort_unstable_by_key(|&k| report.contacts[k]);
            let pairs: Vec<[u32; 2]> = order
                .iter()
                .map(|&k| [report.contacts[k].0, report.contacts[k].1])
                .collect();
            let mut line = serde_json::json!({
                "pose": i,
                "colliding": report.colliding(),
                "contacts": pairs,
                "bv_tests": report.bv_tests,
                "tri_tests": report.tri_tests,
                "micros": us,
            });
            if args.normals {
                let normals: Vec<_> = order
                    .iter()
                    .map(|&k| {
                        report.normals[k].map(|n| [n.normal.x, n.normal.y, n.normal.z, n.depth])
                    })
                    .collect();
                line["normals"] = serde_json::json!(normals);
            }
            writeln!(out, "{line}")?;
        } else {
            writeln!(
                out,
                "{:>6} {:>6} {:>9} {:>8} {:>10} {:>9} {:>10.1}",
                i,
                pose.line,
                if report.colliding() { "yes" } else { "no" },
                report.contacts.len(),
                report.bv_tests,
                report.tri_tests,
                us
            )?;
        }
    }
    Ok(Totals {
        micros,
        colliding,
        contacts,
        bv_tests,
        tri_tests,
    })
}

/// The summary line (or JSON object): totals, mean and median query time, build times.
fn write_summary(
    out: &mut impl std::io::Write,
    args: &Args,
    poses: usize,
    totals: &mut Totals,
    build_ms: [f64; 2],
    origins: [TreeOrigin; 2],
) -> std::io::Result<()> {
    let micros = &mut totals.micros;
    let mean = micros.iter().sum::<f64>() / micros.len() as f64;
    let median = obbtree::timing::median(micros);
    if args.json {
        let summary = serde_json::json!({"summary": {
            "poses": poses,
            "colliding": totals.colliding,
            "contacts": totals.contacts,
            "bv_tests": totals.bv_tests,
            "tri_tests": totals.tri_tests,
            "mean_micros": mean,
            "median_micros": median,
            "build_ms": build_ms,
            "trees": origins.map(origin_word),
        }});
        writeln!(out, "{summary}")
    } else {
        writeln!(
            out,
            "summary: {} poses, {} colliding, {} contacts, {} box tests, {} tri tests, query mean {:.1} µs, median {:.1} µs",
            poses,
            totals.colliding,
            totals.contacts,
            totals.bv_tests,
            totals.tri_tests,
            mean,
            median
        )
    }
}
