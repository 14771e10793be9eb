//! Self-intersection, live: while the object deforms (the wobbling torus, squeezed until its
//! sides pass through each other), its AABB tree, which the deformation refits to the frame's
//! vertices (van den Bergen 1998, §4; the plugin declares it in use, [`KindsInUse`]), is walked
//! against itself ([`crate::query::self_intersections`]): the intersecting triangles are lit in
//! their own colour by the highlights and the pieces where they cross join the intersection
//! curve.
//!
//! The results ([`LastSelfIntersection`]) are logic, computed without a GPU.

use super::curves::{ContactCurves, CurvePieces, CurveSettings, compute_curves};
use super::metrics::{FrameWork, Stage};
use super::motion::{KindsInUse, MotionSystems};
use super::scene::{CollisionScene, FrameSet};
use crate::bv::{Aabb, BvKind};
use crate::math::Point;
use crate::query::{Intersection, SelfIntersectionOptions, self_intersections};
use bevy::platform::time::Instant;
use bevy::prelude::*;

/// The fill of self-intersecting triangles: unlit magenta, sRGB (230, 0, 230), a colour no mesh
/// of the scenes is lit to.
pub const SELF_INTERSECTING: Color = Color::srgb(230.0 / 255.0, 0.0, 230.0 / 255.0);

/// Whether the deforming object is tested against itself.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfIntersectionSettings {
    /// Find, light and draw the self-intersection every frame.
    pub show: bool,
}

impl Default for SelfIntersectionSettings {
    fn default() -> Self {
        Self { show: true }
    }
}

/// The frame's self-intersection of the deforming object.
#[derive(Resource, Clone, Debug, Default)]
pub struct LastSelfIntersection {
    /// Whether it ran this frame (a deforming object, and shown).
    pub ran: bool,
    /// The intersecting triangle pairs of the object (`ta < tb`, sorted).
    pub pairs: Vec<(u32, u32)>,
    /// Where they cross: segments, world frame (the edges of coplanar overlaps included).
    pub segments: Vec<(Point, Point)>,
    /// Pairs that touch in one point, world frame.
    pub points: Vec<Point>,
    /// Box and triangle tests of the self-test.
    pub tests: (u64, u64),
    /// Wall time of the self-test, µs (the refit is the deformation's, [`Stage::Refit`]).
    pub micros: f64,
    /// Triangles of the object.
    pub triangles: usize,
    /// The deformation's clock this frame, seconds ([`super::Deformation::time`]).
    pub time: f64,
}

/// Finds the deforming object's self-intersection every frame, on its refitted AABB tree.
pub struct SelfIntersectionPlugin;

impl Plugin for SelfIntersectionPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SelfIntersectionSettings>()
            .init_resource::<LastSelfIntersection>()
            .add_systems(
                Update,
                (
                    declare_kinds.after(FrameSet::Load).before(FrameSet::Motion),
                    run_self_intersection
                        .in_set(FrameSet::Query)
                        .after(MotionSystems),
                    add_curve_pieces
                        .in_set(CurvePieces)
                        .in_set(FrameSet::Present)
                        .after(compute_curves),
                )
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

/// The self-intersection's pieces (already in the world frame) join the frame's curve.
fn add_curve_pieces(
    settings: Res<CurveSettings>,
    own: Res<LastSelfIntersection>,
    mut out: ResMut<ContactCurves>,
) {
    if settings.show {
        out.segments.extend_from_slice(&own.segments);
        out.points.extend_from_slice(&own.points);
    }
}

/// The AABB tree must hold the deforming object's current vertices while it is tested.
fn declare_kinds(settings: Res<SelfIntersectionSettings>, mut kinds: ResMut<KindsInUse>) {
    if kinds.aabb != settings.show {
        kinds.aabb = settings.show;
    }
}

fn run_self_intersection(
    scene: Res<CollisionScene>,
    settings: Res<SelfIntersectionSettings>,
    curve: Res<CurveSettings>,
    mut last: ResMut<LastSelfIntersection>,
    mut work: ResMut<FrameWork>,
) {
    let start = Instant::now();
    let body = &scene.obj;
    // The tree is current unless this frame's deformation had not yet heard of the need.
    let Some(deform) = scene
        .deform
        .as_ref()
        .filter(|_| settings.show && body.trees.is_current(BvKind::Aabb))
    else {
        if last.ran {
            *last = LastSelfIntersection::default();
        }
        return;
    };
    let tree = body.trees.get::<Aabb>();
    let t = Instant::now();
    let options = SelfIntersectionOptions {
        curves: curve.show,
        ..SelfIntersectionOptions::default()
    };
    let report = self_intersections(tree, &options);
    let micros = t.elapsed().as_secs_f64() * 1e6;
    let world = |p: &Point| body.pose * p;
    let (mut segments, mut points) = (Vec::new(), Vec::new());
    for curve in &report.curves {
        match curve {
            Intersection::Empty => {}
            Intersection::Point(p) => points.push(world(p)),
            Intersection::Segment(a, b) => segments.push((world(a), world(b))),
            polygon @ Intersection::Polygon(_) => {
                segments.extend(polygon.edges().iter().map(|(a, b)| (world(a), world(b))))
            }
        }
    }
    *last = LastSelfIntersection {
        ran: true,
        triangles: tree.mesh().triangle_count(),
        pairs: report.pairs,
        segments,
        points,
        tests: (report.bv_tests, report.tri_tests),
        micros,
        time: deform.time,
    };
    work.add(Stage::SelfIntersection, start);
}
