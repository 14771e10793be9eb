//! The torpedo scene (Gottschalk et al. 1996, §7.2, Fig. 7): a torpedo resting on the rollers of
//! a pivot structure from a submarine's torpedo storage and handling room.
//!
//! Stand-ins at the paper's sizes (torpedo 4,780 triangles, pivot structure 44,921; the Electric
//! Boat models are not public). Metres, y up. The torpedo lies along +x in its own frame, nose
//! at the origin: a body of revolution (ogive nose, long cylinder of long thin triangles,
//! tapered tail), four tail fins, a ducted pair of propellers. The structure is a frame of
//! I-beams on legs, a pivot (turntable post) under its middle, and two rows of rollers tilted
//! ±40° that form a V cradle along x, so a torpedo lying in it touches rollers of both rows all
//! along its length.

use super::geometry::{MeshBuilder, Ring};
use crate::math::{Point, Vector};
use std::f64::consts::{FRAC_PI_2, TAU};

/// Triangle count of the paper's torpedo (§7.2).
pub const PAPER_TORPEDO_TRIANGLES: usize = 4_780;
/// Triangle count of the paper's pivot structure (§7.2).
pub const PAPER_PIVOT_TRIANGLES: usize = 44_921;
/// Torpedo length, metres.
pub const LENGTH: f64 = 6.0;
/// Torpedo body radius, metres (a 21-inch torpedo).
pub const RADIUS: f64 = 0.27;
/// Roller radius, metres.
pub const ROLLER_RADIUS: f64 = 0.09;
/// Angle of each roller row's contact direction from straight down, radians.
pub const CRADLE_ANGLE: f64 = 40.0 * std::f64::consts::PI / 180.0;
/// x of the first and last roller, metres.
pub const ROLLERS_X: (f64, f64) = (-0.6, 13.2);
/// Rollers per row.
pub const ROLLERS_PER_ROW: usize = 24;

const BODY_SIDES: usize = 48;
const BODY_RINGS: usize = 43;
const ROLLER_SIDES: usize = 40;

/// The torpedo, nose at the origin, axis +x: `≈ 4,780` triangles.
pub fn torpedo() -> MeshBuilder {
    let mut m = MeshBuilder::new();
    // Profile (x, radius): 30 nose rings (ogive), 3 body rings, then the tail cone.
    let mut profile: Vec<(f64, f64)> = Vec::new();
    let nose = 0.9;
    for k in 0..30 {
        let s = (k + 1) as f64 / 30.0;
        let x = nose * (1.0 - (1.0 - s).powi(2)) * 0.999 + 0.001;
        let t = x / nose;
        profile.push((x, RADIUS * (1.0 - (1.0 - t).powi(2)).sqrt()));
    }
    let tail = 4.9;
    profile.push((2.9, RADIUS));
    profile.push((tail, RADIUS));
    profile.push((tail + 0.001, RADIUS));
    let tail_rings = BODY_RINGS - profile.len();
    for k in 1..=tail_rings {
        let s = k as f64 / tail_rings as f64;
        let x = tail + s * (LENGTH - 0.2 - tail);
        profile.push((x, RADIUS * (1.0 - 0.62 * s.powf(1.3))));
    }
    let rings: Vec<Ring> = profile
        .iter()
        .map(|&(x, r)| Ring {
            center: Point::new(x, 0.0, 0.0),
            u: Vector::y(),
            v: Vector::z(),
            radius_u: r,
            radius_v: r,
        })
        .collect();
    m.tube(&rings, BODY_SIDES, true, true);
    let hub_x = profile.last().map_or(LENGTH - 0.2, |p| p.0);
    let hub_r = profile.last().map_or(0.1, |p| p.1);
    // Four fins on the tail cone, inside the body's diameter (a torpedo must fit its tube).
    for k in 0..4 {
        let a = FRAC_PI_2 * k as f64 + std::f64::consts::FRAC_PI_4;
        let out = Vector::new(0.0, a.cos(), a.sin());
        let side = Vector::x().cross(&out);
        m.oriented_box(
            Point::new(5.35, 0.0, 0.0) + out * 0.185,
            Vector::new(0.3, 0.075, 0.008),
            [Vector::x(), out, side],
        );
    }
    // Two propellers of six blades each (three twisted segments per blade), then the duct.
    for (p, px) in [(0usize, hub_x + 0.05), (1, hub_x + 0.14)] {
        m.cylinder(
            Point::new(px - 0.04, 0.0, 0.0),
            Point::new(px + 0.04, 0.0, 0.0),
            hub_r * 0.8,
            12,
            true,
        );
        for b in 0..6 {
            let a = TAU * b as f64 / 6.0 + p as f64 * 0.5;
            let out = Vector::new(0.0, a.cos(), a.sin());
            let side = Vector::x().cross(&out);
            for s in 0..3 {
                let pitch = if p == 0 { 0.5 } else { -0.5 } + 0.15 * s as f64;
                let (c, sn) = (pitch.cos(), pitch.sin());
                let chord = Vector::x() * c + side * sn;
                let normal = out.cross(&chord);
                m.oriented_box(
                    Point::new(px, 0.0, 0.0) + out * (hub_r * 0.8 + 0.035 + 0.05 * s as f64),
                    Vector::new(0.035, 0.025, 0.005),
                    [chord, out, normal],
                );
            }
        }
    }
    m.tube(
        &[
            Ring::circle(Point::new(hub_x - 0.02, 0.0, 0.0), Vector::x(), 0.255),
            Ring::circle(Point::new(hub_x + 0.22, 0.0, 0.0), Vector::x(), 0.255),
        ],
        BODY_SIDES,
        false,
        false,
    );
    m
}

/// The pivot structure in the world frame: `≈ 44,921` triangles. The cradle's axis is the x
/// axis at y = 0, z = 0: a cylinder of [`RADIUS`] on that axis touches every roller.
pub fn pivot_structure() -> MeshBuilder {
    let mut m = MeshBuilder::new();
    let (x0, x1) = ROLLERS_X;
    // Rollers: two rows, axes tangent to the torpedo's cross-section at the contact point.
    for row in [-1.0, 1.0] {
        let n = Vector::new(0.0, -CRADLE_ANGLE.cos(), row * CRADLE_ANGLE.sin());
        let t = Vector::new(0.0, row * CRADLE_ANGLE.sin(), CRADLE_ANGLE.cos());
        for k in 0..ROLLERS_PER_ROW {
            let x = x0 + (x1 - x0) * k as f64 / (ROLLERS_PER_ROW - 1) as f64;
            let c = Point::new(x, 0.0, 0.0) + n * (RADIUS + ROLLER_RADIUS);
            roller(&mut m, c, t, n);
        }
    }
    // Frame: two longitudinal I-beams under the rows, cross members, legs.
    let y_beam = -(RADIUS + 2.0 * ROLLER_RADIUS) * CRADLE_ANGLE.cos() - 0.25;
    for z in [-0.55, 0.55] {
        i_beam(
            &mut m,
            Point::new(x0 - 0.5, y_beam, z),
            Point::new(x1 + 0.5, y_beam, z),
        );
    }
    let mut x = x0 - 0.3;
    while x <= x1 + 0.31 {
        i_beam(
            &mut m,
            Point::new(x, y_beam - 0.16, -0.75),
            Point::new(x, y_beam - 0.16, 0.75),
        );
        for z in [-0.75, 0.75] {
            m.aabb(
                Point::new(x - 0.06, y_beam - 1.6, z - 0.06),
                Point::new(x + 0.06, y_beam - 0.24, z + 0.06),
            );
        }
        x += 0.9;
    }
    // Supports from each roller down to its beam.
    for row in [-1.0, 1.0] {
        for k in 0..ROLLERS_PER_ROW {
            let xk = x0 + (x1 - x0) * k as f64 / (ROLLERS_PER_ROW - 1) as f64;
            let n = Vector::new(0.0, -CRADLE_ANGLE.cos(), row * CRADLE_ANGLE.sin());
            let c = Point::new(xk, 0.0, 0.0) + n * (RADIUS + ROLLER_RADIUS);
            let foot = Point::new(xk, y_beam + 0.1, row * 0.55);
            m.cylinder(c + n * (ROLLER_RADIUS + 0.02), foot, 0.03, 16, true);
        }
    }
    // The pivot: a turntable post with a bearing ring under the middle of the frame.
    let xm = 0.5 * (x0 + x1);
    let rings: Vec<Ring> = [
        (y_beam - 1.6, 0.9),
        (y_beam - 1.45, 0.9),
        (y_beam - 1.44, 0.55),
        (y_beam - 0.6, 0.45),
        (y_beam - 0.45, 0.7),
        (y_beam - 0.3, 0.7),
        (y_beam - 0.29, 0.3),
        (y_beam - 0.12, 0.3),
    ]
    .iter()
    .map(|&(y, r)| Ring::circle(Point::new(xm, y, 0.0), Vector::y(), r))
    .collect();
    m.tube(&rings, 128, true, true);
    m
}

/// A roller centred at `c` with axis `t`, an axle and a yoke on the side of `n` (pointing away
/// from the cradle axis).
fn roller(m: &mut MeshBuilder, c: Point, t: Vector, n: Vector) {
    let half = 0.16;
    // Profile: rounded edges, slight crown.
    let profile = [
        (-half, ROLLER_RADIUS * 0.8),
        (-half + 0.01, ROLLER_RADIUS * 0.95),
        (-half + 0.025, ROLLER_RADIUS),
        (-0.06, ROLLER_RADIUS * 1.005),
        (0.0, ROLLER_RADIUS * 1.008),
        (0.06, ROLLER_RADIUS * 1.005),
        (half - 0.025, ROLLER_RADIUS),
        (half - 0.01, ROLLER_RADIUS * 0.95),
        (half, ROLLER_RADIUS * 0.8),
    ];
    let rings: Vec<Ring> = profile
        .iter()
        .map(|&(s, r)| Ring::circle(c + t * s, t, r))
        .collect();
    m.tube(&rings, ROLLER_SIDES, true, true);
    // Axle through the roller.
    m.cylinder(c - t * (half + 0.05), c + t * (half + 0.05), 0.02, 12, true);
    // Yoke: two plates beside the roller ends, a bridge below.
    let b = t.cross(&n).normalize();
    for s in [-1.0, 1.0] {
        m.oriented_box(
            c + t * (s * (half + 0.035)) + n * 0.05,
            Vector::new(0.015, 0.07, 0.05),
            [t, n, b],
        );
    }
    m.oriented_box(
        c + n * (ROLLER_RADIUS + 0.03),
        Vector::new(half + 0.05, 0.012, 0.05),
        [t, n, b],
    );
}

/// An I-beam from `a` to `b` (horizontal): two flanges and a web, 36 triangles.
fn i_beam(m: &mut MeshBuilder, a: Point, b: Point) {
    let d = b - a;
    let len = d.norm();
    let x = d / len;
    let y = Vector::y();
    let z = x.cross(&y);
    let c = a + d * 0.5;
    let (h, w, t) = (0.16, 0.12, 0.012);
    m.oriented_box(c + y * (h - t), Vector::new(len / 2.0, t, w), [x, y, z]);
    m.oriented_box(c - y * (h - t), Vector::new(len / 2.0, t, w), [x, y, z]);
    m.oriented_box(c, Vector::new(len / 2.0, h - 2.0 * t, t), [x, y, z]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_near_the_paper() {
        let t = torpedo().triangle_count();
        let p = pivot_structure().triangle_count();
        assert!(
            t.abs_diff(PAPER_TORPEDO_TRIANGLES) * 100 <= PAPER_TORPEDO_TRIANGLES,
            "torpedo {t}"
        );
        assert!(
            p.abs_diff(PAPER_PIVOT_TRIANGLES) * 100 <= PAPER_PIVOT_TRIANGLES,
            "pivot {p}"
        );
    }
}
