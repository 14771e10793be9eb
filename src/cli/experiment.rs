//! `obbtree experiment NAME --out DIR`: one of the papers' experiments, as CSV data, plots and
//! a summary with the papers' claims.

use super::progress_bar;
use obbtree::experiments::{self, Experiment, Settings};
use std::path::PathBuf;

/// The arguments of `experiment`.
#[derive(clap::Args)]
pub struct Args {
    /// parallel-proximity, point-proximity, random-placements, separation-list, paper-tables,
    /// or all (each into its own subfolder of --out).
    pub name: String,
    /// Output folder.
    #[arg(long)]
    pub out: PathBuf,
    /// A CI-sized run (fewer points, placements, steps and seeds).
    #[arg(long)]
    pub quick: bool,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1996)]
    pub seed: u64,
    /// Folder with torus.obj, teapot.obj, f-16.obj and spot.obj (default: the source tree's
    /// tests/data).
    #[arg(long)]
    pub models: Option<PathBuf>,
    /// Assets folder of the scenes (default: ./assets, else the source tree's).
    #[arg(long)]
    pub assets: Option<PathBuf>,
}

/// Runs `obbtree experiment`.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let list: Vec<Experiment> = if args.name == "all" {
        Experiment::ALL.to_vec()
    } else {
        vec![Experiment::from_name(&args.name).ok_or_else(|| {
            format!(
                "unknown experiment {:?}: expected one of {}, all",
                args.name,
                Experiment::ALL.map(|e| e.name()).join(", ")
            )
        })?]
    };
    for e in list {
        let mut settings = Settings::new(if args.name == "all" {
            args.out.join(e.name())
        } else {
            args.out.clone()
        });
        settings.quick = args.quick;
        settings.seed = args.seed;
        if let Some(m) = &args.models {
            settings.models = m.clone();
        }
        if let Some(a) = &args.assets {
            settings.assets = a.clone();
        }
        let bar = progress_bar(1, "");
        let mut stage = String::new();
        let outcome = experiments::run(e, &settings, &mut |what, done, total| {
            if what != stage {
                stage = what.to_string();
                bar.set_message(stage.clone());
            }
            bar.set_length(total.max(1));
            bar.set_position(done);
        });
        bar.finish_and_clear();
        let outcome = outcome?;
        println!(
            "{}: {}",
            e.name(),
            settings.out.join("summary.md").display()
        );
        for c in outcome.claims() {
            println!(
                "  [{}] {}: paper {}, ours {}",
                if c.holds { "holds" } else { "FAILS" },
                c.claim,
                c.paper,
                c.ours
            );
        }
    }
    Ok(())
}
