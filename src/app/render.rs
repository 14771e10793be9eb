//! Presentation: the bodies' meshes, the contact highlights, and the hierarchy overlay (paper
//! Fig. 9: one level of the OBB, AABB or sphere tree drawn as wireframe volumes that move with
//! their body).
//!
//! The overlay's *box list* ([`OverlayBoxes`]) is logic, computed without a GPU so tests can
//! check it; drawing it with gizmos is presentation.

use super::query::LastQuery;
use super::{BodyId, CollisionScene, FrameSet};
use crate::bv::{BoundingVolume, BvKind};
use crate::bvh::Bvh;
use crate::math::{Isometry, Matrix3, UnitQuaternion};
use crate::mesh::TriMesh;
use bevy::asset::RenderAssetUsages;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use std::time::Instant;

/// The colour of contacting triangles (unlit, no tonemapping: exactly this sRGB colour on
/// screen).
pub const HIGHLIGHT: Color = Color::srgb(1.0, 0.08, 0.08);

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
    /// Draw the contact highlights.
    pub contacts: bool,
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
            contacts: true,
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

/// Time of this frame's presentation work, µs.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct PresentTiming {
    /// Highlight mesh update.
    pub highlight_us: f64,
    /// Overlay box list plus drawing.
    pub overlay_us: f64,
}

#[derive(Resource, Default)]
struct LevelCache {
    key: Option<(u64, BodyId, BvKind, usize)>,
    nodes: Vec<u32>,
}

pub(super) struct OverlayLogicPlugin;

impl Plugin for OverlayLogicPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OverlaySettings>()
            .init_resource::<OverlayBoxes>()
            .init_resource::<PresentTiming>()
            .init_resource::<LevelCache>()
            .add_systems(
                Update,
                compute_overlay
                    .in_set(FrameSet::Present)
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

fn compute_overlay(
    scene: Res<CollisionScene>,
    settings: Res<OverlaySettings>,
    last: Res<LastQuery>,
    mut cache: ResMut<LevelCache>,
    mut out: ResMut<OverlayBoxes>,
    mut timing: ResMut<PresentTiming>,
) {
    let t = Instant::now();
    out.boxes.clear();
    out.tree = None;
    out.at_level = 0;
    out.eligible = 0;
    out.capped = false;
    if !settings.show {
        timing.overlay_us = 0.0;
        return;
    }
    let body = scene.body(settings.body);
    let level = settings.level.min(body.depth(settings.tree));
    let key = (scene.generation, settings.body, settings.tree, level);
    if cache.key != Some(key) {
        cache.nodes = match settings.tree {
            BvKind::Obb => level_nodes(&body.obb, level),
            BvKind::Aabb => level_nodes(&body.aabb, level),
            BvKind::Sphere => level_nodes(&body.sphere, level),
        };
        cache.key = Some(key);
    }
    // The query's overlapping pairs name nodes of the environment first, the object second.
    let filter: Option<Vec<bool>> =
        (settings.only_overlapped && last.traced && last.bv == Some(settings.tree)).then(|| {
            let n = match settings.tree {
                BvKind::Obb => body.obb.nodes().len(),
                BvKind::Aabb => body.aabb.nodes().len(),
                BvKind::Sphere => body.sphere.nodes().len(),
            };
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
    out.boxes = match settings.tree {
        BvKind::Obb => boxes(&body.obb, chosen, &body.pose),
        BvKind::Aabb => boxes(&body.aabb, chosen, &body.pose),
        BvKind::Sphere => boxes(&body.sphere, chosen, &body.pose),
    };
    timing.overlay_us = t.elapsed().as_secs_f64() * 1e6;
}

fn level_nodes<B: BoundingVolume>(tree: &Bvh<B>, level: usize) -> Vec<u32> {
    tree.nodes_at_depth(level)
        .into_iter()
        .map(|(i, _)| i as u32)
        .collect()
}

fn boxes<B: BoundingVolume>(tree: &Bvh<B>, nodes: &[u32], pose: &Isometry) -> Vec<OverlayBox> {
    nodes
        .iter()
        .map(|&i| {
            let (c, axes, half) = tree.node_box(i as usize);
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
        })
        .collect()
}

/// Marks a body's mesh entity.
#[derive(Component)]
struct BodyMesh(BodyId);

/// Marks a body's highlight mesh (a child of its body's entity).
#[derive(Component)]
struct HighlightMesh {
    body: BodyId,
    handle: Handle<Mesh>,
    shown: Vec<u32>,
    /// How far the highlight triangles are lifted along their normals (against z-fighting).
    lift: f32,
}

/// The orbit camera's state.
#[derive(Resource, Clone, Copy, Debug)]
pub(super) struct OrbitCamera {
    pub focus: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
}

impl OrbitCamera {
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

#[derive(Resource, Default)]
struct ShownGeneration(u64);

/// Gizmos of the contact outlines: drawn over everything (x-ray), so contacts hidden behind
/// other geometry still show.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct ContactGizmos;

/// At most this many contacting triangles per body get an x-ray outline per frame.
pub const MAX_OUTLINED: usize = 20_000;

pub(super) struct RenderPlugin;

impl Plugin for RenderPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ClearColor(Color::srgb(0.16, 0.2, 0.3)))
            .insert_resource(OrbitCamera {
                focus: Vec3::ZERO,
                yaw: 0.6,
                pitch: 0.45,
                distance: 20.0,
            })
            .init_resource::<ShownGeneration>()
            .init_gizmo_group::<ContactGizmos>()
            .add_systems(Startup, (setup_view, configure_gizmos))
            .add_systems(
                Update,
                (
                    spawn_scene_meshes,
                    sync_bodies,
                    update_highlights,
                    draw_overlay,
                )
                    .chain()
                    .in_set(FrameSet::Present)
                    .after(compute_overlay)
                    .run_if(resource_exists::<CollisionScene>),
            )
            .add_systems(Update, place_camera.after(FrameSet::Present));
    }
}

fn configure_gizmos(mut store: ResMut<GizmoConfigStore>) {
    let (config, _) = store.config_mut::<ContactGizmos>();
    config.depth_bias = -1.0;
    config.line.width = 3.0;
}

fn setup_view(mut commands: Commands, orbit: Res<OrbitCamera>) {
    // No MSAA: software rendering (lavapipe) is four times cheaper without it.
    commands.spawn((
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
        Transform::from_xyz(4.0, 10.0, 6.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        color: Color::WHITE,
        brightness: 400.0,
        affects_lightmapped_meshes: true,
    });
}

fn place_camera(orbit: Res<OrbitCamera>, mut camera: Query<&mut Transform, With<Camera3d>>) {
    if orbit.is_changed() {
        for mut t in &mut camera {
            *t = orbit.transform();
        }
    }
}

/// A flat-shaded render mesh of a triangle soup (three vertices per triangle), model frame.
fn render_mesh(mesh: &TriMesh, triangles: impl Iterator<Item = u32>, lift: f32) -> Mesh {
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut normals: Vec<[f32; 3]> = Vec::new();
    for t in triangles {
        let p = mesh.triangle(t as usize);
        let n = (p[1] - p[0]).cross(&(p[2] - p[0]));
        let len = n.norm();
        let n = if len > 0.0 && len.is_finite() {
            n / len
        } else {
            crate::math::Vector::y()
        };
        for v in p {
            let q = v + n * lift as f64;
            positions.push([q.x as f32, q.y as f32, q.z as f32]);
            normals.push([n.x as f32, n.y as f32, n.z as f32]);
        }
    }
    if positions.is_empty() {
        // An empty mesh upsets the render world's allocator: one degenerate triangle instead.
        positions = vec![[0.0; 3]; 3];
        normals = vec![[0.0, 1.0, 0.0]; 3];
    }
    let count = positions.len() as u32;
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
    .with_inserted_indices(Indices::U32((0..count).collect()))
}

fn radius(mesh: &TriMesh) -> f32 {
    let (lo, hi) = mesh.bounds();
    ((hi - lo).norm() * 0.5) as f32
}

fn to_transform(pose: &Isometry) -> Transform {
    let t = pose.translation.vector;
    let r = pose.rotation;
    Transform {
        translation: Vec3::new(t.x as f32, t.y as f32, t.z as f32),
        rotation: Quat::from_xyzw(r.i as f32, r.j as f32, r.k as f32, r.w as f32),
        scale: Vec3::ONE,
    }
}

#[allow(clippy::too_many_arguments)]
fn spawn_scene_meshes(
    mut commands: Commands,
    scene: Res<CollisionScene>,
    mut shown: ResMut<ShownGeneration>,
    old: Query<Entity, With<BodyMesh>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut orbit: ResMut<OrbitCamera>,
) {
    if shown.0 == scene.generation {
        return;
    }
    shown.0 = scene.generation;
    for e in &old {
        commands.entity(e).despawn();
    }
    let highlight = materials.add(StandardMaterial {
        base_color: HIGHLIGHT,
        unlit: true,
        double_sided: true,
        cull_mode: None,
        depth_bias: 50.0,
        ..default()
    });
    for (id, color) in [
        (BodyId::Environment, Color::srgb(0.45, 0.62, 0.55)),
        (BodyId::Object, Color::srgb(0.93, 0.78, 0.25)),
    ] {
        let body = scene.body(id);
        let mesh = &*body.mesh;
        let lift = radius(mesh) * 2e-4;
        let handle = meshes.add(render_mesh(mesh, 0..mesh.triangle_count() as u32, 0.0));
        let see_through = id == BodyId::Environment && scene.translucent_env;
        let material = materials.add(StandardMaterial {
            base_color: if see_through {
                color.with_alpha(0.35)
            } else {
                color
            },
            alpha_mode: if see_through {
                AlphaMode::Blend
            } else {
                AlphaMode::Opaque
            },
            perceptual_roughness: 0.7,
            double_sided: true,
            cull_mode: None,
            ..default()
        });
        let hl = meshes.add(render_mesh(mesh, std::iter::empty(), lift));
        commands
            .spawn((
                BodyMesh(id),
                Mesh3d(handle),
                MeshMaterial3d(material),
                to_transform(&body.pose),
            ))
            .with_children(|c| {
                c.spawn((
                    HighlightMesh {
                        body: id,
                        handle: hl.clone(),
                        shown: Vec::new(),
                        lift,
                    },
                    Mesh3d(hl),
                    MeshMaterial3d(highlight.clone()),
                    Transform::IDENTITY,
                ));
            });
    }
    // Look at the moving object from a distance that shows it and its surroundings.
    let r = radius(&scene.obj.mesh).max(1e-3);
    let c = scene.obj.pose * scene.obj.obb.node_box(0).0;
    orbit.focus = Vec3::new(c.x as f32, c.y as f32, c.z as f32);
    orbit.distance = (r * 4.5).max(radius(&scene.env.mesh) * 0.12);
}

fn sync_bodies(
    scene: Res<CollisionScene>,
    mut bodies: Query<(&BodyMesh, &mut Transform, &Mesh3d)>,
    mut meshes: ResMut<Assets<Mesh>>,
) {
    for (b, mut t, mesh3d) in &mut bodies {
        let body = scene.body(b.0);
        let want = to_transform(&body.pose);
        if *t != want {
            *t = want;
        }
        // The wobbling torus: new vertex positions every frame (20,000 triangles).
        if b.0 == BodyId::Object && scene.deform.is_some() {
            let deformed = current_object_mesh(&scene);
            if let Some(mut m) = meshes.get_mut(&mesh3d.0) {
                *m = render_mesh(deformed, 0..deformed.triangle_count() as u32, 0.0);
            }
        }
    }
}

/// The object's current geometry: for the deforming scene, the refitted tree's mesh.
pub(super) fn current_object_mesh(scene: &CollisionScene) -> &TriMesh {
    if let Some(d) = &scene.deform {
        match d.kind {
            BvKind::Obb => scene.obj.obb.mesh(),
            BvKind::Aabb => scene.obj.aabb.mesh(),
            BvKind::Sphere => scene.obj.sphere.mesh(),
        }
    } else {
        &scene.obj.mesh
    }
}

#[allow(clippy::too_many_arguments)]
fn update_highlights(
    scene: Res<CollisionScene>,
    last: Res<LastQuery>,
    settings: Res<OverlaySettings>,
    mut highlights: Query<&mut HighlightMesh>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut timing: ResMut<PresentTiming>,
    mut outlines: Gizmos<ContactGizmos>,
) {
    let t = Instant::now();
    for mut h in &mut highlights {
        let mut tris: Vec<u32> = if settings.contacts {
            last.report
                .contacts
                .iter()
                .map(|&(a, b)| if h.body == BodyId::Environment { a } else { b })
                .collect()
        } else {
            Vec::new()
        };
        tris.sort_unstable();
        tris.dedup();
        let mesh = if h.body == BodyId::Object {
            current_object_mesh(&scene)
        } else {
            &*scene.env.mesh
        };
        // X-ray outlines of the contacting triangles, world frame.
        let pose = scene.body(h.body).pose;
        let w = |p: crate::math::Point| {
            let q = pose * p;
            Vec3::new(q.x as f32, q.y as f32, q.z as f32)
        };
        for &tri in tris.iter().take(MAX_OUTLINED) {
            let p = mesh.triangle(tri as usize).map(w);
            outlines.linestrip([p[0], p[1], p[2], p[0]], HIGHLIGHT);
        }
        let deforming = h.body == BodyId::Object && scene.deform.is_some();
        if tris == h.shown && !deforming {
            continue;
        }
        if let Some(mut m) = meshes.get_mut(&h.handle) {
            *m = render_mesh(mesh, tris.iter().copied(), h.lift);
        }
        h.shown = tris;
    }
    timing.highlight_us = t.elapsed().as_secs_f64() * 1e6;
}

fn draw_overlay(boxes: Res<OverlayBoxes>, mut gizmos: Gizmos, mut timing: ResMut<PresentTiming>) {
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
    timing.overlay_us += t.elapsed().as_secs_f64() * 1e6;
}
