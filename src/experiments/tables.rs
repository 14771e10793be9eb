//! Table 3 of Gottschalk et al. 1996 (§7.2) for the three scenes, via the scenes' bench, with
//! OBB and AABB trees side by side.

use super::plot::{BarPlot, bar_plot};
use super::{Claim, ExperimentError, Progress, Settings, Summary, thousands, write_csv};
use crate::bv::{Aabb, Obb};
use crate::scenes::bench::{BenchRow, bench};
use crate::scenes::{SceneId, load_scene};

/// One row of the table: ours (`obb`, `aabb`) or the paper's (`paper`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct TableRow {
    /// Scene.
    pub scene: String,
    /// `paper`, `obb` or `aabb`.
    pub source: String,
    /// Poses replayed.
    pub steps: Option<usize>,
    /// Every how many steps of the path a pose was replayed.
    pub every: Option<usize>,
    /// Contacts over the path.
    pub contacts: Option<u64>,
    /// Box tests over the path.
    pub box_tests: Option<u64>,
    /// Triangle tests over the path.
    pub tri_tests: Option<u64>,
    /// Total query time, seconds.
    pub total_seconds: Option<f64>,
    /// Mean query time, microseconds.
    pub avg_query_micros: Option<f64>,
    /// Median query time, microseconds (ours only).
    pub median_query_micros: Option<f64>,
    /// Box tests per query.
    pub box_tests_per_query: Option<f64>,
    /// Mean contacts per step.
    pub avg_contacts_per_step: Option<f64>,
}

/// The result of `paper-tables`.
#[derive(Clone, Debug)]
pub struct TablesResult {
    /// Paper, OBB and AABB rows per scene.
    pub rows: Vec<TableRow>,
    /// The summary's claims table.
    pub claims: Vec<Claim>,
}

fn ours(r: &BenchRow) -> TableRow {
    TableRow {
        scene: r.scene.to_string(),
        source: r.bv.to_string(),
        steps: Some(r.steps),
        every: Some(r.every),
        contacts: Some(r.contacts),
        box_tests: Some(r.box_tests),
        tri_tests: Some(r.tri_tests),
        total_seconds: Some(r.total_seconds),
        avg_query_micros: Some(r.avg_query_micros),
        median_query_micros: Some(r.median_query_micros),
        box_tests_per_query: Some(r.box_tests as f64 / r.steps.max(1) as f64),
        avg_contacts_per_step: Some(r.avg_contacts_per_step),
    }
}

fn paper(r: &BenchRow) -> Option<TableRow> {
    let p = r.paper.as_ref()?;
    Some(TableRow {
        scene: r.scene.to_string(),
        source: format!("paper ({})", p.machine),
        steps: p.steps,
        every: None,
        contacts: p.contacts,
        box_tests: p.box_tests,
        tri_tests: p.tri_tests,
        total_seconds: p.total_seconds,
        avg_query_micros: p.avg_query_micros,
        median_query_micros: None,
        box_tests_per_query: p.box_tests.zip(p.steps).map(|(b, s)| b as f64 / s as f64),
        avg_contacts_per_step: p.avg_contacts_per_step,
    })
}

pub(super) fn run(
    settings: &Settings,
    progress: Progress<'_>,
) -> Result<TablesResult, ExperimentError> {
    // Quick: every 50th pose of each path.
    let every = if settings.quick { 50 } else { 1 };
    let mut rows = Vec::new();
    let mut claims = Vec::new();
    for id in [SceneId::Pipes, SceneId::Torus, SceneId::Torpedo] {
        let scene = load_scene(&settings.assets, id)?;
        let n = scene.path.len().div_ceil(every) as u64;
        let stage = format!("paper-tables {}", id.name());
        let mut tick = |i: usize| progress(&stage, i as u64, 2 * n);
        let o = bench::<Obb>(&scene, every, &mut tick);
        let mut tick = |i: usize| progress(&stage, n + i as u64, 2 * n);
        let a = bench::<Aabb>(&scene, every, &mut tick);
        if o.contacts != a.contacts {
            return Err(ExperimentError::Inconsistent(format!(
                "{}: OBB and AABB trees found {} and {} contacts",
                id.name(),
                o.contacts,
                a.contacts
            )));
        }
        let p = paper(&o);
        if let Some(p) = &p {
            if let Some(pq) = p.avg_query_micros {
                claims.push(Claim::new(
                    format!("{}: interactive query times (mean per query)", id.name()),
                    format!(
                        "{:.0} µs ({})",
                        pq,
                        p.source.trim_start_matches("paper (").trim_end_matches(')')
                    ),
                    format!("{:.0} µs", o.avg_query_micros),
                    o.avg_query_micros <= pq,
                ));
            }
            if let Some(pc) = p.avg_contacts_per_step {
                claims.push(Claim::new(
                    format!(
                        "{}: our scene is comparable (contacts per step within 2×)",
                        id.name()
                    ),
                    format!("{pc:.1}"),
                    format!("{:.1}", o.avg_contacts_per_step),
                    (0.5..=2.0).contains(&(o.avg_contacts_per_step / pc)),
                ));
            }
            if let (Some(pb), Some(ps)) = (p.box_tests, p.steps) {
                claims.push(Claim::new(
                    format!(
                        "{}: box tests per query (OBB trees, scene fidelity within 4×)",
                        id.name()
                    ),
                    format!("{:.0}", pb as f64 / ps as f64),
                    format!("{:.0}", o.box_tests as f64 / o.steps.max(1) as f64),
                    (0.25..=4.0).contains(
                        &((o.box_tests as f64 / o.steps.max(1) as f64) / (pb as f64 / ps as f64)),
                    ),
                ));
            }
        }
        claims.push(Claim::new(
            format!(
                "{}: OBB trees need fewer box tests than AABB trees (§6)",
                id.name()
            ),
            "yes",
            format!("{} vs {}", thousands(o.box_tests), thousands(a.box_tests)),
            o.box_tests < a.box_tests,
        ));
        rows.extend(p);
        rows.push(ours(&o));
        rows.push(ours(&a));
    }
    let result = TablesResult { rows, claims };
    write(&result, settings)?;
    Ok(result)
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("–".into(), |x| x.to_string())
}

fn write(r: &TablesResult, settings: &Settings) -> Result<(), ExperimentError> {
    let out = &settings.out;
    write_csv(&out.join("paper-tables.csv"), &r.rows)?;
    let scenes: Vec<String> = ["pipes", "torus", "torpedo"].map(String::from).to_vec();
    let per_query = |src: &str| -> Vec<f64> {
        scenes
            .iter()
            .map(|s| {
                r.rows
                    .iter()
                    .find(|x| &x.scene == s && x.source.starts_with(src))
                    .and_then(|x| x.box_tests_per_query)
                    .unwrap_or(0.0)
            })
            .collect()
    };
    let series = vec![
        ("paper, OBB trees".to_string(), per_query("paper")),
        ("ours, OBB trees".to_string(), per_query("obb")),
        ("ours, AABB trees".to_string(), per_query("aabb")),
    ];
    bar_plot(
        out,
        "paper-tables",
        &BarPlot {
            title: "Table 3: box tests per query along each path",
            y_label: "box tests per query",
            log_y: false,
            groups: &scenes,
            series: &series,
        },
    )?;
    let mut s = Summary::new(
        "paper-tables",
        "Table 3: the paper's three scenes",
        "Gottschalk, Lin, Manocha 1996, §7.2, Table 3",
        settings,
    );
    s.para(
        "Each scene's recorded motion path (assets/paths) replayed with the all-contacts query, \
         OBB trees and AABB trees built by the same process (`obbtree bench SCENE --bv obb|aabb`). \
         The paper gives no figures for the torpedo except its time per query. The paper's times \
         are from 1996 machines; ours from this one.",
    );
    s.images(&["paper-tables"]);
    s.claims(&r.claims);
    s.heading("Table 3");
    let rows: Vec<Vec<String>> = r
        .rows
        .iter()
        .map(|x| {
            vec![
                x.scene.clone(),
                x.source.clone(),
                opt(x.steps),
                opt(x.every),
                x.contacts.map_or("–".into(), thousands),
                x.box_tests.map_or("–".into(), thousands),
                x.tri_tests.map_or("–".into(), thousands),
                x.total_seconds.map_or("–".into(), |v| format!("{v:.3}")),
                x.avg_query_micros.map_or("–".into(), |v| format!("{v:.0}")),
                x.median_query_micros
                    .map_or("–".into(), |v| format!("{v:.0}")),
                x.avg_contacts_per_step
                    .map_or("–".into(), |v| format!("{v:.2}")),
            ]
        })
        .collect();
    s.table(
        &[
            "scene",
            "source",
            "steps",
            "every",
            "contacts",
            "box tests",
            "tri tests",
            "total s",
            "mean µs/query",
            "median µs/query",
            "contacts/step",
        ],
        &rows,
    );
    s.para("Files: `paper-tables.csv`, `paper-tables.{png,svg}`.");
    s.write(out)
}
