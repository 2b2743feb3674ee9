//! A unit calling every `Atomics` entry (`atos_codegen::ops::ATOMICS`) on every element type it
//! admits: compiled by NVRTC (`tests/nvrtc_compile.rs`) and device-linked for NVSHMEM calls
//! (`tests/nvshmem_link.rs`).

use atos::codegen::Scalar;
use atos::codegen::ops::AtomicReturns;

/// The unit and how many (entry, type, target) calls it makes. `system`: at system scope (a
/// spread unit's), where each `by_field` entry is called on a plain pointer and on an
/// `atos::Spread` field as well. Every result flows out, so no call is compiled away.
pub fn every_atomic_source(system: bool) -> (String, usize) {
    let mut src = if system {
        String::from(
            "#define ATOS_SYSTEM_SCOPE 1\n#include <atos/prelude.cuh>\n#include <atos/layout.cuh>\n#include <atos/queue.cuh>\n#include <atos/worker.cuh>\n#include <atos/mesh.cuh>\n\n",
        )
    } else {
        String::from("#include <atos/prelude.cuh>\n#include <atos/layout.cuh>\n\n")
    };
    let mut calls = 0;
    for (i, ty) in Scalar::ALL.iter().enumerate() {
        let t = ty.cuda_name();
        src.push_str(&format!(
            "extern \"C\" __global__ void every_atomic_{i}({t}* p, const atos::SpreadParts parts, {t} a, {t} b, {t}* out) {{\n"
        ));
        if system && atos::codegen::ops::Receivers::Num.take(*ty) {
            src.push_str(&format!("    atos::Spread<{t}> spread{{parts}};\n"));
        } else {
            src.push_str("    (void)parts;\n");
        }
        for d in atos::codegen::ops::ATOMICS {
            if !d.elems.take(*ty) {
                continue;
            }
            let values = ["a", "b"][..d.values].join(", ");
            let targets = if d.by_field && system {
                vec!["p, threadIdx.x", "spread, threadIdx.x"]
            } else if d.by_field {
                vec!["p, threadIdx.x"]
            } else {
                vec!["p + threadIdx.x"]
            };
            for target in targets {
                let args = if values.is_empty() {
                    target.to_string()
                } else {
                    format!("{target}, {values}")
                };
                let call = format!("atos::{}({args})", d.cuda);
                src.push_str(&match d.returns {
                    AtomicReturns::Previous => format!("    out[threadIdx.x] = {call};\n"),
                    AtomicReturns::Moved => format!("    out[threadIdx.x] = ({t}){call};\n"),
                    AtomicReturns::Nothing => format!("    {call};\n"),
                });
                calls += 1;
                if let Some(red) = d.discarded {
                    src.push_str(&format!("    atos::{red}({args});\n"));
                    calls += 1;
                }
            }
        }
        src.push_str("}\n");
    }
    // The `red` forms take their type from the element pointer: a value of another type
    // converts, as it does for the `atomic_fetch_*` overloads.
    src.push_str(
        "extern \"C\" __global__ void red_values_convert(int64_t* p, float* q, uint16_t* r) {\n    atos::atomic_reduce_add(p, 1u);\n    atos::atomic_reduce_max(q, 2);\n    atos::atomic_reduce_or(r, 1);\n}\n",
    );
    (src, calls)
}
