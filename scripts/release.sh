#!/usr/bin/env bash
# Build the krew release archives and write their sha256 into krew-manifest.yaml.
#
#   bash scripts/release.sh
#
# - builds the host target with `cargo build --release --locked`;
# - builds the other krew platforms (linux/darwin x amd64/arm64) only when
#   `rustup target list --installed` shows a Rust target for them (nothing is downloaded;
#   a cross build also needs a linker for that target) and says which ones it skipped;
# - packs kubectl-nestor, LICENSE, LICENSE-MIT, LICENSE-APACHE and README.md at the root of
#   dist/kubectl-nestor_<os>_<arch>.tar.gz (deterministic tar and gzip with GNU tar),
#   writes dist/<archive>.sha256;
# - updates krew-manifest.yaml in place (spec.version from Cargo.toml, the version in each
#   uri, the sha256 of each archive built) with scripts/krew-manifest-update.sh;
# - checks that the host archive lists kubectl-nestor and LICENSE and that the manifest now
#   holds its sha256.
#
# Then: kubectl krew install --manifest=krew-manifest.yaml --archive=dist/<host archive>
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'release: %s\n' "$*" >&2; }
die() { printf 'release: error: %s\n' "$*" >&2; exit 1; }

manifest=krew-manifest.yaml
files=(kubectl-nestor LICENSE LICENSE-MIT LICENSE-APACHE README.md)
for f in "${files[@]:1}" "$manifest"; do [ -f "$f" ] || die "missing $f"; done

version="v$(sed -n 's/^version = "\([^"]*\)"$/\1/p' Cargo.toml | head -n 1)"
[ "$version" != v ] || die "no version in Cargo.toml"
host=$(rustc -vV | sed -n 's/^host: //p')
[ -n "$host" ] || die "rustc -vV names no host target"
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
[ -n "$target_dir" ] || die "cargo metadata names no target directory"

# Rust targets that can produce each krew platform, preferred first (musl is static).
candidates() {
  case $1 in
    linux_amd64) echo x86_64-unknown-linux-musl x86_64-unknown-linux-gnu ;;
    linux_arm64) echo aarch64-unknown-linux-musl aarch64-unknown-linux-gnu ;;
    darwin_amd64) echo x86_64-apple-darwin ;;
    darwin_arm64) echo aarch64-apple-darwin ;;
  esac
}
platform_of() {
  local p
  for p in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
    case " $(candidates $p) " in *" $1 "*) echo "$p"; return ;; esac
  done
}

host_platform=$(platform_of "$host")
[ -n "$host_platform" ] || die "host $host is none of linux/darwin x amd64/arm64: krew has no platform for it here"

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1
  else shasum -a 256 "$1" | cut -d ' ' -f 1; fi
}

# File times in the archive: the last commit that changed what goes into it, so a commit of
# the manifest alone does not change the archive (and its sha256) on the next run.
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct -- "${files[@]:1}" Cargo.toml Cargo.lock src 2>/dev/null)}
epoch=${epoch:-0}
pack() { # pack BINARY PLATFORM -> prints the archive path
  local bin=$1 platform=$2 stage archive
  stage=$(mktemp -d)
  cp "$bin" "$stage/kubectl-nestor"
  cp "${files[@]:1}" "$stage/"
  chmod 0755 "$stage/kubectl-nestor"
  (cd "$stage" && chmod 0644 "${files[@]:1}")
  archive="dist/kubectl-nestor_${platform}.tar.gz"
  mkdir -p dist
  if tar --version 2>/dev/null | grep -q 'GNU tar'; then
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
      -C "$stage" -cf - "${files[@]}" | gzip -n -9 >"$archive.tmp"
  else
    tar -C "$stage" -cf - "${files[@]}" | gzip -n -9 >"$archive.tmp"
  fi
  mv "$archive.tmp" "$archive"
  rm -rf "$stage"
  echo "$archive"
}

installed=""
if command -v rustup >/dev/null 2>&1; then
  installed=" $(rustup target list --installed | tr '\n' ' ') "
else
  say "no rustup: only the host target $host can be built"
fi

built=()      # PLATFORM=ARCHIVE
skipped=()
say "$version: host $host ($host_platform)"
cargo build --release --locked
built+=("$host_platform=$(pack "$target_dir/release/kubectl-nestor" "$host_platform")")

for platform in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
  [ "$platform" != "$host_platform" ] || continue
  target=""
  for t in $(candidates $platform); do
    case $installed in *" $t "*) target=$t; break ;; esac
  done
  if [ -z "$target" ]; then
    skipped+=("$platform (no installed Rust target among: $(candidates $platform))")
    continue
  fi
  say "$platform: cargo build --release --locked --target $target"
  if cargo build --release --locked --target "$target"; then
    built+=("$platform=$(pack "$target_dir/$target/release/kubectl-nestor" "$platform")")
  else
    skipped+=("$platform (the build for $target failed: a linker for it? see above)")
  fi
done

pairs=()
for entry in "${built[@]}"; do
  platform=${entry%%=*}
  archive=${entry#*=}
  sha=$(sha256_of "$archive")
  printf '%s  %s\n' "$sha" "$(basename "$archive")" >"$archive.sha256"
  pairs+=("${platform/_//}=$sha")
  say "built $archive  sha256 $sha"
done
for s in ${skipped[@]+"${skipped[@]}"}; do say "skipped $s"; done

scripts/krew-manifest-update.sh "$manifest" "$version" "${pairs[@]}"

# Check what krew will check: bin and LICENSE at the archive root, and the checksum.
host_archive="dist/kubectl-nestor_${host_platform}.tar.gz"
listing=$(tar -tzf "$host_archive")
for f in kubectl-nestor LICENSE; do
  grep -qx "$f" <<<"$listing" || die "$host_archive does not list $f"
done
host_sha=$(sha256_of "$host_archive")
grep -q "sha256: $host_sha" "$manifest" || die "$manifest does not hold $host_sha"
say "ok: $host_archive lists kubectl-nestor and LICENSE; $manifest holds its sha256"
say "install it: kubectl krew install --manifest=$manifest --archive=$host_archive"
