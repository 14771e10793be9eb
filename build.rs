//! One name for the overlap test's SIMD condition: `simd_x86` is set on x86-64 unless the
//! `portable-sat` feature asks for the portable lanes (`src/bv/sat/lanes.rs`).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(simd_x86)");
    let x86_64 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
    let portable = std::env::var_os("CARGO_FEATURE_PORTABLE_SAT").is_some();
    if x86_64 && !portable {
        println!("cargo::rustc-cfg=simd_x86");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
