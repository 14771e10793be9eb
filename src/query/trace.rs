//! Recording the boxes a query opened: every overlapping volume pair, for drawing (Gottschalk
//! et al. 1996, Fig. 9), as an adapter of any visitor of the walk.

use super::triangles::Triangles;
use super::walk::{Control, LeafPair, Visitor};
use crate::bv::BoundingVolume;

/// Visitor `V` that also records every overlapping volume pair `(node of A, node of B)` in walk
/// order, leaf pairs and the pair the walk starts from included.
pub(super) struct Traced<V> {
    inner: V,
    pairs: Vec<(u32, u32)>,
}

impl<V> Traced<V> {
    /// `inner` recording into `pairs` (appended to).
    pub(super) fn new(inner: V, pairs: Vec<(u32, u32)>) -> Self {
        Traced { inner, pairs }
    }

    /// The inner visitor and the recorded pairs.
    pub(super) fn into_parts(self) -> (V, Vec<(u32, u32)>) {
        (self.inner, self.pairs)
    }
}

impl<B: BoundingVolume, V: Visitor<B>> Visitor<B> for Traced<V> {
    const TOLERANCE: bool = V::TOLERANCE;
    const SHRINKING: bool = V::SHRINKING;

    #[inline(always)]
    fn tolerance(&self) -> crate::math::Real {
        self.inner.tolerance()
    }

    #[inline(always)]
    fn ordered(&self) -> bool {
        self.inner.ordered()
    }

    #[inline(always)]
    fn overlapping(&mut self, a: u32, b: u32) {
        self.pairs.push((a, b));
        self.inner.overlapping(a, b);
    }

    #[inline(always)]
    fn disjoint(&mut self, a: u32, b: u32) {
        self.inner.disjoint(a, b);
    }

    #[inline(always)]
    fn skipped(&mut self, a: u32, b: u32) {
        self.inner.skipped(a, b);
    }

    #[inline(always)]
    fn leaves(&mut self, pair: LeafPair, triangles: &mut Triangles<'_>) -> Control {
        self.inner.leaves(pair, triangles)
    }
}
