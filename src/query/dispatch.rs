//! Which compilation of the walk runs: for any CPU, for AVX2, or for AVX2 with AVX-512F/VL
//! (x86-64, `simd_x86`: see `build.rs`). The walk's paired box tests run on 8-lane registers
//! where AVX2 was detected ([`Wide::detect`]).

use super::walk::{Pending, Visitor, Walk};
use crate::bv::BoundingVolume;
use crate::bv::sat::lanes::Wide;
#[cfg(simd_x86)]
use crate::bv::sat::lanes::WideKind;
use std::mem::MaybeUninit;

/// [`Walk::walk`] below the overlapping pair (a, b) on the instructions the CPU has; `pb` is
/// B's node placed in A's frame, copied to `arena[0]` here (see [`walk_avx512`]). `stack` and
/// `arena` hold at least the walk's bounds (its writes are checked: less panics).
#[inline(always)]
pub(super) fn walk_on<B: BoundingVolume, V: Visitor<B>>(
    w: &mut Walk<'_, B>,
    v: &mut V,
    a: usize,
    b: usize,
    pb: &B::Placed,
    stack: &mut [MaybeUninit<Pending>],
    arena: &mut [MaybeUninit<B::Placed>],
) -> bool {
    arena[0].write(*pb);
    #[cfg(simd_x86)]
    if w.wide.0 == WideKind::Avx2 {
        if B::KIND == crate::bv::BvKind::Obb && avx512vl() {
            // SAFETY: AVX2 (`wide`, from `Wide::detect`) and AVX-512F/VL were detected.
            return unsafe { walk_avx512(w, v, a, b, stack, arena) };
        }
        // SAFETY: `wide` says AVX2 only where the CPU has it (`Wide::detect`).
        return unsafe { walk_avx2(w, v, a, b, stack, arena) };
    }
    w.walk::<V, false>(v, a, b, stack, arena)
}

/// The instructions of the paired tests in this compilation of the walk.
#[inline(always)]
pub(super) fn wide<const AVX: bool>() -> Wide {
    #[cfg(simd_x86)]
    if AVX {
        // Inline: this walk runs in `walk_avx2` or `walk_avx512`, compiled for AVX2.
        return Wide(WideKind::Avx2Inline);
    }
    Wide::HALVES
}

/// The walk compiled for AVX2: the paired box tests run on 8-lane registers.
#[cfg(simd_x86)]
#[target_feature(enable = "avx2")]
fn walk_avx2<B: BoundingVolume, V: Visitor<B>>(
    w: &mut Walk<'_, B>,
    v: &mut V,
    a: usize,
    b: usize,
    stack: &mut [MaybeUninit<Pending>],
    arena: &mut [MaybeUninit<B::Placed>],
) -> bool {
    w.walk::<V, true>(v, a, b, stack, arena)
}

/// The walk compiled for AVX2 with AVX-512F and VL: the same 256-bit operations with the 32
/// vector registers AVX-512VL gives (fewer spills), never a 512-bit register: a 512-bit
/// instruction slows Skylake-SP and Cascade Lake cores. So B's root box is copied by the caller
/// ([`walk_on`]), placed boxes are written by [`write_unmerged`], and a visitor's triangle test
/// is compiled for any CPU ([`super::triangles::Triangles::intersect`]). OBB trees only (the
/// others' double-precision tests would be widened). Figures: docs/decisions.md, "Traversal".
#[cfg(simd_x86)]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn walk_avx512<B: BoundingVolume, V: Visitor<B>>(
    w: &mut Walk<'_, B>,
    v: &mut V,
    a: usize,
    b: usize,
    stack: &mut [MaybeUninit<Pending>],
    arena: &mut [MaybeUninit<B::Placed>],
) -> bool {
    w.walk::<V, true>(v, a, b, stack, arena)
}

/// Whether this CPU has AVX-512F and AVX-512VL (the detection is cached by the standard
/// library).
#[cfg(simd_x86)]
#[inline]
fn avx512vl() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// Writes `value` to `dst` as 16-byte stores the compiler may not merge into wider ones
/// (volatile), where `T`'s size is a multiple of 16 bytes and its alignment at least 16; else
/// as one write. Keeps [`walk_avx512`] free of 64-byte (zmm) stores.
///
/// # Safety
/// `dst` is valid for writes of a `T` and aligned.
#[inline(always)]
pub(super) unsafe fn write_unmerged<T: Copy>(dst: *mut T, value: T) {
    #[cfg(target_arch = "x86_64")]
    if size_of::<T>().is_multiple_of(16) && align_of::<T>() >= 16 {
        use std::arch::x86_64::__m128;
        let src = &value as *const T as *const __m128;
        let dst = dst as *mut __m128;
        for k in 0..size_of::<T>() / 16 {
            // SAFETY: both hold `size_of::<T>() / 16` aligned 16-byte parts (the caller's
            // `dst`, and `value` on the stack or in registers); `__m128` has no invalid bits.
            unsafe { std::ptr::write_volatile(dst.add(k), src.add(k).read()) };
        }
        return;
    }
    // SAFETY: the caller's.
    unsafe { dst.write(value) }
}

/// A compilation of the walk, for tests that run each one.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(super) enum Compiled {
    /// As the query picks it ([`walk_on`]).
    Picked,
    /// For any CPU (the paired tests on two 4-lane halves).
    Any,
    /// For AVX2.
    #[cfg(simd_x86)]
    Avx2,
    /// For AVX2 with AVX-512F and VL.
    #[cfg(simd_x86)]
    Avx512,
}

/// The compilations of the walk this CPU can run.
#[cfg(test)]
pub(super) fn compilations() -> Vec<Compiled> {
    #[allow(unused_mut)]
    let mut all = vec![Compiled::Picked, Compiled::Any];
    #[cfg(simd_x86)]
    if Wide::detect().0 == WideKind::Avx2 {
        all.push(Compiled::Avx2);
        if avx512vl() {
            all.push(Compiled::Avx512);
        }
    }
    all
}

/// The walk below the overlapping root pair, compiled as `compiled` says.
#[cfg(test)]
pub(super) fn walk_compiled<B: BoundingVolume, V: Visitor<B>>(
    w: &mut Walk<'_, B>,
    v: &mut V,
    compiled: Compiled,
    pb: &B::Placed,
    stack: &mut [MaybeUninit<Pending>],
    arena: &mut [MaybeUninit<B::Placed>],
) -> bool {
    if !matches!(compiled, Compiled::Picked) {
        arena[0].write(*pb);
    }
    match compiled {
        Compiled::Picked => walk_on(w, v, 0, 0, pb, stack, arena),
        Compiled::Any => w.walk::<V, false>(v, 0, 0, stack, arena),
        // SAFETY: listed by `compilations` only where detected.
        #[cfg(simd_x86)]
        Compiled::Avx2 => unsafe { walk_avx2(w, v, 0, 0, stack, arena) },
        // SAFETY: as above.
        #[cfg(simd_x86)]
        Compiled::Avx512 => unsafe { walk_avx512(w, v, 0, 0, stack, arena) },
    }
}
