//! The cost equation side by side, live (the paper's §6 comparison): OBB, AABB and sphere trees
//! queried on the same pose, with their N_v, N_p, time and ratios to the OBB tree's; while the
//! bodies are apart, each tree's distance query too (PQP's, Larsen et al. 1999).
//!
//! The three queries run as one job on the async compute pool, on the pose of the frame that
//! started it, while the frame goes on: a slow tree (the sphere tree on the pipes takes seconds)
//! never stalls the viewer. When a job finishes, the next starts with the then current pose; on
//! scenes where the three queries take less than a frame the table is a frame old.

use super::metrics::{FrameWork, Stage};
use super::motion::KindsInUse;
use super::query::QuerySettings;
use super::scene::{CollisionScene, FrameSet, KINDS, KindVisitor, TreeKind, Trees, dispatch};
use crate::bv::BvKind;
use crate::math::Isometry;
use crate::query::{
    CollideWith, CollisionReport, DistanceOptions, QueryOptions, collide_with, distance_with,
};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use std::collections::VecDeque;

/// Whether the side-by-side comparison runs.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompareSettings {
    /// Run it (key C, or the panel).
    pub enabled: bool,
}

/// One tree type's query on the compared pose.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    /// The tree type.
    pub kind: BvKind,
    /// Box tests, N_v.
    pub bv_tests: u64,
    /// Triangle tests, N_p.
    pub tri_tests: u64,
    /// Contacts.
    pub contacts: usize,
    /// Query wall time, µs.
    pub micros: f64,
    /// Whether its contacts are the OBB tree's (sorted sets equal).
    pub same_contacts: bool,
    /// The distance query on the pose, when the bodies are apart.
    pub distance: Option<CompareDistance>,
}

/// One tree type's distance query on the compared pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompareDistance {
    /// The distance, world units.
    pub distance: f64,
    /// Box tests.
    pub bv_tests: u64,
    /// Triangle tests.
    pub tri_tests: u64,
    /// Wall time, µs.
    pub micros: f64,
}

/// The latest finished comparison.
#[derive(Resource, Clone, Debug, Default)]
pub struct Comparison {
    /// OBB, AABB, sphere rows of the last finished job.
    pub rows: Vec<CompareRow>,
    /// The pose (object in the environment's frame) the rows are for.
    pub relative: Isometry,
    /// The scene generation the rows are for.
    pub generation: u64,
    /// Jobs finished since the scene loaded.
    pub jobs: u64,
    /// CPU time of the last jobs (the three queries), µs, oldest first (at most 600).
    pub job_micros: VecDeque<f64>,
    /// Whether a job is running.
    pub running: bool,
}

impl Comparison {
    /// Median and 95th percentile of the jobs' CPU time, µs.
    pub fn job_percentiles(&self) -> (f64, f64) {
        let mut v: Vec<f64> = self.job_micros.iter().copied().collect();
        if v.is_empty() {
            return (0.0, 0.0);
        }
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (at(0.5), at(0.95))
    }
}

/// A running job: the scene generation and pose it compares, and its rows with their CPU time (µs).
type CompareJob = (u64, Isometry, Task<(Vec<CompareRow>, f64)>);

#[derive(Resource, Default)]
struct CompareTask(Option<CompareJob>);

/// Runs the comparison while [`CompareSettings::enabled`].
pub struct ComparePlugin;

impl Plugin for ComparePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CompareSettings>()
            .init_resource::<Comparison>()
            .init_resource::<CompareTask>()
            .add_systems(
                Update,
                (
                    declare_kinds.after(FrameSet::Load).before(FrameSet::Motion),
                    run_comparison.in_set(FrameSet::Present),
                )
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

/// All three trees must hold the deforming object's current vertices while comparing.
fn declare_kinds(settings: Res<CompareSettings>, mut kinds: ResMut<KindsInUse>) {
    if kinds.all != settings.enabled {
        kinds.all = settings.enabled;
    }
}

/// One tree type's query, timed.
struct Job<'a> {
    env: &'a Trees,
    obj: &'a Trees,
    relative: &'a Isometry,
    options: &'a QueryOptions,
}

impl KindVisitor for Job<'_> {
    type Output = (CollisionReport, f64, Option<CompareDistance>);
    fn visit<B: TreeKind>(self) -> Self::Output {
        let (a, b) = (self.env.get::<B>(), self.obj.get::<B>());
        let rot = self.relative.rotation.to_rotation_matrix().into_inner();
        let mut report = CollisionReport::default();
        let t = Instant::now();
        collide_with(
            a,
            b,
            &rot,
            &self.relative.translation.vector,
            self.options,
            CollideWith::default(),
            &mut report,
        );
        let micros = t.elapsed().as_secs_f64() * 1e6;
        let distance = report.contacts.is_empty().then(|| {
            let t = Instant::now();
            let options = DistanceOptions {
                overlap: self.options.overlap,
                ..DistanceOptions::default()
            };
            let pos = &self.relative.translation.vector;
            let r = distance_with(a, b, &rot, pos, &options);
            r.ok().map(|r| CompareDistance {
                distance: r.distance,
                bv_tests: r.bv_tests,
                tri_tests: r.tri_tests,
                micros: t.elapsed().as_secs_f64() * 1e6,
            })
        });
        (report, micros, distance.flatten())
    }
}

/// The three queries on one pose (and the three distance queries while apart): (rows, total
/// µs).
pub fn compare_pose(
    env: &Trees,
    obj: &Trees,
    relative: &Isometry,
    options: &QueryOptions,
) -> (Vec<CompareRow>, f64) {
    let mut rows = Vec::with_capacity(3);
    let mut reference = None;
    let mut total = 0.0;
    for kind in KINDS {
        let (report, micros, distance) = dispatch(
            kind,
            Job {
                env,
                obj,
                relative,
                options,
            },
        );
        total += micros + distance.map_or(0.0, |d| d.micros);
        let sorted = report.sorted_contacts();
        let same = reference
            .as_ref()
            .is_none_or(|r: &Vec<(u32, u32)>| *r == sorted);
        if reference.is_none() {
            reference = Some(sorted);
        }
        rows.push(CompareRow {
            kind,
            bv_tests: report.bv_tests,
            tri_tests: report.tri_tests,
            contacts: report.contacts.len(),
            micros,
            same_contacts: same,
            distance,
        });
    }
    (rows, total)
}

fn run_comparison(
    scene: Res<CollisionScene>,
    settings: Res<CompareSettings>,
    query: Res<QuerySettings>,
    mut task: ResMut<CompareTask>,
    mut out: ResMut<Comparison>,
    mut work: ResMut<FrameWork>,
) {
    if !settings.enabled {
        if task.0.is_some() || !out.rows.is_empty() {
            task.0 = None;
            *out = Comparison::default();
        }
        return;
    }
    let t = Instant::now();
    if out.generation != scene.generation {
        *out = Comparison {
            generation: scene.generation,
            ..Comparison::default()
        };
        task.0 = None;
    }
    if let Some((generation, relative, running)) = task.0.as_mut()
        && let Some((rows, micros)) = check_ready(running)
    {
        if *generation == scene.generation {
            out.rows = rows;
            out.relative = *relative;
            out.jobs += 1;
            if out.job_micros.len() == 600 {
                out.job_micros.pop_front();
            }
            out.job_micros.push_back(micros);
        }
        task.0 = None;
    }
    if task.0.is_none() {
        let (env, obj) = (scene.env.trees.clone(), scene.obj.trees.clone());
        let relative = scene.relative_pose();
        let options = QueryOptions {
            mode: query.mode,
            ..QueryOptions::default()
        };
        let job = AsyncComputeTaskPool::get()
            .spawn(async move { compare_pose(&env, &obj, &relative, &options) });
        task.0 = Some((scene.generation, relative, job));
    }
    out.running = task.0.is_some();
    work.add(Stage::Compare, t);
}
