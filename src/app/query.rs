//! The per-frame collision query (a Bevy system): the object against the environment with the
//! chosen tree type and contact mode, from the root pair or from the last frame's separation
//! list (Li & Chen §4); and the live terms of the paper's cost equation (1),
//! `T = T_0 + N_v · C_v + N_p · C_p`.
//!
//! The constants are measured on the frame's pose by [`crate::query::cost`] (as `obbtree bench`
//! and the criterion bench measure them): T_0 from the query's set-up walk, C_v from the walk
//! without triangle tests, C_p from the all-contacts query; timed under their own stage
//! ([`Stage::Costs`]), not as part of the query. Too few tests to measure: no figure.

use super::metrics::{FrameWork, Stage};
use super::motion::KindsInUse;
use super::scene::{CollisionScene, FrameSet, KindVisitor, TreeKind, dispatch};
use crate::bv::BvKind;
use crate::math::{Isometry, Matrix3, Vector};
use crate::query::cost::{self, CostProbe, Costs};
use crate::query::{
    CollideWith, CollisionReport, ContactMode, QueryOptions, SeparationList, SeparationPolicy,
    collide_with,
};
use bevy::platform::time::Instant;
use bevy::prelude::*;

/// What the per-frame query runs.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct QuerySettings {
    /// Bounding volume type of both hierarchies.
    pub bv: BvKind,
    /// All contacts (default) or first contact.
    pub mode: ContactMode,
    /// Start each query from the previous frame's separation list (Li & Chen §4) with this
    /// rebuild policy, instead of from the root pair (`None`, the default). Ignored while the
    /// overlay traces the overlapping volumes. The contacts are the same either way.
    pub separation: Option<SeparationPolicy>,
    /// Measure T_0, C_v and C_p every frame ([`crate::query::cost`]).
    pub measure_costs: bool,
}

impl Default for QuerySettings {
    fn default() -> Self {
        Self {
            bv: BvKind::Obb,
            mode: ContactMode::AllContacts,
            separation: None,
            measure_costs: true,
        }
    }
}

/// A request, made before the query, to record the overlapping volume pairs of the query when
/// it uses the tree type named (the overlay draws them).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceRequest(pub Option<BvKind>);

/// The separation list kept between frames for the (environment, object) pair, and what it
/// was made for: (tree type, scene generation, tree revision). Cleared when any changes.
#[derive(Resource, Clone, Debug, Default)]
pub struct SeparationCache {
    /// The list.
    pub list: SeparationList,
    /// (tree type, scene generation, tree revision) of the list.
    pub key: Option<(BvKind, u64, u64)>,
}

/// The last frame's query.
#[derive(Resource, Clone, Debug, Default)]
pub struct LastQuery {
    /// Contacts and the counts N_v, N_p.
    pub report: CollisionReport,
    /// Overlapping volume pairs (node of A, node of B), when the overlay asked for them.
    pub overlapped: Vec<(u32, u32)>,
    /// Whether `overlapped` is filled.
    pub traced: bool,
    /// The tree type the query used.
    pub bv: Option<BvKind>,
    /// Wall time of the query, µs.
    pub micros: f64,
    /// The object's pose in the environment's frame that was queried.
    pub relative: Isometry,
    /// The environment's world pose when queried.
    pub env_pose: Isometry,
}

/// Runs the query every frame once a scene is loaded.
pub struct QueryPlugin;

impl Plugin for QueryPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<QuerySettings>()
            .init_resource::<SeparationCache>()
            .init_resource::<LastQuery>()
            .init_resource::<TraceRequest>()
            .add_systems(
                Update,
                (
                    (default_kind_for_scene, declare_kinds)
                        .chain()
                        .after(FrameSet::Load)
                        .before(FrameSet::Motion),
                    (run_query, measure_costs).chain().in_set(FrameSet::Query),
                )
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

/// van den Bergen's deformable case: the wobbling torus starts with the AABB tree.
fn default_kind_for_scene(
    scene: Res<CollisionScene>,
    mut seen: Local<u64>,
    mut settings: ResMut<QuerySettings>,
) {
    if *seen != scene.generation {
        *seen = scene.generation;
        if scene.deform.is_some() {
            settings.bv = BvKind::Aabb;
        }
    }
}

/// The query's tree type must hold the current vertices (the deforming object refits it).
fn declare_kinds(settings: Res<QuerySettings>, mut kinds: ResMut<KindsInUse>) {
    if kinds.query != settings.bv {
        kinds.query = settings.bv;
    }
}

struct Query<'a> {
    scene: &'a CollisionScene,
    rot: Matrix3,
    pos: Vector,
    options: QueryOptions,
    trace: bool,
    separation: Option<&'a mut SeparationList>,
    last: &'a mut LastQuery,
}

impl KindVisitor for Query<'_> {
    type Output = ();
    fn visit<B: TreeKind>(self) {
        let (a, b) = (
            self.scene.env.trees.get::<B>(),
            self.scene.obj.trees.get::<B>(),
        );
        let last = self.last;
        let (rot, pos, options) = (&self.rot, &self.pos, &self.options);
        if self.trace {
            collide_with(
                a,
                b,
                rot,
                pos,
                options,
                CollideWith::trace(&mut last.overlapped),
                &mut last.report,
            );
        } else if let Some(list) = self.separation {
            collide_with(
                a,
                b,
                rot,
                pos,
                options,
                CollideWith::separation(list),
                &mut last.report,
            );
        } else {
            collide_with(
                a,
                b,
                rot,
                pos,
                options,
                CollideWith::default(),
                &mut last.report,
            );
        }
    }
}

pub(super) fn run_query(
    scene: Res<CollisionScene>,
    settings: Res<QuerySettings>,
    trace: Res<TraceRequest>,
    mut cache: ResMut<SeparationCache>,
    mut last: ResMut<LastQuery>,
    mut work: ResMut<FrameWork>,
) {
    let rel = scene.relative_pose();
    let trace = trace.0 == Some(settings.bv);
    let separation = settings.separation.filter(|_| !trace);
    let (generation, revision) = scene.trees_key();
    let key = Some((settings.bv, generation, revision));
    if let Some(policy) = separation
        && (cache.key != key || cache.list.policy() != policy)
    {
        cache.list = SeparationList::new(policy);
        cache.key = key;
    }
    let t = Instant::now();
    dispatch(
        settings.bv,
        Query {
            scene: &scene,
            rot: rel.rotation.to_rotation_matrix().into_inner(),
            pos: rel.translation.vector,
            options: QueryOptions {
                mode: settings.mode,
                ..QueryOptions::default()
            },
            trace,
            separation: separation.map(|_| &mut cache.list),
            last: &mut last,
        },
    );
    work.add(Stage::Query, t);
    last.micros = t.elapsed().as_secs_f64() * 1e6;
    last.traced = trace;
    if !trace {
        last.overlapped.clear();
    }
    last.bv = Some(settings.bv);
    last.relative = rel;
    last.env_pose = scene.env.pose;
    work.bv_tests = last.report.bv_tests;
    work.tri_tests = last.report.tri_tests;
    work.contacts = last.report.contacts.len();
}

/// Measures eq. (1)'s terms on the frame's pose ([`crate::query::cost`]): the set-up walk,
/// the walk without triangle tests and the all-contacts query, timed in alternation.
struct CostProbeRun<'a> {
    scene: &'a CollisionScene,
    last: &'a LastQuery,
}

impl KindVisitor for CostProbeRun<'_> {
    type Output = Costs;
    fn visit<B: TreeKind>(self) -> Costs {
        let (a, b) = (
            self.scene.env.trees.get::<B>(),
            self.scene.obj.trees.get::<B>(),
        );
        let rel = &self.last.relative;
        let rot = rel.rotation.to_rotation_matrix().into_inner();
        let overlap = QueryOptions::default().overlap;
        let mut probe = CostProbe::new(a, b, &rot, &rel.translation.vector, &overlap);
        let start = Instant::now();
        let mut now = || start.elapsed().as_secs_f64();
        cost::measure(&mut probe, &mut now, COST_BATCH, COST_ROUNDS)
    }
}

/// Seconds each timed batch of a walk lasts at least, and rounds per walk: about 1 ms of a
/// frame in all.
const COST_BATCH: f64 = 50e-6;
const COST_ROUNDS: usize = 3;

fn measure_costs(
    scene: Res<CollisionScene>,
    settings: Res<QuerySettings>,
    last: Res<LastQuery>,
    mut work: ResMut<FrameWork>,
) {
    if !settings.measure_costs || last.bv != Some(settings.bv) {
        return;
    }
    let t = Instant::now();
    let costs = dispatch(
        settings.bv,
        CostProbeRun {
            scene: &scene,
            last: &last,
        },
    );
    work.t0_ns = Some(costs.t_0() * 1e9);
    work.c_v_ns = costs.c_v().map(|c| c * 1e9);
    work.c_p_ns = costs.c_p().map(|c| c * 1e9);
    work.add(Stage::Costs, t);
}
