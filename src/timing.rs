//! Wall-clock helpers of the bench, the experiments and the command line (features `paper` and
//! `cli`): the core does not time anything.

/// The median of `values` (sorted in place; the mean of the two middle values for an even
/// count); 0 for an empty slice. The one median of the bench, the experiments and `obbtree collide` (timings).
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

/// Runs `f` and returns its value with the wall-clock seconds it took
/// ([`std::time::Instant`]; in the browser, where that panics, `web_time::Instant` over
/// `performance.now()`). The one timing helper of the bench and the experiments.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    #[cfg(not(target_arch = "wasm32"))]
    use std::time::Instant;
    #[cfg(target_arch = "wasm32")]
    use web_time::Instant;
    let start = Instant::now();
    let value = f();
    (value, start.elapsed().as_secs_f64())
}
