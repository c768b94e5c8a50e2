#!/usr/bin/env bash
# scripts/try-gate.sh — a gate tried without a cluster (issue 51 item 3): starts the bundled
# replay API server (crates/replay) on the `dirqual-gates` fixture, on 127.0.0.1 at a free
# port, writes a throwaway kubeconfig and a `dirqual` stack pointing at it in a temp
# directory, and runs `kubectl nestor gate drain NODE --no-ssh` against it through the real
# kubectl, as an operator would before draining NODE. The server is stopped and the temp
# directory removed on exit, whatever happens. Nothing but loopback is dialled.
#
# Usage: bash scripts/try-gate.sh [NODE]   # NODE: dirqual1..4, default dirqual3 (NO-GO: the
#                                          # CloudNativePG primary's budget allows 0
#                                          # disruptions); dirqual4 answers GO
#
# Needs a real `kubectl` on PATH (nestor runs it for every read) and, the first time, cargo
# to build kubectl-nestor and nestor-replay into target/debug (reused when there). Exits 0
# when the gate answered (GO, NO-GO or CANNOT TELL: its own exit code is printed), 1 else.
set -euo pipefail
cd "$(dirname "$0")/.."
# write_kubeconfig, shared with the benchmarks.
. scripts/bench-lib.sh
NODE=${1:-dirqual3}

KUBECTL=$(command -v kubectl || true)
if [ -z "$KUBECTL" ]; then
  cat >&2 <<'EOF'
try-gate: no kubectl on PATH: nestor runs the real kubectl for every read.
Install kubectl (https://kubernetes.io/docs/tasks/tools/), then run again:
  bash scripts/try-gate.sh [NODE]
EOF
  exit 1
fi

# The binaries: target/debug's when built (the tests' build), else built once with cargo.
TARGET=${CARGO_TARGET_DIR:-target}/debug
if [ ! -x "$TARGET/kubectl-nestor" ]; then
  echo "try-gate: building kubectl-nestor (cargo build, once)" >&2
  cargo build --quiet --locked --bin kubectl-nestor
fi
if [ ! -x "$TARGET/nestor-replay" ]; then
  echo "try-gate: building the replay server (cargo build -p nestor-replay, once)" >&2
  cargo build --quiet --locked -p nestor-replay
fi
NESTOR=$(cd "$TARGET" && pwd -P)/kubectl-nestor
REPLAY=$(cd "$TARGET" && pwd -P)/nestor-replay

WORK=$(mktemp -d "${TMPDIR:-/tmp}/nestor-try-gate.XXXXXX")
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir -p "$WORK/bin" "$WORK/home" "$WORK/repo/stacks"
"$REPLAY" --generate dirqual-gates --listen 127.0.0.1:0 --port-file "$WORK/port" \
  >"$WORK/replay.out" 2>"$WORK/replay.err" </dev/null &
SERVER_PID=$!
for _ in $(seq 1 300); do
  [ -s "$WORK/port" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if [ ! -s "$WORK/port" ]; then
  cat "$WORK/replay.err" >&2
  echo "try-gate: the replay server did not start" >&2
  exit 1
fi
PORT=$(cat "$WORK/port")

# A throwaway kubeconfig (0600: a kubeconfig holds credentials, here a dummy token).
KUBECONFIG_FILE="$WORK/home/.kube/try.config"
mkdir -p "$WORK/home/.kube"
write_kubeconfig "$KUBECONFIG_FILE" "$PORT"
# The stack the gate confirms its target by (SPEC §5: the endpoint, no prompt).
cat >"$WORK/repo/stacks/dirqual.yaml" <<EOF
name: dirqual
target_kind: prod
kubeconfig: $KUBECONFIG_FILE
endpoint: http://127.0.0.1:$PORT
nodes:
  - { name: dirqual1, role: control-plane }
  - { name: dirqual2, role: worker }
  - { name: dirqual3, role: worker }
  - { name: dirqual4, role: worker }
layers: [k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]
EOF
ln -s dirqual.yaml "$WORK/repo/stacks/current.yaml"
# kubectl finds the plugin on PATH, as after `krew install` or `cargo install`.
ln -s "$NESTOR" "$WORK/bin/kubectl-nestor"

echo "replay server (fixture dirqual-gates) on http://127.0.0.1:$PORT; stack dirqual in $WORK/repo"
echo "\$ kubectl nestor gate drain $NODE --no-ssh"
code=0
(
  cd "$WORK/repo"
  env -u KUBECONFIG -u NESTOR_STACK -u NESTOR_STACKS_DIR -u NESTOR_KUBECTL \
    HOME="$WORK/home" PATH="$WORK/bin:$PATH" \
    "$KUBECTL" nestor gate drain "$NODE" --no-ssh
) || code=$?
case $code in
  0) echo "exit 0: GO" ;;
  2) echo "exit 2: NO-GO" ;;
  5) echo "exit 5: CANNOT TELL" ;;
  *) echo "try-gate: the gate did not answer (exit $code)" >&2; exit 1 ;;
esac
