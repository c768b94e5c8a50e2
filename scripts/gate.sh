#!/usr/bin/env bash
# Gate a pipeline on the real state of a stack: proceed only when nothing is missing.
#   scripts/gate.sh dirqual            # uses the stack's declared kubeconfig and endpoint
# Exit codes are kubectl-nestor's (README, "Exit codes"): 0 nothing to do, 2 plan not empty,
# 3 target refused, 4 cluster unreachable, 1 error. Never treat 3 or 4 as "install".
set -uo pipefail
stack=${1:?usage: gate.sh STACK}
nestor=${NESTOR:-kubectl-nestor}

json=$("$nestor" --stack "$stack" --no-input -o json preview --detailed-exitcode)
code=$?
case $code in
  0) echo "stack $stack: nothing to install or repair"; exit 0 ;;
  2)
    echo "stack $stack: plan not empty"
    # The nestor/v1 Preview document (docs/output.md) is the contract; jq is optional.
    if command -v jq >/dev/null 2>&1; then
      jq -r '.plan | "install: \([.install[].id] | join(", "))\nrepair: \([.repair[].id] | join(", "))\nundecided: \([.undecided[].id] | join(", "))"' <<<"$json"
    else
      printf '%s\n' "$json"
    fi
    exit 2 ;;
  3) echo "stack $stack: target refused — wrong or unconfirmed cluster; nothing planned" >&2; exit 3 ;;
  4) echo "stack $stack: cluster unreachable; nothing planned" >&2; exit 4 ;;
  *) echo "stack $stack: nestor failed (exit $code)" >&2; exit "$code" ;;
esac
