//! Readers and writers: what each format accepts, round trips through every writer, and an
//! error with file, line and reason for each kind of bad input.

use atos_graph::format::{self, Contents, Format, ReadError, ReadOptions};
use atos_graph::{Base, BuildOptions, Csr, Weights, generate};

fn opts() -> ReadOptions {
    ReadOptions {
        max_bytes: 64 << 20,
        ..ReadOptions::default()
    }
}

fn read(format: Format, text: &[u8], o: &ReadOptions) -> Result<Contents, ReadError> {
    format::read(text, "input", text.len() as u64, format, o)
}

/// Reads and builds with the default (undirected, simple) options.
fn graph(format: Format, text: &[u8], o: &ReadOptions) -> Result<Csr, ReadError> {
    Ok(match read(format, text, o)? {
        Contents::Graph(g) => g,
        Contents::Edges(p) => {
            let build = BuildOptions {
                symmetrize: true,
                ..BuildOptions::default()
            };
            p.edges.into_csr(build).unwrap().0
        }
    })
}

fn err(format: Format, text: &[u8]) -> String {
    err_with(format, text, &opts())
}

fn err_with(format: Format, text: &[u8], o: &ReadOptions) -> String {
    match read(format, text, o) {
        Ok(_) => panic!(
            "{format} input was accepted:\n{}",
            String::from_utf8_lossy(text)
        ),
        Err(e) => e.to_string(),
    }
}

#[test]
fn matrix_market_fields_and_symmetry() {
    let sym =
        b"%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n\n3 3 2\n2 1\n3 2\n";
    let Contents::Edges(p) = read(Format::MatrixMarket, sym, &opts()).unwrap() else {
        panic!()
    };
    assert!(p.symmetric);
    assert_eq!(
        (p.edges.num_vertices, p.edges.pairs.clone()),
        (3, vec![[1, 0], [2, 1]])
    );
    let int = b"%%MatrixMarket matrix coordinate integer general\r\n2 3 2\r\n1 3 7\r\n2 1 4\r\n";
    let g = graph(Format::MatrixMarket, int, &opts()).unwrap();
    assert_eq!(g.num_vertices(), 3);
    assert_eq!(g.weights, Some(Weights::U32(vec![4, 7, 4, 7])));
    let real = b"%%MatrixMarket MATRIX Coordinate REAL General\n2 2 1\n1 2 -2.5e-1\n";
    assert_eq!(
        graph(Format::MatrixMarket, real, &opts()).unwrap().weights,
        Some(Weights::F32(vec![-0.25, -0.25]))
    );
    let no_w = ReadOptions {
        weights: false,
        ..opts()
    };
    assert_eq!(
        graph(Format::MatrixMarket, real, &no_w).unwrap().weights,
        None
    );
}

#[test]
fn edge_lists_separators_bases_and_weights() {
    let snap = b"# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n";
    let Contents::Edges(p) = read(Format::EdgeList, snap, &opts()).unwrap() else {
        panic!()
    };
    assert_eq!((p.base, p.edges.num_vertices), (0, 3));
    let one = b"% 1-based\n1,2\n2 , 3\n";
    let Contents::Edges(p) = read(Format::EdgeList, one, &opts()).unwrap() else {
        panic!()
    };
    assert_eq!(
        (p.base, p.edges.num_vertices, p.edges.pairs.clone()),
        (1, 3, vec![[0, 1], [1, 2]])
    );
    let forced = ReadOptions {
        base: Base::Zero,
        ..opts()
    };
    let Contents::Edges(p) = read(Format::EdgeList, one, &forced).unwrap() else {
        panic!()
    };
    assert_eq!((p.base, p.edges.num_vertices), (0, 4));
    // Integer weights stay u32 until a real one appears; then the column is f32.
    let Contents::Edges(p) = read(Format::EdgeList, b"0 1 5\n1 2 7\n", &opts()).unwrap() else {
        panic!()
    };
    assert_eq!(p.edges.weights, Some(Weights::U32(vec![5, 7])));
    let Contents::Edges(p) = read(Format::EdgeList, b"0 1 5\n1 2 0.5\n", &opts()).unwrap() else {
        panic!()
    };
    assert_eq!(p.edges.weights, Some(Weights::F32(vec![5.0, 0.5])));
    let Contents::Edges(p) = read(Format::EdgeList, b"", &opts()).unwrap() else {
        panic!()
    };
    assert_eq!(p.edges.num_vertices, 0);
}

#[test]
fn dimacs_arcs() {
    let gr = b"c road\np sp 3 3\nc between\na 1 2 10\na 2 1 10\na 2 3 4\n";
    let Contents::Edges(p) = read(Format::Dimacs, gr, &opts()).unwrap() else {
        panic!()
    };
    assert_eq!(p.edges.num_vertices, 3);
    assert_eq!(p.edges.weights, Some(Weights::U32(vec![10, 10, 4])));
    let g = graph(Format::Dimacs, gr, &opts()).unwrap();
    assert_eq!(g.cols, vec![1, 0, 2, 1]);
    assert_eq!(g.weights, Some(Weights::U32(vec![10, 10, 4, 4])));
}

#[test]
fn duplicates_keep_the_smallest_weight() {
    let text = b"0 1 9\n0 1 3\n1 0 5\n";
    let Contents::Edges(p) = read(Format::EdgeList, text, &opts()).unwrap() else {
        panic!()
    };
    let (g, report) = p.edges.into_csr(BuildOptions::default()).unwrap();
    assert_eq!(g.weights, Some(Weights::U32(vec![3, 3])));
    assert_eq!((report.mirrored, report.duplicates_dropped), (3, 4));
}

fn f32_weighted(g: &Csr) -> Csr {
    let Some(Weights::U32(w)) = &g.weights else {
        panic!("needs u32 weights")
    };
    Csr {
        weights: Some(Weights::F32(w.iter().map(|&x| x as f32 / 4.0).collect())),
        ..g.clone()
    }
}

/// Every writer's output reads back as the same graph.
#[test]
fn round_trips_through_every_format() {
    let grid = generate::from_spec("grid:23x17,drop=0.1,w=1000").unwrap();
    let kron = generate::from_spec("kron:9,w=50").unwrap();
    let unweighted = Csr {
        weights: None,
        ..grid.clone()
    };
    let zero_based = ReadOptions {
        base: Base::Zero,
        ..opts()
    };
    for (name, g) in [
        ("grid", &grid),
        ("kron", &kron),
        ("unweighted", &unweighted),
        ("f32", &f32_weighted(&grid)),
    ] {
        for format in Format::ALL {
            let mut bytes = Vec::new();
            match format::write(g, &mut bytes, format) {
                Ok(()) => {}
                // Formats that cannot hold this graph must say so, not write something else.
                Err(e) => {
                    assert!(
                        matches!(
                            (format, &g.weights),
                            (Format::AtosCsr, Some(_)) | (Format::Dimacs, Some(Weights::F32(_)))
                        ),
                        "{name} as {format}: {e}"
                    );
                    continue;
                }
            }
            let mut back = graph(format, &bytes, &zero_based)
                .unwrap_or_else(|e| panic!("{name} as {format}: {e}"));
            if format == Format::Dimacs && g.weights.is_none() {
                back.weights = None; // DIMACS writes weight 1 when there is none
            }
            if format == Format::EdgeList && back.num_vertices() < g.num_vertices() {
                // An edge list cannot mention trailing isolated vertices.
                let n = back.num_vertices();
                assert!(
                    (n..g.num_vertices()).all(|v| g.degree(v as u32) == 0),
                    "{name}"
                );
                back.offsets
                    .resize(g.num_vertices() + 1, back.num_edges() as u64);
            }
            assert_eq!(&back, g, "{name} through {format}");
        }
    }
}

#[test]
fn matrix_market_errors_name_the_line() {
    let mm = Format::MatrixMarket;
    let h = "%%MatrixMarket matrix coordinate pattern general\n";
    let cases: &[(&str, &str)] = &[
        ("", "input:1: empty file"),
        ("3 3 1\n1 2\n", "input:1: expected the header"),
        (
            "%%MatrixMarket matrix array real general\n2 2\n",
            "`array` matrices are dense",
        ),
        (
            "%%MatrixMarket matrix coordinate complex general\n",
            "`complex` values",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern sideways\n",
            "input:1: unknown symmetry `sideways`",
        ),
        (
            "%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n",
            "skew-symmetric values change sign",
        ),
        (&format!("{h}% only comments\n"), "no size line"),
        (
            &format!("{h}3 3\n"),
            "input:2: expected the size line `rows cols entries`, found 2 fields",
        ),
        (
            &format!("{h}3 x 1\n1 2\n"),
            "input:2: cols `x` is not a non-negative integer",
        ),
        (
            &format!("{h}3 3 2\n1 2\n1 q\n"),
            "input:4: column `q` is not a positive integer",
        ),
        (
            &format!("{h}3 3 1\n1 4\n"),
            "input:3: column 4 is outside 1..=3",
        ),
        (
            &format!("{h}3 3 1\n0 1\n"),
            "input:3: row 0 is outside 1..=3",
        ),
        (
            &format!("{h}3 3 1\n1 2\n2 3\n"),
            "input:4: more entries than the 1 the size line (line 2) declares",
        ),
        (
            &format!("{h}3 3 3\n1 2\n2 3\n"),
            "declares 3 entries but the file ends after 2",
        ),
        (
            &format!("{h}3 3 1\n1 2 5\n"),
            "input:3: 3 fields; entries of this pattern matrix are `row col`",
        ),
        (
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2\n",
            "input:3: 2 fields; entries of this integer matrix are `row col value`",
        ),
        (
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -3\n",
            "input:3: value -3 is negative",
        ),
        (
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 nan\n",
            "input:3: weight `nan` is not a finite number",
        ),
        (
            &format!("{h}3 3 999999999\n1 2\n"),
            "input:2: the size line declares 999999999 entries, but a",
        ),
        (&format!("{h}99999999999 2 0\n"), "do not fit u32 ids"),
    ];
    for (text, want) in cases {
        let got = err(mm, text.as_bytes());
        assert!(
            got.contains(want),
            "input:\n{text}\nerror: {got}\nwanted: {want}"
        );
    }
    // A header claiming billions of vertices is refused by the memory limit, not allocated.
    let big = format!("{h}4000000000 4000000000 0\n");
    let got = err(mm, big.as_bytes());
    assert!(got.contains("more than the 64.0 MiB limit"), "{got}");
}

#[test]
fn edge_list_errors_name_the_line() {
    let el = Format::EdgeList;
    let cases: &[(&str, &str)] = &[
        (
            "0 1\n7\n",
            "input:2: 1 fields, but the first edge line (line 1) has 2",
        ),
        (
            "# c\n1 2 3 4\n",
            "input:2: 4 fields; expected `u v` or `u v weight`",
        ),
        (
            "0 1 2\n1 2\n",
            "input:2: 2 fields, but the first edge line (line 1) has 3",
        ),
        (
            "0 1\nx 2\n",
            "input:2: vertex id `x` is not a non-negative integer",
        ),
        ("0 -1\n", "input:1: vertex id `-1` is not"),
        (
            "0 99999999999\n",
            "input:1: vertex id 99999999999 is too large",
        ),
        (
            "0 1 heavy\n",
            "input:1: weight `heavy` is not a finite number",
        ),
        ("0 1 inf\n", "input:1: weight `inf` is not a finite number"),
        ("0 4294967295\n", "make 4294967296 vertices"),
    ];
    for (text, want) in cases {
        let got = err(el, text.as_bytes());
        assert!(
            got.contains(want),
            "input:\n{text}\nerror: {got}\nwanted: {want}"
        );
    }
    let one = ReadOptions {
        base: Base::One,
        ..opts()
    };
    assert!(
        err_with(el, b"1 2\n0 1\n", &one)
            .contains("input:2: vertex id 0 in a file read as 1-based")
    );
    let tiny = ReadOptions {
        max_bytes: 1 << 20,
        ..opts()
    };
    assert!(err_with(el, b"0 3000000000\n", &tiny).contains("limit"));
    let long = vec![b'1'; (1 << 20) + 100];
    assert!(err(el, &long).contains("input:1: line is longer than"));
}

#[test]
fn dimacs_errors_name_the_line() {
    let cases: &[(&str, &str)] = &[
        ("c x\na 1 2 3\n", "input:2: arc before the problem line"),
        (
            "p max 3 1\n",
            "input:1: expected the problem line `p sp <nodes> <arcs>`",
        ),
        (
            "p sp 3 1\np sp 3 1\n",
            "input:2: a second problem line (the first is line 1)",
        ),
        ("p sp 3 1\na 1 4 1\n", "input:2: node 4 is outside 1..=3"),
        (
            "p sp 3 1\na 1 2\n",
            "input:2: 3 fields; an arc is `a <u> <v> <weight>`",
        ),
        (
            "p sp 3 1\na 1 2 -4\n",
            "input:2: weight `-4` is not an integer",
        ),
        ("p sp 3 1\nx 1 2 4\n", "input:2: unknown line type `x`"),
        ("p sp 3 2\na 1 2 4\n", "declares 2 arcs but the file has 1"),
        (
            "p sp 3 1\na 1 2 4\na 2 3 1\n",
            "input:3: more arcs than the 1",
        ),
        ("c only comments\n", "no problem line"),
        (
            "p sp 3 1000000\na 1 2 4\n",
            "input:1: the problem line declares 1000000 arcs, but a",
        ),
    ];
    for (text, want) in cases {
        let got = err(Format::Dimacs, text.as_bytes());
        assert!(
            got.contains(want),
            "input:\n{text}\nerror: {got}\nwanted: {want}"
        );
    }
}

fn acsr_bytes(g: &Csr) -> Vec<u8> {
    let mut b = Vec::new();
    format::write(g, &mut b, Format::Acsr).unwrap();
    b
}

#[test]
fn binary_cache_refuses_damaged_files() {
    let g = generate::from_spec("kron:8,w=20").unwrap();
    let good = acsr_bytes(&g);
    assert!(
        matches!(read(Format::Acsr, &good, &opts()), Ok(Contents::Graph(ref back)) if *back == g)
    );

    let truncated = &good[..good.len() - 9];
    assert!(matches!(
        read(Format::Acsr, truncated, &opts()),
        Err(ReadError::Truncated { .. })
    ));
    assert!(matches!(
        read(Format::Acsr, &good[..20], &opts()),
        Err(ReadError::Truncated { .. })
    ));
    let mut padded = good.clone();
    padded.push(0);
    assert!(err(Format::Acsr, &padded).contains("1 bytes after the end"));

    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x10;
    assert!(matches!(
        read(Format::Acsr, &flipped, &opts()),
        Err(ReadError::Checksum { .. })
    ));

    let mut magic = good.clone();
    magic[0] = b'X';
    assert!(err(Format::Acsr, &magic).contains("not an atos CSR file"));
    let mut version = good.clone();
    version[8] = 9;
    assert!(err(Format::Acsr, &version).contains("format version 9"));

    // A header declaring 2^40 entries cannot match the file length: refused before allocation.
    let mut absurd = good.clone();
    absurd[24..32].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(matches!(
        read(Format::Acsr, &absurd, &opts()),
        Err(ReadError::Truncated { .. })
    ));

    // A well-formed, correctly checksummed file whose arrays do not form a CSR.
    let mut broken = g.clone();
    broken.cols[3] = 10_000;
    let got = err(Format::Acsr, &acsr_bytes(&broken));
    assert!(
        got.contains("inconsistent") && got.contains("outside 0..256"),
        "{got}"
    );
}

#[test]
fn atos_csr_layout_is_checked() {
    let g = generate::from_spec("grid:9x7").unwrap();
    let mut good = Vec::new();
    format::write(&g, &mut good, Format::AtosCsr).unwrap();
    assert_eq!(good.len(), 8 + 4 * (63 + 1) + 4 * g.num_edges());
    assert_eq!(&good[..4], &63i32.to_le_bytes());
    assert!(matches!(
        read(Format::AtosCsr, &good[..good.len() - 1], &opts()),
        Err(ReadError::Truncated { .. })
    ));
    let mut negative = good.clone();
    negative[4..8].copy_from_slice(&(-5i32).to_le_bytes());
    assert!(err(Format::AtosCsr, &negative).contains("cannot be negative"));
    let mut bad_col = good.clone();
    let last = bad_col.len() - 4;
    bad_col[last..].copy_from_slice(&1000i32.to_le_bytes());
    assert!(err(Format::AtosCsr, &bad_col).contains("outside 0..63"));
    let mut bad_offset = good;
    bad_offset[8 + 4 * 10..8 + 4 * 11].copy_from_slice(&0i32.to_le_bytes());
    assert!(err(Format::AtosCsr, &bad_offset).contains("offsets decrease"));
}

#[test]
fn unwritable_graphs_are_refused_before_creating_the_file() {
    let dir = std::env::temp_dir().join(format!("atos-graph-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let weighted = generate::from_spec("grid:4x4,w=3").unwrap();
    let path = dir.join("g.csr");
    let e = format::write_file(&weighted, &path, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("the Atos layout has no weights"), "{e}");
    assert!(!path.exists());
    let path = dir.join("g.acsr");
    format::write_file(&weighted, &path, None).unwrap();
    let back = atos_graph::load(&path.to_string_lossy()).unwrap();
    assert_eq!(back, weighted);
    let missing = atos_graph::load(&dir.join("nope.mtx").to_string_lossy())
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("nope.mtx") && missing.contains("No such file"),
        "{missing}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `add_random_weights` gives a read graph what `w=MAX` gives a generated one: weights in
/// 1..=MAX, equal on both directions of every edge, and the generator's own for the same seed.
#[test]
fn added_weights_match_the_generators_and_are_symmetric() {
    let weighted = generate::from_spec("grid:9x7,w=40").unwrap();
    let mut plain = generate::from_spec("grid:9x7").unwrap();
    assert!(plain.weights.is_none());
    generate::add_random_weights(&mut plain, 40, 1);
    assert_eq!(plain, weighted, "seed 1 is the generator's default");
    let Some(atos_graph::Weights::U32(w)) = &plain.weights else {
        panic!("u32 weights expected");
    };
    for u in 0..plain.num_vertices() as u32 {
        for e in plain.edge_range(u) {
            let v = plain.cols[e];
            assert!((1..=40).contains(&w[e]));
            let back = plain.edge_range(v).find(|&f| plain.cols[f] == u).unwrap();
            assert_eq!(w[e], w[back], "{u} - {v}");
        }
    }
}
