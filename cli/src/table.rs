//! Aligned text tables: left-aligned text, right-aligned numbers.

/// A table under construction.
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Vec<String>>,
    right_aligned: Vec<bool>,
}

impl Table {
    /// A table with `header`; a column named with a leading `>` is right-aligned.
    pub fn new(header: &[&str]) -> Table {
        let right_aligned = header.iter().map(|h| h.starts_with('>')).collect();
        let header = header
            .iter()
            .map(|h| h.trim_start_matches('>').to_string())
            .collect();
        Table {
            rows: vec![header],
            right_aligned,
        }
    }

    /// Adds a row; control characters in a cell are escaped (cells often
    /// hold names and details that came from a bot or an owner).
    pub fn row(&mut self, cells: Vec<String>) {
        let cells = cells
            .into_iter()
            .map(|cell| match crate::escape::line(&cell) {
                std::borrow::Cow::Borrowed(_) => cell,
                std::borrow::Cow::Owned(escaped) => escaped,
            })
            .collect();
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let n_columns = self.right_aligned.len();
        let widths: Vec<usize> = (0..n_columns)
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for row in &self.rows {
            let cells: Vec<String> = (0..n_columns)
                .map(|c| {
                    let cell = row.get(c).map_or("", String::as_str);
                    let pad = " ".repeat(widths[c] - cell.chars().count());
                    if self.right_aligned[c] {
                        format!("{pad}{cell}")
                    } else {
                        format!("{cell}{pad}")
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_with_numbers_on_the_right() {
        let mut table = Table::new(&["bot", ">score"]);
        table.row(vec!["long-name".into(), "5".into()]);
        table.row(vec!["b".into(), "12".into()]);
        assert_eq!(
            table.render(),
            "bot        score\nlong-name      5\nb             12\n"
        );
    }
}
