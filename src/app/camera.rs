//! The orbit camera: framed on the moving object when a paper scene loads (on both bodies for
//! a pair of the user's models), "Focus" (F) frames them again, and an option keeps it centred
//! while it moves (path or simulation). The camera draws only the part of the window right of
//! the side panel ([`ViewportInset`]), so what it centres is in the middle of what the user
//! sees.

use super::motion::{MotionMode, Playback};
use super::scene::{CollisionScene, FrameSet};
use super::scene_view::LIGHT_FROM;
use bevy::camera::Viewport;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

/// The orbit camera's state: it looks at `focus` from `distance`, turned by `yaw` about the
/// vertical and raised by `pitch` (radians).
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at, world frame.
    pub focus: Vec3,
    /// Turn about the vertical, radians.
    pub yaw: f32,
    /// Elevation, radians (within ±1.5).
    pub pitch: f32,
    /// Distance from the focus, world units.
    pub distance: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            focus: Vec3::ZERO,
            yaw: 0.6,
            pitch: 0.45,
            distance: 20.0,
        }
    }
}

impl OrbitCamera {
    /// The camera's transform.
    pub fn transform(&self) -> Transform {
        let dir = Vec3::new(
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
            self.pitch.cos() * self.yaw.cos(),
        );
        Transform::from_translation(self.focus + dir * self.distance)
            .looking_at(self.focus, Vec3::Y)
    }
}

/// Camera options.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CameraSettings {
    /// Keep the moving object centred while it moves.
    pub follow: bool,
}

/// Camera commands (keys and the panel).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraCommand {
    /// Frame the moving object (F).
    Focus,
}

/// Logical pixels on the left of the window covered by the side panel: the 3D view is the rest.
/// Written by the panel.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct ViewportInset(pub f32);

#[derive(Resource, Default)]
struct Framed(u64);

/// The orbit camera, its light, framing and following.
pub struct CameraPlugin;

impl Plugin for CameraPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OrbitCamera>()
            .init_resource::<CameraSettings>()
            .init_resource::<ViewportInset>()
            .init_resource::<Framed>()
            .add_message::<CameraCommand>()
            .add_systems(Startup, spawn_camera)
            .add_systems(
                Update,
                (frame_new_scene, focus_on_command, follow_object)
                    .chain()
                    .in_set(FrameSet::Present)
                    .run_if(resource_exists::<CollisionScene>),
            )
            .add_systems(
                Update,
                (place_camera, fit_viewport).after(FrameSet::Present),
            );
    }
}

/// Marks the camera that shows the scene (the orbit camera): the one picking and dragging cast
/// rays from. The app has other cameras (egui's panel, the curve overlay), so systems that want
/// the view's camera select it by this marker.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct ViewCamera;

fn spawn_camera(mut commands: Commands, orbit: Res<OrbitCamera>) {
    // No MSAA: software rendering (lavapipe) is four times cheaper without it.
    commands.spawn((
        ViewCamera,
        Camera3d::default(),
        Tonemapping::None,
        bevy::render::view::Msaa::Off,
        orbit.transform(),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 9000.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_translation(LIGHT_FROM).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        color: Color::WHITE,
        brightness: 400.0,
        affects_lightmapped_meshes: true,
    });
}

/// Where the camera looks and from how far: a paper scene (or the wobble) frames the object and
/// its surroundings; a pair of the user's models frames both bodies whole (the sphere around
/// their two bounding spheres fits the view, `aspect` its width over its height), so the
/// segment between them is in view too.
fn framing(scene: &CollisionScene, aspect: f32) -> (Vec3, f32) {
    let v = |p: crate::math::Point| Vec3::new(p.x as f32, p.y as f32, p.z as f32);
    let (c, r) = (v(scene.obj.center()), scene.obj.radius().max(1e-3) as f32);
    if scene.paper.is_some() || scene.deform.is_some() {
        let distance = (r * 4.5).max(scene.env.radius() as f32 * 0.12);
        return (c, distance);
    }
    let (ce, re) = (v(scene.env.center()), scene.env.radius().max(1e-3) as f32);
    let apart = (c - ce).length();
    let radius = ((apart + r + re) * 0.5).max(r).max(re);
    let centre = if apart > 0.0 {
        ce + (c - ce) / apart * (radius - re)
    } else {
        ce
    };
    // The narrower of the vertical field of view (Bevy's default, 45°) and the horizontal one.
    let half_v = std::f32::consts::FRAC_PI_8;
    let half = half_v.min((half_v.tan() * aspect.max(0.05)).atan());
    (centre, 1.1 * radius / half.sin())
}

/// Width over height of the 3D view: the window right of the panel.
fn view_aspect(window: &Query<&Window, With<PrimaryWindow>>, inset: &ViewportInset) -> f32 {
    window.single().map_or(1.0, |w| {
        (w.width() - inset.0).max(1.0) / w.height().max(1.0)
    })
}

fn frame_new_scene(
    scene: Res<CollisionScene>,
    window: Query<&Window, With<PrimaryWindow>>,
    inset: Res<ViewportInset>,
    mut framed: ResMut<Framed>,
    mut orbit: ResMut<OrbitCamera>,
) {
    if framed.0 == scene.generation {
        return;
    }
    framed.0 = scene.generation;
    (orbit.focus, orbit.distance) = framing(&scene, view_aspect(&window, &inset));
}

fn focus_on_command(
    scene: Res<CollisionScene>,
    window: Query<&Window, With<PrimaryWindow>>,
    inset: Res<ViewportInset>,
    mut commands: MessageReader<CameraCommand>,
    mut orbit: ResMut<OrbitCamera>,
) {
    if commands.read().any(|c| *c == CameraCommand::Focus) {
        (orbit.focus, orbit.distance) = framing(&scene, view_aspect(&window, &inset));
    }
}

fn follow_object(
    scene: Res<CollisionScene>,
    settings: Res<CameraSettings>,
    playback: Res<Playback>,
    mut orbit: ResMut<OrbitCamera>,
) {
    let moving = playback.playing && playback.mode != MotionMode::Free;
    if settings.follow && moving {
        let c = scene.obj.center();
        let focus = Vec3::new(c.x as f32, c.y as f32, c.z as f32);
        if orbit.focus != focus {
            orbit.focus = focus;
        }
    }
}

fn place_camera(orbit: Res<OrbitCamera>, mut camera: Query<&mut Transform, With<Camera3d>>) {
    if orbit.is_changed() {
        for mut t in &mut camera {
            *t = orbit.transform();
        }
    }
}

fn fit_viewport(
    inset: Res<ViewportInset>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut camera: Query<&mut Camera, With<Camera3d>>,
    mut ui_camera: Query<&mut Camera, (With<Camera2d>, Without<Camera3d>)>,
) {
    let Ok(window) = window.single() else {
        return;
    };
    let (w, h) = (window.physical_width(), window.physical_height());
    let left = ((inset.0 * window.scale_factor()) as u32).min(w.saturating_sub(1));
    let viewport = |x: u32| {
        (w > 0 && h > 0).then(|| Viewport {
            physical_position: UVec2::new(x, 0),
            physical_size: UVec2::new(w - x, h),
            ..default()
        })
    };
    let key = |v: &Option<Viewport>| v.as_ref().map(|v| (v.physical_position, v.physical_size));
    let (view, whole) = (viewport(left), viewport(0));
    for mut cam in &mut camera {
        if key(&cam.viewport) != key(&view) {
            cam.viewport = view.clone();
        }
    }
    // The panel's camera says its viewport (the whole window) too: on WebGL2 a camera without
    // one inherits the last pass's (the 3D view's), and the panel was drawn shifted by it.
    for mut cam in &mut ui_camera {
        if key(&cam.viewport) != key(&whole) {
            cam.viewport = whole.clone();
        }
    }
}

/// The camera as the screenshot line and the web page's title report it, for tests that project
/// the library's contacts onto the image:
/// `camera x y z qx qy qz qw fov F viewport X Y W H` — world translation and rotation, vertical
/// field of view (radians, 0 if not perspective), viewport in physical pixels (zeros if none).
pub fn describe_camera(transform: &Transform, camera: &Camera, projection: &Projection) -> String {
    let fov = match projection {
        Projection::Perspective(p) => p.fov,
        _ => 0.0,
    };
    let (pos, size) = camera
        .viewport
        .as_ref()
        .map_or((UVec2::ZERO, UVec2::ZERO), |v| {
            (v.physical_position, v.physical_size)
        });
    let (p, q) = (transform.translation, transform.rotation);
    format!(
        "camera {} {} {} {} {} {} {} fov {} viewport {} {} {} {}",
        p.x, p.y, p.z, q.x, q.y, q.z, q.w, fov, pos.x, pos.y, size.x, size.y
    )
}
