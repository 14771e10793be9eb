//! The paper's three scenes (Gottschalk et al. 1996, §7.2, Table 3, Figs. 7, 8, 10) as assets:
//! deterministic generators of stand-in models at the paper's sizes, the simple dynamics engine
//! that records their motion paths, the asset manifest, and loading.
//!
//! `obbtree generate-assets` calls [`generate_assets`], which writes `models/*.obj`,
//! `paths/*.txt` (POSES format, the moving object B in the environment A's frame) and
//! `models/manifest.json` under the assets folder. The app and `obbtree bench` load them with
//! [`load_scene`]. Frames: y up, metres; the environment is at the identity.
//!
//! How the stand-ins differ from the paper's models is said in each generator's module
//! ([`pipes`], [`landscape`], [`torpedo`]).

pub mod bench;
pub mod dynamics;
pub mod geometry;
pub mod landscape;
pub mod pipes;
pub mod torpedo;

use crate::bvh::{BuildOptions, ObbTree};
use crate::math::{Isometry, Point, UnitQuaternion, Vector};
use crate::mesh::{MeshError, TriMesh, load_obj, parse_obj};
use crate::pose::{Pose, PoseError, parse_pose_bytes};
use dynamics::{DynamicsConfig, Gravity, MassProperties, RecordedPath};
use geometry::MeshBuilder;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The seed of the committed assets.
pub const DEFAULT_SEED: u64 = 1996;

/// File name of the manifest inside `models/`.
pub const MANIFEST: &str = "models/manifest.json";

/// One of the paper's scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SceneId {
    /// A small cube of pipes tumbling into a big one (Fig. 8).
    Pipes,
    /// A wrinkled torus falling around a stalagmite onto a landscape (Fig. 10).
    Torus,
    /// A torpedo lowered onto the rollers of a pivot structure (Fig. 7).
    Torpedo,
}

impl SceneId {
    /// All scenes, in the paper's order of Table 3, then the torpedo.
    pub const ALL: [SceneId; 3] = [SceneId::Pipes, SceneId::Torus, SceneId::Torpedo];

    /// The command-line name: `pipes`, `torus`, `torpedo`.
    pub fn name(self) -> &'static str {
        match self {
            SceneId::Pipes => "pipes",
            SceneId::Torus => "torus",
            SceneId::Torpedo => "torpedo",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl std::fmt::Display for SceneId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A row of the paper's Table 3 (or what §7.2 says of the torpedo). Times are the paper's, on
/// its machine.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PaperRow {
    /// Environment size, polygons.
    pub environment_triangles: usize,
    /// Object size, polygons.
    pub object_triangles: usize,
    /// Number of steps of the path.
    pub steps: Option<usize>,
    /// Contacts over the path.
    pub contacts: Option<u64>,
    /// Box–box tests over the path.
    pub box_tests: Option<u64>,
    /// Triangle–triangle tests over the path.
    pub tri_tests: Option<u64>,
    /// Total time, seconds.
    pub total_seconds: Option<f64>,
    /// Average interference detection time, microseconds.
    pub avg_query_micros: Option<f64>,
    /// Average time per box test, nanoseconds.
    pub avg_box_test_nanos: Option<f64>,
    /// Average contacts per step.
    pub avg_contacts_per_step: Option<f64>,
    /// The machine of the timings.
    pub machine: &'static str,
}

/// What a scene is made of and how its path is recorded.
#[derive(Clone, Debug)]
pub struct SceneSpec {
    /// Which scene.
    pub id: SceneId,
    /// Environment model, relative to the assets folder.
    pub environment_file: &'static str,
    /// Moving object model, relative to the assets folder.
    pub object_file: &'static str,
    /// Uniform scale applied to the object model's vertices on loading.
    pub object_scale: f64,
    /// Motion path, relative to the assets folder.
    pub path_file: &'static str,
    /// The integrator's parameters.
    pub dynamics: DynamicsConfig,
    /// Initial pose of the (scaled) object in the environment's frame.
    pub start: Isometry,
    /// Direction to move the start along if it collides (tried in 0.05 m steps).
    pub start_escape: Vector,
    /// Initial linear velocity, m/s.
    pub v0: Vector,
    /// Initial angular velocity, rad/s.
    pub w0: Vector,
    /// The paper's figures.
    pub paper: PaperRow,
}

impl SceneSpec {
    /// The specification of a scene.
    pub fn of(id: SceneId) -> Self {
        let base = Self::base_dynamics();
        match id {
            SceneId::Pipes => Self::pipes(base),
            SceneId::Torus => Self::torus(base),
            SceneId::Torpedo => Self::torpedo(base),
        }
    }

    /// The integrator's parameters the scenes start from.
    fn base_dynamics() -> DynamicsConfig {
        DynamicsConfig {
            dt: 0.01,
            steps: 1000,
            gravity: Gravity::Uniform(Vector::new(0.0, -9.81, 0.0)),
            conveyor: Vector::zeros(),
            restitution: 0.4,
            friction: 0.4,
            bias_speed: 0.005,
            resting_speed: 0.2,
            max_speed: 1.0,
            max_angular_speed: 1.5,
            linear_damping: 0.05,
            angular_damping: 0.3,
            max_impulses: 64,
            penetration: 5e-4,
            toi_tolerance: 1e-4,
            max_substeps: 4,
            contact_skin: 5e-3,
        }
    }

    /// The pipes scene (Fig. 8).
    fn pipes(base: DynamicsConfig) -> Self {
        Self {
            id: SceneId::Pipes,
            environment_file: "models/pipes.obj",
            object_file: "models/pipes.obj",
            object_scale: 1.0 / 15.0,
            path_file: "paths/pipes.txt",
            dynamics: DynamicsConfig {
                steps: 4008,
                gravity: Gravity::Central {
                    center: Point::origin(),
                    acceleration: 3.0,
                },
                ..base
            },
            start: Isometry::from_parts(
                Vector::new(15.6, 17.3, 15.2).into(),
                UnitQuaternion::from_euler_angles(0.4, 0.9, 0.2),
            ),
            start_escape: Vector::new(1.0, 1.0, 1.0).normalize(),
            v0: Vector::new(-0.2, 0.0, 0.1),
            w0: Vector::new(0.3, -0.5, 0.4),
            paper: PaperRow {
                environment_triangles: 143_690,
                object_triangles: 143_690,
                steps: Some(4008),
                contacts: Some(23_905),
                box_tests: Some(1_704_187),
                tri_tests: Some(71_589),
                total_seconds: Some(16.9),
                avg_query_micros: Some(4_200.0),
                avg_box_test_nanos: Some(7_900.0),
                avg_contacts_per_step: Some(6.0),
                machine: "SGI Reality Engine, 90 MHz R8000",
            },
        }
    }

    /// The torus scene (Fig. 10).
    fn torus(base: DynamicsConfig) -> Self {
        Self {
            id: SceneId::Torus,
            environment_file: "models/landscape.obj",
            object_file: "models/wrinkled_torus.obj",
            object_scale: 1.0,
            path_file: "paths/torus.txt",
            dynamics: DynamicsConfig {
                steps: 1298,
                // The Moon's gravity: the fall and the bounces take most of the paper's
                // 1,298 steps, as its average of 1.7 contacts per step implies.
                gravity: Gravity::Uniform(Vector::new(0.0, -1.62, 0.0)),
                max_speed: 2.5,
                max_angular_speed: 1.2,
                restitution: 0.5,
                ..base
            },
            // Chosen among 48 random starts, then among 60 nearby ones for the engine with
            // conservative advancement, for a path whose per-step work is near the paper's
            // (Table 3): the torus lands over the stalagmite, bounces on teeth and comes to
            // rest around it.
            start: Isometry::from_parts(
                Vector::new(0.558, 3.2, 0.086).into(),
                UnitQuaternion::from_euler_angles(-0.317, -2.075, 0.408),
            ),
            start_escape: Vector::y(),
            v0: Vector::new(-0.283, 0.0, -0.396),
            w0: Vector::new(0.0, 0.8, 0.0),
            paper: PaperRow {
                environment_triangles: 98_000,
                object_triangles: 20_000,
                steps: Some(1298),
                contacts: Some(2_266),
                box_tests: Some(1_055_559),
                tri_tests: Some(7_069),
                total_seconds: Some(8.9),
                avg_query_micros: Some(6_900.0),
                avg_box_test_nanos: Some(7_300.0),
                avg_contacts_per_step: Some(1.7),
                machine: "SGI Reality Engine, 90 MHz R8000",
            },
        }
    }

    /// The torpedo scene (Fig. 7).
    fn torpedo(base: DynamicsConfig) -> Self {
        Self {
            id: SceneId::Torpedo,
            environment_file: "models/pivot.obj",
            object_file: "models/torpedo.obj",
            object_scale: 1.0,
            path_file: "paths/torpedo.txt",
            dynamics: DynamicsConfig {
                steps: 1500,
                // Moved along the cradle by the handling gear.
                conveyor: Vector::new(0.35, 0.0, 0.0),
                restitution: 0.2,
                friction: 0.1,
                max_speed: 0.8,
                max_angular_speed: 0.6,
                angular_damping: 1.0,
                // Sliding on rollers lifts the torpedo off them at every step: three impacts
                // a step keep its per-step work within the viewer's frame budget.
                max_substeps: 3,
                toi_tolerance: 2e-4,
                ..base
            },
            start: Isometry::from_parts(
                Vector::new(-0.2, 0.18, 0.0).into(),
                UnitQuaternion::from_euler_angles(0.05, 0.0, 0.02),
            ),
            start_escape: Vector::y(),
            v0: Vector::zeros(),
            w0: Vector::zeros(),
            paper: PaperRow {
                environment_triangles: 44_921,
                object_triangles: 4_780,
                steps: None,
                contacts: None,
                box_tests: None,
                tri_tests: None,
                total_seconds: None,
                avg_query_micros: Some(100_000.0),
                avg_box_test_nanos: None,
                avg_contacts_per_step: None,
                machine: "SGI Reality Engine, 200 MHz R4400",
            },
        }
    }
}

/// A bad or missing asset.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A model file is bad.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// A path file is bad.
    #[error(transparent)]
    Pose(#[from] PoseError),
    /// The manifest is not valid JSON of the expected shape.
    #[error("{path}:{line}:{column}: bad manifest: {message}")]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The manifest has no entry for the scene.
    #[error("{path}: no scene named {scene:?}")]
    UnknownScene {
        /// The manifest file.
        path: PathBuf,
        /// The scene asked for.
        scene: String,
    },
    /// A file does not match what the manifest says of it.
    #[error("{path}: {what}: the manifest says {expected}, the file has {found}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs.
        what: &'static str,
        /// The manifest's value.
        expected: String,
        /// The file's value.
        found: String,
    },
}

/// The manifest: what `generate-assets` wrote, with counts, bounding boxes and hashes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The program that wrote it.
    pub generator: String,
    /// The generators' seed.
    pub seed: u64,
    /// One entry per scene.
    pub scenes: Vec<SceneEntry>,
}

/// One scene of the manifest. File names are relative to the assets folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneEntry {
    /// The scene.
    pub scene: SceneId,
    /// The environment (A, at the identity).
    pub environment: ModelEntry,
    /// The moving object (B).
    pub object: ModelEntry,
    /// The motion path of B.
    pub path: PathEntry,
}

/// A model file as used by a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    /// OBJ file, relative to the assets folder.
    pub file: String,
    /// BLAKE3 hash of the file's bytes, hex.
    pub blake3: String,
    /// Uniform scale applied to the file's vertices on loading.
    pub scale: f64,
    /// Triangles.
    pub triangles: usize,
    /// Vertices.
    pub vertices: usize,
    /// Bounding box minimum after scaling, model frame.
    pub bbox_min: [f64; 3],
    /// Bounding box maximum after scaling, model frame.
    pub bbox_max: [f64; 3],
}

/// A motion path file and the integrator that recorded it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathEntry {
    /// POSES file, relative to the assets folder.
    pub file: String,
    /// BLAKE3 hash of the file's bytes, hex.
    pub blake3: String,
    /// Poses.
    pub steps: usize,
    /// Time step, s.
    pub dt: f64,
    /// Largest possible translation of the pose's origin between consecutive poses, metres.
    pub max_step_translation: f64,
    /// Largest possible rotation between consecutive poses, radians.
    pub max_step_rotation: f64,
    /// Contacts found along the path (all-contacts queries).
    pub contacts: u64,
    /// Queries the simulation made to record the path: each step's end pose and the
    /// time-of-impact bisections (steps at rest make none).
    pub queries: u64,
    /// Mean contacts per step over the second half of the path.
    pub mean_contacts_second_half: f64,
}

/// A loaded scene: both meshes (the object scaled), the path, the manifest's entry.
#[derive(Clone, Debug)]
pub struct Scene {
    /// Which scene.
    pub id: SceneId,
    /// The environment A, at the identity.
    pub environment: Arc<TriMesh>,
    /// The moving object B, scaled.
    pub object: Arc<TriMesh>,
    /// The motion path: B in A's frame, one pose per step.
    pub path: Vec<Pose>,
    /// The manifest's entry.
    pub entry: SceneEntry,
}

/// The assets folder: `./assets` if it exists, else the one in the source tree.
pub fn default_assets_dir() -> PathBuf {
    let local = PathBuf::from("assets");
    if local.join(MANIFEST).exists() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
    }
}

/// Reads and parses a manifest.
///
/// # Errors
/// [`SceneError::Io`], [`SceneError::Manifest`] with the line and column of the first error.
pub fn read_manifest(path: &Path) -> Result<Manifest, SceneError> {
    parse_manifest(&read_file(path)?, path)
}

/// Parses a manifest's bytes (fetched over HTTP in a browser); `path` names it in errors.
///
/// # Errors
/// [`SceneError::Manifest`] with the line and column of the first error (invalid UTF-8 too).
pub fn parse_manifest(bytes: &[u8], path: &Path) -> Result<Manifest, SceneError> {
    serde_json::from_slice(bytes).map_err(|e| SceneError::Manifest {
        path: path.into(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Loads a scene from an assets folder written by [`generate_assets`].
///
/// # Errors
/// Manifest errors ([`read_manifest`]), [`SceneError::UnknownScene`], model and path errors
/// naming the file and line, [`SceneError::Mismatch`] if a file's triangle or pose count
/// differs from the manifest's.
pub fn load_scene(assets: &Path, id: SceneId) -> Result<Scene, SceneError> {
    load_scene_from(assets, id, &mut read_file)
}

/// Reads a whole file; the error names it.
fn read_file(path: &Path) -> Result<Vec<u8>, SceneError> {
    std::fs::read(path).map_err(|source| SceneError::Io {
        path: path.into(),
        source,
    })
}

/// The files of scene `id` besides the manifest, relative to the assets folder: what a
/// browser fetches before [`load_scene_from`] (environment, object, path; the object's file
/// may be the environment's).
///
/// # Errors
/// [`SceneError::UnknownScene`] (`manifest_path` names the manifest).
pub fn scene_files(
    manifest: &Manifest,
    manifest_path: &Path,
    id: SceneId,
) -> Result<Vec<String>, SceneError> {
    let entry = manifest
        .scenes
        .iter()
        .find(|s| s.scene == id)
        .ok_or_else(|| SceneError::UnknownScene {
            path: manifest_path.into(),
            scene: id.name().into(),
        })?;
    let mut files = vec![entry.environment.file.clone()];
    if entry.object.file != entry.environment.file {
        files.push(entry.object.file.clone());
    }
    files.push(entry.path.file.clone());
    Ok(files)
}

/// [`load_scene`] with the files read by `read` (given `assets` joined with the name the
/// manifest gives): the file system natively, bytes already fetched in a browser.
///
/// # Errors
/// As [`load_scene`]; `read`'s errors as it returns them.
pub fn load_scene_from(
    assets: &Path,
    id: SceneId,
    read: &mut dyn FnMut(&Path) -> Result<Vec<u8>, SceneError>,
) -> Result<Scene, SceneError> {
    let manifest_path = assets.join(MANIFEST);
    let manifest = parse_manifest(&read(&manifest_path)?, &manifest_path)?;
    let entry = manifest
        .scenes
        .into_iter()
        .find(|s| s.scene == id)
        .ok_or_else(|| SceneError::UnknownScene {
            path: manifest_path.clone(),
            scene: id.name().into(),
        })?;
    let environment = load_model(assets, &entry.environment, read)?;
    let object = if entry.object.file == entry.environment.file {
        scaled(&environment, entry.object.scale, &entry.object.file)?
    } else {
        let raw = load_model(
            assets,
            &ModelEntry {
                scale: 1.0,
                ..entry.object.clone()
            },
            read,
        )?;
        scaled(&raw, entry.object.scale, &entry.object.file)?
    };
    let environment = if entry.environment.scale != 1.0 {
        scaled(
            &environment,
            entry.environment.scale,
            &entry.environment.file,
        )?
    } else {
        environment
    };
    let path_file = assets.join(&entry.path.file);
    let path = parse_pose_bytes(read(&path_file)?, &path_file)?;
    if path.len() != entry.path.steps {
        return Err(SceneError::Mismatch {
            path: path_file,
            what: "poses",
            expected: entry.path.steps.to_string(),
            found: path.len().to_string(),
        });
    }
    Ok(Scene {
        id,
        environment: Arc::new(environment),
        object: Arc::new(object),
        path,
        entry,
    })
}

fn load_model(
    assets: &Path,
    entry: &ModelEntry,
    read: &mut dyn FnMut(&Path) -> Result<Vec<u8>, SceneError>,
) -> Result<TriMesh, SceneError> {
    let file = assets.join(&entry.file);
    let mesh = parse_obj(&read(&file)?, &file)?;
    if mesh.triangle_count() != entry.triangles {
        return Err(SceneError::Mismatch {
            path: file,
            what: "triangles",
            expected: entry.triangles.to_string(),
            found: mesh.triangle_count().to_string(),
        });
    }
    Ok(mesh)
}

fn scaled(mesh: &TriMesh, scale: f64, origin: &str) -> Result<TriMesh, SceneError> {
    if scale == 1.0 {
        return Ok(mesh.clone());
    }
    let vertices = mesh.vertices().iter().map(|v| v * scale).collect();
    Ok(TriMesh::new(vertices, mesh.triangles().to_vec(), origin)?)
}

/// The OBJ files of a scene as generated from `seed`: (file relative to the assets folder,
/// text). Deterministic: the same seed gives the same bytes.
pub fn generate_models(id: SceneId, seed: u64) -> Vec<(&'static str, String)> {
    let spec = SceneSpec::of(id);
    let emit = |what: &str, b: MeshBuilder| {
        b.to_obj(&format!(
            "{what}\nGenerated by obbtree generate-assets (seed {seed}); a stand-in for the model of Gottschalk, Lin, Manocha 1996, §7.2.\nUnits: metres, y up."
        ))
    };
    match id {
        SceneId::Pipes => vec![(
            spec.environment_file,
            emit("Pipes: a cube of pipes (Fig. 8)", pipes::generate(seed)),
        )],
        SceneId::Torus => vec![
            (
                spec.environment_file,
                emit(
                    "Landscape: dimples, teeth and a stalagmite (Fig. 10)",
                    landscape::landscape(seed ^ 0x5a5a),
                ),
            ),
            (
                spec.object_file,
                emit(
                    "Wrinkled, twisted torus (Fig. 10)",
                    landscape::wrinkled_torus(seed ^ 0x7070),
                ),
            ),
        ],
        SceneId::Torpedo => vec![
            (
                spec.environment_file,
                emit(
                    "Pivot structure with rollers (Fig. 7)",
                    torpedo::pivot_structure(),
                ),
            ),
            (
                spec.object_file,
                emit("Torpedo (Fig. 7)", torpedo::torpedo()),
            ),
        ],
    }
}

/// Progress of [`generate_assets`]: a stage name, steps done, steps in the stage.
pub type Progress<'a> = &'a mut dyn FnMut(&str, usize, usize);

/// Writes every scene's models and motion path, and the manifest, under `out`.
///
/// For each scene: the generators' OBJ text is written, loaded back through the OBJ loader (so the
/// simulation sees the rounded coordinates of the files), OBB trees are built, and the dynamics
/// engine records the path from the scene's start pose (moved along its escape direction
/// until it does not collide).
///
/// # Errors
/// [`SceneError::Io`] if a file cannot be written, and the loading errors of the written files.
pub fn generate_assets(
    out: &Path,
    seed: u64,
    progress: Progress<'_>,
) -> Result<Manifest, SceneError> {
    let mut scenes = Vec::new();
    for id in SceneId::ALL {
        progress(&format!("{id}: models"), 0, 1);
        let mut hashes = std::collections::HashMap::new();
        for (file, text) in generate_models(id, seed) {
            write(&out.join(file), text.as_bytes())?;
            hashes.insert(file, blake3::hash(text.as_bytes()).to_hex().to_string());
        }
        let spec = SceneSpec::of(id);
        let env_raw = load_obj(out.join(spec.environment_file))?;
        let obj_raw = if spec.object_file == spec.environment_file {
            env_raw.clone()
        } else {
            load_obj(out.join(spec.object_file))?
        };
        let object = scaled(&obj_raw, spec.object_scale, spec.object_file)?;
        let environment_entry = model_entry(spec.environment_file, &hashes, 1.0, &env_raw);
        let object_entry = model_entry(spec.object_file, &hashes, spec.object_scale, &object);
        let build = BuildOptions::default();
        let env_tree = ObbTree::build(env_raw, &build);
        let obj_tree = ObbTree::build(object, &build);
        let start = free_start(&env_tree, &obj_tree, &spec);
        let steps = spec.dynamics.steps;
        let label = format!("{id}: path");
        let recorded = dynamics::simulate(
            &env_tree,
            &obj_tree,
            &start,
            spec.v0,
            spec.w0,
            &spec.dynamics,
            &mut |done| progress(&label, done, steps),
        );
        let text = path_text(id, seed, &spec, &recorded);
        write(&out.join(spec.path_file), text.as_bytes())?;
        let mass = MassProperties::of_mesh(obj_tree.mesh());
        let (max_t, max_r) = dynamics::step_bounds(&spec.dynamics, mass.com.coords.norm());
        scenes.push(SceneEntry {
            scene: id,
            environment: environment_entry,
            object: object_entry,
            path: PathEntry {
                file: spec.path_file.into(),
                blake3: blake3::hash(text.as_bytes()).to_hex().to_string(),
                steps,
                dt: spec.dynamics.dt,
                max_step_translation: max_t,
                max_step_rotation: max_r,
                contacts: recorded.total_contacts(),
                queries: recorded.total_queries(),
                mean_contacts_second_half: recorded.mean_contacts_second_half(),
            },
        });
    }
    let manifest = Manifest {
        generator: format!("obbtree {} generate-assets", env!("CARGO_PKG_VERSION")),
        seed,
        scenes,
    };
    let json = serde_json::to_string_pretty(&manifest).expect("the manifest serialises");
    write(&out.join(MANIFEST), (json + "\n").as_bytes())?;
    Ok(manifest)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), SceneError> {
    let io = |source| SceneError::Io {
        path: path.into(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    std::fs::write(path, bytes).map_err(io)
}

fn model_entry(
    file: &str,
    hashes: &std::collections::HashMap<&str, String>,
    scale: f64,
    mesh: &TriMesh,
) -> ModelEntry {
    let (lo, hi) = mesh.bounds();
    ModelEntry {
        file: file.into(),
        blake3: hashes.get(file).cloned().unwrap_or_default(),
        scale,
        triangles: mesh.triangle_count(),
        vertices: mesh.vertices().len(),
        bbox_min: lo.coords.into(),
        bbox_max: hi.coords.into(),
    }
}

/// The scene's start pose, moved along its escape direction in 0.05 m steps until B does not
/// touch A (at most 400 tries).
fn free_start(env: &ObbTree, obj: &ObbTree, spec: &SceneSpec) -> Isometry {
    let options = crate::query::QueryOptions::first_contact();
    let mut start = spec.start;
    for _ in 0..400 {
        if !crate::query::collide(env, &Isometry::identity(), obj, &start, &options).colliding() {
            break;
        }
        start.translation.vector += spec.start_escape * 0.05;
    }
    start
}

fn path_text(id: SceneId, seed: u64, spec: &SceneSpec, path: &RecordedPath) -> String {
    let mut s = format!(
        "# Motion path of the {id} scene: the moving object (B) in the environment's frame (A),\n\
         # one pose per step: qw qx qy qz tx ty tz. Recorded by obbtree generate-assets (seed {seed})\n\
         # with the simple dynamics engine of Gottschalk et al. 1996 §7.2: dt = {} s, {} steps,\n\
         # {} contacts in all.\n",
        spec.dynamics.dt,
        path.lines.len(),
        path.total_contacts()
    );
    for line in &path.lines {
        s.push_str(line);
        s.push('\n');
    }
    s
}
