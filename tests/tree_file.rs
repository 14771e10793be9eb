//! Saved trees (`bvh::tree_file`, `bvh::TreeCache`): a loaded tree is the built one, bit for
//! bit, and answers the same; a truncated, damaged, wrong-version, wrong-mesh or wrong-kind file
//! is refused with the error that says which, at every length and every byte.
#![cfg(feature = "persist")]

mod common;
use common::*;
use obbtree::bvh::tree_file::{self, FORMAT_VERSION, MAGIC};
use obbtree::bvh::{BvhError, Persistent, TreeCache, TreeFileError, TreeOrigin, mesh_hash};
use obbtree::pose::read_poses;
use obbtree::prelude::*;
use std::sync::Arc;

/// The loaded tree has the built one's nodes (volumes to the bit, links), leaves, depth,
/// frame and measures, passes `validate`, and gives the same reports on 100 poses.
fn round_trip<B: Persistent + PartialEq>(mesh: &Arc<TriMesh>, options: &BuildOptions) {
    let built = Bvh::<B>::build(mesh.clone(), options);
    let bytes = built.to_bytes();
    let loaded = Bvh::<B>::from_bytes(mesh.clone(), &bytes).unwrap();
    loaded.validate().unwrap();
    assert_eq!(loaded.nodes().len(), built.nodes().len());
    for (i, (l, b)) in loaded.nodes().iter().zip(built.nodes()).enumerate() {
        assert!(l.bv == b.bv, "{:?} node {i}: volume differs", B::KIND);
        assert_eq!(l.children(), b.children(), "node {i}");
        assert_eq!(loaded.leaf_triangle(i), built.leaf_triangle(i), "node {i}");
    }
    assert_eq!(loaded.depth(), built.depth());
    assert_eq!(loaded.origin(), built.origin());
    assert_eq!(loaded.reach(), built.reach());
    assert_eq!(loaded.radius(), built.radius());
    assert_eq!(loaded.center_reach(), built.center_reach());
    assert_eq!(loaded.memory_bytes(), built.memory_bytes());
    assert_eq!(loaded.build_options().split, options.split);
    assert_eq!(loaded.build_options().fit, options.fit);
    // Saving the loaded tree gives the same bytes.
    assert_eq!(loaded.to_bytes(), bytes);
    let poses = read_poses(data("bunny_random.txt")).unwrap();
    let options = QueryOptions::default();
    let mut contacts = 0;
    for pose in poses.iter().take(100) {
        let id = Isometry::identity();
        let a = collide(&built, &id, &built, &pose.pose_ab, &options);
        let b = collide(&loaded, &id, &loaded, &pose.pose_ab, &options);
        assert_eq!(a.contacts, b.contacts);
        assert_eq!((a.bv_tests, a.tri_tests), (b.bv_tests, b.tri_tests));
        contacts += a.contacts.len();
    }
    // The poses are the bunny's own random poses: many of them touch.
    assert!(contacts >= 100, "{contacts} contacts in 100 poses");
}

#[test]
fn a_loaded_tree_is_the_built_tree_for_every_volume_and_fit() {
    let mesh = Arc::new(load("bunny-500.obj"));
    for options in [
        BuildOptions::default(),
        BuildOptions::rapid(),
        BuildOptions::paper(),
        BuildOptions::van_den_bergen(),
    ] {
        round_trip::<Obb>(&mesh, &options);
        round_trip::<Aabb>(&mesh, &options);
        round_trip::<Sphere>(&mesh, &options);
    }
}

/// A tetrahedron's OBB tree file: small enough to cut at every length and damage at every byte.
fn small() -> (Arc<TriMesh>, Vec<u8>) {
    let mesh = Arc::new(
        TriMesh::new(
            vec![
                Point::new(0.1, 0.2, 0.3),
                Point::new(1.7, -0.4, 0.25),
                Point::new(0.3, 1.9, -0.6),
                Point::new(-0.2, 0.35, 1.45),
            ],
            vec![[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]],
            "tetrahedron",
        )
        .unwrap(),
    );
    let bytes = Bvh::<Obb>::build(mesh.clone(), &BuildOptions::default()).to_bytes();
    (mesh, bytes)
}

#[test]
fn a_file_cut_at_any_length_is_truncated() {
    let (mesh, bytes) = small();
    assert!(bytes.len() > 56 + 7 * 60, "{} bytes", bytes.len());
    for len in 0..bytes.len() {
        match Bvh::<Obb>::from_bytes(mesh.clone(), &bytes[..len]) {
            Err(TreeFileError::Truncated { expected, found }) => {
                assert_eq!(found, len as u64);
                // Once the header is whole, the full length is known.
                if len >= 56 {
                    assert_eq!(expected, bytes.len() as u64);
                } else {
                    assert!(expected > len as u64);
                }
            }
            other => panic!("cut at {len} of {}: {other:?}", bytes.len()),
        }
    }
    assert!(Bvh::<Obb>::from_bytes(mesh, &bytes).is_ok());
}

#[test]
fn any_changed_byte_is_found_and_named() {
    let (mesh, bytes) = small();
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[i] ^= flip;
            let err = Bvh::<Obb>::from_bytes(mesh.clone(), &damaged)
                .expect_err(&format!("byte {i} ^ {flip:#x} loaded"));
            match (i, &err) {
                (0..8, TreeFileError::NotATreeFile) => {}
                (8..12, TreeFileError::Version { found, supported }) => {
                    assert_eq!(*supported, FORMAT_VERSION);
                    assert_ne!(*found, FORMAT_VERSION);
                }
                (12.., TreeFileError::Corrupted { .. }) => {}
                _ => panic!("byte {i} ^ {flip:#x}: {err:?}"),
            }
        }
    }
    // Bytes after the end are refused too.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        Bvh::<Obb>::from_bytes(mesh, &longer),
        Err(TreeFileError::Corrupted { .. })
    ));
}

#[test]
fn another_version_is_named_with_both_numbers() {
    let (mesh, mut bytes) = small();
    bytes[8..12].copy_from_slice(&7u32.to_le_bytes());
    let err = Bvh::<Obb>::from_bytes(mesh, &bytes).unwrap_err();
    assert!(matches!(
        err,
        TreeFileError::Version {
            found: 7,
            supported: FORMAT_VERSION
        }
    ));
    assert_eq!(
        err.to_string(),
        format!(
            "tree file format version 7; this build reads version {FORMAT_VERSION} (build the tree again)"
        )
    );
    assert!(matches!(
        Bvh::<Obb>::from_bytes(small().0, b"solid ascii STL file"),
        Err(TreeFileError::NotATreeFile)
    ));
    assert_eq!(&small().1[..8], &MAGIC);
}

#[test]
fn a_tree_of_another_mesh_or_volume_is_refused() {
    let bunny = Arc::new(load("bunny-500.obj"));
    let teapot = Arc::new(load("teapot.obj"));
    let bytes = Bvh::<Obb>::build(bunny.clone(), &BuildOptions::default()).to_bytes();
    match Bvh::<Obb>::from_bytes(teapot.clone(), &bytes) {
        Err(TreeFileError::WrongMesh {
            found,
            found_triangles,
            expected,
            expected_triangles,
        }) => {
            assert_eq!(found, mesh_hash(&bunny));
            assert_eq!(expected, mesh_hash(&teapot));
            assert_eq!(found_triangles, bunny.triangle_count() as u64);
            assert_eq!(expected_triangles, teapot.triangle_count() as u64);
        }
        other => panic!("{other:?}"),
    }
    // The same triangles with one vertex moved by one unit in the last place.
    let mut vertices = bunny.vertices().to_vec();
    vertices[17].x = f64::from_bits(vertices[17].x.to_bits() + 1);
    let moved = TriMesh::new(vertices, bunny.triangles().to_vec(), "moved").unwrap();
    assert!(matches!(
        Bvh::<Obb>::from_bytes(moved, &bytes),
        Err(TreeFileError::WrongMesh { .. })
    ));
    match Bvh::<Aabb>::from_bytes(bunny.clone(), &bytes) {
        Err(TreeFileError::WrongKind { found, expected }) => {
            assert_eq!((found, expected), (BvKind::Obb, BvKind::Aabb));
        }
        other => panic!("{other:?}"),
    }
    let info = tree_file::info(&bytes).unwrap();
    assert_eq!(info.kind, BvKind::Obb);
    assert_eq!(info.mesh, mesh_hash(&bunny));
    assert_eq!(info.triangles, bunny.triangle_count() as u64);
}

/// A file whose hashes were made to match after a change (not written by the crate) is still
/// refused when its tree is malformed: the last leaf's triangle changed, so one triangle is in
/// two leaves.
#[test]
fn a_forged_file_with_matching_hashes_is_still_checked() {
    let (mesh, mut bytes) = small();
    // The low byte of the last leaf's triangle (little-endian u32s end the file).
    let last = bytes.len() - 4;
    bytes[last] = (bytes[last] + 1) % 4;
    let body_hash = blake3::hash(&bytes[56..]);
    bytes[24..56].copy_from_slice(body_hash.as_bytes());
    match Bvh::<Obb>::from_bytes(mesh, &bytes) {
        Err(TreeFileError::Malformed(BvhError::BadLeaves { count: 2, .. })) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn files_name_themselves_in_errors() {
    let (mesh, bytes) = small();
    let file = temp_file("cut.obbt", &bytes[..40]);
    let err = Bvh::<Obb>::load(mesh.clone(), &file).unwrap_err();
    assert!(matches!(
        err.cause(),
        TreeFileError::Truncated { found: 40, .. }
    ));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: truncated tree file: 40 bytes, 56 expected",
            file.display()
        )
    );
    let missing = file.with_file_name("missing.obbt");
    match Bvh::<Obb>::load(mesh, &missing) {
        Err(TreeFileError::Io { path, source }) => {
            assert_eq!(path, missing);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_cache_builds_once_then_loads_and_replaces_a_damaged_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TreeCache::new(dir.path().join("trees"));
    let mesh = Arc::new(load("bunny-500.obj"));
    let hash = mesh_hash(&mesh);
    let options = BuildOptions::default();
    let first = cache.tree::<Obb>(&mesh, &hash, &options);
    assert_eq!(first.origin, TreeOrigin::Built);
    assert!(first.problem.is_none(), "{:?}", first.problem);
    let second = cache.tree::<Obb>(&mesh, &hash, &options);
    assert_eq!(second.origin, TreeOrigin::Loaded);
    assert_eq!(second.path, first.path);
    assert_eq!(second.tree.to_bytes(), first.tree.to_bytes());
    // Another kind and another split are other files.
    assert_eq!(
        cache.tree::<Aabb>(&mesh, &hash, &options).origin,
        TreeOrigin::Built
    );
    let mean = BuildOptions {
        split: SplitRule::Mean,
        ..options
    };
    assert_eq!(
        cache.tree::<Obb>(&mesh, &hash, &mean).origin,
        TreeOrigin::Built
    );
    assert_eq!(
        cache.tree::<Obb>(&mesh, &hash, &mean).origin,
        TreeOrigin::Loaded
    );
    // A damaged file: built again, the reason given, and sound the next time.
    let mut bytes = std::fs::read(&first.path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&first.path, &bytes).unwrap();
    let third = cache.tree::<Obb>(&mesh, &hash, &options);
    assert_eq!(third.origin, TreeOrigin::Built);
    assert!(
        matches!(
            third.problem.as_ref().map(|p| p.cause()),
            Some(TreeFileError::Corrupted { .. })
        ),
        "{:?}",
        third.problem
    );
    assert_eq!(third.tree.to_bytes(), first.tree.to_bytes());
    assert_eq!(
        cache.tree::<Obb>(&mesh, &hash, &options).origin,
        TreeOrigin::Loaded
    );
    // A file under another's name (the mean split's tree where the default's belongs): built
    // again, the reason given.
    std::fs::copy(cache.path::<Obb>(&hash, &mean), &first.path).unwrap();
    let fourth = cache.tree::<Obb>(&mesh, &hash, &options);
    assert_eq!(fourth.origin, TreeOrigin::Built);
    assert!(
        matches!(
            fourth.problem.as_ref().map(|p| p.cause()),
            Some(TreeFileError::OtherOptions {
                found_split: SplitRule::Mean,
                ..
            })
        ),
        "{:?}",
        fourth.problem
    );
    assert_eq!(fourth.tree.to_bytes(), first.tree.to_bytes());
}

/// The mesh hash is blake3 of the vertex and triangle counts (u64), the coordinates (f64) and
/// the indices (u32), all little-endian, whatever way the library feeds them to the hasher.
#[test]
fn the_mesh_hash_is_the_documented_byte_stream() {
    let (mesh, _) = small();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&(mesh.vertices().len() as u64).to_le_bytes());
    bytes.extend_from_slice(&(mesh.triangle_count() as u64).to_le_bytes());
    for v in mesh.vertices() {
        for x in [v.x, v.y, v.z] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    for t in mesh.triangles() {
        for i in t {
            bytes.extend_from_slice(&i.to_le_bytes());
        }
    }
    assert_eq!(mesh_hash(&mesh).0, *blake3::hash(&bytes).as_bytes());
}
