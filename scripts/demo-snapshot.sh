#!/usr/bin/env bash
# Re-record the bundled demo snapshot (examples/demo/dirqual.snapshot.json): start the replay
# API server with the dirqual fixture on 127.0.0.1:6443, point a throwaway kubeconfig at it
# (in a temp HOME, never in the repo), and run `discover --save` through the real kubectl.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p nestor-replay -p kubectl-nestor
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
./target/release/nestor-replay --generate dirqual --listen 127.0.0.1:6443 >"$work/server.log" &
server=$!
for _ in $(seq 50); do grep -q listening "$work/server.log" && break; sleep 0.1; done
mkdir -p "$work/home/.kube"
cat >"$work/home/.kube/dirqual.config" <<KC
apiVersion: v1
kind: Config
clusters:
- cluster: {server: "http://127.0.0.1:6443"}
  name: dirqual
contexts:
- context: {cluster: dirqual, user: kubernetes-admin}
  name: kubernetes-admin@dirqual
current-context: kubernetes-admin@dirqual
users:
- name: kubernetes-admin
  user: {token: replay-demo}
KC
chmod 600 "$work/home/.kube/dirqual.config"
HOME="$work/home" ./target/release/kubectl-nestor --kubeconfig "$work/home/.kube/dirqual.config" \
  discover --save examples/demo/dirqual.snapshot.json >/dev/null
# The kubeconfig path recorded is the throwaway one; name it as an operator would have it.
# (No `sed -i`: GNU and BSD sed spell it differently.)
sed "s#\"kubeconfig\": \"$work/home/#\"kubeconfig\": \"~/#" examples/demo/dirqual.snapshot.json >"$work/snap.json"
mv "$work/snap.json" examples/demo/dirqual.snapshot.json
chmod 644 examples/demo/dirqual.snapshot.json
echo "recorded examples/demo/dirqual.snapshot.json"
