//! The leaves' triangles as a visitor of the walk sees them: A's in A's model frame, B's placed
//! in A's frame by [`transform_point`], and the exact triangle–triangle test on them.

use super::tri_tri::triangles_intersect_on;
use crate::bv::BoundingVolume;
use crate::bvh::Bvh;
use crate::math::{Matrix3, Point, Vector, transform_point};
use crate::predicates::Plane;

/// The triangles of two hierarchies' leaf slots, B's placed in A's frame by
/// `x_a = rot_ab · x_b + pos_ab` ([`transform_point`]: the coordinates the exact tests see,
/// bit for bit those of [`super::brute_force`]). The last placed triangle of B is kept: the
/// walk often tests one triangle of B against several of A in a row.
pub struct Triangles<'a> {
    corners_a: &'a [[Point; 3]],
    corners_b: &'a [[Point; 3]],
    triangles_a: &'a [u32],
    triangles_b: &'a [u32],
    rot_ab: Matrix3,
    pos_ab: Vector,
    /// The leaf slot of B last placed, its corners in A's frame and their plane.
    last_b: (usize, [Point; 3], Plane),
}

impl<'a> Triangles<'a> {
    pub(super) fn new<B: BoundingVolume>(
        a: &'a Bvh<B>,
        b: &'a Bvh<B>,
        rot_ab: &Matrix3,
        pos_ab: &Vector,
    ) -> Self {
        let o = Point::origin();
        Triangles {
            corners_a: a.slot_corners(),
            corners_b: b.slot_corners(),
            triangles_a: a.slot_triangles(),
            triangles_b: b.slot_triangles(),
            rot_ab: *rot_ab,
            pos_ab: *pos_ab,
            last_b: (usize::MAX, [o; 3], Plane::new(&o, &o, &o)),
        }
    }

    /// B's placement in A's frame, `(rot_ab, pos_ab)`.
    #[inline(always)]
    pub(super) fn placement(&self) -> (&Matrix3, &Vector) {
        (&self.rot_ab, &self.pos_ab)
    }

    /// The corners of A's leaf slot `slot_a`, A's model frame.
    #[inline(always)]
    pub fn corners_a(&self, slot_a: usize) -> [Point; 3] {
        self.corners_a[slot_a]
    }

    /// The corners of B's leaf slot `slot_b`, B's model frame.
    #[inline(always)]
    pub fn corners_b(&self, slot_b: usize) -> [Point; 3] {
        self.corners_b[slot_b]
    }

    /// The corners of B's leaf slot `slot_b` placed in A's frame.
    #[inline]
    pub fn placed_b(&mut self, slot_b: usize) -> [Point; 3] {
        self.place_b(slot_b);
        self.last_b.1
    }

    /// The mesh triangles (indices into each [`crate::mesh::TriMesh`], file order) of the leaf
    /// slots `(slot_a, slot_b)`.
    #[inline(always)]
    pub fn indices(&self, slot_a: usize, slot_b: usize) -> (u32, u32) {
        (self.triangles_a[slot_a], self.triangles_b[slot_b])
    }

    /// Whether the triangles of leaf slots `slot_a` (of A) and `slot_b` (of B) intersect,
    /// decided exactly ([`super::triangles_intersect`]: touching counts). Not inlined: compiled
    /// once for any CPU, so that its double-precision code is not widened to 512-bit registers
    /// in the AVX-512 compilation of the walk ([`super::dispatch`]).
    #[inline(never)]
    pub fn intersect(&mut self, slot_a: usize, slot_b: usize) -> bool {
        let p = self.corners_a[slot_a];
        self.place_b(slot_b);
        let (_, q, plane) = &self.last_b;
        triangles_intersect_on(&p, q, plane)
    }

    #[inline(always)]
    fn place_b(&mut self, slot_b: usize) {
        if slot_b != self.last_b.0 {
            let q = self.corners_b[slot_b].map(|x| transform_point(&self.rot_ab, &self.pos_ab, &x));
            self.last_b = (slot_b, q, Plane::new(&q[0], &q[1], &q[2]));
        }
    }
}
