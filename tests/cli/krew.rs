//! `krew-manifest.yaml` and its template `.krew.yaml` against krew's own rules, read as krew
//! reads them, and proof that the checks can fail.
//!
//! The manifest is parsed with YAML 1.1 typing (`yaml11`: go-yaml v2 under sigs.k8s.io/yaml,
//! krew's decoder), so an unquoted `sha256: 0000…` reaches the rules as "0", as it reaches
//! krew. On top of krew's rules: every sha256 is a QUOTED scalar, the manifest lists only
//! platforms whose archive exists (the archives in dist/ when there are any; never the old
//! placeholder of 64 zeros), and it is exactly what scripts/krew-manifest.sh renders from
//! `.krew.yaml` (the krew-release-bot template) for those platforms.
//!
//! The rules are those of kubernetes-sigs/krew, with their source:
//! - `internal/index/validation/validate.go` (`ValidatePlugin`): apiVersion, kind, a safe
//!   plugin name (`^[\w-]+$`, no Windows device name) equal to the expected one, a one-line
//!   shortDescription, at least one platform, a version that `internal/installation/semver`
//!   parses (a leading `v`, then a semantic version); per platform: `uri`, a `sha256` matching
//!   `^[a-f0-9]{64}$`, `bin`, `files` unset or non-empty with `from`/`to`, and a selector that
//!   is set, not empty, and keyed by `os`/`arch` only;
//! - `cmd/validate-krew-manifest`: each selector matches a platform krew supports, no two
//!   platforms select the same os/arch, and the archive installs a LICENSE file; line lengths
//!   (70 for shortDescription, 80 for description and caveats, single words excepted);
//! - `internal/installation/install.go`: `bin` resolves inside the installation directory.
//!
//! Stricter than krew because the file is ours (STYLE: strict on our own inputs): unknown
//! keys are errors (krew ignores them), selectors use `matchLabels` only, and the line-length
//! warnings of krew's validator are errors. `project_rules` adds what only this project
//! knows: the name, the version from Cargo.toml, the platforms it ships, their archive names,
//! and the completion helper in every archive.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use snapbox::str;

use crate::harness::text_snap;
use crate::support::{Outcome, Run};
use crate::yaml11;

const API_VERSION: &str = "krew.googlecontainertools.github.com/v1alpha2";
const SHA256_PATTERN: &str = "^[a-f0-9]{64}$";
const PLACEHOLDER_SHA256: &str = "0000000000000000000000000000000000000000000000000000000000000000";
const WINDOWS_FORBIDDEN: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];
/// krew's `allPlatforms()` in `cmd/validate-krew-manifest`.
const KREW_PLATFORMS: [(&str, &str); 11] = [
    ("windows", "386"),
    ("windows", "amd64"),
    ("windows", "arm64"),
    ("linux", "386"),
    ("linux", "amd64"),
    ("linux", "arm"),
    ("linux", "arm64"),
    ("linux", "ppc64le"),
    ("darwin", "386"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
];
/// The license file names krew's validator accepts (`licenseFiles`), lower-cased.
const LICENSE_FILES: [&str; 8] = [
    "license",
    "license.txt",
    "license.md",
    "licenses",
    "licenses.txt",
    "licenses.md",
    "copying",
    "copying.txt",
];
/// The platforms this project ships (.github/workflows/release.yml builds them).
const OUR_PLATFORMS: [(&str, &str); 4] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Plugin {
    #[serde(default)]
    api_version: String,
    #[serde(default)]
    kind: String,
    metadata: Metadata,
    spec: Spec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Metadata {
    #[serde(default)]
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Spec {
    #[serde(default)]
    version: String,
    #[serde(default)]
    homepage: String,
    #[serde(default)]
    short_description: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    caveats: String,
    #[serde(default)]
    platforms: Vec<Platform>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Platform {
    #[serde(default)]
    uri: String,
    #[serde(default)]
    sha256: String,
    #[serde(default)]
    bin: String,
    selector: Option<Selector>,
    files: Option<Vec<FileOperation>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Selector {
    match_labels: Option<BTreeMap<String, String>>,
    match_expressions: Option<Vec<serde_json::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileOperation {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
}

impl Platform {
    fn labels(&self) -> BTreeMap<String, String> {
        self.selector
            .as_ref()
            .and_then(|s| s.match_labels.clone())
            .unwrap_or_default()
    }

    /// `os/arch` as the selector states it, for messages.
    fn name(&self) -> String {
        let labels = self.labels();
        let get = |k: &str| labels.get(k).map_or("?", String::as_str).to_string();
        format!("{}/{}", get("os"), get("arch"))
    }

    fn selects(&self, os: &str, arch: &str) -> bool {
        let labels = self.labels();
        !labels.is_empty()
            && labels.iter().all(|(k, v)| match k.as_str() {
                "os" => v == os,
                "arch" => v == arch,
                _ => false,
            })
    }
}

/// krew's checks of a manifest expected to name plugin `name`; the first error, as krew
/// reports one, worded as krew words it.
fn validate(text: &str, name: &str) -> Result<Plugin, String> {
    let doc = yaml11::load(text).map_err(|e| format!("failed to parse the manifest: {e}"))?;
    let p: Plugin = serde_json::from_value(yaml11::to_krew_json(&doc))
        .map_err(|e| format!("failed to decode the manifest: {e}"))?;
    if p.api_version != API_VERSION {
        return Err(format!(
            "plugin manifest has apiVersion={:?}, not supported in this version of krew",
            p.api_version
        ));
    }
    if p.kind != "Plugin" {
        return Err(format!(
            "plugin manifest has kind={:?}, but only \"Plugin\" is supported",
            p.kind
        ));
    }
    if !is_safe_plugin_name(&p.metadata.name) {
        return Err(format!(
            "the plugin name {:?} is not allowed, must match \"^[\\w-]+$\"",
            p.metadata.name
        ));
    }
    if p.metadata.name != name {
        return Err(format!(
            "plugin should be named {name:?}, not {:?}",
            p.metadata.name
        ));
    }
    let spec = &p.spec;
    if spec.short_description.is_empty() {
        return Err("should have a short description".into());
    }
    if spec.short_description.contains(['\r', '\n']) {
        return Err("should not have line breaks in short description".into());
    }
    if spec.platforms.is_empty() {
        return Err("should have a platform specified".into());
    }
    if spec.version.is_empty() {
        return Err("should have a version specified".into());
    }
    parse_semver(&spec.version).map_err(|e| format!("failed to parse plugin version: {e}"))?;
    for (i, pl) in spec.platforms.iter().enumerate() {
        validate_platform(pl)
            .map_err(|e| format!("platform {i} ({}) is badly constructed: {e}", pl.name()))?;
    }
    for (field, text, max) in [
        ("shortDescription", &spec.short_description, 70),
        ("description", &spec.description, 80),
        ("caveats", &spec.caveats, 80),
    ] {
        if let Some(line) = text
            .lines()
            .find(|l| l.len() > max && l.trim().contains(' '))
        {
            return Err(format!(
                "line length in `{field}` exceeds {max} characters: {line:?}"
            ));
        }
    }
    for (i, pl) in spec.platforms.iter().enumerate() {
        if !KREW_PLATFORMS.iter().any(|(os, arch)| pl.selects(os, arch)) {
            return Err(format!(
                "spec.platform[{i}]'s selector ({}) doesn't match any supported platforms",
                pl.name()
            ));
        }
    }
    for (os, arch) in KREW_PLATFORMS {
        let matching: Vec<usize> = (spec.platforms.iter().enumerate())
            .filter(|(_, pl)| pl.selects(os, arch))
            .map(|(i, _)| i)
            .collect();
        if matching.len() > 1 {
            return Err(format!(
                "multiple spec.platforms (at indexes {matching:?}) have overlapping selectors that select {os}/{arch}"
            ));
        }
    }
    Ok(p)
}

fn validate_platform(p: &Platform) -> Result<(), String> {
    if p.uri.is_empty() {
        return Err("`uri` has to be set".into());
    }
    if p.sha256.is_empty() {
        return Err("`sha256` sum has to be set".into());
    }
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    if p.sha256.len() != 64 || !p.sha256.chars().all(hex) {
        return Err(format!(
            "`sha256` value {} is not valid, must match pattern {SHA256_PATTERN}",
            p.sha256
        ));
    }
    if p.bin.is_empty() {
        return Err("`bin` has to be set".into());
    }
    let bin = Path::new(&p.bin);
    if bin.is_absolute()
        || bin
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(format!(
            "`bin` {:?} does not stay inside the installation directory",
            p.bin
        ));
    }
    if let Some(files) = &p.files {
        if files.is_empty() {
            return Err("`files` is invalid: `files` has to be unspecified or non-empty".into());
        }
        if files.iter().any(|f| f.from.is_empty()) {
            return Err("`files` is invalid: `from` field has to be set".into());
        }
        if files.iter().any(|f| f.to.is_empty()) {
            return Err("`files` is invalid: `to` field has to be set".into());
        }
    }
    let Some(sel) = &p.selector else {
        return Err("invalid platform selector: nil selector is not supported".into());
    };
    if sel.match_expressions.is_some() {
        return Err("invalid platform selector: use matchLabels (matchExpressions is not used by this manifest)".into());
    }
    let Some(labels) = &sel.match_labels else {
        return Err("invalid platform selector: empty selector is not supported".into());
    };
    if let Some(key) = labels.keys().find(|k| *k != "os" && *k != "arch") {
        return Err(format!(
            "invalid platform selector: key {key:?} not supported"
        ));
    }
    if labels.is_empty() {
        return Err("invalid platform selector: `matchLabels` specified but empty".into());
    }
    Ok(())
}

fn is_safe_plugin_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !WINDOWS_FORBIDDEN
            .iter()
            .any(|f| f.eq_ignore_ascii_case(name))
}

/// krew's `semver.Parse`: a leading `v`, then a semantic version as Kubernetes'
/// `version.ParseSemantic` reads it (three numeric components without leading zeros, an
/// optional `-pre.release` and `+build`).
fn parse_semver(s: &str) -> Result<(), String> {
    let Some(rest) = s.strip_prefix('v') else {
        return Err(format!("version string {s:?} not starting with 'v'"));
    };
    let illegal = || format!("illegal version string {s:?}");
    let (rest, build) = match rest.split_once('+') {
        Some((a, b)) => (a, Some(b)),
        None => (rest, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (rest, None),
    };
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() != 3 {
        return Err(illegal());
    }
    for part in parts {
        if part.is_empty() || !part.chars().all(|c| c.is_ascii_digit()) {
            return Err(illegal());
        }
        if part.len() > 1 && part.starts_with('0') {
            return Err(format!(
                "illegal zero-prefixed version component {part:?} in {s:?}"
            ));
        }
    }
    let ident_ok =
        |id: &str| !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if let Some(pre) = pre {
        for id in pre.split('.') {
            let numeric = id.chars().all(|c| c.is_ascii_digit());
            if !ident_ok(id) || (numeric && id.len() > 1 && id.starts_with('0')) {
                return Err(illegal());
            }
        }
    }
    if build.is_some_and(|b| !b.split('.').all(ident_ok)) {
        return Err(illegal());
    }
    Ok(())
}

/// What only this project knows: the name, Cargo's version, the platforms it ships (one or
/// more, each at most once, never the old all-zeros placeholder checksum), the archive names
/// scripts/package.sh writes, the binary name, and the caveats the SPEC asks for.
fn project_rules(p: &Plugin) -> Result<(), String> {
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    if p.spec.version != version {
        return Err(format!(
            "spec.version is {}, Cargo.toml says {version}: run scripts/release.sh",
            p.spec.version
        ));
    }
    if !p.spec.homepage.starts_with("https://") {
        return Err(format!(
            "homepage {:?} is not an https URL",
            p.spec.homepage
        ));
    }
    for needle in [
        "~/.kube/<stack>.config",
        "kubectl nestor --kubeconfig",
        "kubectl_complete-nestor",
    ] {
        if !p.spec.caveats.contains(needle) {
            return Err(format!("caveats do not mention {needle:?}"));
        }
    }
    for pl in &p.spec.platforms {
        let labels = pl.labels();
        let (os, arch) = match (labels.get("os"), labels.get("arch")) {
            (Some(os), Some(arch)) => (os, arch),
            _ => return Err(format!("{}: selector without os and arch", pl.name())),
        };
        if !OUR_PLATFORMS.contains(&(os.as_str(), arch.as_str())) {
            return Err(format!(
                "{os}/{arch} is not a platform the release workflow builds ({OUR_PLATFORMS:?})"
            ));
        }
        if pl.sha256 == PLACEHOLDER_SHA256 {
            return Err(format!(
                "{os}/{arch} has the placeholder sha256 of 64 zeros: a platform without an archive is left out, never listed (scripts/release.sh)"
            ));
        }
        let uri = format!(
            "{}/releases/download/{version}/kubectl-nestor_{os}_{arch}.tar.gz",
            p.spec.homepage
        );
        if pl.uri != uri {
            return Err(format!("{os}/{arch}: uri is {}, want {uri}", pl.uri));
        }
        if pl.bin != "kubectl-nestor" {
            return Err(format!(
                "{os}/{arch}: bin is {:?}, want kubectl-nestor",
                pl.bin
            ));
        }
    }
    Ok(())
}

/// Every `sha256` of the manifest is a quoted scalar that YAML 1.1 keeps a string: unquoted,
/// 64 zeros are the integer 0 to krew, and any hex run of digits a number.
fn checksums_quoted(text: &str) -> Result<(), String> {
    let doc = yaml11::load(text).map_err(|e| format!("failed to parse the manifest: {e}"))?;
    let checksums = yaml11::scalars_named(&doc, "sha256");
    if checksums.is_empty() {
        return Err("no sha256 in the manifest".into());
    }
    for (path, node) in checksums {
        if let yaml11::Node::Scalar {
            text,
            quoted,
            typed,
            line,
        } = node
        {
            if *typed != yaml11::Typed::Str {
                return Err(format!(
                    "{path} (line {}) is unquoted and YAML 1.1 (krew) reads {text} as {typed}, not a checksum: quote it",
                    line + 1
                ));
            }
            if !quoted {
                return Err(format!(
                    "{path} (line {}) is unquoted: quote every sha256 (a checksum that happens to be digits only would be read as a number)",
                    line + 1
                ));
            }
        }
    }
    Ok(())
}

/// krew's install-time checks on an archive: its sha256 is the platform's, `bin` is in it
/// (and executable), and so is a LICENSE file; ours: the completion helper too.
fn check_archive(platform: &Platform, archive: &Path) -> Result<(), String> {
    let bytes = fs::read(archive).map_err(|e| format!("{}: {e}", archive.display()))?;
    let sha = format!("{:x}", Sha256::digest(&bytes));
    if sha != platform.sha256 {
        return Err(format!(
            "{}: sha256 is {sha}, the manifest says {} (run scripts/release.sh)",
            archive.display(),
            platform.sha256
        ));
    }
    let out = Run::new("tar")
        .arg("-tvzf")
        .arg(archive)
        .try_run()
        .map_err(|e| format!("tar: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "tar -tvzf {}: {}",
            archive.display(),
            String::from_utf8_lossy(&out.stderr_bytes).trim()
        ));
    }
    // `mode owner size date time name` (GNU and BSD tar agree on the first and last column).
    let entries: Vec<(String, String)> = String::from_utf8_lossy(&out.stdout_bytes)
        .lines()
        .filter_map(|l| {
            let mode = l.split_whitespace().next()?;
            let name = l.split_whitespace().last()?;
            Some((mode.to_string(), name.trim_start_matches("./").to_string()))
        })
        .collect();
    let names: Vec<&str> = entries.iter().map(|(_, n)| n.as_str()).collect();
    let Some((mode, _)) = entries.iter().find(|(_, n)| *n == platform.bin) else {
        return Err(format!(
            "{}: bin {:?} is not in the archive {names:?}",
            archive.display(),
            platform.bin
        ));
    };
    if mode.chars().nth(3) != Some('x') {
        return Err(format!(
            "{}: {} is not executable ({mode})",
            archive.display(),
            platform.bin
        ));
    }
    let helper = "kubectl_complete-nestor";
    match entries.iter().find(|(_, n)| n == helper) {
        None => {
            return Err(format!(
                "{}: the completion helper {helper} is not in the archive {names:?}",
                archive.display()
            ))
        }
        Some((mode, _)) if mode.chars().nth(3) != Some('x') => {
            return Err(format!(
                "{}: {helper} is not executable ({mode})",
                archive.display()
            ))
        }
        Some(_) => {}
    }
    let has_license = names.iter().any(|n| {
        let base = n.rsplit('/').next().unwrap_or(n).to_ascii_lowercase();
        LICENSE_FILES.contains(&base.as_str())
    });
    if !has_license {
        return Err(format!(
            "{}: no LICENSE file in the archive {names:?}",
            archive.display()
        ));
    }
    Ok(())
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifest_text() -> String {
    fs::read_to_string(repo().join("krew-manifest.yaml")).expect("read krew-manifest.yaml")
}

/// `text` with the first line whose trimmed form starts with `prefix` replaced by `with`
/// (`None` removes it). Panics when no line matches, so a mutation can never silently miss.
fn edit_line(text: &str, prefix: &str, with: Option<&str>, nth: usize) -> String {
    let mut seen = 0;
    let mut done = false;
    let mut out = String::new();
    for line in text.lines() {
        if !done && line.trim_start().starts_with(prefix) {
            if seen == nth {
                done = true;
                if let Some(w) = with {
                    let indent = &line[..line.len() - line.trim_start().len()];
                    out.push_str(indent);
                    out.push_str(w);
                    out.push('\n');
                }
                continue;
            }
            seen += 1;
        }
        out.push_str(line);
        out.push('\n');
    }
    assert!(done, "no line {nth} starting with {prefix:?}");
    out
}

/// The value of the first line with `key`, quotes removed.
fn first_value(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix(key))
        .map(|v| v.trim().trim_matches('"').to_string())
        .expect("key in manifest")
}

/// What scripts/krew-manifest.sh prints for `tag` when dist/ holds archives (made-up bytes)
/// for `platforms`; the dist directory too, to check archives against.
fn render(tag: &str, platforms: &[(&str, &str)]) -> (Outcome, tempfile::TempDir) {
    let dist = tempfile::tempdir().expect("tempdir");
    for (os, arch) in platforms {
        fs::write(
            dist.path()
                .join(format!("kubectl-nestor_{os}_{arch}.tar.gz")),
            format!("archive {os} {arch}\n"),
        )
        .expect("write");
    }
    let out = Run::new("bash")
        .arg(repo().join("scripts/krew-manifest.sh"))
        .arg(repo().join(".krew.yaml"))
        .arg(tag)
        .arg(dist.path())
        .run();
    (out, dist)
}

fn rendered(platforms: &[(&str, &str)]) -> String {
    let (out, _dist) = render(&format!("v{}", env!("CARGO_PKG_VERSION")), platforms);
    assert!(
        out.status.success(),
        "krew-manifest.sh: {}",
        String::from_utf8_lossy(&out.stderr_bytes)
    );
    String::from_utf8(out.stdout_bytes.clone()).expect("utf-8")
}

/// The archives `kubectl-nestor_<os>_<arch>.tar.gz` in `dist`, as (os, arch, path).
fn archives_in(dist: &Path) -> Vec<(String, String, PathBuf)> {
    let mut found: Vec<(String, String, PathBuf)> = fs::read_dir(dist)
        .map(|entries| entries.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_string();
            let platform = name
                .strip_prefix("kubectl-nestor_")?
                .strip_suffix(".tar.gz")?;
            let (os, arch) = platform.split_once('_')?;
            Some((os.to_string(), arch.to_string(), path))
        })
        .collect();
    found.sort();
    found
}

/// The manifest lists exactly the platforms whose archive is in `dist`, each with that
/// archive's checksum: no platform without an archive, no archive left out.
fn archives_match(p: &Plugin, dist: &Path, krew_checks: bool) -> Result<(), String> {
    let archives = archives_in(dist);
    for pl in &p.spec.platforms {
        let Some((_, _, path)) = archives.iter().find(|(os, arch, _)| pl.selects(os, arch)) else {
            return Err(format!(
                "{} is in the manifest but {} has no archive for it",
                pl.name(),
                dist.display()
            ));
        };
        if krew_checks {
            check_archive(pl, path)?;
        } else {
            let sha = format!(
                "{:x}",
                Sha256::digest(fs::read(path).map_err(|e| e.to_string())?)
            );
            if sha != pl.sha256 {
                return Err(format!(
                    "{}: sha256 {sha}, the manifest says {}",
                    path.display(),
                    pl.sha256
                ));
            }
        }
    }
    for (os, arch, path) in &archives {
        if !p.spec.platforms.iter().any(|pl| pl.selects(os, arch)) {
            return Err(format!(
                "{} was built but {os}/{arch} is not in the manifest",
                path.display()
            ));
        }
    }
    Ok(())
}

#[test]
fn manifest_follows_krew_rules_read_with_yaml_1_1_typing() {
    let text = manifest_text();
    let p = validate(&text, "nestor").unwrap_or_else(|e| panic!("krew-manifest.yaml: {e}"));
    checksums_quoted(&text).unwrap_or_else(|e| panic!("krew-manifest.yaml: {e}"));
    project_rules(&p).unwrap_or_else(|e| panic!("krew-manifest.yaml: {e}"));
    eprintln!(
        "krew-manifest.yaml {}: {:?}",
        p.spec.version,
        p.spec
            .platforms
            .iter()
            .map(Platform::name)
            .collect::<Vec<_>>()
    );
}

/// The committed manifest is the template rendered for the platforms it lists: nobody edits
/// it by hand (only the checksums differ from a render with made-up archives).
#[test]
fn manifest_is_the_template_rendered_for_its_platforms() {
    let text = manifest_text();
    let p = validate(&text, "nestor").expect("valid manifest");
    let listed: Vec<(String, String)> = (p.spec.platforms.iter())
        .map(|pl| {
            let l = pl.labels();
            (l["os"].clone(), l["arch"].clone())
        })
        .collect();
    let listed: Vec<(&str, &str)> = listed
        .iter()
        .map(|(o, a)| (o.as_str(), a.as_str()))
        .collect();
    let render = rendered(&listed);
    let without_checksums = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.trim_start().starts_with("sha256:"))
            .map(String::from)
            .collect()
    };
    assert_eq!(
        without_checksums(&text),
        without_checksums(&render),
        "krew-manifest.yaml is not .krew.yaml rendered: run bash scripts/release.sh"
    );
}

/// The template as the release bot renders it (every platform) passes krew's rules too.
#[test]
fn template_rendered_for_every_platform_follows_krew_rules() {
    let text = rendered(&OUR_PLATFORMS);
    let p = validate(&text, "nestor").unwrap_or_else(|e| panic!(".krew.yaml: {e}\n{text}"));
    checksums_quoted(&text).unwrap_or_else(|e| panic!(".krew.yaml: {e}"));
    project_rules(&p).unwrap_or_else(|e| panic!(".krew.yaml: {e}"));
    assert_eq!(p.spec.platforms.len(), OUR_PLATFORMS.len());
    // The bot's own form of the action is what the template holds.
    let template = fs::read_to_string(repo().join(".krew.yaml")).expect("read .krew.yaml");
    let actions = template.matches("{{addURIAndSha \"").count();
    assert_eq!(
        actions,
        OUR_PLATFORMS.len(),
        "one addURIAndSha per platform"
    );
}

#[test]
fn unquoted_checksums_are_caught_as_krew_reads_them() {
    let good = rendered(&OUR_PLATFORMS);
    checksums_quoted(&good).expect("rendered checksums are quoted");
    let zeros = edit_line(
        &good,
        "sha256:",
        Some(&format!("sha256: {PLACEHOLDER_SHA256}")),
        1,
    );
    // YAML 1.1 makes it the integer 0: krew's own rule rejects "0"...
    let e = validate(&zeros, "nestor").expect_err("krew rejects it");
    text_snap(&e, str!["platform 1 (linux/arm64) is badly constructed: `sha256` value 0 is not valid, must match pattern ^[a-f0-9]{64}$"]);
    // ...and the quoting rule names the line and the reading.
    let e = checksums_quoted(&zeros).expect_err("unquoted zeros");
    text_snap(&e, str!["spec.platforms[1].sha256 (line 52) is unquoted and YAML 1.1 (krew) reads 0000000000000000000000000000000000000000000000000000000000000000 as the integer 0, not a checksum: quote it"]);
    // A real checksum unquoted is still refused (digits-only ones would be numbers).
    let sha = first_value(&good, "sha256:");
    let plain = edit_line(&good, "sha256:", Some(&format!("sha256: {sha}")), 0);
    validate(&plain, "nestor").expect("krew accepts a hex string with letters");
    let e = checksums_quoted(&plain).expect_err("unquoted");
    text_snap(&e, str!["spec.platforms[0].sha256 (line 45) is unquoted: quote every sha256 (a checksum that happens to be digits only would be read as a number)"]);
    // The placeholder quoted is a string to YAML, and still never a listed platform.
    let quoted_zeros = edit_line(
        &good,
        "sha256:",
        Some(&format!("sha256: \"{PLACEHOLDER_SHA256}\"")),
        2,
    );
    let p = validate(&quoted_zeros, "nestor").expect("krew's pattern accepts zeros");
    let e = project_rules(&p).expect_err("placeholder");
    assert!(
        e.starts_with("darwin/amd64 has the placeholder sha256"),
        "{e}"
    );
}

#[test]
fn release_renders_only_the_platforms_it_built() {
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let (out, dist) = render(&version, &[("linux", "amd64"), ("darwin", "arm64")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr_bytes)
    );
    let text = String::from_utf8(out.stdout_bytes.clone()).expect("utf-8");
    let p = validate(&text, "nestor").expect("valid");
    checksums_quoted(&text).expect("quoted");
    project_rules(&p).expect("ours");
    let names: Vec<String> = p.spec.platforms.iter().map(Platform::name).collect();
    assert_eq!(names, vec!["linux/amd64", "darwin/arm64"]);
    archives_match(&p, dist.path(), false).expect("each archive's checksum");
    let stderr = String::from_utf8_lossy(&out.stderr_bytes);
    text_snap(
        &stderr,
        str![[r#"
krew-manifest: kubectl-nestor_linux_arm64.tar.gz not built: left out of the manifest
krew-manifest: kubectl-nestor_darwin_amd64.tar.gz not built: left out of the manifest

"#]],
    );
    // The same manifest against a dist/ that lost an archive, or gained one.
    fs::remove_file(dist.path().join("kubectl-nestor_darwin_arm64.tar.gz")).expect("rm");
    let e = archives_match(&p, dist.path(), false).expect_err("platform without archive");
    assert!(e.starts_with("darwin/arm64 is in the manifest but "), "{e}");
    fs::write(
        dist.path().join("kubectl-nestor_darwin_arm64.tar.gz"),
        "archive darwin arm64\n",
    )
    .expect("write");
    fs::write(dist.path().join("kubectl-nestor_linux_arm64.tar.gz"), "x").expect("write");
    let e = archives_match(&p, dist.path(), false).expect_err("archive not listed");
    text_snap(&e, str!["/tmp/.tmpXXXXXX/kubectl-nestor_linux_arm64.tar.gz was built but linux/arm64 is not in the manifest"]);

    // Refusals: nothing printed.
    for (tag, platforms, want) in [
        (
            "0.1.0",
            &[("linux", "amd64")][..],
            "is not a semantic version with a leading v",
        ),
        (
            version.as_str(),
            &[][..],
            "no archive in the dist directory matches a platform",
        ),
    ] {
        let (out, _dist) = render(tag, platforms);
        out.code(1);
        out.no_stdout();
        let stderr = String::from_utf8_lossy(&out.stderr_bytes);
        assert!(stderr.contains(want), "{stderr}");
    }
}

#[test]
fn a_template_action_other_than_the_bots_two_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let template = tmp.path().join("krew.yaml");
    let text = fs::read_to_string(repo().join(".krew.yaml"))
        .expect("read")
        .replace("homepage: https", "homepage: {{ .Homepage }}https");
    fs::write(&template, text).expect("write");
    fs::write(tmp.path().join("kubectl-nestor_linux_amd64.tar.gz"), "a").expect("write");
    let out = Run::new("bash")
        .arg(repo().join("scripts/krew-manifest.sh"))
        .arg(&template)
        .arg("v0.1.0")
        .arg(tmp.path())
        .run();
    out.code(1);
    out.no_stdout();
    let stderr = String::from_utf8_lossy(&out.stderr_bytes);
    text_snap(
        &stderr,
        str![[r#"
krew-manifest: error: /tmp/.tmpXXXXXX/krew.yaml:16: a template action other than .TagName and addURIAndSha:   homepage: {{ .Homepage }}https://github.com/nestor-project/kubectl-nestor

"#]],
    );
}

#[test]
fn broken_manifests_are_rejected_with_krews_message() {
    let good = rendered(&OUR_PLATFORMS);
    let sha = first_value(&good, "sha256:");
    let version = first_value(&good, "version:");
    // The first platform without its selector (and its matchLabels, os and arch lines).
    let no_selector = ["matchLabels:", "os:", "arch:"].iter().fold(
        edit_line(&good, "- selector:", Some("- selector: null"), 0),
        |text, key| edit_line(&text, key, None, 0),
    );
    let cases: Vec<(&str, String, String)> = vec![
        (
            "short sha256",
            edit_line(&good, "sha256:", Some(&format!("sha256: \"{}\"", &sha[..63])), 0),
            format!(
                "platform 0 (linux/amd64) is badly constructed: `sha256` value {} is not valid, must match pattern ^[a-f0-9]{{64}}$",
                &sha[..63]
            ),
        ),
        (
            "upper-case sha256",
            edit_line(&good, "sha256:", Some(&format!("sha256: \"{}\"", "AB".repeat(32))), 1),
            "platform 1 (linux/arm64) is badly constructed: `sha256` value".into(),
        ),
        (
            "missing sha256",
            edit_line(&good, "sha256:", None, 2),
            "platform 2 (darwin/amd64) is badly constructed: `sha256` sum has to be set".into(),
        ),
        (
            "missing bin",
            edit_line(&good, "bin:", None, 0),
            "platform 0 (linux/amd64) is badly constructed: `bin` has to be set".into(),
        ),
        (
            "bin outside the archive",
            edit_line(&good, "bin:", Some("bin: ../kubectl-nestor"), 3),
            "`bin` \"../kubectl-nestor\" does not stay inside the installation directory".into(),
        ),
        (
            "missing uri",
            edit_line(&good, "uri:", None, 1),
            "platform 1 (linux/arm64) is badly constructed: `uri` has to be set".into(),
        ),
        (
            "version without v",
            edit_line(
                &good,
                "version:",
                Some(&format!("version: {}", version.trim_start_matches('v'))),
                0,
            ),
            format!(
                "failed to parse plugin version: version string {:?} not starting with 'v'",
                version.trim_start_matches('v')
            ),
        ),
        (
            "version not semantic",
            edit_line(&good, "version:", Some("version: v1.0"), 0),
            "failed to parse plugin version: illegal version string \"v1.0\"".into(),
        ),
        (
            "version with a zero-prefixed component",
            edit_line(&good, "version:", Some("version: v1.02.0"), 0),
            "illegal zero-prefixed version component \"02\" in \"v1.02.0\"".into(),
        ),
        (
            "duplicate os/arch platform",
            edit_line(&good, "arch:", Some("arch: amd64"), 1),
            "multiple spec.platforms (at indexes [0, 1]) have overlapping selectors that select linux/amd64".into(),
        ),
        (
            "a platform krew does not support",
            edit_line(&good, "os:", Some("os: plan9"), 3),
            "spec.platform[3]'s selector (plan9/arm64) doesn't match any supported platforms".into(),
        ),
        (
            "selector key other than os/arch",
            edit_line(&good, "os:", Some("distro: debian"), 0),
            "invalid platform selector: key \"distro\" not supported".into(),
        ),
        (
            "missing selector",
            no_selector,
            "invalid platform selector: nil selector is not supported".into(),
        ),
        (
            "bad name (a path)",
            edit_line(&good, "name:", Some("name: nes/tor"), 0),
            "the plugin name \"nes/tor\" is not allowed, must match \"^[\\w-]+$\"".into(),
        ),
        (
            "bad name (a Windows device)",
            edit_line(&good, "name:", Some("name: Con"), 0),
            "the plugin name \"Con\" is not allowed".into(),
        ),
        (
            "another plugin's name",
            edit_line(&good, "name:", Some("name: nestor-ng"), 0),
            "plugin should be named \"nestor\", not \"nestor-ng\"".into(),
        ),
        (
            "old apiVersion",
            edit_line(
                &good,
                "apiVersion:",
                Some("apiVersion: krew.googlecontainertools.github.com/v1alpha1"),
                0,
            ),
            "plugin manifest has apiVersion=\"krew.googlecontainertools.github.com/v1alpha1\"".into(),
        ),
        (
            "kind",
            edit_line(&good, "kind:", Some("kind: Plugins"), 0),
            "plugin manifest has kind=\"Plugins\", but only \"Plugin\" is supported".into(),
        ),
        (
            "short description on two lines",
            edit_line(
                &good,
                "shortDescription:",
                Some("shortDescription: \"one\\ntwo\""),
                0,
            ),
            "should not have line breaks in short description".into(),
        ),
        (
            "short description too long",
            edit_line(
                &good,
                "shortDescription:",
                Some(&format!("shortDescription: {}", ["word"; 15].join(" "))),
                0,
            ),
            "line length in `shortDescription` exceeds 70 characters".into(),
        ),
        (
            "no platforms",
            good.split("  platforms:").next().expect("head").to_string() + "  platforms: []\n",
            "should have a platform specified".into(),
        ),
        (
            "a misspelt key (krew would ignore it)",
            edit_line(&good, "sha256:", Some(&format!("sha265: \"{sha}\"")), 0),
            "unknown field `sha265`".into(),
        ),
    ];
    for (what, text, want) in cases {
        assert!(text != good, "{what}: the mutation changed nothing");
        match validate(&text, "nestor") {
            Ok(_) => panic!("{what}: accepted, want an error containing {want:?}"),
            Err(e) => {
                assert!(e.contains(&want), "{what}:\n  got  {e}\n  want {want}");
                eprintln!("rejected, {what}: {e}");
            }
        }
    }
}

#[test]
fn project_rules_reject_a_stale_version_and_a_wrong_archive_name() {
    let good = rendered(&OUR_PLATFORMS);
    let stale = edit_line(&good, "version:", Some("version: v9.9.9"), 0);
    let p = validate(&stale, "nestor").expect("krew accepts v9.9.9");
    let e = project_rules(&p).expect_err("stale version");
    text_snap(
        &e,
        str!["spec.version is v9.9.9, Cargo.toml says v0.1.0: run scripts/release.sh"],
    );

    let uri = first_value(&good, "uri:");
    let renamed = edit_line(
        &good,
        "uri:",
        Some(&format!(
            "uri: {}",
            uri.replace("_linux_amd64", "-linux-x86_64")
        )),
        0,
    );
    let p = validate(&renamed, "nestor").expect("krew accepts any uri");
    let e = project_rules(&p).expect_err("wrong archive name");
    assert!(e.starts_with("linux/amd64: uri is "), "{e}");
}

/// An archive made with the `tar` command from `files` (name, content, mode) in a temp dir.
fn archive(dir: &Path, name: &str, files: &[(&str, &str, u32)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let stage = dir.join(format!("{name}.d"));
    fs::create_dir_all(&stage).expect("mkdir");
    for (file, content, mode) in files {
        let p = stage.join(file);
        fs::write(&p, content).expect("write");
        fs::set_permissions(&p, fs::Permissions::from_mode(*mode)).expect("chmod");
    }
    let out = dir.join(name);
    let status = std::process::Command::new("tar")
        .arg("-czf")
        .arg(&out)
        .arg("-C")
        .arg(&stage)
        .args(files.iter().map(|f| f.0))
        .status()
        .expect("tar");
    assert!(status.success());
    out
}

fn platform_for(archive: &Path) -> Platform {
    Platform {
        uri: "https://example.invalid/a.tar.gz".into(),
        sha256: format!("{:x}", Sha256::digest(fs::read(archive).expect("read"))),
        bin: "kubectl-nestor".into(),
        selector: None,
        files: None,
    }
}

#[test]
fn archive_check_catches_missing_bin_helper_license_and_a_wrong_checksum() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bin = ("kubectl-nestor", "#!/bin/sh\n", 0o755);
    let helper = ("kubectl_complete-nestor", "#!/bin/sh\n", 0o755);
    let license = ("LICENSE", "MIT OR Apache-2.0\n", 0o644);

    let good = archive(tmp.path(), "good.tar.gz", &[bin, helper, license]);
    check_archive(&platform_for(&good), &good).expect("good archive");

    let no_license = archive(tmp.path(), "nolicense.tar.gz", &[bin, helper]);
    let e = check_archive(&platform_for(&no_license), &no_license).expect_err("no LICENSE");
    text_snap(
        &e,
        str![[
            r#"/tmp/.tmpXXXXXX/nolicense.tar.gz: no LICENSE file in the archive ["kubectl-nestor", "kubectl_complete-nestor"]"#
        ]],
    );

    let no_bin = archive(tmp.path(), "nobin.tar.gz", &[helper, license]);
    let e = check_archive(&platform_for(&no_bin), &no_bin).expect_err("no bin");
    text_snap(
        &e,
        str![[
            r#"/tmp/.tmpXXXXXX/nobin.tar.gz: bin "kubectl-nestor" is not in the archive ["kubectl_complete-nestor", "LICENSE"]"#
        ]],
    );

    let no_helper = archive(tmp.path(), "nohelper.tar.gz", &[bin, license]);
    let e = check_archive(&platform_for(&no_helper), &no_helper).expect_err("no helper");
    text_snap(
        &e,
        str![[
            r#"/tmp/.tmpXXXXXX/nohelper.tar.gz: the completion helper kubectl_complete-nestor is not in the archive ["kubectl-nestor", "LICENSE"]"#
        ]],
    );

    let not_exec = archive(
        tmp.path(),
        "noexec.tar.gz",
        &[("kubectl-nestor", "#!/bin/sh\n", 0o644), helper, license],
    );
    let e = check_archive(&platform_for(&not_exec), &not_exec).expect_err("not executable");
    text_snap(
        &e,
        str!["/tmp/.tmpXXXXXX/noexec.tar.gz: kubectl-nestor is not executable (-rw-r--r--)"],
    );

    let mut stale = platform_for(&good);
    stale.sha256 = PLACEHOLDER_SHA256.into();
    let e = check_archive(&stale, &good).expect_err("checksum");
    // The archive's own sha256 changes with every build (tar records mtimes): `[..]`.
    text_snap(&e, str!["/tmp/.tmpXXXXXX/good.tar.gz: sha256 is [..], the manifest says 0000000000000000000000000000000000000000000000000000000000000000 (run scripts/release.sh)"]);
}

/// When scripts/release.sh has built archives in dist/, the manifest lists exactly those,
/// with their checksums, and each passes krew's install-time checks.
#[test]
fn manifest_lists_exactly_the_archives_in_dist() {
    let dist = repo().join("dist");
    if archives_in(&dist).is_empty() {
        eprintln!(
            "skipped: no archive in {} (bash scripts/release.sh builds them); static rules only",
            dist.display()
        );
        return;
    }
    let p = validate(&manifest_text(), "nestor").expect("valid manifest");
    archives_match(&p, &dist, true).unwrap_or_else(|e| panic!("{e} (run bash scripts/release.sh)"));
}
