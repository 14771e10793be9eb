//! The `obbtree` command line: parses the arguments and dispatches to the command's module
//! ([`cli`]).

mod cli;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Some(Command::Build(args)) => cli::build::run(&args),
        Some(Command::Collide(args)) => cli::collide::run(&args),
        Some(Command::Distance(args)) => cli::distance::run(&args),
        Some(Command::SelfIntersections(args)) => cli::self_intersections::run(&args),
        Some(Command::Toi(args)) => cli::toi::run(&args),
        #[cfg(feature = "paper")]
        Some(Command::Bench(args)) => cli::bench::run(&args),
        #[cfg(feature = "paper")]
        Some(Command::GenerateAssets(args)) => cli::generate::run(&args),
        #[cfg(feature = "paper")]
        Some(Command::Experiment(args)) => cli::experiment::run(&args),
        Some(Command::View(args)) => return cli::view::run(args),
        None => return cli::view::run(cli::view::Args::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
