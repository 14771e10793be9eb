//! The viewer in a web browser (`wasm32-unknown-unknown`, `assets/web/build.sh`; the entry point,
//! which reads the options from the page's URL, is `src/bin/obbtree-web.rs`): the page's title carries what the frame shows (so a test driving a
//! headless browser reads the per-frame query's step and contact count, and the timings, as
//! `obbtree view --screenshot` prints them), and the files the page's picker delivers, or that
//! are dropped on the page, become a scene. Everything else is the native app.

use super::camera::describe_camera;
use super::compare::{CompareSettings, Comparison};
use super::files::web::take_picked;
use super::loading::{LoadScene, SceneChoice, SceneStatus};
use super::metrics::{FrameSample, Stage, Timings};
use super::motion::Playback;
use super::overlay::{OverlayBoxes, OverlaySettings};
use super::proximity::{LastProximity, ProximitySettings};
use super::query::LastQuery;
use super::scene::CollisionScene;
use super::self_intersection::LastSelfIntersection;
use bevy::prelude::*;

/// The page's side of the app: the title line and the file picker's files.
pub struct WebPlugin;

impl Plugin for WebPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, listen_for_drops)
            .add_systems(Last, (title_line, picked_files));
    }
}

/// What the title line reports besides the query: overlay, side by side, proximity.
type Views<'w> = (
    Res<'w, OverlaySettings>,
    Res<'w, OverlayBoxes>,
    Res<'w, CompareSettings>,
    Res<'w, Comparison>,
    Res<'w, LastProximity>,
    Res<'w, ProximitySettings>,
    Res<'w, LastSelfIntersection>,
);

/// Writes what the frame shows into the page's title every 10 frames: the scene, `step S
/// contacts K` of the last query, `distance D` while apart, `within T pairs P` when lit,
/// `self-intersecting pairs Q` for a deforming object, the number of frames, the query's and the frame's medians,
/// the moving object's position (`object at X Y Z`, world frame), the pointer (window pixels,
/// and whether it is over the panel or the 3D view), the camera (as `obbtree view
/// --screenshot` prints it), and when shown the hierarchy level drawn (`hierarchy obb object
/// level L: K volumes, D drawn`) and the side-by-side rows (`side by side obb N_v N_p K, aabb …,
/// sphere …, same contacts yes|no`, box tests, tri tests and contacts per tree).
#[allow(clippy::too_many_arguments)]
fn title_line(
    mut frames: Local<u64>,
    scene: Option<Res<CollisionScene>>,
    status: Res<SceneStatus>,
    playback: Res<Playback>,
    last: Res<LastQuery>,
    timings: Res<Timings>,
    camera: Query<(&Transform, &Camera, &Projection), With<super::camera::ViewCamera>>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    capture: Res<super::input::PointerCapture>,
    views: Views,
) {
    let (overlay, boxes, compare, comparison, near, settings, own) = views;
    *frames += 1;
    if !(*frames).is_multiple_of(10) {
        return;
    }
    let line = match (&scene, &status.loading, &status.error) {
        (_, _, Some(e)) => format!("obbtree: error: {e}"),
        (_, Some(what), _) => format!("obbtree: loading {what}"),
        (None, None, None) => "obbtree: no scene".to_string(),
        (Some(scene), None, None) => {
            let (q50, q95) = timings.percentiles(FrameSample::query_us);
            let (f50, f95) = timings.percentiles(|s| s.frame_ms);
            let (e50, _) = timings.percentiles(|s| s.us(Stage::Engine));
            let mut line = format!(
                "obbtree: {}: step {} contacts {}; {} frames; query median {q50:.1} µs p95 {q95:.1} µs; engine median {e50:.1} µs; frame median {f50:.2} ms p95 {f95:.2} ms ({:.1} FPS)",
                scene.name,
                playback.step,
                last.report.contacts.len(),
                *frames,
                1000.0 / f50.max(1e-3)
            );
            if let Some(r) = &near.distance {
                line += &format!("; distance {:.6}", r.distance);
            }
            if settings.pairs {
                line += &format!("; within {} pairs {}", settings.tolerance, near.pairs.len());
            }
            if own.ran {
                line += &format!("; self-intersecting pairs {}", own.pairs.len());
            }
            let at = scene.obj.pose.translation.vector;
            line += &format!("; object at {:.3} {:.3} {:.3}", at.x, at.y, at.z);
            if let Some(p) = window.iter().next().and_then(|w| w.cursor_position()) {
                let over = if capture.pointer { "panel" } else { "view" };
                line += &format!("; pointer {:.0} {:.0} over the {over}", p.x, p.y);
            }
            if let Some((t, cam, projection)) = camera.iter().next() {
                line += &format!("; {}", describe_camera(t, cam, projection));
            }
            if overlay.show
                && let Some(tree) = boxes.tree
            {
                line += &format!(
                    "; hierarchy {tree} {} level {}: {} volumes, {} drawn",
                    match overlay.body {
                        super::scene::BodyId::Object => "object",
                        super::scene::BodyId::Environment => "environment",
                    },
                    boxes.level,
                    boxes.at_level,
                    boxes.boxes.len()
                );
            }
            if compare.enabled && !comparison.rows.is_empty() {
                let rows: Vec<String> = comparison
                    .rows
                    .iter()
                    .map(|r| format!("{} {} {} {}", r.kind, r.bv_tests, r.tri_tests, r.contacts))
                    .collect();
                let same = comparison.rows.iter().all(|r| r.same_contacts);
                line += &format!(
                    "; side by side {}, same contacts {}",
                    rows.join(", "),
                    if same { "yes" } else { "no" }
                );
            }
            line
        }
    };
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        document.set_title(&line);
    }
}

/// OBJ files dropped on the page load as the picker's ([`super::files::web::listen_for_drops`]).
fn listen_for_drops(mut status: ResMut<SceneStatus>) {
    if let Err(e) = super::files::web::listen_for_drops() {
        status.error = Some(format!("drag and drop: {e}"));
    }
}

/// Turns the picker's (or a drop's) files into a scene: two OBJ files, the environment then the object (in
/// the order picked; one file is used for both). Anything else is an error in the panel.
fn picked_files(mut load: MessageWriter<LoadScene>, mut status: ResMut<SceneStatus>) {
    let Some(picked) = take_picked() else {
        return;
    };
    match picked {
        Ok(files) => match files.as_slice() {
            [a] => {
                load.write(LoadScene(SceneChoice::Uploaded(a.clone(), a.clone())));
            }
            [a, b] => {
                load.write(LoadScene(SceneChoice::Uploaded(a.clone(), b.clone())));
            }
            [] => {}
            more => {
                status.error = Some(format!(
                    "pick one or two OBJ files, not {} (environment, then object)",
                    more.len()
                ))
            }
        },
        Err(e) => status.error = Some(e),
    }
}
