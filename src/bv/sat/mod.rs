//! The separating axis test of Gottschalk et al. 1996, §5: two boxes are disjoint iff their
//! projections onto one of 15 axes (the 3 face axes of each box and the 9 cross products of an
//! axis of each) are disjoint. With the relative rotation `R` (B's axes in A's box frame) and the
//! vector `T` between the centres, each axis test is a handful of multiplications.
//!
//! Two implementations side by side:
//! * [`separated`], in double precision on arrays: the reference, and the test of AABB trees
//!   (van den Bergen 1998, §3);
//! * [`separated_f32`], in single precision over four lanes ([`lanes`]: SSE on x86-64, a
//!   portable array elsewhere), with a rounding slack: the test of OBB trees, on the layout of a
//!   stored [`super::Obb`] (15 consecutive floats) and a placed one.
//!
//! Both add ε to every `|R_ij|` (§5, §7.1: a margin for nearly parallel edges), and both can
//! stop after the six face axes ("SAT lite", van den Bergen 1998, §3: it never invents a
//! separation but may miss one). The reference tries the nine edge–edge axes only if no face
//! axis separates; the single-precision test computes all fifteen without a branch.

pub(crate) mod batch;
pub(crate) mod box_triangle;
pub(crate) mod lanes;

use crate::math::Real;
use lanes::X8;

/// Whether one of the separating axes proves two boxes disjoint.
///
/// Box A is centred at the origin of its own frame with unit axes `e_0, e_1, e_2` and half
/// extents `a`; box B has half extents `b`, axes given by the *columns* of `r` (B's axes in A's box
/// frame: `r[i][j] = A_i · B_j`), and centre `t` in A's box frame. `rabs[i][j]` must be
/// `|r[i][j]| + ε` (§5, §7.1): the margin ε keeps the edge–edge axes of nearly parallel edges from
/// reporting a false separation. Returns `true` if an axis separates. The 6 face axes are tried
/// first; the 9 edge–edge axes `A_i × B_j` only if no face axis separates (early exit).
/// With `lite` only the 6 face axes are tried ("SAT lite", van den Bergen 1998, §3): it may
/// miss a separation but never invents one.
#[inline(always)]
pub fn separated(
    a: &[Real; 3],
    b: &[Real; 3],
    r: &[[Real; 3]; 3],
    rabs: &[[Real; 3]; 3],
    t: &[Real; 3],
    lite: bool,
) -> bool {
    // Each group of axes is evaluated without branches and combined with `|`: a data-dependent
    // early exit per axis costs more in branch mispredictions than the arithmetic it saves.
    // L = A_i: |T_i| > a_i + Σ_k b_k |R_ik|
    let mut sep = false;
    for i in 0..3 {
        sep |= t[i].abs() > a[i] + b[0] * rabs[i][0] + b[1] * rabs[i][1] + b[2] * rabs[i][2];
    }
    // L = B_j: |Σ_k T_k R_kj| > Σ_k a_k |R_kj| + b_j
    for j in 0..3 {
        let s = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        sep |= s.abs() > a[0] * rabs[0][j] + a[1] * rabs[1][j] + a[2] * rabs[2][j] + b[j];
    }
    if sep || lite {
        return sep;
    }
    // L = A_i × B_j. With (i, i1, i2) and (j, j1, j2) cyclic:
    // |T_i2 R_i1j − T_i1 R_i2j| > a_i1 |R_i2j| + a_i2 |R_i1j| + b_j1 |R_ij2| + b_j2 |R_ij1|
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let s = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            sep |= s.abs()
                > a[i1] * rabs[i2][j]
                    + a[i2] * rabs[i1][j]
                    + b[j1] * rabs[i][j2]
                    + b[j2] * rabs[i][j1];
        }
    }
    sep
}

/// The single-precision test of a box of A against a placed box of B (what OBB trees run).
///
/// `a` is a stored box as 15 consecutive floats: the 3×3 matrix of its axes column by column
/// (`a[3k + i]` = coordinate `k` of axis `i`), its 3 half extents, its centre (A's volume frame).
/// `b_axes[j]` is B's axis `j` in A's frame and `b_rows[k]` the transpose (`b_rows[k][j]` =
/// coordinate `k` of axis `j`), lane 3 zero; `b_half` B's half extents (lane 3 zero);
/// `b_center` B's centre in lanes 1, 2, 3 (A's frame; lane 0 is not read). `eps` is the margin
/// added to every `|R_ij|`, `slack` what is added to every right-hand side ([`Slack`]). Returns
/// `true` if an axis separates; with `lite` only the face axes are tried. Without `lite` all 15
/// axes are computed, with no branch on the face axes' verdicts (see [`separated_f32_pair`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn separated_f32(
    a: &[f32; 15],
    b_axes: &[[f32; 4]; 3],
    b_rows: &[[f32; 4]; 3],
    b_half: &[f32; 4],
    b_center: &[f32; 4],
    eps: f32,
    slack: Slack,
    lite: bool,
) -> bool {
    // The paired test's code on one 4-lane half (`lanes::One`): one algorithm for both.
    let p = SatPair {
        a,
        b_axes,
        b_rows,
        b_half,
        b_center,
    };
    separated_x8::<lanes::One>([p, p], eps, slack, lite).0[0]
}

/// The slack added to every right-hand side of a single-precision test: `relative · (|d|₁ +
/// Σ a_i + Σ b_j) + absolute` (`d` the vector between the centres, `a`, `b` the half extents),
/// which covers the test's rounding ([`super::obb::SLACK`]). Computed in the lanes, in the order
/// `relative · ((|d_0| + |d_1|) + |d_2| + ((a_0 + a_1) + (a_2 + ((b_0 + b_1) + b_2)))) + absolute`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slack {
    /// The factor of the sizes and the distance.
    pub relative: f32,
    /// The absolute part (the query's margin).
    pub absolute: f32,
}

/// One side of a paired test: a stored box of A (15 floats, as for [`separated_f32`]) and a
/// placed box of B (its axes, their transpose and its half extents, lane 3 zero, and its centre
/// in lanes 1, 2, 3).
#[derive(Clone, Copy)]
pub(crate) struct SatPair<'a> {
    /// The stored box of A.
    pub a: &'a [f32; 15],
    /// B's axes in A's frame.
    pub b_axes: &'a [[f32; 4]; 3],
    /// Their transpose.
    pub b_rows: &'a [[f32; 4]; 3],
    /// B's half extents.
    pub b_half: &'a [f32; 4],
    /// B's centre in lanes 1, 2, 3 (A's frame; lane 0 is not read).
    pub b_center: &'a [f32; 4],
}

/// Two separating axis tests at once: `[separated_f32(p[0]…), separated_f32(p[1]…)]`, the
/// same results bit for bit (each test in its own half of eight lanes, the same operations in
/// the same order). Traversals test both children of a split together; the halves share the
/// instructions.
///
/// Without `lite`, the nine edge–edge axes are computed whether or not a face axis has
/// separated: the branch on "both tests decided by their face axes" was mispredicted often
/// (docs/decisions.md, "Separating axis test").
#[inline(always)]
pub(crate) fn separated_f32_pair(
    wide: lanes::Wide,
    p: [SatPair<'_>; 2],
    eps: f32,
    slack: Slack,
    lite: bool,
) -> [bool; 2] {
    match wide.0 {
        #[cfg(simd_x86)]
        // SAFETY: a `Wide` says AVX2 only where the CPU has it (`Wide::detect`).
        lanes::WideKind::Avx2 => unsafe { separated_avx2(p, eps, slack, lite) },
        #[cfg(simd_x86)]
        lanes::WideKind::Avx2Inline => separated_x8::<lanes::Avx8>(p, eps, slack, lite).0,
        _ => separated_x8::<lanes::Halves>(p, eps, slack, lite).0,
    }
}

/// [`separated_f32_pair`] with each test's face depth: the least of `rhs − lhs` over the six
/// face axes (units of the boxes' frame; the right-hand sides with their slack), how far the
/// boxes reach into each other along the face axis where they overlap least. Positive where
/// no face axis separates. The first-contact order takes the deeper pair first
/// ([`crate::bv::BoundingVolume::overlaps_pair_depth`]). The same verdicts bit for bit.
#[inline(always)]
pub(crate) fn separated_f32_pair_depth(
    wide: lanes::Wide,
    p: [SatPair<'_>; 2],
    eps: f32,
    slack: Slack,
    lite: bool,
) -> ([bool; 2], [f32; 2]) {
    match wide.0 {
        #[cfg(simd_x86)]
        // SAFETY: a `Wide` says AVX2 only where the CPU has it (`Wide::detect`).
        lanes::WideKind::Avx2 => unsafe { separated_depth_avx2(p, eps, slack, lite) },
        #[cfg(simd_x86)]
        lanes::WideKind::Avx2Inline => separated_x8::<lanes::Avx8>(p, eps, slack, lite),
        _ => separated_x8::<lanes::Halves>(p, eps, slack, lite),
    }
}

/// [`separated_x8`] compiled for AVX2: inlined into callers compiled for AVX2 (the
/// traversal's walk), one call from any other caller (without it, each AVX operation
/// would be a call).
#[cfg(simd_x86)]
#[target_feature(enable = "avx2")]
#[inline]
fn separated_avx2(p: [SatPair<'_>; 2], eps: f32, slack: Slack, lite: bool) -> [bool; 2] {
    separated_x8::<lanes::Avx8>(p, eps, slack, lite).0
}

/// [`separated_f32_pair_depth`] compiled for AVX2 (see [`separated_avx2`]).
#[cfg(simd_x86)]
#[target_feature(enable = "avx2")]
#[inline]
fn separated_depth_avx2(
    p: [SatPair<'_>; 2],
    eps: f32,
    slack: Slack,
    lite: bool,
) -> ([bool; 2], [f32; 2]) {
    separated_x8::<lanes::Avx8>(p, eps, slack, lite)
}

/// [`rotate_x8`] compiled for AVX2 (see [`separated_avx2`]).
#[cfg(simd_x86)]
#[target_feature(enable = "avx2")]
#[inline]
fn rotate_avx2(m: &[[f32; 4]; 3], cols: [&[[f32; 3]; 3]; 2]) -> [RotatedAxes; 2] {
    rotate_x8::<lanes::Avx8>(m, cols)
}

/// [`separated_f32`] on two halves (see [`separated_f32_pair`]), with each half's face depth
/// ([`separated_f32_pair_depth`]; a caller that drops it does not compute it).
#[inline(always)]
fn separated_x8<W: X8>(
    p: [SatPair<'_>; 2],
    eps: f32,
    slack: Slack,
    lite: bool,
) -> ([bool; 2], [f32; 2]) {
    let [p0, p1] = p;
    let colx = W::load2(&p0.a[0..], &p1.a[0..]);
    let coly = W::load2(&p0.a[3..], &p1.a[3..]);
    let colz = W::load2(&p0.a[6..], &p1.a[6..]);
    let ha = W::load2(&p0.a[9..], &p1.a[9..]);
    // B's centre minus A's, lanes 1, 2, 3 (A's centre is the stored box's last three floats),
    // each coordinate then broadcast: no scalar subtractions to be moved into the lanes.
    let d = W::load2(p0.b_center, p1.b_center).sub(W::load2(&p0.a[11..], &p1.a[11..]));
    let (dx, dy, dz) = (d.broadcast::<1>(), d.broadcast::<2>(), d.broadcast::<3>());
    let epsv = W::splat(eps);
    // No closures, `array::from_fn` or `map` here: they are not always inlined, and an AVX
    // operation left in a function not compiled for AVX becomes a call per operation.
    let cols = [colx, coly, colz];
    let t = madd(cols, dx, dy, dz);
    let rc = [
        column(cols, W::load2(&p0.b_axes[0], &p1.b_axes[0])),
        column(cols, W::load2(&p0.b_axes[1], &p1.b_axes[1])),
        column(cols, W::load2(&p0.b_axes[2], &p1.b_axes[2])),
    ];
    let ra = [
        rc[0].abs().add(epsv),
        rc[1].abs().add(epsv),
        rc[2].abs().add(epsv),
    ];
    let hbv = W::load2(p0.b_half, p1.b_half);
    let hb = [
        hbv.broadcast::<0>(),
        hbv.broadcast::<1>(),
        hbv.broadcast::<2>(),
    ];
    let (ha0, ha1, ha2) = (
        ha.broadcast::<0>(),
        ha.broadcast::<1>(),
        ha.broadcast::<2>(),
    );
    let sl = slack_x8(slack, [dx, dy, dz], [ha0, ha1, ha2], &hb);
    // A's face axes. No early exit after them or after B's: whether both tests end there is
    // hard to predict, and the axes cost less than the mispredictions.
    let rhs = ha
        .add(sl)
        .add(hb[0].mul(ra[0]).add(hb[1].mul(ra[1])).add(hb[2].mul(ra[2])));
    let face_a = t.abs().gt(rhs);
    let depth_a = rhs.sub(t.abs());
    // B's face axes.
    let bt = [
        W::load2(&p0.b_rows[0], &p1.b_rows[0]),
        W::load2(&p0.b_rows[1], &p1.b_rows[1]),
        W::load2(&p0.b_rows[2], &p1.b_rows[2]),
    ];
    let sb = bt[0].mul(dx).add(bt[1].mul(dy)).add(bt[2].mul(dz));
    let rows = W::transpose3(ra[0], ra[1], ra[2]);
    let rhs = hbv
        .add(sl)
        .add(ha0.mul(rows[0]).add(ha1.mul(rows[1])).add(ha2.mul(rows[2])));
    // The axes' verdicts stay lane masks until the one decision at the end.
    let faces = W::or(face_a, sb.abs().gt(rhs));
    let depth = least_depth(depth_a.min(rhs.sub(sb.abs())));
    if lite {
        return (W::any3(faces), depth);
    }
    let any = edge_axes_separate(faces, t, ha, &rc, &ra, &hb, sl);
    (W::any3(any), depth)
}

/// `c[0]·x + c[1]·y + c[2]·z`, lane by lane.
#[inline(always)]
fn madd<W: X8>(c: [W; 3], x: W, y: W, z: W) -> W {
    c[0].mul(x).add(c[1].mul(y)).add(c[2].mul(z))
}

/// The matrix with columns `c` times the vector broadcast from lanes 0, 1, 2 of `bj`.
#[inline(always)]
fn column<W: X8>(c: [W; 3], bj: W) -> W {
    madd(
        c,
        bj.broadcast::<0>(),
        bj.broadcast::<1>(),
        bj.broadcast::<2>(),
    )
}

/// The slack ([`Slack`]), from values already in the lanes (not summed as scalars and moved):
/// `d` the centres' offset, `ha` and `hb` the boxes' half sizes, each broadcast.
#[inline(always)]
fn slack_x8<W: X8>(slack: Slack, d: [W; 3], ha: [W; 3], hb: &[W; 3]) -> W {
    let [dx, dy, dz] = d;
    let [ha0, ha1, ha2] = ha;
    let gap = dx.abs().add(dy.abs()).add(dz.abs());
    let sizes = ha0.add(ha1).add(ha2.add(hb[0].add(hb[1]).add(hb[2])));
    W::splat(slack.relative)
        .mul(gap.add(sizes))
        .add(W::splat(slack.absolute))
}

/// Each half's face depth: the least of lanes 0, 1, 2 of `d`.
#[inline(always)]
fn least_depth<W: X8>(d: W) -> [f32; 2] {
    let [lo, hi] = d.to_arrays();
    let least = |d: [f32; 4]| d[0].min(d[1]).min(d[2]);
    [least(lo), least(hi)]
}

/// The face axes' verdicts `faces` or'ed with the nine edge–edge axes', computed even where a
/// face axis separates (no branch: see [`separated_f32_pair`]).
#[inline(always)]
fn edge_axes_separate<W: X8>(
    faces: W::M,
    t: W,
    ha: W,
    rc: &[W; 3],
    ra: &[W; 3],
    hb: &[W; 3],
    sl: W,
) -> W::M {
    let (t1r, t2r) = (t.rot1(), t.rot2());
    let (ha1r, ha2r) = (ha.rot1(), ha.rot2());
    let mut any = faces;
    for (j, rcj) in rc.iter().enumerate() {
        let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
        let (c1, c2) = (rcj.rot1(), rcj.rot2());
        let lhs = t2r.mul(c1).sub(t1r.mul(c2)).abs();
        // `|c| + ε` of the rotated column is the rotated `|R| + ε` (lane by lane, the same
        // bits): two shuffles instead of two absolute values and two additions.
        let (a1, a2) = (ra[j].rot1(), ra[j].rot2());
        let rhs = ha1r
            .mul(a2)
            .add(ha2r.mul(a1))
            .add(hb[j1].mul(ra[j2]).add(hb[j2].mul(ra[j1])).add(sl));
        any = W::or(any, lhs.gt(rhs));
    }
    any
}

/// B's axes (`cols[k][j]` = coordinate `k` of axis `j`) rotated by the matrix with columns `m`
/// (lane 3 zero): returns the rotated axes and their transpose (lane 3 zero), the layout
/// [`separated_f32`] reads.
#[inline(always)]
pub(crate) fn rotate_axes(m: &[[f32; 4]; 3], cols: &[[f32; 3]; 3]) -> RotatedAxes {
    // The paired placement's code on one 4-lane half.
    rotate_x8::<lanes::One>(m, [cols, cols])[0]
}

/// A box's axes rotated into A's frame and their transpose ([`rotate_axes`]).
pub(crate) type RotatedAxes = ([[f32; 4]; 3], [[f32; 4]; 3]);

/// [`rotate_axes`] of two boxes at once (each in its own half of eight lanes; the same results
/// bit for bit).
#[inline(always)]
pub(crate) fn rotate_axes_pair(
    wide: lanes::Wide,
    m: &[[f32; 4]; 3],
    cols: [&[[f32; 3]; 3]; 2],
) -> [RotatedAxes; 2] {
    match wide.0 {
        #[cfg(simd_x86)]
        // SAFETY: a `Wide` says AVX2 only where the CPU has it (`Wide::detect`).
        lanes::WideKind::Avx2 => unsafe { rotate_avx2(m, cols) },
        #[cfg(simd_x86)]
        lanes::WideKind::Avx2Inline => rotate_x8::<lanes::Avx8>(m, cols),
        _ => rotate_x8::<lanes::Halves>(m, cols),
    }
}

/// [`rotate_axes_pair`] on eight lanes (no closures or `map`: see [`separated_x8`]).
#[inline(always)]
fn rotate_x8<W: X8>(m: &[[f32; 4]; 3], cols: [&[[f32; 3]; 3]; 2]) -> [RotatedAxes; 2] {
    let (m0, m1, m2) = (
        W::load2(&m[0], &m[0]),
        W::load2(&m[1], &m[1]),
        W::load2(&m[2], &m[2]),
    );
    #[inline(always)]
    fn axis<W: X8>(m: [W; 3], c: [&[[f32; 3]; 3]; 2], j: usize) -> W {
        m[0].mul(W::splat2(c[0][0][j], c[1][0][j]))
            .add(m[1].mul(W::splat2(c[0][1][j], c[1][1][j])))
            .add(m[2].mul(W::splat2(c[0][2][j], c[1][2][j])))
    }
    let v = [
        axis([m0, m1, m2], cols, 0),
        axis([m0, m1, m2], cols, 1),
        axis([m0, m1, m2], cols, 2),
    ];
    let rows = W::transpose3(v[0], v[1], v[2]);
    let (v0, v1, v2) = (v[0].to_arrays(), v[1].to_arrays(), v[2].to_arrays());
    let (r0, r1, r2) = (
        rows[0].to_arrays(),
        rows[1].to_arrays(),
        rows[2].to_arrays(),
    );
    [
        ([v0[0], v1[0], v2[0]], [r0[0], r1[0], r2[0]]),
        ([v0[1], v1[1], v2[1]], [r0[1], r1[1], r2[1]]),
    ]
}
