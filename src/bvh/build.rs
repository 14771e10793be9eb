//! Top-down construction (Gottschalk et al. 1996, §4; van den Bergen 1998, §2).

use super::{LEAF, Node};
use crate::bv::{BoundingVolume, BvKind, Fitted, Group, ObbFit, TriangleMoments};
use crate::math::{Point, Real, Vector};
use crate::mesh::TriMesh;

/// Where a group is cut along the chosen axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum SplitRule {
    /// At the mean of the group's vertices; triangles go by their centroid (Gottschalk et al.
    /// 1996, §4, RAPID's rule). The default.
    #[default]
    Mean,
    /// At the median of the triangles' centroids: balanced trees (§4).
    Median,
    /// At the centre of the volume; triangles go by the midpoint of their projection
    /// (van den Bergen 1998, §2: his AABB trees).
    BoxMidpoint,
}

/// How to build a hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// The split rule.
    pub split: SplitRule,
    /// How OBBs are oriented.
    pub fit: ObbFit,
    /// Build large subtrees on several threads (rayon). The tree is the same either way.
    /// Default: on, except on wasm32 (no threads).
    pub parallel: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            split: SplitRule::Mean,
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
}

/// Groups at least this large are split on two threads.
const PARALLEL_MIN: usize = 4096;

/// Marks vertices already gathered for the current group.
struct Scratch {
    stamp: Vec<u32>,
    generation: u32,
    vertices: Vec<u32>,
}

impl Scratch {
    fn new(vertex_count: usize) -> Self {
        Scratch {
            stamp: vec![0; vertex_count],
            generation: 0,
            vertices: Vec::new(),
        }
    }

    fn gather(&mut self, mesh: &TriMesh, tris: &[u32]) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
        self.vertices.clear();
        let all = mesh.triangles();
        for &t in tris {
            for &v in &all[t as usize] {
                let s = &mut self.stamp[v as usize];
                if *s != self.generation {
                    *s = self.generation;
                    self.vertices.push(v);
                }
            }
        }
    }
}

/// Builds the node array of `mesh` with volumes in the volume frame whose origin (model frame)
/// is `origin`; returns the nodes and the depth.
pub(super) fn build<B: BoundingVolume>(
    mesh: &TriMesh,
    origin: Vector,
    options: &BuildOptions,
) -> (Vec<Node<B>>, usize) {
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
    };
    let depth = build_rec::<B>(
        &frame,
        &mut tris,
        &mut root[0],
        below,
        1,
        &mut scratch,
        options,
    );
    // SAFETY: build_rec initialised all 2n − 1 slots: a subtree of k triangles writes its own
    // slot and the 2k − 2 slots of `below` (a leaf has none; an internal node writes its
    // children's pair and hands each child its own range).
    unsafe { nodes.set_len(2 * n - 1) };
    (nodes, depth)
}

/// Builds the subtree of `tris`: writes its root into `me` and its descendants into `below`
/// (exactly `2·len − 2` slots, the first of which has index `base` in the whole array).
/// Siblings are stored side by side, so a split fetches both children together; every node
/// comes after its parent. Returns the subtree's depth.
fn build_rec<B: BoundingVolume>(
    frame: &Frame<'_>,
    tris: &mut [u32],
    me: &mut std::mem::MaybeUninit<Node<B>>,
    below: &mut [std::mem::MaybeUninit<Node<B>>],
    base: usize,
    scratch: &mut Scratch,
    options: &BuildOptions,
) -> usize {
    debug_assert_eq!(below.len(), 2 * tris.len() - 2);
    let mesh = frame.mesh;
    scratch.gather(mesh, tris);
    let fitted = B::fit(&Group {
        mesh,
        origin: frame.origin,
        fit: options.fit,
        triangles: tris,
        vertices: &scratch.vertices,
        moments: frame.moments,
    });
    if tris.len() == 1 {
        me.write(Node {
            bv: fitted.bv,
            link: LEAF | tris[0],
        });
        return 0;
    }
    let k = partition(frame, tris, &fitted, options.split);
    let n = tris.len();
    me.write(Node {
        bv: fitted.bv,
        link: base as u32,
    });
    let (pair, rest) = below.split_at_mut(2);
    let (left_me, right_me) = pair.split_at_mut(1);
    let (left_below, right_below) = rest.split_at_mut(2 * k - 2);
    let (left_tris, right_tris) = tris.split_at_mut(k);
    let (left_base, right_base) = (base + 2, base + 2 + 2 * k - 2);
    let mut left = |s: &mut Scratch| {
        build_rec::<B>(
            frame,
            left_tris,
            &mut left_me[0],
            left_below,
            left_base,
            s,
            options,
        )
    };
    let mut right = |s: &mut Scratch| {
        build_rec::<B>(
            frame,
            right_tris,
            &mut right_me[0],
            right_below,
            right_base,
            s,
            options,
        )
    };
    let (dl, dr) = if options.parallel && n >= PARALLEL_MIN {
        let mut other = Scratch::new(mesh.vertices().len());
        rayon::join(|| left(scratch), || right(&mut other))
    } else {
        (left(scratch), right(scratch))
    };
    1 + dl.max(dr)
}

/// The mesh and the origin of the volume frame in which the volumes are fitted and the groups
/// split.
struct Frame<'a> {
    mesh: &'a TriMesh,
    origin: Vector,
    /// The triangle moments of RAPID's fit (empty for other fits and volumes).
    moments: &'a [TriangleMoments],
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

/// Reorders `tris` so that the first `k` go left; returns `k` (`0 < k < len`).
fn partition<B>(frame: &Frame<'_>, tris: &mut [u32], fitted: &Fitted<B>, rule: SplitRule) -> usize {
    let n = tris.len();
    match rule {
        SplitRule::Median => {
            let axis = fitted.split_axes[0];
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
        SplitRule::Mean => {
            let mean = tris
                .iter()
                .fold(Vector::zeros(), |s, &t| s + frame.centroid(t))
                / n as Real;
            for axis in &fitted.split_axes {
                let cut = mean.dot(axis);
                let k = partition_by(tris, |t| frame.centroid(t).dot(axis) < cut);
                if k > 0 && k < n {
                    return k;
                }
            }
        }
        SplitRule::BoxMidpoint => {
            let c: Point = fitted.center;
            for axis in &fitted.split_axes {
                let cut = c.coords.dot(axis);
                let k = partition_by(tris, |t| {
                    let [p, q, r] = frame.triangle(t);
                    let (a, b, d) = (p.coords.dot(axis), q.coords.dot(axis), r.coords.dot(axis));
                    0.5 * (a.min(b).min(d) + a.max(b).max(d)) <= cut
                });
                if k > 0 && k < n {
                    return k;
                }
            }
        }
    }
    // No axis separates the centroids (e.g. all coincide): split by count along the first axis.
    let axis = fitted.split_axes[0];
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

/// In-place partition: moves the triangles for which `left` holds to the front and returns how
/// many there are (deterministic, so builds are reproducible).
fn partition_by(tris: &mut [u32], left: impl Fn(u32) -> bool) -> usize {
    let mut k = 0;
    for i in 0..tris.len() {
        if left(tris[i]) {
            tris.swap(i, k);
            k += 1;
        }
    }
    k
}
