//! The `obbtree` command line: one module per command; `main.rs` only dispatches. The commands
//! and their output are a contract (the project's design, "The command line").

#[cfg(feature = "paper")]
pub mod bench;
pub mod build;
pub mod collide;
pub mod distance;
#[cfg(feature = "paper")]
pub mod experiment;
#[cfg(feature = "paper")]
pub mod generate;
pub mod self_intersections;
pub mod toi;
pub mod view;

use clap::{Parser, Subcommand};
use obbtree::bvh::{BuildOptions, Bvh, Persistent, TreeFileError, TreeOrigin};
use obbtree::mesh::TriMesh;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The command line.
#[derive(Parser)]
#[command(
    name = "obbtree",
    version,
    about = "Exact mesh–mesh interference detection with OBB, AABB and sphere trees (Gottschalk, Lin, Manocha 1996)"
)]
pub struct Cli {
    /// The command; none opens the viewer.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands.
#[derive(Subcommand)]
pub enum Command {
    /// Build a model's hierarchy and save it to a tree file, for `collide`, `distance`, `toi`
    /// and `bench` to load instead of building.
    Build(build::Args),
    /// Test model B against model A at every pose of a pose file (all contacts by default).
    Collide(collide::Args),
    /// The distance between model B and model A at every pose, with closest points; or whether
    /// they are within a tolerance, or every triangle pair within it (PQP's queries).
    Distance(distance::Args),
    /// Every pair of triangles of one mesh that intersect beyond the corners they share
    /// (exact; CGAL's rule), found by walking the mesh's hierarchy against itself.
    SelfIntersections(self_intersections::Args),
    /// For each motion of model B (a start and an end pose), the first time it comes within a
    /// tolerance of model A, by conservative advancement: never through a contact.
    Toi(toi::Args),
    /// Replay a scene's motion path and print the paper's Table 3 row beside ours (§7.2).
    #[cfg(feature = "paper")]
    Bench(bench::Args),
    /// Regenerate the scenes' models, motion paths and manifest under an assets folder.
    #[cfg(feature = "paper")]
    GenerateAssets(generate::Args),
    /// Run one of the papers' experiments: CSV data, PNG/SVG plots and summary.md under --out.
    #[cfg(feature = "paper")]
    Experiment(experiment::Args),
    /// Open the interactive viewer (the default command).
    View(view::Args),
}

/// A progress bar on standard error: `{bar} pos/len what{msg} elapsed eta`.
pub fn progress_bar(len: usize, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what}{{msg}} {{elapsed_precise}} eta {{eta}}"
        ))
        .expect("static template"),
    );
    bar
}

/// `--tree-a` and `--tree-b`: trees to load instead of building them.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TreeFiles {
    /// Load model A's tree from this file (`obbtree build A.obj -o FILE`) instead of building
    /// it; the tree keeps the file's build options. A file built for another mesh, of another
    /// volume type or damaged is refused with the reason.
    #[arg(long, value_name = "FILE")]
    pub tree_a: Option<PathBuf>,
    /// Load model B's tree from this file, as `--tree-a`.
    #[arg(long, value_name = "FILE")]
    pub tree_b: Option<PathBuf>,
}

/// The hierarchy of `mesh`: loaded from `file` when one is given, else built with `build`;
/// with the milliseconds it took and which it was.
pub fn tree_for<B: Persistent>(
    mesh: TriMesh,
    file: Option<&Path>,
    build: &BuildOptions,
) -> Result<(Bvh<B>, f64, TreeOrigin), TreeFileError> {
    let start = Instant::now();
    let (tree, origin) = match file {
        Some(path) => (Bvh::<B>::load(mesh, path)?, TreeOrigin::Loaded),
        None => (build_with_bar::<B>(mesh, build), TreeOrigin::Built),
    };
    Ok((tree, start.elapsed().as_secs_f64() * 1e3, origin))
}

/// Builds `mesh`'s tree with a progress bar on standard error for meshes of 200,000 triangles
/// or more (the build reports the triangles placed in leaves; the bar is read ten times a
/// second).
pub fn build_with_bar<B: Persistent>(
    mesh: impl Into<std::sync::Arc<TriMesh>>,
    build: &BuildOptions,
) -> Bvh<B> {
    let mesh = mesh.into();
    let n = mesh.triangle_count();
    if n < 200_000 {
        return Bvh::<B>::build(mesh, build);
    }
    let bar = progress_bar(n, "triangles in leaves");
    let done = std::sync::atomic::AtomicUsize::new(0);
    let finished = std::sync::atomic::AtomicBool::new(false);
    let tree = std::thread::scope(|s| {
        s.spawn(|| {
            while !finished.load(std::sync::atomic::Ordering::Relaxed) {
                bar.set_position(done.load(std::sync::atomic::Ordering::Relaxed) as u64);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        });
        let tree = Bvh::<B>::build_with_progress(mesh, build, &done);
        finished.store(true, std::sync::atomic::Ordering::Relaxed);
        tree
    });
    bar.finish_and_clear();
    tree
}

/// "built" or "loaded".
pub fn origin_word(origin: TreeOrigin) -> &'static str {
    match origin {
        TreeOrigin::Built => "built",
        TreeOrigin::Loaded => "loaded",
    }
}
