#!/usr/bin/env bash
# Render the krew-release-bot template (.krew.yaml) into a krew manifest for archives built
# here, as the bot renders it for a release, with two differences that keep the result
# installable by krew:
#
#   scripts/krew-manifest.sh TEMPLATE TAG DIST_DIR > krew-manifest.yaml
#
# - each TagName action becomes TAG (e.g. v0.1.0);
# - each `addURIAndSha "URL" .TagName` action becomes `uri: URL` and `sha256: "HEX"`, the
#   checksum of DIST_DIR/<basename of URL>, QUOTED: YAML 1.1 readers (krew's) read an
#   unquoted run of digits as a number;
# - a platform whose archive is not in DIST_DIR is left out, never listed with a made-up
#   checksum (krew would offer it and fail the download or the checksum).
#
# Anything unexpected (a template action other than those two, no platform left, a TAG that
# is not vMAJOR.MINOR.PATCH) is an error and nothing is printed. scripts/release.sh calls it.
set -euo pipefail

die() { printf 'krew-manifest: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 3 ] || die "usage: $0 TEMPLATE TAG DIST_DIR"
template=$1 tag=$2 dist=$3
[ -f "$template" ] || die "no template at $template"
[ -d "$dist" ] || die "no directory $dist"
[[ $tag =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] ||
  die "tag '$tag' is not a semantic version with a leading v (e.g. v0.1.0)"

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1
  else shasum -a 256 "$1" | cut -d ' ' -f 1; fi
}

# NAME=SHA for every archive in DIST_DIR.
sums=""
for archive in "$dist"/*.tar.gz "$dist"/*.zip; do
  [ -f "$archive" ] || continue
  sums="$sums $(basename "$archive")=$(sha256_of "$archive")"
done

out=$(awk -v tag="$tag" -v sums="$sums" -v template="$template" '
function fail(msg) { print "krew-manifest: error: " template ":" NR ": " msg > "/dev/stderr"; failed = 1; exit 1 }
function indent(s) { match(s, /^ */); return RLENGTH }
function tagged(s) { gsub(/\{\{ *\.TagName *\}\}/, tag, s); return s }
function flush(   i) {
  if (n == 0) return
  if (drop == "") { for (i = 1; i <= n; i++) print buf[i]; kept++ }
  else printf "krew-manifest: %s not built: left out of the manifest\n", drop > "/dev/stderr"
  n = 0; drop = ""
}
BEGIN {
  c = split(sums, kv, " ")
  for (i = 1; i <= c; i++) { eq = index(kv[i], "="); sha[substr(kv[i], 1, eq - 1)] = substr(kv[i], eq + 1) }
  print "# Rendered by scripts/release.sh from .krew.yaml for the archives in dist/: do not edit."
  print "# Install a local build: kubectl krew install --manifest=krew-manifest.yaml \\"
  print "#   --archive=dist/kubectl-nestor_<os>_<arch>.tar.gz"
  header = 1; in_platforms = 0; n = 0; kept = 0
}
header && /^#/ { next }
{ header = 0 }
{
  line = $0
  if (match(line, /\{\{ *addURIAndSha /)) {
    if (!in_platforms) fail("addURIAndSha outside spec.platforms")
    if (!match(line, /^ *\{\{ *addURIAndSha "[^"]+" +\.TagName *\}\} *$/)) fail("addURIAndSha is not alone on its line as addURIAndSha \"URL\" .TagName")
    pad = substr(line, 1, indent(line))
    url = line; sub(/^ *\{\{ *addURIAndSha "/, "", url); sub(/" +\.TagName *\}\} *$/, "", url)
    url = tagged(url)
    if (url ~ /\{\{|\}\}/) fail("a template action inside the URL other than .TagName")
    file = url; sub(/.*\//, "", file)
    if (file in sha) { buf[++n] = pad "uri: " url; buf[++n] = pad "sha256: \"" sha[file] "\"" }
    else { drop = file; buf[++n] = "" }
    next
  }
  line = tagged(line)
  if (line ~ /\{\{|\}\}/) fail("a template action other than .TagName and addURIAndSha: " line)
  if (!in_platforms) {
    print line
    if (line ~ /^  platforms: *$/) { in_platforms = 1; item = -1 }
    next
  }
  # Inside spec.platforms: one item per "- " at the first item indentation.
  if (line ~ /^ *$/) { buf[++n] = line; next }
  d = indent(line)
  if (item < 0) item = d
  if (d < item || (d == item && substr(line, d + 1, 1) != "-")) { flush(); in_platforms = 0; print line; next }
  if (d == item) flush()
  buf[++n] = line
}
END {
  if (failed) exit 1
  flush()
  if (kept == 0) { print "krew-manifest: error: no archive in the dist directory matches a platform of " template > "/dev/stderr"; exit 1 }
}
' "$template") || exit 1
printf '%s\n' "$out"
