//! `obbtree view`: the interactive viewer.

use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `view`.
#[derive(clap::Args, Default)]
pub struct Args {
    /// Scene to open: pipes, torus, torpedo or wobble.
    #[arg(long)]
    pub scene: Option<String>,
    /// Two OBJ files: the environment, then the moving object.
    #[arg(long = "obj", num_args = 1)]
    pub obj: Vec<PathBuf>,
    /// Assets folder (default: ./assets, else the source tree's).
    #[arg(long)]
    pub assets: Option<PathBuf>,
    /// Save the window as PNG after `--frames` frames of the scene, then exit.
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot.
    #[arg(long, default_value_t = 60)]
    pub frames: u32,
    /// Start the scene's path at this step.
    #[arg(long, default_value_t = 0)]
    pub step: usize,
    /// Show this level of the moving object's OBB tree from the start.
    #[arg(long)]
    pub overlay_level: Option<usize>,
    /// Start in simulate mode: the dynamics engine moves the object from the path's start.
    #[arg(long)]
    pub simulate: bool,
    /// With --simulate: throw the object from its start with this velocity, m/s in the
    /// environment's frame (e.g. `--throw 0,-50,0`); speeds up to 500 m/s.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "VX,VY,VZ",
        requires = "simulate",
        allow_negative_numbers = true
    )]
    pub throw: Option<Vec<f64>>,
    /// Start with OBB, AABB and sphere trees side by side.
    #[arg(long)]
    pub compare: bool,
    /// Light every triangle pair within this distance (world units) from the start.
    #[arg(long, value_name = "T")]
    pub tolerance: Option<f64>,
    /// Keep built trees in this folder and load them from it the next time [default: the
    /// user's cache folder, e.g. ~/.cache/obbtree/trees].
    #[arg(long, value_name = "DIR")]
    pub tree_cache: Option<PathBuf>,
    /// Build every tree; neither read nor write the tree cache.
    #[arg(long, conflicts_with = "tree_cache")]
    pub no_tree_cache: bool,
}

/// Runs `obbtree view` (the default command).
#[cfg(feature = "app")]
pub fn run(args: Args) -> ExitCode {
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
    if let Some(t) = args.tolerance
        && !(t.is_finite() && t >= 0.0)
    {
        eprintln!("error: {}", obbtree::query::ProximityError::Tolerance(t));
        return ExitCode::FAILURE;
    }
    let throw = match args.throw.as_deref() {
        None => None,
        Some(&[x, y, z]) if [x, y, z].iter().all(|v| v.is_finite()) => Some([x, y, z]),
        Some(v) => {
            eprintln!("error: --throw takes three finite numbers VX,VY,VZ (m/s), got {v:?}");
            return ExitCode::FAILURE;
        }
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
        simulate: args.simulate,
        throw,
        compare: args.compare,
        tolerance: args.tolerance,
        paused: false,
        tree_cache: if args.no_tree_cache {
            None
        } else {
            args.tree_cache
                .or_else(|| dirs::cache_dir().map(|d| d.join("obbtree").join("trees")))
        },
    });
    match exit {
        bevy::app::AppExit::Success => ExitCode::SUCCESS,
        bevy::app::AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

/// Without the `app` feature: says so.
#[cfg(not(feature = "app"))]
pub fn run(_: Args) -> ExitCode {
    eprintln!(
        "obbtree: built without the `app` feature; the viewer is not available (headless commands: collide, bench, generate-assets)"
    );
    ExitCode::from(2)
}
