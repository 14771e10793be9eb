//! `obbtree self-intersections A.obj`: every pair of triangles of one mesh that intersect
//! beyond the corners they share, as a table or JSON lines (the command-line contract of the
//! project's design). The exit status is 0 whether or not the mesh passes through itself.

use obbtree::prelude::*;
use obbtree::query::{SelfIntersectionOptions, self_intersections};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// The arguments of `self-intersections`.
#[derive(clap::Args)]
pub struct Args {
    /// The model (OBJ).
    pub a: PathBuf,
    /// Bounding volume of the hierarchy.
    #[arg(long, value_enum, default_value = "aabb")]
    pub bv: BvKind,
    /// Split rule of the hierarchy builder [default: box-midpoint for AABB trees (van den
    /// Bergen's, the fastest build), binned for the others].
    #[arg(long, value_enum)]
    pub split: Option<SplitRule>,
    /// One JSON object per pair `{"pair":[ta,tb]}` (file order, ta < tb), then a summary object.
    #[arg(long)]
    pub json: bool,
    /// Also print each pair's intersection: its corners (a point, a segment's two ends or a
    /// coplanar overlap's polygon), model frame.
    #[arg(long)]
    pub curves: bool,
    /// Build the tree and walk it on this many threads (1: the calling thread only).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: u64,
    /// Build the tree and run the self-test this many times; report the median times of each
    /// (the first, with memory fresh from the system, is usually the slowest).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=100000))]
    pub reps: u64,
}

/// Runs `obbtree self-intersections`.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let mesh = load_obj(&args.a)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads as usize)
        .build()?;
    pool.install(|| match args.bv {
        BvKind::Obb => run_with::<Obb>(args, mesh),
        BvKind::Aabb => run_with::<Aabb>(args, mesh),
        BvKind::Sphere => run_with::<Sphere>(args, mesh),
    })
    .map_err(|e| -> Box<dyn std::error::Error> { e })
}

/// What fails on the pool's thread: writing the output.
type Failure = Box<dyn std::error::Error + Send + Sync>;

fn run_with<B: BoundingVolume>(args: &Args, mesh: TriMesh) -> Result<(), Failure> {
    let parallel = args.threads > 1;
    let split = args.split.unwrap_or(if B::KIND == BvKind::Aabb {
        SplitRule::BoxMidpoint
    } else {
        SplitRule::default()
    });
    let build = BuildOptions {
        split,
        parallel,
        ..BuildOptions::default()
    };
    let options = SelfIntersectionOptions {
        curves: args.curves,
        parallel,
        ..SelfIntersectionOptions::default()
    };
    let mesh = std::sync::Arc::new(mesh);
    let (mut builds, mut refits, mut times) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..args.reps {
        // The previous tree goes first, as a program that rebuilds would free it.
        drop(last.take());
        let start = Instant::now();
        let mut tree = Bvh::<B>::build(mesh.clone(), &build);
        builds.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        let report = self_intersections(&tree, &options);
        times.push(start.elapsed().as_secs_f64() * 1e6);
        // A deforming mesh's tree is refitted rather than rebuilt (the same vertices here),
        // after the self-test, which reports on the tree as built.
        let start = Instant::now();
        tree.refit();
        refits.push(start.elapsed().as_secs_f64() * 1e3);
        last = Some((tree, report));
    }
    let (tree, report) = last.expect("at least one repetition");
    let build_ms = obbtree::timing::median(&mut builds);
    let refit_ms = obbtree::timing::median(&mut refits);
    let micros = obbtree::timing::median(&mut times);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if !args.json {
        writeln!(
            out,
            "{}: {} triangles, {} tree built in {:.1} ms",
            args.a.display(),
            tree.mesh().triangle_count(),
            B::KIND,
            build_ms
        )?;
    }
    for (i, &(ta, tb)) in report.pairs.iter().enumerate() {
        let curve: Option<Vec<[f64; 3]>> = report
            .curves
            .get(i)
            .map(|c| c.points().iter().map(|p| [p.x, p.y, p.z]).collect());
        if args.json {
            let mut line = serde_json::json!({ "pair": [ta, tb] });
            if let Some(curve) = curve {
                line["curve"] = serde_json::json!(curve);
            }
            writeln!(out, "{line}")?;
        } else {
            write!(out, "{ta} {tb}")?;
            if let Some(curve) = curve {
                for p in curve {
                    write!(out, "  ({} {} {})", p[0], p[1], p[2])?;
                }
            }
            writeln!(out)?;
        }
    }
    if args.json {
        let summary = serde_json::json!({"summary": {
            "pairs": report.pairs.len(),
            "build_ms": build_ms,
            "refit_ms": refit_ms,
            "micros": micros,
            "bv_tests": report.bv_tests,
            "tri_tests": report.tri_tests,
        }});
        writeln!(out, "{summary}")?;
    } else {
        writeln!(
            out,
            "summary: {} intersecting pairs, {} box tests, {} tri tests, self-test {:.1} µs (median of {}), build {:.1} ms, refit {:.1} ms",
            report.pairs.len(),
            report.bv_tests,
            report.tri_tests,
            micros,
            args.reps,
            build_ms,
            refit_ms
        )?;
    }
    out.flush()?;
    Ok(())
}
