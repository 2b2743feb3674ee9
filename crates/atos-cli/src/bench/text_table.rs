//! Terminal tables of the bench's summaries: columns padded to their widest cell, numbers
//! right-aligned, two spaces between columns, no trailing blanks.

/// `rows[0]` is the header; `numeric(i)` says whether column `i` is right-aligned.
pub fn lines(rows: &[Vec<String>], numeric: impl Fn(usize) -> bool) -> Vec<String> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    rows.iter()
        .map(|row| {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (c, &w))| {
                    if numeric(i) {
                        format!("{c:>w$}")
                    } else {
                        format!("{c:<w$}")
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_pad_to_the_widest_cell() {
        let rows = vec![
            vec!["name".to_string(), "ms".to_string(), "note".to_string()],
            vec!["a".to_string(), "12.5".to_string(), String::new()],
        ];
        assert_eq!(
            super::lines(&rows, |i| i == 1),
            ["name    ms  note", "a     12.5"]
        );
    }
}
