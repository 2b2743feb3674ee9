//! Fuzzing the readers with proptest: arbitrary bytes, token soup built from each format's
//! vocabulary, and mutations of valid files. Every input must give a graph that passes
//! `Csr::check` or an error — never a panic, never an unchecked allocation.
//!
//! `ATOS_FUZZ_CASES` sets the cases per strategy (default 300, what CI runs); the long run
//! recorded in docs/results used `ATOS_FUZZ_CASES=200000`.

use atos_graph::format::{self, Contents, Format, ReadOptions};
use atos_graph::{BuildOptions, generate};
use proptest::prelude::*;
use proptest::test_runner::Config;

fn config() -> Config {
    let cases = std::env::var("ATOS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Runs every reader on `bytes`; any panic fails the property.
fn read_all(bytes: &[u8]) {
    let opts = ReadOptions {
        max_bytes: 16 << 20,
        ..ReadOptions::default()
    };
    for f in Format::ALL {
        match format::read(bytes, "fuzz", bytes.len() as u64, f, &opts) {
            Ok(Contents::Edges(p)) => {
                let n = p.edges.num_vertices;
                let build = BuildOptions {
                    symmetrize: p.symmetric,
                    ..BuildOptions::default()
                };
                let (g, _) = p.edges.into_csr(build).unwrap_or_else(|e| {
                    panic!("{f}: the reader accepted edges the builder rejects: {e}")
                });
                assert_eq!(g.num_vertices(), n as usize);
                g.check().unwrap();
            }
            Ok(Contents::Graph(g)) => g.check().unwrap(),
            Err(e) => {
                // Errors must name the input.
                assert!(e.to_string().starts_with("fuzz"), "{f}: {e}");
            }
        }
    }
}

const VOCABULARY: &[&str] = &[
    "%%MatrixMarket",
    "matrix",
    "coordinate",
    "array",
    "pattern",
    "integer",
    "real",
    "complex",
    "general",
    "symmetric",
    "skew-symmetric",
    "hermitian",
    "%",
    "#",
    "c",
    "p",
    "sp",
    "a",
    "0",
    "1",
    "2",
    "3",
    "7",
    "-1",
    "+4",
    "0.5",
    "1e40",
    "nan",
    "inf",
    "4294967295",
    "4294967296",
    "99999999999999999999",
    "18446744073709551615",
    " ",
    "  ",
    "\t",
    ",",
    "\n",
    "\n",
    "\n",
    "\r\n",
    "\r",
    "\u{00e9}",
    "\0",
];

fn token_soup() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(VOCABULARY), 0..120)
        .prop_map(|toks| toks.concat().into_bytes())
}

/// Valid inputs of every format, to mutate.
fn seeds() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![
        b"%%MatrixMarket matrix coordinate pattern symmetric\n% c\n4 4 3\n2 1\n3 1\n4 3\n".to_vec(),
        b"%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 5\n2 3 6\n3 1 7\n".to_vec(),
        b"%%MatrixMarket matrix coordinate real general\n3 2 2\n1 2 0.5\n3 1 -2e-3\n".to_vec(),
        b"# snap\n0\t1\n1\t2\n2\t0\n".to_vec(),
        b"1,2,3.5\n2,3,1\n".to_vec(),
        b"c dimacs\np sp 3 3\na 1 2 4\na 2 3 5\na 3 1 6\n".to_vec(),
    ];
    let g = generate::from_spec("grid:3x3,w=9").unwrap();
    let unweighted = atos_graph::Csr {
        weights: None,
        ..g.clone()
    };
    for (graph, f) in [(&g, Format::Acsr), (&unweighted, Format::AtosCsr)] {
        let mut b = Vec::new();
        format::write(graph, &mut b, f).unwrap();
        out.push(b);
    }
    out
}

#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    Truncate(usize),
    Repeat(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
        (
            any::<usize>(),
            prop::sample::select(b"0123456789 \n-.,%#ape".to_vec())
        )
            .prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Remove),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), 1usize..16).prop_map(|(i, k)| Edit::Repeat(i, k)),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len().max(1);
        match *e {
            Edit::Set(i, b) if !bytes.is_empty() => bytes[i % len] = b,
            Edit::Insert(i, b) => bytes.insert(i % (bytes.len() + 1), b),
            Edit::Remove(i) if !bytes.is_empty() => {
                bytes.remove(i % len);
            }
            Edit::Truncate(i) => bytes.truncate(i % (bytes.len() + 1)),
            Edit::Repeat(i, k) if !bytes.is_empty() => {
                let at = i % len;
                let end = (at + k).min(bytes.len());
                let piece = bytes[at..end].to_vec();
                bytes.splice(at..at, piece);
            }
            _ => {}
        }
    }
    bytes
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        read_all(&bytes);
    }

    #[test]
    fn token_soups(bytes in token_soup()) {
        read_all(&bytes);
    }

    #[test]
    fn mutated_valid_files(seed in prop::sample::select(seeds()), edits in prop::collection::vec(edit(), 1..6)) {
        read_all(&apply(seed, &edits));
    }
}
