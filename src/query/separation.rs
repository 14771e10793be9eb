//! Incremental queries with separation lists (Li & Chen, "Incremental 3D collision detection
//! with hierarchical data structures", §4).
//!
//! The traversal of a pair of hierarchies walks a recursion tree of node pairs. The pairs where
//! it stops — volumes disjoint, or a pair of leaves whose triangles were tested — form a cut
//! of that tree, the *separation list* (§4.1). When the models move little between two
//! queries, most of the list stays where it was, so the next query can start from the list
//! instead of from the root pair and save the volume tests above it.

use super::QueryOptions;
use super::triangles::Triangles;
use super::walk::{Control, Counts, LeafPair, Parent, Visitor, Walk};
use crate::bv::BoundingVolume;
use crate::bv::sat::batch::BATCH;
use crate::bvh::Bvh;
use crate::math::{Matrix3, Vector};

/// When a [`SeparationList`] is rebuilt from the root pair instead of updated from its last
/// cut (Li & Chen §4.2–§4.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum SeparationPolicy {
    /// Every query starts at the root pair (the top-down traversal of §3.3, Fig. 1); the list is
    /// recorded but never reused. Its counts equal those of a query without a list.
    #[cfg_attr(
        feature = "cli",
        value(
            help = "Every query starts at the root pair (the top-down traversal of §3.3, \
                      Fig. 1); the list is recorded but never reused: the counts of a query \
                      without a list"
        )
    )]
    TopDown,
    /// §4.3, Fig. 4(a): update the list while it grows; once an update leaves its size
    /// unchanged, rebuild it from the root at the next query ("Using SL" in Table 1).
    Predicted,
    /// §4.4, Fig. 4(b): as `Predicted`, but the rebuild is deferred until the list has not
    /// grown for two consecutive queries ("Deferred SL" in Table 1).
    #[default]
    Deferred,
}

impl SeparationPolicy {
    /// All policies, in the order of Li & Chen's Table 1.
    pub const ALL: [SeparationPolicy; 3] = [Self::TopDown, Self::Predicted, Self::Deferred];

    /// A short name: `top-down`, `predicted` or `deferred`.
    pub fn name(self) -> &'static str {
        match self {
            Self::TopDown => "top-down",
            Self::Predicted => "predicted",
            Self::Deferred => "deferred",
        }
    }
}

/// The separation list of one ordered pair of hierarchies (A, B): a per-pair cache kept from
/// one query to the next (Li & Chen §4).
///
/// Invariant: the stored pairs `(node of A, node of B)` (indices into [`Bvh::nodes`]) form a
/// complete cut of the pair's recursion tree, so a query started from it ([`super::collide_with`]) finds
/// exactly the contacts of a query from the root pair whatever the models did since the list was made.
/// Between rebuilds the list only moves down (case (a) of §4.2); it is never moved up, a
/// rebuild from the root pair does that (§4.3). The list stays valid when a hierarchy is
/// refitted ([`Bvh::refit`] keeps the topology); if either hierarchy is replaced by one with a
/// different node count, the next query rebuilds the list. After a query of a different pair of
/// hierarchies with equal node counts, call [`SeparationList::clear`].
///
/// # Examples
/// ```
/// use obbtree::prelude::*;
/// use obbtree::query::{SeparationList, SeparationPolicy};
/// let tet = TriMesh::new(
///     vec![Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.), Point::new(0., 0., 1.)],
///     vec![[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]], "tet").unwrap();
/// let a = ObbTree::build(tet.clone(), &BuildOptions::default());
/// let b = ObbTree::build(tet, &BuildOptions::default());
/// let mut list = SeparationList::new(SeparationPolicy::Deferred);
/// let (mut inc, mut top) = (CollisionReport::default(), CollisionReport::default());
/// let (rot, options) = (Matrix3::identity(), QueryOptions::default());
/// for step in 0..20 {
///     let pos = Vector::new(0.9 - 0.01 * step as f64, 0.3, 0.2);
///     collide_with(&a, &b, &rot, &pos, &options, CollideWith::separation(&mut list), &mut inc);
///     collide_with(&a, &b, &rot, &pos, &options, CollideWith::default(), &mut top);
///     assert_eq!(inc.sorted_contacts(), top.sorted_contacts());
/// }
/// ```
#[derive(Clone, Debug, Default)]
pub struct SeparationList {
    policy: SeparationPolicy,
    pairs: Vec<(u32, u32)>,
    next: Vec<(u32, u32)>,
    /// Node counts of (A, B) the list was made for; (0, 0) when empty.
    shape: (usize, usize),
    /// Queries in a row whose update did not grow the list.
    still: u32,
    rebuild_next: bool,
    rebuilds: u64,
    queries: u64,
    /// The query under way starts from the root pair; the list had `before` pairs.
    rebuilding: bool,
    before: usize,
}

impl SeparationList {
    /// An empty list (the first query rebuilds it) with the given policy.
    pub fn new(policy: SeparationPolicy) -> Self {
        Self {
            policy,
            ..Self::default()
        }
    }

    /// The rebuild policy.
    pub fn policy(&self) -> SeparationPolicy {
        self.policy
    }

    /// Number of separation nodes (pairs) in the list.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the list is empty (before the first query or after [`Self::clear`]).
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The separation nodes `(node of A, node of B)`, in traversal order.
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// Queries that started from the root pair (including the first).
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// Queries run with this list.
    pub fn queries(&self) -> u64 {
        self.queries
    }

    /// Forgets the list: the next query starts from the root pair. Counters are kept.
    pub fn clear(&mut self) {
        self.pairs.clear();
        self.shape = (0, 0);
        self.still = 0;
        self.rebuild_next = false;
    }

    /// The Fig. 4 state machine after an update that took the list from `before` to `after`
    /// separation nodes.
    fn after_update(&mut self, before: usize, after: usize) {
        if after > before {
            self.still = 0;
            return;
        }
        self.still += 1;
        let limit = match self.policy {
            SeparationPolicy::TopDown => 0,
            SeparationPolicy::Predicted => 1,
            SeparationPolicy::Deferred => 2,
        };
        if self.still >= limit {
            self.rebuild_next = true;
        }
    }

    /// The pairs' storage of the list the next query makes (allocation reused), emptied.
    pub(super) fn take_next(&mut self) -> Vec<(u32, u32)> {
        let mut next = std::mem::take(&mut self.next);
        next.clear();
        next
    }

    /// A query of `shape` (node counts of A, B) begins: whether it starts from the root pair
    /// (the policy, the state of Fig. 4, or a list made for other hierarchies).
    fn begin(&mut self, shape: (usize, usize)) -> bool {
        self.queries += 1;
        self.rebuilding = self.policy == SeparationPolicy::TopDown
            || self.rebuild_next
            || self.pairs.is_empty()
            || self.shape != shape;
        self.before = self.pairs.len();
        self.shape = shape;
        self.rebuilding
    }

    /// The query ended with the new cut `next` ([`Cut`]): it becomes the list.
    pub(super) fn finish(&mut self, next: Vec<(u32, u32)>) {
        self.next = std::mem::replace(&mut self.pairs, next);
        if self.rebuilding {
            self.rebuilds += 1;
            self.rebuild_next = false;
            self.still = 0;
        } else {
            self.after_update(self.before, self.pairs.len());
        }
    }
}

/// Visitor `V` that also records the cut where the walk stops (Li & Chen §4.1): the pairs found
/// disjoint, the leaf pairs, and the pairs left when the walk was stopped. They form a complete
/// cut of the recursion tree, so a later query may start from them.
pub(super) struct Cut<V> {
    inner: V,
    pairs: Vec<(u32, u32)>,
}

impl<V> Cut<V> {
    /// `inner` recording into `pairs` (appended to).
    pub(super) fn new(inner: V, pairs: Vec<(u32, u32)>) -> Self {
        Cut { inner, pairs }
    }

    /// The inner visitor and the cut.
    pub(super) fn into_parts(self) -> (V, Vec<(u32, u32)>) {
        (self.inner, self.pairs)
    }
}

impl<B: BoundingVolume, V: Visitor<B>> Visitor<B> for Cut<V> {
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
        self.inner.overlapping(a, b);
    }

    #[inline(always)]
    fn disjoint(&mut self, a: u32, b: u32) {
        self.pairs.push((a, b));
        self.inner.disjoint(a, b);
    }

    #[inline(always)]
    fn skipped(&mut self, a: u32, b: u32) {
        self.pairs.push((a, b));
        self.inner.skipped(a, b);
    }

    #[inline(always)]
    fn leaves(&mut self, pair: LeafPair, triangles: &mut Triangles<'_>) -> Control {
        self.pairs.push((pair.a, pair.b));
        self.inner.leaves(pair, triangles)
    }
}

/// The walk of a query with a separation list: from the root pair or from `list`'s pairs, as
/// `list`'s policy and state say (Li & Chen §4.2–§4.4). The contacts are exactly those of the
/// walk from the root pair; the volume tests above the list are saved. `v` records the new cut
/// ([`Cut`]), which the caller hands to [`SeparationList::finish`].
pub(super) fn walk<B: BoundingVolume, V: Visitor<B>>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    list: &mut SeparationList,
    v: &mut V,
) -> Counts {
    let rebuild = list.begin((a.nodes().len(), b.nodes().len()));
    let mut w = Walk::new(a, b, rot_ab, pos_ab, &options.overlap, 0.0, v.ordered());
    if rebuild || w.far() {
        w.root(v);
    } else {
        from_pairs(&mut w, v, &list.pairs);
    }
    w.counts()
}

/// The walk from `pairs`, a complete cut, in list order. The pairs are independent: the volume
/// tests of eight pairs run at once ([`BoundingVolume::overlaps_batch`]), then the pairs up to
/// the last of them are taken up in order, each as the walk would take it (the same counts,
/// contacts and new list). A pair tested by a leaf's triangle is tested on its own, B's node
/// placed once for a run of such pairs that share it; so is every pair of volumes whose batched
/// test is no faster ([`BoundingVolume::BATCH_TESTS`]). Once the visitor stops the walk, the
/// pairs left go to [`Visitor::skipped`].
fn from_pairs<B: BoundingVolume, V: Visitor<B>>(
    w: &mut Walk<'_, B>,
    v: &mut V,
    pairs: &[(u32, u32)],
) {
    let mut placed: Option<(u32, B::Placed)> = None;
    let mut done = false;
    let mut i = 0;
    while i < pairs.len() {
        if done {
            for &(na, nb) in &pairs[i..] {
                v.skipped(na, nb);
            }
            break;
        }
        // The next (up to) eight pairs tested as two volumes, and where they are.
        let mut batch = [(0u32, 0u32); BATCH];
        let mut at = [usize::MAX; BATCH];
        let (mut n, mut end) = (0, i);
        while end < pairs.len() && n < BATCH {
            let (na, nb) = pairs[end];
            if B::BATCH_TESTS && w.volumes_only(na as usize, nb as usize) {
                (batch[n], at[n]) = (pairs[end], end);
                n += 1;
            }
            end += 1;
        }
        let hits = if n > 0 {
            w.overlaps_batch(&batch, n)
        } else {
            0
        };
        let mut k = 0;
        for (m, &(na, nb)) in pairs.iter().enumerate().take(end).skip(i) {
            let (na, nb) = (na as usize, nb as usize);
            if done {
                v.skipped(na as u32, nb as u32);
            } else if k < n && at[k] == m {
                done = w.tested(v, na, nb, hits >> k & 1 == 1);
                k += 1;
            } else {
                let pb = match placed {
                    Some((cached, pb)) if cached as usize == nb => pb,
                    _ => {
                        let pb = w.place(nb);
                        placed = Some((nb as u32, pb));
                        pb
                    }
                };
                done = w.pair(v, na, nb, Some(&pb), Parent::None);
            }
        }
        i = end;
    }
}
