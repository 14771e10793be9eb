//! The "simple dynamics engine" of Gottschalk et al. 1996, §7.2, that produces the motion paths:
//! "At each time step, the contact polygons were found by the collision detection algorithm, an
//! impulse was applied to the object at each contact before advancing the clock" — with a time
//! of impact, so that no pose it reaches has one body passing through the other.
//!
//! One rigid body (the moving object, B) against a fixed environment (A, at the identity).
//! World frame = A's frame. [`Simulation::step`] does, per time step:
//!
//! 1. gravity changes the velocity; at each contact of the current pose (at most
//!    [`DynamicsConfig::max_impulses`], evenly sampled) a sequential impulse along the contact
//!    normal (both triangles' normals, oriented toward the body's centre of mass) cancels the
//!    approach velocity with restitution, plus a small separation speed, and a Coulomb friction
//!    impulse; then a conveyor (if any), damping and speed caps;
//! 2. **time of impact**: the step's motion (constant velocities about the centre of mass) is
//!    cut into parts. A body clear of contacts flies by conservative advancement
//!    ([`crate::query::time_of_impact`], tolerance [`DynamicsConfig::toi_tolerance`]) to the end
//!    of the step or to the impact, never through anything, however fast; at an impact the
//!    impulses of 1 act at the triangle pairs within the tolerance, along their closest points'
//!    direction. A body touching the scenery (advancement cannot move it: its distance is 0)
//!    moves at most [`DynamicsConfig::contact_skin`] a part, and that part's end pose is
//!    queried: if it *interpenetrates* — an edge of one body crosses a triangle of the other
//!    with both ends more than [`DynamicsConfig::penetration`] off that triangle's plane — the
//!    part is bisected until the last admissible fraction and the first interpenetrating one
//!    are less than the tolerance apart (the largest displacement of any point of the body
//!    between them), the body moves to the admissible one and the impulses act at the
//!    interpenetrating one's contacts. At most [`DynamicsConfig::max_substeps`] impacts a step;
//!    then the step ends where it stands;
//! 3. the pose reached is written as a POSES line and read back (so the recorded path, replayed
//!    from its file, finds exactly the contacts found here); its contacts are the next step's.
//!
//! Every pose the simulation reaches is admissible: shallow touching contacts are allowed (they
//! are what a body resting on a surface has), deep crossings never. Touching shells have no depth
//! to push out of, which is why the old engine, which applied impulses only after a step had
//! interpenetrated, let thin features (teeth, pipe walls) through.
//!
//! The body's centre of mass is its bounding-box centre and its inertia that of a solid box of
//! unit mass and the bounding box's size (model frame).

use crate::bv::OverlapOptions;
use crate::bvh::ObbTree;
use crate::math::relative_parts;
use crate::math::{Isometry, Matrix3, Point, UnitQuaternion, Vector};
use crate::mesh::TriMesh;
use crate::motion::RigidMotion;
use crate::pose::parse_poses;
use crate::query::{
    CollideWith, CollisionReport, QueryOptions, ToiOptions, ToiOutcome, collide_with,
    contact_normal, time_of_impact, triangle_distance, within_pairs_with,
};
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
    /// Approach speeds below this (m/s) are resting contact: no restitution.
    pub resting_speed: f64,
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
    /// Depth of an interpenetration, metres: no pose the simulation reaches has an edge of one
    /// body crossing a triangle of the other with both ends farther than this from the
    /// triangle's plane ([`interpenetrates`]; the engine itself holds to half of it, so that an
    /// independent check at this depth has room for its own rounding).
    pub penetration: f64,
    /// Metres: a flight by conservative advancement stops within this of the scenery (and
    /// never closer than half of it before), and a touching body's impact is bisected until the
    /// admissible and the interpenetrating poses are less than this apart (largest
    /// displacement of a point of the body). Below [`DynamicsConfig::penetration`].
    pub toi_tolerance: f64,
    /// Impacts handled within one step; after them the step ends where the body stands.
    pub max_substeps: usize,
    /// How far (metres, largest displacement of a point of the body) a body touching the
    /// scenery moves before its pose is checked again; a body clear of it flies by
    /// conservative advancement instead, however fast.
    pub contact_skin: f64,
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
    /// Queries made by each step: contact queries (parts' end poses, bisections, impacts)
    /// and the distance queries of its flights' times of impact.
    pub queries: Vec<u32>,
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

    /// Total queries over the path (contact and distance queries).
    pub fn total_queries(&self) -> u64 {
        self.queries.iter().map(|&c| c as u64).sum()
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

/// The body's motion state, world frame (= A's frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Centre of mass, m.
    pub com: Point,
    /// Orientation (model frame to world).
    pub rotation: UnitQuaternion,
    /// Linear velocity of the centre of mass, m/s.
    pub velocity: Vector,
    /// Angular velocity, rad/s.
    pub angular_velocity: Vector,
}

/// What one [`Simulation::step`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Contact queries: each part's end pose, the bisections' probes and the tolerance queries
    /// at impacts; 0 for a body at rest.
    pub queries: u32,
    /// Distance queries of the flights' times of impact (conservative advancement steps).
    pub toi_queries: u32,
    /// Wall-clock seconds of the flights' times of impact.
    pub toi_seconds: f64,
    /// Impacts (interpenetrating end poses) cut back by a time of impact.
    pub impacts: u32,
    /// Box tests over all the step's queries.
    pub bv_tests: u64,
}

/// One rigid body moving among a fixed environment under the engine described in the module
/// documentation. The environment is at the identity; the object's pose places its model frame
/// in the environment's (world) frame. The simulation keeps the body's state; the two OBB trees
/// are handed to each call, always the same two (the environment's and the object's).
pub struct Simulation {
    config: DynamicsConfig,
    mass: MassProperties,
    state: BodyState,
    /// The pose reached (as read back from its POSES line) and its contacts.
    pose: Isometry,
    line: String,
    report: CollisionReport,
    /// Scratch reports of the time-of-impact search.
    probe: CollisionReport,
    hit: CollisionReport,
    /// The last impact's contact frames (point, normal into the body; world frame).
    impact: Vec<(Point, Vector)>,
    /// At rest: held by its contacts, it stays until its velocity is set again.
    asleep: bool,
    /// Consecutive steps in which the body was jammed (no impact let it move).
    jammed: u32,
}

impl Simulation {
    /// A body of `object`'s shape at `start` (its model frame in the world), with linear
    /// velocity `v0` (m/s) and angular velocity `w0` (rad/s), world frame. The start pose is
    /// queried (one query) and should be admissible ([`interpenetrates`] false); if it is not,
    /// the body still never goes deeper than where it starts.
    pub fn new(
        environment: &ObbTree,
        object: &ObbTree,
        start: &Isometry,
        v0: Vector,
        w0: Vector,
        config: &DynamicsConfig,
    ) -> Self {
        let mass = MassProperties::of_mesh(object.mesh());
        let mut sim = Simulation {
            config: *config,
            mass,
            state: BodyState {
                com: start * mass.com,
                rotation: start.rotation,
                velocity: v0,
                angular_velocity: w0,
            },
            pose: *start,
            line: String::new(),
            report: CollisionReport::default(),
            probe: CollisionReport::default(),
            hit: CollisionReport::default(),
            impact: Vec::new(),
            asleep: false,
            jammed: 0,
        };
        sim.commit(sim.state);
        sim.query_current(environment, object);
        sim
    }

    /// Puts the body at `pose` (its model frame in the world) with the given velocities, as
    /// [`Simulation::new`] does (one query), and wakes it. A pose that interpenetrates the
    /// scenery (a body dragged into it and let go) is first pushed out: by the least
    /// translation, among the contacts' mean least-penetration direction
    /// ([`crate::query::contact_normal`], depth-weighted) and the 26 directions of a cube's
    /// faces, edges and corners, that leaves it admissible (doubling, then bisecting). Returns
    /// that translation (world frame), `None` where the pose was admissible.
    ///
    /// # Errors
    /// [`ReleaseError::Buried`] when no such translation within four times the body's radius
    /// frees it; the body then stays where it was before the call.
    pub fn set_pose(
        &mut self,
        environment: &ObbTree,
        object: &ObbTree,
        pose: &Isometry,
        velocity: Vector,
        angular_velocity: Vector,
    ) -> Result<Option<Vector>, ReleaseError> {
        let before = (
            self.state,
            self.pose,
            self.line.clone(),
            self.report.clone(),
        );
        let state = BodyState {
            com: pose * self.mass.com,
            rotation: pose.rotation,
            velocity,
            angular_velocity,
        };
        self.commit(state);
        self.query_current(environment, object);
        let depth = 0.5 * self.config.penetration;
        let (mesh_a, mesh_b) = (environment.mesh(), object.mesh());
        let mut pushed = None;
        if interpenetrates(mesh_a, mesh_b, &self.pose, &self.report.contacts, depth) {
            match self.push_out(environment, object) {
                Some(shift) => {
                    self.commit(BodyState {
                        com: state.com + shift,
                        ..state
                    });
                    self.query_current(environment, object);
                    pushed = Some(shift);
                }
                None => {
                    (self.state, self.pose, self.line, self.report) = before;
                    return Err(ReleaseError::Buried {
                        reach: PUSH_REACH * self.mass.radius,
                    });
                }
            }
        }
        self.asleep = false;
        self.jammed = 0;
        Ok(pushed)
    }

    /// The least translation (see [`Simulation::set_pose`]) that makes the current pose
    /// admissible, if one within the reach does.
    fn push_out(&mut self, environment: &ObbTree, object: &ObbTree) -> Option<Vector> {
        let mut mean = Vector::zeros();
        for &(ia, ib) in &self.report.contacts {
            let ta = environment.mesh().triangle(ia as usize);
            let tb = object.mesh().triangle(ib as usize).map(|p| self.pose * p);
            if let Some(n) = contact_normal(&ta, &tb) {
                mean += n.normal * n.depth;
            }
        }
        let mut directions: Vec<Vector> = Vec::with_capacity(27);
        if mean.norm() > 0.0 {
            directions.push(mean.normalize());
        }
        for i in -1..=1 {
            for j in -1..=1 {
                for k in -1..=1 {
                    if (i, j, k) != (0, 0, 0) {
                        directions.push(Vector::new(i as f64, j as f64, k as f64).normalize());
                    }
                }
            }
        }
        let start = self.state;
        let admissible = |sim: &mut Self, shift: Vector| {
            let moved = BodyState {
                com: start.com + shift,
                ..start
            };
            !sim.probe(environment, object, &sim.snapped(&moved)).1
        };
        let reach = PUSH_REACH * self.mass.radius;
        let mut s = self.config.penetration;
        while s <= reach {
            if let Some(&d) = directions.iter().find(|&&d| admissible(self, d * s)) {
                // Deep at s / 2 (or the first scale), admissible at s: bisect.
                let (mut lo, mut hi) = (0.5 * s, s);
                for _ in 0..12 {
                    let mid = 0.5 * (lo + hi);
                    if admissible(self, d * mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                return Some(d * hi);
            }
            s *= 2.0;
        }
        None
    }

    /// The pose reached: the object's model frame in the world (exactly the recorded line's).
    pub fn pose(&self) -> &Isometry {
        &self.pose
    }

    /// The pose reached as a POSES line (`qw qx qy qz tx ty tz`, 8 decimals).
    pub fn line(&self) -> &str {
        &self.line
    }

    /// The contacts of the pose reached (all-contacts query).
    pub fn report(&self) -> &CollisionReport {
        &self.report
    }

    /// The motion state.
    pub fn state(&self) -> &BodyState {
        &self.state
    }

    /// The contact points and normals (world frame; the normal from the scenery into the body)
    /// at which the impulses of the last impact acted; empty before the first.
    pub fn last_impact(&self) -> &[(Point, Vector)] {
        &self.impact
    }

    /// Lifts or lowers the speed caps ([`DynamicsConfig::max_speed`],
    /// [`DynamicsConfig::max_angular_speed`]): the viewer's throws.
    pub fn set_speed_caps(&mut self, max_speed: f64, max_angular_speed: f64) {
        self.config.max_speed = max_speed;
        self.config.max_angular_speed = max_angular_speed;
    }

    /// The body's mass properties.
    pub fn mass(&self) -> &MassProperties {
        &self.mass
    }

    /// The integrator's parameters.
    pub fn config(&self) -> &DynamicsConfig {
        &self.config
    }

    /// Sets the velocities (e.g. a throw), keeping the pose; wakes a body at rest.
    pub fn set_velocity(&mut self, velocity: Vector, angular_velocity: Vector) {
        self.state.velocity = velocity;
        self.state.angular_velocity = angular_velocity;
        self.asleep = false;
        self.jammed = 0;
    }

    /// Whether the body is at rest (see [`Simulation::step`]).
    pub fn asleep(&self) -> bool {
        self.asleep
    }

    /// Advances the clock by one time step (see the module documentation). A body whose
    /// contacts hold it — it would move less than twice [`DynamicsConfig::toi_tolerance`] in the
    /// step, or every impact of the step came at once and the impulses could not free it — comes
    /// to rest: it keeps its pose and contacts, its velocities become zero, and its steps make no
    /// query until [`Simulation::set_velocity`] wakes it.
    pub fn step(&mut self, environment: &ObbTree, object: &ObbTree) -> StepStats {
        let mut stats = StepStats::default();
        if self.asleep {
            return stats;
        }
        let config = self.config;
        let state = self.driven_state(environment, object);

        // A body held by its contacts that would move less than the bisection's tolerance
        // twice over is at rest: it stays where it is (and its contacts with it).
        if !self.report.contacts.is_empty()
            && self.displacement(&state, config.dt) < 2.0 * config.toi_tolerance
        {
            self.state.velocity = Vector::zeros();
            self.state.angular_velocity = Vector::zeros();
            self.asleep = true;
            return stats;
        }
        let (current, stuck) = self.move_to_impacts(environment, object, &state, &mut stats);
        self.end_step(current, stuck);
        stats
    }

    /// The body's state with the step's gravity, contact impulses, conveyor, damping and
    /// speed caps applied to its velocities.
    fn driven_state(&self, environment: &ObbTree, object: &ObbTree) -> BodyState {
        let config = self.config;
        let mut state = self.state;
        state.velocity += self.gravity(&state.com) * config.dt;
        impulses(
            environment,
            object,
            &self.pose,
            &self.report.contacts,
            &self.mass,
            &mut state,
            &config,
        );
        let conveyor_speed = config.conveyor.norm();
        if conveyor_speed > 0.0 {
            let along = config.conveyor / conveyor_speed;
            state.velocity += along * (conveyor_speed - state.velocity.dot(&along));
        }
        state.velocity *= (1.0 - config.linear_damping * config.dt).max(0.0);
        state.angular_velocity *= (1.0 - config.angular_damping * config.dt).max(0.0);
        cap(&mut state.velocity, config.max_speed);
        cap(&mut state.angular_velocity, config.max_angular_speed);
        state
    }

    /// The motion, cut back at each impact: the state reached and how many impacts found no
    /// admissible pose before them.
    ///
    /// Each part of the step starts where the last ended. A body clear of contacts flies by
    /// conservative advancement ([`time_of_impact`], tolerance
    /// [`DynamicsConfig::toi_tolerance`]) to the end of the step or to the impact, where the
    /// impulses act at the triangle pairs within the tolerance. A body touching the scenery
    /// moves at most [`DynamicsConfig::contact_skin`] a part, and that part's end pose is
    /// checked for interpenetration (and the impact bisected) as in the module documentation.
    fn move_to_impacts(
        &mut self,
        environment: &ObbTree,
        object: &ObbTree,
        state: &BodyState,
        stats: &mut StepStats,
    ) -> (BodyState, usize) {
        let config = self.config;
        let mut remaining = config.dt;
        let mut current = self.state_at_pose(state);
        let mut stuck = 0;
        for _ in 0..MAX_PARTS {
            if remaining <= 0.0 {
                break;
            }
            if self.report.contacts.is_empty() {
                match self.fly(environment, object, &current, remaining, stats) {
                    Flight::Clear(end) => {
                        current = end;
                        break;
                    }
                    Flight::Unresolved(at) => {
                        current = at;
                        break;
                    }
                    Flight::Impact(at, elapsed) => {
                        current = at;
                        remaining -= elapsed;
                        if stats.impacts as usize == config.max_substeps {
                            break;
                        }
                        stats.impacts += 1;
                        self.near_impulses(environment, object, &mut current, stats);
                        continue;
                    }
                    Flight::Touching => {}
                }
            }
            // Touching: a part no longer than the contact skin, checked at its end.
            let rate = self.displacement(&current, 1.0);
            let span = if rate * remaining > config.contact_skin {
                config.contact_skin / rate
            } else {
                remaining
            };
            let end = self.snapped(&advance(&current, span));
            stats.queries += 1;
            let (end_pose, deep) = self.probe(environment, object, &end);
            if !deep {
                current = end;
                std::mem::swap(&mut self.report, &mut self.probe);
                self.pose = end_pose;
                stats.bv_tests += self.report.bv_tests;
                remaining -= span;
                continue;
            }
            stats.bv_tests += self.probe.bv_tests;
            if stats.impacts as usize == config.max_substeps {
                // Out of impacts: the step ends at the pose reached (its report is current).
                break;
            }
            stats.impacts += 1;
            std::mem::swap(&mut self.hit, &mut self.probe);
            let (lo, hi_pose, lo_found) =
                self.bisect_impact(environment, object, &current, span, end_pose, stats);
            match lo_found {
                Some(at) => current = at,
                None => stuck += 1,
            }
            self.impact_impulses(environment, object, &hi_pose, &mut current, stats);
            remaining -= lo;
        }
        (current, stuck)
    }

    /// Free flight from `current` over `remaining` seconds by conservative advancement.
    fn fly(
        &mut self,
        environment: &ObbTree,
        object: &ObbTree,
        current: &BodyState,
        remaining: f64,
        stats: &mut StepStats,
    ) -> Flight {
        let config = self.config;
        let motion = RigidMotion::about(
            &self.pose,
            self.mass.com,
            current.velocity * remaining,
            current.angular_velocity * remaining,
        );
        let options = ToiOptions {
            max_iterations: TOI_ITERATIONS,
            // The same farthest vertex from the centre of mass the call would measure.
            body_radius: Some(self.mass.radius),
            ..ToiOptions::new(config.toi_tolerance)
        };
        let (toi, seconds) =
            crate::timing::timed(|| time_of_impact(environment, object, &motion, &options));
        let Ok(toi) = toi else {
            return Flight::Touching;
        };
        stats.toi_queries += toi.distance_queries;
        stats.toi_seconds += seconds;
        stats.bv_tests += toi.bv_tests;
        if matches!(toi.outcome, ToiOutcome::Impact(hit) if hit.toi <= 0.0) {
            return Flight::Touching;
        }
        let elapsed = toi.safe_until() * remaining;
        let at = self.snapped(&advance(current, elapsed));
        self.arrive(environment, object, &at, stats);
        match toi.outcome {
            ToiOutcome::Clear => Flight::Clear(at),
            ToiOutcome::Impact(_) => Flight::Impact(at, elapsed),
            ToiOutcome::Unresolved { .. } => Flight::Unresolved(at),
        }
    }

    /// Moves the body to `state` (snapped) and queries its contacts into the report.
    fn arrive(
        &mut self,
        environment: &ObbTree,
        object: &ObbTree,
        state: &BodyState,
        stats: &mut StepStats,
    ) {
        self.pose = self.model_pose(state);
        self.query_current(environment, object);
        stats.queries += 1;
        stats.bv_tests += self.report.bv_tests;
    }

    /// Impulses at the triangle pairs within the time-of-impact tolerance of the pose reached
    /// (one tolerance query): each at the midpoint of the pair's closest points, along the
    /// direction from A's closest point to B's (into the body).
    fn near_impulses(
        &mut self,
        environment: &ObbTree,
        object: &ObbTree,
        current: &mut BodyState,
        stats: &mut StepStats,
    ) {
        let config = self.config;
        let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), &self.pose);
        let Ok(near) = within_pairs_with(
            environment,
            object,
            &rot_ab,
            &pos_ab,
            config.toi_tolerance,
            &OverlapOptions::default(),
        ) else {
            return;
        };
        stats.queries += 1;
        stats.bv_tests += near.bv_tests;
        let mut pairs: Vec<(u32, u32)> = near.pairs.iter().map(|&(p, _)| p).collect();
        pairs.sort_unstable();
        let stride = pairs.len().div_ceil(config.max_impulses.max(1)).max(1);
        let x = current.com;
        let frames: Vec<(Point, Vector)> = pairs
            .iter()
            .step_by(stride)
            .filter_map(|&(ia, ib)| {
                let ta = environment.mesh().triangle(ia as usize);
                let tb = object.mesh().triangle(ib as usize).map(|p| self.pose * p);
                let (d, on_a, on_b) = triangle_distance(&ta, &tb);
                if d > 0.0 {
                    Some((nalgebra::center(&on_a, &on_b), (on_b - on_a) / d))
                } else {
                    contact_frame(&ta, &tb, &x, current)
                }
            })
            .collect();
        apply_impulses(&frames, &self.mass, current, &config);
        self.impact = frames;
        cap(&mut current.velocity, config.max_speed);
        cap(&mut current.angular_velocity, config.max_angular_speed);
    }

    /// Bisection of the time of impact: `lo` admissible (the current pose), `hi`
    /// interpenetrating. Returns `lo`, the pose at `hi` and the last admissible state found.
    fn bisect_impact(
        &mut self,
        environment: &ObbTree,
        object: &ObbTree,
        current: &BodyState,
        remaining: f64,
        end_pose: Isometry,
        stats: &mut StepStats,
    ) -> (f64, Isometry, Option<BodyState>) {
        let config = self.config;
        let mut hi_pose = end_pose;
        let (mut lo, mut hi) = (0.0, remaining);
        let mut lo_found: Option<BodyState> = None;
        while self.displacement(current, hi - lo) > config.toi_tolerance {
            let mid = 0.5 * (lo + hi);
            let probe = self.snapped(&advance(current, mid));
            stats.queries += 1;
            let (probe_pose, deep) = self.probe(environment, object, &probe);
            stats.bv_tests += self.probe.bv_tests;
            if deep {
                hi = mid;
                hi_pose = probe_pose;
                std::mem::swap(&mut self.hit, &mut self.probe);
            } else {
                lo = mid;
                lo_found = Some(probe);
                std::mem::swap(&mut self.report, &mut self.probe);
                self.pose = probe_pose;
            }
        }
        (lo, hi_pose, lo_found)
    }

    /// Impulses at all the impact's contacts (the probes stopped at the first
    /// interpenetrating one: one more, complete query), applied to `current`.
    fn impact_impulses(
        &mut self,
        environment: &ObbTree,
        object: &ObbTree,
        hi_pose: &Isometry,
        current: &mut BodyState,
        stats: &mut StepStats,
    ) {
        let config = self.config;
        {
            let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), hi_pose);
            collide_with(
                environment,
                object,
                &rot_ab,
                &pos_ab,
                &QueryOptions::default(),
                CollideWith::default(),
                &mut self.hit,
            )
        };
        stats.queries += 1;
        stats.bv_tests += self.hit.bv_tests;
        let hit = std::mem::take(&mut self.hit.contacts);
        self.impact = impulses(
            environment,
            object,
            hi_pose,
            &hit,
            &self.mass,
            current,
            &config,
        );
        self.hit.contacts = hit;
        cap(&mut current.velocity, config.max_speed);
        cap(&mut current.angular_velocity, config.max_angular_speed);
    }

    /// Ends the step at `current`: a body jammed among its contacts stops there.
    fn end_step(&mut self, mut current: BodyState, stuck: usize) {
        if stuck == self.config.max_substeps {
            // Every impact of the step came at once and the impulses could not free the body:
            // it is jammed among its contacts. It stops there rather than pushing on, and comes
            // to rest if that lasts.
            current.velocity = Vector::zeros();
            current.angular_velocity = Vector::zeros();
            self.jammed += 1;
            self.asleep = self.jammed >= JAMMED_STEPS && !self.report.contacts.is_empty();
        } else {
            self.jammed = 0;
        }
        self.state = current;
        self.line = pose_line(&self.pose);
    }

    /// The gravity acceleration at `com`, m/s².
    fn gravity(&self, com: &Point) -> Vector {
        match self.config.gravity {
            Gravity::Uniform(g) => g,
            Gravity::Central {
                center,
                acceleration,
            } => {
                let d = center - com;
                let len = d.norm();
                if len > 1e-9 {
                    d * (acceleration / len)
                } else {
                    Vector::zeros()
                }
            }
        }
    }

    /// `state` with the pose of the current (read-back) pose and `state`'s velocities.
    fn state_at_pose(&self, state: &BodyState) -> BodyState {
        BodyState {
            com: self.pose * self.mass.com,
            rotation: self.pose.rotation,
            ..*state
        }
    }

    /// `state` moved to the pose its POSES line reads back as.
    fn snapped(&self, state: &BodyState) -> BodyState {
        let (_, pose) = round_trip(&self.model_pose(state));
        BodyState {
            com: pose * self.mass.com,
            rotation: pose.rotation,
            ..*state
        }
    }

    /// The model frame's pose for a state.
    fn model_pose(&self, state: &BodyState) -> Isometry {
        let t = state.com.coords - state.rotation * self.mass.com.coords;
        Isometry::from_parts(t.into(), state.rotation)
    }

    /// The largest displacement of a point of the body over `dt` seconds of `state`'s motion.
    fn displacement(&self, state: &BodyState, dt: f64) -> f64 {
        (state.velocity.norm() + state.angular_velocity.norm() * self.mass.radius) * dt
    }

    /// Queries `state`'s pose into `self.probe`; returns the pose and whether it interpenetrates.
    /// The query stops at the first interpenetrating contact, so the report is complete only
    /// when the answer is `false`.
    fn probe(
        &mut self,
        environment: &ObbTree,
        object: &ObbTree,
        state: &BodyState,
    ) -> (Isometry, bool) {
        let pose = self.model_pose(state);
        let rot = pose.rotation.to_rotation_matrix().into_inner();
        let depth = 0.5 * self.config.penetration;
        let (mesh_a, mesh_b) = (environment.mesh(), object.mesh());
        let mut deep = false;
        let mut until = |ia, ib| {
            deep = interpenetrates(mesh_a, mesh_b, &pose, &[(ia, ib)], depth);
            deep
        };
        collide_with(
            environment,
            object,
            &rot,
            &pose.translation.vector,
            &QueryOptions::default(),
            CollideWith::until(&mut until),
            &mut self.probe,
        );
        (pose, deep)
    }

    /// Sets the state to `state` snapped to its POSES line.
    fn commit(&mut self, state: BodyState) {
        let (line, pose) = round_trip(&self.model_pose(&state));
        self.line = line;
        self.pose = pose;
        self.state = BodyState {
            com: pose * self.mass.com,
            rotation: pose.rotation,
            ..state
        };
    }

    /// Queries the current pose into `self.report`.
    fn query_current(&mut self, environment: &ObbTree, object: &ObbTree) {
        {
            let (rot_ab, pos_ab) = relative_parts(&Isometry::identity(), &self.pose);
            collide_with(
                environment,
                object,
                &rot_ab,
                &pos_ab,
                &QueryOptions::default(),
                CollideWith::default(),
                &mut self.report,
            )
        };
    }
}

/// `state` advanced by `dt` seconds of free motion (symplectic Euler: the velocities are the
/// step's).
fn advance(state: &BodyState, dt: f64) -> BodyState {
    BodyState {
        com: state.com + state.velocity * dt,
        rotation: UnitQuaternion::from_scaled_axis(state.angular_velocity * dt) * state.rotation,
        ..*state
    }
}

/// The sequential impulses at (a sample of) `contacts`, the object placed by `pose`.
fn impulses(
    environment: &ObbTree,
    object: &ObbTree,
    pose: &Isometry,
    contacts: &[(u32, u32)],
    mass: &MassProperties,
    state: &mut BodyState,
    config: &DynamicsConfig,
) -> Vec<(Point, Vector)> {
    if contacts.is_empty() {
        return Vec::new();
    }
    // In (A, B) order, not the traversal's: the motion must not depend on the hierarchy.
    let mut contacts = contacts.to_vec();
    contacts.sort_unstable();
    let stride = contacts.len().div_ceil(config.max_impulses.max(1));
    let x = state.com;
    // Contact points and normals from the velocity before the impulses: re-orienting a normal
    // against the velocity the previous impulses left would let two contacts push each other.
    let frames: Vec<(Point, Vector)> = contacts
        .iter()
        .step_by(stride)
        .filter_map(|&(ia, ib)| {
            let ta = environment.mesh().triangle(ia as usize);
            let tb = object.mesh().triangle(ib as usize).map(|p| pose * p);
            contact_frame(&ta, &tb, &x, state)
        })
        .collect();
    apply_impulses(&frames, mass, state, config);
    frames
}

/// Sequential impulses at contact `frames` (point, normal into the body; world frame), a few
/// passes: one pass leaves a body wedged among several contacts with part of its approach.
fn apply_impulses(
    frames: &[(Point, Vector)],
    mass: &MassProperties,
    state: &mut BodyState,
    config: &DynamicsConfig,
) {
    if frames.is_empty() {
        return;
    }
    let r_mat = state.rotation.to_rotation_matrix().into_inner();
    let inv_i = r_mat * Matrix3::from_diagonal(&mass.inv_inertia) * r_mat.transpose();
    let x = state.com;
    for _ in 0..IMPULSE_PASSES {
        for (p, normal) in frames {
            apply_impulse(
                &mut state.velocity,
                &mut state.angular_velocity,
                &inv_i,
                &x,
                p,
                normal,
                config,
            );
        }
    }
}

/// Consecutive jammed steps after which a body comes to rest.
const JAMMED_STEPS: u32 = 5;

/// Parts of one step at most (flights, impacts and contact-skin moves); then the step ends
/// where the body stands.
const MAX_PARTS: usize = 32;

/// Distance queries of one flight's time of impact at most; then the flight ends where it is
/// proven clear.
const TOI_ITERATIONS: u32 = 64;

/// How far a release is pushed out at most, in body radii.
const PUSH_REACH: f64 = 4.0;

/// Why a release was refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ReleaseError {
    /// The pose interpenetrates the scenery and no translation up to `reach` frees it.
    #[error(
        "released inside the scenery, and no translation up to {reach:.3} m frees it: the object stays where it was"
    )]
    Buried {
        /// The largest translation tried, metres.
        reach: f64,
    },
}

/// How a flight by conservative advancement ended.
enum Flight {
    /// The whole remaining motion, to this state.
    Clear(BodyState),
    /// Within the tolerance at this state, after this many seconds.
    Impact(BodyState, f64),
    /// The iteration limit: the state proven clear so far.
    Unresolved(BodyState),
    /// Within the tolerance where it starts: the contact branch moves it.
    Touching,
}

/// Passes of sequential impulses over a step's contacts.
const IMPULSE_PASSES: usize = 8;

/// Whether, with B placed in A's frame by `pose`, some edge of one of the contacting triangle
/// pairs `contacts` crosses the other triangle with both ends farther than `depth` from its
/// plane, on opposite sides (an edge passing through a triangle, not touching it). Only pairs
/// of intersecting triangles can cross, so the contacts of an all-contacts query are all the
/// candidates.
pub fn interpenetrates(
    environment: &TriMesh,
    object: &TriMesh,
    pose: &Isometry,
    contacts: &[(u32, u32)],
    depth: f64,
) -> bool {
    contacts.iter().any(|&(ia, ib)| {
        let ta = environment.triangle(ia as usize);
        let tb = object.triangle(ib as usize).map(|p| pose * p);
        edges_cross(&ta, &tb, depth) || edges_cross(&tb, &ta, depth)
    })
}

/// Whether an edge of `t` passes through `u` with both ends farther than `depth` from `u`'s
/// plane.
fn edges_cross(t: &[Point; 3], u: &[Point; 3], depth: f64) -> bool {
    let n = (u[1] - u[0]).cross(&(u[2] - u[0]));
    let len = n.norm();
    if len <= 0.0 || !len.is_finite() {
        return false;
    }
    let n = n / len;
    let dist = |p: &Point| (p - u[0]).dot(&n);
    (0..3).any(|k| {
        let (p, q) = (t[k], t[(k + 1) % 3]);
        let (dp, dq) = (dist(&p), dist(&q));
        if dp.abs() <= depth || dq.abs() <= depth || (dp > 0.0) == (dq > 0.0) {
            return false;
        }
        // Where the edge meets the plane, inside the triangle (edge functions of one sign)?
        let x = p + (q - p) * (dp / (dp - dq));
        let e = |a: &Point, b: &Point| (b - a).cross(&(x - a)).dot(&n);
        let s = [e(&u[0], &u[1]), e(&u[1], &u[2]), e(&u[2], &u[0])];
        s.iter().all(|&v| v >= 0.0) || s.iter().all(|&v| v <= 0.0)
    })
}

/// Runs the simulation from `start` (B in A's frame) with initial linear velocity `v0` (m/s) and
/// angular velocity `w0` (rad/s), world frame, recording `config.steps` poses: the start pose
/// and the pose after each step but the last. `progress` is called after every step with the
/// number of steps done.
pub fn simulate(
    environment: &ObbTree,
    object: &ObbTree,
    start: &Isometry,
    v0: Vector,
    w0: Vector,
    config: &DynamicsConfig,
    progress: &mut dyn FnMut(usize),
) -> RecordedPath {
    let mut sim = Simulation::new(environment, object, start, v0, w0, config);
    let mut path = RecordedPath::default();
    let mut queries = 1;
    for step in 0..config.steps {
        path.lines.push(sim.line().to_string());
        path.poses.push(*sim.pose());
        path.contacts.push(sim.report().contacts.len() as u32);
        path.queries.push(queries);
        if step + 1 < config.steps {
            let stats = sim.step(environment, object);
            queries = stats.queries + stats.toi_queries;
        }
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

/// A pose as a POSES line (8 decimals).
fn pose_line(pose: &Isometry) -> String {
    let q = pose.rotation.quaternion();
    let t = pose.translation.vector;
    format!(
        "{:.8} {:.8} {:.8} {:.8} {:.8} {:.8} {:.8}",
        q.w, q.i, q.j, q.k, t.x, t.y, t.z
    )
}

/// Writes a pose as a POSES line and reads it back with the pose parser.
fn round_trip(pose: &Isometry) -> (String, Isometry) {
    let line = pose_line(pose);
    let parsed = parse_poses(&line, Path::new("simulated path"))
        .ok()
        .and_then(|p| p.first().map(|p| p.pose_ab))
        .unwrap_or(*pose);
    (line, parsed)
}

/// The contact point and normal (pointing into the body, world frame) of the contacting
/// triangles `ta` (environment) and `tb` (body).
///
/// Where an edge of one passes through the other, the normal is the direction that undoes the
/// crossing with the least motion: the crossed triangle's normal (depth: the nearer end's distance
/// to its plane) or, for two edges locked into each other, the common normal of the crossing edge
/// and an edge of the crossed triangle (depth: the distance between their lines); the point is
/// where the edge meets the triangle. Otherwise (touching without crossing) the normal is the sum
/// of both triangles' unit normals and the point the centroid of `tb`. The normal is oriented
/// against the body's velocity at the point (the side the body came from), or toward the centre
/// of mass `x` where the body does not move across it. A degenerate triangle contributes nothing
/// (§7.1).
fn contact_frame(
    ta: &[Point; 3],
    tb: &[Point; 3],
    x: &Point,
    state: &BodyState,
) -> Option<(Point, Vector)> {
    let (p, n) = match shallowest_crossing(tb, ta)
        .into_iter()
        .chain(shallowest_crossing(ta, tb))
        .min_by(|a, b| a.2.total_cmp(&b.2))
    {
        Some((p, n, _)) => (p, n),
        None => {
            let p = Point::from((tb[0].coords + tb[1].coords + tb[2].coords) / 3.0);
            (
                p,
                unit_normal(ta).unwrap_or_default()
                    + orient_like(unit_normal(tb), &unit_normal(ta)),
            )
        }
    };
    let len = n.norm();
    if len <= 1e-9 {
        return None;
    }
    let n = n / len;
    let vp = state.velocity + state.angular_velocity.cross(&(p - x));
    let along = n.dot(&vp);
    let flip = if along.abs() > 1e-9 {
        along > 0.0
    } else {
        n.dot(&(x - p)) < 0.0
    };
    Some((p, if flip { -n } else { n }))
}

/// The unit normal of a triangle, `None` if it is degenerate.
fn unit_normal(t: &[Point; 3]) -> Option<Vector> {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let len = n.norm();
    (len > 1e-12 && len.is_finite()).then(|| n / len)
}

/// `n` flipped, if needed, to point to the same side as `like` (so the sum of two face normals
/// does not cancel).
fn orient_like(n: Option<Vector>, like: &Option<Vector>) -> Vector {
    match (n, like) {
        (Some(n), Some(l)) if n.dot(l) < 0.0 => -n,
        (Some(n), _) => n,
        (None, _) => Vector::zeros(),
    }
}

/// Among the edges of `t` that pass through triangle `u`: the crossing point, the separating
/// direction needing the least motion and that motion (see [`contact_frame`]).
fn shallowest_crossing(t: &[Point; 3], u: &[Point; 3]) -> Option<(Point, Vector, f64)> {
    let n = unit_normal(u)?;
    let dist = |p: &Point| (p - u[0]).dot(&n);
    let mut best: Option<(Point, Vector, f64)> = None;
    for k in 0..3 {
        let (p, q) = (t[k], t[(k + 1) % 3]);
        let (dp, dq) = (dist(&p), dist(&q));
        if (dp > 0.0) == (dq > 0.0) || dp == dq {
            continue;
        }
        let x = p + (q - p) * (dp / (dp - dq));
        let e = |a: &Point, b: &Point| (b - a).cross(&(x - a)).dot(&n);
        let s = [e(&u[0], &u[1]), e(&u[1], &u[2]), e(&u[2], &u[0])];
        if !(s.iter().all(|&v| v >= 0.0) || s.iter().all(|&v| v <= 0.0)) {
            continue;
        }
        let mut consider = |dir: Vector, depth: f64| {
            if best.as_ref().is_none_or(|b| depth < b.2) {
                best = Some((x, dir, depth));
            }
        };
        consider(n, dp.abs().min(dq.abs()));
        for j in 0..3 {
            let (a, b) = (u[j], u[(j + 1) % 3]);
            let m = (q - p).cross(&(b - a));
            let len = m.norm();
            if len > 1e-12 {
                let m = m / len;
                consider(m, (p - a).dot(&m).abs());
            }
        }
    }
    best
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
    // Below the resting speed an approach is a body settling, not an impact: no bounce, so a
    // resting body keeps its touching contacts instead of hopping.
    let restitution = if -vn > config.resting_speed {
        config.restitution
    } else {
        0.0
    };
    let target = (-restitution * vn).max(config.bias_speed);
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
            resting_speed: 0.0,
            max_speed: 10.0,
            max_angular_speed: 10.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            max_impulses: 8,
            penetration: 5e-4,
            toi_tolerance: 1e-4,
            max_substeps: 4,
            contact_skin: 5e-3,
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
