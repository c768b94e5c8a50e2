#!/usr/bin/env bash
# scripts/bench-fleet.sh (run as `scripts/bench.sh fleet`) — the fleet view and wait, timed.
#
# 1. `kubectl nestor preview --all` over STACKS prod stacks, each on its own replay server
#    (dirqual fixture, LATENCY ms per request), against the slowest single stack's
#    `kubectl nestor --stack sNN preview` (median of RUNS each, alternating in one run): the
#    ratio is printed, and the ratio to the fleet's floor, max(slowest single stack, fleet
#    CPU / cores).
#    Each timed run also records its CPU time (user + sys of the whole process tree: kubectl's
#    plugin dispatch, nestor and every kubectl it starts; the replay servers are not counted,
#    they stand for remote clusters). CPU time / CPUs is the least wall time any schedule of
#    that work can take here: the "CPU floor". One more `preview --all` pinned to one CPU
#    (taskset) shows how the fleet's wall time follows the CPUs it gets.
# 2. `kubectl nestor wait` on one of them (a layer that never becomes healthy: ceph on the
#    `degraded` fixture) for WAIT_SECONDS with --interval 1s: kubectl processes started,
#    HTTP requests per poll (server audit), and each poll's read time (-v), first and later.
#
# Usage: scripts/bench.sh fleet
#        KUBECTL=/path/to/kubectl RUNS=5 STACKS=10 LATENCY=100 scripts/bench.sh fleet
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh

RUNS=${RUNS:-5}
STACKS=${STACKS:-10}
LATENCY=${LATENCY:-100}
WAIT_SECONDS=${WAIT_SECONDS:-8}
bench_kubectl
bench_build release

WORK=$(bench_workdir bench-fleet)
trap bench_cleanup EXIT

mkdir -p "$WORK/bin" "$WORK/home" "$WORK/repo/stacks"
ln -s "$NESTOR" "$WORK/bin/kubectl-nestor"
export PATH="$WORK/bin:$PATH" HOME="$WORK/home"
unset NESTOR_READ_PATH NESTOR_STACKS_DIR KUBECONFIG
export NESTOR_KUBECTL="$KUBECTL"

start_server() { # name fixture -> writes $WORK/NAME.{port,audit,kubeconfig} and its stack
  start_replay "$1" --generate "$2" --latency-ms "$LATENCY"
  local port=$PORT
  {
    echo "name: $1"
    echo "target_kind: prod"
    echo "kubeconfig: $WORK/$1.kubeconfig"
    echo "endpoint: http://127.0.0.1:$port"
    echo "nodes:"
    for i in 1 2 3 4; do echo "  - { name: dirqual$i, role: $([ $i = 1 ] && echo control-plane || echo worker) }"; done
    echo "layers: [k8s, cni, ceph, storage, monitoring, gitops, registry, dataops]"
  } >"$WORK/repo/stacks/$1.yaml"
}

names=()
for i in $(seq -w 1 "$STACKS"); do names+=("s$i"); start_server "s$i" dirqual; done
single() { (cd "$WORK/repo" && "$KUBECTL" nestor --stack "$1" preview --no-input -o json >/dev/null); }
fleet() { (cd "$WORK/repo" && "$KUBECTL" nestor preview --all -o json >/dev/null); }
say "warming kubectl's discovery caches up"
for n in "${names[@]}"; do single "$n"; done
fleet

say "$RUNS rounds: $STACKS single previews one after the other, then preview --all"
for n in "${names[@]}"; do : >"$WORK/t.$n"; done
: >"$WORK/t.fleet"
for _ in $(seq 1 "$RUNS"); do
  for n in "${names[@]}"; do timed "$WORK/t.$n" single "$n"; done
  timed "$WORK/t.fleet" fleet
done
slowest=0; slowest_name=
for n in "${names[@]}"; do
  m=$(cut -d' ' -f1 <"$WORK/t.$n" | median)
  if awk -v a="$m" -v b="$slowest" 'BEGIN { exit !(a > b) }'; then slowest=$m; slowest_name=$n; fi
done
fl=$(cut -d' ' -f1 <"$WORK/t.fleet" | median)
single_cpu=$(cut -d' ' -f2 <"$WORK/t.$slowest_name" | median)
fleet_cpu=$(cut -d' ' -f2 <"$WORK/t.fleet" | median)
cpus=$(ncpu)
fleet_procs=$( (cd "$WORK/repo" && "$KUBECTL" nestor preview --all -o json -v 2>&1 >/dev/null) | grep -c '^kubectl-nestor: exec: kubectl ' || true)
one_cpu=
if command -v taskset >/dev/null 2>&1 && [ "$cpus" -gt 1 ]; then
  say "$RUNS more rounds of preview --all pinned to one CPU (taskset -c 0)"
  : >"$WORK/t.fleet1"
  for _ in $(seq 1 "$RUNS"); do timed "$WORK/t.fleet1" taskset -c 0 bash -c "cd '$WORK/repo' && '$KUBECTL' nestor preview --all -o json"; done
  one_cpu=$(cut -d' ' -f1 <"$WORK/t.fleet1" | median)
fi

say "wait on a layer that never becomes healthy, ${WAIT_SECONDS}s at --interval 1s"
start_server w degraded
before=$(wc -l <"$WORK/w.audit")
set +e
(cd "$WORK/repo" && "$KUBECTL" nestor --stack w wait --for=healthy ceph --interval 1s \
  --timeout "${WAIT_SECONDS}s" --no-input -v >/dev/null 2>"$WORK/wait.err")
wait_code=$?
set -e
polls=$(grep -c 'wait: poll [0-9]* read in' "$WORK/wait.err" || true)
procs=$(grep -c '^kubectl-nestor: exec: kubectl ' "$WORK/wait.err" || true)
reqs=$(( $(wc -l <"$WORK/w.audit") - before ))
first=$(sed -n 's/.*wait: poll 1 read in \([0-9.]*\)s/\1/p' "$WORK/wait.err")
later=$(sed -n 's/.*wait: poll \([0-9]*\) read in \([0-9.]*\)s/\1 \2/p' "$WORK/wait.err" | awk '$1 > 1 { print $2 }' | median)

kubectl_version=$("$KUBECTL" version --client -o json 2>/dev/null | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | head -1)
echo
echo "$(date -u +%Y-%m-%d) · $(ncpu) CPUs · kubectl $KUBECTL (${kubectl_version:-?}) · $LATENCY ms per request · $RUNS runs, medians"
echo
echo "| | wall |"
echo "|---|---|"
awk -v s="$slowest" -v n="$slowest_name" 'BEGIN { printf "| slowest single stack (%s), `preview` | %.3f s |\n", n, s/1e6 }'
awk -v f="$fl" -v k="$STACKS" 'BEGIN { printf "| `preview --all`, %d stacks on %d servers | %.3f s |\n", k, k, f/1e6 }'
awk -v f="$fl" -v s="$slowest" 'BEGIN { printf "| **ratio** | **%.2f** |\n", f/s }'
echo
awk -v s="$slowest" -v sc="$single_cpu" -v f="$fl" -v fc="$fleet_cpu" -v c="$cpus" -v k="$STACKS" -v p="$fleet_procs" 'BEGIN {
  printf "CPU time (user + sys, dispatch + nestor + kubectl): single stack %.3f s, `preview --all` %.3f s (%.1f%% of %d x single; %d kubectl processes)\n", sc/1e6, fc/1e6, 100*fc/(k*sc), k, p
  printf "CPU floor of `preview --all` on %d CPUs: %.3f s / %d = %.3f s = %.2f x the slowest single stack\n", c, fc/1e6, c, fc/c/1e6, fc/c/s
  floor = (fc/c > s ? fc/c : s)
  printf "fleet floor = max(slowest single stack %.3f s, fleet CPU / cores %.3f s) = %.3f s; measured wall %.3f s: **%.2f x the floor** (goal: 1.15)\n", s/1e6, fc/c/1e6, floor/1e6, f/1e6, f/floor
}'
if [ -n "$one_cpu" ]; then
  awk -v o="$one_cpu" -v f="$fl" -v c="$cpus" 'BEGIN { printf "`preview --all` pinned to 1 CPU: %.3f s wall (%.2f x its wall on %d CPUs)\n", o/1e6, o/f, c }'
fi
echo
echo "wait (exit $wait_code): $polls polls, $procs kubectl process(es) started, $reqs HTTP requests ($(awk -v r="$reqs" -v p="$polls" 'BEGIN { printf "%.1f", (p ? r/p : 0) }') per poll); poll 1 read in ${first:-?} s (proxy start included), later polls ${later:-?} s (median)"
