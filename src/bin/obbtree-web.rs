//! The viewer in a web browser: built for `wasm32-unknown-unknown` by `assets/web/build.sh`, it reads
//! its options from the page's URL and runs the same app as `obbtree view`.
//!
//! URL parameters: `scene` (pipes, torus, torpedo, wobble; default torus), `step` (the path
//! step to start at), `level` (show this level of the object's OBB tree), `play=0` (start
//! paused), `compare=1` (the three trees side by side), `tolerance=T` (light the triangle pairs
//! within T). Unknown parameters and bad values are ignored.

#[cfg(target_arch = "wasm32")]
fn main() {
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    obbtree::app::run(options(&query));
}

/// The viewer's options from the page URL's query string.
#[cfg(target_arch = "wasm32")]
fn options(query: &str) -> obbtree::app::ViewOptions {
    use obbtree::app::{SceneChoice, ViewOptions};
    use obbtree::scenes::SceneId;
    let mut options = ViewOptions {
        assets: "assets".into(),
        scene: Some(SceneChoice::Paper(SceneId::Torus)),
        ..ViewOptions::default()
    };
    for pair in query.trim_start_matches('?').split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "scene" if value == "wobble" => options.scene = Some(SceneChoice::Wobble),
            "scene" => {
                if let Some(id) = SceneId::from_name(value) {
                    options.scene = Some(SceneChoice::Paper(id));
                }
            }
            "step" => options.start_step = value.parse().unwrap_or(0),
            "level" => options.overlay_level = value.parse().ok(),
            "play" => options.paused = value == "0",
            "compare" => options.compare = value == "1",
            "tolerance" => {
                options.tolerance = value
                    .parse()
                    .ok()
                    .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            }
            _ => {}
        }
    }
    options
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("obbtree-web is the browser entry point: build it with assets/web/build.sh");
    std::process::exit(2);
}
