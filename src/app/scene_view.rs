//! The scene view: one render mesh per body, placed by the body's pose, rebuilt when the scene
//! changes and refilled when the body's vertices move (the wobbling torus). Presentation only.

use super::scene::{BodyId, CollisionScene, FrameSet};
use crate::math::{Isometry, Vector};
use crate::mesh::TriMesh;
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;

/// The direction light comes from, world frame (the scene's directional light and the baked
/// shading of the see-through environment agree).
pub const LIGHT_FROM: Vec3 = Vec3::new(4.0, 10.0, 6.0);

/// Marks a body's mesh entity.
#[derive(Component)]
pub struct BodyMesh {
    /// Whose mesh.
    pub body: BodyId,
    version: u64,
}

#[derive(Resource, Default)]
struct Spawned(u64);

/// Spawns and moves the bodies' meshes.
pub struct SceneViewPlugin;

impl Plugin for SceneViewPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ClearColor(Color::srgb(0.16, 0.2, 0.3)))
            .init_resource::<Spawned>()
            .add_systems(
                Update,
                (spawn_body_meshes, sync_body_meshes)
                    .chain()
                    .in_set(FrameSet::Present)
                    .run_if(resource_exists::<CollisionScene>),
            );
    }
}

/// A body's pose as a Bevy transform (single precision).
pub fn body_transform(pose: &Isometry) -> Transform {
    let t = pose.translation.vector;
    let r = pose.rotation;
    Transform {
        translation: Vec3::new(t.x as f32, t.y as f32, t.z as f32),
        rotation: Quat::from_xyzw(r.i as f32, r.j as f32, r.k as f32, r.w as f32),
        scale: Vec3::ONE,
    }
}

/// Shows `mesh` on an entity in place of its current mesh: a new asset and a new [`Mesh3d`]
/// handle (the old asset is dropped with its last handle), never the old asset edited in place.
/// A changed `Mesh3d` is the ordinary path by which Bevy 0.19 re-extracts an entity (its place in
/// the vertex slabs, its bounds); an asset rewritten in place depends on a second path (asset
/// events marking the components that use it) that Bevy's own tracker reports as racy (issues
/// 19409, 18967: meshes drawn with an old vertex range, or not updated). One CI capture showed
/// the resting torus, its 4 contacts unchanged for hundreds of steps, without its highlight
/// (the highlight mesh was then rewritten in place; it never failed so here).
pub fn replace_mesh(mesh3d: &mut Mesh3d, meshes: &mut Assets<Mesh>, mesh: Mesh) {
    *mesh3d = Mesh3d(meshes.add(mesh));
}

/// A flat-shaded render mesh of some triangles of a soup (three vertices per triangle), model
/// frame, each lifted by `lift` along its normal. With `baked = Some(colour)` the vertices carry
/// that colour shaded by a fixed light from [`LIGHT_FROM`] (for an unlit material: far cheaper
/// to draw than lit translucency under software rendering).
pub fn flat_mesh(
    mesh: &TriMesh,
    triangles: impl Iterator<Item = u32>,
    lift: f32,
    baked: Option<LinearRgba>,
) -> Mesh {
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut normals: Vec<[f32; 3]> = Vec::new();
    let mut colors: Vec<[f32; 4]> = Vec::new();
    let light = LIGHT_FROM.normalize();
    for t in triangles {
        if t as usize >= mesh.triangle_count() {
            continue;
        }
        let p = mesh.triangle(t as usize);
        let n = (p[1] - p[0]).cross(&(p[2] - p[0]));
        let len = n.norm();
        let n = if len > 0.0 && len.is_finite() {
            n / len
        } else {
            Vector::y()
        };
        let nf = Vec3::new(n.x as f32, n.y as f32, n.z as f32);
        for v in p {
            let q = v + n * lift as f64;
            positions.push([q.x as f32, q.y as f32, q.z as f32]);
            normals.push(nf.to_array());
        }
        if let Some(c) = baked {
            // Two-sided Lambert with an ambient term.
            let k = 0.35 + 0.65 * nf.dot(light).abs();
            let rgba = [c.red * k, c.green * k, c.blue * k, c.alpha];
            colors.extend([rgba; 3]);
        }
    }
    if positions.is_empty() {
        // An empty mesh upsets the render world's allocator: one degenerate triangle instead.
        positions = vec![[0.0; 3]; 3];
        normals = vec![[0.0, 1.0, 0.0]; 3];
        if baked.is_some() {
            colors = vec![[0.0; 4]; 3];
        }
    }
    let count = positions.len() as u32;
    let mut out = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
    .with_inserted_indices(Indices::U32((0..count).collect()));
    if baked.is_some() {
        out.insert_attribute(Mesh::ATTRIBUTE_COLOR, colors);
    }
    out
}

fn spawn_body_meshes(
    mut commands: Commands,
    scene: Res<CollisionScene>,
    mut spawned: ResMut<Spawned>,
    old: Query<Entity, With<BodyMesh>>,
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
    for (id, color) in [
        (BodyId::Environment, Color::srgb(0.45, 0.62, 0.55)),
        (BodyId::Object, Color::srgb(0.93, 0.78, 0.25)),
    ] {
        let body = scene.body(id);
        let mesh = body.mesh();
        let see_through = id == BodyId::Environment && scene.translucent_env;
        let (render, material) = if see_through {
            // The pipes: a see-through tangle of 143,000 triangles. Unlit with baked shading.
            let base = color.with_alpha(0.22).to_linear();
            (
                flat_mesh(mesh, 0..mesh.triangle_count() as u32, 0.0, Some(base)),
                StandardMaterial {
                    base_color: Color::WHITE,
                    alpha_mode: AlphaMode::Blend,
                    unlit: true,
                    double_sided: true,
                    cull_mode: None,
                    ..default()
                },
            )
        } else {
            (
                flat_mesh(mesh, 0..mesh.triangle_count() as u32, 0.0, None),
                StandardMaterial {
                    base_color: color,
                    perceptual_roughness: 0.7,
                    double_sided: true,
                    cull_mode: None,
                    ..default()
                },
            )
        };
        commands.spawn((
            BodyMesh {
                body: id,
                version: body.trees.vertex_version,
            },
            Mesh3d(meshes.add(render)),
            MeshMaterial3d(materials.add(material)),
            body_transform(&body.pose),
        ));
    }
}

fn sync_body_meshes(
    scene: Res<CollisionScene>,
    mut bodies: Query<(&mut BodyMesh, &mut Transform, &mut Mesh3d)>,
    mut meshes: ResMut<Assets<Mesh>>,
) {
    for (mut b, mut t, mut mesh3d) in &mut bodies {
        let body = scene.body(b.body);
        let want = body_transform(&body.pose);
        if *t != want {
            *t = want;
        }
        // The wobbling torus: new vertex positions whenever the body's vertices move.
        let version = body.trees.vertex_version;
        if version != b.version {
            b.version = version;
            let mesh = body.mesh();
            let render = flat_mesh(mesh, 0..mesh.triangle_count() as u32, 0.0, None);
            replace_mesh(&mut mesh3d, &mut meshes, render);
        }
    }
}
