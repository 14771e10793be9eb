//! The egui side panel (scene picker, playback, query and drawing toggles, metrics with a
//! rolling plot) and the help overlay.

use super::input::{DroppedFiles, HelpVisible};
use super::motion::{Playback, PlaybackCommand, RefitTiming};
use super::query::{LastQuery, QuerySettings, SeparationCache, Timings};
use super::render::{OverlayBoxes, OverlaySettings};
use super::{BodyId, CollisionScene, LoadScene, SceneChoice, SceneStatus};
use crate::bv::BvKind;
use crate::query::{ContactMode, SeparationPolicy};
use crate::scenes::SceneId;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

/// Text fields of the "your own models" form.
#[derive(Resource, Default)]
struct OwnModels {
    a: String,
    b: String,
}

pub(super) struct UiPlugin;

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OwnModels>()
            .add_systems(EguiPrimaryContextPass, (side_panel, help_window));
    }
}

/// The panel's width in logical pixels.
const PANEL_WIDTH: f32 = 330.0;

#[allow(clippy::too_many_arguments)]
fn side_panel(
    mut contexts: EguiContexts,
    scene: Option<Res<CollisionScene>>,
    mut status: ResMut<SceneStatus>,
    mut query: ResMut<QuerySettings>,
    mut overlay: ResMut<OverlaySettings>,
    boxes: Res<OverlayBoxes>,
    mut playback: ResMut<Playback>,
    mut commands: MessageWriter<PlaybackCommand>,
    mut load: MessageWriter<LoadScene>,
    (timings, last, refit, dropped, separation): (
        Res<Timings>,
        Res<LastQuery>,
        Res<RefitTiming>,
        Res<DroppedFiles>,
        Res<SeparationCache>,
    ),
    mut own: ResMut<OwnModels>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = egui::Ui::new(
        ctx.clone(),
        "obbtree_root".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    egui::Panel::left("obbtree_panel")
        .exact_size(PANEL_WIDTH)
        .show(&mut root, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                ui.heading("obbtree");
                ui.label("OBBTree interference detection (Gottschalk, Lin, Manocha 1996)");
                ui.separator();

                // Scene picker.
                ui.strong("Scene");
                let current = status.current.clone();
                for choice in [
                    SceneChoice::Paper(SceneId::Pipes),
                    SceneChoice::Paper(SceneId::Torus),
                    SceneChoice::Paper(SceneId::Torpedo),
                    SceneChoice::Wobble,
                ] {
                    let selected = current.as_ref() == Some(&choice);
                    if ui.selectable_label(selected, choice.label()).clicked() && !selected {
                        load.write(LoadScene(choice));
                    }
                }
                ui.collapsing("Your own models (OBJ)", |ui| {
                    ui.horizontal(|ui| {
                        ui.label("A");
                        ui.text_edit_singleline(&mut own.a);
                    });
                    ui.horizontal(|ui| {
                        ui.label("B");
                        ui.text_edit_singleline(&mut own.b);
                    });
                    if ui.button("Load A + B").clicked() {
                        load.write(LoadScene(SceneChoice::Files(
                            own.a.trim().into(),
                            own.b.trim().into(),
                        )));
                    }
                    ui.label("…or drop two OBJ files on the window.");
                    if let Some(p) = dropped.0.first() {
                        ui.label(format!("Dropped {}; drop a second file.", p.display()));
                    }
                });
                if let Some(what) = &status.loading {
                    let secs = status.started.map_or(0.0, |t| t.elapsed().as_secs_f32());
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label(format!(
                            "Loading {what}: building OBB, AABB and sphere trees… {secs:.1} s"
                        ));
                    });
                }
                if let Some(err) = status.error.clone() {
                    ui.colored_label(
                        egui::Color32::from_rgb(255, 110, 110),
                        format!("Error: {err}"),
                    );
                    if ui.small_button("Dismiss").clicked() {
                        status.error = None;
                    }
                }
                ui.separator();

                // Playback.
                ui.strong("Motion");
                let has_path = scene.as_ref().is_some_and(|s| !s.path.is_empty());
                ui.horizontal(|ui| {
                    let label = if playback.playing {
                        "Pause (P)"
                    } else {
                        "Play (P)"
                    };
                    if ui.add_enabled(has_path, egui::Button::new(label)).clicked() {
                        commands.write(PlaybackCommand::TogglePause);
                    }
                    if ui
                        .add_enabled(has_path, egui::Button::new("Step (O)"))
                        .clicked()
                    {
                        commands.write(PlaybackCommand::SingleStep);
                    }
                    if ui.button("Restart (R)").clicked() {
                        commands.write(PlaybackCommand::Restart);
                    }
                });
                ui.add_enabled(
                    has_path,
                    egui::Slider::new(&mut playback.speed, 0.1..=8.0).text("steps per frame"),
                );
                ui.add_enabled(
                    has_path,
                    egui::Checkbox::new(&mut playback.follow_path, "Follow the recorded path"),
                );
                if let Some(s) = &scene {
                    if has_path {
                        ui.label(format!("Step {} of {}", playback.step + 1, s.path.len()));
                    } else {
                        ui.label("No recorded path: drag the object.");
                    }
                }
                ui.separator();

                // Query.
                ui.strong("Query");
                ui.horizontal(|ui| {
                    ui.radio_value(&mut query.bv, BvKind::Obb, "OBB");
                    ui.radio_value(&mut query.bv, BvKind::Aabb, "AABB");
                    ui.radio_value(&mut query.bv, BvKind::Sphere, "Sphere");
                });
                ui.horizontal(|ui| {
                    ui.radio_value(&mut query.mode, ContactMode::AllContacts, "All contacts");
                    ui.radio_value(&mut query.mode, ContactMode::FirstContact, "First contact");
                });
                ui.horizontal(|ui| {
                    ui.label("Start from")
                        .on_hover_text("Li & Chen §4: reuse the last frame's separation list");
                    egui::ComboBox::from_id_salt("separation")
                        .selected_text(match query.separation {
                            None => "the root pair",
                            Some(SeparationPolicy::TopDown) => "the root pair (recorded)",
                            Some(SeparationPolicy::Predicted) => "separation list (Fig. 4a)",
                            Some(SeparationPolicy::Deferred) => "separation list (Fig. 4b)",
                        })
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut query.separation, None, "the root pair");
                            ui.selectable_value(
                                &mut query.separation,
                                Some(SeparationPolicy::Predicted),
                                "separation list (Fig. 4a)",
                            );
                            ui.selectable_value(
                                &mut query.separation,
                                Some(SeparationPolicy::Deferred),
                                "separation list (Fig. 4b)",
                            );
                        });
                });
                ui.separator();

                // Drawing.
                ui.strong("Drawing");
                ui.checkbox(&mut overlay.contacts, "Highlight contacting triangles");
                ui.checkbox(&mut overlay.show, "Show hierarchy level");
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
                    if let Some(s) = &scene {
                        let depth = s.body(overlay.body).depth(overlay.tree);
                        ui.add(egui::Slider::new(&mut overlay.level, 0..=depth).text("level"));
                    }
                    ui.checkbox(
                        &mut overlay.only_overlapped,
                        "Only volumes the query found overlapping",
                    );
                    if overlay.only_overlapped && overlay.tree != query.bv {
                        ui.label("(the query uses another tree type: showing all)");
                    }
                    let mut text = format!(
                        "Level {}: {} volumes, {} drawn",
                        boxes.level,
                        boxes.at_level,
                        boxes.boxes.len()
                    );
                    if boxes.capped {
                        text +=
                            &format!(" (capped at {} of {})", overlay.max_boxes, boxes.eligible);
                    }
                    ui.label(text);
                });
                ui.separator();

                // Metrics.
                ui.strong("This frame");
                if let Some(f) = timings.last() {
                    egui::Grid::new("metrics").num_columns(2).show(ui, |ui| {
                        let mut row = |k: &str, v: String| {
                            ui.label(k);
                            ui.monospace(v);
                            ui.end_row();
                        };
                        row(
                            "query",
                            format!(
                                "{:.1} µs ({})",
                                f.query_us,
                                last.bv.map_or("", |k| k.name())
                            ),
                        );
                        row("box tests N_v", f.bv_tests.to_string());
                        if query.separation.is_some() && !last.traced {
                            let l = &separation.list;
                            row(
                                "separation list",
                                format!(
                                    "{} pairs, {} of {} queries rebuilt",
                                    l.len(),
                                    l.rebuilds(),
                                    l.queries()
                                ),
                            );
                        }
                        row("tri tests N_p", f.tri_tests.to_string());
                        row("contacts", f.contacts.to_string());
                        if let Some(k) = refit.kind {
                            row("refit", format!("{:.1} µs ({} tree)", f.refit_us, k.name()));
                        }
                        row("highlight", format!("{:.1} µs", f.highlight_us));
                        row("overlay", format!("{:.1} µs", f.overlay_us));
                        row(
                            "frame",
                            format!(
                                "{:.2} ms ({:.0} FPS)",
                                f.frame_ms,
                                1000.0 / f.frame_ms.max(1e-3)
                            ),
                        );
                        let (med, p95) = timings.percentiles(|s| {
                            s.query_us + s.highlight_us + s.overlay_us + s.refit_us
                        });
                        row(
                            "CPU per frame",
                            format!("median {med:.0} µs, p95 {p95:.0} µs"),
                        );
                    });
                }
                let series = |f: &dyn Fn(&super::FrameSample) -> f64| -> Vec<[f64; 2]> {
                    let start = timings.total.saturating_sub(timings.frames.len() as u64);
                    timings
                        .frames
                        .iter()
                        .enumerate()
                        .map(|(i, s)| [(start + i as u64) as f64, f(s)])
                        .collect()
                };
                egui_plot::Plot::new("timings_plot")
                    .height(140.0)
                    .legend(egui_plot::Legend::default())
                    .include_y(0.0)
                    .allow_drag(false)
                    .allow_zoom(false)
                    .allow_scroll(false)
                    .show(ui, |plot| {
                        plot.line(egui_plot::Line::new("query µs", series(&|s| s.query_us)));
                        plot.line(egui_plot::Line::new(
                            "frame ms × 100",
                            series(&|s| s.frame_ms * 100.0),
                        ));
                    });
                if let Some(s) = &scene {
                    ui.separator();
                    ui.strong("Hierarchies");
                    egui::Grid::new("trees").num_columns(4).show(ui, |ui| {
                        ui.label("");
                        ui.label("triangles");
                        ui.label("build ms (OBB/AABB/sph)");
                        ui.label("KiB (OBB)");
                        ui.end_row();
                        for (name, b) in [("environment", &s.env), ("object", &s.obj)] {
                            ui.label(name);
                            ui.monospace(b.mesh.triangle_count().to_string());
                            ui.monospace(format!(
                                "{:.0}/{:.0}/{:.0}",
                                b.build_ms[0], b.build_ms[1], b.build_ms[2]
                            ));
                            ui.monospace(format!("{:.0}", b.memory(BvKind::Obb) as f64 / 1024.0));
                            ui.end_row();
                        }
                    });
                }
                ui.separator();
                ui.label("H: help");
            });
        });

    Ok(())
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
                    ("P / Space", "pause or play the path"),
                    ("O", "single step"),
                    ("R", "restart the path"),
                    ("H / F1", "this help"),
                    ("left-drag on a body", "move it in the camera plane"),
                    ("right-drag, shift+left-drag", "rotate the body"),
                    ("drag on empty space, middle-drag", "orbit the camera"),
                    ("wheel", "zoom"),
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
