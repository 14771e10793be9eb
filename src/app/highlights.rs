//! The contact highlights: the contacting triangles of each body filled in red, the
//! triangles within the proximity tolerance (not in contact) in blue, and the deforming
//! object's self-intersecting triangles in magenta. Each is a mesh per body
//! that follows the body's pose and is replaced (a new mesh asset, not one edited in place: see
//! [`super::scene_view::replace_mesh`]) when the set of triangles (or the body's shape)
//! changes. Presentation only.

use super::metrics::{FrameWork, Stage};
use super::proximity::{LastProximity, TOLERANCE};
use super::query::LastQuery;
use super::scene::{BodyId, CollisionScene, FrameSet};
use super::scene_view::{body_transform, flat_mesh, replace_mesh};
use super::self_intersection::{LastSelfIntersection, SELF_INTERSECTING};
use bevy::platform::time::Instant;
use bevy::prelude::*;

/// The colour of contacting triangles (unlit, no tonemapping: exactly this sRGB colour on
/// screen).
pub const HIGHLIGHT: Color = Color::srgb(1.0, 0.08, 0.08);

/// Whether the contacting triangles are lit.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct HighlightSettings {
    /// Fill the contacting triangles.
    pub show: bool,
}

impl Default for HighlightSettings {
    fn default() -> Self {
        Self { show: true }
    }
}

/// What a highlight mesh fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lit {
    /// The triangles of the query's contacts.
    Contacts,
    /// The triangles of the pairs within the tolerance, less the contacting ones.
    Tolerance,
    /// The object's triangles that intersect others of its own (drawn over the others).
    SelfIntersecting,
}

/// A body's highlight mesh.
#[derive(Component)]
struct HighlightMesh {
    body: BodyId,
    lit: Lit,
    shown: Vec<u32>,
    version: u64,
    /// How far the highlight triangles are lifted along their normals (against z-fighting).
    lift: f32,
}

#[derive(Resource, Default)]
struct Spawned(u64);

/// Spawns, moves and refills the highlight meshes.
pub struct HighlightPlugin;

impl Plugin for HighlightPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<HighlightSettings>()
            .init_resource::<Spawned>()
            .add_systems(
                Update,
                (spawn_highlights, update_highlights)
                    .chain()
                    .in_set(FrameSet::Present)
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

fn spawn_highlights(
    mut commands: Commands,
    scene: Res<CollisionScene>,
    mut spawned: ResMut<Spawned>,
    old: Query<Entity, With<HighlightMesh>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    if spawned.0 == scene.generation {
        return;
    }
    spawned.0 = scene.generation;
    for e in &old {
        commands.entity(e).despawn();
    }
    for (lit, colour) in [
        (Lit::Contacts, HIGHLIGHT),
        (Lit::Tolerance, TOLERANCE),
        (Lit::SelfIntersecting, SELF_INTERSECTING),
    ] {
        let material = materials.add(StandardMaterial {
            base_color: colour,
            unlit: true,
            double_sided: true,
            cull_mode: None,
            depth_bias: 50.0,
            ..default()
        });
        for id in [BodyId::Environment, BodyId::Object] {
            if lit == Lit::SelfIntersecting && id == BodyId::Environment {
                continue;
            }
            let body = scene.body(id);
            // Self-intersecting triangles lie over the contacts' fill where both apply.
            let lift = body.radius() as f32
                * if lit == Lit::SelfIntersecting {
                    4e-4
                } else {
                    2e-4
                };
            let handle = meshes.add(flat_mesh(body.mesh(), std::iter::empty(), lift, None));
            commands.spawn((
                HighlightMesh {
                    body: id,
                    lit,
                    shown: Vec::new(),
                    version: body.trees.vertex_version,
                    lift,
                },
                Mesh3d(handle),
                MeshMaterial3d(material.clone()),
                body_transform(&body.pose),
            ));
        }
    }
}

fn update_highlights(
    scene: Res<CollisionScene>,
    last: Res<LastQuery>,
    (proximity, own): (Res<LastProximity>, Res<LastSelfIntersection>),
    settings: Res<HighlightSettings>,
    mut highlights: Query<(&mut HighlightMesh, &mut Transform, &mut Mesh3d)>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut work: ResMut<FrameWork>,
) {
    let t = Instant::now();
    for (mut h, mut transform, mut mesh3d) in &mut highlights {
        let body = scene.body(h.body);
        let want = body_transform(&body.pose);
        if *transform != want {
            *transform = want;
        }
        let side = |&(a, b): &(u32, u32)| if h.body == BodyId::Environment { a } else { b };
        let mut tris: Vec<u32> = last.report.contacts.iter().map(side).collect();
        tris.sort_unstable();
        tris.dedup();
        match h.lit {
            Lit::Contacts if !settings.show => tris.clear(),
            Lit::Contacts => {}
            Lit::Tolerance => {
                let mut near: Vec<u32> = proximity.pairs.iter().map(side).collect();
                near.sort_unstable();
                near.dedup();
                near.retain(|t| tris.binary_search(t).is_err());
                tris = near;
            }
            Lit::SelfIntersecting => {
                tris = own.pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
                tris.sort_unstable();
                tris.dedup();
            }
        }
        let version = body.trees.vertex_version;
        if tris == h.shown && version == h.version {
            continue;
        }
        replace_mesh(
            &mut mesh3d,
            &mut meshes,
            flat_mesh(body.mesh(), tris.iter().copied(), h.lift, None),
        );
        h.shown = tris;
        h.version = version;
    }
    work.add(Stage::Highlight, t);
}
