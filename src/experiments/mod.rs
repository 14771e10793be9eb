//! The papers' experiments, reproduced headless (`obbtree experiment NAME --out DIR`).
//!
//! Each experiment writes, under its output folder:
//! * CSV data (one row per measured point or configuration);
//! * plots as PNG and SVG (plotters);
//! * `summary.md`: the set-up, the measured tables and a claims table — the paper's number,
//!   ours, and whether the paper's claim holds here.
//!
//! | name | source |
//! |---|---|
//! | `parallel-proximity` | Gottschalk et al. 1996, §6, Fig. 5 |
//! | `point-proximity` | Gottschalk et al. 1996, §6, Fig. 6 |
//! | `random-placements` | van den Bergen 1998, §5, Tables 1–3 |
//! | `separation-list` | Li & Chen, §4–§5, Table 1 |
//! | `paper-tables` | Gottschalk et al. 1996, §7.2, Table 3 |
//!
//! Times are wall-clock medians or totals on the machine that runs them; counts (box tests,
//! triangle tests) are deterministic for a given seed.

mod placements;
mod plot;
mod proximity;
mod separation;
mod tables;

pub use placements::{PlacementRow, PlacementsResult, TimingRow};
pub use proximity::{ProximityPoint, ProximityResult};
pub use separation::{SeparationResult, SeparationRow};
pub use tables::TablesResult;

use crate::math::median;
use crate::mesh::MeshError;
use crate::scenes::SceneError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One of the experiments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Experiment {
    /// Two concentric spheres, radii 1 and 1 + ε (Gottschalk et al. 1996, §6, Fig. 5).
    ParallelProximity,
    /// Two equal spheres ε apart (Gottschalk et al. 1996, §6, Fig. 6).
    PointProximity,
    /// Random placements of model pairs, OBB vs AABB trees, full SAT and SAT lite, and build,
    /// refit and test times (van den Bergen 1998, §5, Tables 1–3).
    RandomPlacements,
    /// Nine models in coherent random motion, top-down vs separation lists (Li & Chen §5,
    /// Table 1).
    SeparationList,
    /// Table 3 of Gottschalk et al. 1996 (§7.2) for the three scenes.
    PaperTables,
}

impl Experiment {
    /// All experiments, in the order of the issue.
    pub const ALL: [Experiment; 5] = [
        Self::ParallelProximity,
        Self::PointProximity,
        Self::RandomPlacements,
        Self::SeparationList,
        Self::PaperTables,
    ];

    /// The command-line name, e.g. `parallel-proximity`.
    pub fn name(self) -> &'static str {
        match self {
            Self::ParallelProximity => "parallel-proximity",
            Self::PointProximity => "point-proximity",
            Self::RandomPlacements => "random-placements",
            Self::SeparationList => "separation-list",
            Self::PaperTables => "paper-tables",
        }
    }

    /// The experiment of a command-line name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// Where inputs come from and how big a run is.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Output folder (created if missing).
    pub out: PathBuf,
    /// A CI-sized run: fewer points, placements, steps and seeds. The claims are the same.
    pub quick: bool,
    /// Seed of every random choice.
    pub seed: u64,
    /// Folder with `torus.obj`, `teapot.obj`, `f-16.obj` and `spot.obj` (the project's
    /// `tests/data`).
    pub models: PathBuf,
    /// The scenes' assets folder (for `paper-tables`).
    pub assets: PathBuf,
}

impl Settings {
    /// Full-size settings writing to `out`, models from the source tree's `tests/data` and the
    /// default assets folder, seed 1996.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        Self {
            out: out.into(),
            quick: false,
            seed: 1996,
            models: Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
            assets: crate::scenes::default_assets_dir(),
        }
    }
}

/// Errors of an experiment: which file or step failed.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A model could not be loaded.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// A scene could not be loaded.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// Writing CSV failed.
    #[error("{path}: {message}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Drawing a plot failed.
    #[error("plot {path}: {message}")]
    Plot {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The run found a contradiction (e.g. two hierarchies disagreeing on a query), which is
    /// a bug.
    #[error("inconsistent result: {0}")]
    Inconsistent(String),
}

/// Progress callback: `(stage, done, total)`.
pub type Progress<'a> = &'a mut dyn FnMut(&str, u64, u64);

/// One line of a summary's claims table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Claim {
    /// What is claimed.
    pub claim: String,
    /// The paper's figure.
    pub paper: String,
    /// Ours.
    pub ours: String,
    /// Whether the paper's claim holds here.
    pub holds: bool,
}

impl Claim {
    fn new(
        claim: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
        holds: bool,
    ) -> Self {
        Self {
            claim: claim.into(),
            paper: paper.into(),
            ours: ours.into(),
            holds,
        }
    }
}

/// The result of any experiment.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// `parallel-proximity` or `point-proximity`.
    Proximity(ProximityResult),
    /// `random-placements`.
    Placements(PlacementsResult),
    /// `separation-list`.
    Separation(SeparationResult),
    /// `paper-tables`.
    Tables(TablesResult),
}

impl Outcome {
    /// The claims table of the summary.
    pub fn claims(&self) -> &[Claim] {
        match self {
            Outcome::Proximity(r) => &r.claims,
            Outcome::Placements(r) => &r.claims,
            Outcome::Separation(r) => &r.claims,
            Outcome::Tables(r) => &r.claims,
        }
    }
}

/// Runs one experiment and writes its CSV files, plots and `summary.md` under `settings.out`.
///
/// # Errors
/// [`ExperimentError`] naming the file that could not be read or written.
pub fn run(
    experiment: Experiment,
    settings: &Settings,
    progress: Progress<'_>,
) -> Result<Outcome, ExperimentError> {
    std::fs::create_dir_all(&settings.out).map_err(|source| ExperimentError::Io {
        path: settings.out.clone(),
        source,
    })?;
    match experiment {
        Experiment::ParallelProximity | Experiment::PointProximity => {
            proximity::run(experiment, settings, progress).map(Outcome::Proximity)
        }
        Experiment::RandomPlacements => {
            placements::run(settings, progress).map(Outcome::Placements)
        }
        Experiment::SeparationList => separation::run(settings, progress).map(Outcome::Separation),
        Experiment::PaperTables => tables::run(settings, progress).map(Outcome::Tables),
    }
}

// ---------------------------------------------------------------------------------------------
// Output helpers shared by the experiments.

/// Writes `rows` (serde structs) as CSV with a header line.
fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T]) -> Result<(), ExperimentError> {
    let err = |message: String| ExperimentError::Csv {
        path: path.to_path_buf(),
        message,
    };
    let mut w = csv::Writer::from_path(path).map_err(|e| err(e.to_string()))?;
    for row in rows {
        w.serialize(row).map_err(|e| err(e.to_string()))?;
    }
    w.flush().map_err(|e| err(e.to_string()))
}

/// A markdown summary being assembled.
struct Summary {
    text: String,
}

impl Summary {
    fn new(name: &str, title: &str, source: &str, settings: &Settings) -> Self {
        let mut text = format!("# {title}\n\nSource: {source}.\n\n");
        let _ = writeln!(
            text,
            "Run: `obbtree experiment {name} --out {}{}` (seed {}), obbtree {}.\n",
            settings.out.display(),
            if settings.quick { " --quick" } else { "" },
            settings.seed,
            env!("CARGO_PKG_VERSION"),
        );
        Self { text }
    }

    fn para(&mut self, s: &str) {
        self.text.push_str(s);
        self.text.push_str("\n\n");
    }

    fn heading(&mut self, s: &str) {
        let _ = writeln!(self.text, "## {s}\n");
    }

    /// A markdown table.
    fn table(&mut self, header: &[&str], rows: &[Vec<String>]) {
        let _ = writeln!(self.text, "| {} |", header.join(" | "));
        let _ = writeln!(self.text, "|{}", "---|".repeat(header.len()));
        for r in rows {
            let _ = writeln!(self.text, "| {} |", r.join(" | "));
        }
        self.text.push('\n');
    }

    fn claims(&mut self, claims: &[Claim]) {
        self.heading("The paper's claims here");
        let rows: Vec<Vec<String>> = claims
            .iter()
            .map(|c| {
                vec![
                    c.claim.clone(),
                    c.paper.clone(),
                    c.ours.clone(),
                    if c.holds { "yes" } else { "**no**" }.to_string(),
                ]
            })
            .collect();
        self.table(&["claim", "paper", "ours", "holds?"], &rows);
    }

    fn images(&mut self, stems: &[&str]) {
        for s in stems {
            let _ = writeln!(self.text, "![{s}]({s}.png)\n");
        }
    }

    fn write(self, out: &Path) -> Result<(), ExperimentError> {
        let path = out.join("summary.md");
        std::fs::write(&path, self.text).map_err(|source| ExperimentError::Io { path, source })
    }
}

/// Loads a model from the models folder, moved so its bounding box is centred on the origin
/// (its "local coordinate system" for random placements).
fn load_centered(settings: &Settings, file: &str) -> Result<crate::mesh::TriMesh, ExperimentError> {
    let mesh = crate::mesh::load_obj(&settings.models.join(file))?;
    let (lo, hi) = mesh.bounds();
    let c = nalgebra::center(&lo, &hi).coords;
    let vertices = mesh.vertices().iter().map(|p| p - c).collect();
    Ok(crate::mesh::TriMesh::new(
        vertices,
        mesh.triangles().to_vec(),
        file,
    )?)
}

/// A uniformly distributed random rotation (Shoemake, "Uniform random rotations", Graphics
/// Gems III, 1992).
fn shoemake(rng: &mut impl rand::RngExt) -> crate::math::UnitQuaternion {
    use std::f64::consts::TAU;
    let (u1, u2, u3): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    crate::math::UnitQuaternion::new_unchecked(crate::math::Quaternion::new(
        b * (TAU * u3).cos(),
        a * (TAU * u2).sin(),
        a * (TAU * u2).cos(),
        b * (TAU * u3).sin(),
    ))
}

/// A number with thousands separators, for the summaries.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
