//! The five real graphs in ../shared/data: each loads with the counts its README states, and
//! every reference and validator runs on it.

use std::path::PathBuf;

use atos_graph::format::{self, Format};
use atos_graph::reference::{bfs, coloring, components, pagerank, sssp};
use atos_graph::{Csr, LoadOptions, load_with, stats};

fn shared_data() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    p.is_dir().then_some(p)
}

/// File, vertices and edge lines, from ../shared/data/README.md.
const FILES: [(&str, usize, u64); 5] = [
    ("luxembourg_osm.edges", 114_599, 119_666),
    ("delaunay_n16.edges", 65_536, 196_575),
    ("facebook_combined.edges", 4_039, 88_234),
    ("chesapeake.mtx", 39, 170),
    ("bips98_606.mtx", 7_135, 34_738),
];

fn each_file(mut f: impl FnMut(&str, Csr)) {
    let Some(dir) = shared_data() else {
        eprintln!("skipping: ../shared/data is absent");
        return;
    };
    for (file, vertices, lines) in FILES {
        let path = dir.join(file);
        let loaded = load_with(&path.to_string_lossy(), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loaded.graph.num_vertices(), vertices, "{file}");
        assert_eq!(loaded.report.unwrap().input_edges, lines, "{file}");
        f(file, loaded.graph);
    }
}

#[test]
fn files_load_with_stated_counts_as_valid_symmetric_graphs() {
    each_file(|file, g| {
        g.check().unwrap();
        assert!(g.is_sorted() && g.is_symmetric(), "{file}");
        let s = stats::stats(&g, 4);
        assert_eq!(s.self_loops, 0, "{file}");
        assert!(s.diameter_lower_bound > 0, "{file}");
    });
}

#[test]
fn binary_formats_round_trip_the_real_files() {
    let dir = std::env::temp_dir().join(format!("atos-graph-shared-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    each_file(|file, g| {
        let unweighted = Csr {
            weights: None,
            ..g.clone()
        };
        for (ext, graph) in [("acsr", &g), ("csr", &unweighted)] {
            let path = dir.join(format!("{file}.{ext}"));
            format::write_file(graph, &path, None).unwrap();
            let back = atos_graph::load(&path.to_string_lossy()).unwrap();
            assert_eq!(&back, graph, "{file} via .{ext}");
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn references_pass_their_validators_on_real_files() {
    each_file(|file, g| {
        let n = g.num_vertices() as u32;
        for source in [0, n / 2, n - 1] {
            let t = bfs::bfs(&g, source);
            bfs::validate_tree(&g, source, &t.parent).unwrap_or_else(|e| panic!("{file}: {e}"));
            bfs::validate_depths(&g, source, &t.depth).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        let c = components::connected_components(&g);
        assert_eq!(
            components::validate_components(&g, &c.label),
            Ok(c.count),
            "{file}"
        );
        for order in [
            coloring::ColoringOrder::Natural,
            coloring::ColoringOrder::LargestFirst,
        ] {
            let colors = coloring::greedy_coloring(&g, order);
            coloring::validate_coloring(&g, &colors).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        let opts = pagerank::PageRankOptions {
            tolerance: 1e-10,
            ..Default::default()
        };
        let push = pagerank::pagerank_push(&g, opts);
        let power = pagerank::pagerank_power(&g, opts);
        let e = pagerank::rank_error(&push.rank, &power.rank).unwrap();
        assert!(e.l1_rel < 1e-6, "{file}: {e:?}");
    });
}

#[test]
fn sssp_on_real_files() {
    each_file(|file, g| match file {
        // Power-system matrix: real weights, many negative.
        "bips98_606.mtx" => assert!(matches!(
            sssp::dijkstra(&g, 0),
            Err(sssp::SsspError::NegativeWeight { .. })
        )),
        "chesapeake.mtx" => assert_eq!(sssp::dijkstra(&g, 0), Err(sssp::SsspError::NoWeights)),
        _ => {
            // Through DIMACS (unit weights), shortest paths are BFS depths.
            let mut text = Vec::new();
            format::write(&g, &mut text, Format::Dimacs).unwrap();
            let Ok(format::Contents::Edges(p)) = format::read(
                &text[..],
                file,
                text.len() as u64,
                Format::Dimacs,
                &Default::default(),
            ) else {
                panic!("{file}: DIMACS did not read back")
            };
            let w = p.edges.into_csr(Default::default()).unwrap().0;
            let d = sssp::dijkstra(&w, 7).unwrap();
            sssp::validate_sssp(&w, 7, &d, 0.0).unwrap();
            let depth = bfs::bfs_depths(&g, 7);
            for (v, (&x, &h)) in d.iter().zip(&depth).enumerate() {
                let want = if h == bfs::UNREACHED {
                    f64::INFINITY
                } else {
                    f64::from(h)
                };
                assert_eq!(x, want, "{file}: vertex {v}");
            }
        }
    });
}
