//! `parse_pose_bytes` on arbitrary bytes never panics (an error is a fine answer). The poses it
//! returns are what `pose.rs` promises: at least one, unit rotations (to rounding), finite
//! translations, line numbers increasing from 1. On valid UTF-8, `parse_poses` gives the same
//! answer as `parse_pose_bytes`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use obbtree::pose::{Pose, parse_pose_bytes, parse_poses};
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let path = Path::new("fuzz.poses");
    let result = parse_pose_bytes(bytes.to_vec(), path);
    if let Ok(text) = std::str::from_utf8(bytes) {
        let again = parse_poses(text, path);
        match (&result, &again) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            _ => panic!("parse_pose_bytes {result:?} but parse_poses {again:?}"),
        }
    }
    let Ok(poses) = result else {
        return;
    };
    assert!(!poses.is_empty());
    let mut last = 0;
    for &Pose { pose_ab, line } in &poses {
        assert!(
            line > last,
            "line numbers must increase: {line} after {last}"
        );
        last = line;
        let q = pose_ab.rotation.quaternion();
        assert!(
            (q.norm() - 1.0).abs() <= 1e-12,
            "not a unit quaternion: {q:?}"
        );
        assert!(q.coords.iter().all(|c| c.is_finite()));
        assert!(pose_ab.translation.vector.iter().all(|c| c.is_finite()));
    }
});
