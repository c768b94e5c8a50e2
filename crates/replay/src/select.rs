//! List filtering and paging: label selectors (`a=b`, `a!=b`, `a`, `!a`, `a in (x,y)`,
//! `a notin (x)`), field selectors (`metadata.name=x`, any dotted path, `=`/`==`/`!=`),
//! and opaque `continue` tokens (base64 JSON naming the last key served, like the
//! apiserver's).

use serde_json::{json, Value};

/// One parsed label requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LabelReq {
    Eq(String, String),
    Ne(String, String),
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

/// Splits on commas outside parentheses.
fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn set_values(s: &str) -> Option<Vec<String>> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some(
        inner
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect(),
    )
}

fn parse_label_req(p: &str) -> Result<LabelReq, String> {
    if let Some(k) = p.strip_prefix('!') {
        return Ok(LabelReq::NotExists(k.trim().to_string()));
    }
    if let Some((k, v)) = p.split_once("!=") {
        return Ok(LabelReq::Ne(k.trim().into(), v.trim().into()));
    }
    if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
        return Ok(LabelReq::Eq(k.trim().into(), v.trim().into()));
    }
    if let Some((k, v)) = p.split_once(" notin ") {
        let vals = set_values(v).ok_or_else(|| format!("bad set in {p:?}"))?;
        return Ok(LabelReq::NotIn(k.trim().into(), vals));
    }
    if let Some((k, v)) = p.split_once(" in ") {
        let vals = set_values(v).ok_or_else(|| format!("bad set in {p:?}"))?;
        return Ok(LabelReq::In(k.trim().into(), vals));
    }
    if p.contains(char::is_whitespace) {
        return Err(format!("unable to parse requirement {p:?}"));
    }
    Ok(LabelReq::Exists(p.to_string()))
}

/// A parsed label selector; empty matches everything.
#[derive(Debug, Clone, Default)]
pub struct LabelSelector(Vec<LabelReq>);

impl LabelSelector {
    /// Parses a `labelSelector` query value.
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        split_top(s)
            .iter()
            .map(|p| parse_label_req(p))
            .collect::<Result<Vec<_>, _>>()
            .map(LabelSelector)
    }

    /// True when the selector has no requirement.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True when the object's labels satisfy every requirement.
    pub fn matches(&self, obj: &Value) -> bool {
        let labels = &obj["metadata"]["labels"];
        let get = |k: &str| labels.get(k).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            LabelReq::Eq(k, v) => get(k) == Some(v.as_str()),
            LabelReq::Ne(k, v) => get(k) != Some(v.as_str()),
            LabelReq::Exists(k) => get(k).is_some(),
            LabelReq::NotExists(k) => get(k).is_none(),
            LabelReq::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            LabelReq::NotIn(k, vs) => !get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
        })
    }
}

/// A parsed field selector; empty matches everything.
#[derive(Debug, Clone, Default)]
pub struct FieldSelector(Vec<(String, bool, String)>);

impl FieldSelector {
    /// Parses a `fieldSelector` query value.
    pub fn parse(s: &str) -> Result<FieldSelector, String> {
        let mut reqs = Vec::new();
        for p in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, eq, v) = if let Some((k, v)) = p.split_once("!=") {
                (k, false, v)
            } else if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
                (k, true, v)
            } else {
                return Err(format!("invalid selector: {p:?}; can't understand it"));
            };
            reqs.push((k.trim().to_string(), eq, v.trim().to_string()));
        }
        Ok(FieldSelector(reqs))
    }

    /// True when the selector has no requirement.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True when every field requirement holds (missing fields read as "").
    pub fn matches(&self, obj: &Value) -> bool {
        self.0.iter().all(|(k, eq, v)| {
            let mut cur = obj;
            for seg in k.split('.') {
                cur = &cur[seg];
            }
            let actual = match cur {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            (actual == *v) == *eq
        })
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64 (padding optional); the error names the bad byte like Go's.
pub fn base64_decode(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut buf = 0u32;
    let mut bits = 0;
    for (i, c) in s.bytes().enumerate() {
        if c == b'=' {
            break;
        }
        let v = B64
            .iter()
            .position(|&b| b == c)
            .ok_or_else(|| format!("illegal base64 data at input byte {i}"))?;
        buf = (buf << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// Continue token naming the key of the last object served, tied to a resourceVersion.
pub fn encode_continue(resource_version: &str, last_key: &str) -> String {
    let body = json!({
        "v": "meta.k8s.io/v1",
        "rv": resource_version.parse::<i64>().unwrap_or(0),
        "start": format!("{last_key}\u{0}"),
    });
    base64_encode(body.to_string().as_bytes())
}

/// Decodes a continue token into the key to start strictly after.
pub fn decode_continue(token: &str) -> Result<String, String> {
    let bytes = base64_decode(token).map_err(|e| format!("continue key is not valid: {e}"))?;
    let v: Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("continue key is not valid: {e}"))?;
    if v["v"] != "meta.k8s.io/v1" {
        return Err("continue key is not valid: server does not recognize this encoded key".into());
    }
    let start = v["start"]
        .as_str()
        .ok_or("continue key is not valid: no start key")?;
    Ok(start.trim_end_matches('\u{0}').to_string())
}

/// Sort key of an object within its type: `namespace/name`.
pub fn object_key(o: &Value) -> String {
    format!(
        "{}/{}",
        o["metadata"]["namespace"].as_str().unwrap_or_default(),
        o["metadata"]["name"].as_str().unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for s in ["", "a", "ab", "abc", "abcd", "{\"x\":\"y\\u0000\"}"] {
            assert_eq!(
                base64_decode(&base64_encode(s.as_bytes())).expect("decode"),
                s.as_bytes()
            );
        }
        assert_eq!(base64_encode(b"hello"), "aGVsbG8=");
        assert!(base64_decode("!!").is_err());
    }

    #[test]
    fn continue_tokens_round_trip() {
        let t = encode_continue("41234", "ns-0001/web");
        assert_eq!(decode_continue(&t).expect("token"), "ns-0001/web");
        assert!(decode_continue("garbage!").is_err());
        assert!(decode_continue(&base64_encode(b"{}")).is_err());
    }

    #[test]
    fn label_selectors() {
        let o = json!({"metadata": {"labels": {"app": "web", "tier": "front"}}});
        let m = |s: &str| LabelSelector::parse(s).expect("selector").matches(&o);
        assert!(m("app=web"));
        assert!(m("app==web,tier"));
        assert!(!m("app!=web"));
        assert!(m("!missing"));
        assert!(m("tier in (front,back)"));
        assert!(!m("tier notin (front)"));
        assert!(m(""));
    }

    #[test]
    fn field_selectors() {
        let o = json!({"metadata": {"name": "a", "namespace": "n"}, "spec": {"nodeName": "x"}});
        let m = |s: &str| FieldSelector::parse(s).expect("selector").matches(&o);
        assert!(m("metadata.name=a"));
        assert!(m("metadata.namespace!=z,spec.nodeName==x"));
        assert!(!m("metadata.name=b"));
        assert!(FieldSelector::parse("nonsense").is_err());
    }
}
