//! Checks of a viewer screenshot shared by the native render test and the browser test: the
//! layout (not blank, the panel with text, a 3D view that is not empty), the contact colours,
//! and the library's own contacts at a scene's step (the oracle the reported count must equal).

use obbtree::bvh::{BuildOptions, ObbTree};
use obbtree::math::Isometry;
use obbtree::query::{CollisionReport, QueryOptions, collide};
use obbtree::scenes::{self, Scene, SceneId};
use std::path::Path;

/// Asserts the viewer's layout on a screenshot of at least 1000×600: many colours (not
/// blank); the left strip egui's neutral grey with light text on it (the panel); the area right
/// of it mostly not that grey (the 3D view draws something).
pub fn check_layout(id: SceneId, img: &image::RgbImage) {
    let (w, h) = img.dimensions();
    assert!(w >= 1000 && h >= 600, "{w}×{h}");
    let colours: std::collections::HashSet<[u8; 3]> = img.pixels().map(|p| p.0).collect();
    assert!(colours.len() > 200, "{id}: only {} colours", colours.len());
    let neutral = |x: u32, y: u32| {
        let [r, g, b] = img.get_pixel(x, y).0;
        (r.abs_diff(g) < 4 && g.abs_diff(b) < 4, r > 150)
    };
    let (mut grey, mut text, mut total) = (0u32, 0u32, 0u32);
    for y in 10..h - 10 {
        for x in 5..300 {
            let (is_grey, light) = neutral(x, y);
            total += 1;
            grey += u32::from(is_grey);
            text += u32::from(is_grey && light);
        }
    }
    assert!(
        grey as f64 > 0.8 * total as f64,
        "{id}: panel not found ({grey}/{total} grey)"
    );
    assert!(
        text > 300,
        "{id}: no text on the panel ({text} light pixels)"
    );
    let (mut grey_view, mut view) = (0u32, 0u32);
    for y in 10..h - 10 {
        for x in 420..w - 10 {
            view += 1;
            grey_view += u32::from(neutral(x, y).0);
        }
    }
    assert!(
        (grey_view as f64) < 0.5 * view as f64,
        "{id}: the 3D view looks empty"
    );
}

/// Whether a pixel has the contact highlight's colour (unlit, untonemapped sRGB (255, 20, 20)).
pub fn is_highlight(p: &image::Rgb<u8>) -> bool {
    p.0[0] >= 235 && p.0[1] <= 45 && p.0[2] <= 45
}

/// Whether a pixel has the intersection curve's colour (sRGB (0, 255, 90), drawn over
/// everything).
pub fn is_curve(p: &image::Rgb<u8>) -> bool {
    p.0[0] <= 40 && p.0[1] >= 215 && (60..=120).contains(&p.0[2])
}

/// Whether a pixel has the closest-point segment's colour (unlit white over everything).
pub fn is_segment(p: &image::Rgb<u8>) -> bool {
    p.0.iter().all(|&c| c >= 245)
}

/// Whether a pixel has the fill of triangles within the tolerance (unlit sRGB (40, 90, 255)).
pub fn is_tolerance(p: &image::Rgb<u8>) -> bool {
    p.0[0] <= 70 && (70..=115).contains(&p.0[1]) && p.0[2] >= 235
}

/// A paper scene from `assets`, its OBB trees and the library's all-contacts query at `step`
/// of its path: what the viewer must report there.
pub struct Truth {
    pub scene: Scene,
    pub env: ObbTree,
    pub obj: ObbTree,
    pub report: CollisionReport,
}

pub fn truth_at(assets: &Path, id: SceneId, step: usize) -> Truth {
    let scene = scenes::load_scene(assets, id).unwrap();
    let env = ObbTree::build(scene.environment.clone(), &BuildOptions::default());
    let obj = ObbTree::build(scene.object.clone(), &BuildOptions::default());
    let report = collide(
        &env,
        &Isometry::identity(),
        &obj,
        &scene.path[step].pose_ab,
        &QueryOptions::default(),
    );
    Truth {
        scene,
        env,
        obj,
        report,
    }
}
