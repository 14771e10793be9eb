//! Eight separating axis tests at once, one box pair per lane (Gottschalk et al. 1996, §5).
//!
//! The traversal's paired test ([`super::separated_f32_pair`]) puts the axes of one test across
//! the lanes: three axes at a time, so both tests of a split take one pass. Where the pairs to
//! test are already known and independent — the pairs of a separation list at the start of a
//! query (Li & Chen §4) — this test puts one pair in each of eight lanes instead: every lane
//! places its box of B in A's frame and runs all 15 axes, with no idle lanes and no shuffles
//! inside the test (the boxes come into the lanes by transposes).
//!
//! Each lane computes, in single precision, exactly the operations of
//! [`super::rotate_axes`] (the placement) and [`super::separated_f32`] (the test) in the same
//! order, so the verdicts are those of `Obb::overlaps(q, a, &Obb::place(q, b))` bit for bit
//! (tested against it). Two implementations of the lanes: AVX2 where it was detected
//! ([`Wide`]), plain arrays elsewhere.

use super::Slack;
use super::lanes::{Wide, WideKind};

/// How many pairs one batch tests.
pub const BATCH: usize = 8;

/// What every test of a batch shares: B's volume frame placed in A's (`rot_cols`, the columns
/// of `rot_ab`, and `pos`, lane 3 unused), the margin ε added to every `|R_ij|`, the slack and
/// whether only the face axes are tried (as for [`super::separated_f32`]).
#[derive(Clone, Copy, Debug)]
pub struct BatchQuery {
    /// The columns of `rot_ab` in single precision.
    pub rot_cols: [[f32; 4]; 3],
    /// `pos_ab` (volume frames) in single precision.
    pub pos: [f32; 4],
    /// ε of §5.
    pub eps: f32,
    /// The slack of every right-hand side.
    pub slack: Slack,
    /// Face axes only ("SAT lite").
    pub lite: bool,
}

/// Eight tests: bit `k` of the result is set when the stored box `b[k]` of B (15 floats, the
/// layout of [`super::separated_f32`]'s `a`, B's volume frame), placed in A's frame by `q`, is
/// separated from the stored box `a[k]` of A. `wide` says which instructions may run.
#[inline]
pub fn separated_batch(
    wide: Wide,
    q: &BatchQuery,
    a: &[&[f32; 15]; BATCH],
    b: &[&[f32; 15]; BATCH],
) -> u8 {
    match wide.0 {
        #[cfg(simd_x86)]
        // SAFETY: a `Wide` says AVX2 only where the CPU has it (`Wide::detect`).
        WideKind::Avx2 | WideKind::Avx2Inline => unsafe { batch_avx2(q, a, b) },
        WideKind::Halves => {
            // One pair per lane: float `f` of every box in row `f`.
            let rows = |boxes: &[&[f32; 15]; BATCH]| -> [Array; 15] {
                std::array::from_fn(|f| Array(std::array::from_fn(|k| boxes[k][f])))
            };
            batch::<Array>(q, rows(a), rows(b))
        }
    }
}

/// [`batch`] compiled for AVX2, the boxes' floats turned into rows by two 8×8 transposes per
/// model (floats 0–7 and 7–14 of each box: two loads inside its 15 floats).
#[cfg(simd_x86)]
#[target_feature(enable = "avx2")]
fn batch_avx2(q: &BatchQuery, a: &[&[f32; 15]; BATCH], b: &[&[f32; 15]; BATCH]) -> u8 {
    batch::<Avx>(q, rows_avx(a), rows_avx(b))
}

/// Row `f` of the result holds float `f` of the eight boxes, lane `k` box `k`.
#[cfg(simd_x86)]
#[target_feature(enable = "avx2")]
#[inline]
fn rows_avx(boxes: &[&[f32; 15]; BATCH]) -> [Avx; 15] {
    // SAFETY: each load reads eight floats inside a box's fifteen (from float 0 and float 7).
    let low: [__m256; BATCH] =
        std::array::from_fn(|k| unsafe { _mm256_loadu_ps(boxes[k].as_ptr()) });
    let high: [__m256; BATCH] =
        std::array::from_fn(|k| unsafe { _mm256_loadu_ps(boxes[k].as_ptr().add(7)) });
    let low = transpose8(low);
    let high = transpose8(high);
    std::array::from_fn(|f| Avx(if f < 8 { low[f] } else { high[f - 7] }))
}

/// The transpose of the 8×8 matrix whose rows are `r`.
#[cfg(simd_x86)]
#[target_feature(enable = "avx2")]
#[inline]
fn transpose8(r: [__m256; BATCH]) -> [__m256; BATCH] {
    let t0 = _mm256_unpacklo_ps(r[0], r[1]);
    let t1 = _mm256_unpackhi_ps(r[0], r[1]);
    let t2 = _mm256_unpacklo_ps(r[2], r[3]);
    let t3 = _mm256_unpackhi_ps(r[2], r[3]);
    let t4 = _mm256_unpacklo_ps(r[4], r[5]);
    let t5 = _mm256_unpackhi_ps(r[4], r[5]);
    let t6 = _mm256_unpacklo_ps(r[6], r[7]);
    let t7 = _mm256_unpackhi_ps(r[6], r[7]);
    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    [
        _mm256_permute2f128_ps::<0x20>(u0, u4),
        _mm256_permute2f128_ps::<0x20>(u1, u5),
        _mm256_permute2f128_ps::<0x20>(u2, u6),
        _mm256_permute2f128_ps::<0x20>(u3, u7),
        _mm256_permute2f128_ps::<0x31>(u0, u4),
        _mm256_permute2f128_ps::<0x31>(u1, u5),
        _mm256_permute2f128_ps::<0x31>(u2, u6),
        _mm256_permute2f128_ps::<0x31>(u3, u7),
    ]
}

/// `x·p + y·q + z·r` lane by lane, in that order (no fused multiply-add).
#[inline(always)]
fn dot<V: Lanes>(x: V, y: V, z: V, p: V, q: V, r: V) -> V {
    x.mul(p).add(y.mul(q)).add(z.mul(r))
}

/// The eight tests on rows of floats (`a[f]` lane `k`: float `f` of A's box of pair `k`). No
/// closures here: one not inlined turns every AVX operation in it into a call.
#[inline(always)]
fn batch<V: Lanes>(q: &BatchQuery, a: [V; 15], b: [V; 15]) -> u8 {
    // rot_ab[r][c] in every lane.
    let mut rot = [[V::splat(0.0); 3]; 3];
    for (r, row) in rot.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = V::splat(q.rot_cols[c][r]);
        }
    }
    // B placed (`rotate_axes` and `Obb::placed`): its axis j in A's frame, coordinate r,
    // `bax[j][r]`; the stored box's `cols[k][j]` (coordinate k of axis j) is float 3k + j.
    let mut bax = [[V::splat(0.0); 3]; 3];
    for (j, axis) in bax.iter_mut().enumerate() {
        for (r, x) in axis.iter_mut().enumerate() {
            *x = dot(rot[r][0], rot[r][1], rot[r][2], b[j], b[3 + j], b[6 + j]);
        }
    }
    // B's centre in A's frame, minus A's centre (A's box frame's origin, model axes).
    let mut d = [V::splat(0.0); 3];
    for (r, x) in d.iter_mut().enumerate() {
        *x = dot(rot[r][0], rot[r][1], rot[r][2], b[12], b[13], b[14])
            .add(V::splat(q.pos[r]))
            .sub(a[12 + r]);
    }
    let [dx, dy, dz] = d;
    // A's axis i is (float i, float 3 + i, float 6 + i): T_i = A_i · d.
    let mut t = [V::splat(0.0); 3];
    for (i, x) in t.iter_mut().enumerate() {
        *x = dot(a[i], a[3 + i], a[6 + i], dx, dy, dz);
    }
    // r[i][j] = A_i · B_j, ra = |r| + ε.
    let mut r = [[V::splat(0.0); 3]; 3];
    let mut ra = [[V::splat(0.0); 3]; 3];
    let eps = V::splat(q.eps);
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = dot(a[i], a[3 + i], a[6 + i], bax[j][0], bax[j][1], bax[j][2]);
            ra[i][j] = r[i][j].abs().add(eps);
        }
    }
    let ha = [a[9], a[10], a[11]];
    let hb = [b[9], b[10], b[11]];
    let gap = dx.abs().add(dy.abs()).add(dz.abs());
    let sizes = ha[0].add(ha[1]).add(ha[2].add(hb[0].add(hb[1]).add(hb[2])));
    let sl = V::splat(q.slack.relative)
        .mul(gap.add(sizes))
        .add(V::splat(q.slack.absolute));
    // A's face axes: |T_i| > a_i + Σ_k b_k |R_ik|.
    let mut sep = V::none();
    for i in 0..3 {
        let rhs = ha[i].add(sl).add(
            hb[0]
                .mul(ra[i][0])
                .add(hb[1].mul(ra[i][1]))
                .add(hb[2].mul(ra[i][2])),
        );
        sep = V::or(sep, t[i].abs().gt(rhs));
    }
    // B's face axes: |B_j · d| > b_j + Σ_k a_k |R_kj|.
    for j in 0..3 {
        let s = dot(bax[j][0], bax[j][1], bax[j][2], dx, dy, dz);
        let rhs = hb[j].add(sl).add(
            ha[0]
                .mul(ra[0][j])
                .add(ha[1].mul(ra[1][j]))
                .add(ha[2].mul(ra[2][j])),
        );
        sep = V::or(sep, s.abs().gt(rhs));
    }
    let faces = V::bits(sep);
    if faces == u8::MAX || q.lite {
        return faces;
    }
    // A_i × B_j, (i, i1, i2) and (j, j1, j2) cyclic:
    // |T_i2 R_i1j − T_i1 R_i2j| > a_i1 |R_i2j| + a_i2 |R_i1j| + b_j1 |R_ij2| + b_j2 |R_ij1|.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let lhs = t[i2].mul(r[i1][j]).sub(t[i1].mul(r[i2][j])).abs();
            let rhs = ha[i1]
                .mul(ra[i2][j])
                .add(ha[i2].mul(ra[i1][j]))
                .add(hb[j1].mul(ra[i][j2]).add(hb[j2].mul(ra[i][j1])).add(sl));
            sep = V::or(sep, lhs.gt(rhs));
        }
    }
    V::bits(sep)
}

/// Eight `f32` lanes and their comparisons.
trait Lanes: Copy {
    type Mask: Copy;
    fn splat(x: f32) -> Self;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn abs(self) -> Self;
    fn gt(self, b: Self) -> Self::Mask;
    fn none() -> Self::Mask;
    fn or(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Lane `k`'s verdict in bit `k`.
    fn bits(m: Self::Mask) -> u8;
}

/// Plain arrays: every CPU.
#[derive(Clone, Copy)]
struct Array([f32; BATCH]);

impl Array {
    #[inline(always)]
    fn zip(self, b: Self, f: impl Fn(f32, f32) -> f32) -> Self {
        Array(std::array::from_fn(|k| f(self.0[k], b.0[k])))
    }
}

impl Lanes for Array {
    type Mask = u8;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Array([x; BATCH])
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        self.zip(b, |x, y| x + y)
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self.zip(b, |x, y| x - y)
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        self.zip(b, |x, y| x * y)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Array(self.0.map(f32::abs))
    }
    #[inline(always)]
    fn gt(self, b: Self) -> u8 {
        let mut m = 0;
        for k in 0..BATCH {
            m |= u8::from(self.0[k] > b.0[k]) << k;
        }
        m
    }
    #[inline(always)]
    fn none() -> u8 {
        0
    }
    #[inline(always)]
    fn or(a: u8, b: u8) -> u8 {
        a | b
    }
    #[inline(always)]
    fn bits(m: u8) -> u8 {
        m
    }
}

#[cfg(simd_x86)]
use std::arch::x86_64::*;

/// One AVX register; made only inside [`batch_avx2`].
#[cfg(simd_x86)]
#[derive(Clone, Copy)]
struct Avx(__m256);

// SAFETY (every `unsafe` block of this impl): `Avx` values exist only inside `batch_avx2`,
// which runs only where AVX2 was detected.
#[cfg(simd_x86)]
impl Lanes for Avx {
    type Mask = __m256;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        unsafe { Avx(_mm256_set1_ps(x)) }
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        unsafe { Avx(_mm256_add_ps(self.0, b.0)) }
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        unsafe { Avx(_mm256_sub_ps(self.0, b.0)) }
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        unsafe { Avx(_mm256_mul_ps(self.0, b.0)) }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        unsafe { Avx(_mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0)) }
    }
    #[inline(always)]
    fn gt(self, b: Self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, b.0) }
    }
    #[inline(always)]
    fn none() -> __m256 {
        unsafe { _mm256_setzero_ps() }
    }
    #[inline(always)]
    fn or(a: __m256, b: __m256) -> __m256 {
        unsafe { _mm256_or_ps(a, b) }
    }
    #[inline(always)]
    fn bits(m: __m256) -> u8 {
        unsafe { _mm256_movemask_ps(m) as u8 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bv::{BoundingVolume, Obb, OverlapOptions, SatMode, VolumeTests};
    use crate::math::{Matrix3, Point, Vector};
    use nalgebra::{Rotation3, Unit};
    use proptest::prelude::*;

    /// A rotation from an axis (any nonzero vector) and an angle.
    fn rotation(axis: [f64; 3], angle: f64) -> Matrix3 {
        let axis = Unit::try_new(Vector::from(axis), 1e-6).unwrap_or(Vector::z_axis());
        Rotation3::from_axis_angle(&axis, angle).into_inner()
    }

    /// The box with the rows of `rot` as axes, centre `c` and half extents `h` (stored as the
    /// builder stores boxes, around two opposite corners).
    fn obb(rot: &Matrix3, c: [f64; 3], h: [f64; 3]) -> Obb {
        let axes = [0, 1, 2].map(|i| rot.row(i).transpose().into_owned());
        let d = axes[0] * h[0] + axes[1] * h[1] + axes[2] * h[2];
        let c = Point::from(Vector::from(c));
        Obb::with_axes(&axes, [c - d, c + d].into_iter())
    }

    fn a_box() -> impl Strategy<Value = (([f64; 3], f64), [f64; 3], [f64; 3])> {
        (
            (prop::array::uniform3(-1.0f64..1.0), 0.0f64..6.3),
            prop::array::uniform3(-3.0f64..3.0),
            prop::array::uniform3(0.0f64..2.0),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Each lane's verdict is that of `Obb::overlaps` on `Obb::place`, bit for bit, on
        /// both implementations of the lanes: boxes within reach of each other (every kind of
        /// axis decides some pair), both tests (full and lite), margins from none to large.
        #[test]
        fn batch_equals_one_test_at_a_time(
            pairs in prop::array::uniform8((a_box(), a_box())),
            pose in ((prop::array::uniform3(-1.0f64..1.0), 0.0f64..6.3), prop::array::uniform3(-2.0f64..2.0)),
            lite in any::<bool>(),
            epsilon in prop_oneof![Just(0.0), Just(1e-6), 0.0f64..0.1],
            margin in prop_oneof![Just(0.0), 0.0f64..0.5],
        ) {
            let make = |((axis, angle), c, h): (([f64; 3], f64), [f64; 3], [f64; 3])| {
                obb(&rotation(axis, angle), c, h)
            };
            let boxes: Vec<(Obb, Obb)> = pairs.iter().map(|&(x, y)| (make(x), make(y))).collect();
            let ((axis, angle), t) = pose;
            let options = OverlapOptions {
                epsilon,
                sat: if lite { SatMode::Lite } else { SatMode::Full },
                ..OverlapOptions::default()
            };
            let q = Obb::prepare(&rotation(axis, angle), &Vector::from(t), margin, 6.0, &options);
            let a: [&Obb; BATCH] = std::array::from_fn(|k| &boxes[k].0);
            let b: [&Obb; BATCH] = std::array::from_fn(|k| &boxes[k].1);
            let mut expected = 0u8;
            for k in 0..BATCH {
                expected |= u8::from(Obb::overlaps(&q, a[k], &Obb::place(&q, b[k]))) << k;
            }
            for wide in [Wide::detect(), Wide::HALVES] {
                prop_assert_eq!(Obb::overlaps_batch(&q, &a, &b, wide), expected, "{}", wide.name());
            }
        }
    }
}
