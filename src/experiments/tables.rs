//! Table 3 of Gottschalk et al. 1996 (§7.2) for the three scenes, OBB and AABB trees side by
//! side. The rows, their lines and their measurement are the scenes' bench
//! ([`crate::scenes::bench`]), the one home of Table 3.

use super::plot::{BarPlot, Plot};
use super::report::{CsvFile, Figure, Report, Section, Table, thousands};
use super::{Claim, Experiment, ExperimentError, Progress, Settings};
use crate::bv::{Aabb, Obb};
use crate::query::{QueryOptions, SeparationPolicy};
use crate::scenes::bench::{BenchRow, TABLE3_LINES, Table3Row, bench};
use crate::scenes::{PaperRow, SceneId, SceneSpec, load_scene};

/// Table 3 for one scene: the paper's row and ours with both tree kinds.
#[derive(Clone, Debug)]
pub struct SceneTable {
    /// The scene.
    pub scene: SceneId,
    /// The paper's row (for the torpedo, only its time per query).
    pub paper: PaperRow,
    /// Ours, OBB trees.
    pub obb: BenchRow,
    /// Ours, AABB trees.
    pub aabb: BenchRow,
}

impl SceneTable {
    /// The rows of the table: the paper's, OBB trees, AABB trees.
    pub fn rows(&self) -> [Table3Row; 3] {
        [
            Table3Row::paper(self.scene, &self.paper),
            Table3Row::measured(&self.obb),
            Table3Row::measured(&self.aabb),
        ]
    }
}

/// The result of `paper-tables`.
#[derive(Clone, Debug)]
pub struct TablesResult {
    /// Pipes, torus, torpedo.
    pub scenes: Vec<SceneTable>,
    /// The summary's claims table.
    pub claims: Vec<Claim>,
}

/// Measures `paper-tables`: each scene's path replayed with OBB then AABB trees (quick: every
/// 50th pose).
pub(super) fn measure(
    settings: &Settings,
    progress: Progress<'_>,
) -> Result<TablesResult, ExperimentError> {
    let every = if settings.quick { 50 } else { 1 };
    let mut scenes = Vec::new();
    for id in SceneId::ALL {
        let scene = load_scene(&settings.assets, id)?;
        let n = scene.path.len().div_ceil(every) as u64;
        let stage = format!("paper-tables {}", id.name());
        // Every leaf tested by its box, as the paper's traversal does (and the AABB tree).
        let options = QueryOptions::paper();
        let obb = bench::<Obb>(
            &scene,
            every,
            SeparationPolicy::TopDown,
            &options,
            None,
            &mut |i| progress(&stage, i as u64, 2 * n),
        );
        let aabb = bench::<Aabb>(
            &scene,
            every,
            SeparationPolicy::TopDown,
            &options,
            None,
            &mut |i| progress(&stage, n + i as u64, 2 * n),
        );
        if obb.contacts != aabb.contacts {
            return Err(ExperimentError::Inconsistent(format!(
                "{id}: OBB and AABB trees found {} and {} contacts",
                obb.contacts, aabb.contacts
            )));
        }
        scenes.push(SceneTable {
            scene: id,
            paper: SceneSpec::of(id).paper,
            obb,
            aabb,
        });
    }
    let claims = scenes.iter().flat_map(claims).collect();
    Ok(TablesResult { scenes, claims })
}

/// The claims of one scene.
fn claims(t: &SceneTable) -> Vec<Claim> {
    let (p, o, a) = (&t.paper, &t.obb, &t.aabb);
    let id = t.scene;
    let per_query = o.box_tests as f64 / o.steps.max(1) as f64;
    let mut c = Vec::new();
    if let Some(pq) = p.avg_query_micros {
        c.push(Claim::new(
            format!("{id}: interactive query times (mean per query)"),
            format!("{pq:.0} µs ({})", p.machine),
            format!("{:.0} µs", o.avg_query_micros),
            o.avg_query_micros <= pq,
        ));
    }
    if let Some(pc) = p.avg_contacts_per_step {
        c.push(Claim::new(
            format!("{id}: our scene is comparable (contacts per step within 2×)"),
            format!("{pc:.1}"),
            format!("{:.1}", o.avg_contacts_per_step),
            (0.5..=2.0).contains(&(o.avg_contacts_per_step / pc)),
        ));
    }
    if let (Some(pb), Some(ps)) = (p.box_tests, p.steps) {
        let paper_per_query = pb as f64 / ps as f64;
        c.push(Claim::new(
            format!("{id}: box tests per query (OBB trees, scene fidelity within 4×)"),
            format!("{paper_per_query:.0}"),
            format!("{per_query:.0}"),
            (0.25..=4.0).contains(&(per_query / paper_per_query)),
        ));
    }
    c.push(Claim::new(
        format!("{id}: OBB trees need fewer box tests than AABB trees (§6)"),
        "yes",
        format!("{} vs {}", thousands(o.box_tests), thousands(a.box_tests)),
        o.box_tests < a.box_tests,
    ));
    c
}

/// The report of `paper-tables`.
pub(super) fn report(r: &TablesResult) -> Result<Report, ExperimentError> {
    let rows: Vec<Table3Row> = r.scenes.iter().flat_map(SceneTable::rows).collect();
    Ok(Report {
        experiment: Experiment::PaperTables,
        title: "Table 3: the paper's three scenes".into(),
        source: "Gottschalk, Lin, Manocha 1996, §7.2, Table 3".into(),
        setup: "Each scene's recorded motion path (assets/paths) replayed with the all-contacts \
                query, OBB trees and AABB trees built by the same process (`obbtree bench SCENE \
                --bv obb|aabb`, whose lines these are). The paper gives no figures for the torpedo \
                except its time per query. The paper's times are from 1996 machines; ours from \
                this one."
            .into(),
        csv: vec![CsvFile::new("paper-tables.csv", &rows)?],
        figures: vec![figure(r)],
        claims: r.claims.clone(),
        sections: vec![Section::table("Table 3", table(&rows))],
    })
}

/// Box tests per query, per scene: the paper's, ours with OBB and with AABB trees.
fn figure(r: &TablesResult) -> Figure {
    let per_query = |row: fn(&SceneTable) -> Table3Row| -> Vec<f64> {
        r.scenes
            .iter()
            .map(|s| row(s).box_tests_per_query.unwrap_or(0.0))
            .collect()
    };
    Figure {
        stem: "paper-tables".into(),
        plot: Plot::Bar(BarPlot {
            title: "Table 3: box tests per query along each path".into(),
            y_label: "box tests per query".into(),
            log_y: false,
            groups: r.scenes.iter().map(|s| s.scene.to_string()).collect(),
            series: vec![
                (
                    "paper, OBB trees".into(),
                    per_query(|s| Table3Row::paper(s.scene, &s.paper)),
                ),
                (
                    "ours, OBB trees".into(),
                    per_query(|s| Table3Row::measured(&s.obb)),
                ),
                (
                    "ours, AABB trees".into(),
                    per_query(|s| Table3Row::measured(&s.aabb)),
                ),
            ],
        }),
    }
}

/// Table 3 across the page: one row per source, one column per line of
/// [`TABLE3_LINES`] (the lines `obbtree bench` prints down the page).
fn table(rows: &[Table3Row]) -> Table {
    let mut header = vec!["scene", "source", "every"];
    header.extend(TABLE3_LINES.iter().map(|l| l.label));
    let cells = rows
        .iter()
        .map(|row| {
            let mut cells = vec![
                row.scene.to_string(),
                row.source.to_string(),
                row.every.map_or("—".into(), |e| e.to_string()),
            ];
            cells.extend(
                TABLE3_LINES
                    .iter()
                    .map(|l| (l.value)(row).map_or_else(|| "—".to_string(), |c| c.grouped())),
            );
            cells
        })
        .collect();
    Table::new(&header, cells)
}
