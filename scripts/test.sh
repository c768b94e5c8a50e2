#!/usr/bin/env bash
# The README's test command, and the install + test step of .ci/run (which calls this very
# script, so the two cannot drift). On a fresh Debian or Ubuntu machine it installs what the
# tests need, skipping what is present (Debian packages by name, with sudo when not root),
# (with Homebrew instead on macOS) then runs the whole suite, both tiers: `cargo test
# --workspace --locked` plus any arguments given, plus `--include-ignored` (tier 2).
#
#   bash scripts/test.sh                  # install what is missing, then every test
#   bash scripts/test.sh --install-only   # only the install step
#
# What the tests need, and why (tests/cli/readme.rs checks this list against a scratch PATH):
#   openssh-server      /usr/sbin/sshd: the loopback sshd tests (tests/cli/sshd.rs, hosts.rs)
#   kubernetes-client   a real kubectl for the end-to-end tests (tests/e2e), when none is on PATH
#   zsh, fish           the completion tests syntax-check their scripts and drive fish
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '== %s\n' "$*"; }

# The sshd the tests run (tests/cli/sshd.rs). NESTOR_TEST_SSHD only moves where this script
# looks for it (its own test runs it in a scratch root).
sshd=${NESTOR_TEST_SSHD:-/usr/sbin/sshd}

missing=()
[ -x "$sshd" ] || missing+=(openssh-server)
command -v kubectl >/dev/null 2>&1 || missing+=(kubernetes-client)
for shell in zsh fish; do
  command -v "$shell" >/dev/null 2>&1 || missing+=("$shell")
done

if [ "${#missing[@]}" -gt 0 ] && ! command -v apt-get >/dev/null 2>&1 && command -v brew >/dev/null 2>&1; then
  # macOS (the repository's macos-14 job): the same tools by their Homebrew names; macOS has
  # its own /usr/sbin/sshd, Homebrew's openssh stands in where it does not.
  formulae=()
  for p in "${missing[@]}"; do
    case "$p" in
      openssh-server) formulae+=(openssh) ;;
      kubernetes-client) formulae+=(kubernetes-cli) ;;
      *) formulae+=("$p") ;;
    esac
  done
  say "installing ${formulae[*]} (Homebrew formulae)"
  brew install -q "${formulae[@]}" >/dev/null
elif [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/test.sh: error: the tests need these Debian packages: ${missing[*]}" >&2
    echo "hint: no apt-get here: install their equivalents with your package manager, then run this again" >&2
    exit 1
  fi
  # Root on the project's CI; sudo on a GitHub runner or a developer's machine.
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  say "installing ${missing[*]} (Debian packages)"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  say "nothing to install: $sshd, kubectl, zsh and fish are present"
fi

if [ "${1:-}" = "--install-only" ]; then
  exit 0
fi

say "tools: $(command -v kubectl) / $sshd / $(command -v zsh) / $(command -v fish)"
say "kubectl for the end-to-end tests (tests/e2e): $(kubectl version --client 2>/dev/null | head -n 1)"
# Every tier: tier 1 is what a bare `cargo test --workspace` runs; tier 2 is the tests marked
# `#[ignore = "tier 2, ..."]` (a real sshd, memory at scale, builds of the crate), which
# libtest runs with `--include-ignored` (docs/testing.md "Tiers").
args=("$@")
case " $* " in
  *" -- "*) args+=(--include-ignored) ;;
  *) args+=(-- --include-ignored) ;;
esac
# --no-fail-fast: every test binary runs even when one fails (cargo stopped at the first, and
# e2e, fuzz, readme_build and the replay crate never ran: issue 51); the failing tests are
# listed again at the end, above nothing else, however long the output before them.
say "tests: cargo test --workspace --locked --no-fail-fast ${args[*]}"
# Bash alone (no mktemp, tee or grep: tests/cli/readme.rs runs this on a bare PATH): every
# line passes through as it comes, the failing ones are kept, and cargo's exit status comes
# last on a line of its own.
failed=()
status=0
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    "__nestor_cargo_exit="*) status=${line#__nestor_cargo_exit=}; continue ;;
    "test "*" ... FAILED" | "error: "*"test failed"* | "error: "*"target failed"* | "error: "*"targets failed"*) failed+=("$line") ;;
  esac
  printf '%s\n' "$line"
done < <(
  code=0
  cargo test --workspace --locked --no-fail-fast "${args[@]}" 2>&1 || code=$?
  echo "__nestor_cargo_exit=$code"
)
if [ "$status" -ne 0 ]; then
  echo
  say "FAILED (exit $status); every test binary ran. The failing tests:"
  if [ "${#failed[@]}" -gt 0 ]; then
    printf '%s\n' "${failed[@]}"
  else
    echo "(no failing test named: see the build errors above)"
  fi
fi
exit "$status"
