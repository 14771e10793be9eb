//! Mouse and keyboard: picking and dragging bodies, the orbit camera, playback keys, dropped
//! files. Everything here turns input into messages or camera moves; it is ignored while the
//! pointer (or keyboard focus) belongs to the egui panel.

use super::motion::{DragBody, PlaybackCommand};
use super::render::OrbitCamera;
use super::{BodyId, CollisionScene, FrameSet, LoadScene, SceneChoice, SceneStatus};
use crate::math::{Isometry, Point, UnitQuaternion, Vector};
use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::{FileDragAndDrop, PrimaryWindow};
use bevy_egui::input::{egui_wants_any_keyboard_input, egui_wants_any_pointer_input};
use std::path::PathBuf;

/// Whether the help overlay is shown (H or F1).
#[derive(Resource, Clone, Copy, Debug)]
pub struct HelpVisible(pub bool);

/// Files dropped on the window, waiting for a second one.
#[derive(Resource, Clone, Debug, Default)]
pub struct DroppedFiles(pub Vec<PathBuf>);

#[derive(Clone, Copy, Debug, PartialEq)]
enum DragMode {
    Move(BodyId, f32),
    Rotate(BodyId),
    Orbit,
}

#[derive(Resource, Default)]
struct DragState {
    mode: Option<DragMode>,
    last: Option<Vec2>,
}

pub(super) struct InputPlugin;

impl Plugin for InputPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(HelpVisible(true))
            .init_resource::<DroppedFiles>()
            .init_resource::<DragState>()
            .add_systems(
                Update,
                (
                    keyboard.run_if(not(egui_wants_any_keyboard_input)),
                    mouse
                        .run_if(not(egui_wants_any_pointer_input))
                        .run_if(resource_exists::<CollisionScene>),
                    dropped_files,
                )
                    .in_set(FrameSet::Input),
            );
    }
}

fn keyboard(
    keys: Res<ButtonInput<KeyCode>>,
    mut playback: MessageWriter<PlaybackCommand>,
    mut help: ResMut<HelpVisible>,
) {
    if keys.just_pressed(KeyCode::KeyP) || keys.just_pressed(KeyCode::Space) {
        playback.write(PlaybackCommand::TogglePause);
    }
    if keys.just_pressed(KeyCode::KeyO) {
        playback.write(PlaybackCommand::SingleStep);
    }
    if keys.just_pressed(KeyCode::KeyR) {
        playback.write(PlaybackCommand::Restart);
    }
    if keys.just_pressed(KeyCode::KeyH) || keys.just_pressed(KeyCode::F1) {
        help.0 = !help.0;
    }
}

/// The nearest triangle hit by a world-frame ray, over both bodies: (body, distance).
fn pick(scene: &CollisionScene, origin: Vec3, dir: Vec3) -> Option<(BodyId, f32)> {
    let o = Point::new(origin.x as f64, origin.y as f64, origin.z as f64);
    let d = Vector::new(dir.x as f64, dir.y as f64, dir.z as f64);
    let mut best: Option<(BodyId, f64)> = None;
    for id in [BodyId::Environment, BodyId::Object] {
        let body = scene.body(id);
        let mesh = if id == BodyId::Object {
            super::render::current_object_mesh(scene)
        } else {
            &*body.mesh
        };
        // The ray in the body's model frame.
        let inv: Isometry = body.pose.inverse();
        let (ob, db) = (inv * o, inv.rotation * d);
        for t in 0..mesh.triangle_count() {
            if let Some(s) = ray_triangle(&ob, &db, &mesh.triangle(t))
                && best.is_none_or(|(_, b)| s < b)
            {
                best = Some((id, s));
            }
        }
    }
    best.map(|(id, s)| (id, s as f32))
}

/// Möller–Trumbore: the ray parameter of the hit, if any.
fn ray_triangle(o: &Point, d: &Vector, t: &[Point; 3]) -> Option<f64> {
    let e1 = t[1] - t[0];
    let e2 = t[2] - t[0];
    let p = d.cross(&e2);
    let det = e1.dot(&p);
    if det.abs() < 1e-14 {
        return None;
    }
    let inv = 1.0 / det;
    let s = o - t[0];
    let u = s.dot(&p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(&e1);
    let v = d.dot(&q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let dist = e2.dot(&q) * inv;
    (dist > 0.0).then_some(dist)
}

#[allow(clippy::too_many_arguments)]
fn mouse(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    scroll: Res<AccumulatedMouseScroll>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform, &Projection)>,
    scene: Res<CollisionScene>,
    mut orbit: ResMut<OrbitCamera>,
    mut drag: ResMut<DragState>,
    mut out: MessageWriter<DragBody>,
) {
    let (camera, cam_t, projection) = *camera;
    let cursor = window.cursor_position();
    if scroll.delta.y != 0.0 {
        let steps = match scroll.unit {
            MouseScrollUnit::Line => scroll.delta.y,
            MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
        };
        orbit.distance = (orbit.distance * 0.9f32.powf(steps)).clamp(0.05, 500.0);
    }
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let pressed = [MouseButton::Left, MouseButton::Right, MouseButton::Middle]
        .into_iter()
        .find(|b| buttons.just_pressed(*b));
    if let (Some(button), Some(c)) = (pressed, cursor) {
        let hit = camera
            .viewport_to_world(cam_t, c)
            .ok()
            .and_then(|ray| pick(&scene, ray.origin, *ray.direction));
        drag.mode = Some(match (button, hit) {
            (MouseButton::Left, Some((id, dist))) if !shift => DragMode::Move(id, dist),
            (MouseButton::Left | MouseButton::Right, Some((id, _))) => DragMode::Rotate(id),
            _ => DragMode::Orbit,
        });
        drag.last = Some(c);
    }
    if !buttons.any_pressed([MouseButton::Left, MouseButton::Right, MouseButton::Middle]) {
        drag.mode = None;
        drag.last = None;
        return;
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
    let v = |a: Vec3| Vector::new(a.x as f64, a.y as f64, a.z as f64);
    match mode {
        DragMode::Move(id, dist) => {
            // Pixels to metres at the picked point's depth.
            let fov = match projection {
                Projection::Perspective(p) => p.fov,
                _ => std::f32::consts::FRAC_PI_4,
            };
            let scale = 2.0 * dist * (fov * 0.5).tan() / window.height().max(1.0);
            let moved = right * (delta.x * scale) - up * (delta.y * scale);
            out.write(DragBody {
                body: id,
                translation: v(moved),
                rotation: UnitQuaternion::identity(),
            });
        }
        DragMode::Rotate(id) => {
            let r = UnitQuaternion::from_scaled_axis(v(up) * (delta.x as f64 * 0.01))
                * UnitQuaternion::from_scaled_axis(v(right) * (delta.y as f64 * 0.01));
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
