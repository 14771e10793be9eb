//! `obbtree build A.obj -o A.obbt`: builds a model's hierarchy and saves it to a tree file
//! (`obbtree::bvh::tree_file`), then loads it back to check it and time the load.

use super::collide::{Preset, build_options};
use obbtree::bvh::{Persistent, tree_file};
use obbtree::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

/// The arguments of `build`.
#[derive(clap::Args)]
pub struct Args {
    /// The model (OBJ).
    pub mesh: PathBuf,
    /// The tree file to write [default: the model's path with the extension `.obbt`].
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Bounding volume of the hierarchy.
    #[arg(long, value_enum, default_value = "obb")]
    pub bv: BvKind,
    /// Settings to start from (as `collide --preset`).
    #[arg(long, value_enum, default_value = "default")]
    pub preset: Preset,
    /// Split rule [default: binned, or the preset's].
    #[arg(long, value_enum)]
    pub split: Option<SplitRule>,
    /// How OBBs are oriented [default: dito, or the preset's].
    #[arg(long, value_enum)]
    pub fit: Option<ObbFit>,
    /// One JSON object instead of the sentence.
    #[arg(long)]
    pub json: bool,
}

/// Runs `obbtree build`.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let build = build_options(args.preset, args.split, args.fit);
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.mesh.with_extension("obbt"));
    let start = Instant::now();
    let mesh = load_obj(&args.mesh)?;
    let read_ms = start.elapsed().as_secs_f64() * 1e3;
    match args.bv {
        BvKind::Obb => run_with::<Obb>(args, mesh, &build, &out, read_ms),
        BvKind::Aabb => run_with::<Aabb>(args, mesh, &build, &out, read_ms),
        BvKind::Sphere => run_with::<Sphere>(args, mesh, &build, &out, read_ms),
    }
}

fn run_with<B: Persistent>(
    args: &Args,
    mesh: TriMesh,
    build: &BuildOptions,
    out: &std::path::Path,
    read_ms: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let mesh = std::sync::Arc::new(mesh);
    let start = Instant::now();
    let tree = super::build_with_bar::<B>(mesh.clone(), build);
    let build_ms = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    tree.save(out)?;
    let save_ms = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let loaded = Bvh::<B>::load(mesh.clone(), out)?;
    let load_ms = start.elapsed().as_secs_f64() * 1e3;
    if loaded.nodes().len() != tree.nodes().len() || loaded.depth() != tree.depth() {
        return Err(format!(
            "{}: the saved tree does not read back as written",
            out.display()
        )
        .into());
    }
    let bytes = std::fs::metadata(out)?.len();
    let triangles = mesh.triangle_count();
    let hash = tree_file::mesh_hash(&mesh);
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "mesh": args.mesh,
                "out": out,
                "bv": B::KIND,
                "split": build.split,
                "fit": build.fit,
                "triangles": triangles,
                "depth": tree.depth(),
                "bytes_per_triangle": tree.bytes_per_triangle(),
                "file_bytes": bytes,
                "mesh_hash": hash.to_hex(),
                "read_ms": read_ms,
                "build_ms": build_ms,
                "save_ms": save_ms,
                "load_ms": load_ms,
            })
        );
    } else {
        println!(
            "{}: {} triangles (read in {:.1} ms); {} tree (split {:?}, fit {:?}) built in {:.1} ms, depth {}, {:.0} bytes/triangle",
            args.mesh.display(),
            triangles,
            read_ms,
            B::KIND,
            build.split,
            build.fit,
            build_ms,
            tree.depth(),
            tree.bytes_per_triangle(),
        );
        println!(
            "wrote {} ({} bytes, mesh hash {hash}) in {:.1} ms; it loads in {:.1} ms ({:.3}× the build)",
            out.display(),
            bytes,
            save_ms,
            load_ms,
            load_ms / build_ms
        );
    }
    Ok(())
}
