//! The interactive demonstrator (DESIGN.md, "The app"): a Bevy app that runs the OBBTree query
//! every frame, lights up the contacting triangles, draws hierarchy levels (paper Fig. 9), lets
//! the user drag objects, plays the scenes' motion paths and shows live timings.
//!
//! One plugin per concern. The *logic* plugins ([`LogicPlugins`]: scene loading, motion,
//! the per-frame query, the overlay's box list, timings) need no window or GPU and are what the
//! headless tests drive with `MinimalPlugins`; the *presentation* plugins (meshes and highlights,
//! gizmo overlay, mouse and keyboard, egui panel, screenshots) are added by [`run`].
//!
//! Frames: every body has a pose in the world frame (f64, [`Isometry`]); the environment starts
//! at the identity. The query uses the relative pose `pose_env⁻¹ · pose_obj`.

mod capture;
mod input;
mod loading;
mod motion;
mod query;
mod render;
mod ui;

pub use loading::{LoadScene, SceneChoice, SceneStatus};
pub use motion::{DragBody, Playback};
pub use query::{FrameSample, LastQuery, QuerySettings, SeparationCache, Timings};
pub use render::{OverlayBoxes, OverlaySettings};

use crate::bv::{Aabb, BvKind, Obb, Sphere};
use crate::bvh::Bvh;
use crate::math::{Isometry, Point};
use crate::mesh::TriMesh;
use bevy::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// Which body of the scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyId {
    /// The environment (A).
    Environment,
    /// The moving object (B).
    Object,
}

/// One body: its mesh, its three hierarchies and its world pose.
pub struct Body {
    /// Triangles in the body's model frame.
    pub mesh: Arc<TriMesh>,
    /// OBB tree (Gottschalk et al. 1996).
    pub obb: Bvh<Obb>,
    /// AABB tree (van den Bergen 1998).
    pub aabb: Bvh<Aabb>,
    /// Sphere tree.
    pub sphere: Bvh<Sphere>,
    /// Pose in the world frame.
    pub pose: Isometry,
    /// Build time of each tree (OBB, AABB, sphere), milliseconds.
    pub build_ms: [f64; 3],
}

impl Body {
    /// Depth of the tree of `kind`.
    pub fn depth(&self, kind: BvKind) -> usize {
        match kind {
            BvKind::Obb => self.obb.depth(),
            BvKind::Aabb => self.aabb.depth(),
            BvKind::Sphere => self.sphere.depth(),
        }
    }

    /// Memory of the tree of `kind`, bytes.
    pub fn memory(&self, kind: BvKind) -> usize {
        match kind {
            BvKind::Obb => self.obb.memory_bytes(),
            BvKind::Aabb => self.aabb.memory_bytes(),
            BvKind::Sphere => self.sphere.memory_bytes(),
        }
    }
}

/// A deforming body (the fourth scene): its rest vertices and the wobble's clock.
pub struct Deformation {
    /// Rest vertices, model frame.
    pub rest: Vec<Point>,
    /// Seconds since the scene started.
    pub time: f64,
    /// The tree refitted (and queried) last.
    pub kind: BvKind,
}

/// The loaded scene: what every system works on.
#[derive(Resource)]
pub struct CollisionScene {
    /// Name shown in the UI.
    pub name: String,
    /// The environment (A).
    pub env: Body,
    /// The moving object (B).
    pub obj: Body,
    /// The motion path: the object's world poses (the environment at the identity).
    pub path: Vec<Isometry>,
    /// The deforming object, for the wobbling-torus scene.
    pub deform: Option<Deformation>,
    /// Incremented whenever the scene is replaced (presentation rebuilds its meshes).
    pub generation: u64,
    /// Draw the environment see-through (the pipes: the object is inside it).
    pub translucent_env: bool,
}

impl CollisionScene {
    /// The body `id`.
    pub fn body(&self, id: BodyId) -> &Body {
        match id {
            BodyId::Environment => &self.env,
            BodyId::Object => &self.obj,
        }
    }

    /// The body `id`, mutably.
    pub fn body_mut(&mut self, id: BodyId) -> &mut Body {
        match id {
            BodyId::Environment => &mut self.env,
            BodyId::Object => &mut self.obj,
        }
    }
}

/// System sets of a frame, in order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameSet {
    /// Scene loading and switching.
    Load,
    /// Input turned into messages (presentation only).
    Input,
    /// Path playback, dragging, deformation and refit.
    Motion,
    /// The collision query.
    Query,
    /// What to draw: overlay boxes, highlights (presentation).
    Present,
    /// The frame's timing sample.
    Record,
}

/// The logic of the app, without window or GPU: what headless tests run with `MinimalPlugins`.
pub struct LogicPlugins {
    /// The assets folder (scenes and paths).
    pub assets: PathBuf,
    /// Scene to load at startup.
    pub initial: Option<SceneChoice>,
}

impl Plugin for LogicPlugins {
    fn build(&self, app: &mut App) {
        app.configure_sets(
            Update,
            (
                FrameSet::Load,
                FrameSet::Input,
                FrameSet::Motion,
                FrameSet::Query,
                FrameSet::Present,
                FrameSet::Record,
            )
                .chain(),
        );
        app.add_plugins((
            loading::LoadingPlugin {
                assets: self.assets.clone(),
                initial: self.initial.clone(),
            },
            motion::MotionPlugin,
            query::QueryPlugin,
            render::OverlayLogicPlugin,
        ));
    }
}

/// What `obbtree view` was asked for.
#[derive(Clone, Debug, Default)]
pub struct ViewOptions {
    /// Scene to open.
    pub scene: Option<SceneChoice>,
    /// Assets folder.
    pub assets: PathBuf,
    /// Save a screenshot here after `frames` frames of the scene, then exit.
    pub screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot.
    pub frames: u32,
    /// Path step the first scene starts at.
    pub start_step: usize,
    /// Show this level of the object's OBB tree from the start.
    pub overlay_level: Option<usize>,
}

/// Opens the window and runs until it is closed (or the screenshot is saved).
pub fn run(options: ViewOptions) -> AppExit {
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "obbtree — OBBTree interference detection".into(),
            resolution: (1280, 720).into(),
            ..default()
        }),
        ..default()
    }))
    // Render continuously even without focus (Xvfb windows have none).
    .insert_resource(bevy::winit::WinitSettings::continuous())
    .add_plugins(bevy_egui::EguiPlugin::default())
    .add_plugins(LogicPlugins {
        assets: options.assets.clone(),
        initial: Some(
            options
                .scene
                .clone()
                .unwrap_or(SceneChoice::Paper(crate::scenes::SceneId::Pipes)),
        ),
    })
    .insert_resource(Playback {
        start_step: options.start_step,
        ..Playback::default()
    })
    .insert_resource(OverlaySettings {
        show: options.overlay_level.is_some(),
        level: options
            .overlay_level
            .unwrap_or(OverlaySettings::default().level),
        ..OverlaySettings::default()
    })
    .add_plugins((render::RenderPlugin, input::InputPlugin, ui::UiPlugin));
    if let Some(path) = &options.screenshot {
        app.add_plugins(capture::CapturePlugin {
            path: path.clone(),
            frames: options.frames.max(1),
        });
    }
    app.run()
}
