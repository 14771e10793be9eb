//! Top-down construction (Gottschalk et al. 1996, §4; van den Bergen 1998, §2).

use super::{LEAF, Node};
use crate::bv::{BoundingVolume, BvKind, Group, ObbFit, TriangleMoments};
use crate::math::{Point, Real, Vector};
use crate::mesh::TriMesh;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where a group is cut along the chosen axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum SplitRule {
    /// At the mean of the triangles' centroids, along whichever of six directions — the
    /// volume's three axes and the model frame's three — gives the two children the smallest
    /// summed extent; triangles go by their centroid.
    ///
    /// §4 cuts the longest axis at the mean ([`SplitRule::Mean`]). This rule tries all six
    /// directions at the same mean and scores each cut by the children's boxes in the parent's
    /// frame: the sum of both boxes' edge lengths. For a box that sum is twice its mean width,
    /// and the measure of planes meeting a convex body is proportional to its mean width
    /// (Crofton), so the score stands for how likely a box test against each child is to fail to
    /// separate. The frame's axes help because models are made in a frame of their own, where
    /// pipes, grids and machined parts are axis-aligned (figures: docs/decisions.md, "Split").
    MeanBestAxis,
    /// Binned cost: along whichever of the same six directions as the mean on the best axis, at
    /// whichever of the 15 planes between 16 equal bins minimises the children's mean width
    /// times their triangle count; triangles go by their centroid. The default.
    ///
    /// The binned surface area heuristic of ray tracing (Wald 2007), with the children's mean
    /// width (the sum of their boxes' edges in the parent's frame, as above) in place of their
    /// surface: the chance that a box test against a child fails to separate is proportional to
    /// its mean width (Crofton), and the count weighs the subtree that test opens. The
    /// [`SPLIT_BINS`] bins span the group's vertices along each direction (as many bins as
    /// triangles for smaller groups).
    ///
    /// With the DiTO fit (the default, [`ObbFit::Dito`]) only the box's three axes are cut: the
    /// frame's axes are among DiTO's candidates, and the pass that sizes the box gives the
    /// projections the bins need. OBB groups of 4,096 triangles or more, with the fits that
    /// build hulls, are split before they have a box (their hulls are built from their
    /// children's): there the volume's axes are the principal axes of the triangles'
    /// covariance, or the frame's axes where those give the smaller box.
    ///
    /// Fewer box tests than [`SplitRule::MeanBestAxis`] on most cases (docs/decisions.md, "Split").
    #[default]
    Binned,
    /// At the mean of the triangles' centroids along the longest axis, else the next
    /// (Gottschalk et al. 1996, §4; the nearest to RAPID's rule, see [`BuildOptions::rapid`]).
    Mean,
    /// At the median of the triangles' centroids: balanced trees (§4).
    Median,
    /// At the centre of the volume; triangles go by the midpoint of their projection
    /// (van den Bergen 1998, §2: his AABB trees).
    BoxMidpoint,
}

/// How to build a hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BuildOptions {
    /// The split rule.
    pub split: SplitRule,
    /// How OBBs are oriented.
    pub fit: ObbFit,
    /// Build large subtrees on several threads (rayon). The tree is the same either way.
    /// Default: on, except on wasm32 (no threads). Without the crate's `parallel` feature there
    /// is no rayon and the build runs on the calling thread whatever this says.
    pub parallel: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            split: SplitRule::default(),
            fit: ObbFit::default(),
            // The web (wasm32) has no threads.
            parallel: !cfg!(target_arch = "wasm32"),
        }
    }
}

impl BuildOptions {
    /// Van den Bergen's AABB-tree rule (split at the box median).
    pub fn van_den_bergen() -> Self {
        Self {
            split: SplitRule::BoxMidpoint,
            ..Self::default()
        }
    }

    /// RAPID 2.01's settings, for a side-by-side with it: OBBs fitted to the covariance of the
    /// group's triangles ([`ObbFit::Triangles`], RAPID's `build.C`, no hull), cut at the mean of
    /// the triangles' centroids ([`SplitRule::Mean`]). The nearest rule, not RAPID's to the
    /// letter: RAPID cuts along the covariance's principal axis at the area-weighted mean of the
    /// centroids and halves a group by count where that fails; `Mean` cuts the box's longest
    /// axis at the plain mean, then tries the other two axes (§4).
    pub fn rapid() -> Self {
        Self {
            split: SplitRule::Mean,
            fit: ObbFit::Triangles,
            ..Self::default()
        }
    }

    /// The 1996 paper's settings (Gottschalk, Lin, Manocha, §4): OBBs fitted to the covariance
    /// of the group's convex hull in closed form ([`ObbFit::Hull`]), cut across the box's
    /// longest axis at the mean point of the vertices, else across the next
    /// ([`SplitRule::Mean`], §4's subdivision rule). Groups of 4,096 triangles or more take
    /// their split axes from the triangles' covariance (they are boxed after their children).
    /// The paper's traversal tests every leaf by its box: query with
    /// [`crate::query::QueryOptions::leaf_boxes`].
    pub fn paper() -> Self {
        Self {
            split: SplitRule::Mean,
            fit: ObbFit::Hull,
            ..Self::default()
        }
    }
}

/// Groups at least this large are split on two threads.
#[cfg(feature = "parallel")]
const PARALLEL_MIN: usize = 4096;

/// Leaves a thread builds between two reports to the build's progress counter.
const PROGRESS_STEP: usize = 4096;

/// The current group's vertices and per-group storage of the split, reused from group to group.
struct Scratch {
    /// Per mesh vertex: the generation of the group that last gathered it, and its index in
    /// that group's `vertices`.
    marks: Vec<[u32; 2]>,
    generation: u32,
    /// The group's vertices (mesh indices), in order of first use by its triangles.
    vertices: Vec<u32>,
    /// Per triangle of the group, in the order of the triangles gathered: its corners' indices
    /// in `vertices`.
    corners: Vec<[u32; 3]>,
    /// Per triangle of the group: which side of each candidate cut it lies on
    /// ([`partition_best_axis`]), or its bin along each direction ([`partition_binned`]).
    sides: Vec<[u8; 6]>,
    /// Per gathered vertex (index in `vertices`): its projections on the current group's cut
    /// directions (volume frame).
    projections: Vec<[Real; 6]>,
    /// [`partition_binned`]'s bins (per direction, per bin), and the widths of its right sides
    /// of one direction.
    bins: Box<[[[Real; 6]; SPLIT_BINS]; 6]>,
    counts: [[u32; SPLIT_BINS]; 6],
    right: [Real; SPLIT_BINS],
    /// Leaves built since the last report to the build's progress counter.
    done: usize,
}

impl Scratch {
    fn new(vertex_count: usize) -> Self {
        Scratch {
            marks: vec![[0; 2]; vertex_count],
            generation: 0,
            vertices: Vec::new(),
            corners: Vec::new(),
            sides: Vec::new(),
            projections: Vec::new(),
            bins: Box::new([[[0.0; 6]; SPLIT_BINS]; 6]),
            counts: [[0; SPLIT_BINS]; 6],
            right: [0.0; SPLIT_BINS],
            done: 0,
        }
    }

    /// Counts one more leaf, adding the count to `progress` every [`PROGRESS_STEP`] leaves.
    #[inline(always)]
    fn leaf_done(&mut self, progress: &AtomicUsize) {
        self.done += 1;
        if self.done >= PROGRESS_STEP {
            self.flush(progress);
        }
    }

    /// Adds the leaves not yet reported to `progress`.
    fn flush(&mut self, progress: &AtomicUsize) {
        progress.fetch_add(std::mem::take(&mut self.done), Ordering::Relaxed);
    }

    /// Projects each gathered vertex once (a vertex has some six triangles: the same values as
    /// projecting each triangle's corners) on the box's axes `axes` and the frame's (there a
    /// coordinate) into `projections`; returns each direction's low and high ends.
    fn project(&mut self, frame: &Frame<'_>, axes: &[Vector; 3]) -> ([Real; 6], [Real; 6]) {
        let vertices = frame.mesh.vertices();
        let mut lo = [Real::INFINITY; 6];
        let mut hi = [Real::NEG_INFINITY; 6];
        self.projections.clear();
        self.projections.extend(self.vertices.iter().map(|&v| {
            let p = (vertices[v as usize] - frame.origin).coords;
            let [x, y, z] = axes.map(|a| p.dot(&a));
            let d = [x, y, z, p.x, p.y, p.z];
            for i in 0..6 {
                lo[i] = lo[i].min(d[i]);
                hi[i] = hi[i].max(d[i]);
            }
            d
        }));
        (lo, hi)
    }

    /// Gathers the vertices of `tris` (each once, in order of first use) and each triangle's
    /// corners as indices into them.
    fn gather(&mut self, mesh: &TriMesh, tris: &[u32]) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.fill([0; 2]);
            self.generation = 1;
        }
        let generation = self.generation;
        self.vertices.clear();
        self.corners.clear();
        let all = mesh.triangles();
        let (marks, vertices) = (&mut self.marks, &mut self.vertices);
        self.corners.extend(tris.iter().map(|&t| {
            all[t as usize].map(|v| {
                let mark = &mut marks[v as usize];
                if mark[0] != generation {
                    *mark = [generation, vertices.len() as u32];
                    vertices.push(v);
                }
                mark[1]
            })
        }));
    }
}

/// Builds the node array of `mesh` with volumes in the volume frame whose origin (model frame)
/// is `origin`; returns the nodes, the depth and the mesh triangle of each leaf slot: the leaves
/// are numbered in the order they appear in the node array (so the leaves of any subtree have
/// consecutive slots) and each leaf's link names its slot. Adds the leaves built to `progress`
/// as it goes (every [`PROGRESS_STEP`] leaves a thread).
pub(super) fn build<B: BoundingVolume>(
    mesh: &TriMesh,
    origin: Vector,
    options: &BuildOptions,
    progress: &AtomicUsize,
) -> (Vec<Node<B>>, usize, Vec<u32>) {
    if B::KIND == BvKind::Aabb && options.split == SplitRule::BoxMidpoint {
        // Van den Bergen's AABB trees, from each triangle's box ([`super::midpoint`]).
        let built: Box<dyn std::any::Any> =
            Box::new(super::midpoint::build(mesh, origin, options.parallel));
        if let Ok(built) = built.downcast::<(Vec<Node<B>>, usize)>() {
            let (nodes, depth) = *built;
            progress.fetch_add(mesh.triangle_count(), Ordering::Relaxed);
            return number_leaves(nodes, depth);
        }
    }
    build_general(mesh, origin, options, progress)
}

/// Numbers the leaves of `nodes` (links `LEAF | triangle`) into slots in node order; returns
/// the nodes, the depth and each slot's triangle.
fn number_leaves<B: BoundingVolume>(
    mut nodes: Vec<Node<B>>,
    depth: usize,
) -> (Vec<Node<B>>, usize, Vec<u32>) {
    let mut leaf_ids = Vec::with_capacity(nodes.len().div_ceil(2));
    for node in nodes.iter_mut().filter(|node| node.is_leaf()) {
        leaf_ids.push(node.link & !LEAF);
        node.link = LEAF | (leaf_ids.len() - 1) as u32;
    }
    (nodes, depth, leaf_ids)
}

/// [`build`] by the general builder: every rule and volume type.
fn build_general<B: BoundingVolume>(
    mesh: &TriMesh,
    origin: Vector,
    options: &BuildOptions,
    progress: &AtomicUsize,
) -> (Vec<Node<B>>, usize, Vec<u32>) {
    let n = mesh.triangle_count();
    let mut tris: Vec<u32> = (0..n as u32).collect();
    let mut nodes: Vec<Node<B>> = Vec::with_capacity(2 * n - 1);
    let spare = &mut nodes.spare_capacity_mut()[..2 * n - 1];
    let (root, below) = spare.split_at_mut(1);
    let mut scratch = Scratch::new(mesh.vertices().len());
    // RAPID's fit ([`ObbFit::Triangles`]) sums per-triangle moments (§4's closed form), computed
    // once. The other fits compute each group's triangle covariance directly, as before: summed
    // moments round differently, and where a group's covariance is isotropic to rounding (a
    // sphere's root) rounding alone picks its axes. Summing them in the default fit changed the
    // point-proximity experiment's farthest point (OBB 7 box tests against AABB's 1, was 1
    // against 1).
    let moments = if B::KIND == BvKind::Obb && options.fit == ObbFit::Triangles {
        TriangleMoments::of_mesh(mesh, origin)
    } else {
        Vec::new()
    };
    let frame = Frame {
        mesh,
        origin,
        moments: &moments,
        progress,
    };
    let depth = build_rec::<B>(
        &frame,
        &mut tris,
        &mut root[0],
        below,
        1,
        &mut scratch,
        options,
        None,
    );
    scratch.flush(progress);
    // SAFETY: build_rec initialised all 2n − 1 slots: a subtree of k triangles writes its own
    // slot and the 2k − 2 slots of `below` (a leaf has none; an internal node writes its
    // children's pair and hands each child its own range).
    unsafe { nodes.set_len(2 * n - 1) };
    number_leaves(nodes, depth)
}

/// Groups of at least this many triangles are fitted after their children when the fit builds
/// a hull ([`bottom_up`]): split along axes that need no hull ([`unfitted_split_axes`]), their
/// hulls built from their children's hull vertices, which are the only points of a group that
/// can be vertices of its hull (a vertex of the group's hull is a vertex of the hull of any
/// subset that holds it). Their boxes are the ones their own points give, but for rounding
/// (a test); their box extents are still taken over all their points. Shorter builds; the
/// split directions of these groups change, and with them the trees' top levels
/// (docs/decisions.md, "Split").
const BOTTOM_UP_MIN: usize = 4096;

/// Whether this build fits its large groups bottom up ([`BOTTOM_UP_MIN`]): OBBs whose fit builds
/// each group's hull (all but RAPID's), split by a rule that needs no box centre.
fn bottom_up<B: BoundingVolume>(options: &BuildOptions) -> bool {
    B::KIND == BvKind::Obb
        && !matches!(options.fit, ObbFit::Triangles | ObbFit::Dito)
        && options.split != SplitRule::BoxMidpoint
}

/// Builds the subtree of `tris`: writes its root into `me` and its descendants into `below`
/// (exactly `2·len − 2` slots, the first of which has index `base` in the whole array).
/// Siblings are stored side by side, so a split fetches both children together; every node
/// comes after its parent. With `hull`, also gives the mesh indices of a superset of the
/// vertices of the group's hull. Returns the subtree's depth.
#[allow(clippy::too_many_arguments)]
fn build_rec<B: BoundingVolume>(
    frame: &Frame<'_>,
    tris: &mut [u32],
    me: &mut std::mem::MaybeUninit<Node<B>>,
    below: &mut [std::mem::MaybeUninit<Node<B>>],
    base: usize,
    scratch: &mut Scratch,
    options: &BuildOptions,
    hull: Option<&mut Vec<u32>>,
) -> usize {
    debug_assert_eq!(below.len(), 2 * tris.len() - 2);
    let mesh = frame.mesh;
    scratch.gather(mesh, tris);
    let group = |tris, vertices| Group {
        mesh,
        origin: frame.origin,
        fit: options.fit,
        triangles: tris,
        vertices,
        moments: frame.moments,
    };
    let n = tris.len();
    if n >= BOTTOM_UP_MIN && bottom_up::<B>(options) {
        // The group's vertices outlive the children's gathers.
        let vertices = scratch.vertices.clone();
        let split_axes = unfitted_split_axes(frame, tris, &vertices);
        let k = partition(frame, tris, &split_axes, None, options.split, scratch, None);
        let (mut left_hull, mut right_hull) = (Vec::new(), Vec::new());
        let depth = build_children(
            frame,
            tris,
            k,
            below,
            base,
            scratch,
            options,
            [Some(&mut left_hull), Some(&mut right_hull)],
        );
        let mut candidates = left_hull;
        candidates.append(&mut right_hull);
        candidates.sort_unstable();
        candidates.dedup();
        let mut own = Vec::new();
        let fitted = B::fit_with_hull(
            &group(tris, &vertices),
            Some(&candidates),
            hull.unwrap_or(&mut own),
        );
        me.write(Node {
            bv: fitted.bv,
            link: base as u32,
            align: [],
        });
        return depth;
    }
    // The ranges of the box's projections, where its fit left them for the binned split.
    let mut projected = None;
    let fitted = match hull {
        Some(hull) => B::fit_with_hull(&group(tris, &scratch.vertices), None, hull),
        None if options.split == SplitRule::Binned => {
            match B::fit_projecting(&group(tris, &scratch.vertices), &mut scratch.projections) {
                Some((fitted, lo, hi)) => {
                    projected = Some((lo, hi));
                    fitted
                }
                None => B::fit(&group(tris, &scratch.vertices)),
            }
        }
        None => B::fit(&group(tris, &scratch.vertices)),
    };
    if n == 1 {
        me.write(Node {
            bv: fitted.bv,
            link: LEAF | tris[0],
            align: [],
        });
        scratch.leaf_done(frame.progress);
        return 0;
    }
    let k = partition(
        frame,
        tris,
        &fitted.split_axes,
        Some(fitted.center),
        options.split,
        scratch,
        projected,
    );
    me.write(Node {
        bv: fitted.bv,
        link: base as u32,
        align: [],
    });
    build_children(frame, tris, k, below, base, scratch, options, [None, None])
}

/// Builds the subtrees of `tris[..k]` and `tris[k..]` into `below` (as [`build_rec`]), on two
/// threads for large groups, with their hulls' vertices where `hulls` asks; returns the depth of
/// the group's subtree.
#[allow(clippy::too_many_arguments)]
fn build_children<B: BoundingVolume>(
    frame: &Frame<'_>,
    tris: &mut [u32],
    k: usize,
    below: &mut [std::mem::MaybeUninit<Node<B>>],
    base: usize,
    scratch: &mut Scratch,
    options: &BuildOptions,
    hulls: [Option<&mut Vec<u32>>; 2],
) -> usize {
    #[cfg(feature = "parallel")]
    let n = tris.len();
    let [left_hull, right_hull] = hulls;
    let (pair, rest) = below.split_at_mut(2);
    let (left_me, right_me) = pair.split_at_mut(1);
    let (left_below, right_below) = rest.split_at_mut(2 * k - 2);
    let (left_tris, right_tris) = tris.split_at_mut(k);
    let (left_base, right_base) = (base + 2, base + 2 + 2 * k - 2);
    let left = |s: &mut Scratch| {
        build_rec::<B>(
            frame,
            left_tris,
            &mut left_me[0],
            left_below,
            left_base,
            s,
            options,
            left_hull,
        )
    };
    let right = |s: &mut Scratch| {
        build_rec::<B>(
            frame,
            right_tris,
            &mut right_me[0],
            right_below,
            right_base,
            s,
            options,
            right_hull,
        )
    };
    #[cfg(feature = "parallel")]
    let (dl, dr) = if options.parallel && n >= PARALLEL_MIN {
        let mut other = Scratch::new(frame.mesh.vertices().len());
        let depths = rayon::join(|| left(scratch), || right(&mut other));
        other.flush(frame.progress);
        depths
    } else {
        (left(scratch), right(scratch))
    };
    #[cfg(not(feature = "parallel"))]
    let (dl, dr) = (left(scratch), right(scratch));
    1 + dl.max(dr)
}

/// The split directions of a group fitted after its children ([`BOTTOM_UP_MIN`]), which has no
/// box yet: the principal axes of its triangles' covariance (§4's closed form, as RAPID's fit),
/// or the frame's axes where their box around the group's `vertices` has less volume; longest
/// extent first. The frame's axes if the triangles have no area.
fn unfitted_split_axes(frame: &Frame<'_>, tris: &[u32], vertices: &[u32]) -> [Vector; 3] {
    let frame_axes = [Vector::x(), Vector::y(), Vector::z()];
    let points = || {
        let v = frame.mesh.vertices();
        vertices.iter().map(move |&i| v[i as usize] - frame.origin)
    };
    // The points' widths along each of `axes`, in one pass.
    fn widths<const N: usize>(
        points: impl Iterator<Item = Point>,
        axes: &[Vector; N],
    ) -> [Real; N] {
        let mut lo = [Real::INFINITY; N];
        let mut hi = [Real::NEG_INFINITY; N];
        for p in points {
            for k in 0..N {
                let d = p.coords.dot(&axes[k]);
                lo[k] = lo[k].min(d);
                hi[k] = hi[k].max(d);
            }
        }
        std::array::from_fn(|k| hi[k] - lo[k])
    }
    let first = points().next().unwrap_or_else(Point::origin);
    let covariance =
        crate::bv::covariance_of_triangles(&first, tris.iter().map(|&t| frame.triangle(t)));
    let (axes, w): ([Vector; 3], [Real; 3]) = match covariance {
        Some(c) => {
            let principal = crate::bv::principal_axes(&c);
            let [p0, p1, p2] = principal;
            let [f0, f1, f2] = frame_axes;
            let [w0, w1, w2, w3, w4, w5] = widths(points(), &[p0, p1, p2, f0, f1, f2]);
            let (wp, wf) = ([w0, w1, w2], [w3, w4, w5]);
            let volume = |w: [Real; 3]| w[0] * w[1] * w[2];
            if volume(wf) < volume(wp) {
                (frame_axes, wf)
            } else {
                (principal, wp)
            }
        }
        None => (frame_axes, widths(points(), &frame_axes)),
    };
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| w[j].total_cmp(&w[i]));
    order.map(|k| axes[k])
}

/// The mesh and the origin of the volume frame in which the volumes are fitted and the groups
/// split.
struct Frame<'a> {
    mesh: &'a TriMesh,
    origin: Vector,
    /// The triangle moments of RAPID's fit (empty for other fits and volumes).
    moments: &'a [TriangleMoments],
    /// The count of leaves built, reported as the build goes ([`Scratch::leaf_done`]).
    progress: &'a AtomicUsize,
}

impl Frame<'_> {
    /// Triangle `t`, volume frame.
    #[inline]
    fn triangle(&self, t: u32) -> [Point; 3] {
        self.mesh.triangle(t as usize).map(|p| p - self.origin)
    }

    /// The centroid of triangle `t`, volume frame.
    #[inline]
    fn centroid(&self, t: u32) -> Vector {
        let [a, b, c] = self.triangle(t);
        (a.coords + b.coords + c.coords) / 3.0
    }
}

/// Reorders `tris` so that the first `k` go left; returns `k` (`0 < k < len`). With
/// `projected` (the ranges along `split_axes`), the fit left the group's vertices' projections
/// on them in `scratch` ([`crate::bv::VolumeTests::fit_projecting`]), and the binned split
/// cuts along those three directions only.
#[allow(clippy::too_many_arguments)]
fn partition(
    frame: &Frame<'_>,
    tris: &mut [u32],
    split_axes: &[Vector; 3],
    center: Option<Point>,
    rule: SplitRule,
    scratch: &mut Scratch,
    projected: Option<([Real; 3], [Real; 3])>,
) -> usize {
    let n = tris.len();
    match rule {
        SplitRule::Median => {
            let axis = split_axes[0];
            let half = n / 2;
            tris.select_nth_unstable_by(half, |&x, &y| {
                frame
                    .centroid(x)
                    .dot(&axis)
                    .total_cmp(&frame.centroid(y).dot(&axis))
                    .then(x.cmp(&y))
            });
            return half;
        }
        SplitRule::MeanBestAxis => {
            if let Some(k) = partition_best_axis(frame, tris, split_axes, scratch) {
                return k;
            }
        }
        SplitRule::Binned => {
            if let Some(k) = partition_binned(frame, tris, split_axes, scratch, projected) {
                return k;
            }
        }
        SplitRule::Mean => {
            let mean = tris
                .iter()
                .fold(Vector::zeros(), |s, &t| s + frame.centroid(t))
                / n as Real;
            for axis in split_axes {
                let cut = mean.dot(axis);
                let k = partition_by(tris, |_, t| frame.centroid(t).dot(axis) < cut);
                if k > 0 && k < n {
                    return k;
                }
            }
        }
        // (Every group split at its box's centre has a box, see `bottom_up`; without one the
        // split by count below takes over.)
        SplitRule::BoxMidpoint => {
            if let Some(c) = center {
                for axis in split_axes {
                    let cut = c.coords.dot(axis);
                    let k = partition_by(tris, |_, t| {
                        let [p, q, r] = frame.triangle(t);
                        let (a, b, d) =
                            (p.coords.dot(axis), q.coords.dot(axis), r.coords.dot(axis));
                        0.5 * (a.min(b).min(d) + a.max(b).max(d)) <= cut
                    });
                    if k > 0 && k < n {
                        return k;
                    }
                }
            }
        }
    }
    // No axis separates the centroids (e.g. all coincide): split by count along the first axis.
    let axis = split_axes[0];
    let half = n / 2;
    tris.select_nth_unstable_by(half, |&x, &y| {
        frame
            .centroid(x)
            .dot(&axis)
            .total_cmp(&frame.centroid(y).dot(&axis))
            .then(x.cmp(&y))
    });
    half
}

/// The cut directions of [`SplitRule::MeanBestAxis`]: the box's three axes `axes` (unit, model
/// frame, longest first), then the model frame's three axes, or only the box's when they are
/// the frame's (up to order and sign).
fn cut_directions(axes: &[Vector; 3]) -> ([Vector; 6], usize) {
    let frame_axes = [Vector::x(), Vector::y(), Vector::z()];
    let all = [
        axes[0],
        axes[1],
        axes[2],
        frame_axes[0],
        frame_axes[1],
        frame_axes[2],
    ];
    let aligned = axes
        .iter()
        .all(|a| a.iter().filter(|x| **x != 0.0).count() == 1);
    (all, if aligned { 3 } else { 6 })
}

/// [`SplitRule::MeanBestAxis`]: cuts `tris` at their centroids' mean along the best of six
/// directions ([`cut_directions`]: the box's axes `axes`, unit, model frame, longest first, and
/// the model frame's axes) and returns the left count, or `None` when no direction separates
/// them.
///
/// One pass gathers, for each direction's cut, both sides' triangle counts and their extents
/// along the box's three axes (the projections of the group's vertices, gathered in `scratch`,
/// each projected once) and records each triangle's sides in `scratch.sides`; the score of a cut
/// is the sum of both sides' extents. Ties keep the earlier direction (the box's longer axes
/// first).
fn partition_best_axis(
    frame: &Frame<'_>,
    tris: &mut [u32],
    axes: &[Vector; 3],
    scratch: &mut Scratch,
) -> Option<usize> {
    let n = tris.len();
    let (dirs, m) = cut_directions(axes);
    // Three times the centroids' mean: triangle t is left of cut i when the sum of its
    // vertices' projections on direction i is below `cut3[i]`.
    let sum3 = tris.iter().fold(Vector::zeros(), |s, &t| {
        let [a, b, c] = frame.triangle(t);
        s + a.coords + b.coords + c.coords
    });
    let cut3 = dirs.map(|a| sum3.dot(&a) / n as Real);
    // The group as gathered from `tris` in this order.
    debug_assert_eq!(scratch.corners.len(), n);
    scratch.project(frame, axes);
    let Scratch {
        projections,
        sides,
        corners,
        ..
    } = scratch;
    // [direction of the cut][left, right]: count, low and high ends along the box's axes.
    let mut count = [[0usize; 2]; 6];
    let mut lo = [[[Real::INFINITY; 3]; 2]; 6];
    let mut hi = [[[Real::NEG_INFINITY; 3]; 2]; 6];
    sides.clear();
    sides.extend(corners.iter().map(|c| {
        // Plain comparisons (the coordinates are finite): one instruction each, where
        // `f64::min` also handles NaN.
        #[inline(always)]
        fn min(a: Real, b: Real) -> Real {
            if a < b { a } else { b }
        }
        #[inline(always)]
        fn max(a: Real, b: Real) -> Real {
            if a > b { a } else { b }
        }
        let d = c.map(|v| projections[v as usize]);
        let mut tlo = [d[0][0], d[0][1], d[0][2]];
        let mut thi = tlo;
        for p in &d[1..] {
            for j in 0..3 {
                tlo[j] = min(tlo[j], p[j]);
                thi[j] = max(thi[j], p[j]);
            }
        }
        let mut bits = 0u8;
        for i in 0..m {
            let right = usize::from(d[0][i] + d[1][i] + d[2][i] >= cut3[i]);
            bits |= (right as u8) << i;
            count[i][right] += 1;
            for j in 0..3 {
                lo[i][right][j] = min(lo[i][right][j], tlo[j]);
                hi[i][right][j] = max(hi[i][right][j], thi[j]);
            }
        }
        [bits, 0, 0, 0, 0, 0]
    }));
    let mut best: Option<(Real, usize)> = None;
    for i in 0..m {
        if count[i][0] == 0 || count[i][1] == 0 {
            continue;
        }
        let score: Real = (0..2)
            .flat_map(|s| (0..3).map(move |j| (s, j)))
            .map(|(s, j)| hi[i][s][j] - lo[i][s][j])
            .sum();
        if best.is_none_or(|(b, _)| score < b) {
            best = Some((score, i));
        }
    }
    let (_, i) = best?;
    // By the recorded side of each slot.
    let k = partition_by(tris, |m, _| sides[m][0] & (1 << i) == 0);
    debug_assert_eq!(k, count[i][0]);
    Some(k)
}

/// Bins per cut direction of [`SplitRule::Binned`]; 8 and 32 test more boxes
/// (docs/decisions.md, "Split").
pub const SPLIT_BINS: usize = 16;

// `partition_binned` masks bin indices with `SPLIT_BINS − 1`.
const _: () = assert!(SPLIT_BINS.is_power_of_two());

/// [`SplitRule::Binned`]: cuts `tris` along the best of six directions ([`cut_directions`]: the
/// box's axes `axes`, unit, model frame, longest first, and the model frame's axes) at the best
/// of `SPLIT_BINS − 1` planes, and returns the left count, or `None` when no plane has
/// triangles on both sides.
///
/// The group is read as [`Scratch::gather`] left it from `tris` in their current order. Each
/// direction's range is that of the group's vertices, cut into [`SPLIT_BINS`] equal bins (as
/// many as triangles for smaller groups); a triangle goes to the bin of its centroid. One pass
/// over the triangles gathers each bin's count and extents along the box's three axes (and
/// records each triangle's bins, by which the group is then cut). A plane between bins `b − 1`
/// and `b` scores `w_left·n_left + w_right·n_right`, where `n` is a side's triangle count and
/// `w` its mean width up to a factor (the sum of its extents along the box's axes). The least
/// score wins; ties keep the earlier direction, then the earlier plane.
fn partition_binned(
    frame: &Frame<'_>,
    tris: &mut [u32],
    axes: &[Vector; 3],
    scratch: &mut Scratch,
    projected: Option<([Real; 3], [Real; 3])>,
) -> Option<usize> {
    let (lo, hi, m) = match projected {
        Some((lo, hi)) => {
            let six = |r: [Real; 3]| [r[0], r[1], r[2], 0.0, 0.0, 0.0];
            (six(lo), six(hi), 3)
        }
        None => {
            let (_, m) = cut_directions(axes);
            let (lo, hi) = scratch.project(frame, axes);
            (lo, hi, m)
        }
    };
    let n = tris.len();
    // The group as gathered from `tris` in this order.
    debug_assert_eq!(scratch.corners.len(), n);
    let centroid_bins = CentroidBins::new(&lo, &hi, n);
    let Scratch {
        projections,
        corners,
        sides,
        bins,
        counts,
        right,
        ..
    } = scratch;
    if n == 2 {
        return split_pair(tris, corners, projections, m, &centroid_bins);
    }
    fill_bins(bins, counts, sides, corners, projections, m, &centroid_bins);
    let (_, i, b) = best_plane(bins, counts, right, m, centroid_bins.nb, n)?;
    // By the recorded bins of each slot.
    Some(partition_by(tris, |m, _| usize::from(sides[m][i]) < b))
}

/// The bins of [`partition_binned`]: a centroid's bin along each direction from the sum of its
/// corners' projections (three times the centroid's).
struct CentroidBins {
    base: [Real; 6],
    scale: [Real; 6],
    top: Real,
    /// As many bins as triangles for small groups, up to `SPLIT_BINS`.
    nb: usize,
}

impl CentroidBins {
    /// `SPLIT_BINS` bins (or `n`, fewer) over each direction's range `lo..hi`.
    #[inline(always)]
    fn new(lo: &[Real; 6], hi: &[Real; 6], n: usize) -> Self {
        let nb = n.min(SPLIT_BINS);
        let base: [Real; 6] = std::array::from_fn(|i| 3.0 * lo[i]);
        let scale: [Real; 6] = std::array::from_fn(|i| {
            let range = 3.0 * (hi[i] - lo[i]);
            if range > 0.0 { nb as Real / range } else { 0.0 }
        });
        let top = (nb - 1) as Real;
        CentroidBins {
            base,
            scale,
            top,
            nb,
        }
    }

    /// The bin of corner-projection sum `sum` along direction `i`. A sum at the range's high
    /// end (or rounded past it) goes to the last bin, one below the low end (rounding) to the
    /// first. (The mask changes nothing, `nb ≤ SPLIT_BINS` a power of two: it spares the bounds
    /// checks.)
    #[inline(always)]
    fn of(&self, sum: Real, i: usize) -> usize {
        let x = (sum - self.base[i]) * self.scale[i];
        // Plain comparisons, one instruction each (a NaN, from an infinite scale times zero,
        // goes to bin 0).
        let x = if x > 0.0 { x } else { 0.0 };
        let x = if x < self.top { x } else { self.top };
        // SAFETY: 0 ≤ x ≤ nb − 1 < 2³¹, not NaN.
        (unsafe { x.to_int_unchecked::<i32>() }) as usize & (SPLIT_BINS - 1)
    }
}

/// Plain comparisons (the coordinates are finite): one instruction, lane by lane.
#[inline(always)]
fn lane_min(a: Real, b: Real) -> Real {
    if a < b { a } else { b }
}

/// The sum of the extents: high end minus low end, both negated in the lanes.
#[inline(always)]
fn lane_width(e: &[Real; 6]) -> Real {
    -((e[0] + e[3]) + (e[1] + e[4]) + (e[2] + e[5]))
}

/// [`partition_binned`] of two triangles. Every direction that puts the two centroids in
/// different bins has the one plane, whose score is the same sum of the two triangles' widths
/// (one triangle a side, the same values whichever is left). The first such direction wins,
/// with the triangle in the low bin left: what the binned passes return for two triangles,
/// without them. (Half the internal nodes have two triangles.)
#[inline(always)]
fn split_pair(
    tris: &mut [u32],
    corners: &[[u32; 3]],
    projections: &[[Real; 6]],
    m: usize,
    centroid_bins: &CentroidBins,
) -> Option<usize> {
    let bin_of = |c: &[u32; 3], i: usize| {
        let d = c.map(|v| &projections[v as usize]);
        centroid_bins.of(d[0][i] + d[1][i] + d[2][i], i)
    };
    let (b0, b1) = (0..m)
        .map(|i| (bin_of(&corners[0], i), bin_of(&corners[1], i)))
        .find(|(b0, b1)| b0 != b1)?;
    if b1 < b0 {
        tris.swap(0, 1);
    }
    Some(1)
}

/// Per direction and bin: the extents along the box's axes as six lanes (low ends, then
/// negated high ends) so that one lane-wise minimum grows them, and the count; records each
/// triangle's bins in `sides`.
#[inline(always)]
fn fill_bins(
    bins: &mut [[[Real; 6]; SPLIT_BINS]; 6],
    counts: &mut [[u32; SPLIT_BINS]; 6],
    sides: &mut Vec<[u8; 6]>,
    corners: &[[u32; 3]],
    projections: &[[Real; 6]],
    m: usize,
    centroid_bins: &CentroidBins,
) {
    let nb = centroid_bins.nb;
    for (bins, counts) in bins.iter_mut().zip(counts.iter_mut()).take(m) {
        bins[..nb].fill([Real::INFINITY; 6]);
        counts[..nb].fill(0);
    }
    sides.clear();
    sides.extend(corners.iter().map(|c| {
        // By reference: an array of the three rows was copied through `memcpy`.
        let d = c.map(|v| &projections[v as usize]);
        let mut own = [Real::INFINITY; 6];
        for p in d {
            for j in 0..3 {
                own[j] = lane_min(own[j], p[j]);
                own[3 + j] = lane_min(own[3 + j], -p[j]);
            }
        }
        let mut own_bins = [0u8; 6];
        for (i, (bins, counts)) in bins.iter_mut().zip(counts.iter_mut()).enumerate().take(m) {
            let b = centroid_bins.of(d[0][i] + d[1][i] + d[2][i], i);
            own_bins[i] = b as u8;
            counts[b] += 1;
            let e = &mut bins[b];
            for j in 0..6 {
                e[j] = lane_min(e[j], own[j]);
            }
        }
        own_bins
    }));
}

/// The least-score plane over the filled bins: `(score, direction, bin)`, the plane between
/// bins `bin − 1` and `bin`; `None` when no plane has triangles on both sides.
#[inline(always)]
fn best_plane(
    bins: &[[[Real; 6]; SPLIT_BINS]; 6],
    counts: &[[u32; SPLIT_BINS]; 6],
    right: &mut [Real; SPLIT_BINS],
    m: usize,
    nb: usize,
    n: usize,
) -> Option<(Real, usize, usize)> {
    let mut best: Option<(Real, usize, usize)> = None;
    for (i, (bins, counts)) in bins.iter().zip(counts.iter()).enumerate().take(m) {
        // Right sides' widths, from the last bin down: `right[b]` is that of bins b.. .
        let mut acc = [Real::INFINITY; 6];
        for b in (1..nb).rev() {
            for j in 0..6 {
                acc[j] = lane_min(acc[j], bins[b][j]);
            }
            right[b] = lane_width(&acc);
        }
        let mut left = [Real::INFINITY; 6];
        let mut n_left = 0;
        for b in 1..nb {
            for j in 0..6 {
                left[j] = lane_min(left[j], bins[b - 1][j]);
            }
            n_left += counts[b - 1] as usize;
            if n_left == 0 || n_left == n {
                continue;
            }
            let score = lane_width(&left) * n_left as Real + right[b] * (n - n_left) as Real;
            if best.is_none_or(|(least, _, _)| score < least) {
                best = Some((score, i, b));
            }
        }
    }
    best
}

/// In-place partition: moves the triangles for which `left(slot, triangle)` holds to the front
/// and returns how many there are (deterministic, so builds are reproducible). `slot` is the
/// triangle's index in `tris` before the partition: each slot is looked at once, before any swap
/// reaches it (a swap only touches the slot looked at and one before it), so per-slot records of
/// the group (its gathered corners, sides, bins) can decide.
fn partition_by(tris: &mut [u32], left: impl Fn(usize, u32) -> bool) -> usize {
    let mut k = 0;
    for i in 0..tris.len() {
        if left(i, tris[i]) {
            tris.swap(i, k);
            k += 1;
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Matrix3;
    use proptest::prelude::*;

    /// A group fitted after its children ([`BOTTOM_UP_MIN`]) gets the box its own points give:
    /// the hull of its children's hull vertices is its own hull. Oracle: the fit of the group's
    /// own points, as a group fitted before its children gets it, for every large group of the
    /// Stanford bunny (real float coordinates), with each fit that builds hulls. The volumes
    /// may differ only by rounding (the hull's faces are triangulated and summed in another
    /// order).
    /// Van den Bergen's AABB trees from the triangles' boxes ([`super::super::midpoint`]) are
    /// the general builder's, node for node (boxes bit for bit, links, depth, leaf slots), on
    /// every model in tests/data and on one, two and three triangles, on one thread and two.
    #[test]
    fn midpoint_aabb_trees_are_the_general_builders() {
        use crate::bv::Aabb;
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut meshes: Vec<TriMesh> = [
            "teapot.obj",
            "stanford-bunny.obj",
            "f-16.obj",
            "spot.obj",
            "torus.obj",
            "bunny-500.obj",
        ]
        .iter()
        .map(|name| crate::mesh::load_obj(data.join(name)).unwrap())
        .collect();
        let p = |x: f64, y: f64, z: f64| Point::new(x, y, z);
        // Coincident triangles: no axis separates their midpoints (the split by count).
        let same = [[0, 1, 2], [0, 1, 2], [2, 1, 0]];
        let v = vec![p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.)];
        for k in 1..=3 {
            meshes.push(TriMesh::new(v.clone(), same[..k].to_vec(), "coincident").unwrap());
        }
        for (m, mesh) in meshes.iter().enumerate() {
            let (lo, hi) = mesh.bounds();
            let origin = nalgebra::center(&lo, &hi).coords;
            for parallel in [false, true] {
                let options = BuildOptions {
                    split: SplitRule::BoxMidpoint,
                    parallel,
                    ..BuildOptions::default()
                };
                let fast = build::<Aabb>(mesh, origin, &options, &AtomicUsize::new(0));
                let general = build_general::<Aabb>(mesh, origin, &options, &AtomicUsize::new(0));
                assert_eq!((fast.1, &fast.2), (general.1, &general.2), "mesh {m}");
                for (i, (f, g)) in fast.0.iter().zip(&general.0).enumerate() {
                    assert_eq!((f.bv, f.link), (g.bv, g.link), "mesh {m} node {i}");
                }
            }
        }
    }

    #[test]
    fn bottom_up_boxes_are_the_fits_of_their_own_points() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/stanford-bunny.obj");
        let mesh = crate::mesh::load_obj(&path).unwrap();
        for fit in [ObbFit::LeastVolume, ObbFit::Hull, ObbFit::Smallest] {
            let options = BuildOptions {
                fit,
                ..BuildOptions::default()
            };
            let (lo, hi) = mesh.bounds();
            let origin = nalgebra::center(&lo, &hi).coords;
            let (nodes, _, leaf_ids) =
                build::<crate::bv::Obb>(&mesh, origin, &options, &AtomicUsize::new(0));
            // The triangles under each node: a subtree's leaves have consecutive slots.
            let mut under: Vec<(u32, u32)> = vec![(0, 0); nodes.len()];
            for i in (0..nodes.len()).rev() {
                under[i] = if nodes[i].is_leaf() {
                    let slot = nodes[i].link & !LEAF;
                    (slot, slot + 1)
                } else {
                    let c = nodes[i].link as usize;
                    (
                        under[c].0.min(under[c + 1].0),
                        under[c].1.max(under[c + 1].1),
                    )
                };
            }
            let mut checked = 0;
            for (node, &(first, end)) in nodes.iter().zip(&under) {
                let tris = &leaf_ids[first as usize..end as usize];
                if tris.len() < BOTTOM_UP_MIN {
                    continue;
                }
                let mut vertices: Vec<u32> = tris
                    .iter()
                    .flat_map(|&t| mesh.triangles()[t as usize])
                    .collect();
                vertices.sort_unstable();
                vertices.dedup();
                let own = <crate::bv::Obb as BoundingVolume>::fit(&Group {
                    mesh: &mesh,
                    origin,
                    fit,
                    triangles: tris,
                    vertices: &vertices,
                    moments: &[],
                })
                .bv;
                let volume = |b: &crate::bv::Obb| b.half_extents().iter().product::<Real>();
                let (a, b) = (volume(&node.bv), volume(&own));
                assert!(
                    (a - b).abs() <= 1e-5 * b,
                    "{fit:?}: a group of {} triangles: volume {a} bottom up, {b} from its points",
                    tris.len()
                );
                checked += 1;
            }
            assert!(checked >= 20, "{fit:?}: only {checked} large groups");
        }
    }

    /// The summed extents along `axes` of the two sides when `tris` are cut at their centroids'
    /// mean along `dir`, computed directly (each side's points projected on their own), or
    /// `None` when a side is empty.
    fn score_of_cut(
        frame: &Frame<'_>,
        tris: &[u32],
        axes: &[Vector; 3],
        dir: &Vector,
    ) -> Option<Real> {
        let mean = tris.iter().map(|&t| frame.centroid(t)).sum::<Vector>() / tris.len() as Real;
        let cut = mean.dot(dir);
        let (left, right): (Vec<u32>, Vec<u32>) = tris
            .iter()
            .partition(|&&t| frame.centroid(t).dot(dir) < cut);
        if left.is_empty() || right.is_empty() {
            return None;
        }
        let extent = |side: &[u32], a: &Vector| {
            let d = side
                .iter()
                .flat_map(|&t| frame.triangle(t))
                .map(|p| p.coords.dot(a));
            d.clone().fold(Real::NEG_INFINITY, Real::max) - d.fold(Real::INFINITY, Real::min)
        };
        Some(
            axes.iter()
                .map(|a| extent(&left, a) + extent(&right, a))
                .sum(),
        )
    }

    /// The best-axis cut keeps each triangle on the side its centroid lies on, and no other
    /// direction's cut (the box's axes, the frame's axes) scores lower (the scores computed
    /// directly): triangles with corners `corners` scaled by `stretch`, the box's axes those of
    /// the rotation by `angle` about `axis` (angle 0: the frame's own, cut along three only).
    fn check_best_axis_cut(frame: &Frame<'_>, axes: &[Vector; 3]) -> Result<(), TestCaseError> {
        let (mesh, axes) = (frame.mesh, *axes);
        let mut tris: Vec<u32> = (0..mesh.triangle_count() as u32).collect();
        // Every direction's cut scored directly: the box's axes and the frame's.
        let dirs = [
            axes[0],
            axes[1],
            axes[2],
            Vector::x(),
            Vector::y(),
            Vector::z(),
        ];
        let scores = dirs.map(|d| score_of_cut(frame, &tris, &axes, &d));
        let mut scratch = Scratch::new(mesh.vertices().len());
        scratch.gather(mesh, &tris);
        let k = partition_best_axis(frame, &mut tris, &axes, &mut scratch);
        let Some(k) = k else {
            prop_assert!(scores.iter().all(Option::is_none));
            return Ok(());
        };
        prop_assert!(0 < k && k < tris.len());
        // The chosen cut: the axis whose direct partition puts the same triangles left.
        let mut left = tris[..k].to_vec();
        left.sort_unstable();
        let chosen = (0..6).find(|&i| {
            let mean = tris.iter().map(|&t| frame.centroid(t)).sum::<Vector>() / tris.len() as Real;
            let cut = mean.dot(&dirs[i]);
            let mut direct: Vec<u32> = tris
                .iter()
                .copied()
                .filter(|&t| frame.centroid(t).dot(&dirs[i]) < cut)
                .collect();
            direct.sort_unstable();
            direct == left && scores[i].is_some()
        });
        prop_assert!(chosen.is_some(), "no direction's cut gives the left side");
        let best = scores
            .iter()
            .flatten()
            .fold(Real::INFINITY, |a, &b| a.min(b));
        let got = scores[chosen.unwrap()].unwrap();
        prop_assert!(got <= best * (1.0 + 1e-9), "chose {got}, best {best}");
        let mut sorted = tris.clone();
        sorted.sort_unstable();
        prop_assert_eq!(
            sorted,
            (0..mesh.triangle_count() as u32).collect::<Vec<_>>()
        );
        Ok(())
    }

    /// Random float triangles (6 to `max` corners, a multiple of three used), a stretch of the
    /// frame's axes, and an axis and angle of the box's frame.
    fn group(max: usize) -> impl Strategy<Value = (Vec<[f64; 3]>, [f64; 3], [f64; 3], f64)> {
        (
            prop::collection::vec(prop::array::uniform3(-10.0f64..10.0), 6..max),
            prop::array::uniform3(0.1f64..5.0),
            prop::array::uniform3(-1.0f64..1.0),
            0.0f64..6.3,
        )
    }

    proptest! {
        // No failure file: a case worth keeping becomes an explicit test below (proptest's
        // default would write it to a folder at the crate's top level).
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

        /// [`check_best_axis_cut`] on random float triangles in a random orthonormal frame.
        #[test]
        fn best_axis_cut_scores_lowest((corners, stretch, axis, angle) in group(90)) {
            on_soup(&corners, stretch, axis, angle, check_best_axis_cut)?;
        }

        /// [`check_binned_cut`] on random float triangles in a random orthonormal frame, from
        /// two triangles (as many bins as triangles) to well above [`SPLIT_BINS`].
        #[test]
        fn binned_cut_scores_lowest((corners, stretch, axis, angle) in group(120)) {
            on_soup(&corners, stretch, axis, angle, check_binned_cut)?;
        }

        /// [`check_binned_cut`] on two triangles, the groups `partition_binned` cuts without
        /// its bins.
        #[test]
        fn binned_cut_of_two_triangles((corners, stretch, axis, angle) in group(7)) {
            on_soup(&corners, stretch, axis, angle, check_binned_cut)?;
        }
    }

    /// A case proptest once shrank to (three triangles, one of them nearly flat along the
    /// stretched axis): it tells a cut on the best axis from one on the worst.
    #[test]
    fn best_axis_cut_recorded_case() {
        let corners = [
            [0.0, 0.0, 9.805937048530724],
            [4.825974666908126, 0.0, -8.879725001990753],
            [0.0, 0.0, 0.0],
            [-9.068320226203667, 2.831636868177772, 0.0],
            [-6.126124764437917, 0.0, -2.0527850385253683],
            [9.038680163267388, 0.0, 1.7039770325899164],
            [0.0, 0.0, -3.718504016079982],
            [0.0, -8.5654628113332, 5.7746149194102045],
            [5.591603639742032, 0.0, -5.3250719293859445],
        ];
        let stretch = [1.2930004015271601, 2.6426813380726415, 0.1];
        let axis = [0.6832656591911186, 0.6612879587282412, -0.9114385442031224];
        on_soup(
            &corners,
            stretch,
            axis,
            2.5020974439985117,
            check_best_axis_cut,
        )
        .unwrap();
        on_soup(&corners, stretch, axis, 0.0, check_best_axis_cut).unwrap();
    }

    /// Runs `check` on a mesh of separate triangles with corners `corners` scaled by `stretch`
    /// (volume frame origin at (1, −2, 3)) and the box axes of the rotation by `angle` about
    /// `axis` (angle 0: the frame's own).
    fn on_soup(
        corners: &[[f64; 3]],
        stretch: [f64; 3],
        axis: [f64; 3],
        angle: f64,
        check: fn(&Frame<'_>, &[Vector; 3]) -> Result<(), TestCaseError>,
    ) -> Result<(), TestCaseError> {
        let vertices: Vec<Point> = corners
            .iter()
            .map(|c| Point::new(c[0] * stretch[0], c[1] * stretch[1], c[2] * stretch[2]))
            .collect();
        let triangles: Vec<[u32; 3]> = (0..vertices.len() as u32 / 3)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect();
        let mesh = TriMesh::new(vertices, triangles, "random").unwrap();
        let rot = nalgebra::Rotation3::from_axis_angle(
            &nalgebra::Unit::try_new(Vector::from(axis), 1e-3).unwrap_or(Vector::z_axis()),
            angle,
        );
        let m: Matrix3 = *rot.matrix();
        let frame = Frame {
            mesh: &mesh,
            origin: Vector::new(1.0, -2.0, 3.0),
            moments: &[],
            progress: &AtomicUsize::new(0),
        };
        check(&frame, &[0, 1, 2].map(|k| m.column(k).into_owned()))
    }

    /// The binned cut against every candidate scored directly: each direction's range from
    /// the corners' projections, each triangle's bin from its corners' summed projections
    /// (the definition of the bins), and each plane's score from both sides' extents along the
    /// box's axes, each side's corners projected on their own. The cut must put left exactly
    /// the triangles of a candidate whose score is the least (to rounding), and keep every
    /// triangle once; `None` only when no plane has triangles on both sides.
    fn check_binned_cut(frame: &Frame<'_>, axes: &[Vector; 3]) -> Result<(), TestCaseError> {
        let (mesh, axes) = (frame.mesh, *axes);
        let mut tris: Vec<u32> = (0..mesh.triangle_count() as u32).collect();
        let n = tris.len();
        let (dirs, m) = cut_directions(&axes);
        let nb = n.min(SPLIT_BINS);
        let project = |t: u32, d: &Vector| frame.triangle(t).map(|p| p.coords.dot(d));
        // Every candidate: (direction, plane, left triangles sorted, score).
        let mut candidates = Vec::new();
        for (i, dir) in dirs.iter().enumerate().take(m) {
            let all = tris.iter().flat_map(|&t| project(t, dir));
            let lo = all.clone().fold(Real::INFINITY, Real::min);
            let hi = all.fold(Real::NEG_INFINITY, Real::max);
            let range = 3.0 * (hi - lo);
            let bin_of = |t: u32| {
                let [a, b, c] = project(t, dir);
                let scale = if range > 0.0 { nb as Real / range } else { 0.0 };
                ((((a + b) + c - 3.0 * lo) * scale) as usize).min(nb - 1)
            };
            for plane in 1..nb {
                let (left, right): (Vec<u32>, Vec<u32>) =
                    tris.iter().partition(|&&t| bin_of(t) < plane);
                if left.is_empty() || right.is_empty() {
                    continue;
                }
                let width = |side: &[u32]| -> Real {
                    axes.iter()
                        .map(|a| {
                            let d = side.iter().flat_map(|&t| project(t, a));
                            d.clone().fold(Real::NEG_INFINITY, Real::max)
                                - d.fold(Real::INFINITY, Real::min)
                        })
                        .sum()
                };
                let score = width(&left) * left.len() as Real + width(&right) * right.len() as Real;
                candidates.push((i, plane, left, score));
            }
        }
        // The scratch first serves another group (the first half, cut along the frame's axes
        // alone), as the builder reuses it: nothing of that call may leak into this one.
        let mut scratch = Scratch::new(mesh.vertices().len());
        let mut other: Vec<u32> = tris[..n.div_ceil(2)].to_vec();
        scratch.gather(mesh, &other);
        partition_binned(
            frame,
            &mut other,
            &[Vector::x(), Vector::y(), Vector::z()],
            &mut scratch,
            None,
        );
        scratch.gather(mesh, &tris);
        let k = partition_binned(frame, &mut tris, &axes, &mut scratch, None);
        let mut sorted = tris.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..n as u32).collect::<Vec<_>>());
        let Some(k) = k else {
            prop_assert!(
                candidates.is_empty(),
                "no cut, but {} candidates",
                candidates.len()
            );
            return Ok(());
        };
        prop_assert!(0 < k && k < n);
        let mut left = tris[..k].to_vec();
        left.sort_unstable();
        let least = candidates
            .iter()
            .map(|c| c.3)
            .fold(Real::INFINITY, Real::min);
        let chosen = candidates.iter().find(|c| c.2 == left);
        prop_assert!(
            chosen.is_some(),
            "no candidate puts the same triangles left"
        );
        let got = chosen.unwrap().3;
        prop_assert!(got <= least * (1.0 + 1e-9), "chose {got}, least {least}");
        Ok(())
    }

    /// Triangles whose centroids coincide have no plane between them (every triangle in one
    /// bin along every direction): no cut, and the caller's split by count takes over.
    #[test]
    fn binned_cut_of_coincident_centroids() {
        let corners = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.5, 0.0],
            [0.0, -0.5, 0.0],
            [0.0, 1.0, 0.25],
            [0.0, -1.0, 0.5],
            [0.0, 0.0, -0.75],
        ];
        // `check_binned_cut` finds no candidate plane and asserts that there is no cut.
        on_soup(&corners, [1.0; 3], [0.0, 0.0, 1.0], 0.0, check_binned_cut).unwrap();
    }
}
