//! The per-frame collision query (a Bevy system) and the timing resource.

use super::motion::RefitTiming;
use super::render::{OverlaySettings, PresentTiming};
use super::{CollisionScene, FrameSet};
use crate::bv::BvKind;
use crate::query::{
    CollisionReport, ContactMode, QueryOptions, SeparationList, SeparationPolicy,
    collide_incremental, collide_relative, collide_traced,
};
use bevy::prelude::*;
use std::collections::VecDeque;
use std::time::Instant;

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
}

impl Default for QuerySettings {
    fn default() -> Self {
        Self {
            bv: BvKind::Obb,
            mode: ContactMode::AllContacts,
            separation: None,
        }
    }
}

/// The separation list kept between frames for the (environment, object) pair, and what it
/// was made for: (tree type, scene generation). Cleared when either changes.
#[derive(Resource, Clone, Debug, Default)]
pub struct SeparationCache {
    /// The list.
    pub list: SeparationList,
    /// (tree type, scene generation) of the list.
    pub key: Option<(BvKind, u64)>,
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
}

/// One frame's measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameSample {
    /// Query time, µs.
    pub query_us: f64,
    /// Refit time of the deforming object, µs.
    pub refit_us: f64,
    /// Highlight update time, µs.
    pub highlight_us: f64,
    /// Overlay (box list and drawing) time, µs.
    pub overlay_us: f64,
    /// Box (volume) tests, N_v.
    pub bv_tests: u64,
    /// Triangle tests, N_p.
    pub tri_tests: u64,
    /// Contacts.
    pub contacts: usize,
    /// Frame time, ms.
    pub frame_ms: f64,
}

/// The last [`Timings::CAPACITY`] frames' measurements, oldest first.
#[derive(Resource, Clone, Debug, Default)]
pub struct Timings {
    /// The samples.
    pub frames: VecDeque<FrameSample>,
    /// Frames recorded since the app started.
    pub total: u64,
}

impl Timings {
    /// Frames kept for the rolling plot.
    pub const CAPACITY: usize = 600;

    /// The latest sample.
    pub fn last(&self) -> Option<&FrameSample> {
        self.frames.back()
    }

    /// Median and 95th percentile of `f` over the kept frames.
    pub fn percentiles(&self, f: impl Fn(&FrameSample) -> f64) -> (f64, f64) {
        let mut v: Vec<f64> = self.frames.iter().map(f).collect();
        if v.is_empty() {
            return (0.0, 0.0);
        }
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (at(0.5), at(0.95))
    }
}

pub(super) struct QueryPlugin;

impl Plugin for QueryPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<QuerySettings>()
            .init_resource::<SeparationCache>()
            .init_resource::<LastQuery>()
            .init_resource::<Timings>()
            .add_systems(
                Update,
                run_query
                    .in_set(FrameSet::Query)
                    .run_if(resource_exists::<CollisionScene>),
            )
            .add_systems(
                Update,
                record_timings
                    .in_set(FrameSet::Record)
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

fn run_query(
    scene: Res<CollisionScene>,
    settings: Res<QuerySettings>,
    overlay: Res<OverlaySettings>,
    mut cache: ResMut<SeparationCache>,
    mut last: ResMut<LastQuery>,
) {
    let rel = scene.env.pose.inv_mul(&scene.obj.pose);
    let rot = rel.rotation.to_rotation_matrix().into_inner();
    let pos = rel.translation.vector;
    let options = QueryOptions {
        mode: settings.mode,
        ..QueryOptions::default()
    };
    let trace = overlay.show && overlay.only_overlapped && overlay.tree == settings.bv;
    let separation = settings.separation.filter(|_| !trace);
    let key = Some((settings.bv, scene.generation));
    if let Some(policy) = separation
        && (cache.key != key || cache.list.policy() != policy)
    {
        cache.list = SeparationList::new(policy);
        cache.key = key;
    }
    let list = &mut cache.list;
    let last = &mut *last;
    let (report, pairs) = (&mut last.report, &mut last.overlapped);
    let t = Instant::now();
    macro_rules! go {
        ($a:expr, $b:expr) => {
            if trace {
                collide_traced($a, $b, &rot, &pos, &options, report, pairs)
            } else if separation.is_some() {
                collide_incremental($a, $b, &rot, &pos, &options, list, report)
            } else {
                collide_relative($a, $b, &rot, &pos, &options, report)
            }
        };
    }
    match settings.bv {
        BvKind::Obb => go!(&scene.env.obb, &scene.obj.obb),
        BvKind::Aabb => go!(&scene.env.aabb, &scene.obj.aabb),
        BvKind::Sphere => go!(&scene.env.sphere, &scene.obj.sphere),
    }
    last.micros = t.elapsed().as_secs_f64() * 1e6;
    last.traced = trace;
    if !trace {
        last.overlapped.clear();
    }
    last.bv = Some(settings.bv);
}

fn record_timings(
    last: Res<LastQuery>,
    refit: Res<RefitTiming>,
    present: Res<PresentTiming>,
    time: Res<Time<Real>>,
    mut timings: ResMut<Timings>,
) {
    let sample = FrameSample {
        query_us: last.micros,
        refit_us: refit.micros,
        highlight_us: present.highlight_us,
        overlay_us: present.overlay_us,
        bv_tests: last.report.bv_tests,
        tri_tests: last.report.tri_tests,
        contacts: last.report.contacts.len(),
        frame_ms: time.delta_secs_f64() * 1e3,
    };
    if timings.frames.len() == Timings::CAPACITY {
        timings.frames.pop_front();
    }
    timings.frames.push_back(sample);
    timings.total += 1;
}
