//! Shared test helpers: data paths, exact oracles, proptest strategies.
#![allow(dead_code)]

#[cfg(feature = "app")]
pub mod screen;

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

/// A file a test writes: `name` in a folder of its own in the temp folder, removed with the
/// folder when this is dropped (at the end of the test, passed or failed). Reads as its path.
pub struct TempFile {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

/// Writes `contents` to a new [`TempFile`] named `name`.
pub fn temp_file(name: &str, contents: impl AsRef<[u8]>) -> TempFile {
    let dir = tempfile::Builder::new()
        .prefix("obbtree-test-")
        .tempdir()
        .unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    TempFile { path, _dir: dir }
}

impl std::ops::Deref for TempFile {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.path
    }
}

impl AsRef<std::path::Path> for TempFile {
    fn as_ref(&self) -> &std::path::Path {
        &self.path
    }
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
    obbtree::query::collide_with(
        a,
        b,
        rot,
        pos,
        &QueryOptions::default(),
        CollideWith::default(),
        &mut r,
    );
    r.contacts.sort_unstable();
    r
}

pub fn rot_of(iso: &Isometry) -> Matrix3 {
    iso.rotation.to_rotation_matrix().into_inner()
}

// ---------------------------------------------------------------------------------------------
// Exact triangle–triangle oracle on arbitrary finite f64 coordinates.
//
// Independent of the library's predicates: every coordinate is converted exactly to an integer
// scaled by one power of two common to both triangles (a double is `m · 2^e` with an integer
// mantissa `m`), and the separating axis test is done in big-integer arithmetic, so every
// projection and comparison is exact.
//
// The candidate axes come from the Minkowski difference D = P − Q of the two hulls (P, Q each
// the convex hull of three points: a triangle, a segment or a point). P and Q are disjoint iff
// the origin is not in D, iff some axis l has l·x > 0 for all x in D (strict separation of
// closed sets). Every edge of D is parallel to an edge vector E (p_i − p_j or q_i − q_j), and
// w = q_0 − p_0 (negated p_0 − q_0, a point of D; the sign of an axis does not matter) is:
//
// * D 3-dimensional: some facet plane has the origin strictly outside; its normal is the cross
//   product of two non-parallel edges of the facet, i.e. of two vectors of E.
// * D 2-dimensional, in a plane Π: if 0 ∉ Π, Π's normal n (any nonzero cross product of two
//   vectors of E) separates; otherwise some edge of the polygon D separates within Π, along
//   n × e for an edge vector e of E.
// * D a segment on a line w + tL (L a nonzero vector of E): if the line misses the origin,
//   (L × w) × L separates; otherwise L does.
// * D a point w: w separates unless it is 0.
//
// So 15 + 6 + 6 + 1 + 1 axes suffice. `exact_intersect_f64_all_axes` uses instead the generous
// candidate set of the integer oracle above (every S, S × S and (S × S) × S), in big integers,
// to cross-check the reduction on float input.

use num_bigint::BigInt;

/// A finite double as `mantissa · 2^exponent` with an integer mantissa with no trailing zero
/// bit (`(0, 0)` for ±0).
pub fn f64_parts(x: f64) -> (i64, i32) {
    assert!(x.is_finite(), "{x}");
    if x == 0.0 {
        return (0, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    let (m, e) = if exp == 0 {
        (frac, -1074) // subnormal
    } else {
        (frac | (1i64 << 52), exp - 1075)
    };
    let tz = m.trailing_zeros();
    let m = m >> tz;
    (if x < 0.0 { -m } else { m }, e + tz as i32)
}

pub type Z3 = [BigInt; 3];

/// The points' coordinates as integers, all divided by one common power of two (exact).
pub fn scaled_integers(points: &[Point]) -> Vec<Z3> {
    let parts: Vec<[(i64, i32); 3]> = points
        .iter()
        .map(|p| [f64_parts(p.x), f64_parts(p.y), f64_parts(p.z)])
        .collect();
    let min_exp = parts
        .iter()
        .flatten()
        .filter(|(m, _)| *m != 0)
        .map(|&(_, e)| e)
        .min()
        .unwrap_or(0);
    parts
        .iter()
        .map(|p| p.map(|(m, e)| BigInt::from(m) << ((e - min_exp) as usize)))
        .collect()
}

fn zsub(a: &Z3, b: &Z3) -> Z3 {
    [&a[0] - &b[0], &a[1] - &b[1], &a[2] - &b[2]]
}
fn zcross(a: &Z3, b: &Z3) -> Z3 {
    [
        &a[1] * &b[2] - &a[2] * &b[1],
        &a[2] * &b[0] - &a[0] * &b[2],
        &a[0] * &b[1] - &a[1] * &b[0],
    ]
}
/// The exact dot product of two integer vectors.
pub fn zdot(a: &Z3, b: &Z3) -> BigInt {
    &a[0] * &b[0] + &a[1] * &b[1] + &a[2] * &b[2]
}
fn zzero(a: &Z3) -> bool {
    a.iter().all(|x| x.sign() == num_bigint::Sign::NoSign)
}

/// Whether axis `l` strictly separates the projections of the two point sets.
fn zseparates(l: &Z3, p: &[Z3], q: &[Z3]) -> bool {
    if zzero(l) {
        return false;
    }
    let range = |s: &[Z3]| {
        let d: Vec<BigInt> = s.iter().map(|v| zdot(v, l)).collect();
        let lo = d.iter().min().unwrap().clone();
        let hi = d.iter().max().unwrap().clone();
        (lo, hi)
    };
    let (pmin, pmax) = range(p);
    let (qmin, qmax) = range(q);
    pmax < qmin || qmax < pmin
}

fn split_scaled(p: &[Point; 3], q: &[Point; 3]) -> (Vec<Z3>, Vec<Z3>) {
    let mut z = scaled_integers(&[p[0], p[1], p[2], q[0], q[1], q[2]]);
    let qz = z.split_off(3);
    (z, qz)
}

/// Whether the closed triangles (or the segments / points they degenerate to) `p` and `q`
/// intersect, decided exactly for any finite coordinates (see the comment above).
pub fn exact_intersect_f64(p: &[Point; 3], q: &[Point; 3]) -> bool {
    let (p, q) = split_scaled(p, q);
    let e = [
        zsub(&p[0], &p[1]),
        zsub(&p[0], &p[2]),
        zsub(&p[1], &p[2]),
        zsub(&q[0], &q[1]),
        zsub(&q[0], &q[2]),
        zsub(&q[1], &q[2]),
    ];
    let w = zsub(&q[0], &p[0]);
    // Facet normals of D (3D), or the normal of D's plane (2D).
    let mut normal = None;
    for a in 0..6 {
        for b in a + 1..6 {
            let c = zcross(&e[a], &e[b]);
            if zseparates(&c, &p, &q) {
                return false;
            }
            if normal.is_none() && !zzero(&c) {
                normal = Some(c);
            }
        }
    }
    // In-plane edge normals of D (2D).
    if let Some(n) = &normal {
        for x in &e {
            if zseparates(&zcross(n, x), &p, &q) {
                return false;
            }
        }
    }
    // D on a line: the line's direction, and the perpendicular toward the line.
    for x in &e {
        if zseparates(x, &p, &q) {
            return false;
        }
    }
    if let Some(l) = e.iter().find(|x| !zzero(x))
        && zseparates(&zcross(&zcross(l, &w), l), &p, &q)
    {
        return false;
    }
    // D a point.
    !zseparates(&w, &p, &q)
}

/// [`exact_intersect_f64`] with the integer oracle's full candidate set (slow: ~1,700 axes).
pub fn exact_intersect_f64_all_axes(p: &[Point; 3], q: &[Point; 3]) -> bool {
    let (p, q) = split_scaled(p, q);
    let mut s: Vec<Z3> = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            if i < j {
                s.push(zsub(&p[i], &p[j]));
                s.push(zsub(&q[i], &q[j]));
            }
            s.push(zsub(&q[j], &p[i]));
        }
    }
    s.retain(|x| !zzero(x));
    let mut crosses = Vec::new();
    for i in 0..s.len() {
        for j in i + 1..s.len() {
            let c = zcross(&s[i], &s[j]);
            if !zzero(&c) {
                crosses.push(c);
            }
        }
    }
    let separated = s.iter().chain(&crosses).any(|l| zseparates(l, &p, &q))
        || crosses
            .iter()
            .any(|c| s.iter().any(|u| zseparates(&zcross(c, u), &p, &q)));
    !separated
}

/// The exact sign (−1, 0, 1) of `(a − d) · ((b − d) × (c − d))`.
pub fn exact_orient3d_sign(a: &Point, b: &Point, c: &Point, d: &Point) -> i8 {
    let z = scaled_integers(&[*a, *b, *c, *d]);
    let det = zdot(
        &zsub(&z[0], &z[3]),
        &zcross(&zsub(&z[1], &z[3]), &zsub(&z[2], &z[3])),
    );
    match det.sign() {
        num_bigint::Sign::Minus => -1,
        num_bigint::Sign::NoSign => 0,
        num_bigint::Sign::Plus => 1,
    }
}

/// Whether the six corners of two triangles lie exactly in one plane (or on one line).
pub fn exactly_coplanar(p: &[Point; 3], q: &[Point; 3]) -> bool {
    let all = [p[0], p[1], p[2], q[0], q[1], q[2]];
    let z = scaled_integers(&all);
    let e: Vec<Z3> = z[1..].iter().map(|v| zsub(v, &z[0])).collect();
    let n = (0..5)
        .flat_map(|i| (i + 1..5).map(move |j| (i, j)))
        .map(|(i, j)| zcross(&e[i], &e[j]))
        .find(|c| !zzero(c));
    match n {
        None => true, // all on one line
        Some(n) => e
            .iter()
            .all(|v| zdot(v, &n).sign() == num_bigint::Sign::NoSign),
    }
}

/// Whether the triangle is degenerate (its three corners exactly collinear).
pub fn exactly_degenerate(t: &[Point; 3]) -> bool {
    let z = scaled_integers(t);
    zzero(&zcross(&zsub(&z[1], &z[0]), &zsub(&z[2], &z[0])))
}

// ---------------------------------------------------------------------------------------------
// The interpenetration oracle (tests/interpenetration.rs, the app's simulate-mode test).

fn sign(x: f64) -> i8 {
    (x > 0.0) as i8 - (x < 0.0) as i8
}

/// Whether segment `p q` passes through the closed triangle `t` with both ends farther than
/// `tol` from its plane: the ends strictly on opposite sides (exact `orient3d`), the segment's
/// line through the closed triangle (Plücker signs, exact), the distances in f64.
pub fn passes_through(
    p: &obbtree::math::Point,
    q: &obbtree::math::Point,
    t: &[obbtree::math::Point; 3],
    tol: f64,
) -> bool {
    use obbtree::query::orient3d;
    let (sp, sq) = (
        sign(orient3d(p, &t[0], &t[1], &t[2])),
        sign(orient3d(q, &t[0], &t[1], &t[2])),
    );
    if sp * sq >= 0 {
        return false;
    }
    let s = [
        sign(orient3d(p, q, &t[0], &t[1])),
        sign(orient3d(p, q, &t[1], &t[2])),
        sign(orient3d(p, q, &t[2], &t[0])),
    ];
    if s.contains(&1) && s.contains(&-1) {
        return false;
    }
    let n = (t[1] - t[0]).cross(&(t[2] - t[0])).normalize();
    (p - t[0]).dot(&n).abs() > tol && (q - t[0]).dot(&n).abs() > tol
}

/// Whether an edge of triangle `a` passes through triangle `b` (see [`passes_through`]).
pub fn edges_through(
    a: &[obbtree::math::Point; 3],
    b: &[obbtree::math::Point; 3],
    tol: f64,
) -> bool {
    (0..3).any(|k| passes_through(&a[k], &a[(k + 1) % 3], b, tol))
}
