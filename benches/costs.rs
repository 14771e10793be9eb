//! C_v and C_p of the paper's cost equation (1), `T = T_0 + N_v·C_v + N_p·C_p`, measured with
//! criterion on the three walks of [`obbtree::query::cost`] (the module the viewer and
//! `obbtree bench` measure with), over the first 50 random poses of the teapot against itself:
//! per box test, the walk with no triangle tests; per triangle test, the query less that walk.
//! C_v ≈ (boxes − set-up) per box test; C_p ≈ (query − boxes) per triangle test.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use obbtree::pose::read_poses;
use obbtree::prelude::*;
use obbtree::query::cost::{CostProbe, CostWalk};
use std::hint::black_box;
use std::path::PathBuf;

fn costs(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mesh = load_obj(dir.join("teapot.obj")).unwrap();
    let a = Bvh::<Obb>::build(mesh.clone(), &BuildOptions::default());
    let b = Bvh::<Obb>::build(mesh, &BuildOptions::default());
    let overlap = OverlapOptions::default();
    let mut probes: Vec<_> = read_poses(dir.join("teapot_random.txt"))
        .unwrap()
        .iter()
        .take(50)
        .map(|p| {
            let rot = p.pose_ab.rotation.to_rotation_matrix().into_inner();
            CostProbe::new(&a, &b, &rot, &p.pose_ab.translation.vector, &overlap)
        })
        .collect();
    let (mut n_v, mut n_p) = (0, 0);
    for probe in &mut probes {
        let counts = probe.run(CostWalk::Query);
        n_v += counts.bv_tests;
        n_p += counts.tri_tests;
    }
    let walks = |probes: &mut [CostProbe<'_, Obb>], walk| {
        for probe in probes.iter_mut() {
            black_box(probe.run(walk));
        }
    };
    let mut g = c.benchmark_group("cost");
    g.throughput(Throughput::Elements(probes.len() as u64));
    g.bench_function("T_0 + C_v: the set-up walk, per query", |bench| {
        bench.iter(|| walks(&mut probes, CostWalk::SetUp))
    });
    g.throughput(Throughput::Elements(n_v));
    g.bench_function(
        "C_v: the walk without triangle tests, per box test",
        |bench| bench.iter(|| walks(&mut probes, CostWalk::Boxes)),
    );
    g.throughput(Throughput::Elements(n_p));
    g.bench_function("the all-contacts query, per triangle test", |bench| {
        bench.iter(|| walks(&mut probes, CostWalk::Query))
    });
    g.finish();
}

criterion_group!(benches, costs);
criterion_main!(benches);
