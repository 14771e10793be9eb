//! `obbtree view --screenshot PATH --frames N`: render N frames of the loaded scene (its path
//! playing), save the window as PNG, print the frame timings, exit.

use super::query::Timings;
use super::{CollisionScene, SceneStatus};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use std::path::PathBuf;
use std::time::Instant;

pub(super) struct CapturePlugin {
    pub path: PathBuf,
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
    shown: (usize, usize),
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
            shown: (0, 0),
        })
        .add_systems(Last, drive_capture);
    }
}

fn drive_capture(
    mut commands: Commands,
    mut capture: ResMut<Capture>,
    status: Res<SceneStatus>,
    scene: Option<Res<CollisionScene>>,
    timings: Res<Timings>,
    playback: Res<super::Playback>,
    last: Res<super::LastQuery>,
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
        capture.rendered += 1;
        if capture.rendered >= capture.frames {
            let path = capture.path.clone();
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(path))
                .observe(|_: On<ScreenshotCaptured>, mut c: ResMut<Capture>| c.saved = true);
            capture.requested = true;
            // The screenshot shows this frame: its path step and its query's contacts.
            capture.shown = (playback.step, last.report.contacts.len());
        }
        return;
    }
    capture.waited += 1;
    if capture.saved && capture.path.exists() {
        let (q50, q95) = timings.percentiles(|s| s.query_us);
        let (c50, c95) =
            timings.percentiles(|s| s.query_us + s.highlight_us + s.overlay_us + s.refit_us);
        let (f50, f95) = timings.percentiles(|s| s.frame_ms);
        println!(
            "screenshot {}: step {} contacts {}; {} frames; query median {q50:.1} µs p95 {q95:.1} µs; query+highlight+overlay median {c50:.1} µs p95 {c95:.1} µs; frame median {f50:.2} ms p95 {f95:.2} ms ({:.1} FPS)",
            capture.path.display(),
            capture.shown.0,
            capture.shown.1,
            capture.rendered,
            1000.0 / f50.max(1e-3)
        );
        exit.write(AppExit::Success);
    } else if capture.waited > 600 {
        error!("the screenshot was requested but not saved");
        exit.write(AppExit::error());
    }
}
