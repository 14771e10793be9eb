//! Contact normals: for a pair of touching or interpenetrating triangles, the direction along
//! which B leaves A with the least translation, and that translation.
//!
//! Two triangles are convex polytopes, so the least translation that separates them (their
//! penetration depth) lies along a face normal of their Minkowski difference, and those normals
//! are the separating axis test's candidates for a triangle pair (Gottschalk et al. 1996, §5;
//! the 11 axes: both face normals and the 9 cross products of an edge of each). Along each
//! candidate axis the overlap of the two projections is the translation that separates the
//! projections; the least of them is the penetration depth and its axis the normal. So:
//!
//! - a **face contact** (a corner or an edge of one triangle on the face of the other, or two
//!   faces flat on each other) has depth 0 along that face's normal: the normal is the face's;
//! - an **edge–edge contact** has depth 0 only along the edges' cross product: that is the
//!   normal;
//! - an **interpenetrating** pair gets the direction of least separating motion, and its depth.
//!
//! Face normals are tried before edge cross products, so a tie goes to the face. The normal is
//! oriented from A to B: moving B by `depth` along it leaves the pair touching, not crossing.

use crate::math::{Point, Real, Vector};

/// Which features give a contact's normal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum NormalFeature {
    /// The face of A's triangle.
    FaceA,
    /// The face of B's triangle.
    FaceB,
    /// Edge `i` of A's triangle (corners `i`, `i+1`) and edge `j` of B's.
    Edges(u8, u8),
}

/// The normal of one contact (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactNormal {
    /// Unit vector in the frame the triangles were given in (A's model frame for the library's
    /// contacts), pointing from A to B.
    pub normal: Vector,
    /// The least translation of B (model units, along `normal`) after which the triangles only
    /// touch: 0 for a touching contact, the penetration depth for an interpenetrating one.
    pub depth: Real,
    /// The features the normal comes from.
    pub feature: NormalFeature,
}

/// The contact normal of triangles `p` (A's) and `q` (B's), both in one frame (see the module
/// documentation). Meant for intersecting pairs; for a separated pair the result is the axis
/// of largest separation with depth 0.
///
/// `None` when no candidate axis has a direction: both triangles degenerate to points, or to
/// parallel segments, with no face normal between them.
pub fn contact_normal(p: &[Point; 3], q: &[Point; 3]) -> Option<ContactNormal> {
    let mut best: Option<ContactNormal> = None;
    let mut consider = |axis: Vector, feature: NormalFeature| {
        let Some(u) = unit(axis) else { return };
        let (lo_p, hi_p) = interval(p, &u);
        let (lo_q, hi_q) = interval(q, &u);
        // B pushed along +u until its lowest point meets A's highest, or along -u.
        let (plus, minus) = (hi_p - lo_q, hi_q - lo_p);
        let (normal, depth) = if plus <= minus {
            (u, plus)
        } else {
            (-u, minus)
        };
        if best.as_ref().is_none_or(|b| depth < b.depth) {
            best = Some(ContactNormal {
                normal,
                depth,
                feature,
            });
        }
    };
    consider(face_normal(p), NormalFeature::FaceA);
    consider(face_normal(q), NormalFeature::FaceB);
    for i in 0..3 {
        let e = p[(i + 1) % 3] - p[i];
        for j in 0..3 {
            let f = q[(j + 1) % 3] - q[j];
            consider(e.cross(&f), NormalFeature::Edges(i as u8, j as u8));
        }
    }
    best.map(|mut b| {
        b.depth = b.depth.max(0.0);
        b
    })
}

fn face_normal(t: &[Point; 3]) -> Vector {
    (t[1] - t[0]).cross(&(t[2] - t[0]))
}

/// `v` normalised, or `None` if it has no direction: zero, not finite, or shorter than
/// `sqrt(f64::MIN_POSITIVE)` (about 1e-154), where its squared length underflows.
fn unit(v: Vector) -> Option<Vector> {
    let len = v.norm();
    (len > Real::MIN_POSITIVE.sqrt() && len.is_finite()).then(|| v / len)
}

fn interval(t: &[Point; 3], u: &Vector) -> (Real, Real) {
    let d = [t[0].coords.dot(u), t[1].coords.dot(u), t[2].coords.dot(u)];
    (d[0].min(d[1]).min(d[2]), d[0].max(d[1]).max(d[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> [Point; 3] {
        [a.into(), b.into(), c.into()]
    }

    #[test]
    fn a_corner_on_a_face_gives_the_face_normal_from_a_to_b() {
        let floor = tri([-1., -1., 0.], [2., -1., 0.], [-1., 2., 0.]);
        // B's corner touches the floor from above; its face is tilted.
        let above = tri([0., 0., 0.], [1., 0., 1.], [0., 1., 2.]);
        let n = contact_normal(&floor, &above).unwrap();
        assert_eq!(n.normal, Vector::z());
        assert_eq!(n.depth, 0.0);
        assert_eq!(n.feature, NormalFeature::FaceA);
        // Swapped, A above: the normal still points from A (now above) to B.
        let n = contact_normal(&above, &floor).unwrap();
        assert_eq!(n.normal, -Vector::z());
        assert_eq!(n.feature, NormalFeature::FaceB);
    }

    #[test]
    fn crossed_edges_give_their_cross_product() {
        // A's edge along x at z = 0, B's along y at z = 0, the triangles opening away.
        let a = tri([-1., 0., 0.], [1., 0., 0.], [0., 0., -1.]);
        let b = tri([0., -1., 0.], [0., 1., 0.], [0., 0., 1.]);
        let n = contact_normal(&a, &b).unwrap();
        assert_eq!(n.feature, NormalFeature::Edges(0, 0));
        assert_eq!(n.normal, Vector::z());
        assert_eq!(n.depth, 0.0);
    }

    #[test]
    fn an_interpenetrating_pair_gets_its_least_separating_motion() {
        let floor = tri([-1., -1., 0.], [2., -1., 0.], [-1., 2., 0.]);
        // B's corner 0.1 below the floor, the rest well above: lifting B by 0.1 separates.
        let b = tri([0., 0., -0.1], [0.5, 0., 2.], [0., 0.5, 2.]);
        let n = contact_normal(&floor, &b).unwrap();
        assert_eq!(n.normal, Vector::z());
        assert!((n.depth - 0.1).abs() < 1e-15, "{n:?}");
    }

    #[test]
    fn points_have_no_normal() {
        let p = tri([0., 0., 0.], [0., 0., 0.], [0., 0., 0.]);
        assert_eq!(contact_normal(&p, &p), None);
    }
}
