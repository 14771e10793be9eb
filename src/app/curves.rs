//! The intersection curve: for every contacting triangle pair of the frame's query (and every
//! self-intersecting pair of a deforming object, [`super::self_intersection`]), the exact
//! piece where the two triangles cross ([`crate::query::triangle_intersection`]: a segment, a
//! point, or a polygon for coplanar pairs), in the world frame; drawn as thick lines over
//! everything, as three-mesh-bvh's edge-intersection demo draws them, so contacts inside other
//! geometry (the pipes) stay visible.
//!
//! The pieces ([`ContactCurves`]) are logic, computed without a GPU; with
//! [`CurvesPlugin::draw`] the plugin also draws them with their own gizmo group
//! ([`CurveGizmos`]: drawn in front of all geometry, [`CURVE_WIDTH`] pixels wide).

use super::metrics::{FrameWork, Stage};
use super::query::LastQuery;
use super::scene::{CollisionScene, FrameSet};
use crate::math::{Point, transform_point};
use crate::query::{Intersection, triangle_intersection};
use bevy::camera::visibility::RenderLayers;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::render::view::Msaa;

/// The curve's colour: unlit, untonemapped, so exactly this sRGB value on screen (R 0, G 255,
/// B 90), a green no mesh of the scenes is lit to.
pub const CURVE: Color = Color::srgb(0.0, 1.0, 90.0 / 255.0);

/// Width of the curve's lines, logical pixels.
pub const CURVE_WIDTH: f32 = 5.0;

/// Pieces shorter than this on screen, pixels, get a ring around them so they can be found.
pub const MARK_BELOW_PX: f32 = 10.0;

/// Above this many pieces the curve is its own mark: no rings (a self-intersection's thousands
/// of short pieces would vanish under theirs).
pub const MARK_AT_MOST: usize = 400;

/// What the curves show.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct CurveSettings {
    /// Compute and draw the curves.
    pub show: bool,
    /// Contact pairs intersected per frame at most (the rest are counted, not drawn).
    pub max_pairs: usize,
    /// In simulate mode, draw the last impact's contact normals (arrows from the scenery into
    /// the body, where its impulses acted).
    pub impact_normals: bool,
}

impl Default for CurveSettings {
    fn default() -> Self {
        Self {
            show: true,
            max_pairs: 20_000,
            impact_normals: true,
        }
    }
}

/// The frame's intersection curve, world frame (double precision).
#[derive(Resource, Clone, Debug, Default)]
pub struct ContactCurves {
    /// Segments: the crossing of two triangles, and the edges of coplanar overlaps.
    pub segments: Vec<(Point, Point)>,
    /// Touching points (a pair meeting in one point).
    pub points: Vec<Point>,
    /// Coplanar overlaps (polygons) among the pairs.
    pub polygons: usize,
    /// Contact pairs intersected.
    pub pairs: usize,
    /// Whether [`CurveSettings::max_pairs`] cut the list.
    pub capped: bool,
}

impl ContactCurves {
    /// Total length of the segments (world units); polygon edges count.
    pub fn length(&self) -> f64 {
        self.segments.iter().map(|(a, b)| (b - a).norm()).sum()
    }
}

/// What the ring sizes are computed from: the scene camera's viewport, place and lens.
pub(super) type SceneCamera = (
    &'static Camera,
    &'static GlobalTransform,
    &'static Projection,
);

/// The systems that fill [`ContactCurves`] (the contacts' pieces first, then other plugins'
/// own, such as the self-intersection's), before it is drawn.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct CurvePieces;

/// Gizmos of the intersection curve: drawn over everything.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct CurveGizmos;

/// Computes the curve every frame, and draws it when `draw` is set.
pub struct CurvesPlugin {
    /// Draw with gizmos (needs the render plugins; off in headless tests).
    pub draw: bool,
}

impl Plugin for CurvesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CurveSettings>()
            .init_resource::<ContactCurves>()
            .add_systems(
                Update,
                compute_curves
                    .in_set(CurvePieces)
                    .in_set(FrameSet::Present)
                    .run_if(resource_exists::<CollisionScene>),
            );
        if self.draw {
            app.init_gizmo_group::<CurveGizmos>()
                .add_systems(Startup, configure_gizmos)
                .add_systems(
                    Update,
                    draw_curves
                        .in_set(FrameSet::Present)
                        .after(CurvePieces)
                        .run_if(resource_exists::<CollisionScene>),
                );
        }
    }
}

/// The render layer of the curve's gizmos, seen only by [`CurveCamera`].
pub const CURVE_LAYER: usize = 1;

/// A second 3D camera that draws only the curve, after the scene's camera has drawn everything
/// (translucent pipes included) and into the same image: so the curve is never dimmed by
/// translucent geometry in front of it (gizmos share the scene's transparent pass, where
/// translucent meshes would blend over them). It has the scene camera's transform, projection
/// and viewport: the camera plugin sets every `Camera3d`'s transform and viewport.
#[derive(Component)]
pub struct CurveCamera;

fn configure_gizmos(mut commands: Commands, mut store: ResMut<GizmoConfigStore>) {
    let (config, _) = store.config_mut::<CurveGizmos>();
    config.line.width = CURVE_WIDTH;
    config.render_layers = RenderLayers::layer(CURVE_LAYER);
    commands.spawn((
        CurveCamera,
        Camera3d::default(),
        Camera {
            order: 1,
            clear_color: ClearColorConfig::None,
            ..default()
        },
        Tonemapping::None,
        Msaa::Off,
        RenderLayers::layer(CURVE_LAYER),
    ));
}

pub(super) fn compute_curves(
    scene: Res<CollisionScene>,
    settings: Res<CurveSettings>,
    last: Res<LastQuery>,
    mut out: ResMut<ContactCurves>,
    mut work: ResMut<FrameWork>,
) {
    let t = Instant::now();
    out.segments.clear();
    out.points.clear();
    out.polygons = 0;
    out.pairs = 0;
    out.capped = false;
    if !settings.show {
        return;
    }
    // The triangles exactly as the query tested them: B's corners placed in A's frame by the
    // queried pose; then A's frame to the world.
    let rot = last.relative.rotation.to_rotation_matrix().into_inner();
    let pos = last.relative.translation.vector;
    let (ma, mb) = (scene.env.mesh(), scene.obj.mesh());
    let world = |p: &Point| last.env_pose * p;
    let contacts = &last.report.contacts;
    out.capped = contacts.len() > settings.max_pairs;
    for &(ia, ib) in contacts.iter().take(settings.max_pairs) {
        let (ia, ib) = (ia as usize, ib as usize);
        if ia >= ma.triangle_count() || ib >= mb.triangle_count() {
            continue;
        }
        let ta = ma.triangle(ia);
        let tb = mb.triangle(ib).map(|p| transform_point(&rot, &pos, &p));
        out.pairs += 1;
        match triangle_intersection(&ta, &tb) {
            Intersection::Empty => {}
            Intersection::Point(p) => out.points.push(world(&p)),
            Intersection::Segment(a, b) => out.segments.push((world(&a), world(&b))),
            polygon @ Intersection::Polygon(_) => {
                out.polygons += 1;
                for (a, b) in polygon.edges() {
                    out.segments.push((world(&a), world(&b)));
                }
            }
        }
    }
    work.add(Stage::Curves, t);
}

/// The camera's place and turn, and the world units per logical pixel at unit distance in
/// front of it: for marks of constant size on screen.
pub(super) fn screen_scale(
    (cam, transform, projection): (&Camera, &GlobalTransform, &Projection),
) -> (Vec3, Quat, f32) {
    let fov = match projection {
        Projection::Perspective(p) => p.fov,
        _ => std::f32::consts::FRAC_PI_4,
    };
    let height = cam.logical_viewport_size().map_or(720.0, |s| s.y.max(1.0));
    (
        transform.translation(),
        transform.rotation(),
        2.0 * (fov * 0.5).tan() / height,
    )
}

fn v3(p: &Point) -> Vec3 {
    Vec3::new(p.x as f32, p.y as f32, p.z as f32)
}

/// Draws a line and a ring fully transparent in front of the camera, every frame: the gizmo
/// group's two render pipelines (line lists for segments, line strips for rings) are then
/// compiled when the app starts, not when the first contact asks for them. Render pipelines
/// compile in the background, and until they are ready nothing of theirs reaches the screen:
/// under software rendering (a frame a second) a first contact's rings stayed undrawn for
/// several seconds (a path started 15 steps before the pipes' first contacts: those,
/// pieces of 1.5 mm drawn as rings, did not show).
pub(super) fn warm_pipelines<G: GizmoConfigGroup>(
    gizmos: &mut Gizmos<G>,
    at: Option<(Vec3, Quat, f32)>,
) {
    if let Some((origin, rotation, _)) = at {
        let ahead = origin + rotation * Vec3::NEG_Z;
        gizmos.line(ahead, ahead + rotation * Vec3::X * 1e-3, Color::NONE);
        gizmos.circle(Isometry3d::new(ahead, rotation), 1e-3, Color::NONE);
    }
}

/// The colour of the impact normals' arrows.
pub const IMPACT_NORMAL: Color = Color::srgb(0.85, 0.1, 0.95);

#[allow(clippy::too_many_arguments)]
fn draw_curves(
    curves: Res<ContactCurves>,
    settings: Res<CurveSettings>,
    simulator: Option<Res<super::simulate::Simulator>>,
    scene: Res<CollisionScene>,
    camera: Query<SceneCamera, With<super::camera::ViewCamera>>,
    mut gizmos: Gizmos<CurveGizmos>,
    mut work: ResMut<FrameWork>,
) {
    let t = Instant::now();
    let per_pixel = camera.iter().next().map(screen_scale);
    warm_pipelines(&mut gizmos, per_pixel);
    let ring = |gizmos: &mut Gizmos<CurveGizmos>, at: Vec3| {
        if let Some((origin, rotation, k)) = per_pixel {
            let r = (at - origin).length() * k * 7.0;
            gizmos.circle(Isometry3d::new(at, rotation), r, CURVE);
        }
    };
    for (a, b) in &curves.segments {
        let (a, b) = (v3(a), v3(b));
        let px = per_pixel.map_or(f32::INFINITY, |(origin, _, k)| {
            (b - a).length() / (((a + b) * 0.5 - origin).length() * k).max(1e-12)
        });
        // A segment under a pixel long is drawn as its ring only (a line whose ends land on
        // one pixel has no direction to be widened along).
        if px >= 1.0 {
            gizmos.line(a, b, CURVE);
        }
        if px < MARK_BELOW_PX && curves.segments.len() <= MARK_AT_MOST {
            ring(&mut gizmos, (a + b) * 0.5);
        }
    }
    for p in &curves.points {
        ring(&mut gizmos, v3(p));
    }
    if settings.impact_normals
        && let Some(sim) = simulator
    {
        let length = 0.6 * scene.obj.radius();
        for (p, n) in sim.impact() {
            let at = scene.env.pose * p;
            let tip = at + scene.env.pose.rotation * n * length;
            gizmos.arrow(v3(&at), v3(&tip), IMPACT_NORMAL);
        }
    }
    work.add(Stage::Curves, t);
}
