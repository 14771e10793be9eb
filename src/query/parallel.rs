//! The all-contacts walk on several threads (rayon): a frontier of the recursion tree, grown
//! breadth-first, whose subtrees are walked side by side.

use super::contacts::Contacts;
use super::walk::{Below, Parent, Walk};
use super::{CollisionReport, QueryOptions};
use crate::bv::BoundingVolume;
use crate::bvh::Bvh;
use crate::math::{Matrix3, Vector};
use rayon::prelude::*;

/// An item of the frontier.
#[derive(Clone, Copy)]
enum Frontier {
    /// A node pair not yet tested, and how it came about.
    Pair(usize, usize, Parent),
    /// Two leaves (nodes of A, B) whose volumes overlap: their triangles are to be tested.
    Leaves(usize, usize),
}

/// The work kept on the calling thread: about 30 µs of box tests.
const SEQUENTIAL_BOX_TESTS: u64 = 2000;

/// The all-contacts query on the threads of the current rayon pool: the same contacts in the
/// same order and the same counts as on one thread ([`super::CollideWith::parallel`]).
///
/// The recursion tree is expanded breadth-first, each pair tested once as the walk tests it,
/// until its frontier holds at least 16 pairs per thread. The calling thread walks the first
/// subtrees of the frontier until the query has made 2,000 box tests; the rest is walked in
/// parallel, and the reports are concatenated in frontier order, which is the walk's
/// depth-first order. Worth it for deep overlaps only (docs/performance.md, "threads").
pub(super) fn collide<B: BoundingVolume>(
    a: &Bvh<B>,
    b: &Bvh<B>,
    rot_ab: &Matrix3,
    pos_ab: &Vector,
    options: &QueryOptions,
    report: &mut CollisionReport,
) {
    let threads = rayon::current_num_threads();
    let mut contacts = Contacts::with_storage(false, None, std::mem::take(&mut report.contacts));
    contacts.contacts.clear();
    let mut w = Walk::new(a, b, rot_ab, pos_ab, &options.overlap, 0.0, false);
    let rest = if threads < 2 || w.far() {
        w.root(&mut contacts);
        Vec::new()
    } else {
        let mut frontier = grow(
            &mut w,
            vec![Frontier::Pair(0, 0, Parent::None)],
            16 * threads,
        );
        // The first subtrees are walked here until the query has made SEQUENTIAL_BOX_TESTS box
        // tests, so that a small query does not pay for handing work to other threads.
        let mut done = 0;
        while done < frontier.len() && w.counts().bv_tests < SEQUENTIAL_BOX_TESTS {
            item(&mut w, &mut contacts, frontier[done]);
            done += 1;
        }
        frontier.drain(..done);
        frontier
    };
    let counts = w.counts();
    report.contacts = contacts.contacts;
    report.bv_tests = counts.bv_tests;
    report.tri_tests = counts.tri_tests;
    if rest.is_empty() {
        return;
    }
    let chunk = rest.len().div_ceil(4 * threads).max(1);
    let parts: Vec<CollisionReport> = rest
        .par_chunks(chunk)
        .map(|items| {
            let mut contacts = Contacts::with_storage(false, None, Vec::new());
            let mut w = Walk::new(a, b, rot_ab, pos_ab, &options.overlap, 0.0, false);
            for &it in items {
                item(&mut w, &mut contacts, it);
            }
            let counts = w.counts();
            CollisionReport {
                contacts: contacts.contacts,
                normals: Vec::new(),
                bv_tests: counts.bv_tests,
                tri_tests: counts.tri_tests,
            }
        })
        .collect();
    for part in parts {
        report.contacts.extend_from_slice(&part.contacts);
        report.bv_tests += part.bv_tests;
        report.tri_tests += part.tri_tests;
    }
}

/// Expands `frontier` breadth-first (each pair tested once, as the walk tests it; the order
/// stays the walk's depth-first order) until it holds at least `target` items or only leaves
/// are left.
fn grow<B: BoundingVolume>(
    w: &mut Walk<'_, B>,
    mut frontier: Vec<Frontier>,
    target: usize,
) -> Vec<Frontier> {
    while !frontier.is_empty() && frontier.len() < target {
        let mut next = Vec::with_capacity(2 * frontier.len());
        let mut grew = false;
        for it in frontier {
            match it {
                Frontier::Pair(x, y, parent) => match w.expand(x, y, parent) {
                    Below::Nothing => {}
                    Below::Leaves(x, y) => next.push(Frontier::Leaves(x, y)),
                    Below::Pairs(p, split) => {
                        grew = true;
                        next.extend(p.map(|(x, y)| Frontier::Pair(x, y, split)));
                    }
                },
                leaves => next.push(leaves),
            }
        }
        frontier = next;
        if !grew {
            break;
        }
    }
    frontier
}

/// Walks one item of the frontier.
fn item<B: BoundingVolume>(w: &mut Walk<'_, B>, contacts: &mut Contacts<'_>, it: Frontier) {
    match it {
        Frontier::Pair(x, y, parent) => {
            w.pair(contacts, x, y, None, parent);
        }
        Frontier::Leaves(x, y) => {
            w.leaves(contacts, x as u32, y as u32);
        }
    }
}
