#!/usr/bin/env bash
# scripts/bench.sh — how close `kubectl nestor preview` stays to the floor (docs/read-path.md).
#
# For each cluster (dirqual: 4 nodes; big: 150 nodes, 300 CRDs of ~100 KB, 1000 namespaces,
# 2000 deployments; many-applications: dirqual with 40 000 Argo CD Applications in one list,
# ~59 MB) and each injected latency (20 and 100 ms per request), it starts the
# replay API server, warms kubectl's discovery cache up, then times RUNS rounds that
# alternate `kubectl nestor preview --no-input -o json` and the floor,
# `kubectl get nodes -o json`, both with the SAME kubectl binary and the same KUBECONFIG.
# It prints medians and their ratio (and, for reference, `kubectl-nestor preview` run
# directly, without kubectl's plugin dispatch), the kubectl processes nestor started (-v),
# the HTTP requests and bytes the server answered per preview (its audit), and nestor's own
# CPU time and peak RSS (getrusage(2) of nestor alone, printed by -v), plus what
# `kubectl get crd -o json` downloads on big.
#
# `scripts/bench.sh bounds` runs scripts/bench-bounds.sh instead: 2500 workloads mid-rollout and
# 500 hosts, requests and ssh in flight, threads and peak RSS (SPEC §9 "Bounded per run").
#
# `scripts/bench.sh scale` runs scripts/bench-scale.sh instead: the `huge` cluster (10 000 nodes,
# 20 000 Deployments, 40 000 custom objects) at 20 ms per request, the ratio to one
# `kubectl get nodes -o json` and nestor's own peak RSS (SPEC §9 "Bounded per run").
#
# `scripts/bench.sh fleet` runs scripts/bench-fleet.sh instead: `preview --all` over ten
# stacks on ten servers against its floor, max(slowest single stack, fleet CPU / cores), and
# wait's per-poll cost.
#
# `scripts/bench.sh -v` also prints where preview's wall goes, step by step (medians of the
# `step:` lines of nestor's -v, counted from nestor's main): kubectl's plugin dispatch
# before main, nestor's start (arguments, stack, catalog), kubectl's `config view` and the
# proxy start (at the same time), the rounds of reads, and judging + printing + exit.
# Every row prints the rounds of parallel GETs preview read in (SPEC §11: one, plus at most one
# for what the first names), from its -v `round N:` lines.
#
# Usage: scripts/bench.sh                      # kubectl from PATH
#        KUBECTL=/path/to/kubectl RUNS=9 scripts/bench.sh
#        CLUSTERS=dirqual LATENCIES=100 scripts/bench.sh
#        CLUSTERS=big LATENCIES=20 LAYERS="[k8s, cni, pod-security, hubble]" scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = fleet ]; then exec bash scripts/bench-fleet.sh; fi
if [ "${1:-}" = bounds ]; then exec bash scripts/bench-bounds.sh; fi
if [ "${1:-}" = scale ]; then exec bash scripts/bench-scale.sh; fi
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
STEPS=
if [ "${1:-}" = -v ]; then STEPS=1; fi

RUNS=${RUNS:-9}
WARMUP=${WARMUP:-2}
CLUSTERS=${CLUSTERS:-"dirqual big many-applications"}
LATENCIES=${LATENCIES:-"20 100"}
# The layers the benchmark stack declares (the SPEC §1 stack's by default); e.g. add the SPEC
# §15 ones: LAYERS="[k8s, cni, ..., certs, pod-security, kube-proxy-replacement, hubble]".
LAYERS=${LAYERS:-"[k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]"}
bench_kubectl
bench_build release

WORK=$(bench_workdir bench)
trap bench_cleanup EXIT

# `kubectl nestor` finds the plugin on PATH; HOME is fresh (discovery cache warmed below).
mkdir -p "$WORK/bin" "$WORK/home" "$WORK/repo/stacks"
ln -s "$NESTOR" "$WORK/bin/kubectl-nestor"
export PATH="$WORK/bin:$PATH" HOME="$WORK/home"
unset NESTOR_KUBECTL NESTOR_READ_PATH NESTOR_STACKS_DIR
export NESTOR_KUBECTL="$KUBECTL"

# One preview's -v `step:` lines (file $1) and its wall in µs ($2) as "key ms" lines.
steps_of() {
  awk -v wall="$2" '
    / step: / {
      line = $0; sub(/.* step: /, "", line)
      n = split(line, f, " "); range = f[n - 1]; name = line; sub(/ [0-9.]+\.\.[0-9.]+ ms$/, "", name)
      split(range, r, /\.\./); s[name] = r[1]; e[name] = r[2]
    }
    END {
      a = "authority (kubectl config view)"; p = "proxy start (until its socket accepts)"
      rs = -1; re = -1
      for (k in s) if (k ~ /^reads /) { if (rs < 0 || s[k] < rs) rs = s[k]; if (e[k] > re) re = e[k] }
      run = e["run"]; first = s[a]; if (p in s && s[p] < first) first = s[p]
      both = e[a]; if (p in e && e[p] > both) both = e[p]
      printf "1 dispatch:_kubectl_plugin_dispatch_before_main %.1f\n", wall / 1000 - run
      printf "2 start:_arguments,_stack,_catalog %.1f\n", first
      printf "3 authority:_config_view %.1f\n", e[a] - s[a]
      if (p in s) printf "4 proxy:_start_until_serving %.1f\n", e[p] - s[p]
      printf "5 both:_config_view_||_proxy,_serial_share %.1f\n", both - first
      if (rs >= 0) printf "6 reads:_every_round %.1f\n", re - rs
      if (rs >= 0) printf "7 tail:_judge,_print,_exit %.1f\n", run - re
      printf "8 run:_nestor_main_to_exit %.1f\n", run
    }' "$1"
}

start_server() { # cluster latency
  start_replay server --generate "$1" --latency-ms "$2"
  export KUBECONFIG="$WORK/server.kubeconfig"
}

stop_server() { stop_replay; }

write_stack() { # cluster
  local n=4
  [ "$1" = big ] && n=150
  {
    echo "name: $1"
    echo "target_kind: prod"
    echo "kubeconfig: $KUBECONFIG"
    echo "endpoint: http://127.0.0.1:$PORT"
    echo "nodes:"
    echo "  - { name: dirqual1, role: control-plane }"
    for i in $(seq 2 "$n"); do echo "  - { name: dirqual$i, role: worker }"; done
    echo "layers: $LAYERS"
  } >"$WORK/repo/stacks/$1.yaml"
  ln -sfn "$1.yaml" "$WORK/repo/stacks/current.yaml"
}

floor() { "$KUBECTL" get nodes -o json >/dev/null; }
preview() { (cd "$WORK/repo" && "$KUBECTL" nestor preview --no-input -o json -v >/dev/null 2>"$WORK/preview.err"); }
# The same without kubectl's plugin dispatch in front (one process start less), for reference.
direct() { (cd "$WORK/repo" && kubectl-nestor preview --no-input -o json >/dev/null); }

ROWS=()
STEP_ROWS=()
CRD_BYTES="-"
for cluster in $CLUSTERS; do
  for latency in $LATENCIES; do
    say "$cluster at ${latency} ms per request"
    start_server "$cluster" "$latency"
    write_stack "$cluster"
    for _ in $(seq 1 "$WARMUP"); do floor; preview; direct; done
    : >"$WORK/t.floor"; : >"$WORK/t.preview"; : >"$WORK/t.direct"; : >"$WORK/procs"; : >"$WORK/reqs"; : >"$WORK/bytes"
    : >"$WORK/cpu"; : >"$WORK/rss"; : >"$WORK/cpu_pct"; : >"$WORK/steps"; : >"$WORK/rounds"
    for _ in $(seq 1 "$RUNS"); do
      before=$(wc -l <"$WORK/server.audit")
      t0=$(now_ns); preview; t1=$(now_ns)
      read -r reqs bytes < <(audit_since "$WORK/server.audit" "$before")
      t2=$(now_ns); floor; t3=$(now_ns)
      t4=$(now_ns); direct; t5=$(now_ns)
      echo $(( (t5 - t4) / 1000 )) >>"$WORK/t.direct"
      wall_ms=$(( (t1 - t0) / 1000000 ))
      steps_of "$WORK/preview.err" $(( (t1 - t0) / 1000 )) >>"$WORK/steps"
      echo $(( (t1 - t0) / 1000 )) >>"$WORK/t.preview"
      echo $(( (t3 - t2) / 1000 )) >>"$WORK/t.floor"
      grep -c '^kubectl-nestor: exec: kubectl ' "$WORK/preview.err" >>"$WORK/procs" || true
      sed -n 's/^kubectl-nestor: round \([0-9]*\):.*GETs at once.*/\1/p' "$WORK/preview.err" | sort -un | wc -l >>"$WORK/rounds"
      echo "$reqs" >>"$WORK/reqs"; echo "$bytes" >>"$WORK/bytes"
      read -r cpu rss < <(own_usage "$WORK/preview.err")
      echo "${cpu:-0}" >>"$WORK/cpu"; echo "${rss:-0}" >>"$WORK/rss"
      awk -v c="${cpu:-0}" -v w="$wall_ms" 'BEGIN { printf "%.1f\n", (w > 0 ? 100 * c / w : 0) }' >>"$WORK/cpu_pct"
    done
    if [ "$cluster" = big ] && [ "$CRD_BYTES" = "-" ]; then
      before=$(wc -l <"$WORK/server.audit")
      "$KUBECTL" get crd -o json >/dev/null
      read -r _ CRD_BYTES < <(audit_since "$WORK/server.audit" "$before")
    fi
    fl=$(median <"$WORK/t.floor"); pv=$(median <"$WORK/t.preview"); di=$(median <"$WORK/t.direct")
    ROWS+=("$(awk -v c="$cluster" -v l="$latency" -v f="$fl" -v p="$pv" -v d="$di" \
      -v procs="$(median <"$WORK/procs")" -v rounds="$(max <"$WORK/rounds")" -v reqs="$(median <"$WORK/reqs")" -v bytes="$(median <"$WORK/bytes")" \
      -v cpu="$(median <"$WORK/cpu")" -v pct="$(median <"$WORK/cpu_pct")" -v rss="$(max <"$WORK/rss")" \
      'BEGIN { printf "| %s | %d ms | %.3f s | %.3f s | **%.2f** | %d | %.3f s (%.2f) | %d | %d | %d | %.1f ms (%.1f%%) | %.1f MiB |", c, l, f/1e6, p/1e6, p/f, rounds, d/1e6, d/f, procs, reqs, bytes, cpu, pct, rss/1024 }')")
    if [ -n "$STEPS" ]; then
      STEP_ROWS+=("$cluster $latency ms, preview $(awk -v p="$pv" 'BEGIN { printf "%.1f", p/1e3 }') ms:")
      for key in $(cut -d' ' -f1,2 "$WORK/steps" | sort -u | tr ' ' '|'); do
        k=${key#*|}
        m=$(awk -v k="$k" '$2 == k { print $3 }' "$WORK/steps" | median)
        STEP_ROWS+=("$(awk -v k="$k" -v m="$m" -v p="$pv" 'BEGIN { gsub(/_/, " ", k); printf "  %-52s %7.1f ms  %5.1f%%", k, m, 100 * m * 1000 / p }')")
      done
    fi
    stop_server
  done
done

kubectl_version=$("$KUBECTL" version --client -o json 2>/dev/null | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | head -1)
echo
echo "$(date -u +%Y-%m-%d) · $(ncpu) CPUs · $(cpu_model) · kubectl $KUBECTL (${kubectl_version:-?}) · $RUNS runs after $WARMUP warm-up rounds, medians"
echo
echo "| cluster | latency | floor | preview | ratio | rounds (max) | kubectl-nestor direct (ratio) | kubectl procs | HTTP requests | bytes served | nestor CPU (of wall) | nestor peak RSS (max) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
for row in "${ROWS[@]}"; do
  case "$row" in
    "| big |"*) echo "nestor's own peak RSS on the 150-node cluster (big): $(awk -F'|' '{gsub(/ /, "", $13); print $13}' <<<"$row") (goal: under 32 MiB)" ;;
    "| many-applications |"*) echo "nestor's own peak RSS with 40 000 custom objects in one list (many-applications): $(awk -F'|' '{gsub(/ /, "", $13); print $13}' <<<"$row") (goal: under 64 MiB)" ;;
  esac
done
if [ -n "$STEPS" ]; then
  echo
  echo "Where preview's wall goes (medians of each step; shares of preview's median wall; the"
  echo "authority and the proxy run at the same time, so their serial share is the 'both' line):"
  printf '%s\n' "${STEP_ROWS[@]}"
fi
if [ "$CRD_BYTES" != "-" ]; then
  echo "\`kubectl get crd -o json\` on big: $CRD_BYTES bytes served"
fi
