//! Interference detection's two entry points, [`collide`] and [`collide_with`]: the contacts
//! visitor ([`super::contacts`]) on the walk, from the root pair, a separation list or a
//! parallel frontier.

use super::contacts::Contacts;
use super::separation::{self, Cut, SeparationList};
use super::trace::Traced;
use super::walk::Walk;
use super::{CollisionReport, ContactMode, QueryOptions};
use crate::bv::BoundingVolume;
use crate::bvh::Bvh;
use crate::math::{Isometry, Matrix3, Vector, relative_pose};

/// Finds the intersecting triangle pairs of two models placed in a common (world) frame.
///
/// `pose_a`, `pose_b` map each model's frame to the world; the query runs in A's frame with
/// `pose_ab = pose_a⁻¹ · pose_b` ([`collide_with`], which says how the walk goes).
///
/// # Examples
/// ```
/// use obbtree::{bv::Obb, bvh::{Bvh, BuildOptions}, math::{Isometry, Point, Vector}, mesh::TriMesh,
///               query::{collide, QueryOptions}};
/// let tri = TriMesh::new(
///     vec![Point::new(0., 0., 0.), Point::new(1., 0., 0.), Point::new(0., 1., 0.)],
///     vec![[0, 1, 2]], "triangle").unwrap();
/// let a = Bvh::<Obb>::build(tri.clone(), &BuildOptions::default());
/// let b = Bvh::<Obb>::build(tri, &BuildOptions::default());
/// // B turned 90° about x and moved into A's plane: they cross.
/// let pose_b = Isometry::new(Vector::new(0.2, 0.2, -0.5), Vector::x() * std::f64::consts::FRAC_PI_2);
/// let report = collide(&a, &Isometry::identity(), &b, &pose_b, &QueryOptions::default());
/// assert_eq!(report.contacts, vec![(0, 0)]);
/// ```
pub fn collide<B: BoundingVolume>(
    a: &Bvh<B>,
    pose_a: &Isometry,
    b: &Bvh<B>,
    pose_b: &Isometry,
    options: &QueryOptions,
) -> CollisionReport {
    let ab = relative_pose(pose_a, pose_b);
    let rot_ab = ab.rotation.to_rotation_matrix().into_inner();
    let mut report = CollisionReport::default();
    collide_with(
        a,
        b,
        &rot_ab,
        &ab.translation.vector,
        options,
        CollideWith::default(),
        &mut report,
    );
    report
}

/// What a [`collide_with`] query does besides finding its contacts: where it starts, what it
/// records, when it stops and on how many threads.
#[derive(Default)]
pub struct CollideWith<'a> {
    /// Start from this pair's separation list instead of the root pair, and leave the new list
    /// in it (Li & Chen §4; [`SeparationList`]).
    pub separation: Option<&'a mut SeparationList>,
    /// Record every overlapping volume pair `(node of A, node of B)` (indices into
    /// [`Bvh::nodes`], in walk order, root pair included): the boxes the query opened, for
    /// drawing (paper Fig. 9). Cleared first.
    pub trace: Option<&'a mut Vec<(u32, u32)>>,
    /// Called with each contact as it is found; `true` ends the query (the contacts found so
    /// far, that one included, are reported; the counts are those of the work done).
    pub until: Option<&'a mut dyn FnMut(u32, u32) -> bool>,
    /// Walk on the threads of the current rayon pool (feature `parallel`): the same contacts
    /// in the same order and the same counts ([`super::parallel`]). Taken by an all-contacts
    /// query without `separation`, `trace` or `until`; others run on the calling thread.
    pub parallel: bool,
}

impl<'a> CollideWith<'a> {
    /// Starts from and updates `list`.
    pub fn separation(list: &'a mut SeparationList) -> Self {
        CollideWith {
            separation: Some(list),
            ..Self::default()
        }
    }

    /// Records the overlapping volume pairs in `pairs`.
    pub fn trace(pairs: &'a mut Vec<(u32, u32)>) -> Self {
        CollideWith {
            trace: Some(pairs),
            ..Self::default()
        }
    }

    /// Ends the query when `until` returns `true` for a contact.
    pub fn until(until: &'a mut dyn FnMut(u32, u32) -> bool) -> Self {
        CollideWith {
            until: Some(until),
            ..Self::default()
        }
    }

    /// On the threads of the current rayon pool.
    pub fn parallel() -> Self {
        CollideWith {
            parallel: true,
            ..Self::default()
        }
    }
}

/// The query in A's frame, B placed by `x_a = rot_ab · x_b + pos_ab`; `with` says where it
/// starts, what it records and when it stops. The report is cleared first; its allocation is
/// reused.
///
/// Frames and rounding: triangles are tested in A's model frame on B's corners placed by
/// [`crate::math::transform_point`] (exact predicates on those coordinates). Volumes are tested
/// in the hierarchies' volume frames ([`Bvh::origin`]); every placed volume of B is grown by the
/// absolute rounding error of placing coordinates as large as the models'
/// (`64 ε (reach_a + reach_b + |pos_ab|∞)`, [`Bvh::reach`]), so no volume test rejects a pair
/// whose placed triangles touch. Models farther apart than single precision can express
/// (beyond 1e35 between the volume frames) are decided by their bounding spheres
/// ([`Bvh::radius`]) in double precision: one volume test.
///
/// The walk ([`super::traverse`]): from an overlapping pair, split B if A is a leaf or if B is
/// not a leaf and B's volume is larger ([`BoundingVolume::size`], RAPID's rule); both child
/// pairs are tested together, and where the node not split is a leaf, its triangle stands for
/// its volume ([`crate::bv::OverlapOptions::leaf_triangles`]). A first-contact query visits
/// first the child pair that overlaps deeper. Each child pair is one volume test (N_v), each
/// pair of leaves whose volumes overlap one triangle test (N_p).
pub fn collide_with<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    with: CollideWith<'_>,
    report: &mut CollisionReport,
) {
    let first = options.mode == ContactMode::FirstContact;
    let CollideWith {
        separation,
        trace,
        until,
        parallel,
    } = with;
    #[cfg(feature = "parallel")]
    if parallel && !first && separation.is_none() && trace.is_none() && until.is_none() {
        super::parallel::collide(a, b, rot_ab, pos_ab, options, report);
        fill_normals(a, b, rot_ab, pos_ab, options, report);
        return;
    }
    #[cfg(not(feature = "parallel"))]
    let _ = parallel;
    let mut contacts = Contacts::with_storage(first, until, std::mem::take(&mut report.contacts));
    contacts.contacts.clear();
    let counts = match (separation, trace) {
        (None, None) => {
            let mut w = Walk::new(a, b, rot_ab, pos_ab, &options.overlap, 0.0, first);
            w.root(&mut contacts);
            w.counts()
        }
        (None, Some(pairs)) => {
            pairs.clear();
            let mut v = Traced::new(contacts, std::mem::take(pairs));
            let mut w = Walk::new(a, b, rot_ab, pos_ab, &options.overlap, 0.0, first);
            w.root(&mut v);
            let counts = w.counts();
            (contacts, *pairs) = v.into_parts();
            counts
        }
        (Some(list), None) => {
            let mut v = Cut::new(contacts, list.take_next());
            let counts = separation::walk(a, b, rot_ab, pos_ab, options, list, &mut v);
            let next;
            (contacts, next) = v.into_parts();
            list.finish(next);
            counts
        }
        (Some(list), Some(pairs)) => {
            pairs.clear();
            let mut v = Traced::new(Cut::new(contacts, list.take_next()), std::mem::take(pairs));
            let counts = separation::walk(a, b, rot_ab, pos_ab, options, list, &mut v);
            let (cut, traced) = v.into_parts();
            *pairs = traced;
            let next;
            (contacts, next) = cut.into_parts();
            list.finish(next);
            counts
        }
    };
    report.contacts = contacts.contacts;
    report.bv_tests = counts.bv_tests;
    report.tri_tests = counts.tri_tests;
    fill_normals(a, b, rot_ab, pos_ab, options, report);
}

/// The contacts' normals ([`super::contact_normal`]) when the options ask for them, on the
/// same placed coordinates as the triangle tests; otherwise none.
fn fill_normals<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    report: &mut CollisionReport,
) {
    report.normals.clear();
    if !options.normals {
        return;
    }
    let normals = report.contacts.iter().map(|&(ta, tb)| {
        let p = a.mesh().triangle(ta as usize);
        let q = b
            .mesh()
            .triangle(tb as usize)
            .map(|x| crate::math::transform_point(rot_ab, pos_ab, &x));
        super::contact_normal(&p, &q)
    });
    report.normals.extend(normals);
}
