//! The `obbtree` command line (DESIGN.md, "The command line").

use clap::{Parser, Subcommand, ValueEnum};
use obbtree::pose::read_poses;
use obbtree::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "obbtree",
    version,
    about = "Exact mesh–mesh interference detection with OBB, AABB and sphere trees (Gottschalk, Lin, Manocha 1996)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Test model B against model A at every pose of a pose file (all contacts by default).
    Collide(CollideArgs),
    /// Replay a scene's motion path and print the paper's Table 3 row beside ours (§7.2).
    Bench(BenchArgs),
    /// Regenerate the scenes' models, motion paths and manifest under an assets folder.
    GenerateAssets(GenerateArgs),
    /// Run one of the papers' experiments: CSV data, PNG/SVG plots and summary.md under --out.
    Experiment(ExperimentArgs),
    /// Open the interactive viewer (the default command).
    View(ViewArgs),
}

#[derive(clap::Args)]
struct ExperimentArgs {
    /// parallel-proximity, point-proximity, random-placements, separation-list, paper-tables,
    /// or all (each into its own subfolder of --out).
    name: String,
    /// Output folder.
    #[arg(long)]
    out: PathBuf,
    /// A CI-sized run (fewer points, placements, steps and seeds).
    #[arg(long)]
    quick: bool,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1996)]
    seed: u64,
    /// Folder with torus.obj, teapot.obj, f-16.obj and spot.obj (default: the source tree's
    /// tests/data).
    #[arg(long)]
    models: Option<PathBuf>,
    /// Assets folder of the scenes (default: ./assets, else the source tree's).
    #[arg(long)]
    assets: Option<PathBuf>,
}

#[derive(clap::Args, Default)]
struct ViewArgs {
    /// Scene to open: pipes, torus, torpedo or wobble.
    #[arg(long)]
    scene: Option<String>,
    /// Two OBJ files: the environment, then the moving object.
    #[arg(long = "obj", num_args = 1)]
    obj: Vec<PathBuf>,
    /// Assets folder (default: ./assets, else the source tree's).
    #[arg(long)]
    assets: Option<PathBuf>,
    /// Save the window as PNG after `--frames` frames of the scene, then exit.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot.
    #[arg(long, default_value_t = 60)]
    frames: u32,
    /// Start the scene's path at this step.
    #[arg(long, default_value_t = 0)]
    step: usize,
    /// Show this level of the moving object's OBB tree from the start.
    #[arg(long)]
    overlay_level: Option<usize>,
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Scene: pipes, torus or torpedo.
    scene: String,
    /// Bounding volume of both hierarchies.
    #[arg(long, value_enum, default_value = "obb")]
    bv: BvArg,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Assets folder (default: ./assets, else the source tree's).
    #[arg(long)]
    assets: Option<PathBuf>,
    /// Replay only every N-th pose of the path (the sphere tree on the pipes is slow).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
}

#[derive(clap::Args)]
struct GenerateArgs {
    /// Output folder; models/, paths/ and models/manifest.json are written under it.
    #[arg(long, default_value = "assets")]
    out: PathBuf,
    /// Seed of the generators.
    #[arg(long, default_value_t = obbtree::scenes::DEFAULT_SEED)]
    seed: u64,
}

#[derive(Clone, Copy, ValueEnum, Debug)]
enum BvArg {
    Obb,
    Aabb,
    Sphere,
}

#[derive(clap::Args)]
struct CollideArgs {
    /// Model A (OBJ), at the identity.
    a: PathBuf,
    /// Model B (OBJ), placed in A's frame by each pose.
    b: PathBuf,
    /// Pose file: lines `qw qx qy qz tx ty tz` (B in A's frame); `#` starts a comment line.
    #[arg(long)]
    poses: PathBuf,
    /// Bounding volume of both hierarchies.
    #[arg(long, value_enum, default_value = "obb")]
    bv: BvArg,
    /// Stop each query at the first contact.
    #[arg(long)]
    first_contact: bool,
    /// One JSON object per pose, then a summary object.
    #[arg(long)]
    json: bool,
    /// Error margin ε added to |R| in the separating axis test (Gottschalk et al. §7.1).
    #[arg(long, default_value_t = 1e-6)]
    epsilon: f64,
    /// Test only the 6 face axes (SAT lite, van den Bergen 1998).
    #[arg(long)]
    sat_lite: bool,
    /// Split rule of the hierarchy builder.
    #[arg(long, value_enum, default_value = "mean")]
    split: SplitArg,
}

#[derive(Clone, Copy, ValueEnum, Debug)]
enum SplitArg {
    Mean,
    Median,
    BoxMidpoint,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Collide(args)) => collide_cmd(&args),
        Some(Command::Bench(args)) => bench_cmd(&args),
        Some(Command::GenerateAssets(args)) => generate_cmd(&args),
        Some(Command::Experiment(args)) => experiment_cmd(&args),
        Some(Command::View(args)) => return view_cmd(args),
        None => return view_cmd(ViewArgs::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn collide_cmd(args: &CollideArgs) -> Result<(), Box<dyn std::error::Error>> {
    if !(args.epsilon.is_finite() && args.epsilon >= 0.0) {
        return Err(format!("--epsilon {} must be finite and non-negative", args.epsilon).into());
    }
    let mesh_a = load_obj(&args.a)?;
    let mesh_b = load_obj(&args.b)?;
    let poses = read_poses(&args.poses)?;
    let build = BuildOptions {
        split: match args.split {
            SplitArg::Mean => SplitRule::Mean,
            SplitArg::Median => SplitRule::Median,
            SplitArg::BoxMidpoint => SplitRule::BoxMidpoint,
        },
        ..BuildOptions::default()
    };
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
        },
    };
    match args.bv {
        BvArg::Obb => run::<Obb>(args, mesh_a, mesh_b, &poses, &build, &options),
        BvArg::Aabb => run::<Aabb>(args, mesh_a, mesh_b, &poses, &build, &options),
        BvArg::Sphere => run::<Sphere>(args, mesh_a, mesh_b, &poses, &build, &options),
    }
}

fn run<B: BoundingVolume>(
    args: &CollideArgs,
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    poses: &[obbtree::pose::Pose],
    build: &BuildOptions,
    options: &QueryOptions,
) -> Result<(), Box<dyn std::error::Error>> {
    let t0 = Instant::now();
    let a = Bvh::<B>::build(mesh_a, build);
    let build_a = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = Instant::now();
    let b = Bvh::<B>::build(mesh_b, build);
    let build_b = t1.elapsed().as_secs_f64() * 1e3;

    let bar = indicatif::ProgressBar::with_draw_target(
        Some(poses.len() as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} poses {elapsed_precise} eta {eta}",
        )
        .expect("static template"),
    );
    if poses.len() < 200 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }

    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    use std::io::Write;
    if !args.json {
        writeln!(
            out,
            "A: {} ({} triangles, {} tree built in {:.1} ms, {:.0} bytes/triangle)",
            args.a.display(),
            a.mesh().triangle_count(),
            B::KIND,
            build_a,
            a.bytes_per_triangle()
        )?;
        writeln!(
            out,
            "B: {} ({} triangles, {} tree built in {:.1} ms, {:.0} bytes/triangle)",
            args.b.display(),
            b.mesh().triangle_count(),
            B::KIND,
            build_b,
            b.bytes_per_triangle()
        )?;
        writeln!(
            out,
            "{:>6} {:>6} {:>9} {:>8} {:>10} {:>9} {:>10}",
            "pose", "line", "colliding", "contacts", "box tests", "tri tests", "µs"
        )?;
    }
    let mut report = CollisionReport::default();
    let mut micros = Vec::with_capacity(poses.len());
    let (mut colliding, mut contacts, mut bv_tests, mut tri_tests) = (0u64, 0u64, 0u64, 0u64);
    for (i, pose) in poses.iter().enumerate() {
        let start = Instant::now();
        collide_into(
            &a,
            &Isometry::identity(),
            &b,
            &pose.pose_ab,
            options,
            &mut report,
        );
        let us = start.elapsed().as_secs_f64() * 1e6;
        micros.push(us);
        colliding += report.colliding() as u64;
        contacts += report.contacts.len() as u64;
        bv_tests += report.bv_tests;
        tri_tests += report.tri_tests;
        if args.json {
            let pairs = report.sorted_contacts();
            let line = serde_json::json!({
                "pose": i,
                "colliding": report.colliding(),
                "contacts": pairs.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(),
                "bv_tests": report.bv_tests,
                "tri_tests": report.tri_tests,
                "micros": us,
            });
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
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mean = micros.iter().sum::<f64>() / micros.len() as f64;
    let median = obbtree::math::median(&mut micros);
    if args.json {
        let summary = serde_json::json!({"summary": {
            "poses": poses.len(),
            "colliding": colliding,
            "contacts": contacts,
            "bv_tests": bv_tests,
            "tri_tests": tri_tests,
            "mean_micros": mean,
            "median_micros": median,
            "build_ms": [build_a, build_b],
        }});
        writeln!(out, "{summary}")?;
    } else {
        writeln!(
            out,
            "summary: {} poses, {} colliding, {} contacts, {} box tests, {} tri tests, query mean {:.1} µs, median {:.1} µs",
            poses.len(),
            colliding,
            contacts,
            bv_tests,
            tri_tests,
            mean,
            median
        )?;
    }
    out.flush()?;
    Ok(())
}

fn progress_bar(len: usize, what: &str) -> indicatif::ProgressBar {
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

fn bench_cmd(args: &BenchArgs) -> Result<(), Box<dyn std::error::Error>> {
    use obbtree::scenes::{self, SceneId, bench};
    let id = SceneId::from_name(&args.scene).ok_or_else(|| {
        format!(
            "unknown scene {:?}: expected one of pipes, torus, torpedo",
            args.scene
        )
    })?;
    let assets = args
        .assets
        .clone()
        .unwrap_or_else(scenes::default_assets_dir);
    let scene = scenes::load_scene(&assets, id)?;
    let every = args.every as usize;
    let bar = progress_bar(scene.path.len().div_ceil(every), "steps");
    let mut tick = |_: usize| bar.inc(1);
    let row = match args.bv {
        BvArg::Obb => bench::bench::<Obb>(&scene, every, &mut tick),
        BvArg::Aabb => bench::bench::<Aabb>(&scene, every, &mut tick),
        BvArg::Sphere => bench::bench::<Sphere>(&scene, every, &mut tick),
    };
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string(&row)?);
    } else {
        print!("{}", bench::format_table(&row));
    }
    Ok(())
}

fn experiment_cmd(args: &ExperimentArgs) -> Result<(), Box<dyn std::error::Error>> {
    use obbtree::experiments::{self, Experiment, Settings};
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

fn generate_cmd(args: &GenerateArgs) -> Result<(), Box<dyn std::error::Error>> {
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
            "{}: environment {} ({} triangles), object {} ×{} ({} triangles), path {} ({} steps, {} contacts, {:.2} per step over the second half)",
            s.scene.name(),
            s.environment.file,
            s.environment.triangles,
            s.object.file,
            s.object.scale,
            s.object.triangles,
            s.path.file,
            s.path.steps,
            s.path.contacts,
            s.path.mean_contacts_second_half
        );
    }
    println!(
        "wrote {}",
        args.out.join(obbtree::scenes::MANIFEST).display()
    );
    Ok(())
}

#[cfg(feature = "app")]
fn view_cmd(args: ViewArgs) -> ExitCode {
    use obbtree::app::{SceneChoice, ViewOptions};
    use obbtree::scenes::SceneId;
    let scene = match (args.scene.as_deref(), args.obj.as_slice()) {
        (_, [a, b]) => Some(SceneChoice::Files(a.clone(), b.clone())),
        (_, [_, ..]) => {
            eprintln!(
                "error: --obj takes exactly two files (the environment, then the moving object)"
            );
            return ExitCode::FAILURE;
        }
        (Some("wobble"), []) => Some(SceneChoice::Wobble),
        (Some(name), []) => match SceneId::from_name(name) {
            Some(id) => Some(SceneChoice::Paper(id)),
            None => {
                eprintln!(
                    "error: unknown scene {name:?}: expected pipes, torus, torpedo or wobble"
                );
                return ExitCode::FAILURE;
            }
        },
        (None, []) => None,
    };
    let exit = obbtree::app::run(ViewOptions {
        scene,
        assets: args
            .assets
            .unwrap_or_else(obbtree::scenes::default_assets_dir),
        screenshot: args.screenshot,
        frames: args.frames,
        start_step: args.step,
        overlay_level: args.overlay_level,
    });
    match exit {
        bevy::app::AppExit::Success => ExitCode::SUCCESS,
        bevy::app::AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

#[cfg(not(feature = "app"))]
fn view_cmd(_: ViewArgs) -> ExitCode {
    eprintln!(
        "obbtree: built without the `app` feature; the viewer is not available (headless commands: collide, bench, generate-assets)"
    );
    ExitCode::from(2)
}
