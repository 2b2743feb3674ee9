//! Element types of state fields: a scalar, or (for queues: task items) a tuple of scalars, and
//! the byte layout of a tuple, the one both the generated CUDA struct and the host packing follow.
//!
//! A tuple item is a C struct with the parts in order, each at the next offset aligned to its
//! size, the struct aligned to its largest part and to at least 4 bytes (so the device copies it
//! in 32- or 64-bit words) and its size rounded up to that alignment. At most [`MAX_TUPLE_PARTS`]
//! parts and [`MAX_ITEM_BYTES`] bytes: items travel through queue slots, registers and shuffles.

use serde::{Deserialize, Serialize};

use crate::ir::Scalar;

/// Most parts of a tuple item.
pub const MAX_TUPLE_PARTS: usize = 4;
/// Most bytes of a task item (a tuple's size with its padding).
pub const MAX_ITEM_BYTES: usize = 16;

/// What a state field holds per element.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ElemTy {
    Scalar(Scalar),
    /// A tuple of 2 to [`MAX_TUPLE_PARTS`] scalars (queue items only).
    Tuple(Vec<Scalar>),
}

impl From<Scalar> for ElemTy {
    fn from(s: Scalar) -> ElemTy {
        ElemTy::Scalar(s)
    }
}

impl ElemTy {
    /// From the parts a host type declares: one part is a scalar.
    pub fn from_parts(parts: &[Scalar]) -> ElemTy {
        match parts {
            [one] => ElemTy::Scalar(*one),
            many => ElemTy::Tuple(many.to_vec()),
        }
    }

    pub fn parts(&self) -> &[Scalar] {
        match self {
            ElemTy::Scalar(s) => std::slice::from_ref(s),
            ElemTy::Tuple(parts) => parts,
        }
    }

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            ElemTy::Scalar(s) => Some(*s),
            ElemTy::Tuple(_) => None,
        }
    }

    pub fn size_bytes(&self) -> usize {
        match self {
            ElemTy::Scalar(s) => s.size_bytes(),
            ElemTy::Tuple(parts) => tuple_layout(parts).size as usize,
        }
    }

    /// `u32` or `(u32, f32)`.
    pub fn rust_name(&self) -> String {
        match self {
            ElemTy::Scalar(s) => s.rust_name().to_string(),
            ElemTy::Tuple(parts) => {
                let names: Vec<&str> = parts.iter().map(|p| p.rust_name()).collect();
                format!("({})", names.join(", "))
            }
        }
    }

    /// `uint32_t`, or the generated struct `atos_tuple_u32_f32`.
    pub fn cuda_name(&self) -> String {
        match self {
            ElemTy::Scalar(s) => s.cuda_name().to_string(),
            ElemTy::Tuple(parts) => {
                let names: Vec<&str> = parts.iter().map(|p| p.rust_name()).collect();
                format!("atos_tuple_{}", names.join("_"))
            }
        }
    }

    /// The C++ struct of a tuple, with static assertions that the compiler gave it the size and
    /// alignment [`tuple_layout`] says (the host packs items by that layout; every part's size
    /// is its alignment on both sides, so equal sizes mean equal offsets); `None` for a scalar.
    pub fn cuda_struct(&self) -> Option<String> {
        let ElemTy::Tuple(parts) = self else {
            return None;
        };
        let name = self.cuda_name();
        let layout = tuple_layout(parts);
        let fields: Vec<String> = parts
            .iter()
            .enumerate()
            .map(|(k, p)| format!("{} f{k};", p.cuda_name()))
            .collect();
        Some(format!(
            "struct alignas({align}) {name} {{ {} }};\nstatic_assert(sizeof({name}) == {size} && alignof({name}) == {align}, \"tuple layout must match the host packing\");\n",
            fields.join(" "),
            align = layout.align,
            size = layout.size
        ))
    }
}

/// Where each part of a tuple lives, and the tuple's size and alignment in bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TupleLayout {
    pub offsets: [u32; MAX_TUPLE_PARTS],
    pub size: u32,
    pub align: u32,
}

/// The layout of a tuple of `parts` (see the module documentation). Parts past
/// [`MAX_TUPLE_PARTS`] are not laid out; callers refuse such tuples first.
pub const fn tuple_layout(parts: &[Scalar]) -> TupleLayout {
    let mut offsets = [0u32; MAX_TUPLE_PARTS];
    let mut at = 0u32;
    let mut align = 4u32;
    let mut k = 0;
    while k < parts.len() && k < MAX_TUPLE_PARTS {
        let size = parts[k].size_bytes() as u32;
        at = at.div_ceil(size) * size;
        offsets[k] = at;
        at += size;
        if size > align {
            align = size;
        }
        k += 1;
    }
    TupleLayout {
        offsets,
        size: at.div_ceil(align) * align,
        align,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Scalar::*;

    #[test]
    fn tuples_are_laid_out_as_c_structs_aligned_to_four_bytes_at_least() {
        let l = tuple_layout(&[U32, U32]);
        assert_eq!(
            (l.offsets[..2].to_vec(), l.size, l.align),
            (vec![0, 4], 8, 4)
        );
        let l = tuple_layout(&[U32, U64]);
        assert_eq!(
            (l.offsets[..2].to_vec(), l.size, l.align),
            (vec![0, 8], 16, 8)
        );
        let l = tuple_layout(&[U64, U32]);
        assert_eq!(
            (l.offsets[..2].to_vec(), l.size, l.align),
            (vec![0, 8], 16, 8)
        );
        let l = tuple_layout(&[U8, U8, U16]);
        assert_eq!(
            (l.offsets[..3].to_vec(), l.size, l.align),
            (vec![0, 1, 2], 4, 4)
        );
        let l = tuple_layout(&[Bool, F32]);
        assert_eq!(
            (l.offsets[..2].to_vec(), l.size, l.align),
            (vec![0, 4], 8, 4)
        );
        let l = tuple_layout(&[U32, U32, U32]);
        assert_eq!((l.size, l.align), (12, 4));
    }

    #[test]
    fn names() {
        let t = ElemTy::Tuple(vec![U32, F32]);
        assert_eq!(t.rust_name(), "(u32, f32)");
        assert_eq!(t.cuda_name(), "atos_tuple_u32_f32");
        assert_eq!(ElemTy::from_parts(&[U32]), ElemTy::Scalar(U32));
        assert!(ElemTy::Scalar(U32).cuda_struct().is_none());
        assert!(
            t.cuda_struct()
                .unwrap()
                .contains("struct alignas(4) atos_tuple_u32_f32")
        );
    }
}
