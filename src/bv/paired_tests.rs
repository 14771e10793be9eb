//! The walk's paired, SIMD box tests against the single test they stand for
//! ([`VolumeTests::place_pair`], [`VolumeTests::overlaps_pair`],
//! [`VolumeTests::overlaps_pair_depth`]), and the face depths against double precision.

use crate::bv::sat::lanes::Wide;
use crate::bv::{BoundingVolume, Obb, OverlapOptions, SatMode, VolumeTests};
use crate::math::{
    Isometry, Matrix3, Point, Quaternion, Real, Translation, UnitQuaternion, Vector,
};
use proptest::prelude::*;

/// A box in double precision: centre, axes (columns) and half extents.
#[derive(Clone, Copy, Debug)]
struct BoxF {
    c: Vector,
    rot: Matrix3,
    h: [Real; 3],
}

impl BoxF {
    fn corner(&self, k: usize) -> Point {
        let s = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
        Point::from(
            self.c
                + self.rot.column(0) * (s(1) * self.h[0])
                + self.rot.column(1) * (s(2) * self.h[1])
                + self.rot.column(2) * (s(4) * self.h[2]),
        )
    }
}

fn rotation(q: (f64, f64, f64, f64)) -> Matrix3 {
    UnitQuaternion::new_normalize(Quaternion::new(q.0, q.1, q.2, q.3))
        .to_rotation_matrix()
        .into_inner()
}

/// A box about the origin's neighbourhood; `near_parallel`: axes within 1e-7 of a fixed turn.
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

/// A rigid motion with a translation in `[-r, r]³`.
fn pose(r: f64) -> impl Strategy<Value = Isometry> {
    (
        (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0),
        (-r..r, -r..r, -r..r),
    )
        .prop_filter_map("degenerate quaternion", |((w, x, y, z), (tx, ty, tz))| {
            let q = Quaternion::new(w, x, y, z);
            (q.norm() > 0.1).then(|| {
                Isometry::from_parts(
                    Translation::new(tx, ty, tz),
                    UnitQuaternion::new_normalize(q),
                )
            })
        })
}

fn obb_of(b: &BoxF) -> Obb {
    let axes = [
        b.rot.column(0).into_owned(),
        b.rot.column(1).into_owned(),
        b.rot.column(2).into_owned(),
    ];
    Obb::with_axes(&axes, (0..8).map(|k| b.corner(k)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// The paired test the traversal runs (both children of a split at once, on AVX2 where the
    /// CPU has it, else on two 4-lane halves) gives exactly the two single tests, whichever
    /// side changes between the halves (two boxes of A against one of B, or one of A against
    /// two of B); so does placing two boxes of B at once, and so does the paired test with the
    /// face depths, whose depths are the boxes' own.
    #[test]
    fn paired_overlap_tests_equal_the_single_tests(
        a0 in any_box(false),
        a1 in any_box(true),
        b0 in any_box(false),
        b1 in any_box(true),
        pose in pose(2.0),
        shape in 0u8..3,
        lite in any::<bool>(),
    ) {
        let rot = pose.rotation.to_rotation_matrix().into_inner();
        let pos = pose.translation.vector;
        let reach_b = obb_of(&b0).center().coords.norm().max(obb_of(&b1).center().coords.norm());
        let q = Obb::prepare(&rot, &pos, 1e-9, reach_b, &OverlapOptions { epsilon: 1e-6, sat: if lite { SatMode::Lite } else { SatMode::Full }, leaf_triangles: false });
        let (a0_f, a1_f, b0_f, b1_f) = (a0, a1, b0, b1);
        let (a0, a1) = (obb_of(&a0), obb_of(&a1));
        let (b0, b1) = (obb_of(&b0), obb_of(&b1));
        let (p0, p1) = (Obb::place(&q, &b0), Obb::place(&q, &b1));
        // Placing two boxes at once gives the two placements, bit for bit.
        prop_assert_eq!(Obb::place_pair(&q, [&b0, &b1], Wide::HALVES), [p0, p1]);
        prop_assert_eq!(Obb::place_pair(&q, [&b0, &b1], Wide::detect()), [p0, p1]);
        let (a, b) = match shape {
            0 => ([&a0, &a1], [&p0, &p0]),
            1 => ([&a0, &a0], [&p0, &p1]),
            _ => ([&a1, &a0], [&p1, &p0]),
        };
        let single = [Obb::overlaps(&q, a[0], b[0]), Obb::overlaps(&q, a[1], b[1])];
        prop_assert_eq!(Obb::overlaps_pair(&q, a, b, Wide::HALVES), single);
        prop_assert_eq!(Obb::overlaps_pair(&q, a, b, Wide::detect()), single);
        // With the face depths (the first-contact order): the same verdicts, the same depths on
        // every implementation of the lanes, and the depths those of the boxes in double
        // precision but for the test's rounding and slack.
        let (hits, depth) = Obb::overlaps_pair_depth(&q, a, b, Wide::HALVES);
        let (hits_wide, depth_wide) = Obb::overlaps_pair_depth(&q, a, b, Wide::detect());
        prop_assert_eq!(hits, single);
        prop_assert_eq!(hits_wide, single);
        let depth = depth.expect("OBBs measure the depth");
        prop_assert_eq!(depth_wide.map(|d| d.map(f32::to_bits)), Some(depth.map(f32::to_bits)));
        let placed = |x: &BoxF| BoxF { c: rot * x.c + pos, rot: rot * x.rot, h: x.h };
        let boxes = match shape {
            0 => [(a0_f, placed(&b0_f)), (a1_f, placed(&b0_f))],
            1 => [(a0_f, placed(&b0_f)), (a0_f, placed(&b1_f))],
            _ => [(a1_f, placed(&b1_f)), (a0_f, placed(&b0_f))],
        };
        for (k, (x, y)) in boxes.iter().enumerate() {
            let reference = face_depth(x, y);
            let scale = (y.c - x.c).abs().sum() + x.h.iter().sum::<Real>() + y.h.iter().sum::<Real>();
            prop_assert!(
                (Real::from(depth[k]) - reference).abs() <= 1e-4 * scale,
                "test {k}: depth {} against {reference}", depth[k]
            );
        }
    }
}

/// The least, over the six face axes of two boxes (one frame), of how far their projections
/// overlap: `a_i + Σ_j b_j |A_i · B_j| − |d · A_i|` and the same along B's axes (`d` between
/// the centres); negative where a face axis separates them.
fn face_depth(a: &BoxF, b: &BoxF) -> Real {
    let d = b.c - a.c;
    let r = a.rot.transpose() * b.rot;
    let mut least = Real::INFINITY;
    for i in 0..3 {
        let reach_b: Real = (0..3).map(|j| b.h[j] * r[(i, j)].abs()).sum();
        least = least.min(a.h[i] + reach_b - d.dot(&a.rot.column(i)).abs());
    }
    for j in 0..3 {
        let reach_a: Real = (0..3).map(|i| a.h[i] * r[(i, j)].abs()).sum();
        least = least.min(reach_a + b.h[j] - d.dot(&b.rot.column(j)).abs());
    }
    least
}
