//! Scene loading and switching: meshes are read and all three hierarchies built on the async
//! compute pool, so the window keeps drawing; a bad file becomes an error in the UI.

use super::{Body, CollisionScene, Deformation, FrameSet};
use crate::bv::{Aabb, Obb, Sphere};
use crate::bvh::{BuildOptions, Bvh};
use crate::math::{Isometry, Vector};
use crate::mesh::{TriMesh, load_obj};
use crate::scenes::{SceneId, load_scene};
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What to load.
#[derive(Clone, Debug, PartialEq)]
pub enum SceneChoice {
    /// One of the paper's scenes from the assets folder.
    Paper(SceneId),
    /// The fourth scene: the torus scene with the torus wobbling, its trees refitted every
    /// frame (van den Bergen 1998, §4).
    Wobble,
    /// Two OBJ files: environment, then moving object (placed beside it).
    Files(PathBuf, PathBuf),
}

impl SceneChoice {
    /// Name shown in the UI.
    pub fn label(&self) -> String {
        match self {
            SceneChoice::Paper(SceneId::Pipes) => "Pipes (Fig. 8)".into(),
            SceneChoice::Paper(SceneId::Torus) => "Torus in landscape (Fig. 10)".into(),
            SceneChoice::Paper(SceneId::Torpedo) => "Torpedo on pivot (Fig. 7)".into(),
            SceneChoice::Wobble => "Wobbling torus (refit)".into(),
            SceneChoice::Files(a, b) => format!(
                "{} + {}",
                a.file_name()
                    .map_or_else(|| a.display().to_string(), |n| n.to_string_lossy().into()),
                b.file_name()
                    .map_or_else(|| b.display().to_string(), |n| n.to_string_lossy().into())
            ),
        }
    }
}

/// Request to load a scene (replaces the current one when ready).
#[derive(Message, Clone, Debug)]
pub struct LoadScene(pub SceneChoice);

/// Loading state shown by the UI.
#[derive(Resource, Clone, Debug, Default)]
pub struct SceneStatus {
    /// What is being loaded, if anything.
    pub loading: Option<String>,
    /// When the load started.
    pub started: Option<Instant>,
    /// The last load's error, if it failed (the previous scene stays).
    pub error: Option<String>,
    /// The scene on screen.
    pub current: Option<SceneChoice>,
}

#[derive(Resource, Default)]
struct LoadTask(Option<(SceneChoice, Task<Result<CollisionScene, String>>)>);

#[derive(Resource, Clone)]
struct AssetsDir(PathBuf);

pub(super) struct LoadingPlugin {
    pub assets: PathBuf,
    pub initial: Option<SceneChoice>,
}

impl Plugin for LoadingPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<LoadScene>()
            .init_resource::<SceneStatus>()
            .init_resource::<LoadTask>()
            .insert_resource(AssetsDir(self.assets.clone()))
            .add_systems(
                Update,
                (start_loading, finish_loading)
                    .chain()
                    .in_set(FrameSet::Load),
            );
        if let Some(choice) = self.initial.clone() {
            app.add_systems(Startup, move |mut w: MessageWriter<LoadScene>| {
                w.write(LoadScene(choice.clone()));
            });
        }
    }
}

fn start_loading(
    mut requests: MessageReader<LoadScene>,
    mut task: ResMut<LoadTask>,
    mut status: ResMut<SceneStatus>,
    assets: Res<AssetsDir>,
) {
    // The last request wins; a newer request replaces a running load.
    let Some(LoadScene(choice)) = requests.read().last().cloned() else {
        return;
    };
    let dir = assets.0.clone();
    let job = choice.clone();
    let pool = AsyncComputeTaskPool::get();
    task.0 = Some((
        choice.clone(),
        pool.spawn(async move { build_scene(&dir, &job) }),
    ));
    status.loading = Some(choice.label());
    status.started = Some(Instant::now());
}

fn finish_loading(
    mut commands: Commands,
    mut task: ResMut<LoadTask>,
    mut status: ResMut<SceneStatus>,
    mut settings: ResMut<super::QuerySettings>,
    old: Option<Res<CollisionScene>>,
) {
    let Some((_, running)) = task.0.as_mut() else {
        return;
    };
    let Some(result) = check_ready(running) else {
        return;
    };
    let (choice, _) = task.0.take().expect("checked above");
    status.loading = None;
    status.started = None;
    match result {
        Ok(mut scene) => {
            scene.generation = old.map_or(1, |s| s.generation + 1);
            commands.insert_resource(scene);
            status.error = None;
            if choice == SceneChoice::Wobble {
                // van den Bergen's deformable case: the AABB tree, refitted every frame.
                settings.bv = crate::bv::BvKind::Aabb;
            }
            status.current = Some(choice);
        }
        Err(e) => status.error = Some(e),
    }
}

fn body(mesh: TriMesh, pose: Isometry) -> Body {
    let mesh = Arc::new(mesh);
    let options = BuildOptions::default();
    let t = Instant::now();
    let obb = Bvh::<Obb>::build(mesh.clone(), &options);
    let t_obb = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let aabb = Bvh::<Aabb>::build(mesh.clone(), &options);
    let t_aabb = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let sphere = Bvh::<Sphere>::build(mesh.clone(), &options);
    let t_sphere = t.elapsed().as_secs_f64() * 1e3;
    Body {
        mesh,
        obb,
        aabb,
        sphere,
        pose,
        build_ms: [t_obb, t_aabb, t_sphere],
    }
}

/// Loads and builds a scene (runs on the async compute pool). Errors are the typed errors'
/// messages, naming file and line.
pub(super) fn build_scene(assets: &Path, choice: &SceneChoice) -> Result<CollisionScene, String> {
    match choice {
        SceneChoice::Paper(id) => {
            let s = load_scene(assets, *id).map_err(|e| e.to_string())?;
            let path: Vec<Isometry> = s.path.iter().map(|p| p.pose_ab).collect();
            let start = path.first().copied().unwrap_or_else(Isometry::identity);
            Ok(CollisionScene {
                name: choice.label(),
                env: body((*s.environment).clone(), Isometry::identity()),
                obj: body((*s.object).clone(), start),
                path,
                deform: None,
                generation: 0,
                translucent_env: *id == SceneId::Pipes,
            })
        }
        SceneChoice::Wobble => {
            let mut scene = build_scene(assets, &SceneChoice::Paper(SceneId::Torus))?;
            scene.name = choice.label();
            scene.deform = Some(Deformation {
                rest: scene.obj.mesh.vertices().to_vec(),
                time: 0.0,
                kind: crate::bv::BvKind::Aabb,
            });
            Ok(scene)
        }
        SceneChoice::Files(a, b) => {
            let env = load_obj(a).map_err(|e| e.to_string())?;
            let obj = load_obj(b).map_err(|e| e.to_string())?;
            // Place B beside A along x, a little apart, so the user drags it in.
            let (lo_a, hi_a) = env.bounds();
            let (lo_b, hi_b) = obj.bounds();
            let gap = 0.05 * (hi_a - lo_a).norm().max(1e-6);
            let center_b = nalgebra::center(&lo_b, &hi_b);
            let center_a = nalgebra::center(&lo_a, &hi_a);
            let offset = Vector::new(
                hi_a.x - lo_b.x + gap,
                center_a.y - center_b.y,
                center_a.z - center_b.z,
            );
            Ok(CollisionScene {
                name: choice.label(),
                env: body(env, Isometry::identity()),
                obj: body(obj, Isometry::translation(offset.x, offset.y, offset.z)),
                path: Vec::new(),
                deform: None,
                generation: 0,
                translucent_env: false,
            })
        }
    }
}
