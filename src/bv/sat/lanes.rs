//! Four single-precision lanes: the one place where the choice of SIMD instructions lives.
//!
//! On x86-64 the lanes are SSE registers (SSE and SSE2 belong to the x86-64 baseline, so no
//! target feature or run-time detection is needed); everywhere else — and on x86-64 with the
//! `portable-sat` feature, which CI builds and tests so that this path cannot rot — they are
//! plain arrays. Both compute every lane with the same IEEE single-precision operations in the
//! same order, so they give bit-identical results.

#[cfg(simd_x86)]
use std::arch::x86_64::*;

#[cfg(simd_x86)]
type Inner = __m128;
#[cfg(not(simd_x86))]
type Inner = [f32; 4];

/// Four `f32` lanes.
#[derive(Clone, Copy)]
pub(crate) struct F32x4(Inner);

/// Four lane comparisons.
#[derive(Clone, Copy)]
pub(crate) struct Mask4(Inner);

#[cfg(simd_x86)]
impl F32x4 {
    /// The first four floats of `s` (which must hold at least four).
    #[inline(always)]
    pub fn load(s: &[f32]) -> Self {
        assert!(s.len() >= 4);
        // SAFETY: SSE is in the x86-64 baseline; the read is of four floats inside `s`.
        F32x4(unsafe { _mm_loadu_ps(s.as_ptr()) })
    }
    /// The first three floats of `s` (which must hold at least four) and a zero lane 3.
    #[inline(always)]
    pub fn load3(s: &[f32]) -> Self {
        // SAFETY: SSE and SSE2 are in the x86-64 baseline.
        let mask = unsafe { _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)) };
        // SAFETY: as above.
        F32x4(unsafe { _mm_and_ps(Self::load(s).0, mask) })
    }
    /// `x` in every lane.
    #[inline(always)]
    pub fn splat(x: f32) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_set1_ps(x) })
    }
    /// Lane-wise `a + b`.
    #[inline(always)]
    pub fn add(self, b: Self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_add_ps(self.0, b.0) })
    }
    /// Lane-wise `a − b`.
    #[inline(always)]
    pub fn sub(self, b: Self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_sub_ps(self.0, b.0) })
    }
    /// Lane-wise `a · b`.
    #[inline(always)]
    pub fn mul(self, b: Self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_mul_ps(self.0, b.0) })
    }
    /// Lane-wise `|a|` (clears the sign bit).
    #[inline(always)]
    pub fn abs(self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_andnot_ps(_mm_set1_ps(-0.0), self.0) })
    }
    /// Lane-wise `if a < b { a } else { b }`.
    #[inline(always)]
    pub fn min(self, b: Self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_min_ps(self.0, b.0) })
    }
    /// Lane-wise `if a > b { a } else { b }`.
    #[inline(always)]
    pub fn max(self, b: Self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_max_ps(self.0, b.0) })
    }
    /// Lane-wise `a > b`.
    #[inline(always)]
    pub fn gt(self, b: Self) -> Mask4 {
        // SAFETY: SSE is in the x86-64 baseline.
        Mask4(unsafe { _mm_cmpgt_ps(self.0, b.0) })
    }
    /// `(v1, v2, v0, v3)`.
    #[inline(always)]
    pub fn rot1(self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_shuffle_ps::<0b11_00_10_01>(self.0, self.0) })
    }
    /// `(v2, v0, v1, v3)`.
    #[inline(always)]
    pub fn rot2(self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_shuffle_ps::<0b11_01_00_10>(self.0, self.0) })
    }
    /// `(v3, v0, v1, v2)`.
    #[inline(always)]
    pub fn shift_up(self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe { _mm_shuffle_ps::<0b10_01_00_11>(self.0, self.0) })
    }
    /// Lane `K` (0 to 3) in every lane.
    #[inline(always)]
    pub fn broadcast<const K: usize>(self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe {
            match K {
                0 => _mm_shuffle_ps::<0x00>(self.0, self.0),
                1 => _mm_shuffle_ps::<0x55>(self.0, self.0),
                2 => _mm_shuffle_ps::<0xAA>(self.0, self.0),
                _ => _mm_shuffle_ps::<0xFF>(self.0, self.0),
            }
        })
    }
    /// The rows of the 3×3 matrix whose columns are lanes 0..3 of `a`, `b`, `c` (lane 3 zero).
    #[inline(always)]
    pub fn transpose3(a: Self, b: Self, c: Self) -> [Self; 3] {
        // SAFETY: SSE is in the x86-64 baseline.
        unsafe {
            let zero = _mm_setzero_ps();
            let t0 = _mm_unpacklo_ps(a.0, b.0);
            let t1 = _mm_unpackhi_ps(a.0, b.0);
            let t2 = _mm_unpacklo_ps(c.0, zero);
            let t3 = _mm_unpackhi_ps(c.0, zero);
            [
                F32x4(_mm_movelh_ps(t0, t2)),
                F32x4(_mm_movehl_ps(t2, t0)),
                F32x4(_mm_movelh_ps(t1, t3)),
            ]
        }
    }
    /// The four lanes.
    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        let mut out = [0.0; 4];
        // SAFETY: SSE is in the x86-64 baseline; the write is of four floats inside `out`.
        unsafe { _mm_storeu_ps(out.as_mut_ptr(), self.0) };
        out
    }
}

#[cfg(simd_x86)]
impl Mask4 {
    /// Lane-wise or.
    #[inline(always)]
    pub fn or(self, b: Self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        Mask4(unsafe { _mm_or_ps(self.0, b.0) })
    }
    /// Whether any of lanes 0, 1, 2 is set.
    #[inline(always)]
    pub fn any3(self) -> bool {
        // SAFETY: SSE is in the x86-64 baseline.
        unsafe { _mm_movemask_ps(self.0) & 0b111 != 0 }
    }
}

#[cfg(not(simd_x86))]
impl F32x4 {
    /// The first four floats of `s` (which must hold at least four).
    #[inline(always)]
    pub fn load(s: &[f32]) -> Self {
        F32x4([s[0], s[1], s[2], s[3]])
    }
    /// The first three floats of `s` (which must hold at least four) and a zero lane 3.
    #[inline(always)]
    pub fn load3(s: &[f32]) -> Self {
        assert!(s.len() >= 4);
        F32x4([s[0], s[1], s[2], 0.0])
    }
    /// `x` in every lane.
    #[inline(always)]
    pub fn splat(x: f32) -> Self {
        F32x4([x; 4])
    }
    #[inline(always)]
    fn zip(self, b: Self, f: impl Fn(f32, f32) -> f32) -> Self {
        F32x4(std::array::from_fn(|k| f(self.0[k], b.0[k])))
    }
    /// Lane-wise `a + b`.
    #[inline(always)]
    pub fn add(self, b: Self) -> Self {
        self.zip(b, |x, y| x + y)
    }
    /// Lane-wise `a − b`.
    #[inline(always)]
    pub fn sub(self, b: Self) -> Self {
        self.zip(b, |x, y| x - y)
    }
    /// Lane-wise `a · b`.
    #[inline(always)]
    pub fn mul(self, b: Self) -> Self {
        self.zip(b, |x, y| x * y)
    }
    /// Lane-wise `|a|`.
    #[inline(always)]
    pub fn abs(self) -> Self {
        F32x4(self.0.map(f32::abs))
    }
    /// Lane-wise `if a < b { a } else { b }` (as SSE's `minps`).
    #[inline(always)]
    pub fn min(self, b: Self) -> Self {
        self.zip(b, |x, y| if x < y { x } else { y })
    }
    /// Lane-wise `if a > b { a } else { b }` (as SSE's `maxps`).
    #[inline(always)]
    pub fn max(self, b: Self) -> Self {
        self.zip(b, |x, y| if x > y { x } else { y })
    }
    /// Lane-wise `a > b`.
    #[inline(always)]
    pub fn gt(self, b: Self) -> Mask4 {
        Mask4(std::array::from_fn(|k| {
            if self.0[k] > b.0[k] { 1.0 } else { 0.0 }
        }))
    }
    /// `(v1, v2, v0, v3)`.
    #[inline(always)]
    pub fn rot1(self) -> Self {
        let v = self.0;
        F32x4([v[1], v[2], v[0], v[3]])
    }
    /// `(v2, v0, v1, v3)`.
    #[inline(always)]
    pub fn rot2(self) -> Self {
        let v = self.0;
        F32x4([v[2], v[0], v[1], v[3]])
    }
    /// `(v3, v0, v1, v2)`.
    #[inline(always)]
    pub fn shift_up(self) -> Self {
        let v = self.0;
        F32x4([v[3], v[0], v[1], v[2]])
    }
    /// Lane `K` (0 to 3) in every lane.
    #[inline(always)]
    pub fn broadcast<const K: usize>(self) -> Self {
        F32x4([self.0[K]; 4])
    }
    /// The rows of the 3×3 matrix whose columns are lanes 0..3 of `a`, `b`, `c` (lane 3 zero).
    #[inline(always)]
    pub fn transpose3(a: Self, b: Self, c: Self) -> [Self; 3] {
        std::array::from_fn(|k| F32x4([a.0[k], b.0[k], c.0[k], 0.0]))
    }
    /// The four lanes.
    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        self.0
    }
}

#[cfg(not(simd_x86))]
impl Mask4 {
    /// Lane-wise or.
    #[inline(always)]
    pub fn or(self, b: Self) -> Self {
        Mask4(std::array::from_fn(|k| {
            if self.0[k] != 0.0 || b.0[k] != 0.0 {
                1.0
            } else {
                0.0
            }
        }))
    }
    /// Whether any of lanes 0, 1, 2 is set.
    #[inline(always)]
    pub fn any3(self) -> bool {
        self.0[..3].iter().any(|&x| x != 0.0)
    }
}

/// Which instructions the paired box tests ([`super::separated_f32_pair`]) run on: two tests
/// side by side in one 8-lane AVX2 register, or as two 4-lane halves (SSE or portable).
///
/// A value that says AVX2 exists only where the CPU has AVX2: the sole way to get one is
/// [`Wide::detect`] (run-time detection). Both give bit-identical results: every lane sees the
/// same IEEE single-precision operations in the same order, and no fused multiply-add.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wide(pub(crate) WideKind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WideKind {
    /// Two 4-lane halves ([`F32x4`]).
    Halves,
    /// One 256-bit AVX register (x86-64 with AVX2 detected at run time), for any caller: the
    /// tests run in a function compiled for AVX2 (one call).
    #[cfg(simd_x86)]
    Avx2,
    /// The same, for callers that are themselves compiled for AVX2 (the traversal's
    /// walk): the operations are inlined into the caller. Crate-private: elsewhere each
    /// operation would become a call.
    #[cfg(simd_x86)]
    Avx2Inline,
}

impl Wide {
    /// Two 4-lane halves: valid on every CPU.
    pub const HALVES: Wide = Wide(WideKind::Halves);

    /// AVX2 if this CPU has it (x86-64 without the `portable-sat` feature), else
    /// [`Wide::HALVES`]. The detection is cached by the standard library.
    pub fn detect() -> Wide {
        #[cfg(simd_x86)]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Wide(WideKind::Avx2);
        }
        Wide::HALVES
    }

    /// The same instructions for a caller that is itself compiled for AVX2
    /// (`#[target_feature(enable = "avx2")]`, as the traversal's walk is): the paired tests'
    /// operations are inlined into it. Elsewhere each operation becomes a call (slower, the same
    /// results). [`Wide::HALVES`] stays as it is.
    pub fn inlined(self) -> Wide {
        match self.0 {
            #[cfg(simd_x86)]
            WideKind::Avx2 => Wide(WideKind::Avx2Inline),
            _ => self,
        }
    }

    /// `"avx2"` or `"halves"`.
    pub fn name(self) -> &'static str {
        match self.0 {
            WideKind::Halves => "halves",
            #[cfg(simd_x86)]
            WideKind::Avx2 | WideKind::Avx2Inline => "avx2",
        }
    }
}

/// Eight `f32` lanes seen as two 4-lane halves: every operation acts on each half as the
/// [`F32x4`] operation of the same name (shuffles stay within a half), so a paired test computes
/// exactly the two single tests.
pub(crate) trait X8: Copy {
    type M: Copy;
    fn load2(lo: &[f32], hi: &[f32]) -> Self;
    fn splat2(lo: f32, hi: f32) -> Self;
    fn splat(x: f32) -> Self {
        Self::splat2(x, x)
    }
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn abs(self) -> Self;
    fn min(self, b: Self) -> Self;
    fn max(self, b: Self) -> Self;
    fn gt(self, b: Self) -> Self::M;
    fn rot1(self) -> Self;
    fn rot2(self) -> Self;
    fn broadcast<const K: usize>(self) -> Self;
    fn transpose3(a: Self, b: Self, c: Self) -> [Self; 3];
    fn or(a: Self::M, b: Self::M) -> Self::M;
    /// Per half: whether any of its lanes 0, 1, 2 is set.
    fn any3(m: Self::M) -> [bool; 2];
    /// The two halves.
    fn to_arrays(self) -> [[f32; 4]; 2];
}

/// Two [`F32x4`] halves.
#[derive(Clone, Copy)]
pub(crate) struct Halves([F32x4; 2]);

impl X8 for Halves {
    type M = [Mask4; 2];
    #[inline(always)]
    fn load2(lo: &[f32], hi: &[f32]) -> Self {
        Halves([F32x4::load(lo), F32x4::load(hi)])
    }
    #[inline(always)]
    fn splat2(lo: f32, hi: f32) -> Self {
        Halves([F32x4::splat(lo), F32x4::splat(hi)])
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        Halves([self.0[0].add(b.0[0]), self.0[1].add(b.0[1])])
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        Halves([self.0[0].sub(b.0[0]), self.0[1].sub(b.0[1])])
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        Halves([self.0[0].mul(b.0[0]), self.0[1].mul(b.0[1])])
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Halves([self.0[0].abs(), self.0[1].abs()])
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        Halves([self.0[0].min(b.0[0]), self.0[1].min(b.0[1])])
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        Halves([self.0[0].max(b.0[0]), self.0[1].max(b.0[1])])
    }
    #[inline(always)]
    fn gt(self, b: Self) -> [Mask4; 2] {
        [self.0[0].gt(b.0[0]), self.0[1].gt(b.0[1])]
    }
    #[inline(always)]
    fn rot1(self) -> Self {
        Halves([self.0[0].rot1(), self.0[1].rot1()])
    }
    #[inline(always)]
    fn rot2(self) -> Self {
        Halves([self.0[0].rot2(), self.0[1].rot2()])
    }
    #[inline(always)]
    fn broadcast<const K: usize>(self) -> Self {
        Halves([self.0[0].broadcast::<K>(), self.0[1].broadcast::<K>()])
    }
    #[inline(always)]
    fn transpose3(a: Self, b: Self, c: Self) -> [Self; 3] {
        let lo = F32x4::transpose3(a.0[0], b.0[0], c.0[0]);
        let hi = F32x4::transpose3(a.0[1], b.0[1], c.0[1]);
        [
            Halves([lo[0], hi[0]]),
            Halves([lo[1], hi[1]]),
            Halves([lo[2], hi[2]]),
        ]
    }
    #[inline(always)]
    fn or(a: [Mask4; 2], b: [Mask4; 2]) -> [Mask4; 2] {
        [a[0].or(b[0]), a[1].or(b[1])]
    }
    #[inline(always)]
    fn any3(m: [Mask4; 2]) -> [bool; 2] {
        [m[0].any3(), m[1].any3()]
    }
    #[inline(always)]
    fn to_arrays(self) -> [[f32; 4]; 2] {
        [self.0[0].to_array(), self.0[1].to_array()]
    }
}

/// One [`F32x4`] standing for both halves: the paired test's code run as the single test
/// ([`super::separated_f32`]). Both halves are the lower one (`load2`, `splat2` read only it).
#[derive(Clone, Copy)]
pub(crate) struct One(F32x4);

impl X8 for One {
    type M = Mask4;
    #[inline(always)]
    fn load2(lo: &[f32], _hi: &[f32]) -> Self {
        One(F32x4::load(lo))
    }
    #[inline(always)]
    fn splat2(lo: f32, _hi: f32) -> Self {
        One(F32x4::splat(lo))
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        One(self.0.add(b.0))
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        One(self.0.sub(b.0))
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        One(self.0.mul(b.0))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        One(self.0.abs())
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        One(self.0.min(b.0))
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        One(self.0.max(b.0))
    }
    #[inline(always)]
    fn gt(self, b: Self) -> Mask4 {
        self.0.gt(b.0)
    }
    #[inline(always)]
    fn rot1(self) -> Self {
        One(self.0.rot1())
    }
    #[inline(always)]
    fn rot2(self) -> Self {
        One(self.0.rot2())
    }
    #[inline(always)]
    fn broadcast<const K: usize>(self) -> Self {
        One(self.0.broadcast::<K>())
    }
    #[inline(always)]
    fn transpose3(a: Self, b: Self, c: Self) -> [Self; 3] {
        let [x, y, z] = F32x4::transpose3(a.0, b.0, c.0);
        [One(x), One(y), One(z)]
    }
    #[inline(always)]
    fn or(a: Mask4, b: Mask4) -> Mask4 {
        a.or(b)
    }
    #[inline(always)]
    fn any3(m: Mask4) -> [bool; 2] {
        let any = m.any3();
        [any, any]
    }
    #[inline(always)]
    fn to_arrays(self) -> [[f32; 4]; 2] {
        let v = self.0.to_array();
        [v, v]
    }
}

/// One AVX register. Its operations are only ever executed where AVX2 was detected (a
/// [`Wide`] that says so); they are inlined into the traversal compiled for AVX2.
#[cfg(simd_x86)]
#[derive(Clone, Copy)]
pub(crate) struct Avx8(__m256);

// SAFETY (every `unsafe` block of this impl): the AVX intrinsics run only on CPUs where AVX2
// was detected: `Avx8` values are made only on the `WideKind::Avx2` path, which only a
// detected `Wide` selects. Loads read four floats inside each slice (asserted).
#[cfg(simd_x86)]
impl X8 for Avx8 {
    type M = __m256;
    #[inline(always)]
    fn load2(lo: &[f32], hi: &[f32]) -> Self {
        assert!(lo.len() >= 4 && hi.len() >= 4);
        unsafe {
            Avx8(_mm256_set_m128(
                _mm_loadu_ps(hi.as_ptr()),
                _mm_loadu_ps(lo.as_ptr()),
            ))
        }
    }
    #[inline(always)]
    fn splat2(lo: f32, hi: f32) -> Self {
        unsafe { Avx8(_mm256_set_m128(_mm_set1_ps(hi), _mm_set1_ps(lo))) }
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        unsafe { Avx8(_mm256_add_ps(self.0, b.0)) }
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        unsafe { Avx8(_mm256_sub_ps(self.0, b.0)) }
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        unsafe { Avx8(_mm256_mul_ps(self.0, b.0)) }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        unsafe { Avx8(_mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0)) }
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        unsafe { Avx8(_mm256_min_ps(self.0, b.0)) }
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        unsafe { Avx8(_mm256_max_ps(self.0, b.0)) }
    }
    #[inline(always)]
    fn gt(self, b: Self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, b.0) }
    }
    #[inline(always)]
    fn rot1(self) -> Self {
        unsafe { Avx8(_mm256_shuffle_ps::<0b11_00_10_01>(self.0, self.0)) }
    }
    #[inline(always)]
    fn rot2(self) -> Self {
        unsafe { Avx8(_mm256_shuffle_ps::<0b11_01_00_10>(self.0, self.0)) }
    }
    #[inline(always)]
    fn broadcast<const K: usize>(self) -> Self {
        unsafe {
            Avx8(match K {
                0 => _mm256_shuffle_ps::<0x00>(self.0, self.0),
                1 => _mm256_shuffle_ps::<0x55>(self.0, self.0),
                2 => _mm256_shuffle_ps::<0xAA>(self.0, self.0),
                _ => _mm256_shuffle_ps::<0xFF>(self.0, self.0),
            })
        }
    }
    #[inline(always)]
    fn transpose3(a: Self, b: Self, c: Self) -> [Self; 3] {
        // As `F32x4::transpose3`, within each 128-bit half: `movelh` is `unpacklo_pd`,
        // `movehl(x, y)` is `unpackhi_pd(y, x)`.
        unsafe {
            let zero = _mm256_setzero_ps();
            let t0 = _mm256_unpacklo_ps(a.0, b.0);
            let t1 = _mm256_unpackhi_ps(a.0, b.0);
            let t2 = _mm256_unpacklo_ps(c.0, zero);
            let t3 = _mm256_unpackhi_ps(c.0, zero);
            let (t0, t1, t2, t3) = (
                _mm256_castps_pd(t0),
                _mm256_castps_pd(t1),
                _mm256_castps_pd(t2),
                _mm256_castps_pd(t3),
            );
            [
                Avx8(_mm256_castpd_ps(_mm256_unpacklo_pd(t0, t2))),
                Avx8(_mm256_castpd_ps(_mm256_unpackhi_pd(t0, t2))),
                Avx8(_mm256_castpd_ps(_mm256_unpacklo_pd(t1, t3))),
            ]
        }
    }
    #[inline(always)]
    fn or(a: __m256, b: __m256) -> __m256 {
        unsafe { _mm256_or_ps(a, b) }
    }
    #[inline(always)]
    fn any3(m: __m256) -> [bool; 2] {
        let bits = unsafe { _mm256_movemask_ps(m) };
        [bits & 0b111 != 0, bits & 0b111_0000 != 0]
    }
    #[inline(always)]
    fn to_arrays(self) -> [[f32; 4]; 2] {
        let mut out = [[0.0; 4]; 2];
        unsafe {
            _mm_storeu_ps(out[0].as_mut_ptr(), _mm256_castps256_ps128(self.0));
            _mm_storeu_ps(out[1].as_mut_ptr(), _mm256_extractf128_ps::<1>(self.0));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_do_what_their_names_say() {
        let a = F32x4::load(&[1.0, -2.0, 3.0, -4.0]);
        let b = F32x4::splat(2.0);
        assert_eq!(a.add(b).to_array(), [3.0, 0.0, 5.0, -2.0]);
        assert_eq!(a.sub(b).to_array(), [-1.0, -4.0, 1.0, -6.0]);
        assert_eq!(a.mul(b).to_array(), [2.0, -4.0, 6.0, -8.0]);
        assert_eq!(a.abs().to_array(), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(a.min(b).to_array(), [1.0, -2.0, 2.0, -4.0]);
        assert_eq!(a.max(b).to_array(), [2.0, 2.0, 3.0, 2.0]);
        assert_eq!(a.rot1().to_array(), [-2.0, 3.0, 1.0, -4.0]);
        assert_eq!(a.rot2().to_array(), [3.0, 1.0, -2.0, -4.0]);
        assert_eq!(a.broadcast::<2>().to_array(), [3.0; 4]);
        assert_eq!(a.broadcast::<3>().to_array(), [-4.0; 4]);
        assert_eq!(a.shift_up().to_array(), [-4.0, 1.0, -2.0, 3.0]);
        assert!(a.gt(b).any3() && !b.gt(F32x4::splat(5.0)).any3());
        // Lane 3 alone does not count.
        assert!(
            !F32x4::load(&[0.0, 0.0, 0.0, 9.0])
                .gt(F32x4::splat(1.0))
                .any3()
        );
        let empty = b.gt(F32x4::splat(5.0));
        assert!(empty.or(a.gt(b)).any3() && a.gt(b).or(empty).any3());
        assert!(!empty.or(empty).any3());
        let [r0, r1, r2] = F32x4::transpose3(
            F32x4::load(&[1.0, 2.0, 3.0, 9.0]),
            F32x4::load(&[4.0, 5.0, 6.0, 9.0]),
            F32x4::load(&[7.0, 8.0, 9.0, 9.0]),
        );
        assert_eq!(r0.to_array(), [1.0, 4.0, 7.0, 0.0]);
        assert_eq!(r1.to_array(), [2.0, 5.0, 8.0, 0.0]);
        assert_eq!(r2.to_array(), [3.0, 6.0, 9.0, 0.0]);
    }
}
