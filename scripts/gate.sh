#!/usr/bin/env bash
# Gate a pipeline on the real state of a stack: proceed only when nothing is missing and
# everything was decided.
#   scripts/gate.sh dirqual            # uses the stack's declared kubeconfig and endpoint
# Exit codes are kubectl-nestor's (README, "Exit codes"): 0 nothing to do, 2 work to do
# (install, repair, create, start), 5 nothing to do that nestor knows of but something
# undecided (it could not tell), 3 target refused, 4 cluster unreachable, 1 error.
# Never treat 3, 4 or 5 as "install", nor 5 as "nothing to do".
set -uo pipefail
stack=${1:?usage: gate.sh STACK}
nestor=${NESTOR:-kubectl-nestor}

json=$("$nestor" --stack "$stack" --no-input -o json preview --detailed-exitcode)
code=$?
summary() {
  # The nestor/v1 Preview document (docs/output.md) is the contract; jq is optional.
  if command -v jq >/dev/null 2>&1; then
    jq -r '.plan | "install: \([.install[].id] | join(", "))\nrepair: \([.repair[].id] | join(", "))\nundecided: \([.undecided[].id] | join(", "))"' <<<"$json"
  else
    printf '%s\n' "$json"
  fi
}
case $code in
  0) echo "stack $stack: nothing to install or repair, everything decided"; exit 0 ;;
  2) echo "stack $stack: plan not empty"; summary; exit 2 ;;
  5) echo "stack $stack: nothing to install or repair, but nestor could not tell for some layers" >&2
     summary >&2; exit 5 ;;
  3) echo "stack $stack: target refused — wrong or unconfirmed cluster; nothing planned" >&2; exit 3 ;;
  4) echo "stack $stack: cluster unreachable; nothing planned" >&2; exit 4 ;;
  *) echo "stack $stack: nestor failed (exit $code)" >&2; exit "$code" ;;
esac
