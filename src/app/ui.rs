//! The egui side panel and the help window.
//!
//! The panel is a scroll area of collapsible sections — Scene, Motion, Query, Proximity,
//! Self-intersection (a deforming object), Drawing, Metrics, Hierarchies — one function each, with a footer naming the help key. After
//! drawing it the panel tells the input plugin whether the pointer or keyboard belong to the UI
//! ([`PointerCapture`]) and the camera how much of the window it covers ([`ViewportInset`]).

use super::camera::{CameraCommand, CameraSettings, ViewportInset};
use super::compare::{CompareSettings, Comparison};
use super::curves::{ContactCurves, CurveSettings};
use super::highlights::HighlightSettings;
use super::input::{DroppedFiles, HelpVisible, PointerCapture};
use super::loading::{LoadScene, RebuildTrees, SceneChoice, SceneStatus};
use super::metrics::{FrameSample, Stage, Timings};
use super::motion::{MotionMode, Playback, PlaybackCommand};
use super::overlay::{OverlayBoxes, OverlaySettings};
use super::proximity::{LastProximity, ProximitySettings};
use super::query::{LastQuery, QuerySettings, SeparationCache};
use super::scene::{BodyId, CollisionScene, KINDS};
use super::self_intersection::{LastSelfIntersection, SelfIntersectionSettings};
use super::simulate::Simulator;
use crate::bv::BvKind;
use crate::bvh::{SplitRule, TreeOrigin};
use crate::query::{ContactMode, SeparationPolicy};
use crate::scenes::SceneId;
use bevy::camera::CameraOutputMode;
use bevy::camera::visibility::RenderLayers;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::render::render_resource::BlendState;
use bevy_egui::{
    EguiContexts, EguiGlobalSettings, EguiPrimaryContextPass, PrimaryEguiContext, egui,
};

/// The panel's width, logical pixels.
pub const PANEL_WIDTH: f32 = 390.0;

/// Text fields of the "your own models" form (native: a browser has no paths, it uses the
/// page's file picker).
#[derive(Resource, Default)]
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
struct OwnModels {
    a: String,
    b: String,
}

/// The panel and the help window.
pub struct UiPlugin;

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        // The panel gets a camera of its own: the 3D camera draws into the viewport right of
        // the panel (see `camera`), and egui drawn through that camera would be shifted by the
        // viewport's offset. (bevy_egui's side-panel example does the same.)
        if let Some(mut settings) = app.world_mut().get_resource_mut::<EguiGlobalSettings>() {
            settings.auto_create_primary_context = false;
        }
        app.init_resource::<OwnModels>()
            .add_systems(Startup, spawn_ui_camera)
            .add_systems(EguiPrimaryContextPass, (side_panel, help_window).chain());
    }
}

/// The egui camera: over the whole window, after the 3D cameras (scene, curve), drawing nothing but the UI.
fn spawn_ui_camera(mut commands: Commands) {
    commands.spawn((
        PrimaryEguiContext,
        Camera2d,
        RenderLayers::none(),
        Camera {
            order: 2,
            output_mode: CameraOutputMode::Write {
                blend_state: Some(BlendState::ALPHA_BLENDING),
                clear_color: ClearColorConfig::None,
            },
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
    ));
}

/// Everything the panel reads and sets.
#[derive(SystemParam)]
struct Panel<'w> {
    scene: Option<Res<'w, CollisionScene>>,
    status: ResMut<'w, SceneStatus>,
    // Native only (paths, files dropped on the window); the browser uses the page's file picker.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    own: ResMut<'w, OwnModels>,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    dropped: Res<'w, DroppedFiles>,
    load: MessageWriter<'w, LoadScene>,
    rebuild: MessageWriter<'w, RebuildTrees>,
    playback: ResMut<'w, Playback>,
    commands: MessageWriter<'w, PlaybackCommand>,
    simulator: Res<'w, Simulator>,
    camera: ResMut<'w, CameraSettings>,
    camera_commands: MessageWriter<'w, CameraCommand>,
    query: ResMut<'w, QuerySettings>,
    last: Res<'w, LastQuery>,
    separation: Res<'w, SeparationCache>,
    proximity: ResMut<'w, ProximitySettings>,
    near: Res<'w, LastProximity>,
    self_settings: ResMut<'w, SelfIntersectionSettings>,
    self_last: Res<'w, LastSelfIntersection>,
    compare: ResMut<'w, CompareSettings>,
    comparison: Res<'w, Comparison>,
    highlight: ResMut<'w, HighlightSettings>,
    curves: ResMut<'w, CurveSettings>,
    contact_curves: Res<'w, ContactCurves>,
    overlay: ResMut<'w, OverlaySettings>,
    boxes: Res<'w, OverlayBoxes>,
    timings: Res<'w, Timings>,
}

fn side_panel(
    mut contexts: EguiContexts,
    mut panel: Panel,
    mut capture: ResMut<PointerCapture>,
    mut inset: ResMut<ViewportInset>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = egui::Ui::new(
        ctx.clone(),
        "obbtree_root".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    let response = egui::Panel::left("obbtree_panel")
        .exact_size(PANEL_WIDTH)
        .resizable(false)
        .show(&mut root, |ui| {
            egui::Panel::bottom("obbtree_footer")
                .resizable(false)
                .show(ui, |ui| {
                    ui.small("H: keys and mouse · F: focus · M: simulate · C: compare");
                });
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        ui.heading("obbtree");
                        ui.small("OBBTree, Gottschalk, Lin & Manocha 1996");
                    });
                    #[cfg(target_arch = "wasm32")]
                    ui.small(
                        "Web build: single-threaded (a browser page has one thread here), so \
                         loading a scene and building its trees pause the page, and the \
                         timings are WebAssembly's.",
                    );
                    section(ui, "Scene", true, |ui| scene_section(ui, &mut panel));
                    section(ui, "Motion", true, |ui| motion_section(ui, &mut panel));
                    section(ui, "Query", true, |ui| query_section(ui, &mut panel));
                    section(ui, "Proximity", true, |ui| {
                        proximity_section(ui, &mut panel)
                    });
                    if panel.scene.as_ref().is_some_and(|s| s.deform.is_some()) {
                        section(ui, "Self-intersection", true, |ui| {
                            self_intersection_section(ui, &mut panel)
                        });
                    }
                    section(ui, "Drawing", false, |ui| drawing_section(ui, &mut panel));
                    section(ui, "Metrics", true, |ui| metrics_section(ui, &mut panel));
                    section(ui, "Hierarchies", false, |ui| {
                        hierarchies_section(ui, &mut panel)
                    });
                });
        })
        .response;
    let rect = response.rect;
    let over_panel = ctx.pointer_latest_pos().is_some_and(|p| rect.contains(p));
    let want = PointerCapture {
        pointer: over_panel
            || ctx.is_pointer_over_egui()
            || ctx.egui_wants_pointer_input()
            || ctx.egui_is_using_pointer(),
        keyboard: ctx.egui_wants_keyboard_input(),
    };
    if *capture != want {
        *capture = want;
    }
    let width = ViewportInset(rect.width());
    if *inset != width {
        *inset = width;
    }
    Ok(())
}

fn section(ui: &mut egui::Ui, title: &str, open: bool, body: impl FnOnce(&mut egui::Ui)) {
    egui::CollapsingHeader::new(egui::RichText::new(title).strong())
        .default_open(open)
        .show(ui, body);
}

fn scene_section(ui: &mut egui::Ui, p: &mut Panel) {
    let current = p.status.current.clone();
    let choices = [
        SceneChoice::Paper(SceneId::Pipes),
        SceneChoice::Paper(SceneId::Torus),
        SceneChoice::Paper(SceneId::Torpedo),
        SceneChoice::Wobble,
    ];
    let shown = current.as_ref().map_or("(none)".into(), |c| c.label());
    egui::ComboBox::from_id_salt("scene")
        .width(PANEL_WIDTH - 40.0)
        .selected_text(shown)
        .show_ui(ui, |ui| {
            for choice in choices {
                let selected = current.as_ref() == Some(&choice);
                if ui.selectable_label(selected, choice.label()).clicked() && !selected {
                    p.load.write(LoadScene(choice));
                }
            }
        });
    if let Some(s) = &p.scene {
        let stats = s.env.trees.stats.iter().chain(&s.obj.trees.stats);
        let ms: f64 = stats.clone().map(|st| st.build_ms).sum();
        let loaded = stats.filter(|st| st.origin == TreeOrigin::Loaded).count();
        let how = match loaded {
            0 => "built".to_string(),
            6 => "loaded from the tree cache".to_string(),
            n => format!("{n} of them loaded from the tree cache"),
        };
        ui.small(format!(
            "{} + {} triangles; 6 trees {how} in {ms:.0} ms",
            s.env.mesh().triangle_count(),
            s.obj.mesh().triangle_count()
        ));
    }
    ui.collapsing("Your own models (OBJ)", |ui| own_models(ui, p));
    if let Some(what) = &p.status.loading {
        let secs = p.status.started.map_or(0.0, |t| t.elapsed().as_secs_f32());
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(format!(
                "Loading {what}: building OBB, AABB and sphere trees… {secs:.1} s"
            ));
        });
    }
    if let Some(err) = p.status.error.clone() {
        ui.colored_label(
            egui::Color32::from_rgb(255, 110, 110),
            format!("Error: {err}"),
        );
        if ui.small_button("Dismiss").clicked() {
            p.status.error = None;
        }
    }
}

fn motion_section(ui: &mut egui::Ui, p: &mut Panel) {
    let has_path = p.scene.as_ref().is_some_and(|s| !s.path.is_empty());
    let can_simulate = p.simulator.unavailable.is_none();
    let mode = p.playback.mode;
    ui.horizontal(|ui| {
        for (m, label, enabled) in [
            (MotionMode::Path, "Path", has_path),
            (MotionMode::Simulate, "Simulate (M)", can_simulate),
            (MotionMode::Free, "Free", true),
        ] {
            if ui
                .add_enabled(enabled, egui::RadioButton::new(mode == m, label))
                .clicked()
                && mode != m
            {
                p.commands.write(PlaybackCommand::SetMode(m));
            }
        }
    });
    ui.horizontal(|ui| {
        let label = if p.playback.playing {
            "Pause (P)"
        } else {
            "Play (P)"
        };
        if ui.button(label).clicked() {
            p.commands.write(PlaybackCommand::TogglePause);
        }
        if ui.button("Step (O)").clicked() {
            p.commands.write(PlaybackCommand::SingleStep);
        }
        let reset = if mode == MotionMode::Simulate {
            "Reset (R)"
        } else {
            "Restart (R)"
        };
        if ui.button(reset).clicked() {
            p.commands.write(PlaybackCommand::Restart);
        }
        if ui.button("Focus (F)").clicked() {
            p.camera_commands.write(CameraCommand::Focus);
        }
    });
    match mode {
        MotionMode::Path => {
            ui.add(egui::Slider::new(&mut p.playback.speed, 0.1..=8.0).text("steps per frame"));
            if let Some(s) = &p.scene {
                ui.label(format!("Step {} of {}", p.playback.step + 1, s.path.len()));
            }
        }
        MotionMode::Free => {
            ui.label("Drag the object (left: move, right: turn).");
        }
        MotionMode::Simulate => simulate_status(ui, p),
    }
    if let Some(why) = p.simulator.unavailable {
        ui.small(format!("Simulate: {why}."));
    }
    ui.checkbox(
        &mut p.camera.follow,
        "Camera follows the object while it moves",
    );
}

fn simulate_status(ui: &mut egui::Ui, p: &Panel) {
    let Some(sim) = p.simulator.simulation() else {
        ui.label("Starting…");
        return;
    };
    let f = p.timings.last().map(|s| s.engine).unwrap_or_default();
    let (med, p95) = p
        .timings
        .percentiles_where(|s| s.engine.active.then_some(s.us(Stage::Engine)));
    let state = if p.simulator.held() {
        "held (drag, let go to throw)".to_string()
    } else if sim.asleep() {
        "at rest".to_string()
    } else if p.simulator.fell_away {
        "fell out of the scene: Reset (R)".to_string()
    } else {
        format!("moving, {:.2} m/s", sim.state().velocity.norm())
    };
    egui::Grid::new("engine").num_columns(2).show(ui, |ui| {
        let mut row = |k: &str, v: String| {
            ui.label(k);
            ui.monospace(v);
            ui.end_row();
        };
        row("body", state);
        row(
            "steps this frame",
            format!("{} (dt {} s)", f.steps, sim.config().dt),
        );
        row(
            "queries this frame",
            format!("{} (root + time of impact)", f.queries),
        );
        row("impacts this frame", f.impacts.to_string());
        row(
            "time of impact",
            format!("{} distance queries, {:.0} µs", f.toi_queries, f.toi_micros),
        );
        row(
            "engine",
            format!(
                "{:.0} µs (median {med:.0}, p95 {p95:.0})",
                p.timings.last().map_or(0.0, |s| s.us(Stage::Engine))
            ),
        );
        row("simulated", format!("{:.2} s", p.simulator.sim_time));
    });
    if let Some(note) = &p.simulator.release_note {
        ui.small(note);
    }
}

fn query_section(ui: &mut egui::Ui, p: &mut Panel) {
    ui.horizontal(|ui| {
        ui.label("Tree");
        ui.radio_value(&mut p.query.bv, BvKind::Obb, "OBB");
        ui.radio_value(&mut p.query.bv, BvKind::Aabb, "AABB");
        ui.radio_value(&mut p.query.bv, BvKind::Sphere, "Sphere");
    });
    ui.horizontal(|ui| {
        ui.radio_value(&mut p.query.mode, ContactMode::AllContacts, "All contacts");
        ui.radio_value(
            &mut p.query.mode,
            ContactMode::FirstContact,
            "First contact",
        );
    });
    ui.horizontal(|ui| {
        ui.label("Start from")
            .on_hover_text("Li & Chen §4: reuse the last frame's separation list");
        egui::ComboBox::from_id_salt("separation")
            .selected_text(match p.query.separation {
                None => "the root pair",
                Some(SeparationPolicy::TopDown) => "the root pair (recorded)",
                Some(SeparationPolicy::Predicted) => "separation list (Fig. 4a)",
                Some(SeparationPolicy::Deferred) => "separation list (Fig. 4b)",
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut p.query.separation, None, "the root pair");
                ui.selectable_value(
                    &mut p.query.separation,
                    Some(SeparationPolicy::Predicted),
                    "separation list (Fig. 4a)",
                );
                ui.selectable_value(
                    &mut p.query.separation,
                    Some(SeparationPolicy::Deferred),
                    "separation list (Fig. 4b)",
                );
            });
    });
    if p.query.separation.is_some() && !p.last.traced {
        let l = &p.separation.list;
        ui.small(format!(
            "Separation list: {} pairs, {} of {} queries rebuilt",
            l.len(),
            l.rebuilds(),
            l.queries()
        ));
    }
    ui.checkbox(
        &mut p.compare.enabled,
        "OBB, AABB and sphere side by side (C)",
    );
    if p.compare.enabled {
        compare_table(ui, p);
    }
}

/// A distance in world units: six decimals, or four significant digits where that would
/// show too few.
fn length(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:.3e}")
    } else {
        format!("{x:.6}")
    }
}

/// The deforming object against itself: its refitted AABB tree's self-test, every frame.
fn self_intersection_section(ui: &mut egui::Ui, p: &mut Panel) {
    ui.checkbox(
        &mut p.self_settings.show,
        "Self-intersecting triangles (magenta) and their curve",
    )
    .on_hover_text(
        "The object's AABB tree, refitted to this frame's vertices (van den Bergen 1998, §4), \
         walked against itself; triangles count where they meet beyond the corners they share \
         (decided exactly)",
    );
    let own = &p.self_last;
    if p.self_settings.show && own.ran {
        ui.small(format!(
            "{} intersecting pairs of {} triangles",
            own.pairs.len(),
            own.triangles
        ));
        let refit = p.timings.last().map_or(0.0, |f| f.us(Stage::Refit));
        ui.small(format!(
            "refit (the trees in use) {:.0} µs · self-test {:.0} µs; N_v {}, N_p {}",
            refit, own.micros, own.tests.0, own.tests.1
        ));
    }
}

/// PQP's queries, live: the distance while apart, the triangle pairs within a tolerance.
fn proximity_section(ui: &mut egui::Ui, p: &mut Panel) {
    ui.checkbox(
        &mut p.proximity.distance,
        "Distance while apart (white segment)",
    )
    .on_hover_text(
        "The closest points of the two bodies, with the query's tree type, starting from the \
         last frame's nearest pair (Larsen, Gottschalk, Lin & Manocha 1999)",
    );
    let near = &p.near;
    if p.proximity.distance {
        let line = match &near.distance {
            Some(r) => format!(
                "distance {} in {:.1} µs (interference {:.1} µs); triangles {} · {}; N_v {}, N_p {}",
                length(r.distance),
                near.distance_micros,
                p.last.micros,
                r.triangles.0,
                r.triangles.1,
                r.bv_tests,
                r.tri_tests
            ),
            None if !p.last.report.contacts.is_empty() => "touching: distance 0".into(),
            None => "no distance yet".into(),
        };
        ui.small(line);
    }
    // The slider's range follows the moving body's size.
    let size = p.scene.as_ref().map_or(1.0, |s| s.obj.radius().max(1e-9));
    if p.proximity.tolerance == 0.0 && !p.proximity.pairs {
        p.proximity.tolerance = 0.02 * size;
    }
    ui.checkbox(
        &mut p.proximity.pairs,
        "Triangles within the tolerance (blue)",
    );
    ui.add_enabled_ui(p.proximity.pairs, |ui| {
        ui.add(
            egui::Slider::new(&mut p.proximity.tolerance, 0.0..=0.5 * size)
                .logarithmic(true)
                .smallest_positive(1e-4 * size)
                .text("tolerance"),
        );
    });
    if p.proximity.pairs {
        ui.small(format!(
            "{} pairs within {:.4} in {:.1} µs; N_v {}, N_p {}{}",
            near.pairs.len(),
            p.proximity.tolerance,
            near.pairs_micros,
            near.pairs_tests.0,
            near.pairs_tests.1,
            if near.capped { " (capped)" } else { "" }
        ));
    }
    if let Some(e) = &near.error {
        ui.colored_label(egui::Color32::LIGHT_RED, e);
    }
}

/// The paper's §6 comparison, live: the three trees on one pose.
fn compare_table(ui: &mut egui::Ui, p: &Panel) {
    let c = &p.comparison;
    if c.rows.len() != 3 {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Querying all three trees…");
        });
        return;
    }
    let obb = &c.rows[0];
    let ratio = |x: f64, y: f64| {
        if y > 0.0 {
            format!("{:.2}×", x / y)
        } else {
            "–".into()
        }
    };
    egui::Grid::new("compare")
        .num_columns(4)
        .striped(true)
        .show(ui, |ui| {
            ui.label("");
            for r in &c.rows {
                ui.strong(r.kind.name().to_uppercase());
            }
            ui.end_row();
            let rows: [(&str, &RowCell<'_>); 7] = [
                ("N_v", &|r| r.bv_tests.to_string()),
                ("N_p", &|r| r.tri_tests.to_string()),
                ("µs", &|r| format!("{:.0}", r.micros)),
                ("contacts", &|r| {
                    format!("{}{}", r.contacts, if r.same_contacts { "" } else { " ≠" })
                }),
                ("N_v ÷ OBB", &|r| {
                    ratio(r.bv_tests as f64, obb.bv_tests as f64)
                }),
                ("N_p ÷ OBB", &|r| {
                    ratio(r.tri_tests as f64, obb.tri_tests as f64)
                }),
                ("time ÷ OBB", &|r| ratio(r.micros, obb.micros)),
            ];
            for (name, cell) in rows {
                ui.label(name);
                for r in &c.rows {
                    ui.monospace(cell(r));
                }
                ui.end_row();
            }
            if let Some(d_obb) = obb.distance {
                let distance: [(&str, &DistanceCell<'_>); 4] = [
                    ("distance", &|d| {
                        let same = (d.distance - d_obb.distance).abs()
                            <= 1e-12 * d_obb.distance.abs().max(1.0);
                        format!("{}{}", length(d.distance), if same { "" } else { " ≠" })
                    }),
                    ("distance µs", &|d| format!("{:.0}", d.micros)),
                    ("distance N_v", &|d| d.bv_tests.to_string()),
                    ("distance N_p", &|d| d.tri_tests.to_string()),
                ];
                for (name, cell) in distance {
                    ui.label(name);
                    for r in &c.rows {
                        ui.monospace(r.distance.as_ref().map_or("–".into(), cell));
                    }
                    ui.end_row();
                }
            }
        });
    let (med, p95) = c.job_percentiles();
    ui.small(format!(
        "{} poses compared; three queries: median {med:.0} µs, p95 {p95:.0} µs (off the main thread)",
        c.jobs
    ));
}

fn drawing_section(ui: &mut egui::Ui, p: &mut Panel) {
    ui.checkbox(
        &mut p.curves.show,
        "Intersection curves (green, over everything)",
    );
    ui.checkbox(
        &mut p.curves.impact_normals,
        "Impact normals in simulate mode (magenta arrows)",
    );
    if p.curves.show {
        let c = &p.contact_curves;
        ui.small(format!(
            "{} pairs: {} segments, {} touching points, {} coplanar overlaps{}",
            c.pairs,
            c.segments.len(),
            c.points.len(),
            c.polygons,
            if c.capped { " (capped)" } else { "" }
        ));
    }
    ui.checkbox(&mut p.highlight.show, "Fill contacting triangles (red)");
    ui.checkbox(&mut p.overlay.show, "Show hierarchy level");
    let overlay = &mut *p.overlay;
    ui.add_enabled_ui(overlay.show, |ui| {
        ui.horizontal(|ui| {
            ui.radio_value(&mut overlay.tree, BvKind::Obb, "OBB");
            ui.radio_value(&mut overlay.tree, BvKind::Aabb, "AABB");
            ui.radio_value(&mut overlay.tree, BvKind::Sphere, "Sphere");
        });
        ui.horizontal(|ui| {
            ui.radio_value(&mut overlay.body, BodyId::Object, "Object");
            ui.radio_value(&mut overlay.body, BodyId::Environment, "Environment");
        });
        // Without a scene the slider's range would clamp the level to 0.
        if let Some(s) = &p.scene {
            let depth = s.body(overlay.body).trees.depth(overlay.tree);
            ui.add(egui::Slider::new(&mut overlay.level, 0..=depth).text("level"));
        }
        ui.checkbox(
            &mut overlay.only_overlapped,
            "Only volumes the query found overlapping",
        );
        if overlay.only_overlapped && overlay.tree != p.query.bv {
            ui.small("(the query uses another tree type: showing all)");
        }
        let b = &p.boxes;
        let mut text = format!(
            "Level {}: {} volumes, {} drawn",
            b.level,
            b.at_level,
            b.boxes.len()
        );
        if b.capped {
            text += &format!(" (capped at {} of {})", overlay.max_boxes, b.eligible);
        }
        ui.small(text);
    });
}

fn metrics_section(ui: &mut egui::Ui, p: &mut Panel) {
    let t = &*p.timings;
    let Some(f) = t.last() else {
        ui.label("No frames yet.");
        return;
    };
    ui.checkbox(
        &mut p.query.measure_costs,
        "Measure T_0, C_v and C_p every frame",
    )
    .on_hover_text(
        "Times three walks of the frame's pose: the set-up alone (T_0), the walk without \
         triangle tests (C_v per box test) and the all-contacts query (C_p per triangle test); \
         a dash where too few tests to measure",
    );
    cost_grid(ui, t, f, p.last.bv.map_or("", |k| k.name()));
    stages_grid(ui, t, f);
    ui.small("CPU per frame: median / p95 over the last 600 frames.");
    metrics_plots(ui, t);
}

/// The cost model's terms (`bv`: the query's tree type), the frame's and their medians.
fn cost_grid(ui: &mut egui::Ui, t: &Timings, f: &FrameSample, bv: &str) {
    let median = |g: &dyn Fn(&FrameSample) -> Option<f64>| t.percentiles_where(g).0;
    let opt = |x: Option<f64>, unit: &str| x.map_or("–".into(), |v| format!("{v:.1} {unit}"));
    egui::Grid::new("cost")
        .num_columns(3)
        .striped(true)
        .show(ui, |ui| {
            ui.label(format!("T = T_0 + N_v·C_v + N_p·C_p ({bv})"));
            ui.strong("frame");
            ui.strong("median");
            ui.end_row();
            let mut row = |k: &str, now: String, med: String| {
                ui.label(k);
                ui.monospace(now);
                ui.monospace(med);
                ui.end_row();
            };
            row(
                "query T",
                format!("{:.1} µs", f.query_us()),
                format!("{:.1} µs", median(&|s| Some(s.query_us()))),
            );
            row(
                "distance query",
                opt(f.distance_us, "µs"),
                opt(
                    t.frames
                        .iter()
                        .any(|s| s.distance_us.is_some())
                        .then(|| median(&|s| s.distance_us)),
                    "µs",
                ),
            );
            row(
                "box tests N_v",
                f.bv_tests.to_string(),
                format!("{:.0}", median(&|s| Some(s.bv_tests as f64))),
            );
            row(
                "tri tests N_p",
                f.tri_tests.to_string(),
                format!("{:.0}", median(&|s| Some(s.tri_tests as f64))),
            );
            row(
                "fixed cost T_0",
                opt(f.t0_ns, "ns"),
                opt(
                    t.frames
                        .iter()
                        .any(|s| s.t0_ns.is_some())
                        .then(|| median(&|s| s.t0_ns)),
                    "ns",
                ),
            );
            row(
                "C_v per box test",
                opt(f.c_v_ns, "ns"),
                opt(
                    t.frames
                        .iter()
                        .any(|s| s.c_v_ns.is_some())
                        .then(|| median(&|s| s.c_v_ns)),
                    "ns",
                ),
            );
            row(
                "C_p per tri test",
                opt(f.c_p_ns, "ns"),
                opt(
                    t.frames
                        .iter()
                        .any(|s| s.c_p_ns.is_some())
                        .then(|| median(&|s| s.c_p_ns)),
                    "ns",
                ),
            );
            row(
                "contacts",
                f.contacts.to_string(),
                format!("{:.0}", median(&|s| Some(s.contacts as f64))),
            );
        });
}

/// The frame's stages beside the query, the CPU per frame and the frame time.
fn stages_grid(ui: &mut egui::Ui, t: &Timings, f: &FrameSample) {
    egui::Grid::new("stages").num_columns(2).show(ui, |ui| {
        let mut row = |k: &str, v: String| {
            ui.label(k);
            ui.monospace(v);
            ui.end_row();
        };
        row(
            "highlight · curves · overlay",
            format!(
                "{:.0} · {:.0} · {:.0} µs",
                f.us(Stage::Highlight),
                f.us(Stage::Curves),
                f.us(Stage::Overlay)
            ),
        );
        if f.us(Stage::Refit) > 0.0 {
            row("refit", format!("{:.0} µs", f.us(Stage::Refit)));
        }
        let (med, p95) = t.percentiles(FrameSample::contact_cpu_us);
        row(
            "query+highlight+curves+overlay",
            format!("{med:.0} / {p95:.0} µs"),
        );
        row(
            "frame",
            format!(
                "{:.1} ms ({:.1} FPS)",
                f.frame_ms,
                1000.0 / f.frame_ms.max(1e-3)
            ),
        );
    });
}

/// The plots of the query time, the test counts and the frame time over the last frames.
fn metrics_plots(ui: &mut egui::Ui, t: &Timings) {
    plot(
        ui,
        "plot_query",
        &[("query µs", t.series(FrameSample::query_us))],
    );
    plot(
        ui,
        "plot_counts",
        &[
            ("N_v box tests", t.series(|s| s.bv_tests as f64)),
            ("N_p tri tests", t.series(|s| s.tri_tests as f64)),
        ],
    );
    plot(ui, "plot_frame", &[("frame ms", t.series(|s| s.frame_ms))]);
}

fn plot(ui: &mut egui::Ui, id: &str, lines: &[(&str, Vec<[f64; 2]>)]) {
    egui_plot::Plot::new(id)
        .height(64.0)
        .legend(egui_plot::Legend::default().position(egui_plot::Corner::LeftTop))
        .include_y(0.0)
        .show_x(false)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        .y_axis_min_width(36.0)
        .show(ui, |plot| {
            for (name, points) in lines {
                plot.line(egui_plot::Line::new(*name, points.clone()));
            }
        });
}

fn hierarchies_section(ui: &mut egui::Ui, p: &mut Panel) {
    let Some(s) = &p.scene else {
        return;
    };
    let split = s.env.trees.split;
    ui.horizontal(|ui| {
        ui.label("Split rule");
        let mut chosen = split;
        egui::ComboBox::from_id_salt("split")
            .selected_text(split_name(split))
            .show_ui(ui, |ui| {
                for r in [
                    SplitRule::Binned,
                    SplitRule::MeanBestAxis,
                    SplitRule::Mean,
                    SplitRule::Median,
                    SplitRule::BoxMidpoint,
                ] {
                    ui.selectable_value(&mut chosen, r, split_name(r));
                }
            });
        if chosen != split && p.status.rebuilding.is_none() {
            p.rebuild.write(RebuildTrees(chosen));
        }
        if let Some(r) = p.status.rebuilding {
            ui.spinner();
            ui.small(format!("building ({})…", split_name(r)));
        }
    });
    // Query cost per tree: the side-by-side rows if running, else the frame's query for its tree.
    let cost = |k: BvKind| -> String {
        if let Some(r) = p.comparison.rows.iter().find(|r| r.kind == k) {
            format!("{:.0} µs", r.micros)
        } else if p.last.bv == Some(k) {
            format!("{:.0} µs", p.last.micros)
        } else {
            "–".into()
        }
    };
    egui::Grid::new("trees")
        .num_columns(5)
        .striped(true)
        .show(ui, |ui| {
            for h in ["tree", "ready in", "KiB", "depth", "query"] {
                ui.strong(h);
            }
            ui.end_row();
            for k in KINDS {
                for (who, b) in [("env", &s.env), ("obj", &s.obj)] {
                    let st = b.trees.stats[k as usize];
                    ui.label(format!("{} {who}", k.name().to_uppercase()));
                    let how = match st.origin {
                        TreeOrigin::Built => "built",
                        TreeOrigin::Loaded => "loaded",
                    };
                    ui.monospace(format!("{:.0} ms {how}", st.build_ms));
                    ui.monospace(format!("{:.0}", st.memory as f64 / 1024.0));
                    ui.monospace(st.depth.to_string());
                    ui.monospace(if who == "env" { cost(k) } else { String::new() });
                    ui.end_row();
                }
            }
        });
    ui.small(
        "Ready in: built, or loaded from the tree cache (a scene's second start builds nothing). \
         Query cost: the side-by-side comparison's (C), else this frame's query.",
    );
}

fn split_name(r: SplitRule) -> &'static str {
    match r {
        SplitRule::Binned => "binned cost",
        SplitRule::MeanBestAxis => "mean, best axis",
        SplitRule::Mean => "mean (RAPID)",
        SplitRule::Median => "median",
        SplitRule::BoxMidpoint => "box midpoint (van den Bergen)",
    }
}

fn help_window(mut contexts: EguiContexts, mut help: ResMut<HelpVisible>) -> Result {
    if !help.0 {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let mut open = true;
    egui::Window::new("Keys and mouse")
        .open(&mut open)
        .anchor(egui::Align2::RIGHT_TOP, egui::vec2(-10.0, 10.0))
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("help").num_columns(2).show(ui, |ui| {
                for (k, v) in [
                    ("1 / 2 / 3", "pipes, torus, torpedo scene"),
                    ("P / Space", "pause or play"),
                    ("O", "single step (path step or time step)"),
                    ("R", "restart the path / reset the simulation"),
                    ("M", "simulate mode on or off"),
                    ("F", "frame the moving object"),
                    ("C", "OBB, AABB and sphere side by side"),
                    ("H / F1", "this help"),
                    (
                        "left-drag on a body",
                        "move it (in simulate mode: throw it)",
                    ),
                    ("right-drag, shift+left-drag", "rotate the body"),
                    ("drag on empty space, middle-drag", "orbit the camera"),
                    ("wheel over the view", "zoom"),
                    ("drop two OBJ files", "load them as A and B"),
                ] {
                    ui.strong(k);
                    ui.label(v);
                    ui.end_row();
                }
            });
        });
    if !open {
        help.0 = false;
    }
    Ok(())
}

/// "Your own models": two OBJ paths natively (or files dropped on the window); in a browser,
/// which has no paths, the page's file picker.
#[cfg(not(target_arch = "wasm32"))]
fn own_models(ui: &mut egui::Ui, p: &mut Panel) {
    ui.horizontal(|ui| {
        ui.label("A");
        ui.text_edit_singleline(&mut p.own.a);
    });
    ui.horizontal(|ui| {
        ui.label("B");
        ui.text_edit_singleline(&mut p.own.b);
    });
    if ui.button("Load A + B").clicked() {
        p.load.write(LoadScene(SceneChoice::Files(
            p.own.a.trim().into(),
            p.own.b.trim().into(),
        )));
    }
    ui.label("…or drop two OBJ files on the window.");
    if let Some(f) = p.dropped.0.first() {
        ui.label(format!("Dropped {}; drop a second file.", f.display()));
    }
}

/// "Your own models" in a browser: the page's file picker (one file: used for both bodies).
#[cfg(target_arch = "wasm32")]
fn own_models(ui: &mut egui::Ui, p: &mut Panel) {
    if ui.button("Choose one or two OBJ files…").clicked()
        && let Err(e) = super::files::web::open_picker()
    {
        p.status.error = Some(format!("file picker: {e}"));
    }
    ui.label("…or drop one or two OBJ files on the page.");
    ui.small("The first file is the environment, the second the moving object.");
}

/// One cell of the side-by-side table: a row's value as text.
type RowCell<'a> = dyn Fn(&super::compare::CompareRow) -> String + 'a;
/// A cell of the side-by-side table's distance rows.
type DistanceCell<'a> = dyn Fn(&super::compare::CompareDistance) -> String + 'a;
