//! `parse_obj` on arbitrary bytes: it never panics (an error is a fine answer), and a mesh it
//! returns keeps `TriMesh`'s invariants: at least one triangle, every index in range, every
//! coordinate finite and within `MAX_COORDINATE`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use obbtree::mesh::{MAX_COORDINATE, parse_obj};
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let Ok(mesh) = parse_obj(bytes, Path::new("fuzz.obj")) else {
        return;
    };
    let n = mesh.vertices().len();
    assert!(mesh.triangle_count() > 0);
    assert!(mesh.triangles().iter().flatten().all(|&i| (i as usize) < n));
    assert!(
        mesh.vertices()
            .iter()
            .flat_map(|v| v.iter())
            .all(|c| c.is_finite() && c.abs() <= MAX_COORDINATE)
    );
    // Every triangle can be read (no out-of-range panic).
    for t in 0..mesh.triangle_count() {
        let _ = mesh.triangle(t);
    }
});
