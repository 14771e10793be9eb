//! C_v and C_p of the paper's cost equation (1), `T = N_v·C_v + N_p·C_p`, measured with
//! criterion on the box pairs and triangle pairs that real queries test (teapot vs teapot over
//! the first 50 random poses).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use obbtree::bv::BoundingVolume;
use obbtree::bv::sat::batch::BATCH;
use obbtree::bv::sat::box_triangle::LaneTriangle;
use obbtree::bv::sat::lanes::Wide;
use obbtree::math::transform_point;
use obbtree::pose::read_poses;
use obbtree::prelude::*;
use obbtree::query::triangles_intersect;
use std::hint::black_box;
use std::path::PathBuf;

type Pair = (usize, usize, usize); // (pose, node of A, node of B)

/// The (node, node) pairs a traversal with RAPID's descend rule tests, and the leaf pairs.
fn tested_pairs(a: &Bvh<Obb>, b: &Bvh<Obb>, poses: &[(Matrix3, Vector)]) -> (Vec<Pair>, Vec<Pair>) {
    let (mut boxes, mut leaves) = (Vec::new(), Vec::new());
    for (k, (rot, pos)) in poses.iter().enumerate() {
        let q = a.volume_query(b, rot, pos, &OverlapOptions::default());
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, j)) = stack.pop() {
            boxes.push((k, i, j));
            let (na, nb) = (&a.nodes()[i], &b.nodes()[j]);
            if !Obb::overlaps(&q, &na.bv, &Obb::place(&q, &nb.bv)) {
                continue;
            }
            match (na.children(), nb.children()) {
                (None, None) => leaves.push((
                    k,
                    a.leaf_triangle(i).unwrap() as usize,
                    b.leaf_triangle(j).unwrap() as usize,
                )),
                (Some((l, r)), Some(_)) if na.bv.size() >= nb.bv.size() => {
                    stack.extend([(l, j), (r, j)])
                }
                (Some((l, r)), None) => stack.extend([(l, j), (r, j)]),
                (_, Some((l, r))) => stack.extend([(i, l), (i, r)]),
            }
        }
    }
    (boxes, leaves)
}

/// One split of the traversal: the node split and both children.
enum Split {
    /// A's children `[l, r]` against B's node, placed by the split above (see [`paired`]).
    A([usize; 2]),
    /// A's node against B's children `[l, r]`, to be placed.
    B(usize, [usize; 2]),
}

struct SplitAt {
    pose: usize,
    /// B's node of the pair split (its children when B is split).
    node_b: usize,
    kind: Split,
}

/// The splits a traversal with the descend rule makes (both children of every overlapping
/// internal pair).
fn tested_splits(
    a: &Bvh<Obb>,
    b: &Bvh<Obb>,
    queries: &[<Obb as BoundingVolume>::Query],
) -> Vec<SplitAt> {
    let mut out = Vec::new();
    for (k, q) in queries.iter().enumerate() {
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, j)) = stack.pop() {
            let (na, nb) = (&a.nodes()[i], &b.nodes()[j]);
            let pb = Obb::place(q, &nb.bv);
            if !Obb::overlaps(q, &na.bv, &pb) {
                continue;
            }
            match (na.children(), nb.children()) {
                (None, None) => {}
                (Some((l, r)), Some(_)) if na.bv.size() >= nb.bv.size() => {
                    out.push(SplitAt {
                        pose: k,
                        node_b: j,
                        kind: Split::A([l, r]),
                    });
                    stack.extend([(l, j), (r, j)]);
                }
                (Some((l, r)), None) => {
                    out.push(SplitAt {
                        pose: k,
                        node_b: j,
                        kind: Split::A([l, r]),
                    });
                    stack.extend([(l, j), (r, j)]);
                }
                (_, Some((l, r))) => {
                    out.push(SplitAt {
                        pose: k,
                        node_b: j,
                        kind: Split::B(i, [l, r]),
                    });
                    stack.extend([(i, l), (i, r)]);
                }
            }
        }
    }
    out
}

/// Both child pairs of every split tested together (eight lanes on AVX2), B's two children
/// placed together when B is split; when A is split, B's node is the one placed by the last
/// split of B, as in the traversal, else placed here (the root, or a pair the walk came back
/// to). The number of overlapping child pairs.
#[inline(always)]
fn paired(
    a: &Bvh<Obb>,
    b: &Bvh<Obb>,
    queries: &[<Obb as BoundingVolume>::Query],
    splits: &[SplitAt],
    wide: Wide,
) -> usize {
    let mut n = 0usize;
    // B's boxes placed by the last split of B (the walk keeps them while it works below them),
    // by pose and node.
    let mut kept: [(usize, usize, <Obb as BoundingVolume>::Placed); 2] = [(
        usize::MAX,
        usize::MAX,
        Obb::place(&queries[0], &b.nodes()[0].bv),
    ); 2];
    for s in splits {
        let q = &queries[s.pose];
        let hit = match s.kind {
            Split::A([l, r]) => {
                let at = kept.iter().position(|k| (k.0, k.1) == (s.pose, s.node_b));
                let pb = match at {
                    Some(at) => kept[at].2,
                    None => {
                        // B's node placed by the parent pair: the root, or a pair the walk
                        // came back to.
                        let pb = Obb::place(q, &b.nodes()[s.node_b].bv);
                        kept[0] = (s.pose, s.node_b, pb);
                        pb
                    }
                };
                Obb::overlaps_pair(q, [&a.nodes()[l].bv, &a.nodes()[r].bv], [&pb, &pb], wide)
            }
            Split::B(i, [l, r]) => {
                let [pl, pr] = Obb::place_pair(q, [&b.nodes()[l].bv, &b.nodes()[r].bv], wide);
                kept = [(s.pose, l, pl), (s.pose, r, pr)];
                let na = &a.nodes()[i].bv;
                Obb::overlaps_pair(q, [na, na], [&pl, &pr], wide)
            }
        };
        n += hit[0] as usize + hit[1] as usize;
    }
    n
}

/// [`paired`] compiled for the target features `$features`, the tests inlined (`wide` from
/// [`Wide::detect`], AVX2).
macro_rules! paired_compiled_for {
    ($(#[$doc:meta])* $name:ident, $features:literal) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        fn $name(
            a: &Bvh<Obb>,
            b: &Bvh<Obb>,
            queries: &[<Obb as BoundingVolume>::Query],
            splits: &[SplitAt],
            wide: Wide,
        ) -> usize {
            paired(a, b, queries, splits, wide.inlined())
        }
    };
}

paired_compiled_for!(
    /// [`paired`] compiled for AVX2, the tests inlined (`wide` from [`Wide::detect`], AVX2).
    paired_avx2,
    "avx2"
);

paired_compiled_for!(
    /// [`paired`] compiled as [`obbtree::query`]'s walk is where the CPU also has AVX-512F and
    /// VL (OBB trees): the same 8-lane operations with 32 vector registers (`wide` from
    /// [`Wide::detect`], AVX2).
    paired_avx512,
    "avx2,avx512f,avx512vl"
);

/// A leaf's triangle tested against both children of every split where the node not split is
/// a leaf (box–triangle, eight lanes), B's children placed as in [`paired`]: the number of
/// overlapping tests.
#[inline(always)]
fn box_triangle_paired(
    a: &Bvh<Obb>,
    b: &Bvh<Obb>,
    queries: &[<Obb as BoundingVolume>::Query],
    tri_splits: &[(usize, &Split, LaneTriangle)],
    wide: Wide,
) -> usize {
    let mut n = 0usize;
    for (k, kind, t) in tri_splits {
        let q = &queries[*k];
        let hit = match kind {
            Split::A([l, r]) => {
                Obb::triangle_overlaps_pair(q, [&a.nodes()[*l].bv, &a.nodes()[*r].bv], t, wide)
            }
            Split::B(_, [l, r]) => {
                let [pl, pr] = Obb::place_pair(q, [&b.nodes()[*l].bv, &b.nodes()[*r].bv], wide);
                Obb::triangle_overlaps_placed_pair(q, [&pl, &pr], t, wide)
            }
        };
        n += hit[0] as usize + hit[1] as usize;
    }
    n
}

/// [`box_triangle_paired`] compiled for AVX2, the tests inlined (`wide` from [`Wide::detect`],
/// AVX2).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn box_triangle_paired_avx2(
    a: &Bvh<Obb>,
    b: &Bvh<Obb>,
    queries: &[<Obb as BoundingVolume>::Query],
    tri_splits: &[(usize, &Split, LaneTriangle)],
    wide: Wide,
) -> usize {
    box_triangle_paired(a, b, queries, tri_splits, wide.inlined())
}

fn costs(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mesh = load_obj(dir.join("teapot.obj")).unwrap();
    let a = Bvh::<Obb>::build(mesh.clone(), &BuildOptions::default());
    let b = Bvh::<Obb>::build(mesh.clone(), &BuildOptions::default());
    let poses: Vec<(Matrix3, Vector)> = read_poses(dir.join("teapot_random.txt"))
        .unwrap()
        .iter()
        .take(50)
        .map(|p| {
            (
                p.pose_ab.rotation.to_rotation_matrix().into_inner(),
                p.pose_ab.translation.vector,
            )
        })
        .collect();
    let (boxes, leaves) = tested_pairs(&a, &b, &poses);
    let queries: Vec<_> = poses
        .iter()
        .map(|(r, t)| a.volume_query(&b, r, t, &OverlapOptions::default()))
        .collect();

    let mut g = c.benchmark_group("cost");
    g.throughput(Throughput::Elements(boxes.len() as u64));
    let placed: Vec<_> = boxes
        .iter()
        .map(|&(k, _, j)| Obb::place(&queries[k], &b.nodes()[j].bv))
        .collect();
    g.bench_function(
        "C_v SAT only (B placed once per node, as in the traversal), per box test",
        |bench| {
            bench.iter(|| {
                let mut n = 0usize;
                for (&(k, i, _), pb) in boxes.iter().zip(&placed) {
                    n += Obb::overlaps(&queries[k], &a.nodes()[i].bv, pb) as usize;
                }
                black_box(n)
            })
        },
    );
    g.bench_function("C_v place + SAT, per box test", |bench| {
        bench.iter(|| {
            let mut n = 0usize;
            for &(k, i, j) in &boxes {
                let q = &queries[k];
                n += Obb::overlaps(q, &a.nodes()[i].bv, &Obb::place(q, &b.nodes()[j].bv)) as usize;
            }
            black_box(n)
        })
    });
    // Eight independent pairs at once, one per lane, each B box placed in its lane (the test
    // of a separation list's pairs): the same pairs, eight of one pose at a time.
    let batches: Vec<(usize, [usize; BATCH], [usize; BATCH])> = boxes
        .chunk_by(|x, y| x.0 == y.0)
        .flat_map(|run| run.chunks(BATCH))
        .map(|c| {
            let at = |k: usize| c[k.min(c.len() - 1)];
            (
                c[0].0,
                std::array::from_fn(|k| at(k).1),
                std::array::from_fn(|k| at(k).2),
            )
        })
        .collect();
    let wide = Wide::detect();
    g.bench_function(
        format!(
            "C_v batch (eight pairs, one per lane, placement included, {}), per box test",
            wide.name()
        ),
        |bench| {
            bench.iter(|| {
                let mut n = 0u32;
                for (k, ia, ib) in &batches {
                    let ra = ia.map(|i| &a.nodes()[i].bv);
                    let rb = ib.map(|j| &b.nodes()[j].bv);
                    n += Obb::overlaps_batch(&queries[*k], &ra, &rb, wide).count_ones();
                }
                black_box(n)
            })
        },
    );
    // The traversal's own unit, a split ([`paired`]): first called from code compiled for any
    // x86-64 (each split one call into the AVX2 code), then as the walk runs it.
    let splits = tested_splits(&a, &b, &queries);
    g.throughput(Throughput::Elements(2 * splits.len() as u64));
    g.bench_function(
        format!(
            "C_v paired (split: both children at once, {}, one call per split), per box test",
            wide.name()
        ),
        |bench| bench.iter(|| black_box(paired(&a, &b, &queries, &splits, wide))),
    );
    // As the walk runs it: compiled for AVX2, the tests inlined into the loop.
    #[cfg(target_arch = "x86_64")]
    if wide != Wide::HALVES {
        g.bench_function(
            "C_v paired (split: both children at once, avx2, inlined as in the walk), per box test",
            |bench| {
                // SAFETY: `wide` is not the halves: AVX2, which `Wide::detect` found on this CPU.
                bench.iter(|| black_box(unsafe { paired_avx2(&a, &b, &queries, &splits, wide) }))
            },
        );
    }
    // As the walk runs it on a CPU with AVX-512F and VL (the walk's OBB compilation there).
    #[cfg(target_arch = "x86_64")]
    if wide != Wide::HALVES
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
    {
        g.bench_function(
            "C_v paired (split: both children at once, avx2 with avx512vl's registers, inlined \
             as in the walk), per box test",
            |bench| {
                // SAFETY: AVX2 (`wide` is not the halves) and AVX-512F/VL, detected above.
                bench.iter(|| black_box(unsafe { paired_avx512(&a, &b, &queries, &splits, wide) }))
            },
        );
    }
    // The splits where the node not split is a leaf: the traversal tests the leaf's triangle
    // against both children (box–triangle, eight lanes), B's children placed as above. The
    // triangles are laid out beforehand, as the traversal keeps the last one of each model.
    let origin = a.origin();
    let triangle_of = |k: usize, node: usize, of_a: bool| {
        let (rot, pos) = &poses[k];
        let t = if of_a {
            mesh.triangle(a.leaf_triangle(node)? as usize)
        } else {
            let t = mesh.triangle(b.leaf_triangle(node)? as usize);
            t.map(|x| transform_point(rot, pos, &x))
        };
        Some(LaneTriangle::new(&t.map(|p| p - origin))).filter(|t| t.usable)
    };
    let tri_splits: Vec<(usize, &Split, LaneTriangle)> = splits
        .iter()
        .filter_map(|s| {
            let t = match s.kind {
                Split::A(_) => triangle_of(s.pose, s.node_b, false),
                Split::B(i, _) => triangle_of(s.pose, i, true),
            };
            Some((s.pose, &s.kind, t?))
        })
        .collect();
    g.throughput(Throughput::Elements(2 * tri_splits.len() as u64));
    g.bench_function(
        format!(
            "C_v box-triangle paired ({}, one call per split), per test",
            wide.name()
        ),
        |bench| bench.iter(|| black_box(box_triangle_paired(&a, &b, &queries, &tri_splits, wide))),
    );
    #[cfg(target_arch = "x86_64")]
    if wide != Wide::HALVES {
        g.bench_function(
            "C_v box-triangle paired (avx2, inlined as in the walk), per test",
            |bench| {
                // SAFETY: `wide` is not the halves: AVX2, which `Wide::detect` found on this CPU.
                bench.iter(|| {
                    black_box(unsafe {
                        box_triangle_paired_avx2(&a, &b, &queries, &tri_splits, wide)
                    })
                })
            },
        );
    }
    g.throughput(Throughput::Elements(leaves.len() as u64));
    g.bench_function(
        "C_p transform of B triangle + triangle test, per tri test",
        |bench| {
            bench.iter(|| {
                let mut n = 0usize;
                for &(k, ta, tb) in &leaves {
                    let (rot, pos) = &poses[k];
                    let q = mesh.triangle(tb).map(|x| transform_point(rot, pos, &x));
                    n += triangles_intersect(&mesh.triangle(ta), &q) as usize;
                }
                black_box(n)
            })
        },
    );
    g.finish();
}

criterion_group!(benches, costs);
criterion_main!(benches);
