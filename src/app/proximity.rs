//! Proximity, live (PQP's queries: Larsen, Gottschalk, Lin & Manocha 1999): while the bodies are
//! apart, the distance between them with a closest point on each
//! ([`crate::query::distance_with`]), drawn as a segment over everything; and, when a tolerance
//! is set, every triangle pair within it ([`crate::query::within_pairs_with`]), which the
//! highlights fill in their own colour.
//!
//! Both run on the frame's queried pose with the query's tree type, after the interference
//! query; the distance starts from the last frame's nearest pair (temporal coherence). The
//! results ([`LastProximity`]) are logic, computed without a GPU; with
//! [`ProximityPlugin::draw`] the segment is drawn with the curve's gizmos (over everything).

use super::curves::{CURVE_LAYER, SceneCamera, screen_scale, warm_pipelines};
use super::metrics::{FrameWork, Stage};
use super::query::{LastQuery, QuerySettings};
use super::scene::{CollisionScene, FrameSet, KindVisitor, TreeKind, dispatch};
use crate::bv::{BvKind, OverlapOptions};
use crate::math::{Isometry, Point, Real};
use crate::query::{
    DistanceOptions, DistanceReport, PairsReport, distance_with, within_pairs_with,
};
use bevy::camera::visibility::RenderLayers;
use bevy::platform::time::Instant;
use bevy::prelude::*;

/// The closest-point segment's colour: unlit white over everything (R, G, B 255).
pub const SEGMENT: Color = Color::srgb(1.0, 1.0, 1.0);

/// Width of the segment's line, logical pixels.
pub const SEGMENT_WIDTH: f32 = 3.0;

/// Gizmos of the segment: drawn over everything, by the curve's camera.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct SegmentGizmos;

/// The fill of triangles within the tolerance (and not in contact): unlit blue, sRGB
/// (40, 90, 255), a colour no mesh of the scenes is lit to.
pub const TOLERANCE: Color = Color::srgb(40.0 / 255.0, 90.0 / 255.0, 1.0);

/// What the proximity queries show.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct ProximitySettings {
    /// Measure the distance while the bodies are apart, and draw its segment.
    pub distance: bool,
    /// Light every triangle pair within [`Self::tolerance`].
    pub pairs: bool,
    /// The tolerance, world units (≥ 0; a bad value is reported, not used). While the pairs
    /// are off and it is 0, the panel sets a value sized to the scene's object.
    pub tolerance: Real,
    /// Triangle pairs lit at most (the rest are counted, not lit).
    pub max_pairs: usize,
}

impl Default for ProximitySettings {
    fn default() -> Self {
        Self {
            distance: true,
            pairs: false,
            tolerance: 0.0,
            max_pairs: 100_000,
        }
    }
}

/// The frame's proximity answers.
#[derive(Resource, Clone, Debug, Default)]
pub struct LastProximity {
    /// The distance query of this frame, when the bodies are apart and it was asked for.
    pub distance: Option<DistanceReport>,
    /// Its closest points in the world frame (on the environment, on the object).
    pub segment: Option<(Point, Point)>,
    /// Wall time of the distance query, µs (0 when none ran).
    pub distance_micros: f64,
    /// The triangle pairs within the tolerance (environment, object), when one is set.
    pub pairs: Vec<(u32, u32)>,
    /// Box and triangle tests of the tolerance query.
    pub pairs_tests: (u64, u64),
    /// Wall time of the tolerance query, µs (0 when none ran).
    pub pairs_micros: f64,
    /// Whether [`ProximitySettings::max_pairs`] cut `pairs`.
    pub capped: bool,
    /// A query's error (a bad tolerance), shown in the panel.
    pub error: Option<String>,
    /// The last nearest pair, the next distance query's start, and the tree type, scene
    /// generation and tree revision it belongs to.
    seed: Option<((u32, u32), TreesKey)>,
}

/// (tree type, scene generation, tree revision): what a seed pair's indices refer to.
type TreesKey = (BvKind, u64, u64);

/// Runs the proximity queries every frame after the interference query, and draws the segment
/// when `draw` is set.
pub struct ProximityPlugin {
    /// Draw with gizmos (needs the render plugins; off in headless tests).
    pub draw: bool,
}

impl Plugin for ProximityPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ProximitySettings>()
            .init_resource::<LastProximity>()
            .add_systems(
                Update,
                run_proximity
                    .in_set(FrameSet::Query)
                    .after(super::query::run_query)
                    .run_if(resource_exists::<CollisionScene>),
            );
        if self.draw {
            app.init_gizmo_group::<SegmentGizmos>()
                .add_systems(Startup, configure_gizmos)
                .add_systems(
                    Update,
                    draw_segment
                        .in_set(FrameSet::Present)
                        .run_if(resource_exists::<CollisionScene>),
                );
        }
    }
}

/// One frame's proximity queries with one tree type.
struct Proximity<'a> {
    scene: &'a CollisionScene,
    relative: &'a Isometry,
    options: DistanceOptions,
    tolerance: Option<Real>,
    touching: bool,
}

/// The answers: (distance and its µs, tolerance pairs and their µs, a query's error).
type Answers = (
    Option<(DistanceReport, f64)>,
    Option<(PairsReport, f64)>,
    Option<String>,
);

impl KindVisitor for Proximity<'_> {
    type Output = Answers;
    fn visit<B: TreeKind>(self) -> Answers {
        let (a, b) = (
            self.scene.env.trees.get::<B>(),
            self.scene.obj.trees.get::<B>(),
        );
        let rot = self.relative.rotation.to_rotation_matrix().into_inner();
        let pos = self.relative.translation.vector;
        let mut error = None;
        let distance = (!self.touching)
            .then(|| {
                let t = Instant::now();
                distance_with(a, b, &rot, &pos, &self.options)
                    .map(|r| (r, t.elapsed().as_secs_f64() * 1e6))
                    .map_err(|e| error = Some(e.to_string()))
                    .ok()
            })
            .flatten();
        let pairs = self.tolerance.and_then(|tolerance| {
            let t = Instant::now();
            within_pairs_with(a, b, &rot, &pos, tolerance, &OverlapOptions::default())
                .map(|r| (r, t.elapsed().as_secs_f64() * 1e6))
                .map_err(|e| error = Some(e.to_string()))
                .ok()
        });
        (distance, pairs, error)
    }
}

/// The distance while apart (from last frame's pair), the pairs within the tolerance.
pub(super) fn run_proximity(
    scene: Res<CollisionScene>,
    settings: Res<ProximitySettings>,
    query: Res<QuerySettings>,
    last: Res<LastQuery>,
    mut out: ResMut<LastProximity>,
    mut work: ResMut<FrameWork>,
) {
    let t = Instant::now();
    let (generation, revision) = scene.trees_key();
    let key = (query.bv, generation, revision);
    let seed = out.seed.filter(|s| s.1 == key).map(|s| s.0);
    let touching = !last.report.contacts.is_empty();
    let (distance, pairs, error) = dispatch(
        query.bv,
        Proximity {
            scene: &scene,
            relative: &last.relative,
            options: DistanceOptions {
                seed,
                ..DistanceOptions::default()
            },
            tolerance: settings.pairs.then_some(settings.tolerance),
            touching: touching || !settings.distance,
        },
    );
    out.error = error;
    out.distance_micros = distance.as_ref().map_or(0.0, |d| d.1);
    work.distance_us = distance.as_ref().map(|d| d.1);
    out.segment = distance.as_ref().map(|(r, _)| {
        (
            last.env_pose * r.closest_a,
            last.env_pose * (last.relative * r.closest_b),
        )
    });
    if let Some((r, _)) = &distance {
        out.seed = Some((r.triangles, key));
    }
    out.distance = distance.map(|d| d.0);
    out.pairs.clear();
    out.pairs_micros = 0.0;
    out.pairs_tests = (0, 0);
    out.capped = false;
    if let Some((r, micros)) = pairs {
        out.capped = r.pairs.len() > settings.max_pairs;
        out.pairs
            .extend(r.pairs.iter().take(settings.max_pairs).map(|p| p.0));
        out.pairs_micros = micros;
        out.pairs_tests = (r.bv_tests, r.tri_tests);
    }
    work.add(Stage::Proximity, t);
}

fn configure_gizmos(mut store: ResMut<GizmoConfigStore>) {
    let (config, _) = store.config_mut::<SegmentGizmos>();
    config.line.width = SEGMENT_WIDTH;
    config.render_layers = RenderLayers::layer(CURVE_LAYER);
}

fn v3(p: &Point) -> Vec3 {
    Vec3::new(p.x as f32, p.y as f32, p.z as f32)
}

/// The segment between the closest points, with a ring of constant size on screen at each end.
fn draw_segment(
    out: Res<LastProximity>,
    settings: Res<ProximitySettings>,
    camera: Query<SceneCamera, With<super::camera::ViewCamera>>,
    mut gizmos: Gizmos<SegmentGizmos>,
) {
    let scale = camera.iter().next().map(screen_scale);
    warm_pipelines(&mut gizmos, scale);
    let Some((a, b)) = out.segment.as_ref().filter(|_| settings.distance) else {
        return;
    };
    let (a, b) = (v3(a), v3(b));
    let px = scale.map_or(f32::INFINITY, |(origin, _, k)| {
        (b - a).length() / (((a + b) * 0.5 - origin).length() * k).max(1e-12)
    });
    // Under a pixel long the line has no direction to be widened along: the rings show it.
    if px >= 1.0 {
        gizmos.line(a, b, SEGMENT);
    }
    if let Some((origin, rotation, k)) = scale {
        for end in [a, b] {
            let r = (end - origin).length() * k * 5.0;
            gizmos.circle(Isometry3d::new(end, rotation), r, SEGMENT);
        }
    }
}
