//! The separating axis test for two boxes (Gottschalk et al. 1996, §5).

use crate::math::Real;

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
