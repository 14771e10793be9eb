//! Self-intersection, live: while the object deforms (the wobbling torus, squeezed until its
//! sides pass through each other), its own AABB tree (van den Bergen's split) is refitted to the
//! frame's vertices (van den Bergen 1998, §4) and walked against itself
//! ([`crate::query::self_intersections`]): the intersecting triangles are lit in their own
//! colour by the highlights and the pieces where they cross join the intersection curve.
//!
//! The results ([`LastSelfIntersection`]) are logic, computed without a GPU.

use super::metrics::{FrameWork, Stage};
use super::motion::MotionSystems;
use super::scene::{CollisionScene, FrameSet};
use crate::bv::Aabb;
use crate::bvh::{BuildOptions, Bvh};
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
    /// Wall time of refitting the tree (or building it, the first frame), µs.
    pub refit_micros: f64,
    /// Wall time of the self-test, µs.
    pub micros: f64,
    /// Triangles of the object.
    pub triangles: usize,
    /// The deformation's clock this frame, seconds ([`super::Deformation::time`]).
    pub time: f64,
}

/// The object's own AABB tree and what it was made for: (scene generation, vertex version).
#[derive(Resource, Default)]
struct SelfTree {
    tree: Option<(Bvh<Aabb>, (u64, u64))>,
}

/// Refits the deforming object's tree and finds its self-intersection every frame.
pub struct SelfIntersectionPlugin;

impl Plugin for SelfIntersectionPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SelfIntersectionSettings>()
            .init_resource::<LastSelfIntersection>()
            .init_resource::<SelfTree>()
            .add_systems(
                Update,
                run_self_intersection
                    .in_set(FrameSet::Query)
                    .after(MotionSystems)
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

fn run_self_intersection(
    scene: Res<CollisionScene>,
    settings: Res<SelfIntersectionSettings>,
    mut own: ResMut<SelfTree>,
    mut last: ResMut<LastSelfIntersection>,
    mut work: ResMut<FrameWork>,
) {
    let start = Instant::now();
    let body = &scene.obj;
    if scene.deform.is_none() || !settings.show {
        if last.ran {
            *last = LastSelfIntersection::default();
        }
        own.tree = None;
        return;
    }
    let time = scene.deform.as_ref().map_or(0.0, |d| d.time);
    let key = (scene.generation, body.trees.vertex_version);
    let mesh = body.mesh();
    let t = Instant::now();
    let tree = match own.tree.take() {
        Some((tree, old)) if old == key => tree,
        Some((mut tree, (generation, _))) if generation == scene.generation => {
            // The same mesh, moved: refit (one reverse pass over the nodes). The vertices are
            // the body's, already checked.
            match tree.set_vertices(mesh.vertices().to_vec()) {
                Ok(()) => tree,
                Err(e) => {
                    warn!("self-intersection refit failed: {e}");
                    Bvh::build(mesh.clone(), &BuildOptions::van_den_bergen())
                }
            }
        }
        _ => Bvh::build(mesh.clone(), &BuildOptions::van_den_bergen()),
    };
    let refit_micros = t.elapsed().as_secs_f64() * 1e6;
    let t = Instant::now();
    let options = SelfIntersectionOptions {
        curves: true,
        ..SelfIntersectionOptions::default()
    };
    let report = self_intersections(&tree, &options);
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
        triangles: mesh.triangle_count(),
        pairs: report.pairs,
        segments,
        points,
        tests: (report.bv_tests, report.tri_tests),
        refit_micros,
        micros,
        time,
    };
    own.tree = Some((tree, key));
    work.add(Stage::SelfIntersection, start);
}
