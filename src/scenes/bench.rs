//! Table 3 of Gottschalk et al. 1996 (§7.2), reproduced: build both hierarchies of a scene,
//! replay its motion path with the all-contacts query, and report the paper's row beside ours.

use super::{PaperRow, Scene, SceneSpec};
use crate::bv::BoundingVolume;
use crate::bvh::{BuildOptions, Bvh};
use crate::math::Isometry;
use crate::query::{CollisionReport, QueryOptions, collide_into};
use serde::Serialize;
use std::time::Instant;

/// One row of Table 3, measured here. Times are wall-clock on this machine.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// Scene name.
    pub scene: &'static str,
    /// Bounding volume: `obb`, `aabb` or `sphere`.
    pub bv: &'static str,
    /// Environment size, triangles.
    pub environment_triangles: usize,
    /// Object size, triangles.
    pub object_triangles: usize,
    /// Poses replayed.
    pub steps: usize,
    /// Every how many steps of the path a pose was replayed (1: all).
    pub every: usize,
    /// Contacts (intersecting triangle pairs) summed over the path.
    pub contacts: u64,
    /// Box (bounding volume) tests summed over the path, N_v.
    pub box_tests: u64,
    /// Triangle tests summed over the path, N_p.
    pub tri_tests: u64,
    /// Time of all queries, seconds.
    pub total_seconds: f64,
    /// Mean time per query, microseconds.
    pub avg_query_micros: f64,
    /// Median time per query, microseconds.
    pub median_query_micros: f64,
    /// Total time over box tests, nanoseconds: the paper's "average time per box test" (it
    /// includes the triangle tests, as the paper's does).
    pub avg_box_test_nanos: f64,
    /// Mean contacts per step.
    pub avg_contacts_per_step: f64,
    /// Build time of the environment's and the object's hierarchy, milliseconds.
    pub build_ms: [f64; 2],
    /// Memory of both hierarchies (nodes, not meshes) over their triangles, bytes.
    pub bytes_per_triangle: f64,
    /// The paper's row, where it has one.
    pub paper: Option<PaperRow>,
}

/// Builds both `B` trees of `scene` and replays its path (every `every`-th pose; 1 for all);
/// `progress` is called after each replayed pose.
pub fn bench<B: BoundingVolume>(
    scene: &Scene,
    every: usize,
    progress: &mut dyn FnMut(usize),
) -> BenchRow {
    let every = every.max(1);
    let build = BuildOptions::default();
    let t0 = Instant::now();
    let a = Bvh::<B>::build(scene.environment.clone(), &build);
    let build_a = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = Instant::now();
    let b = Bvh::<B>::build(scene.object.clone(), &build);
    let build_b = t1.elapsed().as_secs_f64() * 1e3;

    let options = QueryOptions::default();
    let mut report = CollisionReport::default();
    let mut times = Vec::with_capacity(scene.path.len());
    let (mut contacts, mut box_tests, mut tri_tests) = (0u64, 0u64, 0u64);
    let identity = Isometry::identity();
    for (i, pose) in scene.path.iter().step_by(every).enumerate() {
        let t = Instant::now();
        collide_into(&a, &identity, &b, &pose.pose_ab, &options, &mut report);
        times.push(t.elapsed().as_secs_f64());
        contacts += report.contacts.len() as u64;
        box_tests += report.bv_tests;
        tri_tests += report.tri_tests;
        progress(i + 1);
    }
    let total: f64 = times.iter().sum();
    let steps = times.len();
    let median = crate::math::median(&mut times);
    let tris = a.mesh().triangle_count() + b.mesh().triangle_count();
    BenchRow {
        scene: scene.id.name(),
        bv: match B::KIND {
            crate::bv::BvKind::Obb => "obb",
            crate::bv::BvKind::Aabb => "aabb",
            crate::bv::BvKind::Sphere => "sphere",
        },
        environment_triangles: a.mesh().triangle_count(),
        object_triangles: b.mesh().triangle_count(),
        steps,
        every,
        contacts,
        box_tests,
        tri_tests,
        total_seconds: total,
        avg_query_micros: total / steps.max(1) as f64 * 1e6,
        median_query_micros: median * 1e6,
        avg_box_test_nanos: if box_tests == 0 {
            0.0
        } else {
            total / box_tests as f64 * 1e9
        },
        avg_contacts_per_step: contacts as f64 / steps.max(1) as f64,
        build_ms: [build_a, build_b],
        bytes_per_triangle: (a.memory_bytes() + b.memory_bytes()) as f64 / tris as f64,
        paper: Some(SceneSpec::of(scene.id).paper),
    }
}

/// The sorted contact pairs of `B` trees at the given steps of the scene's path (for comparing
/// bounding volume types: they must agree).
pub fn contacts_at<B: BoundingVolume>(scene: &Scene, steps: &[usize]) -> Vec<Vec<(u32, u32)>> {
    let build = BuildOptions::default();
    let a = Bvh::<B>::build(scene.environment.clone(), &build);
    let b = Bvh::<B>::build(scene.object.clone(), &build);
    let options = QueryOptions::default();
    let mut report = CollisionReport::default();
    steps
        .iter()
        .map(|&s| {
            collide_into(
                &a,
                &Isometry::identity(),
                &b,
                &scene.path[s].pose_ab,
                &options,
                &mut report,
            );
            report.sorted_contacts()
        })
        .collect()
}

/// The row as a text table beside the paper's figures.
pub fn format_table(row: &BenchRow) -> String {
    use std::fmt::Write as _;
    let paper = row.paper;
    let p = |f: &dyn Fn(&PaperRow) -> Option<String>| {
        paper.as_ref().and_then(f).unwrap_or_else(|| "—".into())
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Table 3 ({} scene, {} trees)          {:>16} {:>16}",
        row.scene,
        row.bv.to_uppercase(),
        "this machine",
        "paper"
    );
    let mut line = |name: &str, ours: String, theirs: String| {
        let _ = writeln!(s, "  {name:<34} {ours:>16} {theirs:>16}");
    };
    line(
        "Environment size (triangles)",
        row.environment_triangles.to_string(),
        p(&|r| Some(r.environment_triangles.to_string())),
    );
    line(
        "Object size (triangles)",
        row.object_triangles.to_string(),
        p(&|r| Some(r.object_triangles.to_string())),
    );
    line(
        "Num of steps",
        row.steps.to_string(),
        p(&|r| r.steps.map(|v| v.to_string())),
    );
    line(
        "Num of contacts",
        row.contacts.to_string(),
        p(&|r| r.contacts.map(|v| v.to_string())),
    );
    line(
        "Num of box-box tests",
        row.box_tests.to_string(),
        p(&|r| r.box_tests.map(|v| v.to_string())),
    );
    line(
        "Num of tri-tri tests",
        row.tri_tests.to_string(),
        p(&|r| r.tri_tests.map(|v| v.to_string())),
    );
    line(
        "Time (s)",
        format!("{:.3}", row.total_seconds),
        p(&|r| r.total_seconds.map(|v| format!("{v:.1}"))),
    );
    line(
        "Ave. int. detec. time (µs)",
        format!("{:.1}", row.avg_query_micros),
        p(&|r| r.avg_query_micros.map(|v| format!("{v:.0}"))),
    );
    line(
        "Median int. detec. time (µs)",
        format!("{:.1}", row.median_query_micros),
        "—".into(),
    );
    line(
        "Ave. time per box test (ns)",
        format!("{:.1}", row.avg_box_test_nanos),
        p(&|r| r.avg_box_test_nanos.map(|v| format!("{v:.0}"))),
    );
    line(
        "Ave. contacts per step",
        format!("{:.2}", row.avg_contacts_per_step),
        p(&|r| r.avg_contacts_per_step.map(|v| format!("{v:.1}"))),
    );
    line(
        "Build time, env / object (ms)",
        format!("{:.0} / {:.0}", row.build_ms[0], row.build_ms[1]),
        "—".into(),
    );
    line(
        "Hierarchy bytes per triangle",
        format!("{:.1}", row.bytes_per_triangle),
        "—".into(),
    );
    if let Some(r) = paper {
        let _ = writeln!(s, "  (paper: {})", r.machine);
    }
    s
}
