//! `obbtree bench SCENE`: replays a scene's motion path and prints its Table 3 row beside the
//! paper's (Gottschalk et al. 1996, §7.2).

use super::progress_bar;
use obbtree::bvh::TreeCache;
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
    /// Run the dynamics engine from the path's start for the path's steps instead of replaying
    /// the path (simulate mode's work, without rendering): median and 95th percentile µs per
    /// step and per frame of two steps, and the time-of-impact searches' share.
    #[arg(long)]
    pub simulate: bool,
    /// Load both trees from this folder when they are there (`build_ms` is then the load
    /// time); build and save them there when not.
    #[arg(long, value_name = "DIR")]
    pub tree_cache: Option<PathBuf>,
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
    if args.simulate {
        return simulate(&scene, id, args.json);
    }
    let every = args.every as usize;
    let bar = progress_bar(scene.path.len().div_ceil(every), "steps");
    let mut tick = |_: usize| bar.inc(1);
    let options = if args.leaf_boxes {
        QueryOptions::default().leaf_boxes()
    } else {
        QueryOptions::default()
    };
    let cache = args.tree_cache.clone().map(TreeCache::new);
    let cache = cache.as_ref();
    let row = match args.bv {
        BvKind::Obb => bench::bench::<Obb>(&scene, every, args.start, &options, cache, &mut tick),
        BvKind::Aabb => bench::bench::<Aabb>(&scene, every, args.start, &options, cache, &mut tick),
        BvKind::Sphere => {
            bench::bench::<Sphere>(&scene, every, args.start, &options, cache, &mut tick)
        }
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
        if let Some(cache) = cache {
            let word = |loaded: bool| if loaded { "loaded" } else { "built and saved" };
            println!(
                "trees: environment {}, object {} (tree cache {})",
                word(row.loaded[0]),
                word(row.loaded[1]),
                cache.dir().display()
            );
        }
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

/// `bench --simulate`: the engine's time per step and per frame (two steps) on the scene.
fn simulate(
    scene: &scenes::Scene,
    id: SceneId,
    json: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    use obbtree::scenes::SceneSpec;
    use obbtree::scenes::dynamics::Simulation;
    use obbtree::timing::{median, timed};
    let spec = SceneSpec::of(id);
    let build = BuildOptions::default();
    let env = ObbTree::build(scene.environment.clone(), &build);
    let obj = ObbTree::build(scene.object.clone(), &build);
    let start = scene.path.first().map_or(spec.start, |p| p.pose_ab);
    let mut sim = Simulation::new(&env, &obj, &start, spec.v0, spec.w0, &spec.dynamics);
    let (mut steps, mut frames, mut toi) = (Vec::new(), Vec::new(), Vec::new());
    let (mut toi_queries, mut impacts) = (0u64, 0u64);
    for _ in 0..spec.dynamics.steps / 2 {
        let mut frame = 0.0;
        for _ in 0..2 {
            let (stats, seconds) = timed(|| sim.step(&env, &obj));
            steps.push(seconds * 1e6);
            frame += seconds * 1e6;
            if stats.toi_queries > 0 {
                toi.push(stats.toi_seconds * 1e6);
            }
            toi_queries += stats.toi_queries as u64;
            impacts += stats.impacts as u64;
        }
        frames.push(frame);
    }
    let p95 = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(((v.len().max(1) - 1) as f64 * 0.95).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let (step_p95, frame_p95, toi_p95) = (p95(&mut steps), p95(&mut frames), p95(&mut toi));
    let (step_med, frame_med, toi_med) =
        (median(&mut steps), median(&mut frames), median(&mut toi));
    if json {
        println!(
            "{}",
            serde_json::json!({"scene": id.name(), "steps": steps.len(), "impacts": impacts,
                "step_micros": [step_med, step_p95], "frame_micros": [frame_med, frame_p95],
                "flights": toi.len(), "toi_micros": [toi_med, toi_p95], "distance_queries": toi_queries})
        );
    } else {
        println!(
            "{id}: {} steps, {impacts} impacts; per step median {step_med:.1} µs, p95 {step_p95:.1} µs; per frame of 2 steps median {frame_med:.1} µs, p95 {frame_p95:.1} µs; {} steps flew by time of impact: median {toi_med:.1} µs, p95 {toi_p95:.1} µs, {toi_queries} distance queries",
            steps.len(),
            toi.len()
        );
    }
    Ok(())
}
