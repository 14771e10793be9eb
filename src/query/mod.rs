//! Queries between two hierarchies: one walk of the bounding-volume test tree
//! ([`traverse`], [`walk`](self::Visitor)) and its visitors, the exact triangle–triangle test,
//! and the counts of the cost equation (Gottschalk et al. 1996, eq. (1)).
//!
//! Interference detection has two entry points: [`collide`] (world poses) and [`collide_with`]
//! (B placed in A's frame, with a separation list, a trace, a stop rule or threads: [`CollideWith`]).
//! [`traverse`] runs the walk with a [`Visitor`] of one's own. [`self_intersections`] walks one
//! mesh's hierarchy against itself.

mod collide;
mod contact_normal;
mod contacts;
pub mod cost;
mod dispatch;
mod distance;
pub mod intersection;
#[cfg(feature = "parallel")]
mod parallel;
mod self_intersection;
mod self_tri_tri;
mod separation;
mod time_of_impact;
mod trace;
mod tri_dist;
mod tri_tri;
mod triangles;
mod walk;

pub use crate::predicates::{orient2d, orient3d};
pub use collide::{CollideWith, collide, collide_with};
pub use contact_normal::{ContactNormal, NormalFeature, contact_normal};
pub use distance::{
    DistanceOptions, DistanceReport, PairsReport, ProximityError, WithinReport, distance,
    distance_with, within, within_pairs, within_pairs_with, within_with,
};
pub use intersection::{Intersection, triangle_intersection};
pub use self_intersection::{
    SelfIntersectionOptions, SelfIntersectionReport, self_brute_force, self_intersections,
};
pub use self_tri_tri::triangles_self_intersect;
pub use separation::{SeparationList, SeparationPolicy};
pub use time_of_impact::{Impact, ToiError, ToiOptions, ToiOutcome, ToiReport, time_of_impact};
pub use tri_dist::triangle_distance;
pub use tri_tri::{has_area, triangles_intersect};
pub use triangles::Triangles;
pub(crate) use walk::volume_query;
pub use walk::{Control, Counts, LeafPair, Visitor, traverse};

use crate::bv::OverlapOptions;
use crate::math::{Isometry, Matrix3, Vector, transform_point};
use crate::mesh::TriMesh;

/// Which contacts a query looks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum ContactMode {
    /// Every intersecting triangle pair (RAPID's `RAPID_ALL_CONTACTS`).
    #[default]
    AllContacts,
    /// Stop at the first intersecting pair (RAPID's `RAPID_FIRST_CONTACT`).
    FirstContact,
}

/// Options of a query.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueryOptions {
    /// All contacts or the first one.
    pub mode: ContactMode,
    /// ε, full SAT or SAT lite, and whether a leaf's triangle stands for its box.
    pub overlap: OverlapOptions,
    /// Whether each contact gets its normal ([`CollisionReport::normals`], [`contact_normal`]).
    pub normals: bool,
}

impl QueryOptions {
    /// Options for a first-contact query, defaults otherwise.
    pub fn first_contact() -> Self {
        Self {
            mode: ContactMode::FirstContact,
            ..Self::default()
        }
    }

    /// The 1996 settings (Gottschalk et al. §5, §7.1; RAPID's): all contacts, the full 15-axis
    /// separating axis test with RAPID's ε = 1e-6, and every leaf tested by its box
    /// ([`QueryOptions::leaf_boxes`]). With [`crate::bvh::BuildOptions::paper`], the paper's
    /// query; the descend rule and the first-contact order are the walk's
    /// ([`collide_with`]).
    pub fn paper() -> Self {
        Self::default().leaf_boxes()
    }

    /// These options with every leaf tested by its box, as the papers' traversals (and RAPID)
    /// do, instead of by its triangle where it meets an internal node
    /// ([`OverlapOptions::leaf_triangles`]): the experiments that reproduce the papers' counts
    /// use it, so that OBB and AABB trees are compared on the same rule.
    pub fn leaf_boxes(mut self) -> Self {
        self.overlap.leaf_triangles = false;
        self
    }
}

/// The answer of a query and the counts of the paper's cost equation (1),
/// `T = N_v · C_v + N_p · C_p`.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CollisionReport {
    /// Intersecting triangle pairs `(triangle of A, triangle of B)`, indices into each mesh, in
    /// traversal order (sort them for a canonical order). At most one for a first-contact query.
    pub contacts: Vec<(u32, u32)>,
    /// With [`QueryOptions::normals`], each contact's normal (same order as `contacts`; A's
    /// frame, from A to B; `None` for two point-like triangles); empty otherwise.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub normals: Vec<Option<ContactNormal>>,
    /// N_v: bounding volume pair overlap tests performed.
    pub bv_tests: u64,
    /// N_p: triangle pair tests performed.
    pub tri_tests: u64,
}

impl CollisionReport {
    /// Whether any triangle pair intersects.
    pub fn colliding(&self) -> bool {
        !self.contacts.is_empty()
    }

    /// Empties the report, keeping its allocation.
    pub fn clear(&mut self) {
        self.contacts.clear();
        self.normals.clear();
        self.bv_tests = 0;
        self.tri_tests = 0;
    }

    /// The contacts sorted by (A, B): the canonical order of reference files.
    pub fn sorted_contacts(&self) -> Vec<(u32, u32)> {
        let mut c = self.contacts.clone();
        c.sort_unstable();
        c
    }
}

/// All intersecting triangle pairs by testing every pair: the oracle the hierarchies must match.
///
/// `rot_ab`, `pos_ab` place B in A's frame. B's vertices are transformed with
/// [`crate::math::transform_point`] and tested with [`triangles_intersect`], exactly as the
/// traversal does, so both see bit-identical coordinates. Sorted by (A, B). Cost `O(n_a · n_b)`.
pub fn brute_force(a: &TriMesh, b: &TriMesh, rot_ab: &Matrix3, pos_ab: &Vector) -> Vec<(u32, u32)> {
    let tb: Vec<_> = (0..b.triangle_count())
        .map(|j| b.triangle(j).map(|p| transform_point(rot_ab, pos_ab, &p)))
        .collect();
    let mut out = Vec::new();
    for i in 0..a.triangle_count() {
        let ta = a.triangle(i);
        for (j, tbj) in tb.iter().enumerate() {
            if triangles_intersect(&ta, tbj) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

/// [`brute_force`] for two models placed in a common frame.
pub fn brute_force_posed(
    a: &TriMesh,
    pose_a: &Isometry,
    b: &TriMesh,
    pose_b: &Isometry,
) -> Vec<(u32, u32)> {
    let ab = crate::math::relative_pose(pose_a, pose_b);
    brute_force(
        a,
        b,
        &ab.rotation.to_rotation_matrix().into_inner(),
        &ab.translation.vector,
    )
}
