//! Table 3 of Gottschalk et al. 1996 (§7.2), reproduced: build both hierarchies of a scene,
//! replay its motion path with the all-contacts query, and report the paper's row beside ours.
//!
//! This module is the one home of Table 3: [`bench()`] measures a [`BenchRow`] (the JSON of
//! `obbtree bench --json`); [`Table3Row`] puts a measured row and the paper's in the same shape
//! (the CSV rows of `obbtree experiment paper-tables`); [`TABLE3_LINES`] are the table's lines,
//! in the paper's order, printed down the page by [`format_table`] (`obbtree bench`) and across
//! by the experiment's summary.

use super::{PaperRow, Scene, SceneId, SceneSpec};
use crate::bv::{BoundingVolume, BvKind};
use crate::bvh::{BuildOptions, Bvh, Persistent, TreeCache, TreeOrigin, mesh_hash};
use crate::math::{Isometry, relative_parts};
use crate::mesh::TriMesh;
use crate::query::{
    CollideWith, CollisionReport, ContactMode, QueryOptions, SeparationList, SeparationPolicy,
    collide_with,
};
use crate::timing::{median, timed};
use serde::Serialize;
use std::sync::Arc;

/// One row of Table 3, measured here. Times are wall-clock on this machine.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// Scene (`pipes`, `torus`, `torpedo` in JSON).
    pub scene: SceneId,
    /// Bounding volume (`obb`, `aabb` or `sphere` in JSON).
    pub bv: BvKind,
    /// Environment size, triangles.
    pub environment_triangles: usize,
    /// Object size, triangles.
    pub object_triangles: usize,
    /// Poses replayed.
    pub steps: usize,
    /// Every how many steps of the path a pose was replayed (1: all).
    pub every: usize,
    /// Where each query started: from the root pair (`top-down`, the paper's) or from the
    /// previous pose's separation list (`predicted`, `deferred`: Li & Chen §4).
    pub start: SeparationPolicy,
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
    /// Eq. (1)'s constants T_0, C_v and C_p (seconds) measured with [`crate::query::cost`] on
    /// [`COST_SAMPLE`] poses spread over the path (all contacts).
    pub costs: crate::timing::SampleCosts,
    /// Build time of the environment's and the object's hierarchy, milliseconds (with a tree
    /// cache, the time to hash the mesh and load the tree where it was there).
    pub build_ms: [f64; 2],
    /// Whether each hierarchy was loaded from the tree cache rather than built.
    pub loaded: [bool; 2],
    /// Memory of both hierarchies (nodes, not meshes) over their triangles, bytes.
    pub bytes_per_triangle: f64,
    /// The paper's row, where it has one.
    pub paper: Option<PaperRow>,
}

/// Poses of a path on which [`BenchRow::costs`] is measured.
pub const COST_SAMPLE: usize = 25;

/// Builds both `B` trees of `scene` and replays its path (every `every`-th pose; 1 for all),
/// each query from the root pair ([`SeparationPolicy::TopDown`], as the paper's Table 3) or from
/// the previous pose's separation list (Li & Chen §4: the same contacts, fewer box tests on a
/// coherent path), with `options` (all contacts: its contact mode is not read; the paper's
/// Table 3 tests every leaf by its box, [`QueryOptions::leaf_boxes`]); `progress` is called
/// after each replayed pose. With `cache`, the trees are loaded from it when it holds them
/// (else built and saved there).
pub fn bench<B: Persistent>(
    scene: &Scene,
    every: usize,
    start: SeparationPolicy,
    options: &QueryOptions,
    cache: Option<&TreeCache>,
    progress: &mut dyn FnMut(usize),
) -> BenchRow {
    let every = every.max(1);
    let build = BuildOptions::default();
    let tree = |mesh: &Arc<TriMesh>| match cache {
        Some(cache) => {
            let cached = cache.tree::<B>(mesh, &mesh_hash(mesh), &build);
            (cached.tree, cached.origin == TreeOrigin::Loaded)
        }
        None => (Bvh::<B>::build(mesh.clone(), &build), false),
    };
    let ((a, loaded_a), build_a) = timed(|| tree(&scene.environment));
    let ((b, loaded_b), build_b) = timed(|| tree(&scene.object));

    let options = QueryOptions {
        mode: ContactMode::AllContacts,
        ..*options
    };
    let mut report = CollisionReport::default();
    let mut times = Vec::with_capacity(scene.path.len());
    let (mut contacts, mut box_tests, mut tri_tests) = (0u64, 0u64, 0u64);
    let identity = Isometry::identity();
    let mut list = SeparationList::new(start);
    for (i, pose) in scene.path.iter().step_by(every).enumerate() {
        let ((), seconds) = timed(|| match start {
            SeparationPolicy::TopDown => {
                let (rot_ab, pos_ab) = relative_parts(&identity, &pose.pose_ab);
                collide_with(
                    &a,
                    &b,
                    &rot_ab,
                    &pos_ab,
                    &options,
                    CollideWith::default(),
                    &mut report,
                )
            }
            _ => {
                let rot = pose.pose_ab.rotation.to_rotation_matrix().into_inner();
                let pos = pose.pose_ab.translation.vector;
                collide_with(
                    &a,
                    &b,
                    &rot,
                    &pos,
                    &options,
                    CollideWith::separation(&mut list),
                    &mut report,
                )
            }
        });
        times.push(seconds);
        contacts += report.contacts.len() as u64;
        box_tests += report.bv_tests;
        tri_tests += report.tri_tests;
        progress(i + 1);
    }
    let total: f64 = times.iter().sum();
    let steps = times.len();
    let stride = (scene.path.len() / COST_SAMPLE).max(1);
    let sample = scene.path.iter().step_by(stride).map(|p| {
        let rot = p.pose_ab.rotation.to_rotation_matrix().into_inner();
        (rot, p.pose_ab.translation.vector)
    });
    let costs = crate::timing::sample_costs(&a, &b, sample, &options.overlap);
    let median = median(&mut times);
    let tris = a.mesh().triangle_count() + b.mesh().triangle_count();
    BenchRow {
        scene: scene.id,
        bv: B::KIND,
        environment_triangles: a.mesh().triangle_count(),
        object_triangles: b.mesh().triangle_count(),
        steps,
        every,
        start,
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
        costs,
        build_ms: [build_a * 1e3, build_b * 1e3],
        loaded: [loaded_a, loaded_b],
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
            {
                let (rot_ab, pos_ab) =
                    relative_parts(&Isometry::identity(), &scene.path[s].pose_ab);
                collide_with(
                    &a,
                    &b,
                    &rot_ab,
                    &pos_ab,
                    &options,
                    CollideWith::default(),
                    &mut report,
                )
            };
            report.sorted_contacts()
        })
        .collect()
}

/// Where a row of Table 3 comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table3Source {
    /// The paper's figures, measured on the named machine.
    Paper(&'static str),
    /// Measured here with trees of this kind.
    Measured(BvKind),
}

impl std::fmt::Display for Table3Source {
    /// `paper (MACHINE)`, or the tree kind: `obb`, `aabb`, `sphere`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Table3Source::Paper(machine) => write!(f, "paper ({machine})"),
            Table3Source::Measured(kind) => f.write_str(kind.name()),
        }
    }
}

impl Serialize for Table3Source {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One row of Table 3, the paper's or a measured one, in one shape: figures the paper does not
/// give, or that are ours only, are `None`. The CSV row of `obbtree experiment paper-tables`
/// (the first twelve columns in the order of earlier versions).
#[derive(Clone, Debug, Serialize)]
pub struct Table3Row {
    /// Scene.
    pub scene: SceneId,
    /// The paper or a tree kind (`paper (MACHINE)`, `obb`, `aabb`, `sphere`).
    pub source: Table3Source,
    /// Poses of the path (measured: poses replayed).
    pub steps: Option<usize>,
    /// Every how many steps of the path a pose was replayed (measured only).
    pub every: Option<usize>,
    /// Contacts over the path.
    pub contacts: Option<u64>,
    /// Box tests over the path, N_v.
    pub box_tests: Option<u64>,
    /// Triangle tests over the path, N_p.
    pub tri_tests: Option<u64>,
    /// Time of all queries, seconds.
    pub total_seconds: Option<f64>,
    /// Mean time per query, microseconds.
    pub avg_query_micros: Option<f64>,
    /// Median time per query, microseconds (measured only).
    pub median_query_micros: Option<f64>,
    /// Box tests per query.
    pub box_tests_per_query: Option<f64>,
    /// Mean contacts per step.
    pub avg_contacts_per_step: Option<f64>,
    /// Environment size, triangles.
    pub environment_triangles: usize,
    /// Object size, triangles.
    pub object_triangles: usize,
    /// Total time over box tests, nanoseconds.
    pub avg_box_test_nanos: Option<f64>,
    /// Build time of the environment's hierarchy, milliseconds (measured only).
    pub build_environment_ms: Option<f64>,
    /// Build time of the object's hierarchy, milliseconds (measured only).
    pub build_object_ms: Option<f64>,
    /// Hierarchy bytes per triangle (measured only).
    pub bytes_per_triangle: Option<f64>,
}

impl Table3Row {
    /// A measured row.
    pub fn measured(r: &BenchRow) -> Self {
        Self {
            scene: r.scene,
            source: Table3Source::Measured(r.bv),
            steps: Some(r.steps),
            every: Some(r.every),
            contacts: Some(r.contacts),
            box_tests: Some(r.box_tests),
            tri_tests: Some(r.tri_tests),
            total_seconds: Some(r.total_seconds),
            avg_query_micros: Some(r.avg_query_micros),
            median_query_micros: Some(r.median_query_micros),
            box_tests_per_query: Some(r.box_tests as f64 / r.steps.max(1) as f64),
            avg_contacts_per_step: Some(r.avg_contacts_per_step),
            environment_triangles: r.environment_triangles,
            object_triangles: r.object_triangles,
            avg_box_test_nanos: Some(r.avg_box_test_nanos),
            build_environment_ms: Some(r.build_ms[0]),
            build_object_ms: Some(r.build_ms[1]),
            bytes_per_triangle: Some(r.bytes_per_triangle),
        }
    }

    /// The paper's row for `scene`.
    pub fn paper(scene: SceneId, p: &PaperRow) -> Self {
        Self {
            scene,
            source: Table3Source::Paper(p.machine),
            steps: p.steps,
            every: None,
            contacts: p.contacts,
            box_tests: p.box_tests,
            tri_tests: p.tri_tests,
            total_seconds: p.total_seconds,
            avg_query_micros: p.avg_query_micros,
            median_query_micros: None,
            box_tests_per_query: p.box_tests.zip(p.steps).map(|(b, s)| b as f64 / s as f64),
            avg_contacts_per_step: p.avg_contacts_per_step,
            environment_triangles: p.environment_triangles,
            object_triangles: p.object_triangles,
            avg_box_test_nanos: p.avg_box_test_nanos,
            build_environment_ms: None,
            build_object_ms: None,
            bytes_per_triangle: None,
        }
    }

    /// Whether this is the paper's row (its figures are printed to the paper's precision).
    pub fn is_paper(&self) -> bool {
        matches!(self.source, Table3Source::Paper(_))
    }

    /// `ours` decimals for a measured row, `paper` for the paper's.
    fn decimals(&self, ours: usize, paper: usize) -> usize {
        if self.is_paper() { paper } else { ours }
    }
}

/// A figure of Table 3, to be printed plain (`obbtree bench`) or with thousands separators
/// (the experiment's summary).
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A count.
    Count(u64),
    /// A real number with this many decimals.
    Real(f64, usize),
    /// Text, printed as it is.
    Text(String),
}

impl Cell {
    /// Plain: `1704187`, `8.9`.
    pub fn plain(&self) -> String {
        match self {
            Cell::Count(n) => n.to_string(),
            Cell::Real(v, d) => format!("{:.*}", *d, v),
            Cell::Text(t) => t.clone(),
        }
    }

    /// Counts with thousands separators: `1,704,187`.
    pub fn grouped(&self) -> String {
        match self {
            Cell::Count(n) => thousands(*n),
            other => other.plain(),
        }
    }
}

/// `n` with a comma every three digits: `1,704,187`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// One line of Table 3: its label (the paper's wording where the paper has the line) and its
/// figure in a row, `None` where the row has none.
pub struct Table3Line {
    /// The label.
    pub label: &'static str,
    /// The figure of a row.
    pub value: fn(&Table3Row) -> Option<Cell>,
}

/// The lines of Table 3 in the paper's order, then ours only (median, build time, memory).
pub const TABLE3_LINES: [Table3Line; 13] = [
    Table3Line {
        label: "Environment size (triangles)",
        value: |r| Some(Cell::Count(r.environment_triangles as u64)),
    },
    Table3Line {
        label: "Object size (triangles)",
        value: |r| Some(Cell::Count(r.object_triangles as u64)),
    },
    Table3Line {
        label: "Num of steps",
        value: |r| r.steps.map(|v| Cell::Count(v as u64)),
    },
    Table3Line {
        label: "Num of contacts",
        value: |r| r.contacts.map(Cell::Count),
    },
    Table3Line {
        label: "Num of box-box tests",
        value: |r| r.box_tests.map(Cell::Count),
    },
    Table3Line {
        label: "Num of tri-tri tests",
        value: |r| r.tri_tests.map(Cell::Count),
    },
    Table3Line {
        label: "Time (s)",
        value: |r| r.total_seconds.map(|v| Cell::Real(v, r.decimals(3, 1))),
    },
    Table3Line {
        label: "Ave. int. detec. time (µs)",
        value: |r| r.avg_query_micros.map(|v| Cell::Real(v, r.decimals(1, 0))),
    },
    Table3Line {
        label: "Median int. detec. time (µs)",
        value: |r| r.median_query_micros.map(|v| Cell::Real(v, 1)),
    },
    Table3Line {
        label: "Ave. time per box test (ns)",
        value: |r| {
            r.avg_box_test_nanos
                .map(|v| Cell::Real(v, r.decimals(1, 0)))
        },
    },
    Table3Line {
        label: "Ave. contacts per step",
        value: |r| {
            r.avg_contacts_per_step
                .map(|v| Cell::Real(v, r.decimals(2, 1)))
        },
    },
    Table3Line {
        label: "Build time, env / object (ms)",
        value: |r| {
            r.build_environment_ms
                .zip(r.build_object_ms)
                .map(|(a, b)| Cell::Text(format!("{a:.0} / {b:.0}")))
        },
    },
    Table3Line {
        label: "Hierarchy bytes per triangle",
        value: |r| r.bytes_per_triangle.map(|v| Cell::Real(v, 1)),
    },
];

/// The row as a text table beside the paper's figures (`obbtree bench`).
pub fn format_table(row: &BenchRow) -> String {
    use std::fmt::Write as _;
    let ours = Table3Row::measured(row);
    let paper = row.paper.as_ref().map(|p| Table3Row::paper(row.scene, p));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Table 3 ({} scene, {} trees)          {:>16} {:>16}",
        row.scene,
        row.bv.name().to_uppercase(),
        "this machine",
        "paper"
    );
    for line in &TABLE3_LINES {
        let cell = |r: Option<&Table3Row>| {
            r.and_then(|r| (line.value)(r))
                .map_or_else(|| "—".to_string(), |c| c.plain())
        };
        let _ = writeln!(
            s,
            "  {:<34} {:>16} {:>16}",
            line.label,
            cell(Some(&ours)),
            cell(paper.as_ref())
        );
    }
    if let Some(p) = &row.paper {
        let _ = writeln!(s, "  (paper: {})", p.machine);
    }
    s
}
