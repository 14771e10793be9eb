//! Parallel and point close proximity (Gottschalk et al. 1996, §6, Figs. 5 and 6): box tests
//! per query of OBB and AABB trees as two tessellated spheres come within ε.

use super::plot::{LinePlot, Plot, Series};
use super::report::{CsvFile, Figure, Report, Section, Table, thousands};
use super::{Claim, Experiment, ExperimentError, Progress, Settings, shoemake};
use crate::bv::{Aabb, BoundingVolume, BvKind, Obb};
use crate::bvh::Bvh;
use crate::math::{Matrix3, Point, UnitQuaternion, Vector};
use crate::mesh::TriMesh;
use crate::query::{CollideWith, CollisionReport, QueryOptions, collide_with};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

/// One ε of a proximity experiment.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ProximityPoint {
    /// Gap between the surfaces (parallel: radius difference; point: distance between the
    /// closest vertices on the line of centres), model units (sphere radius 1).
    pub epsilon: f64,
    /// Box tests of the OBB trees, N_v.
    pub obb_box_tests: u64,
    /// Box tests of the AABB trees (same build process, identity axes), N_v.
    pub aabb_box_tests: u64,
    /// Triangle tests of the OBB trees, N_p.
    pub obb_tri_tests: u64,
    /// Triangle tests of the AABB trees, N_p.
    pub aabb_tri_tests: u64,
    /// Intersecting triangle pairs (the same for both trees; non-zero only once ε is below the
    /// tessellation's sagitta in the parallel case).
    pub contacts: u64,
    /// AABB box tests over OBB box tests.
    pub ratio: f64,
}

/// A straight-line fit of log10(box tests) against log10(ε) over a range of ε.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Fit {
    /// The slope (the paper expects about −1 for OBBs and −2 for AABBs in parallel proximity).
    pub slope: f64,
    /// Smallest ε of the fitted range.
    pub eps_min: f64,
    /// Largest ε of the fitted range.
    pub eps_max: f64,
    /// Points in the fitted range.
    pub points: usize,
}

/// The result of `parallel-proximity` or `point-proximity`.
#[derive(Clone, Debug)]
pub struct ProximityResult {
    /// Which of the two.
    pub experiment: Experiment,
    /// Triangles per sphere.
    pub triangles: usize,
    /// One row per ε, ε decreasing.
    pub points: Vec<ProximityPoint>,
    /// Fit of the OBB curve's linear part.
    pub obb_fit: Fit,
    /// Fit of the AABB curve's linear part.
    pub aabb_fit: Fit,
    /// The summary's claims table.
    pub claims: Vec<Claim>,
}

/// A geodesic sphere: the icosahedron with each face cut into `freq²` triangles, vertices
/// pushed onto the sphere of `radius` (20·freq² triangles; freq 40 gives the paper's 32,000).
/// Corners are repeated per face (a soup, as the hierarchies need no adjacency). Vertex 0 is
/// the icosahedron vertex (0, 1, φ)/|…| · radius.
pub fn geodesic_sphere(freq: usize, radius: f64) -> TriMesh {
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let ico: [Vector; 12] = [
        Vector::new(0., 1., phi),
        Vector::new(0., -1., phi),
        Vector::new(0., 1., -phi),
        Vector::new(0., -1., -phi),
        Vector::new(1., phi, 0.),
        Vector::new(-1., phi, 0.),
        Vector::new(1., -phi, 0.),
        Vector::new(-1., -phi, 0.),
        Vector::new(phi, 0., 1.),
        Vector::new(-phi, 0., 1.),
        Vector::new(phi, 0., -1.),
        Vector::new(-phi, 0., -1.),
    ];
    // The 20 faces: triples of mutually adjacent vertices (edge length 2), wound outward.
    let mut faces = Vec::new();
    for i in 0..12 {
        for j in i + 1..12 {
            for k in j + 1..12 {
                let adj = |a: usize, b: usize| ((ico[a] - ico[b]).norm() - 2.0).abs() < 1e-9;
                if adj(i, j) && adj(j, k) && adj(i, k) {
                    let n = (ico[j] - ico[i]).cross(&(ico[k] - ico[i]));
                    faces.push(if n.dot(&ico[i]) > 0.0 {
                        [i, j, k]
                    } else {
                        [i, k, j]
                    });
                }
            }
        }
    }
    let mut vertices = Vec::with_capacity(faces.len() * (freq + 1) * (freq + 2) / 2);
    let mut triangles = Vec::with_capacity(faces.len() * freq * freq);
    let f = freq as f64;
    for [a, b, c] in faces {
        let base = vertices.len() as u32;
        let index = |i: usize, j: usize| base + (i * (2 * freq + 3 - i) / 2 + j) as u32;
        for i in 0..=freq {
            for j in 0..=freq - i {
                let p = ico[a]
                    + (ico[b] - ico[a]) * (i as f64 / f)
                    + (ico[c] - ico[a]) * (j as f64 / f);
                vertices.push(Point::from(p.normalize() * radius));
            }
        }
        for i in 0..freq {
            for j in 0..freq - i {
                triangles.push([index(i, j), index(i + 1, j), index(i, j + 1)]);
                if j + 1 < freq - i {
                    triangles.push([index(i + 1, j), index(i + 1, j + 1), index(i, j + 1)]);
                }
            }
        }
    }
    // The first face starts at icosahedron vertex 0, so mesh vertex 0 is it, on the sphere.
    TriMesh::new(vertices, triangles, "geodesic sphere").expect("a valid sphere")
}

fn rotated(mesh: &TriMesh, rot: &UnitQuaternion) -> TriMesh {
    let vertices = mesh.vertices().iter().map(|p| rot * p).collect();
    TriMesh::new(vertices, mesh.triangles().to_vec(), "rotated sphere").expect("same topology")
}

fn counts<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot: &Matrix3,
    pos: &Vector,
) -> CollisionReport {
    let mut r = CollisionReport::default();
    collide_with(
        a,
        b,
        rot,
        pos,
        &QueryOptions::paper(),
        CollideWith::default(),
        &mut r,
    );
    r
}

/// Least-squares slope of ly against lx.
fn slope(lx: &[f64], ly: &[f64]) -> f64 {
    let n = lx.len() as f64;
    let (mx, my) = (lx.iter().sum::<f64>() / n, ly.iter().sum::<f64>() / n);
    let sxy: f64 = lx.iter().zip(ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

/// Fits the linear part of a log-log curve: the window of `window` consecutive points with the
/// steepest least-squares slope, extended on either side while each further segment's slope
/// stays within 35% of the window's.
fn fit_linear_part(eps: &[f64], y: &[u64], window: usize) -> Fit {
    let lx: Vec<f64> = eps.iter().map(|e| e.log10()).collect();
    let ly: Vec<f64> = y.iter().map(|&v| (v.max(1) as f64).log10()).collect();
    let n = lx.len();
    let w = window.clamp(2, n.max(2));
    let (mut best, mut best_slope) = (0, 0.0f64);
    for s in 0..=n.saturating_sub(w) {
        let k = slope(&lx[s..s + w], &ly[s..s + w]);
        if k.abs() > best_slope.abs() {
            best = s;
            best_slope = k;
        }
    }
    let (mut lo, mut hi) = (best, (best + w).min(n) - 1);
    let seg = |i: usize| (ly[i + 1] - ly[i]) / (lx[i + 1] - lx[i]);
    let close = |k: f64| (k - best_slope).abs() <= 0.35 * best_slope.abs();
    while lo > 0 && close(seg(lo - 1)) {
        lo -= 1;
    }
    while hi + 1 < n && close(seg(hi)) {
        hi += 1;
    }
    Fit {
        slope: slope(&lx[lo..=hi], &ly[lo..=hi]),
        eps_min: eps[hi].min(eps[lo]),
        eps_max: eps[hi].max(eps[lo]),
        points: hi - lo + 1,
    }
}

/// Whether the last two points of a curve differ by less than 5%: it has levelled off.
fn levelled(y: &[u64]) -> bool {
    let n = y.len();
    n >= 2 && (y[n - 1] as f64 - y[n - 2] as f64).abs() <= 0.05 * y[n - 2].max(1) as f64
}

/// The sizes of a run: sphere frequency (20·freq² triangles), points per decade of ε, decades.
struct Sizes {
    freq: usize,
    per_decade: usize,
    decades: usize,
}

impl Sizes {
    /// Full: the paper's 32,000 triangles, 4 points per decade from 1 to 1e-8. Quick: 18,000
    /// triangles, 3 per decade from 1 to 1e-6. The range starts above the 1e-1: the AABB
    /// curve's linear part lies between the size of a leaf triangle (≈ 0.02) and the radius, so
    /// most of it is above 1e-1.
    fn of(settings: &Settings) -> Self {
        if settings.quick {
            Sizes {
                freq: 30,
                per_decade: 3,
                decades: 6,
            }
        } else {
            Sizes {
                freq: 40,
                per_decade: 4,
                decades: 8,
            }
        }
    }

    /// ε from 1 down, decreasing.
    fn epsilons(&self) -> Vec<f64> {
        (0..=self.per_decade * self.decades)
            .map(|k| 10f64.powf(-(k as f64) / self.per_decade as f64))
            .collect()
    }
}

/// Parallel proximity: A of radius 1, B of radius 1 + ε turned by one random rotation, same
/// centre; one point per ε.
fn parallel(
    unit: &TriMesh,
    sizes: &Sizes,
    eps: &[f64],
    rng: &mut Xoshiro256PlusPlus,
    tick: &mut dyn FnMut(usize),
) -> Result<Vec<ProximityPoint>, ExperimentError> {
    let build = super::build_options();
    let rot = *shoemake(rng).to_rotation_matrix().matrix();
    let a_obb = Bvh::<Obb>::build(unit.clone(), &build);
    let a_aabb = Bvh::<Aabb>::build(unit.clone(), &build);
    let mut points = Vec::with_capacity(eps.len());
    for (i, &e) in eps.iter().enumerate() {
        tick(i);
        let outer = geodesic_sphere(sizes.freq, 1.0 + e);
        let b_obb = Bvh::<Obb>::build(outer.clone(), &build);
        let b_aabb = Bvh::<Aabb>::build(outer, &build);
        let o = counts(&a_obb, &b_obb, &rot, &Vector::zeros());
        let x = counts(&a_aabb, &b_aabb, &rot, &Vector::zeros());
        points.push(point(e, &o, &x)?);
    }
    Ok(points)
}

/// Point proximity. The line of centres is a random direction d. Vertex 0 of A is turned to
/// +d, vertex 0 of B to −d (then B spins about d by a random angle): the closest points are
/// those two vertices, exactly ε apart on the line of centres. (Along a coordinate axis the
/// AABBs' faces would touch those vertices exactly, an artificial advantage.)
fn point_to_point(
    unit: &TriMesh,
    eps: &[f64],
    rng: &mut Xoshiro256PlusPlus,
    tick: &mut dyn FnMut(usize),
) -> Result<Vec<ProximityPoint>, ExperimentError> {
    let build = super::build_options();
    let d = shoemake(rng) * Vector::x();
    let v0 = unit.vertices()[0].coords;
    let to_pd = UnitQuaternion::rotation_between(&v0, &d).unwrap_or_else(UnitQuaternion::identity);
    let to_md = UnitQuaternion::rotation_between(&v0, &-d).unwrap_or_else(UnitQuaternion::identity);
    let angle = rand::RngExt::random_range(rng, 0.0..std::f64::consts::TAU);
    let spin = UnitQuaternion::from_scaled_axis(d * angle);
    let a_mesh = rotated(unit, &to_pd);
    let b_mesh = rotated(unit, &(spin * to_md));
    let a_obb = Bvh::<Obb>::build(a_mesh.clone(), &build);
    let a_aabb = Bvh::<Aabb>::build(a_mesh, &build);
    let b_obb = Bvh::<Obb>::build(b_mesh.clone(), &build);
    let b_aabb = Bvh::<Aabb>::build(b_mesh, &build);
    let mut points = Vec::with_capacity(eps.len());
    for (i, &e) in eps.iter().enumerate() {
        tick(i);
        let pos = d * (2.0 + e);
        let o = counts(&a_obb, &b_obb, &Matrix3::identity(), &pos);
        let x = counts(&a_aabb, &b_aabb, &Matrix3::identity(), &pos);
        if o.colliding() {
            return Err(ExperimentError::Inconsistent(format!(
                "spheres {e} apart collide"
            )));
        }
        points.push(point(e, &o, &x)?);
    }
    Ok(points)
}

/// Measures `parallel-proximity` or `point-proximity`.
pub(super) fn measure(
    experiment: Experiment,
    settings: &Settings,
    progress: Progress<'_>,
) -> Result<ProximityResult, ExperimentError> {
    let sizes = Sizes::of(settings);
    let eps = sizes.epsilons();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(settings.seed);
    let unit = geodesic_sphere(sizes.freq, 1.0);
    let stage = experiment.name();
    let n = eps.len() as u64;
    let mut tick = |i: usize| progress(stage, i as u64, n);
    let points = if experiment == Experiment::ParallelProximity {
        parallel(&unit, &sizes, &eps, &mut rng, &mut tick)?
    } else {
        point_to_point(&unit, &eps, &mut rng, &mut tick)?
    };
    progress(stage, n, n);

    let obb: Vec<u64> = points.iter().map(|p| p.obb_box_tests).collect();
    let aabb: Vec<u64> = points.iter().map(|p| p.aabb_box_tests).collect();
    let window = sizes.per_decade + 1;
    let obb_fit = fit_linear_part(&eps, &obb, window);
    let aabb_fit = fit_linear_part(&eps, &aabb, window);
    let claims = if experiment == Experiment::ParallelProximity {
        parallel_claims(&points, &obb_fit, &aabb_fit)
    } else {
        point_claims(&points, &obb, &aabb)
    };
    Ok(ProximityResult {
        experiment,
        triangles: unit.triangle_count(),
        points,
        obb_fit,
        aabb_fit,
        claims,
    })
}

fn point(
    e: f64,
    o: &CollisionReport,
    x: &CollisionReport,
) -> Result<ProximityPoint, ExperimentError> {
    if o.sorted_contacts() != x.sorted_contacts() {
        return Err(ExperimentError::Inconsistent(format!(
            "OBB and AABB trees found different contacts at ε = {e}"
        )));
    }
    Ok(ProximityPoint {
        epsilon: e,
        obb_box_tests: o.bv_tests,
        aabb_box_tests: x.bv_tests,
        obb_tri_tests: o.tri_tests,
        aabb_tri_tests: x.tri_tests,
        contacts: o.contacts.len() as u64,
        ratio: x.bv_tests as f64 / o.bv_tests.max(1) as f64,
    })
}

fn fit_text(f: &Fit) -> String {
    format!(
        "{:.2} (ε {:.0e}…{:.0e}, {} points)",
        f.slope, f.eps_max, f.eps_min, f.points
    )
}

fn parallel_claims(points: &[ProximityPoint], obb: &Fit, aabb: &Fit) -> Vec<Claim> {
    let last = points.last().expect("at least one ε");
    let aabb_y: Vec<u64> = points.iter().map(|p| p.aabb_box_tests).collect();
    let obb_y: Vec<u64> = points.iter().map(|p| p.obb_box_tests).collect();
    vec![
        Claim::new(
            "slope of the OBB curve's linear part",
            "≈ −1",
            fit_text(obb),
            (-1.5..=-0.5).contains(&obb.slope),
        ),
        Claim::new(
            "slope of the AABB curve's linear part",
            "≈ −2",
            fit_text(aabb),
            (-2.6..=-1.4).contains(&aabb.slope),
        ),
        Claim::new(
            "OBB trees need asymptotically fewer box tests (|OBB slope| < |AABB slope|)",
            "1 < 2",
            format!("{:.2} < {:.2}", obb.slope.abs(), aabb.slope.abs()),
            obb.slope.abs() < aabb.slope.abs(),
        ),
        Claim::new(
            "the AABB curve levels off at the smallest ε",
            "yes",
            format!(
                "last two points {} and {}",
                thousands(aabb_y[aabb_y.len() - 2]),
                thousands(last.aabb_box_tests)
            ),
            levelled(&aabb_y),
        ),
        Claim::new(
            "the OBB curve levels off at the same height as the AABB curve (not shown in the paper)",
            "predicted",
            format!(
                "OBB {} vs AABB {} box tests at ε = {:.0e}{}",
                thousands(last.obb_box_tests),
                thousands(last.aabb_box_tests),
                last.epsilon,
                if levelled(&obb_y) {
                    ", levelled"
                } else {
                    ", still rising"
                }
            ),
            levelled(&obb_y)
                && (0.5..=2.0).contains(&(last.obb_box_tests as f64 / last.aabb_box_tests as f64)),
        ),
    ]
}

fn point_claims(points: &[ProximityPoint], obb: &[u64], aabb: &[u64]) -> Vec<Claim> {
    let first = &points[0];
    let peak = points
        .iter()
        .max_by(|a, b| a.ratio.total_cmp(&b.ratio))
        .expect("at least one ε");
    vec![
        Claim::new(
            "the gap between the AABB (upper) and OBB (lower) curves widens as ε shrinks",
            "yes (Fig. 6)",
            format!(
                "AABB/OBB box tests {:.2}× at ε = {:.0e}, {:.2}× at ε = {:.0e}",
                first.ratio, first.epsilon, peak.ratio, peak.epsilon
            ),
            peak.ratio >= 1.2 * first.ratio && peak.epsilon < first.epsilon,
        ),
        Claim::new(
            "AABB trees need more box tests than OBB trees at every ε",
            "upper curve AABB",
            format!(
                "smallest ratio {:.2}×",
                points.iter().map(|p| p.ratio).fold(f64::INFINITY, f64::min)
            ),
            points.iter().all(|p| p.aabb_box_tests >= p.obb_box_tests),
        ),
        Claim::new(
            "both curves level off for small ε",
            "yes",
            format!(
                "AABB {}, OBB {}",
                if levelled(aabb) {
                    "levelled"
                } else {
                    "still rising"
                },
                if levelled(obb) {
                    "levelled"
                } else {
                    "still rising"
                }
            ),
            levelled(aabb) && levelled(obb),
        ),
    ]
}

/// One row of `NAME-fits.csv`.
#[derive(serde::Serialize)]
struct FitRow {
    bv: BvKind,
    slope: f64,
    eps_min: f64,
    eps_max: f64,
    points: usize,
}

/// The report of `parallel-proximity` or `point-proximity`.
pub(super) fn report(r: &ProximityResult) -> Result<Report, ExperimentError> {
    let name = r.experiment.name();
    let parallel = r.experiment == Experiment::ParallelProximity;
    let (title, fig) = if parallel {
        (
            "Parallel close proximity (Fig. 5): box tests per query",
            "Fig. 5",
        )
    } else {
        (
            "Point close proximity (Fig. 6): box tests per query",
            "Fig. 6",
        )
    };
    let fits: Vec<FitRow> = [(BvKind::Obb, r.obb_fit), (BvKind::Aabb, r.aabb_fit)]
        .into_iter()
        .map(|(bv, f)| FitRow {
            bv,
            slope: f.slope,
            eps_min: f.eps_min,
            eps_max: f.eps_max,
            points: f.points,
        })
        .collect();
    Ok(Report {
        experiment: r.experiment,
        title: title.into(),
        source: format!("Gottschalk, Lin, Manocha 1996, §6, {fig}"),
        setup: setup(r),
        csv: vec![
            CsvFile::new(format!("{name}.csv"), &r.points)?,
            CsvFile::new(format!("{name}-fits.csv"), &fits)?,
        ],
        figures: vec![figure(r, title)],
        claims: r.claims.clone(),
        sections: vec![
            Section::table(
                "Fits of the linear parts (log10 box tests against log10 ε)",
                fits_table(r),
            ),
            Section::table("Data", data_table(r)),
        ],
    })
}

fn setup(r: &ProximityResult) -> String {
    if r.experiment == Experiment::ParallelProximity {
        format!(
            "Two concentric geodesic spheres of {} triangles each, radii 1 and 1 + ε, the outer one \
             turned by a random rotation; one all-contacts query per ε. The AABB trees are built by \
             the same process as the OBB trees (split at the centroids' mean along \
             the best axis) with identity axes. Once ε is below the tessellation's sagitta the \
             polyhedra intersect (column `contacts`).",
            r.triangles
        )
    } else {
        format!(
            "Two equal geodesic spheres of {} triangles each, radius 1, turned so that a vertex of \
             each lies on the line of centres: the surfaces are exactly ε apart there. One \
             all-contacts query per ε (none finds a contact).",
            r.triangles
        )
    }
}

fn figure(r: &ProximityResult, title: &str) -> Figure {
    let curve = |name: &str, y: fn(&ProximityPoint) -> u64| Series {
        name: name.into(),
        points: r.points.iter().map(|p| (p.epsilon, y(p) as f64)).collect(),
    };
    Figure {
        stem: r.experiment.name().into(),
        plot: Plot::Line(LinePlot {
            title: title.into(),
            x_label: "ε (sphere radius 1)".into(),
            y_label: "box tests per query".into(),
            log_x: true,
            log_y: true,
            series: vec![
                curve("AABB tree", |p| p.aabb_box_tests),
                curve("OBB tree", |p| p.obb_box_tests),
            ],
        }),
    }
}

fn fits_table(r: &ProximityResult) -> Table {
    Table::new(
        &["tree", "slope", "ε range", "points"],
        [("OBB", &r.obb_fit), ("AABB", &r.aabb_fit)]
            .iter()
            .map(|(n, f)| {
                vec![
                    n.to_string(),
                    format!("{:.2}", f.slope),
                    format!("{:.1e} … {:.1e}", f.eps_max, f.eps_min),
                    f.points.to_string(),
                ]
            })
            .collect(),
    )
}

fn data_table(r: &ProximityResult) -> Table {
    Table::new(
        &[
            "ε",
            "OBB box tests",
            "AABB box tests",
            "AABB/OBB",
            "OBB tri tests",
            "AABB tri tests",
            "contacts",
        ],
        r.points
            .iter()
            .map(|p| {
                vec![
                    format!("{:.2e}", p.epsilon),
                    thousands(p.obb_box_tests),
                    thousands(p.aabb_box_tests),
                    format!("{:.2}", p.ratio),
                    thousands(p.obb_tri_tests),
                    thousands(p.aabb_tri_tests),
                    thousands(p.contacts),
                ]
            })
            .collect(),
    )
}
