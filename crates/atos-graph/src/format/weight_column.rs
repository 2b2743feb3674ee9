//! The weight column of a text file, typed as it is read: u32 while every value is a
//! non-negative integer that fits, f32 from the first value that is not.

use super::text::{parse_finite_f32, parse_u64, show};
use crate::csr::Weights;

#[derive(Debug)]
pub(crate) enum WeightColumn {
    U32(Vec<u32>),
    F32(Vec<f32>),
}

impl WeightColumn {
    pub fn new() -> Self {
        WeightColumn::U32(Vec::new())
    }

    pub fn reserve(&mut self, n: usize) {
        match self {
            WeightColumn::U32(w) => w.reserve(n),
            WeightColumn::F32(w) => w.reserve(n),
        }
    }

    /// A u32 value (integer columns); the error says why the token is not one.
    pub fn push_u32(&mut self, tok: &[u8]) -> Result<(), String> {
        let x = parse_u64(tok)
            .and_then(|x| u32::try_from(x).ok())
            .ok_or_else(|| {
                format!(
                    "weight `{}` is not an integer in 0..={}; load without weights to read the structure only",
                    show(tok),
                    u32::MAX
                )
            })?;
        match self {
            WeightColumn::U32(w) => w.push(x),
            WeightColumn::F32(w) => w.push(x as f32),
        }
        Ok(())
    }

    /// A finite real value; a column of reals is f32.
    pub fn push_f32(&mut self, tok: &[u8]) -> Result<(), String> {
        let x = parse_finite_f32(tok)
            .ok_or_else(|| format!("weight `{}` is not a finite number", show(tok)))?;
        self.as_f32_column().push(x);
        Ok(())
    }

    /// Either kind: integers stay u32 until a value needs f32.
    pub fn push_auto(&mut self, tok: &[u8]) -> Result<(), String> {
        if let WeightColumn::U32(w) = self
            && let Some(x) = parse_u64(tok).and_then(|x| u32::try_from(x).ok())
        {
            w.push(x);
            return Ok(());
        }
        self.push_f32(tok)
    }

    fn as_f32_column(&mut self) -> &mut Vec<f32> {
        if let WeightColumn::U32(w) = self {
            *self = WeightColumn::F32(w.iter().map(|&x| x as f32).collect());
        }
        match self {
            WeightColumn::F32(w) => w,
            WeightColumn::U32(_) => unreachable!("converted above"),
        }
    }

    pub fn into_weights(self) -> Weights {
        match self {
            WeightColumn::U32(w) => Weights::U32(w),
            WeightColumn::F32(w) => Weights::F32(w),
        }
    }
}
