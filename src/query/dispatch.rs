//! Which compilation of the walk runs: for any CPU, for AVX2, or for AVX2 with AVX-512F/VL
//! (x86-64, `simd_x86`: see `build.rs`). The walk's paired box tests run on 8-lane registers
//! where AVX2 was detected ([`Wide::detect`]).

use crate::bv::sat::lanes::Wide;
#[cfg(simd_x86)]
use crate::bv::sat::lanes::WideKind;

/// Code compiled once for each instruction set the dispatch picks from: [`Compilable::run`]
/// with `AVX` true runs inside a function compiled for AVX2 (or AVX2 with AVX-512F/VL), where
/// [`wide`] gives the paired tests inlined on 8-lane registers. The walk below a pair is the
/// one such code.
pub(super) trait Compilable {
    /// Runs; `AVX`: compiled for AVX2. Mark it `#[inline(always)]`, so that its body is
    /// compiled into each of [`run_on`]'s functions.
    fn run<const AVX: bool>(self) -> bool;
}

/// Runs `code` compiled for the instructions `wide` says the CPU has: AVX2, AVX2 with
/// AVX-512F/VL where `avx512` allows it and the CPU has them, else any CPU.
#[inline(always)]
pub(super) fn run_on<C: Compilable>(wide: Wide, avx512: bool, code: C) -> bool {
    #[cfg(simd_x86)]
    if wide.0 == WideKind::Avx2 {
        if avx512 && avx512vl() {
            // SAFETY: AVX2 (`wide`, from `Wide::detect`) and AVX-512F/VL were detected.
            return unsafe { walk_avx512(code) };
        }
        // SAFETY: `wide` says AVX2 only where the CPU has it (`Wide::detect`).
        return unsafe { walk_avx2(code) };
    }
    #[cfg(not(simd_x86))]
    let _ = (wide, avx512);
    code.run::<false>()
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
fn walk_avx2<C: Compilable>(code: C) -> bool {
    code.run::<true>()
}

/// The walk compiled for AVX2 with AVX-512F and VL: the same 256-bit operations with the 32
/// vector registers AVX-512VL gives (fewer spills), never a 512-bit register: a 512-bit
/// instruction slows Skylake-SP and Cascade Lake cores. So B's root box is copied by the caller,
/// placed boxes are written by [`write_unmerged`], and a visitor's leaf test is compiled for any
/// CPU (not inlined). OBB trees only (the others' double-precision tests would be widened).
/// Figures: docs/decisions.md, "Traversal".
#[cfg(simd_x86)]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn walk_avx512<C: Compilable>(code: C) -> bool {
    code.run::<true>()
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
    /// As the query picks it ([`run_on`]).
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

/// `code` compiled as `compiled` says.
#[cfg(test)]
pub(super) fn run_compiled<C: Compilable>(
    compiled: Compiled,
    wide: Wide,
    avx512: bool,
    code: C,
) -> bool {
    match compiled {
        Compiled::Picked => run_on(wide, avx512, code),
        Compiled::Any => code.run::<false>(),
        // SAFETY: listed by `compilations` only where detected.
        #[cfg(simd_x86)]
        Compiled::Avx2 => unsafe { walk_avx2(code) },
        // SAFETY: as above.
        #[cfg(simd_x86)]
        Compiled::Avx512 => unsafe { walk_avx512(code) },
    }
}
