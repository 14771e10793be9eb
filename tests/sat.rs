//! The separating axis test (Gottschalk et al. 1996, §5) against an independent exact box–box
//! test: two boxes intersect iff an edge of one meets a face of the other or a corner of one lies
//! inside the other (the paper's "144 edge–face tests" plus containment), evaluated with the
//! exact triangle test on the boxes' faces (2 triangles each) and edges (segments).

mod common;
use obbtree::bv::sat::separated;
use obbtree::math::{Matrix3, Point, Real, Vector};
use obbtree::query::triangles_intersect;
use proptest::prelude::*;

#[derive(Clone, Copy, Debug)]
struct BoxF {
    c: Vector,
    rot: Matrix3, // columns = axes
    h: [Real; 3],
}

impl BoxF {
    fn scaled(&self, s: Real) -> BoxF {
        BoxF {
            h: self.h.map(|x| x * s),
            ..*self
        }
    }
    fn corner(&self, k: usize) -> Point {
        let s = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
        Point::from(
            self.c
                + self.rot.column(0) * (s(1) * self.h[0])
                + self.rot.column(1) * (s(2) * self.h[1])
                + self.rot.column(2) * (s(4) * self.h[2]),
        )
    }
    fn faces(&self) -> Vec<[Point; 3]> {
        // Quads by fixing one axis sign; split into two triangles.
        let mut out = Vec::new();
        for axis in 0..3 {
            let bit = 1 << axis;
            let others: Vec<usize> = [1usize, 2, 4].into_iter().filter(|&b| b != bit).collect();
            for side in [0, bit] {
                let q = [
                    side,
                    side | others[0],
                    side | others[0] | others[1],
                    side | others[1],
                ];
                let p = q.map(|k| self.corner(k));
                out.push([p[0], p[1], p[2]]);
                out.push([p[0], p[2], p[3]]);
            }
        }
        out
    }
    fn edges(&self) -> Vec<[Point; 3]> {
        let mut out = Vec::new();
        for k in 0..8usize {
            for bit in [1usize, 2, 4] {
                if k & bit == 0 {
                    let (a, b) = (self.corner(k), self.corner(k | bit));
                    out.push([a, b, b]); // a segment as a degenerate triangle
                }
            }
        }
        out
    }
    fn contains(&self, p: &Point) -> bool {
        let d = p.coords - self.c;
        (0..3).all(|k| self.rot.column(k).dot(&d).abs() <= self.h[k])
    }
}

/// The independent oracle.
fn boxes_intersect(a: &BoxF, b: &BoxF) -> bool {
    let edge_face = |x: &BoxF, y: &BoxF| {
        let faces = y.faces();
        x.edges()
            .iter()
            .any(|e| faces.iter().any(|f| triangles_intersect(e, f)))
    };
    edge_face(a, b) || edge_face(b, a) || a.contains(&b.corner(0)) || b.contains(&a.corner(0))
}

/// The SAT as the library evaluates it: B in A's box frame.
fn sat_separated(a: &BoxF, b: &BoxF, eps: Real, lite: bool) -> bool {
    let r = a.rot.transpose() * b.rot;
    let t = a.rot.transpose() * (b.c - a.c);
    let rr: [[Real; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| r[(i, j)]));
    let rabs = rr.map(|row| row.map(|x| x.abs() + eps));
    separated(&a.h, &b.h, &rr, &rabs, &[t.x, t.y, t.z], lite)
}

fn rotation(q: (Real, Real, Real, Real)) -> Matrix3 {
    let q = obbtree::math::Quaternion::new(q.0, q.1, q.2, q.3);
    obbtree::math::UnitQuaternion::new_normalize(q)
        .to_rotation_matrix()
        .into_inner()
}

fn any_box(near_parallel: bool) -> impl Strategy<Value = BoxF> {
    let unit = -1.0f64..1.0;
    (
        (unit.clone(), unit.clone(), unit.clone()),
        (unit.clone(), unit.clone(), unit.clone(), unit),
        (0.05f64..1.0, 0.05f64..1.0, 0.0f64..1.0),
        -1e-7f64..1e-7,
    )
        .prop_filter("quaternion", |(_, q, _, _)| {
            q.0.abs() + q.1.abs() + q.2.abs() + q.3.abs() > 0.1
        })
        .prop_map(move |(c, q, h, tilt)| BoxF {
            c: Vector::new(c.0, c.1, c.2) * 1.5,
            rot: if near_parallel {
                rotation((1.0, tilt, -tilt, 0.5 * tilt))
            } else {
                rotation(q)
            },
            h: [h.0, h.1, h.2],
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Where the answer is not within 1e-6 of the boundary, the full SAT (ε = 0) must give the
    /// exact answer; SAT lite must never call overlapping boxes disjoint.
    #[test]
    fn sat_agrees_with_edge_face_oracle(a in any_box(false), b in any_box(false), np_a in any_box(true), np_b in any_box(true), mix in 0u8..3) {
        let (a, b) = match mix { 0 => (a, b), 1 => (np_a, np_b), _ => (a, np_b) };
        let surely_overlap = boxes_intersect(&a.scaled(1.0 - 1e-6), &b.scaled(1.0 - 1e-6));
        let surely_disjoint = !boxes_intersect(&a.scaled(1.0 + 1e-6), &b.scaled(1.0 + 1e-6));
        prop_assert!(!(surely_overlap && surely_disjoint));
        let full = sat_separated(&a, &b, 0.0, false);
        let lite = sat_separated(&a, &b, 0.0, true);
        let with_eps = sat_separated(&a, &b, 1e-6, false);
        if surely_overlap {
            prop_assert!(!full, "full SAT separated overlapping boxes {:?} {:?}", a, b);
            prop_assert!(!lite, "SAT lite separated overlapping boxes");
            prop_assert!(!with_eps);
        }
        if surely_disjoint {
            prop_assert!(full, "full SAT missed a separation {:?} {:?}", a, b);
        }
        // Lite tests a subset of the axes: it separates only if the full test does.
        prop_assert!(!lite || full);
    }
}

#[test]
fn touching_boxes_overlap() {
    let id = Matrix3::identity();
    let a = BoxF {
        c: Vector::zeros(),
        rot: id,
        h: [1.0, 1.0, 1.0],
    };
    // Face, edge and corner contact, and a tiny gap.
    for (c, touching) in [
        (Vector::new(2.0, 0.0, 0.0), true),
        (Vector::new(2.0, 2.0, 0.0), true),
        (Vector::new(2.0, 2.0, 2.0), true),
        (Vector::new(2.0 + 1e-9, 0.0, 0.0), false),
    ] {
        let b = BoxF {
            c,
            rot: id,
            h: [1.0, 1.0, 1.0],
        };
        assert_eq!(boxes_intersect(&a, &b), touching, "oracle at {c:?}");
        assert_eq!(!sat_separated(&a, &b, 0.0, false), touching, "SAT at {c:?}");
    }
    // Edge against edge, crossed at 90° about x: B's edge along y touches A's edge along z.
    let rz = rotation((
        std::f64::consts::FRAC_PI_8.cos(),
        0.0,
        0.0,
        std::f64::consts::FRAC_PI_8.sin(),
    ));
    let b = BoxF {
        c: Vector::new(1.0 + std::f64::consts::SQRT_2, 0.0, 0.0),
        rot: rz,
        h: [1.0, 1.0, 1.0],
    };
    assert!(boxes_intersect(
        &a.scaled(1.0 + 1e-6),
        &b.scaled(1.0 + 1e-6)
    ));
    assert!(!sat_separated(
        &a.scaled(1.0 + 1e-6),
        &b.scaled(1.0 + 1e-6),
        0.0,
        false
    ));
}

#[test]
fn edge_edge_axis_is_needed_and_lite_misses_it() {
    // A turned 45° about z, B 45° about y: A's edge along z and B's edge along y face each
    // other across x and meet at d = 2√2. Beyond that only the edge–edge axis z × y separates
    // them (face axes overlap: 2 < 2.71 along A's face normals).
    let (c8, s8) = (
        std::f64::consts::FRAC_PI_8.cos(),
        std::f64::consts::FRAC_PI_8.sin(),
    );
    let a = BoxF {
        c: Vector::zeros(),
        rot: rotation((c8, 0.0, 0.0, s8)),
        h: [1.0, 1.0, 1.0],
    };
    let at = |d: Real| BoxF {
        c: Vector::new(d, 0.0, 0.0),
        rot: rotation((c8, 0.0, s8, 0.0)),
        h: [1.0, 1.0, 1.0],
    };
    let apart = at(2.9);
    assert!(!boxes_intersect(&a, &apart));
    assert!(
        sat_separated(&a, &apart, 0.0, false),
        "the full SAT finds the edge–edge axis"
    );
    assert!(
        !sat_separated(&a, &apart, 0.0, true),
        "SAT lite has no edge–edge axis"
    );
    let crossing = at(2.8);
    assert!(boxes_intersect(&a, &crossing));
    assert!(!sat_separated(&a, &crossing, 0.0, false));
}

/// The test the OBB trees really run (single precision, SIMD, with its rounding slack), through
/// `Obb::prepare/place/overlaps` on boxes stored conservatively around the oracle's boxes: it
/// must never separate boxes that intersect, and must separate boxes 1e-4 apart. Placement by a
/// random pose exercises the frames.
fn obb_of(b: &BoxF) -> obbtree::bv::Obb {
    let axes = [
        b.rot.column(0).into_owned(),
        b.rot.column(1).into_owned(),
        b.rot.column(2).into_owned(),
    ];
    obbtree::bv::Obb::with_axes(&axes, (0..8).map(|k| b.corner(k)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn obb_overlap_test_is_sound_and_tight(
        a in any_box(false),
        b in any_box(false),
        np in any_box(true),
        pose in common::pose(2.0),
        mix in 0u8..3,
        lite in any::<bool>(),
    ) {
        use obbtree::bv::{BoundingVolume, Obb, OverlapOptions, SatMode};
        let (a, b) = match mix { 0 => (a, b), 1 => (np, b), _ => (a, np) };
        // B's box lives in B's frame; the oracle sees it placed in A's frame by `pose`.
        let rot = common::rot_of(&pose);
        let pos = pose.translation.vector;
        let b_in_a = BoxF { c: rot * b.c + pos, rot: rot * b.rot, h: b.h };
        // B's only box: its centre's distance from B's origin is the reach of B's centres.
        let reach_b = obb_of(&b).center().coords.norm();
        let q = Obb::prepare(&rot, &pos, 0.0, reach_b, &OverlapOptions { epsilon: 1e-6, sat: if lite { SatMode::Lite } else { SatMode::Full }, leaf_triangles: false });
        let overlap = Obb::overlaps(&q, &obb_of(&a), &Obb::place(&q, &obb_of(&b)));
        if boxes_intersect(&a, &b_in_a) {
            prop_assert!(overlap, "separated intersecting boxes {:?} {:?}", a, b_in_a);
        }
        if !lite && !boxes_intersect(&a.scaled(1.0 + 1e-4), &b_in_a.scaled(1.0 + 1e-4)) {
            prop_assert!(!overlap, "missed a separation of 1e-4: {:?} {:?}", a, b_in_a);
        }
    }
}
