#!/usr/bin/env bash
# scripts/bench-scale.sh (run as `scripts/bench.sh scale`) — one memory budget per run at
# scale (SPEC §9 "Bounded per run", issue 31): the replay server's `huge` cluster (10 000
# nodes, each with its CiliumNode and CSINode; 20 000 more Deployments in kube-system, a
# namespace the built-in checks read; 40 000 Argo CD Applications in one list) at LATENCY ms
# per request. RUNS rounds alternate `kubectl nestor preview --no-input -o json -v` and the
# floor, one `kubectl get nodes -o json` (same kubectl, same KUBECONFIG), after one warm-up
# round; it prints the median ratio, nestor's own peak RSS (getrusage of nestor alone, its -v
# usage line; max of the runs), nestor's CPU, the bytes served per preview and what nestor
# kept of them (its -v memory budget line). Then one `kubectl nestor gate drain GATE_NODE
# --no-ssh` on the same cluster (issue 33's goal): its time, exit code, nestor's own peak RSS
# and what its reads kept of the budget; and one `gate upgrade cilium GATE_CILIUM`, whose
# later layers are read as preview reads them, beside the component's own reads (two memory
# budgets live at once).
#
# Goals: within 0.3x of the floor (ratio <= 1.3) and under 64 MiB of nestor's own peak RSS,
# for preview and for the gates.
#
# Usage: scripts/bench.sh scale
#        RUNS=5 LATENCY=20 PROFILE=debug KUBECTL=/path/to/kubectl scripts/bench.sh scale
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

RUNS=${RUNS:-3}
LATENCY=${LATENCY:-20}
PROFILE=${PROFILE:-release}
GATE_NODE=${GATE_NODE:-dirqual2}
GATE_CILIUM=${GATE_CILIUM:-1.17}
LAYERS=${LAYERS:-"[k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]"}
bench_kubectl
bench_build "$PROFILE"

WORK=$(bench_workdir bench-scale)
trap bench_cleanup EXIT
mkdir -p "$WORK/bin" "$WORK/home" "$WORK/repo/stacks"
ln -s "$NESTOR" "$WORK/bin/kubectl-nestor"
export PATH="$WORK/bin:$PATH" HOME="$WORK/home"
unset NESTOR_READ_PATH NESTOR_STACKS_DIR
export NESTOR_KUBECTL="$KUBECTL"

say "generating and serving the huge cluster ($LATENCY ms per request)"
start_replay huge --generate huge --latency-ms "$LATENCY"
export KUBECONFIG="$WORK/huge.kubeconfig"
{
  echo "name: huge"
  echo "target_kind: prod"
  echo "kubeconfig: $KUBECONFIG"
  echo "endpoint: http://127.0.0.1:$PORT"
  echo "nodes:"
  echo "  - { name: dirqual1, role: control-plane }"
  i=2
  while [ "$i" -le 10000 ]; do echo "  - { name: dirqual$i, role: worker }"; i=$((i + 1)); done
  echo "layers: $LAYERS"
} >"$WORK/repo/stacks/huge.yaml"
ln -sfn huge.yaml "$WORK/repo/stacks/current.yaml"

floor() { "$KUBECTL" get nodes -o json >/dev/null; }
preview() { (cd "$WORK/repo" && "$KUBECTL" nestor preview --no-input -o json -v --request-timeout=300s >"$WORK/preview.json" 2>"$WORK/preview.err"); }

say "warm-up round"
floor; preview || true
: >"$WORK/t.floor"; : >"$WORK/t.preview"; : >"$WORK/rss"; : >"$WORK/cpu"; : >"$WORK/bytes"; : >"$WORK/kept"
for _ in $(seq 1 "$RUNS"); do
  before=$(wc -l <"$WORK/huge.audit")
  t0=$(now_ns); preview || true; t1=$(now_ns)
  read -r _ bytes < <(audit_since "$WORK/huge.audit" "$before")
  t2=$(now_ns); floor; t3=$(now_ns)
  echo $(( (t1 - t0) / 1000 )) >>"$WORK/t.preview"
  echo $(( (t3 - t2) / 1000 )) >>"$WORK/t.floor"
  read -r cpu rss < <(own_usage "$WORK/preview.err")
  echo "$cpu" >>"$WORK/cpu"; echo "$rss" >>"$WORK/rss"; echo "$bytes" >>"$WORK/bytes"
  sed -n 's/.*memory budget: \([0-9.]*\) MiB of.*/\1/p' "$WORK/preview.err" | head -1 >>"$WORK/kept"
done
say "one gate drain $GATE_NODE"
t0=$(now_ns)
gate_code=0
(cd "$WORK/repo" && "$KUBECTL" nestor gate drain "$GATE_NODE" --no-ssh --no-input -o json -v --request-timeout=300s >"$WORK/gate.json" 2>"$WORK/gate.err") || gate_code=$?
t1=$(now_ns)
read -r gate_cpu gate_rss < <(own_usage "$WORK/gate.err")
gate_kept=$(sed -n 's/.*memory budget: \([0-9.]*\) MiB of.*/\1/p' "$WORK/gate.err" | head -1)
gate_verdict=$(jq -r '.verdict.line // "?"' "$WORK/gate.json" 2>/dev/null || echo "?")
say "one gate upgrade cilium $GATE_CILIUM"
t2=$(now_ns)
up_code=0
(cd "$WORK/repo" && "$KUBECTL" nestor gate upgrade cilium "$GATE_CILIUM" --no-ssh --no-input -o json -v --request-timeout=300s >"$WORK/up.json" 2>"$WORK/up.err") || up_code=$?
t3=$(now_ns)
read -r up_cpu up_rss < <(own_usage "$WORK/up.err")
up_kept=$(sed -n 's/.*memory budget: \([0-9.]*\) MiB of.*/\1/p' "$WORK/up.err" | paste -sd+ - | sed 's/^$/0/' | bc)
up_verdict=$(jq -r '.verdict.line // "?"' "$WORK/up.json" 2>/dev/null || echo "?")
states=$(jq -r '[.real.layers[] | "\(.id)=\(.state)"] | join(" ")' "$WORK/preview.json" 2>/dev/null || echo "?")

kubectl_version=$("$KUBECTL" version --client -o json 2>/dev/null | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | head -1)
echo
echo "$(date -u +%Y-%m-%d) · $(ncpu) CPUs · $(cpu_model) · $PROFILE build · kubectl $KUBECTL (${kubectl_version:-?}) · $LATENCY ms per request · $RUNS runs after 1 warm-up, medians"
echo
echo "| cluster | floor: kubectl get nodes -o json | preview | ratio | bytes served per preview | kept (memory budget) | nestor CPU | nestor peak RSS (max) |"
echo "|---|---|---|---|---|---|---|---|"
awk -v f="$(median <"$WORK/t.floor")" -v p="$(median <"$WORK/t.preview")" -v b="$(median <"$WORK/bytes")" \
  -v k="$(median <"$WORK/kept")" -v c="$(median <"$WORK/cpu")" -v r="$(max <"$WORK/rss")" \
  'BEGIN { printf "| huge: 10 000 nodes, 20 000 Deployments, 40 000 Applications | %.3f s | %.3f s | **%.2f** | %d | %.1f MiB | %.0f ms | %.1f MiB |\n", f/1e6, p/1e6, p/f, b, k, c, r/1024 }'
echo
echo "| gate drain $GATE_NODE --no-ssh, one run: time | exit | verdict | kept (memory budget) | nestor CPU | nestor peak RSS |"
echo "|---|---|---|---|---|---|"
awk -v t=$(( (t1 - t0) / 1000 )) -v e="$gate_code" -v v="$gate_verdict" -v k="${gate_kept:-0}" -v c="$gate_cpu" -v r="$gate_rss" \
  'BEGIN { printf "| %.3f s | %s | %s | %.1f MiB | %.0f ms | %.1f MiB |\n", t/1e6, e, v, k, c, r/1024 }'
echo
echo "| gate upgrade cilium $GATE_CILIUM --no-ssh, one run: time | exit | verdict | kept (memory budgets, summed) | nestor CPU | nestor peak RSS |"
echo "|---|---|---|---|---|---|"
awk -v t=$(( (t3 - t2) / 1000 )) -v e="$up_code" -v v="$up_verdict" -v k="${up_kept:-0}" -v c="$up_cpu" -v r="$up_rss" \
  'BEGIN { printf "| %.3f s | %s | %s | %.1f MiB | %.0f ms | %.1f MiB |\n", t/1e6, e, v, k, c, r/1024 }'
echo
echo "layers: $states"
echo "goals: ratio at most 1.30 (within 0.3x of the floor); nestor's own peak RSS under 64 MiB (preview and the gates)"
