//! The covariance fit of Gottschalk et al. 1996, §4.

use crate::math::{Matrix3, Point, Real, Vector};

/// Accumulates the paper's closed-form, area-weighted covariance over triangles.
///
/// For triangles `(p, q, r)` with areas `A_i`, centroids `c_i`, total area `A_H` and area-weighted
/// centroid `c_H` (Gottschalk et al. 1996, §4):
/// `C_jk = Σ_i A_i / (12 A_H) (9 c_ij c_ik + p_j p_k + q_j q_k + r_j r_k) − c_Hj c_Hk`.
#[derive(Default)]
struct AreaMoments {
    area: Real,
    weighted_centroid: Vector,
    second: Matrix3,
}

impl AreaMoments {
    #[inline]
    fn add(&mut self, p: &Vector, q: &Vector, r: &Vector) {
        let area = 0.5 * (q - p).cross(&(r - p)).norm();
        if area == 0.0 {
            return;
        }
        let c = (p + q + r) / 3.0;
        self.area += area;
        self.weighted_centroid += c * area;
        self.second +=
            (c * c.transpose() * 9.0 + p * p.transpose() + q * q.transpose() + r * r.transpose())
                * (area / 12.0);
    }

    fn covariance(&self) -> Option<Matrix3> {
        // Negated so that a NaN area also counts as "no area".
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(self.area > 0.0) {
            return None;
        }
        let ch = self.weighted_centroid / self.area;
        Some(self.second / self.area - ch * ch.transpose())
    }
}

/// Area-weighted covariance of a convex hull's surface (Gottschalk et al. 1996, §4), from the
/// hull's triangles given as corner triples, all in one frame. `None` if the total area is zero.
pub fn covariance_of_hull(triangles: impl Iterator<Item = [Vector; 3]>) -> Option<Matrix3> {
    let mut m = AreaMoments::default();
    for [p, q, r] in triangles {
        m.add(&p, &q, &r);
    }
    m.covariance()
}

/// The same closed form over a group's own triangles: the fallback for rank-deficient hulls
/// (§7.1). Coordinates are taken relative to `origin` for accuracy. `None` if every triangle
/// has zero area.
pub fn covariance_of_triangles(
    origin: &Point,
    triangles: impl Iterator<Item = [Point; 3]>,
) -> Option<Matrix3> {
    covariance_of_hull(triangles.map(|t| t.map(|p| p - origin)))
}

/// Covariance of a point set (the paper's first, vertex-based formula): the last fallback, for
/// groups whose triangles all have zero area. The zero matrix for a single point.
pub fn covariance_of_points(points: &[Point]) -> Matrix3 {
    if points.is_empty() {
        return Matrix3::zeros();
    }
    let n = points.len() as Real;
    let mean = points.iter().fold(Vector::zeros(), |s, p| s + p.coords) / n;
    points.iter().fold(Matrix3::zeros(), |s, p| {
        let d = p.coords - mean;
        s + d * d.transpose()
    }) / n
}

/// Eigenvectors of a symmetric 3×3 matrix as a right-handed orthonormal basis, in order of
/// decreasing eigenvalue (nalgebra's `SymmetricEigen`). For a rank-deficient matrix the basis is
/// completed orthonormally; for a non-finite one it is the identity.
pub fn principal_axes(cov: &Matrix3) -> [Vector; 3] {
    if !cov.iter().all(|x| x.is_finite()) {
        return [Vector::x(), Vector::y(), Vector::z()];
    }
    let eig = nalgebra::SymmetricEigen::new(*cov);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| eig.eigenvalues[j].total_cmp(&eig.eigenvalues[i]));
    let e0: Vector = eig.eigenvectors.column(order[0]).into_owned();
    let e1: Vector = eig.eigenvectors.column(order[1]).into_owned();
    // Gram–Schmidt against round-off, then complete right-handed.
    let Some(e0) = e0.try_normalize(1e-12) else {
        return [Vector::x(), Vector::y(), Vector::z()];
    };
    let e1 = (e1 - e0 * e0.dot(&e1))
        .try_normalize(1e-12)
        .unwrap_or_else(|| any_orthogonal(&e0));
    let e2 = e0.cross(&e1);
    [e0, e1, e2]
}

/// A unit vector orthogonal to the unit vector `v`.
pub(crate) fn any_orthogonal(v: &Vector) -> Vector {
    let helper = if v.x.abs() < 0.6 {
        Vector::x()
    } else {
        Vector::y()
    };
    v.cross(&helper).normalize()
}
