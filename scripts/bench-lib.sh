# scripts/bench-lib.sh — what the benchmark scripts share (sourced, never run): the release
# binaries, the replay API server started on a free port with its kubeconfig, medians, and
# timing a command's wall and CPU. Portable to macOS's bash 3.2 and BSD tools: no `mapfile`,
# no `date +%N` without a fallback, no GNU-only flags.
#
#   . scripts/bench-lib.sh
#   bench_build release            # sets NESTOR and REPLAY
#   WORK=$(bench_workdir name)     # a temp dir removed on exit, with every server started
#   start_replay NAME --generate dirqual --latency-ms 20
#                                  # -> $WORK/NAME.{port,audit,kubeconfig,err}, PORT set

say() { printf '== %s\n' "$*" >&2; }
# CPU count and model with GNU or BSD tools (nproc and /proc are Linux's; macOS has sysctl).
ncpu() { nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1; }
cpu_model() { sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1 || true; sysctl -n machdep.cpu.brand_string 2>/dev/null || true; }
# BSD date has no %N (it prints a literal N): python3's clock there.
now_ns() { local t; t=$(date +%s%N); case $t in *N) python3 -c 'import time; print(time.time_ns())' ;; *) echo "$t" ;; esac; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
max() { sort -n | tail -1; }
# An absolute path, symlinks resolved where readlink -f exists (macOS has it since 12.3).
abspath() { readlink -f "$1" 2>/dev/null || (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }

# The kubectl both sides run: $KUBECTL or the one on PATH, resolved.
bench_kubectl() {
  KUBECTL=${KUBECTL:-$(command -v kubectl || true)}
  [ -n "$KUBECTL" ] && [ -x "$KUBECTL" ] || { echo "bench: no kubectl (set KUBECTL=...)" >&2; exit 1; }
  KUBECTL=$(abspath "$KUBECTL")
}

# bench_build PROFILE: build kubectl-nestor and nestor-replay (release or debug); sets
# NESTOR and REPLAY. BUILD=no measures the binaries already built.
bench_build() {
  local target=${CARGO_TARGET_DIR:-target}
  if [ "${BUILD:-yes}" = no ]; then
    say "measuring the $1 binaries already built (BUILD=no)"
  elif [ "$1" = release ]; then
    say "building release binaries"
    cargo build --release --locked -p kubectl-nestor -p nestor-replay >&2
  else
    cargo build --locked -p kubectl-nestor -p nestor-replay >&2
  fi
  NESTOR=$(abspath "$target/$1/kubectl-nestor")
  REPLAY=$(abspath "$target/$1/nestor-replay")
}

BENCH_PIDS=""
bench_cleanup() {
  local p
  for p in $BENCH_PIDS; do kill "$p" 2>/dev/null || true; done
  for p in $BENCH_PIDS; do wait "$p" 2>/dev/null || true; done
  BENCH_PIDS=""
  [ -n "${WORK:-}" ] && rm -rf "$WORK"
}

# bench_workdir NAME: a fresh temp dir (printed); call `trap bench_cleanup EXIT` after.
bench_workdir() { mktemp -d "${TMPDIR:-/tmp}/nestor-$1.XXXXXX"; }

# write_kubeconfig FILE PORT: a 0600 kubeconfig for the replay server on 127.0.0.1:PORT.
write_kubeconfig() {
  cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- cluster: {server: "http://127.0.0.1:$2"}
  name: replay
contexts:
- context: {cluster: replay, user: replay}
  name: replay
current-context: replay
users:
- name: replay
  user: {token: replay-token}
KC
  chmod 600 "$1"
}

# start_replay NAME ARGS...: `nestor-replay ARGS --audit $WORK/NAME.audit --port-file
# $WORK/NAME.port` in the background (its pid in BENCH_PIDS, SERVER_PID), waited on until it
# serves (a generated fixture can take a minute); writes $WORK/NAME.kubeconfig, sets PORT.
start_replay() {
  local name=$1; shift
  rm -f "$WORK/$name.port" "$WORK/$name.audit"
  "$REPLAY" "$@" --audit "$WORK/$name.audit" --port-file "$WORK/$name.port" \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  SERVER_PID=$!
  BENCH_PIDS="$BENCH_PIDS $SERVER_PID"
  local _
  for _ in $(seq 1 1800); do [ -s "$WORK/$name.port" ] && break; sleep 0.1; done
  [ -s "$WORK/$name.port" ] || { cat "$WORK/$name.err" >&2; echo "bench: replay server $name did not start" >&2; exit 1; }
  PORT=$(cat "$WORK/$name.port")
  write_kubeconfig "$WORK/$name.kubeconfig" "$PORT"
}

# stop_replay: stop the last server start_replay started.
stop_replay() {
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  local p rest=""
  for p in $BENCH_PIDS; do [ "$p" = "$SERVER_PID" ] || rest="$rest $p"; done
  BENCH_PIDS=$rest
  SERVER_PID=
}

# timed FILE CMD...: append "wall_us cpu_us" of CMD (bash's `time`: the subshell and every
# child it waited for) to FILE.
timed() {
  local file=$1 out; shift
  out=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 )
  awk -v r="$out" 'BEGIN { split(r, a, " "); printf "%d %d\n", a[1] * 1e6, (a[2] + a[3]) * 1e6 }' >>"$file"
}

# Sum of response_bytes and count of the audit lines after line $2 of file $1.
audit_since() {
  awk -v from="$2" 'NR > from { n++; if (match($0, /"response_bytes":[0-9]+/)) b += substr($0, RSTART + 17, RLENGTH - 17) } END { printf "%d %d\n", n, b }' "$1"
}

# nestor's own CPU ms and peak RSS KiB from a -v stderr file: "CPU_MS RSS_KIB".
own_usage() {
  local usage cpu rss
  usage=$(grep '^kubectl-nestor: usage:' "$1" || true)
  cpu=$(printf '%s\n' "$usage" | sed -n 's/.*own cpu \([0-9.]*\) ms.*/\1/p')
  rss=$(printf '%s\n' "$usage" | sed -n 's/.*own peak rss \([0-9]*\) KiB.*/\1/p')
  echo "${cpu:-0} ${rss:-0}"
}
