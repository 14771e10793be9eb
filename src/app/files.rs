//! Where the app's files come from: the file system natively; in a browser, which has none, the
//! served `assets/` folder over HTTP (`fetch`) and the user's own models through the page's
//! file picker. The one seam between the viewer and the platform's storage: [`load_paper`]
//! and [`ObjUpload`] are the same on both, only the reading differs.

use crate::scenes::{Scene, SceneError, SceneId};
use std::path::Path;
use std::sync::Arc;

/// An OBJ file the user picked in the browser, its bytes in memory.
#[derive(Clone, PartialEq, Eq)]
pub struct ObjUpload {
    /// The file's name (errors and the UI name it).
    pub name: String,
    /// Its bytes.
    pub bytes: Arc<[u8]>,
}

impl std::fmt::Debug for ObjUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} bytes)", self.name, self.bytes.len())
    }
}

/// Loads one of the paper's scenes from the assets folder `assets`: natively with
/// [`crate::scenes::load_scene`]; in a browser the manifest and then the scene's files are
/// fetched relative to the page, and parsed by the same code ([`crate::scenes::load_scene_from`]).
///
/// # Errors
/// The scene's typed errors; a failed fetch is a [`SceneError::Io`] naming the URL and the
/// HTTP status.
pub async fn load_paper(assets: &Path, id: SceneId) -> Result<Scene, SceneError> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        crate::scenes::load_scene(assets, id)
    }
    #[cfg(target_arch = "wasm32")]
    {
        use crate::scenes::{MANIFEST, load_scene_from, parse_manifest, scene_files};
        use std::collections::HashMap;
        use std::path::PathBuf;
        let manifest_path = assets.join(MANIFEST);
        let manifest_bytes = web::fetch(&manifest_path).await?;
        let manifest = parse_manifest(&manifest_bytes, &manifest_path)?;
        let mut files: HashMap<PathBuf, Vec<u8>> = HashMap::new();
        files.insert(manifest_path.clone(), manifest_bytes);
        for name in scene_files(&manifest, &manifest_path, id)? {
            let path = assets.join(&name);
            let bytes = web::fetch(&path).await?;
            files.insert(path, bytes);
        }
        load_scene_from(assets, id, &mut |path: &Path| {
            files.remove(path).ok_or_else(|| SceneError::Io {
                path: path.into(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "not fetched"),
            })
        })
    }
}

/// The browser's side: `fetch` and the file picker.
#[cfg(target_arch = "wasm32")]
pub mod web {
    use super::ObjUpload;
    use crate::scenes::SceneError;
    use std::cell::RefCell;
    use std::path::Path;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;

    fn io(path: &Path, message: String) -> SceneError {
        SceneError::Io {
            path: path.into(),
            source: std::io::Error::other(message),
        }
    }

    fn js_message(value: &JsValue) -> String {
        value
            .as_string()
            .or_else(|| {
                value
                    .dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
            })
            .unwrap_or_else(|| format!("{value:?}"))
    }

    /// Fetches `path` relative to the page; a network error or an HTTP status other than 2xx
    /// is an error naming the URL.
    pub async fn fetch(path: &Path) -> Result<Vec<u8>, SceneError> {
        let url = path.to_string_lossy().into_owned();
        let window = web_sys::window().ok_or_else(|| io(path, "no window".into()))?;
        let response = JsFuture::from(window.fetch_with_str(&url))
            .await
            .map_err(|e| io(path, format!("fetch failed: {}", js_message(&e))))?;
        let response: web_sys::Response = response
            .dyn_into()
            .map_err(|e| io(path, format!("not a response: {}", js_message(&e))))?;
        if !response.ok() {
            return Err(io(
                path,
                format!("HTTP {} {}", response.status(), response.status_text()),
            ));
        }
        let buffer = response
            .array_buffer()
            .map_err(|e| io(path, js_message(&e)))?;
        let buffer = JsFuture::from(buffer)
            .await
            .map_err(|e| io(path, format!("reading the body: {}", js_message(&e))))?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
    }

    thread_local! {
        /// What the file picker delivered and the app has not taken yet (the browser has one
        /// thread; the picker's callback runs between frames).
        static PICKED: RefCell<Option<Result<Vec<ObjUpload>, String>>> = const { RefCell::new(None) };
    }

    /// Opens the browser's file picker for OBJ files (call it from a click: browsers open
    /// pickers only on a user gesture). The files arrive later: [`take_picked`].
    pub fn open_picker() -> Result<(), String> {
        let document = web_sys::window()
            .and_then(|w| w.document())
            .ok_or("no document")?;
        let input: web_sys::HtmlInputElement = document
            .create_element("input")
            .map_err(|e| js_message(&e))?
            .dyn_into()
            .map_err(|_| "not an input element")?;
        input.set_type("file");
        input.set_multiple(true);
        input.set_accept(".obj");
        let target = input.clone();
        let on_change = Closure::once(move || {
            wasm_bindgen_futures::spawn_local(async move {
                let result = read_files(&target).await;
                PICKED.with(|p| *p.borrow_mut() = Some(result));
            });
        });
        input.set_onchange(Some(on_change.as_ref().unchecked_ref()));
        // The input lives until its change event; the closure with it.
        on_change.forget();
        input.click();
        Ok(())
    }

    /// Makes OBJ files dropped anywhere on the page arrive as the picker's do
    /// ([`take_picked`]): the page's `dragover` and `drop` events (their default, opening the
    /// file in the tab, prevented). Call once.
    pub fn listen_for_drops() -> Result<(), String> {
        let document = web_sys::window()
            .and_then(|w| w.document())
            .ok_or("no document")?;
        let on_drag_over =
            Closure::<dyn FnMut(web_sys::DragEvent)>::new(|e: web_sys::DragEvent| {
                e.prevent_default();
            });
        let on_drop = Closure::<dyn FnMut(web_sys::DragEvent)>::new(|e: web_sys::DragEvent| {
            e.prevent_default();
            let Some(list) = e.data_transfer().and_then(|d| d.files()) else {
                return;
            };
            if list.length() == 0 {
                return;
            }
            wasm_bindgen_futures::spawn_local(async move {
                let result = read_list(&list).await;
                PICKED.with(|p| *p.borrow_mut() = Some(result));
            });
        });
        for (event, handler) in [("dragover", &on_drag_over), ("drop", &on_drop)] {
            document
                .add_event_listener_with_callback(event, handler.as_ref().unchecked_ref())
                .map_err(|e| js_message(&e))?;
        }
        // The page's listeners live as long as the page.
        on_drag_over.forget();
        on_drop.forget();
        Ok(())
    }

    async fn read_files(input: &web_sys::HtmlInputElement) -> Result<Vec<ObjUpload>, String> {
        read_list(&input.files().ok_or("no files")?).await
    }

    async fn read_list(list: &web_sys::FileList) -> Result<Vec<ObjUpload>, String> {
        let mut out = Vec::new();
        for i in 0..list.length() {
            let Some(file) = list.get(i) else { continue };
            let buffer = JsFuture::from(file.array_buffer())
                .await
                .map_err(|e| format!("{}: {}", file.name(), js_message(&e)))?;
            out.push(ObjUpload {
                name: file.name(),
                bytes: js_sys::Uint8Array::new(&buffer).to_vec().into(),
            });
        }
        Ok(out)
    }

    /// The files the picker delivered, or the page was given by a drop, since the last call.
    pub fn take_picked() -> Option<Result<Vec<ObjUpload>, String>> {
        PICKED.with(|p| p.borrow_mut().take())
    }
}
