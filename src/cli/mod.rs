//! The `obbtree` command line: one module per command; `main.rs` only dispatches. The commands
//! and their output are a contract (the project's design, "The command line").

#[cfg(feature = "paper")]
pub mod bench;
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
