#!/usr/bin/env bash
# Man pages from the clap definition (examples/manpage.rs, clap_mangen):
#
#   bash scripts/manpage.sh [DIR]    # default DIR: dist/man
#   man -l dist/man/kubectl-nestor.1
#
# One page per command: kubectl-nestor.1, kubectl-nestor-stack.1, ...
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-dist/man}
cargo run --quiet --locked --example manpage -- "$dir"
ls "$dir"/*.1
