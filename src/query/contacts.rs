//! The contacts visitor of the walk: every intersecting triangle pair, or the first one
//! (Gottschalk et al. 1996, §3; RAPID's `RAPID_ALL_CONTACTS` / `RAPID_FIRST_CONTACT`).

use super::triangles::Triangles;
use super::walk::{Control, LeafPair, Visitor};
use crate::bv::BoundingVolume;

/// The contacts visitor: tests each leaf pair's triangles exactly and keeps the intersecting
/// pairs `(triangle of A, triangle of B)`; a first-contact query stops at the first one and
/// orders the walk (the deeper child pair first), and `until` may stop it at any contact.
pub(super) struct Contacts<'u> {
    first: bool,
    until: Option<&'u mut dyn FnMut(u32, u32) -> bool>,
    pub(super) contacts: Vec<(u32, u32)>,
}

impl<'u> Contacts<'u> {
    /// A visitor that appends to `contacts` (its allocation reused).
    pub(super) fn with_storage(
        first: bool,
        until: Option<&'u mut dyn FnMut(u32, u32) -> bool>,
        contacts: Vec<(u32, u32)>,
    ) -> Self {
        Contacts {
            first,
            until,
            contacts,
        }
    }
}

impl<B: BoundingVolume> Visitor<B> for Contacts<'_> {
    const HEARS_PAIRS: bool = false;

    #[inline(always)]
    fn ordered(&self) -> bool {
        self.first
    }

    #[inline(always)]
    fn leaves(&mut self, pair: LeafPair, triangles: &mut Triangles<'_>) -> Control {
        if !triangles.intersect(pair.slot_a, pair.slot_b) {
            return Control::Continue;
        }
        let (ta, tb) = triangles.indices(pair.slot_a, pair.slot_b);
        self.contacts.push((ta, tb));
        let stop = self.first || self.until.as_mut().is_some_and(|until| until(ta, tb));
        if stop {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}
