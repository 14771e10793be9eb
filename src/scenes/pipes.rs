//! The pipes scene (Gottschalk et al. 1996, §7.2, Fig. 8): a cube-shaped tangle of pipes.
//!
//! The original model (143,690 polygons, Table 3) is not public. This stand-in is built the same
//! way a plant designer routes pipes: random walks on a 3D lattice inside the cube
//! `[-10, 10]³` (metres), each walk a chain of straight runs joined by 90° elbows, some walks
//! branching off an earlier pipe (tees), pipes passing each other at random offsets (crossings),
//! flanges at some joints. Straight runs are two rings of vertices, so their triangles are the
//! long thin ones the paper singles out; there are no clusters. The moving object is the same
//! model scaled down 15 times (§7.2).

use super::geometry::{MeshBuilder, Ring};
use crate::math::{Point, Vector};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Triangle count of the paper's pipes model (Table 3).
pub const PAPER_TRIANGLES: usize = 143_690;
/// Half the side of the cube of pipes, metres.
pub const HALF_SIDE: f64 = 10.0;
/// Lattice spacing of the pipe routes, metres.
const SPACING: f64 = 2.0;
/// Lattice points per axis.
const POINTS: i32 = 11;
/// Bend radius of elbows, metres.
const BEND: f64 = 0.8;
/// Rings per elbow minus one.
const ELBOW_SEGMENTS: usize = 10;

const AXES: [[i32; 3]; 6] = [
    [1, 0, 0],
    [-1, 0, 0],
    [0, 1, 0],
    [0, -1, 0],
    [0, 0, 1],
    [0, 0, -1],
];

fn lattice(p: [i32; 3]) -> Point {
    Point::new(
        -HALF_SIDE + SPACING * p[0] as f64,
        -HALF_SIDE + SPACING * p[1] as f64,
        -HALF_SIDE + SPACING * p[2] as f64,
    )
}

/// How many lattice steps fit from `p` along `d` inside the cube.
fn room(p: [i32; 3], d: [i32; 3]) -> i32 {
    (0..3)
        .map(|k| match d[k] {
            1 => POINTS - 1 - p[k],
            -1 => p[k],
            _ => i32::MAX,
        })
        .min()
        .unwrap_or(0)
}

/// The lattice directions perpendicular to `d` with room for a step from `p`, in a fixed order.
fn turns(p: [i32; 3], d: [i32; 3]) -> Vec<[i32; 3]> {
    AXES.iter()
        .copied()
        .filter(|a| a.iter().zip(d).all(|(x, y)| x * y == 0) && room(p, *a) > 0)
        .collect()
}

/// One pipe: a route of lattice corners, an offset, a radius.
struct Route {
    corners: Vec<[i32; 3]>,
    offset: Vector,
    radius: f64,
}

/// Generates the pipes model, `≈ PAPER_TRIANGLES` triangles (within 0.5%), from `seed`.
pub fn generate(seed: u64) -> MeshBuilder {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut mesh = MeshBuilder::new();
    let lo = PAPER_TRIANGLES - PAPER_TRIANGLES / 200;
    let hi = PAPER_TRIANGLES + PAPER_TRIANGLES / 200;
    // Runs of earlier pipes (a lattice point on the run, the run's direction, the pipe's offset
    // and radius): where tees branch off.
    let mut runs: Vec<([i32; 3], [i32; 3], Vector, f64)> = Vec::new();

    // Three trunks cross near the centre, so an object falling toward the centre lands on pipes.
    let c = POINTS / 2;
    for (k, off) in [
        (0usize, [0.0, 0.0, 0.0]),
        (1, [0.45, 0.0, -0.45]),
        (2, [-0.45, 0.45, 0.0]),
    ] {
        let mut a = [c, c, c];
        let mut b = [c, c, c];
        a[k] = 0;
        b[k] = POINTS - 1;
        let route = Route {
            corners: vec![a, b],
            offset: Vector::new(off[0], off[1], off[2]),
            radius: 0.35,
        };
        let pipe = build_route(&route, &mut rng);
        mesh.append(&pipe);
        record_runs(&route, &mut runs);
    }

    let mut attempts = 0;
    while mesh.triangle_count() < lo && attempts < 100_000 {
        attempts += 1;
        let route = random_route(&mut rng, &runs);
        let pipe = build_route(&route, &mut rng);
        if mesh.triangle_count() + pipe.triangle_count() > hi {
            continue;
        }
        mesh.append(&pipe);
        record_runs(&route, &mut runs);
    }
    mesh
}

fn record_runs(route: &Route, runs: &mut Vec<([i32; 3], [i32; 3], Vector, f64)>) {
    for w in route.corners.windows(2) {
        let d = [
            (w[1][0] - w[0][0]).signum(),
            (w[1][1] - w[0][1]).signum(),
            (w[1][2] - w[0][2]).signum(),
        ];
        let mut p = w[0];
        while p != w[1] {
            p = [p[0] + d[0], p[1] + d[1], p[2] + d[2]];
            if p != w[1] {
                runs.push((p, d, route.offset, route.radius));
            }
        }
    }
}

fn random_route(rng: &mut Xoshiro256PlusPlus, runs: &[([i32; 3], [i32; 3], Vector, f64)]) -> Route {
    let tee = !runs.is_empty() && rng.random_bool(0.3);
    let (start, mut d, offset, radius) = if tee {
        let (p, run_dir, offset, parent_radius) = runs[rng.random_range(0..runs.len())];
        let choices = turns(p, run_dir);
        if choices.is_empty() {
            return random_route(rng, &[]);
        }
        let d = choices[rng.random_range(0..choices.len())];
        (p, d, offset, parent_radius * rng.random_range(0.5..0.8))
    } else {
        let p = [
            rng.random_range(0..POINTS),
            rng.random_range(0..POINTS),
            rng.random_range(0..POINTS),
        ];
        let offset = Vector::new(
            rng.random_range(-0.55..0.55),
            rng.random_range(-0.55..0.55),
            rng.random_range(-0.55..0.55),
        );
        (
            p,
            AXES[rng.random_range(0..6)],
            offset,
            rng.random_range(0.12..0.3),
        )
    };
    let mut corners = vec![start];
    let mut p = start;
    let runs_wanted = rng.random_range(2..=6);
    for r in 0..runs_wanted {
        if r > 0 {
            // Turn 90°: any perpendicular direction with room.
            let choices = turns(p, d);
            if choices.is_empty() {
                break;
            }
            d = choices[rng.random_range(0..choices.len())];
        }
        let max = room(p, d).min(4);
        if max < 1 {
            break;
        }
        let len = rng.random_range(1..=max);
        p = [p[0] + d[0] * len, p[1] + d[1] * len, p[2] + d[2] * len];
        corners.push(p);
    }
    if corners.len() < 2 {
        // Nowhere to go from this corner: a one-step stub toward the cube's centre.
        let d = AXES
            .iter()
            .copied()
            .max_by_key(|a| room(start, *a))
            .unwrap_or([1, 0, 0]);
        corners.push([start[0] + d[0], start[1] + d[1], start[2] + d[2]]);
    }
    Route {
        corners,
        offset,
        radius,
    }
}

/// The tube geometry of a route: straight runs (two rings each), elbows at the corners, end
/// caps, flanges at some joints.
fn build_route(route: &Route, rng: &mut Xoshiro256PlusPlus) -> MeshBuilder {
    let mut m = MeshBuilder::new();
    let r = route.radius;
    let sides = if r > 0.25 {
        28
    } else if r > 0.17 {
        24
    } else {
        20
    };
    let pts: Vec<Point> = route
        .corners
        .iter()
        .map(|&c| lattice(c) + route.offset)
        .collect();
    let n = pts.len();
    for i in 0..n - 1 {
        let d = (pts[i + 1] - pts[i]).normalize();
        let a = if i > 0 { pts[i] + d * BEND } else { pts[i] };
        let b = if i + 2 < n {
            pts[i + 1] - d * BEND
        } else {
            pts[i + 1]
        };
        // Open ends of the route are capped (a tee's start lies inside its parent pipe).
        m.tube(
            &[Ring::circle(a, d, r), Ring::circle(b, d, r)],
            sides,
            i == 0,
            i + 2 == n,
        );
        if rng.random_bool(0.25) {
            // A flange near the start of the run.
            let f = a + d * 0.15;
            m.cylinder(f, f + d * 0.12, r * 1.4, sides, true);
        }
    }
    for i in 1..n - 1 {
        let d_in = (pts[i] - pts[i - 1]).normalize();
        let d_out = (pts[i + 1] - pts[i]).normalize();
        elbow(&mut m, pts[i], d_in, d_out, r, sides);
    }
    m
}

/// A 90° elbow at corner `c` from direction `d_in` to `d_out` (unit, orthogonal).
fn elbow(m: &mut MeshBuilder, c: Point, d_in: Vector, d_out: Vector, r: f64, sides: usize) {
    let o = c - d_in * BEND + d_out * BEND;
    let b = d_in.cross(&d_out);
    let rings: Vec<Ring> = (0..=ELBOW_SEGMENTS)
        .map(|s| {
            let th = std::f64::consts::FRAC_PI_2 * s as f64 / ELBOW_SEGMENTS as f64;
            let center = o - d_out * (BEND * th.cos()) + d_in * (BEND * th.sin());
            let t = d_in * th.cos() + d_out * th.sin();
            Ring {
                center,
                u: b,
                v: t.cross(&b),
                radius_u: r,
                radius_v: r,
            }
        })
        .collect();
    m.tube(&rings, sides, false, false);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_stay_in_the_cube_and_count_is_near_the_paper() {
        let m = generate(7);
        let n = m.triangle_count();
        assert!(
            n.abs_diff(PAPER_TRIANGLES) * 100 <= PAPER_TRIANGLES,
            "{n} triangles"
        );
        let lim = HALF_SIDE + 1.0;
        assert!(m.vertices.iter().all(|v| v.iter().all(|c| c.abs() <= lim)));
    }
}
