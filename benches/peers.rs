//! Side-by-side query timings: obbtree (OBB tree) and parry3d-f64 (TriMesh vs TriMesh) on the
//! same meshes and pose files, in one run, next to RAPID 2.01's figures measured on this kind
//! of machine (the project's shared reference README). Per-query mean and median over all
//! poses, the best of 5 rounds per pose (the machines are shared and noisy).
//!
//! Two passes: "interleaved" alternates the two libraries pose by pose (the fair comparison
//! with parry: both see the same machine state, and each evicts the other's data from cache);
//! "solo" runs obbtree's queries back to back, as a library's own benchmark loop does (the
//! comparison with RAPID's figures, measured that way).
//!
//! Run: `cargo bench --bench peers` (add `-- quick` for one round).

use obbtree::math::relative_parts;
use obbtree::pose::read_poses;
use obbtree::prelude::*;
use parry3d_f64::math::{Pose as PPose, Rotation as PRot, Vector as PVec};
use parry3d_f64::shape::{Shape, TriMesh as PTriMesh};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// RAPID 2.01 (-O2) on this kind of machine, µs per query (mean, median).
fn rapid(case: &str, first: bool) -> Option<(f64, f64)> {
    match (case, first) {
        ("bunny random", false) => Some((1530.0, 634.0)),
        ("bunny random", true) => Some((15.6, 12.6)),
        ("teapot random", false) => Some((390.0, 261.0)),
        ("teapot random", true) => Some((12.0, 9.1)),
        _ => None,
    }
}

fn to_parry(m: &TriMesh) -> PTriMesh {
    let v = m
        .vertices()
        .iter()
        .map(|p| PVec::new(p.x, p.y, p.z))
        .collect();
    PTriMesh::new(v, m.triangles().to_vec()).expect("valid mesh")
}

fn parry_pose(iso: &Isometry) -> PPose {
    let q = iso.rotation.quaternion();
    let t = iso.translation.vector;
    PPose::from_parts(
        PVec::new(t.x, t.y, t.z),
        PRot::from_xyzw(q.i, q.j, q.k, q.w),
    )
}

/// All intersecting triangle pairs with parry: A's BVH leaves against B's bounding box, then
/// B's BVH against each candidate triangle's box, then parry's triangle–triangle test.
fn parry_all(a: &PTriMesh, b: &PTriMesh, pose_ab: &PPose, out: &mut Vec<(u32, u32)>) {
    out.clear();
    let pose_ba = pose_ab.inverse();
    let b_in_a = b.compute_aabb(pose_ab);
    for ia in a.bvh().intersect_aabb(&b_in_a) {
        let ta = a.triangle(ia);
        let ta_in_b = ta.compute_aabb(&pose_ba);
        for ib in b.bvh().intersect_aabb(&ta_in_b) {
            let tb = b.triangle(ib);
            if parry3d_f64::query::intersection_test(pose_ab, &tb, &PPose::IDENTITY, &ta)
                .is_ok_and(|r| r.intersecting)
            {
                out.push((ia, ib));
            }
        }
    }
}

fn stats(mut v: Vec<f64>) -> (f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    v.sort_by(f64::total_cmp);
    (mean, v[v.len() / 2])
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let rounds = if quick { 1 } else { 5 };
    println!(
        "obbtree vs parry3d-f64 0.31 vs RAPID 2.01; µs per query, mean / median (best of {rounds} rounds per pose)\n"
    );

    // Build times (bunny, 69,451 triangles).
    let bunny = load_obj(data("stanford-bunny.obj")).unwrap();
    let time = |f: &dyn Fn()| {
        (0..rounds.max(3))
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::INFINITY, f64::min)
    };
    let obb_par = time(&|| {
        drop(black_box(Bvh::<Obb>::build(
            bunny.clone(),
            &BuildOptions::default(),
        )))
    });
    let obb_ser = time(&|| {
        drop(black_box(Bvh::<Obb>::build(
            bunny.clone(),
            &BuildOptions {
                parallel: false,
                ..Default::default()
            },
        )))
    });
    let aabb = time(&|| {
        drop(black_box(Bvh::<Aabb>::build(
            bunny.clone(),
            &BuildOptions::van_den_bergen(),
        )))
    });
    let parry_build = time(&|| drop(black_box(to_parry(&bunny))));
    let t = Bvh::<Obb>::build(bunny.clone(), &BuildOptions::default());
    println!("| build, bunny (69,451 tris) | ms | bytes/triangle |");
    println!("|---|---|---|");
    println!(
        "| obbtree OBB tree, 2 threads (hull included) | {obb_par:.1} | {:.0} (+ mesh {:.0}) |",
        t.bytes_per_triangle(),
        bunny.memory_bytes() as f64 / 69451.0
    );
    println!("| obbtree OBB tree, 1 thread (hull included) | {obb_ser:.1} | |");
    println!(
        "| obbtree AABB tree (van den Bergen) | {aabb:.1} | {:.0} |",
        Bvh::<Aabb>::build(bunny.clone(), &BuildOptions::van_den_bergen()).bytes_per_triangle()
    );
    println!("| parry3d TriMesh (its BVH) | {parry_build:.1} | |");
    println!("| RAPID 2.01 | 82 | 412 |\n");

    println!(
        "| case | mode | obbtree solo | RAPID | vs RAPID (mean, median) | obbtree interleaved | parry3d interleaved | vs parry (mean, median) | N_v/query | N_p/query | contacts |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (model, poses_file, label) in [
        ("teapot.obj", "teapot_random.txt", "teapot random"),
        ("teapot.obj", "teapot_path.txt", "teapot path"),
        ("stanford-bunny.obj", "bunny_random.txt", "bunny random"),
        ("stanford-bunny.obj", "bunny_path.txt", "bunny path"),
    ] {
        let mesh = load_obj(data(model)).unwrap();
        let a = Bvh::<Obb>::build(mesh.clone(), &BuildOptions::default());
        let b = Bvh::<Obb>::build(mesh.clone(), &BuildOptions::default());
        let pa = to_parry(&mesh);
        let pb = to_parry(&mesh);
        let poses = read_poses(data(poses_file)).unwrap();
        for first in [false, true] {
            let options = if first {
                QueryOptions::first_contact()
            } else {
                QueryOptions::default()
            };
            let n = poses.len();
            let (mut ours, mut theirs) = (vec![f64::INFINITY; n], vec![f64::INFINITY; n]);
            let (mut nv, mut np, mut contacts) = (0u64, 0u64, 0usize);
            let mut report = CollisionReport::default();
            let mut pairs = Vec::new();
            // One obbtree query, timed (µs).
            let timed_query = |pose_ab: &Isometry, report: &mut CollisionReport| {
                let t = Instant::now();
                {
                    let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), pose_ab);
                    collide_with(
                        &a,
                        &b,
                        &rot_ab,
                        &pos_ab,
                        &options,
                        CollideWith::default(),
                        report,
                    )
                };
                t.elapsed().as_secs_f64() * 1e6
            };
            for round in 0..rounds {
                // Interleave the two libraries pose by pose so both see the same machine state.
                for (i, pose) in poses.iter().enumerate() {
                    ours[i] = ours[i].min(timed_query(&pose.pose_ab, &mut report));
                    if round == 0 {
                        nv += report.bv_tests;
                        np += report.tri_tests;
                        contacts += report.contacts.len();
                    }
                    let pp = parry_pose(&pose.pose_ab);
                    let t = Instant::now();
                    let hit = if first {
                        parry3d_f64::query::intersection_test(&PPose::IDENTITY, &pa, &pp, &pb)
                            .is_ok_and(|r| r.intersecting)
                    } else {
                        parry_all(&pa, &pb, &pp, &mut pairs);
                        !pairs.is_empty()
                    };
                    theirs[i] = theirs[i].min(t.elapsed().as_secs_f64() * 1e6);
                    if round == 0 {
                        assert_eq!(
                            hit,
                            report.colliding(),
                            "{label} pose {i}: parry and obbtree disagree on contact"
                        );
                        if !first {
                            pairs.sort_unstable();
                            assert_eq!(
                                pairs,
                                report.sorted_contacts(),
                                "{label} pose {i}: contact sets differ"
                            );
                        }
                    }
                }
            }
            let mut solo = vec![f64::INFINITY; n];
            for _ in 0..rounds {
                for (i, pose) in poses.iter().enumerate() {
                    solo[i] = solo[i].min(timed_query(&pose.pose_ab, &mut report));
                }
            }
            let (sm, smed) = stats(solo);
            let (om, omed) = stats(ours);
            let (pm, pmed) = stats(theirs);
            let r = rapid(label, first);
            let vs_rapid = r.map_or("–".into(), |(m, d)| {
                format!("{:.2}× / {:.2}×", m / sm, d / smed)
            });
            println!(
                "| {label} | {} | {sm:.1} / {smed:.1} | {} | {vs_rapid} | {om:.1} / {omed:.1} | {pm:.1} / {pmed:.1} | {:.1}× / {:.1}× | {} | {} | {contacts} |",
                if first { "first" } else { "all" },
                r.map_or("–".into(), |(m, d)| format!("{m} / {d}")),
                pm / om,
                pmed / omed,
                nv / n as u64,
                np / n as u64,
            );
        }
    }
}
