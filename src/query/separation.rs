//! Incremental queries with separation lists (Li & Chen, "Incremental 3D collision detection
//! with hierarchical data structures", §4).
//!
//! The traversal of a pair of hierarchies walks a recursion tree of node pairs. The pairs where
//! it stops — volumes disjoint, or a pair of leaves whose triangles were tested — form a cut
//! of that tree, the *separation list* (§4.1). When the models move little between two
//! queries, most of the list stays where it was, so the next query can start from the list
//! instead of from the root pair and save the volume tests above it.

use super::traverse::{Parent, Traversal};
use super::{CollisionReport, QueryOptions};
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
    /// recorded but never reused. Its counts equal [`super::collide_relative`]'s.
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
/// complete cut of the pair's recursion tree, so [`collide_incremental`] finds exactly the
/// contacts of [`super::collide_relative`] whatever the models did since the list was made.
/// Between rebuilds the list only moves down (case (a) of §4.2); it is never moved up, a
/// rebuild from the root pair does that (§4.3). The list stays valid when a hierarchy is
/// refitted ([`Bvh::refit`] keeps the topology); if either hierarchy is replaced by one with a
/// different node count, the next query rebuilds the list. After a query of a different pair of
/// hierarchies with equal node counts, call [`SeparationList::clear`].
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
}

/// [`super::collide_relative`] that starts from the pair's separation list instead of the root
/// pair, and leaves the new list in `list` (Li & Chen §4).
///
/// Frames: B is placed in A's frame by `x_a = rot_ab · x_b + pos_ab`. The contacts are exactly
/// those of [`super::collide_relative`] (for a first-contact query: it finds one contact iff
/// there is one). The counts differ: `bv_tests` counts one volume test per separation node
/// visited plus those below it; the volume tests above the list are saved. Whether this query
/// starts at the root pair is decided by `list`'s [`SeparationPolicy`] and state; a rebuild
/// costs exactly what the top-down query costs.
///
/// # Examples
/// ```
/// use obbtree::prelude::*;
/// use obbtree::query::{collide_incremental, collide_relative, SeparationList, SeparationPolicy};
/// let tet = TriMesh::new(
///     vec![Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.), Point::new(0., 0., 1.)],
///     vec![[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]], "tet").unwrap();
/// let a = ObbTree::build(tet.clone(), &BuildOptions::default());
/// let b = ObbTree::build(tet, &BuildOptions::default());
/// let mut list = SeparationList::new(SeparationPolicy::Deferred);
/// let (mut inc, mut top) = (CollisionReport::default(), CollisionReport::default());
/// for step in 0..20 {
///     let pos = Vector::new(0.9 - 0.01 * step as f64, 0.3, 0.2);
///     collide_incremental(&a, &b, &Matrix3::identity(), &pos, &QueryOptions::default(), &mut list, &mut inc);
///     collide_relative(&a, &b, &Matrix3::identity(), &pos, &QueryOptions::default(), &mut top);
///     assert_eq!(inc.sorted_contacts(), top.sorted_contacts());
/// }
/// ```
pub fn collide_incremental<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    list: &mut SeparationList,
    report: &mut CollisionReport,
) {
    report.clear();
    list.queries += 1;
    let shape = (a.nodes().len(), b.nodes().len());
    let rebuild = list.policy == SeparationPolicy::TopDown
        || list.rebuild_next
        || list.pairs.is_empty()
        || list.shape != shape;
    let mut next = std::mem::take(&mut list.next);
    next.clear();
    let before = list.pairs.len();
    {
        let mut t =
            Traversal::<B, false, true>::new(a, b, rot_ab, pos_ab, options, report, &mut next);
        if rebuild || t.far() {
            t.root();
        } else {
            // The list's pairs are independent: the volume tests of eight pairs run at once
            // ([`BoundingVolume::overlaps_batch`]), then the pairs up to the last of them are
            // taken up in list order, each as the pair test would take it (the same counts,
            // contacts and new list). A pair tested by a leaf's triangle is tested on its own,
            // B's node placed once for a run of such pairs that share it; so is every pair of
            // volumes whose batched test is no faster ([`BoundingVolume::BATCH_TESTS`]).
            let pairs = &list.pairs;
            let mut placed: Option<(u32, B::Placed)> = None;
            let mut done = false;
            let mut i = 0;
            while i < pairs.len() {
                if done {
                    for &(na, nb) in &pairs[i..] {
                        t.skip(na as usize, nb as usize);
                    }
                    break;
                }
                // The next (up to) eight pairs tested as two volumes, and where they are.
                let mut batch = [(0u32, 0u32); BATCH];
                let mut at = [usize::MAX; BATCH];
                let (mut n, mut end) = (0, i);
                while end < pairs.len() && n < BATCH {
                    let (na, nb) = pairs[end];
                    if B::BATCH_TESTS && t.volumes_only(na as usize, nb as usize) {
                        (batch[n], at[n]) = (pairs[end], end);
                        n += 1;
                    }
                    end += 1;
                }
                let hits = if n > 0 {
                    t.overlaps_batch(&batch, n)
                } else {
                    0
                };
                let mut k = 0;
                for (m, &(na, nb)) in pairs.iter().enumerate().take(end).skip(i) {
                    if done {
                        t.skip(na as usize, nb as usize);
                    } else if k < n && at[k] == m {
                        done = t.tested(na as usize, nb as usize, hits >> k & 1 == 1);
                        k += 1;
                    } else {
                        let pb = match placed {
                            Some((cached, pb)) if cached == nb => pb,
                            _ => {
                                let pb = t.place(nb as usize);
                                placed = Some((nb, pb));
                                pb
                            }
                        };
                        done = t.pair(na as usize, nb as usize, Some(&pb), Parent::None);
                    }
                }
                i = end;
            }
        }
    }
    list.next = std::mem::replace(&mut list.pairs, next);
    list.shape = shape;
    if rebuild {
        list.rebuilds += 1;
        list.rebuild_next = false;
        list.still = 0;
    } else {
        list.after_update(before, list.pairs.len());
    }
}
