//! The interactive demonstrator (DESIGN.md, "The app"): a Bevy app that runs the OBBTree query
//! every frame, draws the intersection curve of the two bodies and lights up the contacting
//! triangles, draws hierarchy levels (paper Fig. 9), plays the scenes' motion paths or moves the
//! object with the live dynamics engine, lets the user drag and throw it, compares OBB, AABB and
//! sphere trees side by side, and shows live timings and the cost equation's terms.
//!
//! # Plugins
//! One plugin per concern, one file each. The *logic* ([`LogicPlugins`]) needs no window or
//! GPU and is what the headless tests drive with `MinimalPlugins`:
//! [`LoadingPlugin`] (scenes and tree rebuilds off the main thread), [`MotionPlugin`] (path,
//! drags, deformation), [`SimulatePlugin`] (the dynamics engine), [`QueryPlugin`] (the
//! per-frame query and C_v, C_p), [`ProximityPlugin`] (distance while apart, pairs within a
//! tolerance), [`SelfIntersectionPlugin`] (the deforming object against itself),
//! [`ComparePlugin`] (the three trees side by side),
//! [`CurvesPlugin`] and [`OverlayPlugin`] (what to draw, computed; drawn when presenting),
//! [`MetricsPlugin`] (every timing). The *presentation* adds [`SceneViewPlugin`] (body meshes),
//! [`HighlightPlugin`], [`CameraPlugin`], [`InputPlugin`], [`UiPlugin`] and, for
//! `--screenshot`, [`CapturePlugin`].
//!
//! # Data flow
//! One way, through resources and messages; no module imports one that imports it back:
//!
//! ```text
//! scene ◄── metrics ◄── loading, motion ◄── simulate, query ◄── compare, curves, overlay
//!   ▲                                                 ▲
//!   └── scene_view ◄── highlights        camera ◄── input ◄── ui ◄── (capture)
//! ```
//!
//! `scene` (the bodies, their [`Trees`] and the one dispatch over tree kinds) depends on the
//! core only; `metrics` only on `scene`; the UI at the top reads everything and writes settings.
//!
//! Frames: every body has a pose in the world frame (f64, [`crate::math::Isometry`]); the
//! environment starts at the identity. The query uses the relative pose `pose_env⁻¹ · pose_obj`.

mod camera;
mod capture;
mod compare;
mod curves;
mod files;
mod highlights;
mod input;
mod loading;
mod metrics;
mod motion;
mod overlay;
mod picking;
mod proximity;
mod query;
mod scene;
mod scene_view;
mod self_intersection;
mod simulate;
mod ui;
#[cfg(target_arch = "wasm32")]
mod web;

pub use camera::{
    CameraCommand, CameraPlugin, CameraSettings, OrbitCamera, ViewCamera, ViewportInset,
};
pub use capture::CapturePlugin;
pub use compare::{
    CompareDistance, ComparePlugin, CompareRow, CompareSettings, Comparison, compare_pose,
};
pub use curves::{CURVE, ContactCurves, CurveCamera, CurveSettings, CurvesPlugin};
#[cfg(target_arch = "wasm32")]
pub use files::web::{open_picker, take_picked};
pub use files::{ObjUpload, load_paper};
pub use highlights::{HIGHLIGHT, HighlightPlugin, HighlightSettings};
pub use input::{DragState, HelpVisible, InputPlugin, PointerCapture};
pub use loading::{
    LoadScene, LoadingPlugin, RebuildTrees, SceneChoice, SceneStatus, TreeCacheSetting,
};
pub use metrics::{EngineWork, FrameSample, FrameWork, MetricsPlugin, Stage, Timings};
pub use motion::{
    DragBody, Grab, KindsInUse, MotionMode, MotionPlugin, Playback, PlaybackCommand, wobble,
};
pub use overlay::{OverlayBox, OverlayBoxes, OverlayPlugin, OverlaySettings};
pub use picking::{pick, pick_brute_force, ray_cast};
pub use proximity::{
    LastProximity, ProximityPlugin, ProximitySettings, SEGMENT, SEGMENT_WIDTH, SegmentGizmos,
    TOLERANCE,
};
pub use query::{LastQuery, QueryPlugin, QuerySettings, SeparationCache, TraceRequest};
pub use scene::{
    Body, BodyId, CollisionScene, Deformation, FrameSet, KINDS, KindVisitor, TreeKind, TreeStats,
    Trees, dispatch,
};
pub use scene_view::SceneViewPlugin;
pub use self_intersection::{
    LastSelfIntersection, SELF_INTERSECTING, SelfIntersectionPlugin, SelfIntersectionSettings,
};
pub use simulate::{
    MAX_STEPS_PER_FRAME, SimStart, SimulatePlugin, SimulateSettings, Simulator, THROW_MAX_SPEED,
    THROW_WINDOW,
};
pub use ui::UiPlugin;
#[cfg(target_arch = "wasm32")]
pub use web::WebPlugin;

use bevy::prelude::*;
use std::path::PathBuf;

/// The logic of the app, without window or GPU: what headless tests run with `MinimalPlugins`.
pub struct LogicPlugins {
    /// The assets folder (scenes and paths).
    pub assets: PathBuf,
    /// Scene to load at startup.
    pub initial: Option<SceneChoice>,
    /// Also draw the curves and the overlay with gizmos (needs the render plugins).
    pub draw: bool,
    /// Where built trees are kept between runs (`None`: every tree is built).
    pub tree_cache: Option<crate::bvh::TreeCache>,
}

impl LogicPlugins {
    /// The logic for headless use: nothing is drawn.
    pub fn headless(assets: PathBuf, initial: Option<SceneChoice>) -> Self {
        Self {
            assets,
            initial,
            draw: false,
            tree_cache: None,
        }
    }
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
            MetricsPlugin,
            LoadingPlugin {
                assets: self.assets.clone(),
                initial: self.initial.clone(),
                tree_cache: self.tree_cache.clone(),
            },
            MotionPlugin,
            SimulatePlugin,
            QueryPlugin,
            ComparePlugin,
            CurvesPlugin { draw: self.draw },
            OverlayPlugin { draw: self.draw },
            ProximityPlugin { draw: self.draw },
            SelfIntersectionPlugin,
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
    /// Start in simulate mode.
    pub simulate: bool,
    /// In simulate mode, throw the object from its start with this velocity (m/s).
    pub throw: Option<[f64; 3]>,
    /// Start with the three tree types side by side.
    pub compare: bool,
    /// Light the triangle pairs within this tolerance from the start.
    pub tolerance: Option<f64>,
    /// Start with the path paused (the web page's `play=0`).
    pub paused: bool,
    /// The folder of the tree cache (`None`: build every tree).
    pub tree_cache: Option<PathBuf>,
}

/// Opens the window and runs until it is closed (or the screenshot is saved).
pub fn run(options: ViewOptions) -> AppExit {
    let mut playback = Playback::starting_at(options.start_step);
    playback.start_paused = options.paused;
    if options.simulate {
        playback.mode = MotionMode::Simulate;
    }
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "obbtree — OBBTree interference detection".into(),
            resolution: (1280, 720).into(),
            // In a browser: draw into the page's canvas, sized by the page, and keep the
            // page from scrolling or opening menus on the viewer's keys and drags.
            canvas: cfg!(target_arch = "wasm32").then(|| "#obbtree".into()),
            fit_canvas_to_parent: true,
            prevent_default_event_handling: true,
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
        draw: true,
        tree_cache: options.tree_cache.clone().map(crate::bvh::TreeCache::new),
    })
    .insert_resource(playback)
    .insert_resource(SimulateSettings {
        throw: options.throw.map(crate::math::Vector::from),
    })
    .insert_resource(CompareSettings {
        enabled: options.compare,
    })
    .insert_resource(ProximitySettings {
        pairs: options.tolerance.is_some(),
        tolerance: options.tolerance.unwrap_or(0.0),
        ..ProximitySettings::default()
    })
    .insert_resource(OverlaySettings {
        show: options.overlay_level.is_some(),
        level: options
            .overlay_level
            .unwrap_or(OverlaySettings::default().level),
        ..OverlaySettings::default()
    })
    .add_plugins((
        SceneViewPlugin,
        HighlightPlugin,
        CameraPlugin,
        InputPlugin,
        UiPlugin,
    ));
    #[cfg(target_arch = "wasm32")]
    app.add_plugins(WebPlugin);
    if let Some(path) = &options.screenshot {
        app.add_plugins(CapturePlugin {
            path: path.clone(),
            frames: options.frames.max(1),
        });
    }
    app.run()
}
