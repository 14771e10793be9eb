//! Shared test helpers: data paths, exact oracles, proptest strategies.
#![allow(dead_code)]

use obbtree::prelude::*;
use proptest::prelude::*;
use std::path::PathBuf;

/// A file under tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join(name)
}

pub fn load(name: &str) -> TriMesh {
    load_obj(data(name)).unwrap_or_else(|e| panic!("{e}"))
}

// ---------------------------------------------------------------------------------------------
// Exact triangle–triangle oracle on integer coordinates.
//
// Two closed convex sets (triangles, segments or points) are disjoint iff some axis strictly
// separates their projections. For hulls of at most three points each, a complete candidate set
// is: every edge and vertex-difference vector S, all cross products of pairs from S, and all
// cross products of those with S (face normals, edge–edge axes, in-plane edge normals, and the
// degenerate line and point cases). Integer arithmetic makes every projection exact.

type I3 = [i64; 3];

fn sub(a: I3, b: I3) -> I3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: I3, b: I3) -> I3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: I3, b: I3) -> i64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn exact_intersect(p: &[I3; 3], q: &[I3; 3]) -> bool {
    let mut s: Vec<I3> = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            if i < j {
                s.push(sub(p[i], p[j]));
                s.push(sub(q[i], q[j]));
            }
            s.push(sub(q[j], p[i]));
        }
    }
    let mut axes = s.clone();
    let mut crosses = Vec::new();
    for i in 0..s.len() {
        for j in i + 1..s.len() {
            crosses.push(cross(s[i], s[j]));
        }
    }
    for c in &crosses {
        for u in &s {
            axes.push(cross(*c, *u));
        }
    }
    axes.extend(crosses);
    for l in axes {
        if l == [0, 0, 0] {
            continue;
        }
        let (pmin, pmax) = p
            .iter()
            .map(|v| dot(*v, l))
            .fold((i64::MAX, i64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let (qmin, qmax) = q
            .iter()
            .map(|v| dot(*v, l))
            .fold((i64::MAX, i64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        if pmax < qmin || qmax < pmin {
            return false;
        }
    }
    true
}

pub fn to_points(t: &[I3; 3]) -> [Point; 3] {
    t.map(|v| Point::new(v[0] as f64, v[1] as f64, v[2] as f64))
}

/// Small integer triangles, biased toward the hard cases: coplanar pairs, degenerate triangles
/// (repeated or collinear corners) and shared corners.
pub fn int_triangle_pair() -> impl Strategy<Value = ([I3; 3], [I3; 3])> {
    let c = -4i64..=4;
    let pt = [c.clone(), c.clone(), c.clone()];
    let tri = [pt.clone(), pt.clone(), pt.clone()];
    (tri.clone(), tri, 0u8..8, 0usize..3, 0usize..3).prop_map(|(mut p, mut q, mode, i, j)| {
        match mode {
            // coplanar in z = 0 (or both in z = 1 plane shifted)
            0 | 1 => {
                for v in p.iter_mut().chain(q.iter_mut()) {
                    v[2] = 0;
                }
            }
            // p degenerate: repeated corner
            2 => p[(i + 1) % 3] = p[i],
            // p collinear: middle point between the two others when even
            3 => {
                let (a, b) = (p[0], p[1]);
                p[2] = [2 * b[0] - a[0], 2 * b[1] - a[1], 2 * b[2] - a[2]];
            }
            // both degenerate
            4 => {
                p[(i + 1) % 3] = p[i];
                q[(j + 1) % 3] = q[j];
            }
            // shared corner
            5 => q[j] = p[i],
            // shared edge
            6 => {
                q[j] = p[i];
                q[(j + 1) % 3] = p[(i + 1) % 3];
            }
            _ => {}
        }
        (p, q)
    })
}

// ---------------------------------------------------------------------------------------------
// Meshes and poses.

/// A triangle soup of `1..=max` triangles with coordinates in [-1, 1], about one in six
/// degenerate (repeated or collinear corners).
pub fn soup(max: usize) -> impl Strategy<Value = TriMesh> {
    let coord = -1.0f64..1.0;
    let pt = (coord.clone(), coord.clone(), coord);
    prop::collection::vec((pt.clone(), pt.clone(), pt, 0u8..6), 1..=max).prop_map(|tris| {
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for (a, b, c, kind) in tris {
            let a = Point::new(a.0, a.1, a.2);
            let mut b = Point::new(b.0, b.1, b.2);
            let mut c = Point::new(c.0, c.1, c.2);
            match kind {
                0 => b = a,                                        // two distinct vertices
                1 => c = Point::from((a.coords + b.coords) * 0.5), // collinear
                2 => {
                    b = a;
                    c = a; // one point
                }
                _ => {}
            }
            let k = vertices.len() as u32;
            vertices.extend([a, b, c]);
            triangles.push([k, k + 1, k + 2]);
        }
        TriMesh::new(vertices, triangles, "proptest soup").unwrap()
    })
}

/// A random rigid motion: uniform-ish rotation (normalised Gaussian-free quaternion) and a
/// translation in [-r, r]^3.
pub fn pose(r: f64) -> impl Strategy<Value = Isometry> {
    (
        (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0),
        (-r..r, -r..r, -r..r),
    )
        .prop_filter_map("degenerate quaternion", |((w, x, y, z), (tx, ty, tz))| {
            let q = obbtree::math::Quaternion::new(w, x, y, z);
            (q.norm() > 0.1).then(|| {
                Isometry::from_parts(
                    obbtree::math::Translation::new(tx, ty, tz),
                    obbtree::math::UnitQuaternion::new_normalize(q),
                )
            })
        })
}

/// A mesh on the integer grid (corners in [-2, 2]^3), for exact touching and coplanar contact.
pub fn grid_soup(max: usize) -> impl Strategy<Value = TriMesh> {
    let c = -2i64..=2;
    let pt = [c.clone(), c.clone(), c];
    prop::collection::vec([pt.clone(), pt.clone(), pt], 1..=max).prop_map(|tris| {
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for t in tris {
            let k = vertices.len() as u32;
            vertices.extend(to_points(&t));
            triangles.push([k, k + 1, k + 2]);
        }
        TriMesh::new(vertices, triangles, "grid soup").unwrap()
    })
}

/// An exact rotation (a signed permutation matrix, det +1) and an integer translation.
pub fn exact_pose() -> impl Strategy<Value = (Matrix3, Vector)> {
    (0usize..6, 0u8..8, -2i64..=2, -2i64..=2, -2i64..=2).prop_map(|(perm, signs, x, y, z)| {
        let perms = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let p = perms[perm];
        let mut m = Matrix3::zeros();
        for (row, &col) in p.iter().enumerate() {
            m[(row, col)] = if signs & (1 << row) != 0 { -1.0 } else { 1.0 };
        }
        if m.determinant() < 0.0 {
            m.row_mut(0).neg_mut();
        }
        (m, Vector::new(x as f64, y as f64, z as f64))
    })
}

pub fn sorted(mut v: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    v.sort_unstable();
    v
}

/// All-contacts query of B placed in A's frame by (rot, pos), sorted.
pub fn contacts_relative<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot: &Matrix3,
    pos: &Vector,
) -> CollisionReport {
    let mut r = CollisionReport::default();
    obbtree::query::collide_relative(a, b, rot, pos, &QueryOptions::default(), &mut r);
    r.contacts.sort_unstable();
    r
}

pub fn rot_of(iso: &Isometry) -> Matrix3 {
    iso.rotation.to_rotation_matrix().into_inner()
}
