//! Self-intersection: the pairs of triangles of one mesh that intersect beyond the corners they
//! share.
//!
//! Oracles:
//! * brute force over all pairs with the same exact rule (`self_brute_force`), for every tree
//!   type and split rule, on constructions, real models and random soups;
//! * the big-integer test of the tests' common module (`exact_intersect_f64`, independent of the
//!   library's predicates) on every pair that shares no corner position, and on the edges and
//!   ends that decide pairs sharing one;
//! * hand-derived answers on constructions (duplicated and coplanar faces, folded fans,
//!   degenerate triangles), and their invariance under exact scalings and translations;
//! * CGAL 5.5.1's pairs (tests/data/*.cgal-self.txt).

mod common;
use common::*;
use obbtree::prelude::*;
use obbtree::query::{
    SelfIntersectionOptions, self_brute_force, self_intersections, triangle_intersection,
    triangles_self_intersect,
};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn p(x: f64, y: f64, z: f64) -> Point {
    Point::new(x, y, z)
}

fn mesh(vertices: Vec<Point>, triangles: Vec<[u32; 3]>) -> TriMesh {
    TriMesh::new(vertices, triangles, "construction").unwrap()
}

/// The self-intersections of `mesh` with each tree type (AABB trees by both the default and van
/// den Bergen's split, on one thread and on the pool), all checked equal to brute force with the
/// same rule; returns them.
fn checked(mesh: &TriMesh) -> Vec<(u32, u32)> {
    let truth = self_brute_force(mesh);
    let mut answers = Vec::new();
    for parallel in [false, true] {
        let options = SelfIntersectionOptions {
            parallel,
            ..SelfIntersectionOptions::default()
        };
        for split in [SplitRule::Binned, SplitRule::BoxMidpoint] {
            let build = BuildOptions {
                split,
                ..BuildOptions::default()
            };
            let aabb = Bvh::<Aabb>::build(mesh.clone(), &build);
            aabb.validate().unwrap();
            answers.push(("aabb", self_intersections(&aabb, &options)));
        }
        let obb = ObbTree::build(mesh.clone(), &BuildOptions::default());
        answers.push(("obb", self_intersections(&obb, &options)));
        let sphere = Bvh::<Sphere>::build(mesh.clone(), &BuildOptions::default());
        answers.push(("sphere", self_intersections(&sphere, &options)));
    }
    for (kind, report) in answers {
        assert_eq!(report.pairs, truth, "{kind} tree against brute force");
        assert!(report.curves.is_empty());
    }
    truth
}

/// Whether the closed boxes of two triangles overlap (exact comparisons).
fn boxes_overlap(a: &[Point; 3], b: &[Point; 3]) -> bool {
    (0..3).all(|k| {
        let lo = |t: &[Point; 3]| t.iter().map(|c| c[k]).fold(f64::INFINITY, f64::min);
        let hi = |t: &[Point; 3]| t.iter().map(|c| c[k]).fold(f64::NEG_INFINITY, f64::max);
        lo(a) <= hi(b) && lo(b) <= hi(a)
    })
}

/// How many corner positions two triangles have in common.
fn shared_positions(a: &[Point; 3], b: &[Point; 3]) -> usize {
    let mut seen: Vec<Point> = Vec::new();
    for c in a {
        if b.contains(c) && !seen.contains(c) {
            seen.push(*c);
        }
    }
    seen.len()
}

/// The independent check of `pairs` (the answer for `mesh`, which has no degenerate triangle)
/// on every pair whose boxes overlap, by the big-integer test of the tests' common module: a
/// pair with no common corner position where the triangles intersect; with one, where the faces
/// of either triangle away from it meet the other; with two, where the triangles are folded onto
/// each other; with three (coinciding), always. Returns how many reported pairs share corners.
fn check_independently(mesh: &TriMesh, pairs: &[(u32, u32)]) -> usize {
    let set: BTreeSet<(u32, u32)> = pairs.iter().copied().collect();
    let tris: Vec<[Point; 3]> = (0..mesh.triangle_count())
        .map(|i| mesh.triangle(i))
        .collect();
    assert!(!tris.iter().any(exactly_degenerate));
    for i in 0..tris.len() {
        for j in i + 1..tris.len() {
            let (a, b) = (&tris[i], &tris[j]);
            if !boxes_overlap(a, b) {
                assert!(!set.contains(&(i as u32, j as u32)));
                continue;
            }
            let truth = independent(a, b).unwrap();
            assert_eq!(
                set.contains(&(i as u32, j as u32)),
                truth,
                "pair ({i}, {j}): {a:?} {b:?}"
            );
        }
    }
    pairs
        .iter()
        .filter(|&&(i, j)| shared_positions(&tris[i as usize], &tris[j as usize]) > 0)
        .count()
}

/// The big-integer verdict on two triangles of one mesh whose boxes overlap (see
/// [`check_independently`]); `None` for a degenerate triangle with common corners (left to the
/// hand-derived constructions).
fn independent(a: &[Point; 3], b: &[Point; 3]) -> Option<bool> {
    let k = shared_positions(a, b);
    if k == 0 {
        return Some(exact_intersect_f64(a, b));
    }
    if exactly_degenerate(a) || exactly_degenerate(b) {
        return None;
    }
    Some(match k {
        1 => {
            let s = *a.iter().find(|c| b.contains(c)).unwrap();
            far_faces_meet(a, &s, b) || far_faces_meet(b, &s, a)
        }
        2 => folded(a, b),
        _ => true,
    })
}

/// A sheet bent along the nodal cubic `(t² − 1, t³ − t)` in the xz plane (it crosses itself
/// where t = ±1), `cols` quads along the curve and `rows` across (y in [0, 1]), scaled by `s` and
/// moved by `at`.
fn nodal_sheet(cols: usize, rows: usize, s: f64, at: Vector) -> TriMesh {
    let mut v = Vec::new();
    for i in 0..=cols {
        let t = -1.5 + 3.0 * i as f64 / cols as f64;
        for j in 0..=rows {
            let y = j as f64 / rows as f64;
            v.push(Point::from(
                Vector::new(t * t - 1.0, y, t * t * t - t) * s + at,
            ));
        }
    }
    grid_triangles(v, cols, rows)
}

/// The triangles of a (cols + 1) × (rows + 1) vertex grid, two per quad.
fn grid_triangles(v: Vec<Point>, cols: usize, rows: usize) -> TriMesh {
    mesh(v, quads(cols, rows, |i, j| (i * (rows + 1) + j) as u32))
}

/// Two triangles per quad of a cols × rows grid whose corner (i, j) is vertex `at(i, j)`.
fn quads(cols: usize, rows: usize, at: impl Fn(usize, usize) -> u32) -> Vec<[u32; 3]> {
    let mut t = Vec::new();
    for i in 0..cols {
        for j in 0..rows {
            t.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            t.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    t
}

/// A spindle torus (tube radius 1.4 about a circle of radius 1): its inner parts pass through
/// each other about the axis. Closed: the grid wraps around both ways.
fn spindle_torus(m: usize, n: usize) -> TriMesh {
    let (big, small) = (1.0, 1.4);
    let mut v = Vec::new();
    for i in 0..m {
        let u = std::f64::consts::TAU * i as f64 / m as f64;
        for j in 0..n {
            let w = std::f64::consts::TAU * (j as f64 + 0.5) / n as f64;
            let r = big + small * w.cos();
            v.push(p(r * u.cos(), r * u.sin(), small * w.sin()));
        }
    }
    mesh(v, quads(m, n, |i, j| ((i % m) * n + j % n) as u32))
}

/// The bent sheet crosses itself where t = ±1: the answer is exactly the pairs of the two
/// crossing strips that the big-integer test says intersect (no neighbouring pair folds), the
/// same at tiny and huge scales and far from the origin.
#[test]
fn a_sheet_bent_through_itself() {
    let sheet = nodal_sheet(31, 3, 1.0, Vector::zeros());
    let pairs = checked(&sheet);
    assert_eq!(check_independently(&sheet, &pairs), 0);
    // Each crossing strip has 2 triangles per row; the curve crosses itself transversally, so
    // every row has at least one crossing pair, and only triangles of the two strips take part.
    let strip = |t: u32| (t as usize / 6, t as usize % 6 / 2);
    let columns: BTreeSet<usize> = pairs
        .iter()
        .flat_map(|&(a, b)| [strip(a).0, strip(b).0])
        .collect();
    let rows: BTreeSet<usize> = pairs.iter().map(|&(a, _)| strip(a).1).collect();
    assert_eq!(columns.len(), 2, "{columns:?}");
    assert_eq!(rows.len(), 3, "{rows:?}");
    for (s, at) in [
        (2f64.powi(-60), Vector::zeros()),
        (2f64.powi(60), Vector::zeros()),
        (
            1.0,
            Vector::new(2f64.powi(20), -(2f64.powi(20)), 2f64.powi(21)),
        ),
    ] {
        let moved = TriMesh::new(
            sheet
                .vertices()
                .iter()
                .map(|x| Point::from(x.coords * s + at))
                .collect(),
            sheet.triangles().to_vec(),
            "moved sheet",
        )
        .unwrap();
        // Scaling by a power of two is exact; the translation is not, so the moved sheet is
        // checked on its own terms.
        let moved_pairs = checked(&moved);
        check_independently(&moved, &moved_pairs);
        if at == Vector::zeros() {
            assert_eq!(moved_pairs, pairs, "scale {s}");
        }
    }
}

/// The spindle torus passes through itself about its axis (and, where its rings pinch there,
/// neighbouring triangles meet beyond their common corners): brute force and the big-integer
/// checks.
#[test]
fn a_torus_through_itself() {
    let torus = spindle_torus(24, 16);
    let pairs = checked(&torus);
    check_independently(&torus, &pairs);
    // The tube's inner rings (cos w < −1/1.4) pass through the axis: every ring of the 24
    // around the axis takes part.
    let rings: BTreeSet<u32> = pairs.iter().flat_map(|&(a, b)| [a / 32, b / 32]).collect();
    assert_eq!(rings.len(), 24);
}

/// A duplicated face: the tetrahedron's face 0 again, with its own vertices (same positions) or
/// with face 0's indices. It coincides with face 0 and meets the faces around it only along
/// the edges they share.
#[test]
fn a_duplicated_face() {
    let v = vec![p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.), p(0., 0., 1.)];
    let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let closed = mesh(v.clone(), faces.clone());
    assert_eq!(checked(&closed), vec![]);
    let mut own = v.clone();
    own.extend([v[0], v[2], v[1]]);
    let mut with_own = faces.clone();
    with_own.push([4, 5, 6]);
    assert_eq!(checked(&mesh(own, with_own)), vec![(0, 4)]);
    let mut same = faces;
    same.push([0, 2, 1]);
    assert_eq!(checked(&mesh(v, same)), vec![(0, 4)]);
}

/// Coplanar faces: overlapping without a common corner; sharing an edge, folded onto each other
/// (intersecting), laid out flat or bent (not).
#[test]
fn coplanar_and_folded_faces() {
    let (o, x, y) = (p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.));
    let apart = [p(0.25, 0.25, 0.), p(2., 0.25, 0.), p(0.25, 2., 0.)];
    let cases: [([Point; 3], bool); 5] = [
        (apart, true),
        ([o, x, p(0.5, 0.5, 0.)], true),
        ([x, o, p(0.25, 0.75, 0.)], true),
        ([o, x, p(0.5, -1., 0.)], false),
        ([o, x, p(0.5, -1., 1.)], false),
    ];
    for (second, meets) in cases {
        let m = mesh(
            [o, x, y].into_iter().chain(second).collect(),
            vec![[0, 1, 2], [3, 4, 5]],
        );
        let expected = if meets { vec![(0, 1)] } else { vec![] };
        assert_eq!(checked(&m), expected, "{second:?}");
        assert_eq!(triangles_self_intersect(&[o, x, y], &second), meets);
        assert_eq!(triangles_self_intersect(&second, &[o, x, y]), meets);
    }
}

/// A fan about o over three quadrants, and two more faces about o: one folded flat onto the
/// first quadrant's face, one through the second's (its far edge crosses the plane inside it).
#[test]
fn a_fan_folded_over_its_vertex() {
    let v = vec![
        p(0., 0., 0.),
        p(1., 0., 0.),
        p(0., 1., 0.),
        p(-1., 0., 0.),
        p(0., -1., 0.),
        p(2., 1., 0.),
        p(1., 2., 0.),
        p(-0.25, 0.5, 1.),
        p(-0.5, 0.25, -1.),
    ];
    let fan = vec![[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 5, 6], [0, 7, 8]];
    let m = mesh(v, fan);
    assert_eq!(checked(&m), vec![(0, 3), (1, 4)]);
    // The decisive pieces, by the big-integer test: face 4's far edge meets face 1, face 3's
    // far edge does not meet face 0 (face 3 lies inside face 0's corner, near o only).
    let t = |i: usize| m.triangle(i);
    let edge = |i: usize, a: usize, b: usize| [t(i)[a], t(i)[b], t(i)[b]];
    assert!(exact_intersect_f64(&edge(4, 1, 2), &t(1)));
    assert!(!exact_intersect_f64(&edge(3, 1, 2), &t(0)));
}

/// Degenerate triangles: a needle into a face from its corner (intersects), a segment along the
/// face's edge (no), a point at the corner (no), a far segment, a segment going on from the
/// face's corner outward (no), and a segment over the edge's first part (it meets the face and
/// the segment along the edge beyond o).
#[test]
fn degenerate_triangles() {
    let (o, x, y) = (p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.));
    let tris = [
        [o, x, y],
        [o, p(0.25, 0.25, 0.), p(0.5, 0.5, 0.)],
        [o, x, p(0.5, 0., 0.)],
        [o, o, o],
        [p(2., 0., 0.), p(3., 0., 0.), p(3., 0., 0.)],
        [x, p(2., 0., 0.), p(2., 0., 0.)],
        [o, p(0.75, 0., 0.), p(0.75, 0., 0.)],
    ];
    let v: Vec<Point> = tris.iter().flatten().copied().collect();
    let t: Vec<[u32; 3]> = (0..tris.len() as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    let m = mesh(v, t);
    assert_eq!(checked(&m), vec![(0, 1), (0, 6), (2, 6)]);
    for s in [2f64.powi(-70), 2f64.powi(70)] {
        let scaled = TriMesh::new(
            m.vertices()
                .iter()
                .map(|x| Point::from(x.coords * s))
                .collect(),
            m.triangles().to_vec(),
            "scaled",
        )
        .unwrap();
        assert_eq!(checked(&scaled), vec![(0, 1), (0, 6), (2, 6)], "scale {s}");
    }
}

/// The rule is symmetric and does not depend on the order of either triangle's corners.
#[test]
fn the_rule_is_symmetric() {
    let m = spindle_torus(12, 8);
    let rotate = |t: [Point; 3], k: usize| [t[k % 3], t[(k + 1) % 3], t[(k + 2) % 3]];
    for i in 0..m.triangle_count() {
        for j in 0..m.triangle_count() {
            let (a, b) = (m.triangle(i), m.triangle(j));
            let answer = triangles_self_intersect(&a, &b);
            for k in 0..3 {
                assert_eq!(
                    triangles_self_intersect(&rotate(b, k), &rotate(a, k + 1)),
                    answer
                );
                assert_eq!(triangles_self_intersect(&[a[1], a[0], a[2]], &b), answer);
            }
        }
    }
}

/// Real models: every tree type against brute force, and every pair with overlapping boxes
/// against the big-integer checks. The counts are CGAL 5.5.1's (`cgal_self_driver`): none for the
/// spot, the torus and both bunnies, 534 for the f-16; the teapot's 161 are CGAL's less the pairs
/// that touch only at a common corner position (see `the_pairs_are_cgals`). Only the f-16 has
/// neighbouring faces that meet beyond their common corners (22 pairs; CGAL reports them too).
#[test]
fn real_models_against_brute_force() {
    for (name, count, sharing) in [
        ("teapot.obj", 161, 0),
        ("f-16.obj", 534, 22),
        ("spot.obj", 0, 0),
        ("torus.obj", 0, 0),
        ("bunny-500.obj", 0, 0),
    ] {
        let m = load(name);
        let pairs = checked(&m);
        assert_eq!(pairs.len(), count, "{name}");
        assert_eq!(check_independently(&m, &pairs), sharing, "{name}");
    }
    // The full bunny (69,451 triangles; brute force would take minutes): every tree type agrees
    // with CGAL's none.
    let bunny = load("stanford-bunny.obj");
    let options = SelfIntersectionOptions::default();
    let aabb = Bvh::<Aabb>::build(bunny.clone(), &BuildOptions::van_den_bergen());
    let obb = ObbTree::build(bunny.clone(), &BuildOptions::default());
    let sphere = Bvh::<Sphere>::build(bunny, &BuildOptions::default());
    assert_eq!(self_intersections(&aabb, &options).pairs, vec![]);
    assert_eq!(self_intersections(&obb, &options).pairs, vec![]);
    assert_eq!(self_intersections(&sphere, &options).pairs, vec![]);
}

fn cgal_pairs(name: &str) -> Vec<(u32, u32)> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .map(|l| {
            let mut it = l.split_whitespace().map(|x| x.parse::<u32>().unwrap());
            (it.next().unwrap(), it.next().unwrap())
        })
        .collect()
}

/// CGAL's pairs: the f-16's 534 exactly. On the teapot, CGAL also counts the 4,514 pairs that
/// touch only at a common corner position, which its mesh holds as two vertices (seams of
/// repeated vertices, non-manifold vertices split by its mesh conversion); each of those shares
/// a position, and the big-integer test shows that neither triangle's faces away from the shared
/// corners meet the other (one shared corner) or that the two are not folded onto each other
/// (two). The rest are ours, 161, exactly.
#[test]
fn the_pairs_are_cgals() {
    let f16 = load("f-16.obj");
    let tree = Bvh::<Aabb>::build(f16, &BuildOptions::van_den_bergen());
    let ours = self_intersections(&tree, &SelfIntersectionOptions::default()).pairs;
    assert_eq!(ours, cgal_pairs("f-16.cgal-self.txt"));
    assert_eq!(ours.len(), 534);

    let teapot = load("teapot.obj");
    let tree = Bvh::<Aabb>::build(teapot.clone(), &BuildOptions::van_den_bergen());
    let ours = self_intersections(&tree, &SelfIntersectionOptions::default()).pairs;
    let cgal = cgal_pairs("teapot.cgal-self.txt");
    assert_eq!(cgal.len(), 4675);
    let ours_set: BTreeSet<_> = ours.iter().copied().collect();
    assert!(ours.iter().all(|pair| cgal.binary_search(pair).is_ok()));
    let only_cgal: Vec<_> = cgal
        .iter()
        .filter(|pair| !ours_set.contains(pair))
        .collect();
    assert_eq!((ours.len(), only_cgal.len()), (161, 4514));
    for &&(i, j) in &only_cgal {
        let (a, b) = (teapot.triangle(i as usize), teapot.triangle(j as usize));
        match shared_positions(&a, &b) {
            1 => {
                let s = *a.iter().find(|c| b.contains(c)).unwrap();
                assert!(
                    !far_faces_meet(&a, &s, &b) && !far_faces_meet(&b, &s, &a),
                    "({i}, {j})"
                );
            }
            2 => assert!(!folded(&a, &b), "({i}, {j})"),
            k => panic!("({i}, {j}) share {k} positions"),
        }
    }
}

/// Whether the faces of `t` away from its corner `s` meet `other` (big-integer test): the
/// opposite edge, or for a degenerate `t` its corners other than `s`.
fn far_faces_meet(t: &[Point; 3], s: &Point, other: &[Point; 3]) -> bool {
    if exactly_degenerate(t) {
        return t
            .iter()
            .filter(|c| *c != s)
            .any(|c| exact_intersect_f64(&[*c; 3], other));
    }
    let i = t.iter().position(|c| c == s).unwrap();
    let (u, v) = (t[(i + 1) % 3], t[(i + 2) % 3]);
    exact_intersect_f64(&[u, v, v], other)
}

/// Two triangles with two common corners, folded onto each other: coplanar, with area, and the
/// third corners on one side of the common edge (exact signs of the tests' common module).
fn folded(a: &[Point; 3], b: &[Point; 3]) -> bool {
    if exactly_degenerate(a) || exactly_degenerate(b) || !exactly_coplanar(a, b) {
        return false;
    }
    let r = *a.iter().find(|c| !b.contains(c)).unwrap();
    let s = *b.iter().find(|c| !a.contains(c)).unwrap();
    let shared: Vec<Point> = a.iter().filter(|c| b.contains(c)).copied().collect();
    // Same side of the edge in the common plane: the normals of (e0, e1, r) and (e0, e1, s) point
    // the same way: orient3d against a point off the plane has the same sign for both.
    // A point off the plane by about the triangle's size (not the cross product itself, which
    // at tiny scales is below the coordinates' resolution).
    let n = (shared[1] - shared[0]).cross(&(r - shared[0]));
    let off = Point::from(shared[0].coords + n / n.norm() * (r - shared[0]).norm());
    assert_ne!(exact_orient3d_sign(&shared[0], &shared[1], &r, &off), 0);
    exact_orient3d_sign(&shared[0], &shared[1], &r, &off)
        == exact_orient3d_sign(&shared[0], &shared[1], &s, &off)
}

/// With curves, each pair carries its intersection, as `triangle_intersection` gives it.
#[test]
fn curves_are_the_pairs_intersections() {
    let sheet = nodal_sheet(31, 3, 1.0, Vector::zeros());
    let tree = Bvh::<Aabb>::build(sheet.clone(), &BuildOptions::van_den_bergen());
    let options = SelfIntersectionOptions {
        curves: true,
        ..SelfIntersectionOptions::default()
    };
    let report = self_intersections(&tree, &options);
    assert_eq!(report.curves.len(), report.pairs.len());
    for (&(a, b), curve) in report.pairs.iter().zip(&report.curves) {
        let expected =
            triangle_intersection(&sheet.triangle(a as usize), &sheet.triangle(b as usize));
        assert_eq!(*curve, expected);
        assert!(!curve.is_empty());
    }
}

/// The counts: each unordered pair of leaves is met at most once. AABB trees test every leaf
/// pair by the two boxes, so the triangle tests are the leaf pairs whose boxes overlap: at least
/// those whose stored boxes overlap, at most those whose boxes grown by 1e-9 of the model's size
/// do (the walk grows boxes by a rounding margin far below that). Meeting a pair twice would
/// exceed the upper bound.
#[test]
fn each_pair_is_met_once() {
    for name in ["spot.obj", "teapot.obj"] {
        let m = load(name);
        let tree = Bvh::<Aabb>::build(m, &BuildOptions::van_den_bergen());
        let report = self_intersections(&tree, &SelfIntersectionOptions::default());
        let leaves: Vec<(Point, Vector)> = (0..tree.nodes().len())
            .filter(|&i| tree.nodes()[i].is_leaf())
            .map(|i| {
                let (c, _, h) = tree.node_box(i);
                (c, h)
            })
            .collect();
        let grow = 1e-9 * tree.radius();
        let (mut low, mut high) = (0u64, 0u64);
        for i in 0..leaves.len() {
            for j in i + 1..leaves.len() {
                let (ci, hi) = leaves[i];
                let (cj, hj) = leaves[j];
                let gap = |k: usize, g: f64| (ci[k] - cj[k]).abs() <= hi[k] + hj[k] + g;
                low += u64::from((0..3).all(|k| gap(k, 0.0)));
                high += u64::from((0..3).all(|k| gap(k, grow)));
            }
        }
        assert!(
            (low..=high).contains(&report.tri_tests),
            "{name}: {} not in {low}..={high}",
            report.tri_tests
        );
        // One box test per internal node at the start, and two per split below it.
        let internal = (tree.nodes().len() as u64 - 1) / 2;
        assert!(report.bv_tests >= internal);
        assert_eq!((report.bv_tests - internal) % 2, 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random soups, one in six triangles degenerate, and soups on the integer grid (many
    /// common corner positions, coplanar and folded pairs): every tree type against brute
    /// force, and brute force against the big-integer verdicts.
    #[test]
    fn random_soups(m in prop_oneof![soup(40), grid_soup(40)]) {
        let pairs: BTreeSet<(u32, u32)> = checked(&m).into_iter().collect();
        for i in 0..m.triangle_count() {
            for j in i + 1..m.triangle_count() {
                let (a, b) = (m.triangle(i), m.triangle(j));
                if let Some(truth) = independent(&a, &b) {
                    prop_assert_eq!(pairs.contains(&(i as u32, j as u32)), truth, "({}, {})", i, j);
                }
            }
        }
    }
}
