//! Host patterns of an inventory's `hosts:` keys: a port suffix (`node1:2222`, `[::1]:22`)
//! and Ansible's ranges (`node[1:3]`, `node[01:10:2]`, `rack-[a:c]`).

/// Most hosts one range pattern may expand to: a typo such as `node[1:100000]` is an error
/// rather than a hundred thousand hosts.
const MAX_RANGE_HOSTS: usize = 10_000;

/// `host:2222` → (`host`, Some("2222")); `[::1]:22` → (`::1`, Some("22")); a bare IPv6
/// address or a name without a port is returned whole.
pub(super) fn split_port(pattern: &str) -> (&str, Option<&str>) {
    if let Some(rest) = pattern.strip_prefix('[') {
        // `[addr]:port` form, only when addr is an IPv6 address (contains ':').
        if let Some((addr, tail)) = rest.split_once(']') {
            if addr.contains(':') && !addr.contains('[') {
                return match tail.strip_prefix(':') {
                    Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                        (addr, Some(p))
                    }
                    _ if tail.is_empty() => (addr, None),
                    _ => (pattern, None),
                };
            }
        }
    }
    // Colons outside `[...]` ranges.
    let mut depth = 0i32;
    let mut colons = Vec::new();
    for (i, c) in pattern.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ':' if depth == 0 => colons.push(i),
            _ => {}
        }
    }
    if let [i] = colons[..] {
        let port = &pattern[i + 1..];
        if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
            return (&pattern[..i], Some(port));
        }
    }
    (pattern, None)
}

/// Expand every `[begin:end(:step)]` range of `pattern` into `out`, as Ansible's
/// `expand_hostname_range`: numeric ranges keep the zero padding of `begin`, letter ranges
/// run over ASCII letters. A `[` without a colon inside is kept literally.
pub(super) fn expand_ranges(
    pattern: &str,
    out: &mut Vec<String>,
) -> std::result::Result<(), String> {
    let range = pattern.find('[').and_then(|open| {
        pattern[open..]
            .find(']')
            .map(|close| (open, open + close))
            .filter(|(o, c)| pattern[*o + 1..*c].contains(':'))
    });
    let Some((open, close)) = range else {
        out.push(pattern.to_string());
        return Ok(());
    };
    let (head, spec, tail) = (
        &pattern[..open],
        &pattern[open + 1..close],
        &pattern[close + 1..],
    );
    let bounds: Vec<&str> = spec.split(':').collect();
    if bounds.len() != 2 && bounds.len() != 3 {
        return Err("a host range must be begin:end or begin:end:step".into());
    }
    let beg = if bounds[0].is_empty() { "0" } else { bounds[0] };
    let end = bounds[1];
    if end.is_empty() {
        return Err("a host range must give an end value".into());
    }
    let step: usize = match bounds.get(2) {
        None => 1,
        Some(s) => match s.parse() {
            Ok(n) if n > 0 => n,
            _ => return Err(format!("the range step {s:?} is not a positive integer")),
        },
    };
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let items: Vec<String> = match (LETTERS.find(beg), LETTERS.find(end)) {
        (Some(b), Some(e)) if beg.len() == 1 && end.len() == 1 => {
            if b > e {
                return Err("a host range must have begin <= end".into());
            }
            LETTERS[b..=e]
                .chars()
                .step_by(step)
                .map(String::from)
                .collect()
        }
        _ => {
            let (b, e) = match (beg.parse::<u64>(), end.parse::<u64>()) {
                (Ok(b), Ok(e)) => (b, e),
                _ => return Err(format!("[{spec}] is neither a numeric nor a letter range")),
            };
            let width = if beg.len() > 1 && beg.starts_with('0') {
                if beg.len() != end.len() {
                    return Err(
                        "a zero-padded range must give begin and end with the same width".into(),
                    );
                }
                beg.len()
            } else {
                0
            };
            if e >= b && (e - b) / step as u64 >= MAX_RANGE_HOSTS as u64 {
                return Err(format!(
                    "the range expands to more than {MAX_RANGE_HOSTS} hosts"
                ));
            }
            (b..=e)
                .step_by(step)
                .map(|n| format!("{n:0width$}"))
                .collect()
        }
    };
    for item in items {
        expand_ranges(&format!("{head}{item}{tail}"), out)?;
        if out.len() > MAX_RANGE_HOSTS {
            return Err(format!(
                "the range expands to more than {MAX_RANGE_HOSTS} hosts"
            ));
        }
    }
    Ok(())
}
