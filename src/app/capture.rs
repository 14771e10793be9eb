//! `obbtree view --screenshot PATH --frames N`: render N frames of the loaded scene (its path
//! playing), hold the motion still until no render pipeline is left compiling, save the window
//! as PNG, print what the screenshot shows and the frame timings, exit.
//!
//! The printed line (one line on stdout) is what the render test reads:
//! `screenshot PATH: step S contacts K[; distance D segment ax ay az bx by bz][; within T pairs
//! P][; self-intersecting pairs Q at time T]; N frames; …; camera x y z qx qy qz qw fov F viewport X Y W
//! H` — the path step and contact count of the captured frame, its distance and closest points
//! (world frame) while apart, its pairs within the tolerance when lit, a deforming object's
//! self-intersecting pairs and its clock (seconds), then the camera's world transform,
//! its vertical field of view (radians) and its viewport (physical pixels), so a test can
//! project the library's contacts onto the image.

use super::camera::describe_camera;
use super::compare::Comparison;
use super::loading::SceneStatus;
use super::metrics::{FrameSample, Stage, Timings};
use super::motion::Playback;
use super::proximity::{LastProximity, ProximitySettings};
use super::query::LastQuery;
use super::scene::CollisionScene;
use super::self_intersection::LastSelfIntersection;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::render::render_resource::PipelineCache;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::render::{ExtractSchedule, MainWorld, RenderApp};
use std::path::PathBuf;

/// Saves a screenshot after some frames and exits.
pub struct CapturePlugin {
    /// Where to save the PNG.
    pub path: PathBuf,
    /// Frames to render first.
    pub frames: u32,
}

#[derive(Resource)]
struct Capture {
    path: PathBuf,
    frames: u32,
    rendered: u32,
    requested: bool,
    saved: bool,
    started: Instant,
    waited: u32,
    shown: String,
    /// Consecutive frames, since the motion was held at the captured step, in which the renderer
    /// had no pipeline left to compile.
    ready_frames: u32,
}

/// Whether the renderer has no render pipeline waiting to be compiled (written by the render
/// world each frame). Pipelines compile in the background and a mesh or a gizmo whose pipeline
/// is not ready is not drawn: under a software renderer on a busy machine that once left a
/// capture frame with the panel over an empty sky, and once without the contact curve (its
/// pipeline is first asked for when the first contact appears, a few frames before the capture).
/// Pipelines stay compiled asynchronously (Bevy's default): compiled synchronously under
/// lavapipe, the 3D view of 5 of 11 pipes captures froze after the first frames (the object at
/// its start, no highlights, no curve) under a live panel; asynchronously with this wait 4 of 4
/// were right.
#[derive(Resource, Default)]
struct PipelinesReady(bool);

/// Frames held at the captured step with every pipeline ready before the capture (the render
/// runs a frame or two behind).
const READY_FRAMES: u32 = 3;
/// At most this many frames are waited for that (a pipeline whose shader never loads would
/// stay waiting): then the capture goes ahead.
const MAX_HELD_FRAMES: u32 = 300;

fn report_pipelines(mut main: ResMut<MainWorld>, cache: Res<PipelineCache>) {
    if let Some(mut ready) = main.get_resource_mut::<PipelinesReady>() {
        ready.0 = cache.waiting_pipelines().next().is_none();
    }
}

/// Give up (exit with an error) after this long without a screenshot.
const TIMEOUT_SECS: u64 = 900;

impl Plugin for CapturePlugin {
    fn build(&self, app: &mut App) {
        let _ = std::fs::remove_file(&self.path);
        app.insert_resource(Capture {
            path: self.path.clone(),
            frames: self.frames,
            rendered: 0,
            requested: false,
            saved: false,
            started: Instant::now(),
            waited: 0,
            shown: String::new(),
            ready_frames: 0,
        })
        .init_resource::<PipelinesReady>()
        .add_systems(Last, drive_capture);
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_app.add_systems(ExtractSchedule, report_pipelines);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn drive_capture(
    mut commands: Commands,
    mut capture: ResMut<Capture>,
    status: Res<SceneStatus>,
    scene: Option<Res<CollisionScene>>,
    timings: Res<Timings>,
    mut playback: ResMut<Playback>,
    (last, near, settings, own): (
        Res<LastQuery>,
        Res<LastProximity>,
        Res<ProximitySettings>,
        Res<LastSelfIntersection>,
    ),
    comparison: Res<Comparison>,
    camera: Query<(&Transform, &Camera, &Projection), With<super::camera::ViewCamera>>,
    ready: Res<PipelinesReady>,
    mut exit: MessageWriter<AppExit>,
) {
    if capture.started.elapsed().as_secs() > TIMEOUT_SECS {
        error!("no screenshot after {TIMEOUT_SECS} s");
        exit.write(AppExit::error());
        return;
    }
    if scene.is_none() || status.loading.is_some() {
        if let Some(e) = &status.error {
            error!("the scene did not load: {e}");
            exit.write(AppExit::error());
        }
        return;
    }
    if !capture.requested {
        count_frame(
            &mut commands,
            &mut capture,
            &mut playback,
            ready.0,
            (&last, &near, &settings, &own),
            &camera,
        );
        return;
    }
    capture.waited += 1;
    if capture.saved && capture.path.exists() {
        print_capture(&capture, &timings, &comparison);
        exit.write(AppExit::Success);
    } else if capture.waited > 600 {
        error!("the screenshot was requested but not saved");
        exit.write(AppExit::error());
    }
}

/// Counts a rendered frame before the capture; once the motion has been held long enough with
/// every pipeline `ready`, requests the screenshot and records what it shows.
fn count_frame(
    commands: &mut Commands,
    capture: &mut ResMut<Capture>,
    playback: &mut ResMut<Playback>,
    ready: bool,
    (last, near, settings, own): (
        &LastQuery,
        &LastProximity,
        &ProximitySettings,
        &LastSelfIntersection,
    ),
    camera: &Query<(&Transform, &Camera, &Projection), With<super::camera::ViewCamera>>,
) {
    capture.rendered += 1;
    // Only frames held at the captured step count: a pipeline that step is first to ask
    // for (the contact curve's, when the first contact is on that step) shows up as
    // waiting a frame or two later, after frames that were ready without it.
    let held_step = capture.rendered > capture.frames;
    capture.ready_frames = if ready && held_step {
        capture.ready_frames + 1
    } else {
        0
    };
    if capture.rendered >= capture.frames {
        // Hold the motion still from here: the capture shows this step, once every pipeline
        // it needs has compiled.
        playback.playing = false;
        let held = capture.rendered - capture.frames;
        if capture.ready_frames < READY_FRAMES && held < MAX_HELD_FRAMES {
            return;
        }
        if held > READY_FRAMES {
            info!("held the capture {held} frames for render pipelines to compile");
        }
        let path = capture.path.clone();
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path))
            .observe(|_: On<ScreenshotCaptured>, mut c: ResMut<Capture>| c.saved = true);
        capture.requested = true;
        // The capture happens a frame or two later (the render runs behind the logic):
        // hold the motion still so that the image shows this frame's step and contacts.
        playback.playing = false;
        // The screenshot shows this frame: its path step, its query's contacts, its camera.
        let mut shown = format!(
            "step {} contacts {}",
            playback.step,
            last.report.contacts.len()
        );
        if let Some((r, (a, b))) = near.distance.as_ref().zip(near.segment) {
            shown += &format!(
                "; distance {} segment {} {} {} {} {} {}",
                r.distance, a.x, a.y, a.z, b.x, b.y, b.z
            );
        }
        if settings.pairs {
            shown += &format!("; within {} pairs {}", settings.tolerance, near.pairs.len());
        }
        if own.ran {
            shown += &format!(
                "; self-intersecting pairs {} at time {}",
                own.pairs.len(),
                own.time
            );
        }
        if let Some((t, cam, projection)) = camera.iter().next() {
            shown += &format!("; {}", describe_camera(t, cam, projection));
        }
        capture.shown = shown;
    }
}

/// Prints the line the render test reads: what the screenshot shows and the frame timings.
fn print_capture(capture: &Capture, timings: &Timings, comparison: &Comparison) {
    let (q50, q95) = timings.percentiles(FrameSample::query_us);
    let (c50, c95) = timings.percentiles(FrameSample::contact_cpu_us);
    let (e50, e95) = timings.percentiles(|s| s.us(Stage::Engine));
    let (d50, d95) = timings.percentiles_where(|s| s.distance_us);
    let (s50, s95) = timings.percentiles(|s| s.us(Stage::SelfIntersection));
    let (r50, r95) = timings.percentiles(|s| s.us(Stage::Refit));
    let (f50, f95) = timings.percentiles(|s| s.frame_ms);
    let (shown, camera) = capture
        .shown
        .split_once("; camera")
        .map_or((capture.shown.as_str(), ""), |(a, b)| (a, b));
    let side = side_by_side(comparison);
    println!(
        "screenshot {}: {shown}; {side}{} frames; query median {q50:.1} µs p95 {q95:.1} µs; distance median {d50:.1} µs p95 {d95:.1} µs; refit median {r50:.1} µs p95 {r95:.1} µs; self-intersection median {s50:.1} µs p95 {s95:.1} µs; query+highlight+curves+overlay median {c50:.1} µs p95 {c95:.1} µs; engine median {e50:.1} µs p95 {e95:.1} µs; frame median {f50:.2} ms p95 {f95:.2} ms ({:.1} FPS); camera{camera}",
        capture.path.display(),
        capture.rendered,
        1000.0 / f50.max(1e-3)
    );
}

/// Side by side: each tree type's query on the last compared pose, and the three queries' CPU
/// time per job (median / p95 over the jobs); empty before any job.
fn side_by_side(comparison: &Comparison) -> String {
    let mut side = String::new();
    if !comparison.rows.is_empty() && !comparison.job_micros.is_empty() {
        for row in &comparison.rows {
            side += &format!(
                "{} {:.1} µs N_v {} N_p {}, ",
                row.kind, row.micros, row.bv_tests, row.tri_tests
            );
        }
        let mut jobs: Vec<f64> = comparison.job_micros.iter().copied().collect();
        jobs.sort_by(f64::total_cmp);
        let at = |q: f64| jobs[((jobs.len() - 1) as f64 * q).round() as usize];
        side = format!(
            "side by side {side}three queries per job median {:.1} µs p95 {:.1} µs over {} jobs; ",
            at(0.5),
            at(0.95),
            jobs.len()
        );
    }
    side
}
