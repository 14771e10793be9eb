//! Mouse and keyboard: picking and dragging bodies, the orbit camera, the keys, dropped files.
//! Everything here turns input into messages or camera moves.
//!
//! Gating: while the pointer is over the side panel or any egui window, or egui uses it (a
//! slider being dragged), no camera or body input happens — the wheel included — unless a drag
//! that started in the 3D view is still going on; while egui wants the keyboard (a text field)
//! no key does anything. The panel writes [`PointerCapture`] every frame; this plugin only reads
//! it, so the gating is testable without egui.

use super::camera::{CameraCommand, OrbitCamera, ViewCamera};
use super::compare::CompareSettings;
use super::loading::{LoadScene, SceneChoice, SceneStatus};
use super::motion::{DragBody, Grab, MotionMode, Playback, PlaybackCommand};
use super::picking::pick;
use super::scene::{BodyId, CollisionScene, FrameSet};
use crate::math::{Point, UnitQuaternion, Vector};
use crate::scenes::SceneId;
use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::{FileDragAndDrop, PrimaryWindow};
use std::path::PathBuf;

/// Whether the UI has the pointer or the keyboard this frame (written by the panel).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PointerCapture {
    /// The pointer is over the panel or an egui window, or egui is using it.
    pub pointer: bool,
    /// egui wants the keyboard (a text field has focus).
    pub keyboard: bool,
}

/// Whether the help window is shown (H or F1). Closed at start.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HelpVisible(pub bool);

/// Files dropped on the window, waiting for a second one.
#[derive(Resource, Clone, Debug, Default)]
pub struct DroppedFiles(pub Vec<PathBuf>);

/// What a mouse drag does.
#[derive(Clone, Copy, Debug, PartialEq)]
enum DragMode {
    /// Move a body in the camera plane; the distance of the picked point.
    Move(BodyId, f32),
    /// Rotate a body.
    Rotate(BodyId),
    /// Orbit the camera.
    Orbit,
}

/// The mouse drag in progress.
#[derive(Resource, Default)]
pub struct DragState {
    mode: Option<DragMode>,
    last: Option<Vec2>,
}

impl DragState {
    /// Whether a drag that started in the 3D view is going on.
    pub fn active(&self) -> bool {
        self.mode.is_some()
    }
}

/// Keys, mouse and dropped files.
pub struct InputPlugin;

impl Plugin for InputPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<HelpVisible>()
            .init_resource::<PointerCapture>()
            .init_resource::<DroppedFiles>()
            .init_resource::<DragState>()
            .add_message::<FileDragAndDrop>()
            .add_systems(
                Update,
                (
                    keyboard.run_if(not(ui_wants_keyboard)),
                    mouse
                        .run_if(world_gets_pointer)
                        .run_if(resource_exists::<CollisionScene>),
                    end_drag_on_release,
                    dropped_files,
                )
                    .chain()
                    .in_set(FrameSet::Input),
            );
    }
}

/// Run condition: egui wants the keyboard.
pub fn ui_wants_keyboard(capture: Res<PointerCapture>) -> bool {
    capture.keyboard
}

/// Run condition: the 3D view gets the pointer — egui does not want it, or a drag that started
/// in the view goes on.
pub fn world_gets_pointer(capture: Res<PointerCapture>, drag: Res<DragState>) -> bool {
    !capture.pointer || drag.active()
}

#[allow(clippy::too_many_arguments)]
fn keyboard(
    keys: Res<ButtonInput<KeyCode>>,
    playback: Res<Playback>,
    mut commands: MessageWriter<PlaybackCommand>,
    mut camera: MessageWriter<CameraCommand>,
    mut compare: ResMut<CompareSettings>,
    mut help: ResMut<HelpVisible>,
    mut load: MessageWriter<LoadScene>,
) {
    // The paper's scenes by number, in the panel's order.
    for (key, id) in [
        (KeyCode::Digit1, SceneId::Pipes),
        (KeyCode::Digit2, SceneId::Torus),
        (KeyCode::Digit3, SceneId::Torpedo),
    ] {
        if keys.just_pressed(key) {
            load.write(LoadScene(SceneChoice::Paper(id)));
        }
    }
    if keys.just_pressed(KeyCode::KeyP) || keys.just_pressed(KeyCode::Space) {
        commands.write(PlaybackCommand::TogglePause);
    }
    if keys.just_pressed(KeyCode::KeyO) {
        commands.write(PlaybackCommand::SingleStep);
    }
    if keys.just_pressed(KeyCode::KeyR) {
        commands.write(PlaybackCommand::Restart);
    }
    if keys.just_pressed(KeyCode::KeyM) {
        commands.write(PlaybackCommand::SetMode(
            if playback.mode == MotionMode::Simulate {
                MotionMode::Path
            } else {
                MotionMode::Simulate
            },
        ));
    }
    if keys.just_pressed(KeyCode::KeyF) {
        camera.write(CameraCommand::Focus);
    }
    if keys.just_pressed(KeyCode::KeyC) {
        compare.enabled = !compare.enabled;
    }
    if keys.just_pressed(KeyCode::KeyH) || keys.just_pressed(KeyCode::F1) {
        help.0 = !help.0;
    }
}

fn to_point(v: Vec3) -> Point {
    Point::new(v.x as f64, v.y as f64, v.z as f64)
}

fn to_vector(v: Vec3) -> Vector {
    Vector::new(v.x as f64, v.y as f64, v.z as f64)
}

#[allow(clippy::too_many_arguments)]
fn mouse(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    scroll: Res<AccumulatedMouseScroll>,
    capture: Res<PointerCapture>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform, &Projection), With<ViewCamera>>,
    scene: Res<CollisionScene>,
    mut orbit: ResMut<OrbitCamera>,
    mut drag: ResMut<DragState>,
    mut out: MessageWriter<DragBody>,
    mut grabs: MessageWriter<Grab>,
) {
    let (camera, cam_t, projection) = *camera;
    let cursor = window.cursor_position();
    // The wheel zooms only over the view (even during a drag that crossed onto the panel).
    if scroll.delta.y != 0.0 && !capture.pointer {
        let steps = match scroll.unit {
            MouseScrollUnit::Line => scroll.delta.y,
            MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
        };
        orbit.distance = (orbit.distance * 0.9f32.powf(steps)).clamp(0.01, 5000.0);
    }
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let pressed = [MouseButton::Left, MouseButton::Right, MouseButton::Middle]
        .into_iter()
        .find(|b| buttons.just_pressed(*b));
    if let (Some(button), Some(c), None) = (pressed, cursor, drag.mode) {
        let hit = camera
            .viewport_to_world(cam_t, c)
            .ok()
            .and_then(|ray| pick(&scene, to_point(ray.origin), to_vector(*ray.direction)));
        let mode = match (button, hit) {
            (MouseButton::Left, Some((id, dist))) if !shift => DragMode::Move(id, dist as f32),
            (MouseButton::Left | MouseButton::Right, Some((id, _))) => DragMode::Rotate(id),
            _ => DragMode::Orbit,
        };
        if let DragMode::Move(id, _) | DragMode::Rotate(id) = mode {
            grabs.write(Grab::Take(id));
        }
        drag.mode = Some(mode);
        drag.last = Some(c);
    }
    let (Some(mode), Some(last), Some(c)) = (drag.mode, drag.last, cursor) else {
        return;
    };
    drag.last = Some(c);
    let delta = c - last;
    if delta == Vec2::ZERO {
        return;
    }
    let right = cam_t.right().as_vec3();
    let up = cam_t.up().as_vec3();
    match mode {
        DragMode::Move(id, dist) => {
            // Pixels to metres at the picked point's depth.
            let fov = match projection {
                Projection::Perspective(p) => p.fov,
                _ => std::f32::consts::FRAC_PI_4,
            };
            let height = camera
                .logical_viewport_size()
                .map_or(window.height(), |s| s.y);
            let scale = 2.0 * dist * (fov * 0.5).tan() / height.max(1.0);
            let moved = right * (delta.x * scale) - up * (delta.y * scale);
            out.write(DragBody {
                body: id,
                translation: to_vector(moved),
                rotation: UnitQuaternion::identity(),
            });
        }
        DragMode::Rotate(id) => {
            let r = UnitQuaternion::from_scaled_axis(to_vector(up) * (delta.x as f64 * 0.01))
                * UnitQuaternion::from_scaled_axis(to_vector(right) * (delta.y as f64 * 0.01));
            out.write(DragBody {
                body: id,
                translation: Vector::zeros(),
                rotation: r,
            });
        }
        DragMode::Orbit => {
            orbit.yaw -= delta.x * 0.008;
            orbit.pitch = (orbit.pitch + delta.y * 0.008).clamp(-1.5, 1.5);
        }
    }
}

/// A drag ends when every button is up, wherever the pointer is (a body held is let go).
fn end_drag_on_release(
    buttons: Res<ButtonInput<MouseButton>>,
    mut drag: ResMut<DragState>,
    mut grabs: MessageWriter<Grab>,
) {
    if drag.mode.is_none()
        || buttons.any_pressed([MouseButton::Left, MouseButton::Right, MouseButton::Middle])
    {
        return;
    }
    if let Some(DragMode::Move(id, _) | DragMode::Rotate(id)) = drag.mode {
        grabs.write(Grab::Release(id));
    }
    drag.mode = None;
    drag.last = None;
}

fn dropped_files(
    mut drops: MessageReader<FileDragAndDrop>,
    mut pending: ResMut<DroppedFiles>,
    mut status: ResMut<SceneStatus>,
    mut load: MessageWriter<LoadScene>,
) {
    for d in drops.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = d {
            pending.0.push(path_buf.clone());
            status.error = None;
        }
    }
    if pending.0.len() >= 2 {
        let b = pending.0.pop().expect("two files");
        let a = pending.0.pop().expect("two files");
        pending.0.clear();
        load.write(LoadScene(SceneChoice::Files(a, b)));
    }
}
