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

/// A yaml_serde error taken apart: where (line, column: the crate's typed
/// `Error::location`), the path of the value serde names (`nodes[1].role`, `[0].detect[0]`,
/// without the root dot) and the bare message. The path and the unknown word are only in
/// serde's message text: this is the ONE place that reads it. The topology, catalog and
/// kubeconfig readers each word the problem their own way from these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlProblem {
    pub location: Option<(usize, usize)>,
    pub path: Option<String>,
    pub message: String,
}

impl YamlProblem {
    pub fn of(e: &yaml_serde::Error) -> YamlProblem {
        let full = e.to_string();
        let location = e.location().map(|l| (l.line(), l.column()));
        // yaml_serde appends " at line L column C" (the location, already taken typed).
        let message = match full.rfind(" at line ") {
            Some(i) => &full[..i],
            None => full.as_str(),
        };
        // ... and prefixes the path of the value: `.[0].detect[0]: `, `nodes[1].role: `.
        let (path, message) = match message.split_once(": ") {
            Some((path, rest)) if !path.is_empty() && !path.contains([' ', '`']) => {
                (Some(path.trim_start_matches('.').to_string()), rest)
            }
            _ => (None, message),
        };
        YamlProblem {
            location,
            path: path.filter(|p| !p.is_empty()),
            message: message.to_string(),
        }
    }

    /// `unknown field `x`, expected one of `a`, `b`` (or `unknown variant`): whether it is a
    /// variant, the word, and the valid words serde listed.
    pub fn unknown_word(&self) -> Option<(bool, &str, Vec<&str>)> {
        for (what, variant) in [("unknown field `", false), ("unknown variant `", true)] {
            if let Some(rest) = self.message.strip_prefix(what) {
                let (word, expected) = rest.split_once('`')?;
                let valid = expected.split('`').skip(1).step_by(2).collect();
                return Some((variant, word, valid));
            }
        }
        None
    }
}

/// Every backticked word of `what` (serde's way of naming a key) is a plain key: letters,
/// digits, `-`, `_`, `.`, `<`, `>`, at most 40 of them.
pub fn plain_keys_only(what: &str) -> bool {
    what.split('`').skip(1).step_by(2).all(|key| {
        !key.is_empty()
            && key.len() <= 40
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.<>".contains(c))
    })
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

    #[test]
    fn yaml_problems_are_taken_apart() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Node {
            name: String,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Doc {
            nodes: Vec<Node>,
        }
        let e = yaml_serde::from_str::<Doc>("nodes:\n  - name: a\n    nmae: b\n").err();
        let p = e.map(|e| YamlProblem::of(&e));
        let p = p.as_ref();
        assert_eq!(p.and_then(|p| p.path.as_deref()), Some("nodes[0]"));
        assert_eq!(
            p.and_then(|p| p.unknown_word()),
            Some((false, "nmae", vec!["name"]))
        );
        assert_eq!(p.and_then(|p| p.location).map(|l| l.0), Some(3));
    }
}
