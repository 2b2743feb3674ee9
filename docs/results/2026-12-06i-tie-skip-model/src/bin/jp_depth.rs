//! The depth Jones and Plassmann's colouring would need on the hubs: the longest chain, in the
//! tie order (larger degree, then smaller id, first), of vertices above BIG each joined to the
//! one before. A vertex colours only once every earlier neighbour has, so the chain's vertices
//! colour one after another. Usage: `jp_depth GRAPH BIG`; prints the vertices above BIG, the
//! longest chain, and how many vertices sit at each depth (in steps of 50).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: jp_depth GRAPH BIG");
        std::process::exit(2);
    }
    let g = atos_graph::load(&args[1]).expect("a graph spec or file");
    let big: u64 = args[2].parse().expect("BIG: a degree");
    let n = g.num_vertices();
    let deg: Vec<u64> = (0..n as u32).map(|v| g.degree(v)).collect();
    let first = |u: u32, v: u32| {
        let (du, dv) = (deg[u as usize], deg[v as usize]);
        du > dv || (du == dv && u < v)
    };
    let mut hubs: Vec<u32> = (0..n as u32).filter(|&v| deg[v as usize] > big).collect();
    hubs.sort_by_key(|&v| (std::cmp::Reverse(deg[v as usize]), v));
    // In tie order every earlier neighbour's depth is known when a vertex is reached.
    let mut depth = vec![0u32; n];
    let mut at = std::collections::BTreeMap::new();
    for &v in &hubs {
        let d = g
            .neighbors(v)
            .iter()
            .filter(|&&u| u != v && deg[u as usize] > big && first(u, v))
            .map(|&u| depth[u as usize] + 1)
            .max()
            .unwrap_or(0);
        depth[v as usize] = d;
        *at.entry(d / 50 * 50).or_insert(0u32) += 1;
    }
    let longest = hubs.iter().map(|&v| depth[v as usize] + 1).max().unwrap_or(0);
    println!(
        "{} big {big}: {} vertices above, longest chain {longest}; vertices by depth (steps of 50): {at:?}",
        args[1],
        hubs.len()
    );
}
