//! The hierarchy overlay (paper Fig. 9): one level of either body's OBB, AABB or sphere tree
//! drawn as wireframe volumes that move with their body, optionally only the volumes the last
//! query found overlapping.
//!
//! The *box list* ([`OverlayBoxes`]) is computed without a GPU so headless tests can check it;
//! with [`OverlayPlugin::draw`] the plugin also draws it with gizmos.

use super::metrics::{FrameWork, Stage};
use super::query::{LastQuery, TraceRequest};
use super::scene::{BodyId, CollisionScene, FrameSet};
use crate::bv::BvKind;
use crate::math::{Isometry, Matrix3, UnitQuaternion};
use bevy::platform::time::Instant;
use bevy::prelude::*;

/// What the hierarchy overlay shows.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct OverlaySettings {
    /// Draw the overlay.
    pub show: bool,
    /// Tree level (0 = root).
    pub level: usize,
    /// Whose tree.
    pub body: BodyId,
    /// Which tree.
    pub tree: BvKind,
    /// Only the volumes at that level that the last query found overlapping.
    pub only_overlapped: bool,
    /// At most this many volumes are drawn; the UI says when the level has more.
    pub max_boxes: usize,
}

impl Default for OverlaySettings {
    fn default() -> Self {
        Self {
            show: false,
            level: 3,
            body: BodyId::Object,
            tree: BvKind::Obb,
            only_overlapped: false,
            max_boxes: 1500,
        }
    }
}

/// One volume to draw, world frame (single precision, for drawing only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlayBox {
    /// Centre.
    pub center: Vec3,
    /// Orientation of the box's axes.
    pub rotation: Quat,
    /// Half extents along the box's axes (for a sphere, the radius three times).
    pub half: Vec3,
}

/// The volumes the overlay draws this frame.
#[derive(Resource, Clone, Debug, Default)]
pub struct OverlayBoxes {
    /// The volumes (at most [`OverlaySettings::max_boxes`]).
    pub boxes: Vec<OverlayBox>,
    /// Which tree they come from.
    pub tree: Option<BvKind>,
    /// Volumes at the level (before the "only overlapped" filter).
    pub at_level: usize,
    /// Volumes that passed the filter (before the cap).
    pub eligible: usize,
    /// Whether the cap cut the list.
    pub capped: bool,
    /// The level drawn (clamped to the tree's depth).
    pub level: usize,
}

#[derive(Resource, Default)]
struct LevelCache {
    key: Option<((u64, u64), BodyId, BvKind, usize)>,
    nodes: Vec<u32>,
}

/// Computes the overlay's box list every frame, and draws it when `draw` is set.
pub struct OverlayPlugin {
    /// Draw the boxes with gizmos (needs the render plugins; off in headless tests).
    pub draw: bool,
}

impl Plugin for OverlayPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OverlaySettings>()
            .init_resource::<OverlayBoxes>()
            .init_resource::<LevelCache>()
            .add_systems(
                Update,
                (
                    request_trace.before(FrameSet::Query),
                    compute_overlay.in_set(FrameSet::Present),
                )
                    .run_if(resource_exists::<CollisionScene>),
            );
        if self.draw {
            app.add_systems(
                Update,
                draw_overlay
                    .in_set(FrameSet::Present)
                    .after(compute_overlay)
                    .run_if(resource_exists::<CollisionScene>),
            );
        }
    }
}

/// Asks the query to record the overlapping volumes when only those are drawn.
fn request_trace(settings: Res<OverlaySettings>, mut trace: ResMut<TraceRequest>) {
    let want = TraceRequest((settings.show && settings.only_overlapped).then_some(settings.tree));
    if *trace != want {
        *trace = want;
    }
}

fn compute_overlay(
    scene: Res<CollisionScene>,
    settings: Res<OverlaySettings>,
    last: Res<LastQuery>,
    mut cache: ResMut<LevelCache>,
    mut out: ResMut<OverlayBoxes>,
    mut work: ResMut<FrameWork>,
) {
    let t = Instant::now();
    *out = OverlayBoxes::default();
    if !settings.show {
        return;
    }
    let body = scene.body(settings.body);
    let trees = &body.trees;
    let level = settings.level.min(trees.depth(settings.tree));
    let key = (scene.trees_key(), settings.body, settings.tree, level);
    if cache.key != Some(key) {
        cache.nodes = trees.nodes_at_depth(settings.tree, level);
        cache.key = Some(key);
    }
    // The query's overlapping pairs name nodes of the environment first, the object second.
    let filter: Option<Vec<bool>> =
        (settings.only_overlapped && last.traced && last.bv == Some(settings.tree)).then(|| {
            let n = trees.node_count(settings.tree);
            let mut hit = vec![false; n];
            for &(a, b) in &last.overlapped {
                let i = if settings.body == BodyId::Environment {
                    a
                } else {
                    b
                } as usize;
                if i < n {
                    hit[i] = true;
                }
            }
            hit
        });
    out.level = level;
    out.tree = Some(settings.tree);
    out.at_level = cache.nodes.len();
    let eligible: Vec<u32> = cache
        .nodes
        .iter()
        .copied()
        .filter(|&i| filter.as_ref().is_none_or(|h| h[i as usize]))
        .collect();
    out.eligible = eligible.len();
    out.capped = eligible.len() > settings.max_boxes;
    let chosen = &eligible[..eligible.len().min(settings.max_boxes)];
    out.boxes = trees
        .node_boxes(settings.tree, chosen)
        .into_iter()
        .map(|(c, axes, half)| world_box(&body.pose, c, axes, half))
        .collect();
    work.add(Stage::Overlay, t);
}

/// A node box (model frame) placed by `pose`, in single precision.
fn world_box(
    pose: &Isometry,
    c: crate::math::Point,
    axes: Matrix3,
    half: crate::math::Vector,
) -> OverlayBox {
    let mut m: Matrix3 = axes;
    if m.determinant() < 0.0 {
        let flipped = -m.column(2);
        m.set_column(2, &flipped);
    }
    let r = pose.rotation * UnitQuaternion::from_matrix(&m);
    let w = pose * c;
    OverlayBox {
        center: Vec3::new(w.x as f32, w.y as f32, w.z as f32),
        rotation: Quat::from_xyzw(r.i as f32, r.j as f32, r.k as f32, r.w as f32),
        half: Vec3::new(half.x as f32, half.y as f32, half.z as f32),
    }
}

fn draw_overlay(boxes: Res<OverlayBoxes>, mut gizmos: Gizmos, mut work: ResMut<FrameWork>) {
    let t = Instant::now();
    let color = match boxes.tree {
        Some(BvKind::Obb) => Color::srgb(0.2, 0.9, 1.0),
        Some(BvKind::Aabb) => Color::srgb(0.95, 0.55, 1.0),
        Some(BvKind::Sphere) => Color::srgb(1.0, 0.75, 0.2),
        None => return,
    };
    for b in &boxes.boxes {
        if boxes.tree == Some(BvKind::Sphere) {
            gizmos
                .sphere(Isometry3d::from_translation(b.center), b.half.x, color)
                .resolution(16);
        } else {
            gizmos.cube(
                Transform {
                    translation: b.center,
                    rotation: b.rotation,
                    scale: b.half * 2.0,
                },
                color,
            );
        }
    }
    work.add(Stage::Overlay, t);
}
