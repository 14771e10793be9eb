//! Simulate mode: the object moved live by the core's time-of-impact dynamics engine
//! ([`crate::scenes::dynamics::Simulation`]) — it falls under the scene's gravity, bounces and
//! comes to rest; held with the mouse it waits, and let go it is thrown with the drag's velocity.
//!
//! Frames: the simulation runs in the environment's frame (the environment at the identity);
//! the object's world pose is `pose_env · sim.pose()`. Clock: fixed time steps of the scene's
//! `dt` (0.01 s), as many as the real (virtual) time elapsed asks for, at most
//! [`MAX_STEPS_PER_FRAME`] per frame (a slow frame slows the motion down rather than piling up
//! work).
//!
//! Settings per scene: the paper's scenes use their own [`SceneSpec::dynamics`] and start where
//! their recorded path starts, with the path's initial velocities (so an undisturbed simulation
//! follows the recorded path through its free fall); a pair of OBJ files uses the torus scene's settings with ordinary
//! gravity (−9.81 m/s² along −y) and starts where it was loaded. The wobbling torus has no
//! simulation (its shape changes under the engine's feet).

use super::metrics::{EngineWork, FrameWork, Stage};
use super::motion::{Grab, MotionMode, MotionSystems, Playback, PlaybackCommand};
use super::scene::{BodyId, CollisionScene, FrameSet};
use crate::math::{Isometry, Vector};
use crate::scenes::SceneSpec;
use crate::scenes::dynamics::{DynamicsConfig, Gravity, Simulation};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use std::collections::VecDeque;

/// At most this many time steps per frame.
pub const MAX_STEPS_PER_FRAME: u32 = 2;

/// The drag's velocity is estimated over this much of its end, seconds.
pub const THROW_WINDOW: f64 = 0.1;

/// The speed caps after a throw (m/s, rad/s): far above the scenes' own, since the engine flies
/// by conservative advancement and no speed lets a body through a wall.
pub const THROW_MAX_SPEED: (f64, f64) = (500.0, 60.0);

/// Where and how a simulation starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimStart {
    /// The engine's parameters.
    pub config: DynamicsConfig,
    /// The object's start pose in the environment's frame.
    pub pose: Isometry,
    /// Initial linear velocity, m/s (environment frame).
    pub velocity: Vector,
    /// Initial angular velocity, rad/s (environment frame).
    pub angular_velocity: Vector,
}

/// How simulate mode starts.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct SimulateSettings {
    /// Throw the object from its start with this velocity (m/s, environment frame) instead of
    /// the scene's own, with the throw's speed caps ([`THROW_MAX_SPEED`]): `obbtree view
    /// --simulate --throw VX,VY,VZ`.
    pub throw: Option<Vector>,
}

/// The live simulation of the loaded scene.
#[derive(Resource, Default)]
pub struct Simulator {
    sim: Option<Simulation>,
    start: Option<SimStart>,
    /// Why this scene has no simulation, if it has none.
    pub unavailable: Option<&'static str>,
    generation: u64,
    simulating: bool,
    accumulated: f64,
    held: bool,
    history: VecDeque<(f64, Isometry)>,
    /// The body left the scene (farther than 50 scene radii): stepping stopped until Reset.
    pub fell_away: bool,
    /// The velocities of the last throw (linear m/s, angular rad/s; environment frame).
    pub last_throw: Option<(Vector, Vector)>,
    /// What the last release did: pushed out of the scenery, or refused (why).
    pub release_note: Option<String>,
    /// Draw the last impact's contact normals.
    pub show_normals: bool,
    /// Simulated seconds since the last start.
    pub sim_time: f64,
}

impl Simulator {
    /// The running simulation, if simulate mode has started on this scene.
    pub fn simulation(&self) -> Option<&Simulation> {
        self.sim.as_ref()
    }

    /// Where the simulation starts (Reset goes back there).
    pub fn start(&self) -> Option<&SimStart> {
        self.start.as_ref()
    }

    /// The last impact's contact points and normals (environment frame), in simulate mode.
    pub fn impact(&self) -> &[(crate::math::Point, Vector)] {
        match &self.sim {
            Some(sim) if self.simulating => sim.last_impact(),
            _ => &[],
        }
    }

    /// Whether the user holds the object (the simulation waits).
    pub fn held(&self) -> bool {
        self.held
    }

    fn setup(&mut self, scene: &CollisionScene, settings: &SimulateSettings) {
        *self = Simulator {
            generation: scene.generation,
            ..Simulator::default()
        };
        if scene.deform.is_some() {
            self.unavailable = Some("the wobbling torus changes shape: no simulation");
            return;
        }
        self.start = Some(match scene.paper {
            Some(id) => {
                let spec = SceneSpec::of(id);
                SimStart {
                    config: spec.dynamics,
                    pose: scene.path.first().copied().unwrap_or(spec.start),
                    velocity: spec.v0,
                    angular_velocity: spec.w0,
                }
            }
            None => SimStart {
                config: DynamicsConfig {
                    gravity: Gravity::Uniform(Vector::new(0.0, -9.81, 0.0)),
                    ..SceneSpec::of(crate::scenes::SceneId::Torus).dynamics
                },
                pose: scene.relative_pose(),
                velocity: Vector::zeros(),
                angular_velocity: Vector::zeros(),
            },
        });
        if let (Some(v), Some(start)) = (settings.throw, self.start.as_mut()) {
            start.velocity = v;
            start.config.max_speed = start.config.max_speed.max(THROW_MAX_SPEED.0);
            start.config.max_angular_speed = start.config.max_angular_speed.max(THROW_MAX_SPEED.1);
        }
    }

    fn restart(&mut self, scene: &CollisionScene) {
        let Some(start) = self.start else {
            return;
        };
        self.release_note = None;
        self.sim = Some(Simulation::new(
            scene.env.trees.obb(),
            scene.obj.trees.obb(),
            &start.pose,
            start.velocity,
            start.angular_velocity,
            &start.config,
        ));
        self.accumulated = 0.0;
        self.fell_away = false;
        self.held = false;
        self.history.clear();
        self.sim_time = 0.0;
    }

    /// The drag's end velocities from the recorded poses (environment frame).
    fn throw_velocity(&self, com: &crate::math::Point) -> (Vector, Vector) {
        let Some(&(t1, p1)) = self.history.back() else {
            return (Vector::zeros(), Vector::zeros());
        };
        let Some(&(t0, p0)) = self.history.iter().find(|(t, _)| t1 - t <= THROW_WINDOW) else {
            return (Vector::zeros(), Vector::zeros());
        };
        let dt = t1 - t0;
        if dt < 1e-4 {
            return (Vector::zeros(), Vector::zeros());
        }
        let v = (p1 * com - p0 * com) / dt;
        let w = (p1.rotation * p0.rotation.inverse()).scaled_axis() / dt;
        (v, w)
    }
}

/// Runs the simulation in simulate mode.
pub struct SimulatePlugin;

impl Plugin for SimulatePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Simulator>()
            .init_resource::<SimulateSettings>()
            .add_systems(
                Update,
                run_simulation
                    .in_set(FrameSet::Motion)
                    .after(MotionSystems)
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

#[allow(clippy::too_many_arguments)]
fn run_simulation(
    mut state: ResMut<Simulator>,
    settings: Res<SimulateSettings>,
    mut scene: ResMut<CollisionScene>,
    playback: Res<Playback>,
    mut commands: MessageReader<PlaybackCommand>,
    mut grabs: MessageReader<Grab>,
    time: Res<Time>,
    mut work: ResMut<FrameWork>,
) {
    if state.generation != scene.generation {
        state.setup(&scene, &settings);
    }
    let simulate = playback.mode == MotionMode::Simulate && state.start.is_some();
    let entered = simulate && (!state.simulating || state.sim.is_none());
    state.simulating = simulate;
    let (restart, single) = playback_requests(&mut commands);
    let reset = entered || restart;
    let release = state.take_grabs(&mut grabs);
    if !simulate {
        state.held = false;
        return;
    }
    let scene = &mut *scene;
    let t = Instant::now();
    if reset {
        state.restart(scene);
    }
    let mut done = EngineWork {
        active: true,
        ..EngineWork::default()
    };
    if state.held {
        if !state.follow_drag(scene, release, time.elapsed_secs_f64()) {
            return;
        }
    } else {
        let playing = playback.playing;
        state.run_steps(scene, single, playing, time.delta_secs_f64(), &mut done);
    }
    if !state.held
        && let Some(sim) = state.sim.as_ref()
    {
        scene.obj.pose = scene.env.pose * sim.pose();
        done.asleep = sim.asleep();
    }
    work.engine = done;
    work.add(Stage::Engine, t);
}

/// Whether the frame's playback commands ask for a restart and for a single step.
fn playback_requests(commands: &mut MessageReader<PlaybackCommand>) -> (bool, bool) {
    let (mut restart, mut single) = (false, false);
    for c in commands.read() {
        match c {
            PlaybackCommand::Restart => restart = true,
            PlaybackCommand::SingleStep => single = true,
            _ => {}
        }
    }
    (restart, single)
}

impl Simulator {
    /// Takes or releases the object as the frame's grabs say; whether it was released.
    fn take_grabs(&mut self, grabs: &mut MessageReader<Grab>) -> bool {
        let mut release = false;
        for g in grabs.read() {
            match g {
                Grab::Take(BodyId::Object) => {
                    self.held = true;
                    self.history.clear();
                }
                Grab::Release(BodyId::Object) => release = self.held,
                _ => {}
            }
        }
        release
    }

    /// The simulation waits while the drag moves the object: records its path (at time `now`)
    /// for the throw, and on `release` throws it. `false` when there is no simulation to
    /// throw into.
    fn follow_drag(&mut self, scene: &CollisionScene, release: bool, now: f64) -> bool {
        let (env, obj) = (scene.env.trees.obb(), scene.obj.trees.obb());
        let rel = scene.env.pose.inv_mul(&scene.obj.pose);
        // The release frame adds no sample unless the drag moved the body in it: a frame's
        // lag between the last mouse motion and the button's release is not a pause.
        let still = self.history.back().is_some_and(|(_, last)| *last == rel);
        if !(release && still) {
            self.history.push_back((now, rel));
        }
        while self
            .history
            .front()
            .is_some_and(|(t0, _)| now - t0 > 2.0 * THROW_WINDOW)
        {
            self.history.pop_front();
        }
        if release {
            self.held = false;
            let Some(com) = self.sim.as_ref().map(|s| s.mass().com) else {
                return false;
            };
            let (v, w) = self.throw_velocity(&com);
            self.last_throw = Some((v, w));
            self.fell_away = false;
            self.accumulated = 0.0;
            if let Some(sim) = self.sim.as_mut() {
                sim.set_speed_caps(THROW_MAX_SPEED.0, THROW_MAX_SPEED.1);
                self.release_note = match sim.set_pose(env, obj, &rel, v, w) {
                    Ok(None) => None,
                    Ok(Some(shift)) => Some(format!(
                        "released inside the scenery: pushed out {:.1} mm",
                        shift.norm() * 1e3
                    )),
                    Err(e) => Some(e.to_string()),
                };
            }
            self.history.clear();
        }
        true
    }

    /// The frame's steps (one for `single`, else as many as the `delta` seconds played
    /// through, up to [`MAX_STEPS_PER_FRAME`]), counted into `done`.
    fn run_steps(
        &mut self,
        scene: &CollisionScene,
        single: bool,
        playing: bool,
        delta: f64,
        done: &mut EngineWork,
    ) {
        let Some(dt) = self.sim.as_ref().map(|s| s.config().dt) else {
            return;
        };
        let (env, obj) = (scene.env.trees.obb(), scene.obj.trees.obb());
        let mut steps = 0;
        if single {
            steps = 1;
        } else if playing && !self.fell_away {
            self.accumulated += delta;
            steps = ((self.accumulated / dt).floor() as u32).min(MAX_STEPS_PER_FRAME);
            self.accumulated -= steps as f64 * dt;
            // What a slow frame could not do is dropped: the motion slows down instead.
            self.accumulated = self.accumulated.min(dt);
        }
        let far = 50.0 * (scene.env.radius() + scene.obj.radius());
        let center = scene.env.trees.obb().node_box(0).0;
        if let Some(sim) = self.sim.as_mut() {
            for _ in 0..steps {
                let stats = sim.step(env, obj);
                done.steps += 1;
                done.queries += stats.queries;
                done.impacts += stats.impacts;
                done.toi_queries += stats.toi_queries;
                done.toi_micros += stats.toi_seconds * 1e6;
                done.bv_tests += stats.bv_tests;
                self.sim_time += dt;
            }
            if (sim.state().com - center).norm() > far {
                self.fell_away = true;
            }
        }
    }
}
