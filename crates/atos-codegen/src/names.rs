//! Canonical C++ names for Rust bindings: deterministic, collision-free, never a C++ keyword.

use std::collections::HashMap;

/// C++ keywords and CUDA built-ins a Rust identifier could spell.
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "explicit",
    "export",
    "extern",
    "float",
    "friend",
    "goto",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "xor",
    "xor_eq",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "atos",
    "worker",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "main",
    "printf",
    "assert",
];

/// Hands out one C++ name per Rust binding within a function, renaming shadowed bindings
/// `x`, `x_1`, `x_2`, ... in order of appearance so snapshots stay stable.
#[derive(Debug, Default)]
pub struct NameTable {
    used: HashMap<String, u32>,
}

impl NameTable {
    /// A table where `taken` (e.g. the state parameter) can never be handed out.
    pub fn with_taken(taken: &[&str]) -> Self {
        let mut t = NameTable::default();
        for name in taken {
            t.used.insert((*name).to_string(), 0);
        }
        t
    }

    pub fn bind(&mut self, rust_name: &str) -> String {
        let base = sanitize(rust_name);
        if !self.used.contains_key(&base) {
            self.used.insert(base.clone(), 0);
            return base;
        }
        let mut n = self.used[&base];
        let candidate = loop {
            n += 1;
            let candidate = format!("{base}_{n}");
            if !self.used.contains_key(&candidate) {
                break candidate;
            }
        };
        self.used.insert(base, n);
        self.used.insert(candidate.clone(), 0);
        candidate
    }
}

/// Maps a Rust identifier to a legal, non-reserved C++ identifier. A tuple item's part
/// (`item.0`) becomes `item_0`.
pub fn sanitize(rust_name: &str) -> String {
    let dotted = rust_name.replace('.', "_");
    let name = dotted.trim_start_matches("r#");
    if RESERVED.contains(&name)
        || name.starts_with("__")
        || name.starts_with("atos_")
        || name.starts_with('_')
    {
        format!("{}_", name.trim_start_matches('_')).replace("__", "_")
    } else {
        name.to_string()
    }
}
