//! Every timing of the app: each system that does measured work adds its wall time to this
//! frame's [`FrameWork`] under its [`Stage`]; at the end of the frame the metrics plugin records
//! a [`FrameSample`] into the rolling [`Timings`] (the panel's plots, the screenshot's figures).
//!
//! This module depends on nothing else in the app but [`super::scene::FrameSet`]: the plugins
//! that measure write into it, the panel reads it.

use super::scene::FrameSet;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use std::collections::VecDeque;

/// The measured kinds of work of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The per-frame collision query (the tree type of the query settings).
    Query,
    /// Refitting the deforming object's trees.
    Refit,
    /// The dynamics engine: its queries, time-of-impact bisections and impulses.
    Engine,
    /// Updating the contact highlight meshes.
    Highlight,
    /// Computing and drawing the intersection curves.
    Curves,
    /// Computing and drawing the hierarchy overlay.
    Overlay,
    /// The side-by-side comparison's work on the main thread (spawning, collecting).
    Compare,
    /// Measuring the cost equation's T_0, C_v and C_p (three walks of the frame's query).
    Costs,
    /// The distance (while apart) and the pairs within the tolerance.
    Proximity,
    /// The deforming object's own tree refitted and walked against itself.
    SelfIntersection,
}

impl Stage {
    /// Number of stages.
    pub const COUNT: usize = 10;
}

/// What the dynamics engine did this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EngineWork {
    /// Time steps taken.
    pub steps: u32,
    /// Contact queries: each part's end pose, the bisections' probes and the impacts'
    /// complete and tolerance queries.
    pub queries: u32,
    /// Distance queries of the time-of-impact searches (conservative advancement steps).
    pub toi_queries: u32,
    /// Microseconds in the time-of-impact searches.
    pub toi_micros: f64,
    /// Impacts cut back by a time of impact.
    pub impacts: u32,
    /// Box tests over the engine's queries.
    pub bv_tests: u64,
    /// Whether the body is at rest.
    pub asleep: bool,
    /// Whether the engine ran at all this frame (simulate mode).
    pub active: bool,
}

/// The current frame's measurements, filled by the systems as they run and reset at the start
/// of every frame.
#[derive(Resource, Clone, Debug, Default)]
pub struct FrameWork {
    /// Wall time per [`Stage`], µs.
    pub micros: [f64; Stage::COUNT],
    /// Box tests N_v of the per-frame query.
    pub bv_tests: u64,
    /// Triangle tests N_p of the per-frame query.
    pub tri_tests: u64,
    /// Contacts of the per-frame query.
    pub contacts: usize,
    /// T_0: nanoseconds of the query's fixed cost, when measured.
    pub t0_ns: Option<f64>,
    /// C_v: nanoseconds per box test of this frame's query, when measured.
    pub c_v_ns: Option<f64>,
    /// C_p: nanoseconds per triangle test of this frame's query, when measured.
    pub c_p_ns: Option<f64>,
    /// The distance query's wall time, µs, when it ran (the bodies apart).
    pub distance_us: Option<f64>,
    /// The dynamics engine's work.
    pub engine: EngineWork,
}

impl FrameWork {
    /// Adds the time since `start` to `stage`.
    pub fn add(&mut self, stage: Stage, start: Instant) {
        self.micros[stage as usize] += start.elapsed().as_secs_f64() * 1e6;
    }

    /// The time of `stage` this frame, µs.
    pub fn us(&self, stage: Stage) -> f64 {
        self.micros[stage as usize]
    }
}

/// One frame's measurements, as recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameSample {
    /// Wall time per [`Stage`], µs.
    pub micros: [f64; Stage::COUNT],
    /// Box tests, N_v.
    pub bv_tests: u64,
    /// Triangle tests, N_p.
    pub tri_tests: u64,
    /// Contacts.
    pub contacts: usize,
    /// T_0, ns of the query's fixed cost (when measured).
    pub t0_ns: Option<f64>,
    /// C_v, ns per box test (when measured).
    pub c_v_ns: Option<f64>,
    /// C_p, ns per triangle test (when measured and N_p > 0).
    pub c_p_ns: Option<f64>,
    /// The distance query's µs, when it ran.
    pub distance_us: Option<f64>,
    /// The dynamics engine's work.
    pub engine: EngineWork,
    /// Frame time (real), ms.
    pub frame_ms: f64,
}

impl FrameSample {
    /// Time of `stage`, µs.
    pub fn us(&self, stage: Stage) -> f64 {
        self.micros[stage as usize]
    }

    /// Query time, µs.
    pub fn query_us(&self) -> f64 {
        self.us(Stage::Query)
    }

    /// The per-frame CPU of showing contacts: query + highlight + curves + overlay (+ refit), µs.
    pub fn contact_cpu_us(&self) -> f64 {
        self.us(Stage::Query)
            + self.us(Stage::Highlight)
            + self.us(Stage::Curves)
            + self.us(Stage::Overlay)
            + self.us(Stage::Refit)
    }
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
    /// Frames kept for the rolling plots.
    pub const CAPACITY: usize = 600;

    /// The latest sample.
    pub fn last(&self) -> Option<&FrameSample> {
        self.frames.back()
    }

    /// Median and 95th percentile of `f` over the kept frames (nearest rank); `(0, 0)` when
    /// there are none.
    pub fn percentiles(&self, f: impl Fn(&FrameSample) -> f64) -> (f64, f64) {
        self.percentiles_of(self.frames.iter().map(f))
    }

    /// Median and 95th percentile of the values `f` gives (frames where it gives `None` are
    /// left out).
    pub fn percentiles_where(&self, f: impl Fn(&FrameSample) -> Option<f64>) -> (f64, f64) {
        self.percentiles_of(self.frames.iter().filter_map(f))
    }

    fn percentiles_of(&self, values: impl Iterator<Item = f64>) -> (f64, f64) {
        let mut v: Vec<f64> = values.collect();
        if v.is_empty() {
            return (0.0, 0.0);
        }
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (at(0.5), at(0.95))
    }

    /// The kept samples as `[frame number, f(sample)]` points, for a plot.
    pub fn series(&self, f: impl Fn(&FrameSample) -> f64) -> Vec<[f64; 2]> {
        let start = self.total.saturating_sub(self.frames.len() as u64);
        self.frames
            .iter()
            .enumerate()
            .map(|(i, s)| [(start + i as u64) as f64, f(s)])
            .collect()
    }
}

/// Records a [`FrameSample`] every frame (in [`FrameSet::Record`]) once a scene is loaded.
pub struct MetricsPlugin;

impl Plugin for MetricsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FrameWork>()
            .init_resource::<Timings>()
            .add_systems(First, reset_frame_work)
            .add_systems(
                Update,
                record_frame
                    .in_set(FrameSet::Record)
                    .run_if(resource_exists::<super::scene::CollisionScene>),
            );
    }
}

fn reset_frame_work(mut work: ResMut<FrameWork>) {
    *work = FrameWork::default();
}

fn record_frame(work: Res<FrameWork>, time: Res<Time<Real>>, mut timings: ResMut<Timings>) {
    let sample = FrameSample {
        micros: work.micros,
        bv_tests: work.bv_tests,
        tri_tests: work.tri_tests,
        contacts: work.contacts,
        t0_ns: work.t0_ns,
        c_v_ns: work.c_v_ns,
        c_p_ns: work.c_p_ns,
        distance_us: work.distance_us,
        engine: work.engine,
        frame_ms: time.delta_secs_f64() * 1e3,
    };
    if timings.frames.len() == Timings::CAPACITY {
        timings.frames.pop_front();
    }
    timings.frames.push_back(sample);
    timings.total += 1;
}
