#!/usr/bin/env bash
# Rewrite a krew manifest in place for a release, as a text edit that keeps every other
# byte (comments, order, quoting):
#
#   scripts/krew-manifest-update.sh MANIFEST VERSION [OS/ARCH=SHA256 ...]
#
# - `spec.version` becomes VERSION (e.g. v0.1.0);
# - in each platform's `uri`, the `/download/<version>/` segment becomes VERSION;
# - each OS/ARCH given gets its SHA256;
# - a platform not given whose uri named another version gets a sha256 of 64 zeros: its old
#   checksum belongs to an older archive, and krew refuses a zero checksum, never installs.
#
# Platforms are found by their `selector.matchLabels` `os:` and `arch:` lines. Anything
# unexpected (a platform without os/arch/uri/sha256, an OS/ARCH not in the manifest, a
# duplicate) is an error and the file is left untouched. scripts/release.sh calls this.
set -euo pipefail

die() { printf 'krew-manifest-update: error: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: $0 MANIFEST VERSION [OS/ARCH=SHA256 ...]"
manifest=$1
version=$2
shift 2
[ -f "$manifest" ] || die "no manifest at $manifest"
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] ||
  die "version '$version' is not a semantic version with a leading v (e.g. v0.1.0)"

pairs=""
for pair in "$@"; do
  [[ $pair =~ ^(linux|darwin)/(amd64|arm64)=[a-f0-9]{64}$ ]] ||
    die "'$pair' is not OS/ARCH=SHA256 (os linux|darwin, arch amd64|arm64, 64 lowercase hex)"
  pairs="$pairs $pair"
done

tmp=$(mktemp "$(dirname "$manifest")/.krew-manifest.XXXXXX")
trap 'rm -f "$tmp"' EXIT

awk -v version="$version" -v pairs="$pairs" '
function indent(s) { match(s, /^ */); return RLENGTH }
function blank(s) { return s ~ /^[ ]*(#.*)?$/ }
# The bare key of a mapping line ("    - uri: x" -> "uri"), or "".
function key_of(s,   r) {
  r = s
  sub(/^[ ]*(-[ ]+)?/, "", r)
  if (!match(r, /^[A-Za-z0-9_]+:/)) return ""
  return substr(r, 1, RLENGTH - 1)
}
# The plain scalar value of a mapping line, without a trailing comment.
function value_of(s,   r) {
  r = s
  sub(/^[ ]*(-[ ]+)?[A-Za-z0-9_]+:[ ]*/, "", r)
  sub(/[ ]+#.*$/, "", r)
  sub(/[ ]+$/, "", r)
  return r
}
# The same line with its value replaced: indentation, dash, key and comment kept.
function with_value(s, v,   pre, rest, tail) {
  match(s, /^[ ]*(-[ ]+)?[A-Za-z0-9_]+:[ ]*/)
  pre = substr(s, 1, RLENGTH)
  rest = substr(s, RLENGTH + 1)
  tail = ""
  if (match(rest, /[ ]+#.*$/)) tail = substr(rest, RSTART)
  return pre v tail
}
function fail(msg) { print "krew-manifest-update: error: " msg > "/dev/stderr"; failed = 1; exit 1 }
BEGIN {
  zeros = "0000000000000000000000000000000000000000000000000000000000000000"
  n = split(pairs, kv, " ")
  for (i = 1; i <= n; i++) {
    eq = index(kv[i], "=")
    want[substr(kv[i], 1, eq - 1)] = substr(kv[i], eq + 1)
  }
}
{ line[NR] = $0 }
END {
  if (failed) exit 1
  # spec.version and spec.platforms: keys at the indentation of the first child of spec only
  # (a "version:" inside the description text is not one).
  in_spec = 0; child = -1; version_line = 0; plat_line = 0
  for (i = 1; i <= NR; i++) {
    l = line[i]
    if (blank(l)) continue
    if (indent(l) == 0) { in_spec = (key_of(l) == "spec"); continue }
    if (!in_spec) continue
    if (child < 0) child = indent(l)
    if (indent(l) != child) continue
    if (key_of(l) == "version" && !version_line) version_line = i
    if (key_of(l) == "platforms" && value_of(l) == "") { plat_line = i; break }
  }
  if (!version_line) fail("no spec.version line")
  if (!plat_line) fail("no spec.platforms block")

  # Split spec.platforms into items: each starts with "- " at the item indentation.
  nb = 0; item_indent = -1
  for (i = plat_line + 1; i <= NR; i++) {
    l = line[i]
    if (blank(l)) continue
    d = indent(l)
    if (item_indent < 0) {
      if (substr(l, d + 1, 1) != "-") fail("spec.platforms is not a block list")
      item_indent = d
    }
    if (d < item_indent || (d == item_indent && substr(l, d + 1, 1) != "-")) break
    if (d == item_indent) { nb++; first[nb] = i }
    last[nb] = i
  }
  if (nb == 0) fail("spec.platforms is empty")

  for (b = 1; b <= nb; b++) {
    os = ""; arch = ""; uri_at = 0; sha_at = 0
    for (i = first[b]; i <= last[b]; i++) {
      k = key_of(line[i])
      if (k == "os") os = value_of(line[i])
      else if (k == "arch") arch = value_of(line[i])
      else if (k == "uri") uri_at = i
      else if (k == "sha256") sha_at = i
    }
    where = "platform " b " (line " first[b] ")"
    if (os == "" || arch == "") fail(where ": no matchLabels os: and arch: lines")
    pa = os "/" arch
    if (pa in seen) fail(pa " appears twice, " where)
    seen[pa] = 1
    if (!uri_at || !sha_at) fail(pa ": no uri: or sha256: line")
    uri = value_of(line[uri_at])
    if (!match(uri, /\/download\/[^\/]+\//)) fail(pa ": uri " uri " has no /download/<version>/ segment")
    old = substr(uri, RSTART + 10, RLENGTH - 11)
    line[uri_at] = with_value(line[uri_at], substr(uri, 1, RSTART - 1) "/download/" version "/" substr(uri, RSTART + RLENGTH))
    if (pa in want) {
      line[sha_at] = with_value(line[sha_at], want[pa])
      printf "krew-manifest-update: %s sha256 %s\n", pa, want[pa] > "/dev/stderr"
    } else if (old != version) {
      line[sha_at] = with_value(line[sha_at], zeros)
      printf "krew-manifest-update: %s not built for %s: sha256 reset to zeros\n", pa, version > "/dev/stderr"
    }
  }
  for (pa in want) if (!(pa in seen)) fail(pa " is not a platform of the manifest")
  line[version_line] = with_value(line[version_line], version)
  for (i = 1; i <= NR; i++) print line[i]
}
' "$manifest" >"$tmp"

# Keep the file mode, then replace atomically.
chmod "$(stat -c %a "$manifest" 2>/dev/null || stat -f %Lp "$manifest")" "$tmp"
mv "$tmp" "$manifest"
trap - EXIT
