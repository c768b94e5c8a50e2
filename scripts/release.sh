#!/usr/bin/env bash
# Build the krew release archives this machine can build and render krew-manifest.yaml from
# them:
#
#   bash scripts/release.sh
#
# - empties dist/ of earlier archives, so the manifest lists only what this run built;
# - builds kubectl-nestor and kubectl_complete-nestor for the host with
#   `cargo build --release --locked`, and for the other krew platforms (linux/darwin x
#   amd64/arm64) only when `rustup target list --installed` has a Rust target for them
#   (nothing is downloaded; a cross build also needs a linker) and says which it skipped;
# - writes the man pages (scripts/manpage.sh, dist/man) and packs each platform with
#   scripts/package.sh (binaries, LICENSE*, README.md, man/*.1; dist/*.sha256);
# - renders .krew.yaml (the krew-release-bot template) into krew-manifest.yaml with
#   scripts/krew-manifest.sh: the platforms built here only, every sha256 quoted.
#
# Every platform of a release is built by .github/workflows/release.yml on a v* tag; see
# docs/releasing.md. Then: kubectl krew install --manifest=krew-manifest.yaml \
#   --archive=dist/kubectl-nestor_<os>_<arch>.tar.gz
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'release: %s\n' "$*" >&2; }
die() { printf 'release: error: %s\n' "$*" >&2; exit 1; }

manifest=krew-manifest.yaml
template=.krew.yaml
[ -f "$template" ] || die "missing $template"
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

installed=""
if command -v rustup >/dev/null 2>&1; then
  installed=" $(rustup target list --installed | tr '\n' ' ') "
else
  say "no rustup: only the host target $host can be built"
fi

mkdir -p dist
rm -f dist/kubectl-nestor_*.tar.gz dist/kubectl-nestor_*.tar.gz.sha256
# The man pages every archive carries (the same for every platform: made once, here).
rm -rf dist/man
bash scripts/manpage.sh dist/man >/dev/null
build=(cargo build --release --locked -p kubectl-nestor --bins)
say "$version: host $host ($host_platform)"
"${build[@]}"
bash scripts/package.sh "$host_platform" "$target_dir/release" >/dev/null

skipped=()
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
  say "$platform: ${build[*]} --target $target"
  if "${build[@]}" --target "$target"; then
    bash scripts/package.sh "$platform" "$target_dir/$target/release" >/dev/null
  else
    skipped+=("$platform (the build for $target failed: a linker for it? see above)")
  fi
done
for s in ${skipped[@]+"${skipped[@]}"}; do say "skipped $s: left out of $manifest"; done

tmp=$(mktemp "./.krew-manifest.XXXXXX")
trap 'rm -f "$tmp"' EXIT
bash scripts/krew-manifest.sh "$template" "$version" dist >"$tmp"
chmod 0644 "$tmp"
mv "$tmp" "$manifest"
trap - EXIT
say "wrote $manifest for: $(cd dist && ls kubectl-nestor_*.tar.gz | tr '\n' ' ')"
say "install it: kubectl krew install --manifest=$manifest --archive=dist/kubectl-nestor_${host_platform}.tar.gz"
