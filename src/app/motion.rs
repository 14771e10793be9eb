//! Motion: the three ways the object moves — playing the scene's recorded path, free dragging,
//! or the live dynamics engine ([`super::simulate`]) — the drag messages, and the wobbling torus
//! whose trees are refitted every frame (van den Bergen 1998, §4).

use super::metrics::{FrameWork, Stage};
use super::scene::{BodyId, CollisionScene, FrameSet};
use crate::bv::BvKind;
use crate::math::{Isometry, Point, UnitQuaternion, Vector};
use bevy::platform::time::Instant;
use bevy::prelude::*;

/// How the object moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MotionMode {
    /// It follows the scene's recorded motion path.
    #[default]
    Path,
    /// It stays where the user puts it (dragging an object that follows the path switches here).
    Free,
    /// The dynamics engine moves it: it falls, bounces and comes to rest; dragging throws it.
    Simulate,
}

/// Playback of the motion path (and the clock of the simulation).
#[derive(Resource, Clone, Debug)]
pub struct Playback {
    /// Whether time runs (the path advances, the simulation steps, the wobble moves).
    pub playing: bool,
    /// Current step of the path (pose index).
    pub step: usize,
    /// Path steps per frame (fractions accumulate).
    pub speed: f32,
    /// How the object moves.
    pub mode: MotionMode,
    /// Step the next loaded scene starts at (`obbtree view --step`; a deforming scene's clock
    /// starts at this step of 60 a second); used once.
    pub start_step: usize,
    /// Whether the next loaded scene starts paused (the web page's `play=0`); used once.
    pub start_paused: bool,
    accumulated: f32,
    seen_generation: u64,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            playing: true,
            step: 0,
            speed: 1.0,
            mode: MotionMode::Path,
            start_step: 0,
            start_paused: false,
            accumulated: 0.0,
            seen_generation: 0,
        }
    }
}

impl Playback {
    /// Playback whose next loaded scene starts at path step `step` (`obbtree view --step`).
    pub fn starting_at(step: usize) -> Self {
        Self {
            start_step: step,
            ..Self::default()
        }
    }
}

/// Playback commands (keys and the panel's buttons).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaybackCommand {
    /// Pause or resume (P).
    TogglePause,
    /// One step forward, then pause (O): a path step, or one time step of the simulation.
    SingleStep,
    /// Back to the start (R): the path's first pose, or the simulation's start.
    Restart,
    /// Switch how the object moves (M toggles path and simulate).
    SetMode(MotionMode),
}

/// Move a body: translate by `translation` (world frame, metres) and turn by `rotation` (world
/// frame) about the body's bounding-box centre. Dragging the object off its path switches to
/// free motion; in simulate mode the simulation holds still while the body is held.
#[derive(Message, Clone, Copy, Debug)]
pub struct DragBody {
    /// Which body.
    pub body: BodyId,
    /// World-frame translation.
    pub translation: Vector,
    /// World-frame rotation about the body's centre.
    pub rotation: UnitQuaternion,
}

/// A body taken in hand or let go (mouse button down on it, then up): in simulate mode, letting
/// the object go throws it with the drag's velocity.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grab {
    /// The body is held from now on.
    Take(BodyId),
    /// The body is let go.
    Release(BodyId),
}

/// The tree kinds the frame needs current for the deforming object (refitted every frame): the
/// query's, the AABB tree while the object is tested against itself, and all three while the
/// side-by-side comparison runs. Written by the plugins that query.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindsInUse {
    /// The per-frame query's tree type.
    pub query: BvKind,
    /// Whether the AABB tree is needed (the self-intersection).
    pub aabb: bool,
    /// Whether all three are needed (the side-by-side comparison).
    pub all: bool,
}

impl Default for KindsInUse {
    fn default() -> Self {
        Self {
            query: BvKind::Obb,
            aabb: false,
            all: false,
        }
    }
}

impl KindsInUse {
    /// The kinds to keep current.
    pub fn kinds(&self) -> Vec<BvKind> {
        if self.all {
            super::scene::KINDS.to_vec()
        } else if self.aabb && self.query != BvKind::Aabb {
            vec![self.query, BvKind::Aabb]
        } else {
            vec![self.query]
        }
    }
}

/// Plays the path, applies drags, and deforms the wobbling torus.
pub struct MotionPlugin;

impl Plugin for MotionPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Playback>()
            .init_resource::<KindsInUse>()
            .add_message::<PlaybackCommand>()
            .add_message::<DragBody>()
            .add_message::<Grab>()
            .add_systems(
                Update,
                (advance_playback, apply_drags, deform_object)
                    .chain()
                    .in_set(MotionSystems)
                    .in_set(FrameSet::Motion)
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

/// The path, drag and deformation systems (the simulation runs after them).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MotionSystems;

fn advance_playback(
    mut commands: MessageReader<PlaybackCommand>,
    mut playback: ResMut<Playback>,
    mut scene: ResMut<CollisionScene>,
) {
    if playback.seen_generation != scene.generation {
        let start = playback.start_step;
        let step = start.min(scene.path.len().saturating_sub(1));
        let keep = Playback {
            seen_generation: scene.generation,
            speed: playback.speed,
            step,
            playing: !playback.start_paused,
            // A new scene starts on its path if it has one; simulate mode stays if it can run.
            mode: match playback.mode {
                MotionMode::Simulate if scene.deform.is_none() => MotionMode::Simulate,
                _ if scene.path.is_empty() => MotionMode::Free,
                _ => MotionMode::Path,
            },
            ..Playback::default()
        };
        *playback = keep;
        // A deforming scene's clock starts at the start step's time (60 steps a second).
        if let Some(d) = scene.deform.as_mut() {
            d.time = start as f64 / 60.0;
        }
    }
    let n = scene.path.len();
    let mut moved = false;
    for c in commands.read() {
        match c {
            PlaybackCommand::TogglePause => playback.playing = !playback.playing,
            PlaybackCommand::SingleStep => {
                playback.playing = false;
                if n > 0 && playback.mode != MotionMode::Simulate {
                    playback.mode = MotionMode::Path;
                    playback.step = (playback.step + 1) % n;
                    moved = true;
                }
            }
            PlaybackCommand::Restart => {
                playback.step = 0;
                playback.accumulated = 0.0;
                if playback.mode == MotionMode::Free && n > 0 {
                    playback.mode = MotionMode::Path;
                }
                moved = true;
                scene.env.pose = Isometry::identity();
                if let Some(d) = scene.deform.as_mut() {
                    d.time = 0.0;
                }
            }
            PlaybackCommand::SetMode(mode) => {
                playback.mode = match mode {
                    MotionMode::Path if n == 0 => MotionMode::Free,
                    m => *m,
                };
                moved = true;
            }
        }
    }
    if n == 0 || playback.mode != MotionMode::Path {
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
    let step = playback.step.min(n - 1);
    let want = scene.env.pose * scene.path[step];
    if moved || scene.obj.pose != want {
        scene.obj.pose = want;
    }
}

fn apply_drags(
    mut drags: MessageReader<DragBody>,
    mut scene: ResMut<CollisionScene>,
    mut playback: ResMut<Playback>,
) {
    for d in drags.read() {
        if d.body == BodyId::Object && playback.mode == MotionMode::Path {
            playback.mode = MotionMode::Free;
        }
        let body = scene.body_mut(d.body);
        let center = body.center();
        let turn = Isometry::rotation_wrt_point(d.rotation, center);
        body.pose = Isometry::translation(d.translation.x, d.translation.y, d.translation.z)
            * turn
            * body.pose;
    }
}

/// Seconds of one squeeze of the wobbling torus ([`wobble`]).
pub const SQUEEZE_PERIOD: f64 = 8.0;

/// How far the squeeze pushes the torus's two sides towards its axis at its deepest (model
/// units): past the hole's radius (about 2.1), so the sides pass through each other.
pub const SQUEEZE_DEPTH: f64 = 2.5;

/// The wobble at `time` seconds: every vertex moves along the torus tube's radial direction by
/// a travelling wave, and the ring is squeezed along x (`x ← x − d·tanh x`, `d` rising from 0 to
/// [`SQUEEZE_DEPTH`] and back every [`SQUEEZE_PERIOD`]), so that for about a third of each
/// period its two sides pass through each other: the self-intersection to find.
pub fn wobble(rest: &[Point], time: f64) -> Vec<Point> {
    let phase = std::f64::consts::TAU * time / SQUEEZE_PERIOD;
    let depth = SQUEEZE_DEPTH * (0.5 - 0.5 * phase.cos());
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
            let mut q = p + out * amp;
            q.x -= depth * q.x.tanh();
            q
        })
        .collect()
}

fn deform_object(
    mut scene: ResMut<CollisionScene>,
    kinds: Res<KindsInUse>,
    playback: Res<Playback>,
    mut work: ResMut<FrameWork>,
) {
    let scene = &mut *scene;
    let Some(deform) = scene.deform.as_mut() else {
        return;
    };
    if playback.playing {
        deform.time += 1.0 / 60.0;
    }
    let vertices = wobble(&deform.rest, deform.time);
    let t = Instant::now();
    // Refit the trees the frame queries (one reverse pass over each one's nodes); the wobble's
    // vertices are finite and in range, so this cannot fail.
    if let Err(e) = scene.obj.trees.set_vertices(&kinds.kinds(), &vertices) {
        warn!("refit failed: {e}");
    }
    work.add(Stage::Refit, t);
}
