//! `obbtree generate-assets`: the scenes' models, motion paths and manifest.

use super::progress_bar;
use std::path::PathBuf;

/// The arguments of `generate-assets`.
#[derive(clap::Args)]
pub struct Args {
    /// Output folder; models/, paths/ and models/manifest.json are written under it.
    #[arg(long, default_value = "assets")]
    pub out: PathBuf,
    /// Seed of the generators.
    #[arg(long, default_value_t = obbtree::scenes::DEFAULT_SEED)]
    pub seed: u64,
}

/// Runs `obbtree generate-assets`.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let bar = progress_bar(1, "");
    let mut stage = String::new();
    let manifest =
        obbtree::scenes::generate_assets(&args.out, args.seed, &mut |what, done, len| {
            if what != stage {
                stage = what.to_string();
                bar.set_length(len as u64);
                bar.set_message(stage.clone());
                bar.set_position(0);
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{bar:40} {pos}/{len} {msg} {elapsed_precise}",
                    )
                    .expect("static template"),
                );
            }
            bar.set_position(done as u64);
        })?;
    bar.finish_and_clear();
    for s in &manifest.scenes {
        println!(
            "{}: environment {} ({} triangles), object {} ×{} ({} triangles), path {} ({} steps, {} contacts, {:.2} per step over the second half; {} queries, {:.2} per step)",
            s.scene.name(),
            s.environment.file,
            s.environment.triangles,
            s.object.file,
            s.object.scale,
            s.object.triangles,
            s.path.file,
            s.path.steps,
            s.path.contacts,
            s.path.mean_contacts_second_half,
            s.path.queries,
            s.path.queries as f64 / s.path.steps as f64
        );
    }
    println!(
        "wrote {}",
        args.out.join(obbtree::scenes::MANIFEST).display()
    );
    Ok(())
}
