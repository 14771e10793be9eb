//! Four single-precision lanes: the one place where the choice of SIMD instructions lives.
//!
//! On x86-64 the lanes are SSE registers (SSE and SSE2 belong to the x86-64 baseline, so no
//! target feature or run-time detection is needed); everywhere else — and on x86-64 with the
//! `portable-sat` feature, which CI builds and tests so that this path cannot rot — they are
//! plain arrays. Both compute every lane with the same IEEE single-precision operations in the
//! same order, so they give bit-identical results.

#[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
use std::arch::x86_64::*;

#[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
type Inner = __m128;
#[cfg(not(all(target_arch = "x86_64", not(feature = "portable-sat"))))]
type Inner = [f32; 4];

/// Four `f32` lanes.
#[derive(Clone, Copy)]
pub(crate) struct F32x4(Inner);

/// Four lane comparisons.
#[derive(Clone, Copy)]
pub(crate) struct Mask4(Inner);

/// Which implementation is compiled: `"sse"` or `"portable"`.
pub const LANES: &str = if cfg!(all(target_arch = "x86_64", not(feature = "portable-sat"))) {
    "sse"
} else {
    "portable"
};

#[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
impl F32x4 {
    /// The first four floats of `s` (which must hold at least four).
    #[inline(always)]
    pub fn load(s: &[f32]) -> Self {
        assert!(s.len() >= 4);
        // SAFETY: SSE is in the x86-64 baseline; the read is of four floats inside `s`.
        F32x4(unsafe { _mm_loadu_ps(s.as_ptr()) })
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
    /// Lane `K` (0, 1 or 2) in every lane.
    #[inline(always)]
    pub fn broadcast<const K: usize>(self) -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        F32x4(unsafe {
            match K {
                0 => _mm_shuffle_ps::<0x00>(self.0, self.0),
                1 => _mm_shuffle_ps::<0x55>(self.0, self.0),
                _ => _mm_shuffle_ps::<0xAA>(self.0, self.0),
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

#[cfg(all(target_arch = "x86_64", not(feature = "portable-sat")))]
impl Mask4 {
    /// No lane set.
    #[inline(always)]
    pub fn none() -> Self {
        // SAFETY: SSE is in the x86-64 baseline.
        Mask4(unsafe { _mm_setzero_ps() })
    }
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

#[cfg(not(all(target_arch = "x86_64", not(feature = "portable-sat"))))]
impl F32x4 {
    /// The first four floats of `s` (which must hold at least four).
    #[inline(always)]
    pub fn load(s: &[f32]) -> Self {
        F32x4([s[0], s[1], s[2], s[3]])
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
    /// Lane `K` (0, 1 or 2) in every lane.
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

#[cfg(not(all(target_arch = "x86_64", not(feature = "portable-sat"))))]
impl Mask4 {
    /// No lane set.
    #[inline(always)]
    pub fn none() -> Self {
        Mask4([0.0; 4])
    }
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
        assert_eq!(a.rot1().to_array(), [-2.0, 3.0, 1.0, -4.0]);
        assert_eq!(a.rot2().to_array(), [3.0, 1.0, -2.0, -4.0]);
        assert_eq!(a.broadcast::<2>().to_array(), [3.0; 4]);
        assert!(a.gt(b).any3() && !b.gt(F32x4::splat(5.0)).any3());
        // Lane 3 alone does not count.
        assert!(
            !F32x4::load(&[0.0, 0.0, 0.0, 9.0])
                .gt(F32x4::splat(1.0))
                .any3()
        );
        assert!(Mask4::none().or(a.gt(b)).any3());
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
