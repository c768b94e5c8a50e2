//! "Did you mean" suggestions for strict inputs (topology and catalog keys, layer ids,
//! stack names): the nearest valid word by edit distance, offered only when it is close.

/// The candidate nearest to `word`, if it is close enough to be a plausible typo.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word_lc = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::levenshtein(&word_lc, &c.to_ascii_lowercase()), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `" (did you mean `x`?)"` or an empty string.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match nearest(word, candidates) {
        Some(n) => format!(" (did you mean `{n}`?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_words_only() {
        let keys = ["kubeconfig", "endpoint", "nodes", "layers"];
        assert_eq!(nearest("kubconfig", keys), Some("kubeconfig"));
        assert_eq!(nearest("Layer", keys), Some("layers"));
        assert_eq!(nearest("zzzzzzzz", keys), None);
        assert_eq!(did_you_mean("endpont", keys), " (did you mean `endpoint`?)");
    }
}
