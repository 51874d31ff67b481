//! Typo suggestions: which accepted names a misspelt word is close to.
//!
//! Distances are the optimal string alignment distance in characters ([`distance`]). Each caller
//! says how close counts as a typo: a key of `#[tool]`, a keyword of a manifest's schema and the
//! name of a called tool each have their own tolerance.

/// Whether letter case counts when comparing a word with the accepted names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// `Safety` is one edit from `safety`.
    Sensitive,
    /// `minlength` is no edit from `minLength`.
    Insensitive,
}

/// The optimal string alignment distance from `a` to `b`: insertions, deletions, substitutions
/// and swaps of two neighbouring characters each cost 1 (`saftey` is one step from `safety`).
pub fn distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// Every candidate that `close` accepts, given its [`distance`] from `word` and its name, with
/// that distance, in the order of `candidates`.
pub fn close_to<'a>(
    word: &str,
    candidates: &[&'a str],
    case: Case,
    close: impl Fn(usize, &str) -> bool,
) -> Vec<(usize, &'a str)> {
    let word = fold(word, case);
    candidates
        .iter()
        .map(|candidate| (distance(&word, &fold(candidate, case)), *candidate))
        .filter(|(d, candidate)| close(*d, candidate))
        .collect()
}

/// The candidate closest to `word` among those that `close` accepts (see [`close_to`]); of
/// equally close candidates, the first.
pub fn closest<'a>(
    word: &str,
    candidates: &[&'a str],
    case: Case,
    close: impl Fn(usize, &str) -> bool,
) -> Option<&'a str> {
    close_to(word, candidates, case, close)
        .into_iter()
        .min_by_key(|(d, _)| *d)
        .map(|(_, candidate)| candidate)
}

fn fold(word: &str, case: Case) -> std::borrow::Cow<'_, str> {
    match case {
        Case::Sensitive => word.into(),
        Case::Insensitive => word.to_lowercase().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_single_edits_and_swaps() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("abc", "abc"), 0);
        assert_eq!(distance("abc", "abd"), 1);
        assert_eq!(distance("abc", "ab"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("saftey", "safety"), 1);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("pane_creat", "pane_create"), 1);
        assert_eq!(distance("é", "e"), 1);
    }

    #[test]
    fn case_folds_only_when_asked() {
        let within_one = |d: usize, _: &str| d <= 1;
        assert_eq!(
            closest("MINlength", &["minLength"], Case::Insensitive, within_one),
            Some("minLength")
        );
        assert_eq!(
            closest("MINlength", &["minLength"], Case::Sensitive, within_one),
            None
        );
    }

    #[test]
    fn the_first_of_equally_close_candidates_wins() {
        let any = |_: usize, _: &str| true;
        assert_eq!(
            closest("cat", &["bat", "cut", "cat"], Case::Sensitive, any),
            Some("cat")
        );
        assert_eq!(
            closest("cat", &["bat", "cut"], Case::Sensitive, any),
            Some("bat")
        );
        assert_eq!(closest("cat", &[], Case::Sensitive, any), None);
        assert_eq!(
            close_to("cat", &["dog", "bat"], Case::Sensitive, |d, _| d <= 1),
            [(1, "bat")]
        );
    }
}
