//! Bounded work per call: every list is read a page at a time, in key
//! order, from just after the key the page token names.

use crate::error::ArenaError;

/// Items in a page when the caller names no size.
pub const DEFAULT_PAGE_SIZE: u32 = 100;
/// The most items a page holds, whatever the caller asks.
pub const MAX_PAGE_SIZE: u32 = 1000;

/// Which page to read: at most `size` items after `after` (a key in the
/// list's order; `None` for the first page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<K> {
    pub size: u32,
    pub after: Option<K>,
}

/// One page of a list, and the token of the next (`None` on the last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageOf<T> {
    pub items: Vec<T>,
    pub next_page_token: Option<String>,
}

impl<K: std::str::FromStr + ToString> Page<K> {
    /// A page from the wire's size and token; a token this arena did not
    /// make is refused.
    pub fn from_request(size: u32, token: &str) -> Result<Page<K>, ArenaError> {
        let after =
            match token {
                "" => None,
                token => Some(token.parse().map_err(|_| {
                    ArenaError::invalid("the page token is not one this arena made")
                })?),
            };
        let size = match size {
            0 => DEFAULT_PAGE_SIZE,
            size => size.min(MAX_PAGE_SIZE),
        };
        Ok(Page { size, after })
    }

    /// The first page of the default size.
    pub fn first() -> Page<K> {
        Page {
            size: DEFAULT_PAGE_SIZE,
            after: None,
        }
    }

    /// How many rows to fetch: one more than the page, to know if another follows.
    pub(crate) fn limit(&self) -> i64 {
        i64::from(self.size) + 1
    }

    /// Cuts the fetched rows to the page and names the next page by the key
    /// of its last item.
    pub(crate) fn finish<T>(&self, mut rows: Vec<T>, key: impl Fn(&T) -> K) -> PageOf<T> {
        let more = rows.len() > self.size as usize;
        rows.truncate(self.size as usize);
        let next_page_token = more
            .then(|| rows.last().map(|last| key(last).to_string()))
            .flatten();
        PageOf {
            items: rows,
            next_page_token,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_bounded_and_foreign_tokens_refused() {
        assert_eq!(
            Page::<i64>::from_request(0, "").unwrap().size,
            DEFAULT_PAGE_SIZE
        );
        assert_eq!(
            Page::<i64>::from_request(1_000_000, "").unwrap().size,
            MAX_PAGE_SIZE
        );
        assert_eq!(Page::<i64>::from_request(5, "42").unwrap().after, Some(42));
        assert!(Page::<i64>::from_request(5, "'; DROP TABLE bots").is_err());
    }

    #[test]
    fn a_page_names_the_next_only_when_more_follow() {
        let page = Page::<i64> {
            size: 2,
            after: None,
        };
        let full = page.finish(vec![1, 2, 3], |n| *n);
        assert_eq!(
            (full.items, full.next_page_token),
            (vec![1, 2], Some("2".into()))
        );
        let last = page.finish(vec![1, 2], |n| *n);
        assert_eq!(last.next_page_token, None);
    }
}
