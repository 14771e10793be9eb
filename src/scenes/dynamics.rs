//! The "simple dynamics engine" of Gottschalk et al. 1996, §7.2, that produces the motion paths:
//! "At each time step, the contact polygons were found by the collision detection algorithm, an
//! impulse was applied to the object at each contact before advancing the clock."
//!
//! One rigid body (the moving object, B) against a fixed environment (A, at the identity).
//! World frame = A's frame. Each step:
//!
//! 1. the pose is written as a POSES line and read back (so the recorded path, replayed from its
//!    file, finds exactly the contacts found here);
//! 2. an all-contacts OBBTree query finds the contacting triangle pairs;
//! 3. gravity changes the velocity; then at each contact (at most [`DynamicsConfig::max_impulses`], evenly sampled) a sequential
//!    impulse along the environment triangle's normal, oriented toward the body's centre of mass,
//!    cancels the approach velocity with restitution, plus a small separation speed (the shells
//!    have no depth to push out of), and a Coulomb friction impulse;
//! 4. the clock advances (symplectic Euler): a conveyor, if any, damping, speed caps (so no step moves a point of
//!    the body further than the thin shells can tolerate), then the pose.
//!
//! The body's centre of mass is its bounding-box centre and its inertia that of a solid box of
//! unit mass and the bounding box's size (model frame).

use crate::bvh::ObbTree;
use crate::math::{Isometry, Matrix3, Point, UnitQuaternion, Vector};
use crate::mesh::TriMesh;
use crate::pose::parse_poses;
use crate::query::{CollisionReport, QueryOptions, collide_into};
use std::path::Path;

/// Where gravity pulls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gravity {
    /// A uniform field, m/s², world frame.
    Uniform(Vector),
    /// Toward a point, with constant magnitude (m/s²): the pipes scene's field "directed toward
    /// the center of the large cube" (§7.2).
    Central {
        /// The attracting point, world frame.
        center: Point,
        /// Magnitude, m/s².
        acceleration: f64,
    },
}

/// Parameters of the integrator. Units: metres, seconds, radians; unit mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicsConfig {
    /// Time step, s.
    pub dt: f64,
    /// Number of steps (= poses recorded).
    pub steps: usize,
    /// Gravity.
    pub gravity: Gravity,
    /// A conveyor velocity, m/s, world frame: after the impulses, the body's velocity component
    /// along it is set to its length (the handling gear that moves the torpedo along its
    /// rollers). Zero for none.
    pub conveyor: Vector,
    /// Coefficient of restitution at contacts, 0..=1.
    pub restitution: f64,
    /// Coulomb friction coefficient.
    pub friction: f64,
    /// Separation speed given at every contact, m/s.
    pub bias_speed: f64,
    /// Cap on the centre of mass's speed, m/s.
    pub max_speed: f64,
    /// Cap on the angular speed, rad/s.
    pub max_angular_speed: f64,
    /// Linear damping, 1/s.
    pub linear_damping: f64,
    /// Angular damping, 1/s.
    pub angular_damping: f64,
    /// Impulses are applied at most at this many contacts per step (evenly sampled).
    pub max_impulses: usize,
}

/// A recorded motion path: one pose of B in A's frame per step, as written to the path file.
#[derive(Clone, Debug, Default)]
pub struct RecordedPath {
    /// The POSES lines (`qw qx qy qz tx ty tz`), one per step.
    pub lines: Vec<String>,
    /// The poses as read back from those lines.
    pub poses: Vec<Isometry>,
    /// Contacts (triangle pairs) found at each step.
    pub contacts: Vec<u32>,
}

impl RecordedPath {
    /// Total contacts over the path.
    pub fn total_contacts(&self) -> u64 {
        self.contacts.iter().map(|&c| c as u64).sum()
    }

    /// Mean contacts per step over the second half of the path (the resting part).
    pub fn mean_contacts_second_half(&self) -> f64 {
        let half = &self.contacts[self.contacts.len() / 2..];
        half.iter().map(|&c| c as f64).sum::<f64>() / half.len().max(1) as f64
    }
}

/// The rigid body's mass properties in its model frame.
#[derive(Clone, Copy, Debug)]
pub struct MassProperties {
    /// Centre of mass, model frame.
    pub com: Point,
    /// Diagonal of the inverse inertia tensor (unit mass), model frame.
    pub inv_inertia: Vector,
    /// Largest distance of a vertex from the centre of mass, metres.
    pub radius: f64,
}

impl MassProperties {
    /// A solid box of unit mass filling the mesh's bounding box.
    pub fn of_mesh(mesh: &TriMesh) -> Self {
        let (lo, hi) = mesh.bounds();
        let com = nalgebra::center(&lo, &hi);
        let s = (hi - lo).map(|e| e.max(1e-6));
        let i = Vector::new(
            (s.y * s.y + s.z * s.z) / 12.0,
            (s.x * s.x + s.z * s.z) / 12.0,
            (s.x * s.x + s.y * s.y) / 12.0,
        );
        let radius = mesh
            .vertices()
            .iter()
            .map(|v| (v - com).norm())
            .fold(0.0, f64::max);
        Self {
            com,
            inv_inertia: i.map(|e| 1.0 / e),
            radius,
        }
    }
}

/// Upper bounds of how far consecutive poses of a path can differ: (translation of the pose's
/// origin, metres; rotation angle, radians). The caps on speed and angular speed imply them;
/// the path tests check recorded paths against them. `com_distance` is the distance of the
/// centre of mass from the model frame's origin.
pub fn step_bounds(config: &DynamicsConfig, com_distance: f64) -> (f64, f64) {
    let rot = config.max_angular_speed * config.dt;
    // The origin moves with the centre of mass plus its rotation about it; the chord of an arc
    // is at most the arc.
    (config.max_speed * config.dt + rot * com_distance, rot)
}

/// Runs the simulation from `start` (B in A's frame) with initial linear velocity `v0` (m/s) and
/// angular velocity `w0` (rad/s), world frame, recording `config.steps` poses. `progress` is
/// called after every step with the number of steps done.
pub fn simulate(
    environment: &ObbTree,
    object: &ObbTree,
    start: &Isometry,
    v0: Vector,
    w0: Vector,
    config: &DynamicsConfig,
    progress: &mut dyn FnMut(usize),
) -> RecordedPath {
    let mass = MassProperties::of_mesh(object.mesh());
    let mut rot = start.rotation;
    let mut x = start * mass.com;
    let mut v = v0;
    let mut w = w0;
    let mut report = CollisionReport::default();
    let options = QueryOptions::default();
    let mut path = RecordedPath::default();
    let here = Path::new("simulated path");
    for step in 0..config.steps {
        let t = x.coords - rot * mass.com.coords;
        let (line, pose) = round_trip(&Isometry::from_parts(t.into(), rot), here);
        collide_into(
            environment,
            &Isometry::identity(),
            object,
            &pose,
            &options,
            &mut report,
        );
        path.lines.push(line);
        path.poses.push(pose);
        path.contacts.push(report.contacts.len() as u32);

        // Forces first, so that the contact impulses see (and cancel) this step's approach.
        let g = match config.gravity {
            Gravity::Uniform(g) => g,
            Gravity::Central {
                center,
                acceleration,
            } => {
                let d = center - x;
                let len = d.norm();
                if len > 1e-9 {
                    d * (acceleration / len)
                } else {
                    Vector::zeros()
                }
            }
        };
        v += g * config.dt;
        if !report.contacts.is_empty() {
            let r_mat = rot.to_rotation_matrix().into_inner();
            let inv_i = r_mat * Matrix3::from_diagonal(&mass.inv_inertia) * r_mat.transpose();
            let n = report.contacts.len();
            let stride = n.div_ceil(config.max_impulses.max(1));
            for &(ia, ib) in report.contacts.iter().step_by(stride) {
                let Some((p, normal)) = contact_frame(environment, object, &pose, ia, ib, &x)
                else {
                    continue;
                };
                apply_impulse(&mut v, &mut w, &inv_i, &x, &p, &normal, config);
            }
        }

        let conveyor_speed = config.conveyor.norm();
        if conveyor_speed > 0.0 {
            let along = config.conveyor / conveyor_speed;
            v += along * (conveyor_speed - v.dot(&along));
        }
        v *= (1.0 - config.linear_damping * config.dt).max(0.0);
        w *= (1.0 - config.angular_damping * config.dt).max(0.0);
        cap(&mut v, config.max_speed);
        cap(&mut w, config.max_angular_speed);
        x += v * config.dt;
        rot = UnitQuaternion::from_scaled_axis(w * config.dt) * rot;
        progress(step + 1);
    }
    path
}

fn cap(v: &mut Vector, max: f64) {
    let n = v.norm();
    if n > max {
        *v *= max / n;
    }
}

/// Writes a pose as a POSES line (8 decimals) and reads it back with the pose parser.
fn round_trip(pose: &Isometry, origin: &Path) -> (String, Isometry) {
    let q = pose.rotation.quaternion();
    let t = pose.translation.vector;
    let line = format!(
        "{:.8} {:.8} {:.8} {:.8} {:.8} {:.8} {:.8}",
        q.w, q.i, q.j, q.k, t.x, t.y, t.z
    );
    let parsed = parse_poses(&line, origin)
        .ok()
        .and_then(|p| p.first().map(|p| p.pose_ab))
        .unwrap_or(*pose);
    (line, parsed)
}

/// The contact point (centroid of B's triangle, world frame) and the contact normal: the sum of
/// both triangles' unit normals, each oriented toward the centre of mass `x` (a degenerate
/// triangle contributes nothing; §7.1). Averaging the two faces' normals keeps a spike
/// (whose faces are nearly parallel to the push it should give) from sliding through a shell.
fn contact_frame(
    environment: &ObbTree,
    object: &ObbTree,
    pose: &Isometry,
    ia: u32,
    ib: u32,
    x: &Point,
) -> Option<(Point, Vector)> {
    let ta = environment.mesh().triangle(ia as usize);
    let tb = object.mesh().triangle(ib as usize).map(|p| pose * p);
    let p = Point::from((tb[0].coords + tb[1].coords + tb[2].coords) / 3.0);
    let toward = x - p;
    let oriented = |t: &[Point; 3]| {
        let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
        let len = n.norm();
        if len <= 1e-12 || !len.is_finite() {
            return Vector::zeros();
        }
        let n = n / len;
        if n.dot(&toward) < 0.0 { -n } else { n }
    };
    let n = oriented(&ta) + oriented(&tb);
    let len = n.norm();
    (len > 1e-9).then(|| (p, n / len))
}

/// One sequential impulse at contact point `p` with unit normal `n` (pointing into the body).
fn apply_impulse(
    v: &mut Vector,
    w: &mut Vector,
    inv_i: &Matrix3,
    x: &Point,
    p: &Point,
    n: &Vector,
    config: &DynamicsConfig,
) {
    let r = p - x;
    let vp = *v + w.cross(&r);
    let vn = vp.dot(n);
    let target = (-config.restitution * vn).max(config.bias_speed);
    if vn >= target {
        return;
    }
    let rn = r.cross(n);
    let k = 1.0 + n.dot(&(inv_i * rn).cross(&r));
    let j = (target - vn) / k;
    *v += n * j;
    *w += inv_i * rn * j;
    // Friction opposes the tangential velocity, bounded by the Coulomb cone.
    let vp = *v + w.cross(&r);
    let vt = vp - n * vp.dot(n);
    let speed = vt.norm();
    if speed > 1e-12 {
        let tdir = -vt / speed;
        let rt = r.cross(&tdir);
        let kt = 1.0 + tdir.dot(&(inv_i * rt).cross(&r));
        let jt = (speed / kt).min(config.friction * j);
        *v += tdir * jt;
        *w += inv_i * rt * jt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impulse_stops_the_approach_and_keeps_momentum_sane() {
        let config = DynamicsConfig {
            dt: 0.01,
            steps: 1,
            gravity: Gravity::Uniform(Vector::zeros()),
            conveyor: Vector::zeros(),
            restitution: 0.5,
            friction: 0.0,
            bias_speed: 0.0,
            max_speed: 10.0,
            max_angular_speed: 10.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            max_impulses: 8,
        };
        // Head-on contact under the centre: the body bounces with half its speed, no spin.
        let mut v = Vector::new(0.0, -2.0, 0.0);
        let mut w = Vector::zeros();
        let inv_i = Matrix3::identity() * 6.0;
        let x = Point::new(0.0, 1.0, 0.0);
        apply_impulse(
            &mut v,
            &mut w,
            &inv_i,
            &x,
            &Point::origin(),
            &Vector::y(),
            &config,
        );
        assert!((v - Vector::new(0.0, 1.0, 0.0)).norm() < 1e-12, "{v}");
        assert!(w.norm() < 1e-12);
        // Separating already: nothing happens.
        apply_impulse(
            &mut v,
            &mut w,
            &inv_i,
            &x,
            &Point::origin(),
            &Vector::y(),
            &config,
        );
        assert!((v - Vector::new(0.0, 1.0, 0.0)).norm() < 1e-12);
    }
}
