//! Mesh building blocks of the scene generators: swept tubes (straight pipes, elbows, bodies of
//! revolution), boxes, height fields, and the deterministic OBJ writer.
//!
//! Everything here is plain geometry in the model's frame (y up, units are the scene's metres).
//! Triangles are wound counter-clockwise seen from outside; the collision core does not care
//! (triangle soups, Gottschalk et al. 1996 §3), but the app's shading does.

use crate::math::{Point, Vector};
use std::fmt::Write as _;

/// Decimal places written for every coordinate of a generated OBJ file. The written text, not
/// the in-memory doubles, is the asset: generators are compared with committed files byte for
/// byte, and rounding here hides last-bit differences of `sin`/`cos` between C libraries.
pub const OBJ_DECIMALS: usize = 5;

/// A growing triangle soup.
#[derive(Clone, Debug, Default)]
pub struct MeshBuilder {
    /// Vertex positions, model frame.
    pub vertices: Vec<Point>,
    /// Triangles as vertex indices, counter-clockwise from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// One cross-section of a swept tube: a circle of `radius` around `center` in the plane spanned
/// by the unit vectors `u`, `v` (the tube runs along `u × v`).
#[derive(Clone, Copy, Debug)]
pub struct Ring {
    /// Centre of the circle.
    pub center: Point,
    /// First in-plane unit vector.
    pub u: Vector,
    /// Second in-plane unit vector, orthogonal to `u`.
    pub v: Vector,
    /// Radius along `u`.
    pub radius_u: f64,
    /// Radius along `v`.
    pub radius_v: f64,
}

impl Ring {
    /// A circular ring of `radius` whose plane is orthogonal to the unit `axis`.
    pub fn circle(center: Point, axis: Vector, radius: f64) -> Self {
        let (u, v) = orthonormal_pair(&axis);
        Self {
            center,
            u,
            v,
            radius_u: radius,
            radius_v: radius,
        }
    }
}

/// Two unit vectors completing the unit `axis` to a right-handed orthonormal frame
/// `(u, v, axis)`, chosen by a fixed rule (so generators are deterministic).
pub fn orthonormal_pair(axis: &Vector) -> (Vector, Vector) {
    let helper = if axis.x.abs() < 0.6 {
        Vector::x()
    } else if axis.y.abs() < 0.6 {
        Vector::y()
    } else {
        Vector::z()
    };
    let u = helper.cross(axis).normalize();
    let v = axis.cross(&u);
    (u, v)
}

impl MeshBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of triangles so far.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    fn push(&mut self, p: Point) -> u32 {
        self.vertices.push(p);
        (self.vertices.len() - 1) as u32
    }

    /// Appends another builder's triangles.
    pub fn append(&mut self, other: &MeshBuilder) {
        let base = self.vertices.len() as u32;
        self.vertices.extend_from_slice(&other.vertices);
        self.triangles.extend(
            other
                .triangles
                .iter()
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
    }

    /// A tube through consecutive rings, `sides` vertices per ring, two triangles per quad
    /// (`2 · sides · (rings − 1)` triangles). A straight pipe is two rings: its triangles are
    /// the long thin ones of the paper's pipes (§7.2). `cap_start` / `cap_end` close an end with
    /// a fan of `sides` triangles around the ring's centre.
    pub fn tube(&mut self, rings: &[Ring], sides: usize, cap_start: bool, cap_end: bool) {
        assert!(
            rings.len() >= 2 && sides >= 3,
            "a tube needs two rings and three sides"
        );
        let first = self.vertices.len() as u32;
        for r in rings {
            for k in 0..sides {
                let a = std::f64::consts::TAU * k as f64 / sides as f64;
                let p = r.center + r.u * (r.radius_u * a.cos()) + r.v * (r.radius_v * a.sin());
                self.push(p);
            }
        }
        let s = sides as u32;
        for i in 0..rings.len() as u32 - 1 {
            let r0 = first + i * s;
            let r1 = r0 + s;
            for k in 0..s {
                let k1 = (k + 1) % s;
                self.triangles.push([r0 + k, r0 + k1, r1 + k1]);
                self.triangles.push([r0 + k, r1 + k1, r1 + k]);
            }
        }
        if cap_start {
            let c = self.push(rings[0].center);
            for k in 0..s {
                self.triangles.push([c, first + (k + 1) % s, first + k]);
            }
        }
        if cap_end {
            let last = first + (rings.len() as u32 - 1) * s;
            let c = self.push(rings[rings.len() - 1].center);
            for k in 0..s {
                self.triangles.push([c, last + k, last + (k + 1) % s]);
            }
        }
    }

    /// A straight cylinder from `a` to `b` (two rings, long thin triangles).
    pub fn cylinder(&mut self, a: Point, b: Point, radius: f64, sides: usize, caps: bool) {
        let axis = (b - a).normalize();
        self.tube(
            &[Ring::circle(a, axis, radius), Ring::circle(b, axis, radius)],
            sides,
            caps,
            caps,
        );
    }

    /// A box with the given centre, half extents and axes (columns `axes[i]`, orthonormal):
    /// 12 triangles.
    pub fn oriented_box(&mut self, center: Point, half: Vector, axes: [Vector; 3]) {
        let first = self.vertices.len() as u32;
        for i in 0..8 {
            let s = |bit: usize| if i & (1 << bit) != 0 { 1.0 } else { -1.0 };
            self.push(
                center
                    + axes[0] * (s(0) * half.x)
                    + axes[1] * (s(1) * half.y)
                    + axes[2] * (s(2) * half.z),
            );
        }
        const FACES: [[u32; 4]; 6] = [
            [0, 2, 6, 4],
            [1, 5, 7, 3],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 1, 3, 2],
            [4, 6, 7, 5],
        ];
        for f in FACES {
            self.triangles
                .push([first + f[0], first + f[1], first + f[2]]);
            self.triangles
                .push([first + f[0], first + f[2], first + f[3]]);
        }
    }

    /// An axis-aligned box from `min` to `max`: 12 triangles.
    pub fn aabb(&mut self, min: Point, max: Point) {
        let c = nalgebra::center(&min, &max);
        self.oriented_box(
            c,
            (max - min) * 0.5,
            [Vector::x(), Vector::y(), Vector::z()],
        );
    }

    /// A height field over the rectangle `[x0, x0 + nx·cell] × [z0, z0 + nz·cell]` in the xz
    /// plane, `y = height(i, j)` at grid vertex `(i, j)`: `2 · nx · nz` triangles.
    pub fn height_field(
        &mut self,
        x0: f64,
        z0: f64,
        cell: f64,
        nx: usize,
        nz: usize,
        mut height: impl FnMut(usize, usize) -> f64,
    ) {
        let first = self.vertices.len() as u32;
        for j in 0..=nz {
            for i in 0..=nx {
                let y = height(i, j);
                self.push(Point::new(x0 + i as f64 * cell, y, z0 + j as f64 * cell));
            }
        }
        let row = nx as u32 + 1;
        for j in 0..nz as u32 {
            for i in 0..nx as u32 {
                let a = first + j * row + i;
                let b = a + 1;
                let c = a + row;
                let d = c + 1;
                // Alternate the diagonal so the field has no preferred direction.
                if (i + j) % 2 == 0 {
                    self.triangles.push([a, c, d]);
                    self.triangles.push([a, d, b]);
                } else {
                    self.triangles.push([a, c, b]);
                    self.triangles.push([b, c, d]);
                }
            }
        }
    }

    /// A closed surface from a grid periodic in both directions (a torus topology):
    /// vertex `(i, j)` at `point(i, j)` for `i < nu`, `j < nv`; `2 · nu · nv` triangles.
    pub fn periodic_grid(
        &mut self,
        nu: usize,
        nv: usize,
        mut point: impl FnMut(usize, usize) -> Point,
    ) {
        let first = self.vertices.len() as u32;
        for i in 0..nu {
            for j in 0..nv {
                self.push(point(i, j));
            }
        }
        let id = |i: usize, j: usize| first + ((i % nu) * nv + (j % nv)) as u32;
        for i in 0..nu {
            for j in 0..nv {
                let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
                self.triangles.push([a, b, c]);
                self.triangles.push([a, c, d]);
            }
        }
    }

    /// The OBJ text of the soup: a comment header, `v` lines with [`OBJ_DECIMALS`] decimals,
    /// then `f` lines (1-based). Byte-for-byte deterministic for the same builder.
    pub fn to_obj(&self, header: &str) -> String {
        let mut s = String::with_capacity(self.vertices.len() * 32 + self.triangles.len() * 24);
        for line in header.lines() {
            let _ = writeln!(s, "# {line}");
        }
        let _ = writeln!(
            s,
            "# {} vertices, {} triangles",
            self.vertices.len(),
            self.triangles.len()
        );
        for v in &self.vertices {
            let _ = writeln!(s, "v {} {} {}", fixed(v.x), fixed(v.y), fixed(v.z));
        }
        for t in &self.triangles {
            let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
        }
        s
    }
}

/// A coordinate with [`OBJ_DECIMALS`] decimals, without a negative zero.
fn fixed(x: f64) -> String {
    let s = format!("{x:.OBJ_DECIMALS$}");
    if s.starts_with('-') && s[1..].bytes().all(|b| b == b'0' || b == b'.') {
        s[1..].to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tube_counts_and_caps_close_the_surface() {
        let mut m = MeshBuilder::new();
        m.cylinder(Point::origin(), Point::new(0., 0., 3.), 0.5, 10, true);
        assert_eq!(m.triangle_count(), 2 * 10 + 2 * 10);
        // Closed surface: every edge is shared by exactly two triangles.
        let mut edges = std::collections::HashMap::new();
        for t in &m.triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
            }
        }
        assert!(edges.values().all(|&n| n == 2));
    }

    #[test]
    fn negative_zero_is_written_as_zero() {
        assert_eq!(fixed(-0.000001), "0.00000");
        assert_eq!(fixed(-0.5), "-0.50000");
    }
}
