//! YAML read as krew reads a plugin manifest: `sigs.k8s.io/yaml` over go-yaml v2, which types
//! plain (unquoted) scalars by YAML 1.1 rules, then converts the value for a Go `string`
//! field back to text. So an unquoted `sha256: 0000…0` is first the INTEGER 0 (a run of digits
//! starting with 0 is octal in YAML 1.1) and reaches krew's validator as the string "0";
//! `yes` becomes "true", `0x1f` becomes "31". YAML 1.2 readers (yaml_serde here) keep such
//! values as written, which is how a broken manifest passed this project's tests before.
//!
//! [`load`] parses with yaml-rust2's event parser (which reports each scalar's style), and
//! [`resolve`] is go-yaml v2's `resolve()` for plain scalars: null, bool, int (Go's
//! `ParseInt(s, 0, 64)` after removing `_`: 0x hex, 0o and leading-0 octal, 0b binary), float
//! (`yamlStyleFloat`, `.inf`, `.nan`) and timestamps. Quoted and block scalars stay strings.

use std::fmt;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A scalar's type as go-yaml v2 resolves it.
#[derive(Debug, Clone, PartialEq)]
pub enum Typed {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Timestamp,
    Str,
}

impl fmt::Display for Typed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Typed::Null => write!(f, "null"),
            Typed::Bool(b) => write!(f, "the boolean {b}"),
            Typed::Int(i) => write!(f, "the integer {i}"),
            Typed::Float(x) => write!(f, "the float {x}"),
            Typed::Timestamp => write!(f, "a timestamp"),
            Typed::Str => write!(f, "a string"),
        }
    }
}

#[derive(Debug, Clone)]
pub enum Node {
    Scalar {
        text: String,
        quoted: bool,
        typed: Typed,
        line: usize,
    },
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

/// go-yaml v2's resolution of a plain scalar.
pub fn resolve(s: &str) -> Typed {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Typed::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Typed::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Typed::Bool(false)
        }
        ".nan" | ".NaN" | ".NAN" => return Typed::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Typed::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Typed::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let first = s.as_bytes()[0];
    if first == b'.' {
        return s.parse::<f64>().map_or(Typed::Str, Typed::Float);
    }
    if !(first.is_ascii_digit() || first == b'+' || first == b'-') {
        return Typed::Str;
    }
    if is_timestamp(s) {
        return Typed::Timestamp;
    }
    let plain = s.replace('_', "");
    if let Some(i) = go_parse_int(&plain) {
        return Typed::Int(i);
    }
    if is_yaml_style_float(&plain) {
        if let Ok(x) = plain.parse::<f64>() {
            return Typed::Float(x);
        }
    }
    Typed::Str
}

/// Go's `strconv.ParseInt(s, 0, 64)` or `ParseUint(s, 0, 64)`: optional sign, then a `0x`,
/// `0o`, `0b` or bare `0` prefix choosing the base.
fn go_parse_int(s: &str) -> Option<i128> {
    let (negative, body) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d.to_string())
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d.to_string())
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d.to_string())
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string())
    } else {
        (10, lower)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let value = i128::from_str_radix(&digits, radix).ok()?;
    let value = if negative { -value } else { value };
    let fits = (i64::MIN as i128..=i64::MAX as i128).contains(&value)
        || (!negative && value <= u64::MAX as i128);
    fits.then_some(value)
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        None => digits(mantissa),
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

/// go-yaml v2's timestamps start `YYYY-M-D`.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let mut parts = s[5..].splitn(2, '-');
    let month = parts.next().unwrap_or_default();
    let rest = parts.next().unwrap_or_default();
    let day: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (1..=2).contains(&month.len())
        && month.chars().all(|c| c.is_ascii_digit())
        && (1..=2).contains(&day.len())
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    root: Option<Node>,
    error: Option<String>,
}

enum Frame {
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>, Option<String>),
}

impl Builder {
    fn push(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq(items)) => items.push(node),
            Some(Frame::Map(entries, key)) => match key.take() {
                Some(k) => entries.push((k, node)),
                None => match node {
                    Node::Scalar { text, .. } => *key = Some(text),
                    Node::Seq(_) | Node::Map(_) => {
                        self.error = Some("a mapping key that is not a scalar".into())
                    }
                },
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    // yaml_rust2 Event: the test receiver ignores the events it does not model.
    #[allow(clippy::wildcard_enum_match_arm)]
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match ev {
            Event::Scalar(text, style, _, tag) => {
                let quoted = matches!(
                    style,
                    TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
                );
                let explicit_str = tag.is_some_and(|t| t.suffix == "str");
                let typed = if style == TScalarStyle::Plain && !explicit_str {
                    resolve(&text)
                } else {
                    Typed::Str
                };
                self.push(Node::Scalar {
                    text,
                    quoted,
                    typed,
                    line: mark.line(),
                });
            }
            Event::SequenceStart(..) => self.stack.push(Frame::Seq(Vec::new())),
            Event::MappingStart(..) => self.stack.push(Frame::Map(Vec::new(), None)),
            Event::SequenceEnd | Event::MappingEnd => {
                let node = match self.stack.pop() {
                    Some(Frame::Seq(items)) => Node::Seq(items),
                    Some(Frame::Map(entries, _)) => Node::Map(entries),
                    None => return,
                };
                self.push(node);
            }
            Event::Alias(_) => self.error = Some("an alias (manifests use none)".into()),
            _ => {}
        }
    }
}

/// The first document of `text`, with each plain scalar typed by YAML 1.1.
pub fn load(text: &str) -> Result<Node, String> {
    let mut builder = Builder::default();
    Parser::new_from_str(text)
        .load(&mut builder, false)
        .map_err(|e| e.to_string())?;
    if let Some(e) = builder.error {
        return Err(e);
    }
    builder.root.ok_or_else(|| "an empty document".to_string())
}

/// The JSON sigs.k8s.io/yaml hands to krew's Go structs, whose fields are all strings: a
/// retyped scalar becomes Go's text of its value (`0000` -> "0", `yes` -> "true").
pub fn to_krew_json(node: &Node) -> serde_json::Value {
    use serde_json::Value;
    match node {
        Node::Scalar { text, typed, .. } => match typed {
            Typed::Null => Value::Null,
            Typed::Bool(b) => Value::String(b.to_string()),
            Typed::Int(i) => Value::String(i.to_string()),
            Typed::Float(x) => Value::String(format!("{}", *x as f32)),
            Typed::Timestamp | Typed::Str => Value::String(text.clone()),
        },
        Node::Seq(items) => Value::Array(items.iter().map(to_krew_json).collect()),
        Node::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), to_krew_json(v)))
                .collect(),
        ),
    }
}

/// Every scalar under key `key`, anywhere in the document, with its path.
pub fn scalars_named<'a>(node: &'a Node, key: &str) -> Vec<(String, &'a Node)> {
    fn walk<'a>(node: &'a Node, key: &str, path: String, out: &mut Vec<(String, &'a Node)>) {
        match node {
            Node::Scalar { .. } => {}
            Node::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, key, format!("{path}[{i}]"), out);
                }
            }
            Node::Map(entries) => {
                for (k, v) in entries {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    if k == key && matches!(v, Node::Scalar { .. }) {
                        out.push((p.clone(), v));
                    }
                    walk(v, key, p, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(node, key, String::new(), &mut out);
    out
}

#[test]
fn plain_scalars_resolve_as_go_yaml_v2_does() {
    let zeros = "0".repeat(64);
    for (plain, want) in [
        (zeros.as_str(), Typed::Int(0)),
        ("0777", Typed::Int(511)),
        ("0o17", Typed::Int(15)),
        ("0x1F", Typed::Int(31)),
        ("0b101", Typed::Int(5)),
        ("1_000", Typed::Int(1000)),
        ("-12", Typed::Int(-12)),
        ("08", Typed::Float(8.0)),
        ("1e3", Typed::Float(1000.0)),
        ("1.5", Typed::Float(1.5)),
        (".5", Typed::Float(0.5)),
        (".inf", Typed::Float(f64::INFINITY)),
        ("yes", Typed::Bool(true)),
        ("Off", Typed::Bool(false)),
        ("y", Typed::Bool(true)),
        ("~", Typed::Null),
        ("2026-11-30", Typed::Timestamp),
        ("v0.1.0", Typed::Str),
        (
            "d31a71f42d31f5e060ac68ff6acae2231008efae0a7f3c0366334764eefb46b8",
            Typed::Str,
        ),
        ("0a1b", Typed::Str),
        ("123e45", Typed::Float(123e45_f64)),
        ("123e4567", Typed::Float(f64::INFINITY)),
        ("kubectl-nestor", Typed::Str),
        ("1.2.3", Typed::Str),
    ] {
        let got = resolve(plain);
        let same = match (&got, &want) {
            (Typed::Float(a), Typed::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            _ => got == want,
        };
        assert!(same, "{plain}: got {got:?}, want {want:?}");
    }
}

#[test]
fn quoted_and_block_scalars_stay_strings_and_krew_sees_the_retyped_text() {
    let doc = load(&format!(
        "a: {z}\nb: \"{z}\"\nc: '0777'\nd: |\n  0777\ne: !!str 0777\nf: yes\ng: [1, x]\n",
        z = "0".repeat(64)
    ))
    .expect("parse");
    let json = to_krew_json(&doc);
    assert_eq!(json["a"], "0");
    assert_eq!(json["b"], "0".repeat(64));
    assert_eq!(json["c"], "0777");
    assert_eq!(json["d"], "0777\n");
    assert_eq!(json["e"], "0777");
    assert_eq!(json["f"], "true");
    assert_eq!(json["g"], serde_json::json!(["1", "x"]));
    let quoted: Vec<bool> = (scalars_named(&doc, "a")
        .iter()
        .chain(scalars_named(&doc, "b").iter()))
    .map(|(_, n)| matches!(n, Node::Scalar { quoted: true, .. }))
    .collect();
    assert_eq!(quoted, vec![false, true]);
}
