#!/usr/bin/env bash
# Pack one krew release archive from binaries already built:
#
#   scripts/package.sh PLATFORM BIN_DIR [MAN_DIR]
#   e.g. bash scripts/manpage.sh dist/man && scripts/package.sh linux_amd64 target/release
#
# writes dist/kubectl-nestor_PLATFORM.tar.gz with, at its root: kubectl-nestor (the plugin
# krew links onto PATH), kubectl_complete-nestor (kubectl's plugin-completion helper),
# LICENSE, LICENSE-MIT, LICENSE-APACHE and README.md, and man/*.1 (the man pages
# scripts/manpage.sh wrote into MAN_DIR, default dist/man: they are the same on every
# platform, so they are made once on the host); then dist/<archive>.sha256. GNU tar makes
# it byte-for-byte reproducible (sorted names, owner 0, file times of the last commit that
# changed what goes in). Checks the listing before it prints the archive's path.
# scripts/release.sh (here) and .github/workflows/release.yml (every platform) call it.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { printf 'package: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 2 ] || [ $# -eq 3 ] || die "usage: $0 PLATFORM BIN_DIR [MAN_DIR]"
platform=$1 bin_dir=$2 man_dir=${3:-dist/man}
[[ $platform =~ ^(linux|darwin)_(amd64|arm64)$ ]] ||
  die "platform '$platform' is none of linux|darwin _ amd64|arm64"

bins=(kubectl-nestor kubectl_complete-nestor)
# The README links its reference pages (docs/*.md): they travel with it.
docs=(LICENSE LICENSE-MIT LICENSE-APACHE README.md docs/*.md)
for b in "${bins[@]}"; do [ -x "$bin_dir/$b" ] || die "no executable $bin_dir/$b (cargo build --release --locked)"; done
for f in "${docs[@]}"; do [ -f "$f" ] || die "missing $f"; done
[ -f "$man_dir/kubectl-nestor.1" ] ||
  die "no man pages in $man_dir (bash scripts/manpage.sh $man_dir writes them)"

epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct -- "${docs[@]}" Cargo.toml Cargo.lock src 2>/dev/null || true)}
epoch=${epoch:-0}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for b in "${bins[@]}"; do cp "$bin_dir/$b" "$stage/$b"; chmod 0755 "$stage/$b"; done
mkdir "$stage/docs"
for f in "${docs[@]}"; do cp "$f" "$stage/$f"; chmod 0644 "$stage/$f"; done
mkdir "$stage/man"
man=()
for page in "$man_dir"/*.1; do
  cp "$page" "$stage/man/"; chmod 0644 "$stage/man/$(basename "$page")"
  man+=("man/$(basename "$page")")
done

mkdir -p dist
archive="dist/kubectl-nestor_${platform}.tar.gz"
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    -C "$stage" -cf - "${bins[@]}" "${docs[@]}" "${man[@]}" | gzip -n -9 >"$archive.tmp"
else
  tar -C "$stage" -cf - "${bins[@]}" "${docs[@]}" "${man[@]}" | gzip -n -9 >"$archive.tmp"
fi
mv "$archive.tmp" "$archive"

listing=$(tar -tzf "$archive")
for f in "${bins[@]}" "${docs[@]}" "${man[@]}"; do
  grep -qx "$f" <<<"$listing" || die "$archive does not list $f"
done
if command -v sha256sum >/dev/null 2>&1; then sum=$(sha256sum "$archive" | cut -d ' ' -f 1)
else sum=$(shasum -a 256 "$archive" | cut -d ' ' -f 1); fi
printf '%s  %s\n' "$sum" "$(basename "$archive")" >"$archive.sha256"
printf 'package: %s  sha256 %s\n' "$archive" "$sum" >&2
echo "$archive"
