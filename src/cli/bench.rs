//! `obbtree bench SCENE`: replays a scene's motion path and prints its Table 3 row beside the
//! paper's (Gottschalk et al. 1996, §7.2).

use super::progress_bar;
use obbtree::prelude::*;
use obbtree::query::SeparationPolicy;
use obbtree::scenes::{self, SceneId, bench};
use std::path::PathBuf;

/// The arguments of `bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Scene: pipes, torus or torpedo.
    pub scene: String,
    /// Bounding volume of both hierarchies.
    #[arg(long, value_enum, default_value = "obb")]
    pub bv: BvKind,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Assets folder (default: ./assets, else the source tree's).
    #[arg(long)]
    pub assets: Option<PathBuf>,
    /// Replay only every N-th pose of the path (the sphere tree on the pipes is slow).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub every: u64,
    /// Where each query starts: from the previous pose's separation list (`deferred`, the
    /// default: the path is coherent, Li & Chen §4; or `predicted`) or from the root pair
    /// (`top-down`, as the paper's Table 3). The contacts are the same; the box tests and times
    /// are not.
    #[arg(long, value_enum, default_value = "deferred")]
    pub start: SeparationPolicy,
    /// Where a leaf meets an internal node, test the leaf's box (as the paper and RAPID do)
    /// instead of its triangle (the default for OBB trees).
    #[arg(long)]
    pub leaf_boxes: bool,
}

/// Runs `obbtree bench`.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
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
    let options = if args.leaf_boxes {
        QueryOptions::default().leaf_boxes()
    } else {
        QueryOptions::default()
    };
    let row = match args.bv {
        BvKind::Obb => bench::bench::<Obb>(&scene, every, args.start, &options, &mut tick),
        BvKind::Aabb => bench::bench::<Aabb>(&scene, every, args.start, &options, &mut tick),
        BvKind::Sphere => bench::bench::<Sphere>(&scene, every, args.start, &options, &mut tick),
    };
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string(&row)?);
    } else {
        print!("{}", bench::format_table(&row));
        let ns = |x: Option<f64>| x.map_or("–".to_string(), |v| format!("{:.1} ns", v * 1e9));
        println!(
            "cost equation T = T_0 + N_v·C_v + N_p·C_p on {} poses of the path: T_0 {:.2} µs, \
             C_v {}, C_p {}",
            bench::COST_SAMPLE,
            row.costs.t_0 * 1e6,
            ns(row.costs.c_v),
            ns(row.costs.c_p)
        );
        println!(
            "queries start from: {}",
            match row.start {
                SeparationPolicy::TopDown => "the root pair (top-down, as the paper's)",
                SeparationPolicy::Predicted =>
                    "the previous pose's separation list (Li & Chen Fig. 4a)",
                SeparationPolicy::Deferred =>
                    "the previous pose's separation list (Li & Chen Fig. 4b)",
            }
        );
    }
    Ok(())
}
