//! Partitions of a graph's vertices over the devices of a multi-GPU run: contiguous vertex
//! ranges (the default), ranges balanced by edges, or a seeded random owner per vertex. The
//! runtime takes them as a placement (`atos::Placement::ranges` / `from_owners`); a user's own
//! owner map works the same way.

use std::fmt;
use std::str::FromStr;

use crate::csr::Csr;
use crate::generate::stream;

/// How vertices are split over devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// Contiguous ranges of (nearly) equal vertex counts.
    Vertices,
    /// Contiguous ranges of (nearly) equal out-edge counts: on skewed graphs (Kronecker) each
    /// device gets a similar share of the edge work.
    Edges,
    /// Each vertex on a device drawn from a seeded stream: balanced in expectation on any graph,
    /// with no locality.
    Random { seed: u64 },
}

/// The parts of a partition: range bounds, or an owner per vertex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parts {
    /// Device d holds vertices `[bounds[d], bounds[d + 1])`.
    Ranges(Vec<u64>),
    /// Vertex v is on device `owner[v]`.
    Owners(Vec<u8>),
}

impl Partition {
    /// The parts of `g`'s vertices over `devices` devices (1 to 255).
    pub fn parts(self, g: &Csr, devices: usize) -> Parts {
        assert!((1..=255).contains(&devices), "1 to 255 devices");
        let n = g.num_vertices() as u64;
        let d = devices as u64;
        match self {
            Partition::Vertices => {
                Parts::Ranges((0..=d).map(|k| k * (n / d) + k.min(n % d)).collect())
            }
            Partition::Edges => {
                let m = g.num_edges() as u64;
                let offsets = &g.offsets;
                // Bound k: the first vertex whose edges start at or past k/d of all edges.
                let mut bounds: Vec<u64> = (0..=d)
                    .map(|k| {
                        let target = (m * k).div_ceil(d);
                        offsets.partition_point(|&o| o < target) as u64
                    })
                    .collect();
                bounds[0] = 0;
                bounds[devices] = n;
                for k in 1..=devices {
                    bounds[k] = bounds[k].clamp(bounds[k - 1], n);
                }
                Parts::Ranges(bounds)
            }
            Partition::Random { seed } => Parts::Owners(
                (0..n)
                    .map(|v| stream(seed, v).below(devices as u32) as u8)
                    .collect(),
            ),
        }
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Partition::Vertices => write!(f, "vertices"),
            Partition::Edges => write!(f, "edges"),
            Partition::Random { seed } => write!(f, "random:{seed}"),
        }
    }
}

impl FromStr for Partition {
    type Err = String;
    /// `vertices`, `edges` or `random:SEED`.
    fn from_str(s: &str) -> Result<Partition, String> {
        match s {
            "vertices" => Ok(Partition::Vertices),
            "edges" => Ok(Partition::Edges),
            _ => match s.strip_prefix("random:").map(str::parse::<u64>) {
                Some(Ok(seed)) => Ok(Partition::Random { seed }),
                _ => Err(format!(
                    "unknown partition `{s}`: use `vertices` (equal vertex ranges), `edges` (ranges of equal edge counts) or `random:SEED`"
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::from_spec;

    fn star(n: u32) -> Csr {
        // Vertex 0 holds every edge.
        let mut offsets = vec![0u64; n as usize + 1];
        for o in offsets.iter_mut().skip(1) {
            *o = u64::from(n - 1);
        }
        Csr {
            offsets,
            cols: (1..n).collect(),
            ..Csr::empty(n)
        }
    }

    #[test]
    fn vertex_ranges_are_even() {
        let g = Csr::empty(10);
        assert_eq!(
            Partition::Vertices.parts(&g, 3),
            Parts::Ranges(vec![0, 4, 7, 10])
        );
    }

    #[test]
    fn edge_ranges_follow_the_edges() {
        let g = from_spec("grid:8x8").unwrap();
        let Parts::Ranges(b) = Partition::Edges.parts(&g, 4) else {
            panic!()
        };
        assert_eq!((b[0], b[4]), (0, 64));
        for k in 0..4 {
            let edges = g.offsets[b[k + 1] as usize] - g.offsets[b[k] as usize];
            assert!(
                (edges as i64 - g.num_edges() as i64 / 4).abs() <= 8,
                "{b:?}"
            );
        }
        // One vertex holding every edge: the other devices get empty ranges or the rest.
        let Parts::Ranges(b) = Partition::Edges.parts(&star(6), 3) else {
            panic!()
        };
        assert!(b.windows(2).all(|w| w[0] <= w[1]) && b[3] == 6, "{b:?}");
    }

    #[test]
    fn random_owners_are_seeded_and_in_range() {
        let g = Csr::empty(1000);
        let a = Partition::Random { seed: 5 }.parts(&g, 3);
        assert_eq!(a, Partition::Random { seed: 5 }.parts(&g, 3));
        let Parts::Owners(o) = a else { panic!() };
        for d in 0..3u8 {
            let c = o.iter().filter(|&&x| x == d).count();
            assert!((250..420).contains(&c), "{c}");
        }
    }

    #[test]
    fn partitions_parse_and_print() {
        for p in [
            Partition::Vertices,
            Partition::Edges,
            Partition::Random { seed: 9 },
        ] {
            assert_eq!(p.to_string().parse::<Partition>().unwrap(), p);
        }
        assert!(
            "blocks"
                .parse::<Partition>()
                .unwrap_err()
                .contains("random:SEED")
        );
    }
}
