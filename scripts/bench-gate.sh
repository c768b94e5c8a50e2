#!/usr/bin/env bash
# scripts/bench-gate.sh — `gate upgrade kubernetes VERSION` against `preview` on the same
# cluster (issue 33's goal: a gate within 1.3x of preview's time in the same run). It starts
# the replay API server on the 4-node `dirqual-gates` fixture at LATENCY ms per request,
# warms kubectl's discovery cache up, then alternates RUNS rounds of
# `kubectl nestor preview --no-input -o json` and `kubectl nestor gate upgrade kubernetes
# 1.32 --no-ssh --no-input -o json` (the same kubectl, KUBECONFIG and stack), and prints both
# medians, the ratio measured in this run, and the requests each sent (the server's audit).
#
# GATE names another gate (its words after `gate`), e.g. GATE="upgrade cilium 1.18.5" (which
# reads the stack's layers after cni too); LAYERS the stack's `layers:` (the SPEC §1 list).
#
# Usage: scripts/bench-gate.sh                 # debug binaries already built (BUILD=no)
#        PROFILE=release BUILD=yes RUNS=15 LATENCY=20 scripts/bench-gate.sh
#        GATE="upgrade rook 1.17" scripts/bench-gate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
RUNS=${RUNS:-9}
WARMUP=${WARMUP:-2}
LATENCY=${LATENCY:-20}
VERSION=${VERSION:-1.32}
BUILD=${BUILD:-no}
GATE=${GATE:-upgrade kubernetes $VERSION --no-ssh}
LAYERS=${LAYERS:-[k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]}
bench_kubectl
bench_build "${PROFILE:-debug}"

WORK=$(bench_workdir gate)
trap bench_cleanup EXIT
mkdir -p "$WORK/bin" "$WORK/home" "$WORK/repo/stacks"
ln -s "$NESTOR" "$WORK/bin/kubectl-nestor"
export PATH="$WORK/bin:$PATH" HOME="$WORK/home"
unset NESTOR_KUBECTL NESTOR_READ_PATH NESTOR_STACKS_DIR
export NESTOR_KUBECTL="$KUBECTL"

start_replay server --generate dirqual-gates --latency-ms "$LATENCY"
export KUBECONFIG="$WORK/server.kubeconfig"
{
  echo "name: dirqual"
  echo "target_kind: prod"
  echo "kubeconfig: $KUBECONFIG"
  echo "endpoint: http://127.0.0.1:$PORT"
  echo "nodes:"
  echo "  - { name: dirqual1, role: control-plane }"
  for i in 2 3 4; do echo "  - { name: dirqual$i, role: worker }"; done
  echo "layers: $LAYERS"
} >"$WORK/repo/stacks/dirqual.yaml"
ln -sfn dirqual.yaml "$WORK/repo/stacks/current.yaml"

preview() { (cd "$WORK/repo" && "$KUBECTL" nestor preview --no-input -o json >/dev/null) || true; }
# shellcheck disable=SC2086 # GATE is its words
gate() { (cd "$WORK/repo" && "$KUBECTL" nestor gate $GATE --no-input -o json >/dev/null) || true; }
lines() { wc -l <"$WORK/server.audit" | tr -d ' '; }

for _ in $(seq 1 "$WARMUP"); do preview; gate; done
: >"$WORK/t.preview"; : >"$WORK/t.gate"; : >"$WORK/r.preview"; : >"$WORK/r.gate"
for _ in $(seq 1 "$RUNS"); do
  a=$(lines); t0=$(now_ns); preview; t1=$(now_ns); b=$(lines)
  t2=$(now_ns); gate; t3=$(now_ns); c=$(lines)
  echo $(( (t1 - t0) / 1000 )) >>"$WORK/t.preview"
  echo $(( (t3 - t2) / 1000 )) >>"$WORK/t.gate"
  echo $(( b - a )) >>"$WORK/r.preview"
  echo $(( c - b )) >>"$WORK/r.gate"
done
p=$(median <"$WORK/t.preview"); g=$(median <"$WORK/t.gate")
printf 'dirqual-gates at %s ms/request, %s runs (%s binaries)\n' "$LATENCY" "$RUNS" "${PROFILE:-debug}"
printf '  preview                      median %8.1f ms, %s requests\n' "$(echo "$p / 1000" | bc -l)" "$(median <"$WORK/r.preview")"
printf '  gate %s median %8.1f ms, %s requests\n' "$GATE" "$(echo "$g / 1000" | bc -l)" "$(median <"$WORK/r.gate")"
printf '  ratio gate/preview: %.2f (goal <= 1.30)\n' "$(echo "$g / $p" | bc -l)"
