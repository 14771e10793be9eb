//! Motion: playback of the scene's recorded path, dragging by messages, and the wobbling
//! torus whose hierarchy is refitted every frame (van den Bergen 1998, §4).

use super::query::QuerySettings;
use super::{BodyId, CollisionScene, FrameSet};
use crate::bv::BvKind;
use crate::math::{Isometry, Point, UnitQuaternion, Vector};
use bevy::prelude::*;
use std::time::Instant;

/// Playback of the motion path.
#[derive(Resource, Clone, Debug)]
pub struct Playback {
    /// Whether the path advances every frame.
    pub playing: bool,
    /// Current step (pose index).
    pub step: usize,
    /// Steps per frame (fractions accumulate).
    pub speed: f32,
    /// Whether the object follows the path (off: free dragging).
    pub follow_path: bool,
    /// Step the next loaded scene starts at (`obbtree view --step`); used once.
    pub start_step: usize,
    pub(super) accumulated: f32,
    pub(super) seen_generation: u64,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            playing: true,
            step: 0,
            speed: 1.0,
            follow_path: true,
            start_step: 0,
            accumulated: 0.0,
            seen_generation: 0,
        }
    }
}

/// Playback commands (keys P, O, R and the panel's buttons).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaybackCommand {
    /// Pause or resume (P).
    TogglePause,
    /// One step forward, then pause (O).
    SingleStep,
    /// Back to the path's first pose, following the path (R).
    Restart,
}

/// Move a body: translate by `translation` (world frame, metres) and turn by `rotation` (world
/// frame) about the body's bounding-box centre. Dragging the object switches playback to free
/// motion.
#[derive(Message, Clone, Copy, Debug)]
pub struct DragBody {
    /// Which body.
    pub body: BodyId,
    /// World-frame translation.
    pub translation: Vector,
    /// World-frame rotation about the body's centre.
    pub rotation: UnitQuaternion,
}

/// Time of the last refit of the deforming object's tree, microseconds (0 when nothing
/// deforms).
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct RefitTiming {
    /// Refit time, µs.
    pub micros: f64,
    /// Which tree was refitted.
    pub kind: Option<BvKind>,
}

pub(super) struct MotionPlugin;

impl Plugin for MotionPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Playback>()
            .init_resource::<RefitTiming>()
            .add_message::<PlaybackCommand>()
            .add_message::<DragBody>()
            .add_systems(
                Update,
                (advance_playback, apply_drags, deform_object)
                    .chain()
                    .in_set(FrameSet::Motion)
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

fn advance_playback(
    mut commands: MessageReader<PlaybackCommand>,
    mut playback: ResMut<Playback>,
    mut scene: ResMut<CollisionScene>,
) {
    if playback.seen_generation != scene.generation {
        let speed = playback.speed;
        let step = playback.start_step.min(scene.path.len().saturating_sub(1));
        *playback = Playback {
            seen_generation: scene.generation,
            speed,
            step,
            playing: !scene.path.is_empty(),
            ..Playback::default()
        };
    }
    let n = scene.path.len();
    let mut moved = false;
    for c in commands.read() {
        match c {
            PlaybackCommand::TogglePause => playback.playing = !playback.playing,
            PlaybackCommand::SingleStep => {
                playback.playing = false;
                if n > 0 {
                    playback.follow_path = true;
                    playback.step = (playback.step + 1) % n;
                    moved = true;
                }
            }
            PlaybackCommand::Restart => {
                playback.step = 0;
                playback.accumulated = 0.0;
                playback.follow_path = true;
                moved = true;
                scene.env.pose = Isometry::identity();
                if let Some(d) = scene.deform.as_mut() {
                    d.time = 0.0;
                }
            }
        }
    }
    if n == 0 || !playback.follow_path {
        return;
    }
    if playback.playing {
        playback.accumulated += playback.speed;
        while playback.accumulated >= 1.0 {
            playback.accumulated -= 1.0;
            playback.step = (playback.step + 1) % n;
            moved = true;
        }
    }
    if moved || scene.obj.pose != scene.path[playback.step.min(n - 1)] {
        let step = playback.step.min(n - 1);
        scene.obj.pose = scene.env.pose * scene.path[step];
    }
}

fn apply_drags(
    mut drags: MessageReader<DragBody>,
    mut scene: ResMut<CollisionScene>,
    mut playback: ResMut<Playback>,
) {
    for d in drags.read() {
        if d.body == BodyId::Object {
            playback.follow_path = false;
        }
        let body = scene.body_mut(d.body);
        let center = body.pose * body.obb.node_box(0).0;
        let turn = Isometry::rotation_wrt_point(d.rotation, center);
        body.pose = Isometry::translation(d.translation.x, d.translation.y, d.translation.z)
            * turn
            * body.pose;
    }
}

/// The wobble: every vertex moves along the torus tube's radial direction by a travelling wave.
pub fn wobble(rest: &[Point], time: f64) -> Vec<Point> {
    rest.iter()
        .map(|p| {
            let radial = Vector::new(p.x, 0.0, p.z);
            let len = radial.norm();
            if len < 1e-9 {
                return *p;
            }
            let e = radial / len;
            let tube_center = Point::from(e * crate::scenes::landscape::TORUS_MAJOR);
            let out = p - tube_center;
            let theta = p.z.atan2(p.x);
            let amp =
                0.12 * (3.0 * theta - 4.0 * time).sin() + 0.05 * (7.0 * theta + 6.0 * time).sin();
            p + out * amp
        })
        .collect()
}

fn deform_object(
    mut scene: ResMut<CollisionScene>,
    settings: Res<QuerySettings>,
    playback: Res<Playback>,
    mut timing: ResMut<RefitTiming>,
) {
    let scene = &mut *scene;
    let Some(deform) = scene.deform.as_mut() else {
        *timing = RefitTiming::default();
        return;
    };
    if playback.playing {
        deform.time += 1.0 / 60.0;
    }
    let vertices = wobble(&deform.rest, deform.time);
    let t = Instant::now();
    // Refit the tree the query uses (one reverse pass over its nodes).
    let result = match settings.bv {
        BvKind::Obb => scene.obj.obb.set_vertices(vertices),
        BvKind::Aabb => scene.obj.aabb.set_vertices(vertices),
        BvKind::Sphere => scene.obj.sphere.set_vertices(vertices),
    };
    deform.kind = settings.bv;
    *timing = RefitTiming {
        micros: t.elapsed().as_secs_f64() * 1e6,
        kind: result.is_ok().then_some(settings.bv),
    };
}
