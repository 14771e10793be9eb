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

/// Eq. (1)'s constants over a sample of poses of one pair of hierarchies, measured with
/// [`crate::query::cost`] (the viewer's and the criterion bench's method): seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct SampleCosts {
    /// T_0, the mean fixed cost of a query.
    pub t_0: f64,
    /// C_v per box test: Σ (T_boxes − T_set_up) / Σ (N_v − 1); `None` below
    /// [`crate::query::cost::MIN_TESTS`] box tests in all.
    pub c_v: Option<f64>,
    /// C_p per triangle test: Σ (T_query − T_boxes) / Σ N_p; `None` below the same count.
    pub c_p: Option<f64>,
}

/// [`SampleCosts`] of `a` against `b` at each pose `(rot_ab, pos_ab)` of `poses`, with
/// `overlap`: each pose's three walks timed in batches of at least 20 µs, three rounds.
pub fn sample_costs<B: crate::bv::BoundingVolume>(
    a: &crate::bvh::Bvh<B>,
    b: &crate::bvh::Bvh<B>,
    poses: impl Iterator<Item = (crate::math::Matrix3, crate::math::Vector)>,
    overlap: &crate::bv::OverlapOptions,
) -> SampleCosts {
    use crate::query::cost::{self, CostProbe, Costs, MIN_TESTS};
    #[cfg(not(target_arch = "wasm32"))]
    use std::time::Instant;
    #[cfg(target_arch = "wasm32")]
    use web_time::Instant;
    let start = Instant::now();
    let mut now = || start.elapsed().as_secs_f64();
    let mut sum = Costs::default();
    let mut poses_n = 0usize;
    for (rot, pos) in poses {
        let mut probe = CostProbe::new(a, b, &rot, &pos, overlap);
        let c = cost::measure(&mut probe, &mut now, 20e-6, 3);
        sum.counts.bv_tests += c.counts.bv_tests.saturating_sub(1);
        sum.counts.tri_tests += c.counts.tri_tests;
        sum.set_up += c.set_up;
        sum.boxes += c.boxes;
        sum.query += c.query;
        poses_n += 1;
    }
    let (n_v, n_p) = (sum.counts.bv_tests, sum.counts.tri_tests);
    let c_v = (n_v >= MIN_TESTS).then(|| ((sum.boxes - sum.set_up) / n_v as f64).max(0.0));
    let c_p = (n_p >= MIN_TESTS).then(|| ((sum.query - sum.boxes) / n_p as f64).max(0.0));
    let t_0 = ((sum.set_up - c_v.unwrap_or(0.0) * poses_n as f64) / poses_n.max(1) as f64).max(0.0);
    SampleCosts { t_0, c_v, c_p }
}
