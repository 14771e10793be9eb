//! The torus scene (Gottschalk et al. 1996, §7.2, Fig. 10): a wrinkled, twisted torus encircling
//! a stalagmite in a dimpled, toothed landscape.
//!
//! Stand-ins for the paper's models (not public), at its sizes (Table 3: environment 98,000
//! polygons, torus 20,000). The landscape is a height field (y up, metres) over
//! `[-20, 20]²` with a gentle swell, many shallow Gaussian dimples (concavities an object can
//! enter) and single-vertex teeth (spikes that keep large boxes off the floor), plus a
//! stalagmite, a bumpy body of revolution at the origin. The torus has a twisted elliptical
//! cross-section and wrinkles, so it cannot be split into convex pieces and comes into parallel
//! close proximity with the smooth parts of the landscape.

use super::geometry::MeshBuilder;
use crate::math::{Point, Vector};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::f64::consts::TAU;

/// Triangle count of the paper's landscape (Table 3).
pub const PAPER_ENVIRONMENT_TRIANGLES: usize = 98_000;
/// Triangle count of the paper's torus (Table 3).
pub const PAPER_TORUS_TRIANGLES: usize = 20_000;
/// Half the side of the landscape square, metres.
pub const HALF_SIDE: f64 = 20.0;
/// Major radius of the torus, metres.
pub const TORUS_MAJOR: f64 = 3.0;
/// Mean minor radius of the torus, metres.
pub const TORUS_MINOR: f64 = 0.75;
/// Height of the stalagmite's tip above y = 0, metres.
pub const STALAGMITE_HEIGHT: f64 = 7.0;
/// Base radius of the stalagmite, metres.
pub const STALAGMITE_RADIUS: f64 = 1.4;

const GRID: usize = 217;
const STALAGMITE_SIDES: usize = 40;
const STALAGMITE_RINGS: usize = 48;

/// The landscape: height field plus stalagmite, `≈ 98,000` triangles.
pub fn landscape(seed: u64) -> MeshBuilder {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let cell = 2.0 * HALF_SIDE / GRID as f64;
    let dimples: Vec<(f64, f64, f64, f64)> = (0..160)
        .map(|_| {
            (
                rng.random_range(-HALF_SIDE..HALF_SIDE),
                rng.random_range(-HALF_SIDE..HALF_SIDE),
                rng.random_range(0.15..0.5),
                rng.random_range(0.4..1.1),
            )
        })
        .collect();
    let mut teeth = std::collections::HashMap::new();
    while teeth.len() < 420 {
        let i = rng.random_range(1..GRID);
        let j = rng.random_range(1..GRID);
        let x = -HALF_SIDE + i as f64 * cell;
        let z = -HALF_SIDE + j as f64 * cell;
        if x.hypot(z) > STALAGMITE_RADIUS + 0.4 {
            teeth.insert((i, j), rng.random_range(0.5..1.3));
        }
    }
    let height = |x: f64, z: f64| {
        let mut y = 0.25 * (0.35 * x).sin() * (0.3 * z).cos() + 0.1 * (0.9 * x + 0.4 * z).sin();
        for &(cx, cz, depth, sigma) in &dimples {
            let d2 = (x - cx).powi(2) + (z - cz).powi(2);
            if d2 < 9.0 * sigma * sigma {
                y -= depth * (-d2 / (2.0 * sigma * sigma)).exp();
            }
        }
        y
    };
    let mut m = MeshBuilder::new();
    m.height_field(-HALF_SIDE, -HALF_SIDE, cell, GRID, GRID, |i, j| {
        let x = -HALF_SIDE + i as f64 * cell;
        let z = -HALF_SIDE + j as f64 * cell;
        height(x, z) + teeth.get(&(i, j)).copied().unwrap_or(0.0)
    });
    m.append(&stalagmite(&mut rng));
    m
}

/// A bumpy body of revolution at the origin, from below the ground to its tip.
fn stalagmite(rng: &mut Xoshiro256PlusPlus) -> MeshBuilder {
    let phase: f64 = rng.random_range(0.0..TAU);
    let y0 = -0.6;
    let rings: Vec<_> = (0..STALAGMITE_RINGS)
        .map(|k| {
            let s = k as f64 / (STALAGMITE_RINGS - 1) as f64;
            let y = y0 + s * (STALAGMITE_HEIGHT - y0);
            let h = ((y.max(0.0)) / STALAGMITE_HEIGHT).min(1.0);
            let r = STALAGMITE_RADIUS
                * (1.0 - h).max(0.0).powf(0.8)
                * (1.0 + 0.06 * (9.0 * s * TAU / 2.0 + phase).sin());
            (y, r.max(0.0))
        })
        .collect();
    let mut m = MeshBuilder::new();
    // Profile of revolution: rings around the y axis, the last one a point (the tip).
    let first_ring: Vec<super::geometry::Ring> = rings
        .iter()
        .map(|&(y, r)| super::geometry::Ring {
            center: Point::new(0.0, y, 0.0),
            u: Vector::z(),
            v: Vector::x(),
            radius_u: r,
            radius_v: r,
        })
        .collect();
    m.tube(&first_ring, STALAGMITE_SIDES, true, false);
    m
}

/// The wrinkled, twisted torus in its own frame: centre at the origin, the hole along y;
/// exactly 20,000 triangles (125 × 80 quads).
pub fn wrinkled_torus(seed: u64) -> MeshBuilder {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (nu, nv) = (125, 80);
    let p1: f64 = rng.random_range(0.0..TAU);
    let p2: f64 = rng.random_range(0.0..TAU);
    let mut m = MeshBuilder::new();
    m.periodic_grid(nu, nv, |i, j| {
        let u = TAU * i as f64 / nu as f64;
        let v = TAU * j as f64 / nv as f64;
        let radial = Vector::new(u.cos(), 0.0, u.sin());
        // Elliptical cross-section turning twice around the ring: the twist.
        let tw = 2.0 * u;
        let e1 = radial * tw.cos() + Vector::y() * tw.sin();
        let e2 = -radial * tw.sin() + Vector::y() * tw.cos();
        let wrinkle =
            1.0 + 0.12 * (7.0 * u + 3.0 * v + p1).sin() + 0.06 * (19.0 * u - 5.0 * v + p2).sin();
        let r = TORUS_MINOR * wrinkle;
        Point::from(radial * TORUS_MAJOR) + e1 * (1.15 * r * v.cos()) + e2 * (0.87 * r * v.sin())
    });
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_near_the_paper() {
        let l = landscape(3).triangle_count();
        assert!(
            l.abs_diff(PAPER_ENVIRONMENT_TRIANGLES) * 100 <= PAPER_ENVIRONMENT_TRIANGLES,
            "{l}"
        );
        assert_eq!(wrinkled_torus(3).triangle_count(), PAPER_TORUS_TRIANGLES);
    }

    #[test]
    fn the_torus_hole_clears_the_stalagmite() {
        // Inner radius of the torus (the smallest distance of a vertex from its axis) exceeds the
        // stalagmite's base radius, so the torus can slide down around it.
        let t = wrinkled_torus(3);
        let inner = t
            .vertices
            .iter()
            .map(|v| v.x.hypot(v.z))
            .fold(f64::MAX, f64::min);
        assert!(inner > STALAGMITE_RADIUS * 1.15, "inner radius {inner}");
    }
}
