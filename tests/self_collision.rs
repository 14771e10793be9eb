//! A model against itself at the identity pose, with OBB, AABB and sphere trees, on the models
//! in tests/data (general decimal coordinates, where floating-point arithmetic is not exact).
//!
//! Oracles:
//! * every pair of triangles sharing a vertex touches, so the report must contain every pair
//!   (i, j) of triangles with a common corner position (same index, or a duplicate vertex with
//!   exactly the same coordinates), (i, i) included;
//! * the three tree types must report the same set, and it must be symmetric;
//! * the teapot's count is RAPID 2.01's (and FCL's): 83,558 pairs;
//! * the exact rational oracle (`common::exact_intersect_f64`, big-integer separating axes) on
//!   every reported pair that shares no vertex (it must intersect) and on every unreported pair
//!   whose closed bounding boxes overlap (it must not). Pairs with disjoint boxes are apart, so
//!   the report is checked to be exactly the set of intersecting pairs.

mod common;
use common::*;
use obbtree::prelude::*;
use std::collections::HashMap;

/// Exact coordinates as a hash key (−0 and +0 are the same point).
fn key(p: &Point) -> [u64; 3] {
    [p.x, p.y, p.z].map(|c| if c == 0.0 { 0 } else { c.to_bits() })
}

/// Every ordered pair of triangles with a common corner position, sorted.
fn sharing_pairs(mesh: &TriMesh) -> Vec<(u32, u32)> {
    let mut at: HashMap<[u64; 3], Vec<u32>> = HashMap::new();
    for i in 0..mesh.triangle_count() {
        for v in mesh.triangle(i) {
            let list = at.entry(key(&v)).or_default();
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        }
    }
    let mut pairs = Vec::new();
    for list in at.values() {
        for &a in list {
            for &b in list {
                pairs.push((a, b));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// How many ordered pairs of triangles share a vertex index (for the log: the rest share only a
/// duplicated position).
fn index_sharing_count(mesh: &TriMesh) -> usize {
    let mut at: HashMap<u32, Vec<u32>> = HashMap::new();
    for (i, t) in mesh.triangles().iter().enumerate() {
        for &v in t {
            let list = at.entry(v).or_default();
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        }
    }
    let mut pairs: Vec<(u32, u32)> = at
        .values()
        .flat_map(|l| l.iter().flat_map(|&a| l.iter().map(move |&b| (a, b))))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs.len()
}

fn self_contacts<B: BoundingVolume>(mesh: &TriMesh) -> Vec<(u32, u32)> {
    let a = Bvh::<B>::build(mesh.clone(), &BuildOptions::default());
    let b = Bvh::<B>::build(mesh.clone(), &BuildOptions::default());
    let report = collide(
        &a,
        &Isometry::identity(),
        &b,
        &Isometry::identity(),
        &QueryOptions::default(),
    );
    report.sorted_contacts()
}

fn describe(mesh: &TriMesh, (i, j): (u32, u32)) -> String {
    let f = |t: usize| format!("{:?}", mesh.triangle(t).map(|p| [p.x, p.y, p.z]));
    format!("({i}, {j}): {} against {}", f(i as usize), f(j as usize))
}

fn check_model(name: &str, expected_count: Option<usize>) {
    let start = std::time::Instant::now();
    let mesh = load(name);
    let sharing = sharing_pairs(&mesh);
    let obb = self_contacts::<Obb>(&mesh);
    let aabb = self_contacts::<Aabb>(&mesh);
    let sphere = self_contacts::<Sphere>(&mesh);
    eprintln!(
        "{name}: {} triangles, {} vertex-sharing pairs ({} by index), reported OBB {} / AABB {} / sphere {}",
        mesh.triangle_count(),
        sharing.len(),
        index_sharing_count(&mesh),
        obb.len(),
        aabb.len(),
        sphere.len()
    );

    // Every vertex-sharing pair is reported, by every tree type.
    for (kind, got) in [("OBB", &obb), ("AABB", &aabb), ("sphere", &sphere)] {
        let missing: Vec<(u32, u32)> = sharing
            .iter()
            .filter(|p| got.binary_search(p).is_err())
            .copied()
            .collect();
        assert!(
            missing.is_empty(),
            "{name}, {kind} tree: {} vertex-sharing pairs not reported, e.g. {}",
            missing.len(),
            describe(&mesh, missing[0])
        );
    }
    assert_eq!(obb, aabb, "{name}: OBB and AABB trees differ");
    assert_eq!(obb, sphere, "{name}: OBB and sphere trees differ");
    for &(i, j) in &obb {
        assert!(
            obb.binary_search(&(j, i)).is_ok(),
            "{name}: ({i}, {j}) reported but not ({j}, {i})"
        );
    }
    if let Some(n) = expected_count {
        assert_eq!(obb.len(), n, "{name}: RAPID's contact count");
    }

    // Every reported pair that shares no vertex must truly intersect.
    let mut reported = 0;
    for &(i, j) in obb.iter().filter(|p| sharing.binary_search(p).is_err()) {
        assert!(
            exact_intersect_f64(&mesh.triangle(i as usize), &mesh.triangle(j as usize)),
            "{name}: reported but apart for the oracle: {}",
            describe(&mesh, (i, j))
        );
        reported += 1;
    }
    // Every unreported pair whose closed bounding boxes overlap must truly be apart (pairs whose
    // boxes are disjoint are): with the above, the report is exactly the oracle's answer.
    let boxes: Vec<(Point, Point)> = (0..mesh.triangle_count())
        .map(|i| {
            let t = mesh.triangle(i);
            (
                Point::from(t[0].coords.inf(&t[1].coords).inf(&t[2].coords)),
                Point::from(t[0].coords.sup(&t[1].coords).sup(&t[2].coords)),
            )
        })
        .collect();
    let mut order: Vec<u32> = (0..mesh.triangle_count() as u32).collect();
    order.sort_by(|&a, &b| boxes[a as usize].0.x.total_cmp(&boxes[b as usize].0.x));
    let mut close = 0;
    for (n, &a) in order.iter().enumerate() {
        let (lo, hi) = boxes[a as usize];
        for &b in &order[n + 1..] {
            let (blo, bhi) = boxes[b as usize];
            if blo.x > hi.x {
                break;
            }
            let overlap = (1..3).all(|k| blo[k] <= hi[k] && lo[k] <= bhi[k]);
            if overlap && obb.binary_search(&(a, b)).is_err() {
                assert!(
                    !exact_intersect_f64(&mesh.triangle(a as usize), &mesh.triangle(b as usize)),
                    "{name}: not reported but touching for the oracle: {}",
                    describe(&mesh, (a, b))
                );
                close += 1;
            }
        }
    }
    eprintln!(
        "{name}: the oracle agrees on all {reported} reported pairs sharing no vertex and all {close} unreported pairs with overlapping boxes ({:.1} s)",
        start.elapsed().as_secs_f64()
    );
    assert!(
        close >= 1_000,
        "{name}: too few close pairs ({close}) for the check to mean something"
    );
}

#[test]
fn teapot_against_itself() {
    check_model("teapot.obj", Some(83_558));
}

#[test]
fn bunny_against_itself() {
    check_model("stanford-bunny.obj", None);
}

#[test]
fn spot_against_itself() {
    check_model("spot.obj", None);
}

#[test]
fn f16_against_itself() {
    check_model("f-16.obj", None);
}

#[test]
fn torus_against_itself() {
    check_model("torus.obj", None);
}
