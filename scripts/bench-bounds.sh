#!/usr/bin/env bash
# scripts/bench-bounds.sh (run as `scripts/bench.sh bounds`) — the bounds of a run (SPEC §9
# "Bounded per run", issue 31), measured on the real kubectl and the replay server:
#
# 1. WORKLOADS Deployments mid-rollout (dirqual plus `rook-ceph-osd-NNNN` in rook-ceph, each
#    1 of 3 replicas updated), LATENCY ms per request: nestor's requests in flight at most
#    (the server's audit: each request's arrival and answer time), pod lists sent, threads
#    at most and peak RSS (sampled from /proc/PID/status while it runs).
# 2. HOSTS hosts read by sshd-hardening through a stub ssh that takes SSH_MS ms per call:
#    ssh at once at most (the stub logs each call's start and end), threads and peak RSS.
#
# Goals: each under 64 MiB of nestor's own peak RSS and 64 threads; at most 16 API reads and
# 8 ssh in flight.
#
# Usage: scripts/bench.sh bounds
#        WORKLOADS=8000 HOSTS=500 LATENCY=20 PROFILE=debug scripts/bench.sh bounds
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh

WORKLOADS=${WORKLOADS:-2500}
HOSTS=${HOSTS:-500}
LATENCY=${LATENCY:-20}
SSH_MS=${SSH_MS:-50}
PROFILE=${PROFILE:-release}
bench_kubectl
command -v jq >/dev/null || { echo "bench: needs jq" >&2; exit 1; }
bench_build "$PROFILE"

WORK=$(bench_workdir bounds)
trap bench_cleanup EXIT
mkdir -p "$WORK/home" "$WORK/repo/stacks" "$WORK/repo/bootstrap"
export HOME="$WORK/home" NESTOR_KUBECTL="$KUBECTL"
unset NESTOR_READ_PATH NESTOR_STACKS_DIR NESTOR_SSH

# The most of the +1/-1 events ("TIME DELTA" lines) at one instant.
peak() { sort -n -k1,1 -k2,2 | awk '{ now += $2; if (now > top) top = now } END { print top + 0 }'; }

# Run nestor (args "$@") from the repo, sampling its threads and VmHWM: prints "threads KiB".
sampled() {
  (cd "$WORK/repo" && exec "$NESTOR" "$@" >"$WORK/out" 2>"$WORK/err") &
  local pid=$! threads=0 hwm=0 t h
  while kill -0 "$pid" 2>/dev/null; do
    t=$(awk '/^Threads:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$t" ] && [ "$t" -gt "$threads" ] && threads=$t
    [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
    sleep 0.005
  done
  wait "$pid" || true
  echo "$threads $hwm"
}

say "$WORKLOADS Deployments mid-rollout at $LATENCY ms per request"
"$REPLAY" --generate dirqual | jq --argjson n "$WORKLOADS" '.objects += [range(0; $n) as $i
  | ($i | tostring) as $id | ("rook-ceph-osd-" + ("0000" + $id)[-4:]) as $name
  | {apiVersion: "apps/v1", kind: "Deployment",
     metadata: {name: $name, namespace: "rook-ceph", generation: 2,
                labels: {app: "rook-ceph-osd", "ceph-osd-id": $id}},
     spec: {replicas: 3, selector: {matchLabels: {app: "rook-ceph-osd", "ceph-osd-id": $id}},
            template: {metadata: {labels: {app: "rook-ceph-osd", "ceph-osd-id": $id}},
                       spec: {containers: [{name: "osd", image: "quay.io/ceph/ceph:v18.2.4"}]}}},
     status: {observedGeneration: 2, replicas: 4, updatedReplicas: 1, readyReplicas: 3,
              availableReplicas: 3}}]' >"$WORK/fixture.json"
start_replay api --fixture "$WORK/fixture.json" --latency-ms "$LATENCY"
KC="$WORK/api.kubeconfig"
stack() { # layers
  cat >"$WORK/repo/stacks/bench.yaml" <<EOF
name: bench
target_kind: prod
kubeconfig: $KC
endpoint: http://127.0.0.1:$PORT
nodes:
  - { name: dirqual1, role: control-plane }
  - { name: dirqual2, role: worker }
  - { name: dirqual3, role: worker }
  - { name: dirqual4, role: worker }
layers: $1
EOF
  ln -sfn bench.yaml "$WORK/repo/stacks/current.yaml"
}
stack "[k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]"
"$NESTOR" --version >/dev/null 2>&1 || true
(cd "$WORK/repo" && "$NESTOR" preview --no-input -o json >/dev/null 2>&1) || true # warm kubectl's cache
: >"$WORK/api.audit"
read -r threads hwm < <(sampled preview --no-input -o json)
inflight=$(jq -r '"\(.unix_ms) 1\n\(.unix_ms + ([.duration_ms, 1] | max)) -1"' "$WORK/api.audit" | peak)
pods=$(grep -c '/pods"' "$WORK/api.audit" || true)
ROWS=("| $WORKLOADS Deployments mid-rollout, $LATENCY ms/request | $inflight API reads | $pods pod lists | $threads | $((hwm / 1024)) MiB |")
stop_replay

say "$HOSTS hosts through a stub ssh ($SSH_MS ms per call)"
start_replay hosts --generate dirqual
KC="$WORK/hosts.kubeconfig"
stack "[k8s, sshd-hardening]"
{
  echo "all:"; echo "  hosts:"
  for i in $(seq 1 "$HOSTS"); do printf '    h%03d:\n      ansible_host: 10.67.%d.%d\n' "$i" $((i / 250 + 3)) $((i % 250 + 1)); done
} >"$WORK/repo/bootstrap/hosts.yaml"
cat >"$WORK/ssh" <<EOF
#!/bin/sh
echo "\$(date +%s%N) 1" >> '$WORK/ssh.log'
sleep $(awk -v m="$SSH_MS" 'BEGIN { printf "%.3f", m / 1000 }')
printf 'passwordauthentication no\npermitrootlogin prohibit-password\n'
echo "\$(date +%s%N) -1" >> '$WORK/ssh.log'
EOF
chmod 755 "$WORK/ssh"
: >"$WORK/ssh.log"
export NESTOR_SSH="$WORK/ssh"
read -r threads hwm < <(sampled preview --no-input -o json)
ssh_peak=$(peak <"$WORK/ssh.log")
calls=$(( $(wc -l <"$WORK/ssh.log") / 2 ))
ROWS+=("| $HOSTS hosts, $SSH_MS ms per ssh | $ssh_peak ssh | $calls ssh calls | $threads | $((hwm / 1024)) MiB |")

echo
echo "$(date -u +%Y-%m-%d) · $(getconf _NPROCESSORS_ONLN) CPUs · $PROFILE build · kubectl $KUBECTL"
echo
echo "| run | in flight at most | requests | threads at most | nestor peak RSS |"
echo "|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
echo "goals: at most 16 API reads and 8 ssh in flight; under 64 threads and 64 MiB each"
