//! A query between two small triangle soups against brute force.
//!
//! Decodes soups A and B (1–12 triangles on a pool of 3–12 vertices, so that shared vertices and
//! degenerate triangles occur), a world pose for each and the tree kind (OBB, AABB or sphere).
//! Coordinates are mostly eighths in [-2, 2], so touching and coplanar contacts are frequent;
//! in the inexact mode some are a few ulps off such a point or anywhere in [-4, 4], and the
//! rotations are arbitrary. Checks, with the trees built by `BuildOptions::default()`:
//! * `collide(A, B)`'s sorted contacts equal `brute_force_posed(A, B)` (exact predicates);
//! * `collide(B, A)` equals `brute_force_posed(B, A)`; in the exact mode (grid coordinates,
//!   rotations by quaternions with entries in {0, ±½, ±1}, so that every transform is exact) it
//!   is also `collide(A, B)` with each pair swapped. Elsewhere the two directions place different
//!   corners with different rounding and may disagree on a touching pair, as brute force does;
//! * first contact, both ways round: a contact iff brute force has one, and one of them;
//! * the distance equals the least over every pair of `triangle_distance` (B placed as the query
//!   places it), and the pairs within 1.5 times it (and 0.1 more) are brute force's;
//! * each soup's self-intersections (the pool of vertices makes shared corners, by index and by
//!   position, common) equal `self_brute_force`'s, on the soup's tree and, for AABB trees, on
//!   van den Bergen's.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use obbtree::bv::{Aabb, BoundingVolume, Obb, Sphere};
use obbtree::bvh::{BuildOptions, Bvh};
use obbtree::math::{
    Isometry, Point, Quaternion, Translation, UnitQuaternion, relative_parts, transform_point,
};
use obbtree::mesh::TriMesh;
use obbtree::query::{
    DistanceOptions, QueryOptions, SelfIntersectionOptions, brute_force_posed, collide, distance,
    self_brute_force, self_intersections, triangle_distance, within_pairs,
};

fuzz_target!(|bytes: &[u8]| {
    let mut u = Unstructured::new(bytes);
    let Ok(mode) = u.arbitrary::<u8>() else {
        return;
    };
    let exact = mode & 4 != 0;
    let Ok(Some(case)) = decode(&mut u, exact) else {
        return;
    };
    match mode & 3 {
        1 => check::<Aabb>(case, exact),
        2 => check::<Sphere>(case, exact),
        _ => check::<Obb>(case, exact),
    }
});

/// Soups A and B and their world poses.
type Case = (TriMesh, TriMesh, Isometry, Isometry);

fn check<B: BoundingVolume>((a, b, pose_a, pose_b): Case, exact: bool) {
    let options = BuildOptions::default();
    let (tree_a, tree_b) = (
        Bvh::<B>::build(a.clone(), &options),
        Bvh::<B>::build(b.clone(), &options),
    );
    let all = QueryOptions::default();
    let truth = brute_force_posed(&a, &pose_a, &b, &pose_b);
    let ab = collide(&tree_a, &pose_a, &tree_b, &pose_b, &all).sorted_contacts();
    assert_eq!(ab, truth, "collide(A, B) against brute force");
    let truth_ba = brute_force_posed(&b, &pose_b, &a, &pose_a);
    let ba = collide(&tree_b, &pose_b, &tree_a, &pose_a, &all).sorted_contacts();
    assert_eq!(ba, truth_ba, "collide(B, A) against brute force");
    if exact {
        let mut swapped: Vec<_> = ba.iter().map(|&(j, i)| (i, j)).collect();
        swapped.sort_unstable();
        assert_eq!(swapped, ab, "collide(B, A) is not collide(A, B) swapped");
    }
    check_proximity((&a, &b, &pose_a, &pose_b), (&tree_a, &tree_b));
    for (mesh, tree) in [(&a, &tree_a), (&b, &tree_b)] {
        let truth = self_brute_force(mesh);
        let own = self_intersections(tree, &SelfIntersectionOptions::default()).pairs;
        assert_eq!(own, truth, "self-intersections against brute force");
        let midpoint = Bvh::<Aabb>::build(mesh.clone(), &BuildOptions::van_den_bergen());
        let own = self_intersections(&midpoint, &SelfIntersectionOptions::default()).pairs;
        assert_eq!(own, truth, "self-intersections (van den Bergen's tree) against brute force");
    }
    let first = QueryOptions::first_contact();
    for (report, truth) in [
        (collide(&tree_a, &pose_a, &tree_b, &pose_b, &first), &truth),
        (
            collide(&tree_b, &pose_b, &tree_a, &pose_a, &first),
            &truth_ba,
        ),
    ] {
        assert!(
            report.contacts.len() <= 1,
            "first contact: {:?}",
            report.contacts
        );
        assert_eq!(
            report.colliding(),
            !truth.is_empty(),
            "first contact against brute force"
        );
        if let Some(c) = report.contacts.first() {
            assert!(
                truth.contains(c),
                "first contact {c:?} not in brute force's {truth:?}"
            );
        }
    }
}

/// The distance and the pairs within a tolerance against every pair.
fn check_proximity<B: BoundingVolume>(
    (a, b, pose_a, pose_b): (&TriMesh, &TriMesh, &Isometry, &Isometry),
    (tree_a, tree_b): (&Bvh<B>, &Bvh<B>),
) {
    let (rot, pos) = relative_parts(pose_a, pose_b);
    let mut pairs = Vec::new();
    for i in 0..a.triangle_count() {
        for j in 0..b.triangle_count() {
            let q = b.triangle(j).map(|x| transform_point(&rot, &pos, &x));
            pairs.push(((i as u32, j as u32), triangle_distance(&a.triangle(i), &q).0));
        }
    }
    let least = pairs.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let d = distance(tree_a, pose_a, tree_b, pose_b, &DistanceOptions::default()).unwrap();
    assert_eq!(d.distance, least, "distance against brute force");
    let t = least * 1.5 + 0.1;
    let mut within: Vec<_> = within_pairs(tree_a, pose_a, tree_b, pose_b, t, &Default::default())
        .unwrap()
        .pairs
        .iter()
        .map(|p| p.0)
        .collect();
    within.sort_unstable();
    let truth: Vec<_> = pairs.iter().filter(|p| p.1 <= t).map(|p| p.0).collect();
    assert_eq!(within, truth, "pairs within {t} against brute force");
}

fn decode(u: &mut Unstructured, exact: bool) -> Result<Option<Case>> {
    let (Some(a), Some(b)) = (soup(u, exact)?, soup(u, exact)?) else {
        return Ok(None);
    };
    Ok(Some((a, b, pose(u, exact)?, pose(u, exact)?)))
}

/// Vertices then index triples into them; `None` where `TriMesh::new` rejects the input.
fn soup(u: &mut Unstructured, exact: bool) -> Result<Option<TriMesh>> {
    let nv = u.int_in_range(3..=12u32)?;
    let vertices = (0..nv)
        .map(|_| {
            Ok(Point::new(
                coord(u, exact)?,
                coord(u, exact)?,
                coord(u, exact)?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let nt = u.int_in_range(1..=12u32)?;
    let triangles = (0..nt)
        .map(|_| {
            Ok([
                u.int_in_range(0..=nv - 1)?,
                u.int_in_range(0..=nv - 1)?,
                u.int_in_range(0..=nv - 1)?,
            ])
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TriMesh::new(vertices, triangles, "fuzz").ok())
}

/// An eighth in [-2, 2]; in the inexact mode sometimes a few ulps off one, or anywhere in [-4, 4].
fn coord(u: &mut Unstructured, exact: bool) -> Result<f64> {
    let grid = f64::from(u.int_in_range(-16..=16i8)?) / 8.0;
    if exact {
        return Ok(grid);
    }
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => grid,
        2 => grid + f64::from(u.int_in_range(-4..=4i8)?) * f64::EPSILON,
        _ => -4.0 + 8.0 * f64::from(u.arbitrary::<u32>()?) / f64::from(u32::MAX),
    })
}

/// A world pose. Exact: the identity, a half turn about an axis or a third of a turn about a
/// cube diagonal (quaternion entries in {0, ±½, ±1}: products, inverses and rotation matrices are
/// exact) and a translation by eighths. Inexact: also any normalised quaternion.
fn pose(u: &mut Unstructured, exact: bool) -> Result<Isometry> {
    let pick = u.int_in_range(0..=23u8)?;
    let q = if exact || pick < 8 {
        let s = |bit: u8| if pick & bit == 0 { 0.5 } else { -0.5 };
        match pick % 8 {
            0 => Quaternion::new(1.0, 0.0, 0.0, 0.0),
            1 => Quaternion::new(0.0, 1.0, 0.0, 0.0),
            2 => Quaternion::new(0.0, 0.0, 1.0, 0.0),
            3 => Quaternion::new(0.0, 0.0, 0.0, 1.0),
            _ => Quaternion::new(0.5, s(1), s(2), s(16)),
        }
    } else {
        let mut c = [0.0; 4];
        for x in &mut c {
            *x = f64::from(u.arbitrary::<i16>()?) / 32768.0;
        }
        Quaternion::new(c[0], c[1], c[2], c[3])
    };
    let q = if q.norm() < 1e-3 {
        Quaternion::identity()
    } else {
        q
    };
    let t = Translation::new(coord(u, exact)?, coord(u, exact)?, coord(u, exact)?);
    Ok(Isometry::from_parts(t, UnitQuaternion::new_normalize(q)))
}
