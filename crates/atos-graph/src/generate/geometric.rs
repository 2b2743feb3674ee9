//! Random geometric graphs: points in the unit square, joined when closer than a radius.

use rayon::prelude::*;

use super::rng::stream;
use crate::build::{BuildOptions, BuildReport, EdgeList};
use crate::csr::Csr;

/// The grid of cells the points are bucketed in, per side: cells at least `r` wide (so a
/// point's neighbours lie in the 3x3 cells around its own), and no more cells than points:
/// with a small degree `1 / r` is large, and 2^30 mostly empty cells took 8 GB
/// (`geo:10,deg=0`). Which edges come out does not depend on the count.
fn cells_per_side(n: u32, r: f64) -> u32 {
    let enough = f64::from(n.max(1)).sqrt().ceil();
    ((1.0 / r).floor().min(enough) as u32).clamp(1, 1 << 15)
}

/// `n` uniform points; the radius is chosen so the expected degree (away from the border) is
/// `avg_degree`: pi r^2 n = avg_degree. Local, planar-like, moderate diameter.
pub fn geometric(n: u32, avg_degree: f64, seed: u64) -> (Csr, BuildReport) {
    let r = (avg_degree / (std::f64::consts::PI * f64::from(n.max(1)))).sqrt();
    let cells = cells_per_side(n, r);
    let point = |v: u32| {
        let mut rng = stream(seed, u64::from(v));
        (rng.next_f64(), rng.next_f64())
    };
    let cell_of = |(x, y): (f64, f64)| {
        let c = |t: f64| ((t * f64::from(cells)) as u32).min(cells - 1);
        (c(x), c(y))
    };
    // Bucket vertices by cell (counting sort), so neighbours are found in 3x3 cells.
    let cell_index = |(cx, cy): (u32, u32)| (cy * cells + cx) as usize;
    let mut start = vec![0u32; (cells * cells) as usize + 1];
    for v in 0..n {
        start[cell_index(cell_of(point(v))) + 1] += 1;
    }
    for c in 0..(cells * cells) as usize {
        start[c + 1] += start[c];
    }
    let mut fill = start.clone();
    let mut members = vec![0u32; n as usize];
    for v in 0..n {
        let c = cell_index(cell_of(point(v)));
        members[fill[c] as usize] = v;
        fill[c] += 1;
    }
    let r2 = r * r;
    let pairs: Vec<(u32, u32)> = (0..n)
        .into_par_iter()
        .flat_map_iter(|u| {
            let pu = point(u);
            let (cx, cy) = cell_of(pu);
            let mut out = Vec::new();
            for ny in cy.saturating_sub(1)..=(cy + 1).min(cells - 1) {
                for nx in cx.saturating_sub(1)..=(cx + 1).min(cells - 1) {
                    let c = cell_index((nx, ny));
                    for &v in &members[start[c] as usize..start[c + 1] as usize] {
                        let pv = point(v);
                        let (dx, dy) = (pu.0 - pv.0, pu.1 - pv.1);
                        if u < v && dx * dx + dy * dy < r2 {
                            out.push((u, v));
                        }
                    }
                }
            }
            out
        })
        .collect();
    let mut edges = EdgeList::new(n);
    edges.pairs = pairs.into_iter().map(|(u, v)| [u, v]).collect();
    edges
        .into_csr(BuildOptions::default())
        .expect("generated ids are in range")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_at_least_a_radius_wide_and_no_more_than_the_points() {
        // deg=0: r = 0, 1 / r infinite; 10 points need 4 x 4 cells at most.
        assert_eq!(cells_per_side(10, 0.0), 4);
        assert_eq!(cells_per_side(0, 0.0), 1);
        // A radius of a quarter: 4 cells a side, however many points.
        assert_eq!(cells_per_side(1 << 20, 0.25), 4);
        // Every cell at least r wide.
        for (n, r) in [(4_000_000, 0.00113), (50_000, 0.0044), (7, 0.9)] {
            let c = cells_per_side(n, r);
            assert!(1.0 / f64::from(c) >= r, "{n} {r}: {c}");
        }
    }
}
