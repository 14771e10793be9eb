//! Scene loading and switching, and rebuilding the hierarchies with another split rule: meshes
//! are read and the three trees of both bodies built on the async compute pool, so the window
//! keeps drawing; a bad file becomes an error in the UI and the current scene stays.

use super::files::{ObjUpload, load_paper};
use super::scene::{Body, CollisionScene, Deformation, FrameSet, Trees};
use crate::bvh::{SplitRule, TreeCache};
use crate::math::{Isometry, Vector};
use crate::mesh::{TriMesh, load_obj, parse_obj};
use crate::scenes::SceneId;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Two OBJ files already in memory, as [`SceneChoice::Files`]: what a browser's file
    /// picker gives.
    Uploaded(ObjUpload, ObjUpload),
}

impl SceneChoice {
    /// Name shown in the UI.
    pub fn label(&self) -> String {
        let file = |p: &PathBuf| {
            p.file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into())
        };
        match self {
            SceneChoice::Paper(SceneId::Pipes) => "Pipes (Fig. 8)".into(),
            SceneChoice::Paper(SceneId::Torus) => "Torus in landscape (Fig. 10)".into(),
            SceneChoice::Paper(SceneId::Torpedo) => "Torpedo on pivot (Fig. 7)".into(),
            SceneChoice::Wobble => "Wobbling torus (refit)".into(),
            SceneChoice::Files(a, b) => format!("{} + {}", file(a), file(b)),
            SceneChoice::Uploaded(a, b) => format!("{} + {}", a.name, b.name),
        }
    }
}

/// Request to load a scene (replaces the current one when ready).
#[derive(Message, Clone, Debug)]
pub struct LoadScene(pub SceneChoice);

/// Request to rebuild both bodies' three trees with another split rule (the "BVH options
/// inspector"); the scene, poses and path stay.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RebuildTrees(pub SplitRule);

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
    /// The split rule a running rebuild uses.
    pub rebuilding: Option<SplitRule>,
}

#[derive(Resource, Default)]
struct LoadTask(
    Option<Task<Result<CollisionScene, String>>>,
    Option<SceneChoice>,
);

#[derive(Resource, Default)]
struct RebuildTask(Option<(u64, Task<(Trees, Trees)>)>);

#[derive(Resource, Clone)]
struct AssetsDir(PathBuf);

/// Where built trees are kept between runs ([`TreeCache`]); `None`: every tree is built.
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeCacheSetting(pub Option<TreeCache>);

/// Loads scenes on request ([`LoadScene`]) and rebuilds trees ([`RebuildTrees`]).
pub struct LoadingPlugin {
    /// The assets folder (scenes and paths).
    pub assets: PathBuf,
    /// Scene to load at startup.
    pub initial: Option<SceneChoice>,
    /// The tree cache (the native viewer's is in the user's cache folder).
    pub tree_cache: Option<TreeCache>,
}

impl Plugin for LoadingPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<LoadScene>()
            .add_message::<RebuildTrees>()
            .init_resource::<SceneStatus>()
            .init_resource::<LoadTask>()
            .init_resource::<RebuildTask>()
            .insert_resource(AssetsDir(self.assets.clone()))
            .insert_resource(TreeCacheSetting(self.tree_cache.clone()))
            .add_systems(
                Update,
                (start_loading, finish_loading, start_rebuild, finish_rebuild)
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
    cache: Res<TreeCacheSetting>,
) {
    // The last request wins; a newer request replaces a running load.
    let Some(LoadScene(choice)) = requests.read().last().cloned() else {
        return;
    };
    let dir = assets.0.clone();
    let job = choice.clone();
    let cache = cache.0.clone();
    let pool = AsyncComputeTaskPool::get();
    *task = LoadTask(
        Some(pool.spawn(async move { build_scene(&dir, &job, cache.as_ref()).await })),
        Some(choice.clone()),
    );
    status.loading = Some(choice.label());
    status.started = Some(Instant::now());
}

fn finish_loading(
    mut commands: Commands,
    mut task: ResMut<LoadTask>,
    mut status: ResMut<SceneStatus>,
    old: Option<Res<CollisionScene>>,
) {
    let Some(running) = task.0.as_mut() else {
        return;
    };
    let Some(result) = check_ready(running) else {
        return;
    };
    let choice = task.1.take();
    task.0 = None;
    status.loading = None;
    status.started = None;
    match result {
        Ok(mut scene) => {
            scene.generation = old.map_or(1, |s| s.generation + 1);
            commands.insert_resource(scene);
            status.error = None;
            status.current = choice;
        }
        Err(e) => status.error = Some(e),
    }
}

fn start_rebuild(
    mut requests: MessageReader<RebuildTrees>,
    mut task: ResMut<RebuildTask>,
    mut status: ResMut<SceneStatus>,
    scene: Option<Res<CollisionScene>>,
    cache: Res<TreeCacheSetting>,
) {
    let Some(RebuildTrees(split)) = requests.read().last().copied() else {
        return;
    };
    let Some(scene) = scene else {
        return;
    };
    // The current meshes (for a deforming body, its current shape).
    let env = Arc::new(scene.env.mesh().clone());
    let obj = Arc::new(scene.obj.mesh().clone());
    let pool = AsyncComputeTaskPool::get();
    let cache = cache.0.clone();
    task.0 = Some((
        scene.generation,
        pool.spawn(async move {
            (
                Trees::build(env, split, cache.as_ref()),
                Trees::build(obj, split, cache.as_ref()),
            )
        }),
    ));
    status.rebuilding = Some(split);
}

fn finish_rebuild(
    mut task: ResMut<RebuildTask>,
    mut status: ResMut<SceneStatus>,
    scene: Option<ResMut<CollisionScene>>,
) {
    let Some((generation, running)) = task.0.as_mut() else {
        return;
    };
    let Some((env, obj)) = check_ready(running) else {
        return;
    };
    let generation = *generation;
    task.0 = None;
    status.rebuilding = None;
    if let Some(mut scene) = scene
        && scene.generation == generation
    {
        let version = scene.obj.trees.vertex_version;
        scene.env.trees = env;
        scene.obj.trees = obj;
        // The render meshes are unchanged; keep the object's vertex version monotone.
        scene.obj.trees.vertex_version = version + 1;
        scene.trees_revision += 1;
    }
}

fn body(mesh: TriMesh, pose: Isometry, cache: Option<&TreeCache>) -> Body {
    Body {
        trees: Trees::build(Arc::new(mesh), SplitRule::default(), cache),
        pose,
    }
}

/// Loads and builds a scene (runs on the async compute pool; in a browser, on the page's one
/// thread between frames, awaiting the fetches). Errors are the typed errors' messages, naming
/// file and line.
pub(crate) async fn build_scene(
    assets: &Path,
    choice: &SceneChoice,
    cache: Option<&TreeCache>,
) -> Result<CollisionScene, String> {
    match choice {
        SceneChoice::Paper(id) => paper_scene(assets, *id, choice.label(), cache).await,
        SceneChoice::Wobble => {
            let mut scene = paper_scene(assets, SceneId::Torus, choice.label(), cache).await?;
            scene.deform = Some(Deformation {
                rest: scene.obj.mesh().vertices().to_vec(),
                time: 0.0,
            });
            Ok(scene)
        }
        SceneChoice::Files(a, b) => {
            let env = load_obj(a).map_err(|e| e.to_string())?;
            let obj = load_obj(b).map_err(|e| e.to_string())?;
            Ok(side_by_side(choice.label(), env, obj, cache))
        }
        SceneChoice::Uploaded(a, b) => {
            let env = parse_obj(&a.bytes, Path::new(&a.name)).map_err(|e| e.to_string())?;
            let obj = parse_obj(&b.bytes, Path::new(&b.name)).map_err(|e| e.to_string())?;
            Ok(side_by_side(choice.label(), env, obj, cache))
        }
    }
}

/// One of the paper's scenes, its object at the path's first pose.
async fn paper_scene(
    assets: &Path,
    id: SceneId,
    name: String,
    cache: Option<&TreeCache>,
) -> Result<CollisionScene, String> {
    let s = load_paper(assets, id).await.map_err(|e| e.to_string())?;
    let path: Vec<Isometry> = s.path.iter().map(|p| p.pose_ab).collect();
    let start = path.first().copied().unwrap_or_else(Isometry::identity);
    Ok(CollisionScene {
        name,
        paper: Some(id),
        env: body((*s.environment).clone(), Isometry::identity(), cache),
        obj: body((*s.object).clone(), start, cache),
        path,
        deform: None,
        generation: 0,
        trees_revision: 0,
        translucent_env: id == SceneId::Pipes,
    })
}

/// Two models of the user's: B placed beside A along x, a little apart, so the user drags it in.
fn side_by_side(
    name: String,
    env: TriMesh,
    obj: TriMesh,
    cache: Option<&TreeCache>,
) -> CollisionScene {
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
    CollisionScene {
        name,
        paper: None,
        env: body(env, Isometry::identity(), cache),
        obj: body(
            obj,
            Isometry::translation(offset.x, offset.y, offset.z),
            cache,
        ),
        path: Vec::new(),
        deform: None,
        generation: 0,
        trees_revision: 0,
        translucent_env: false,
    }
}
