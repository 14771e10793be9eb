//! The report of an experiment — CSV files, plots (PNG and SVG) and `summary.md` — described
//! as data by each experiment from its typed result, and written by this one piece of code.

use super::plot::{self, Plot};
use super::{Claim, Experiment, ExperimentError, Settings};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub(super) use crate::scenes::bench::thousands;

/// What an experiment writes, made from its result ([`super::Outcome::report`]) and written by
/// [`Report::write`]: CSV files, plots, and `summary.md` (title, source, the run's command,
/// set-up, the plots, the claims table — claim | paper | ours | holds? — then sections of text
/// and tables, then the list of files).
pub struct Report {
    pub(super) experiment: Experiment,
    pub(super) title: String,
    pub(super) source: String,
    pub(super) setup: String,
    pub(super) csv: Vec<CsvFile>,
    pub(super) figures: Vec<Figure>,
    pub(super) claims: Vec<Claim>,
    pub(super) sections: Vec<Section>,
}

/// A CSV file, already serialised (one header line, one line per row).
pub(super) struct CsvFile {
    file: String,
    bytes: Vec<u8>,
}

impl CsvFile {
    /// `rows` (serde structs) as the CSV file `file`.
    pub(super) fn new<T: serde::Serialize>(
        file: impl Into<String>,
        rows: &[T],
    ) -> Result<Self, ExperimentError> {
        let file = file.into();
        let err = |message: String| ExperimentError::Csv {
            path: PathBuf::from(&file),
            message,
        };
        let mut w = csv::Writer::from_writer(Vec::new());
        for row in rows {
            w.serialize(row).map_err(|e| err(e.to_string()))?;
        }
        let bytes = w.into_inner().map_err(|e| err(e.to_string()))?;
        Ok(Self { file, bytes })
    }
}

/// A plot, written as `stem.png` and `stem.svg` and shown in the summary.
pub(super) struct Figure {
    pub stem: String,
    pub plot: Plot,
}

/// A section of the summary: a heading, then a paragraph and/or a table.
pub(super) struct Section {
    pub heading: String,
    pub text: Option<String>,
    pub table: Option<Table>,
}

impl Section {
    /// A section with a table only.
    pub(super) fn table(heading: impl Into<String>, table: Table) -> Self {
        Self {
            heading: heading.into(),
            text: None,
            table: Some(table),
        }
    }
}

/// A markdown table.
pub(super) struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headings and rows.
    pub(super) fn new(header: &[&str], rows: Vec<Vec<String>>) -> Self {
        Self {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows,
        }
    }

    fn markdown(&self, text: &mut String) {
        let _ = writeln!(text, "| {} |", self.header.join(" | "));
        let _ = writeln!(text, "|{}", "---|".repeat(self.header.len()));
        for r in &self.rows {
            let _ = writeln!(text, "| {} |", r.join(" | "));
        }
        text.push('\n');
    }
}

impl Report {
    /// The text of `summary.md` for a run with `settings`.
    pub fn summary(&self, settings: &Settings) -> String {
        let mut text = format!("# {}\n\nSource: {}.\n\n", self.title, self.source);
        let _ = writeln!(
            text,
            "Run: `obbtree experiment {} --out {}{}` (seed {}), obbtree {}.\n",
            self.experiment.name(),
            settings.out.display(),
            if settings.quick { " --quick" } else { "" },
            settings.seed,
            env!("CARGO_PKG_VERSION"),
        );
        let _ = writeln!(text, "{}\n", self.setup);
        for f in &self.figures {
            let _ = writeln!(text, "![{0}]({0}.png)\n", f.stem);
        }
        text.push_str("## The paper's claims here\n\n");
        Table::new(
            &["claim", "paper", "ours", "holds?"],
            self.claims
                .iter()
                .map(|c| {
                    let holds = if c.holds { "yes" } else { "**no**" };
                    vec![
                        c.claim.clone(),
                        c.paper.clone(),
                        c.ours.clone(),
                        holds.into(),
                    ]
                })
                .collect(),
        )
        .markdown(&mut text);
        for s in &self.sections {
            let _ = writeln!(text, "## {}\n", s.heading);
            if let Some(t) = &s.text {
                let _ = writeln!(text, "{t}\n");
            }
            if let Some(t) = &s.table {
                t.markdown(&mut text);
            }
        }
        let files: Vec<String> = self
            .csv
            .iter()
            .map(|c| format!("`{}`", c.file))
            .chain(
                self.figures
                    .iter()
                    .map(|f| format!("`{}.{{png,svg}}`", f.stem)),
            )
            .collect();
        let _ = writeln!(text, "Files: {}.\n", files.join(", "));
        text
    }

    /// Writes the CSV files, the plots and `summary.md` under `settings.out` (which must exist).
    ///
    /// # Errors
    /// [`ExperimentError`] naming the file that could not be written or drawn.
    pub fn write(&self, settings: &Settings) -> Result<(), ExperimentError> {
        let out = &settings.out;
        for c in &self.csv {
            write_file(&out.join(&c.file), &c.bytes)?;
        }
        for f in &self.figures {
            plot::draw(out, &f.stem, &f.plot)?;
        }
        write_file(&out.join("summary.md"), self.summary(settings).as_bytes())
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ExperimentError> {
    std::fs::write(path, bytes).map_err(|source| ExperimentError::Io {
        path: path.to_path_buf(),
        source,
    })
}
