#!/usr/bin/env bash
# Action step "Gate": fails the step by gpugate's exit code, as fail-on says.
#   regression    exit 1 fails (and 2, 3)
#   inconclusive  exit 1 and 4 fail (and 2, 3), and so does an exit 0 with
#                 inconclusive comparisons (a policy that passes them)
#   never         only input and tool errors (2, 3) fail
# Exit 0 with outcome not_judged (nothing could be decided) passes the step but
# is never reported as a pass.
# Env: GPUGATE_EXIT, GPUGATE_OUTCOME, GPUGATE_INCONCLUSIVE, GPUGATE_FAIL_ON.
set -euo pipefail
. "$(dirname "$0")/annotate.sh"
code=${GPUGATE_EXIT:-}
fail_on=${GPUGATE_FAIL_ON:-regression}
case "$fail_on" in regression|inconclusive|never) ;; *)
  annotate error "fail-on must be regression, inconclusive or never (got '$fail_on')"; exit 2 ;;
esac
if [ -z "$code" ]; then
  annotate error "gpugate did not run (no exit code)"; exit 3
fi
case "$code" in
  0) inconclusive=${GPUGATE_INCONCLUSIVE:-0}
     [[ "$inconclusive" =~ ^[0-9]+$ ]] || inconclusive=0
     if [ "$fail_on" = inconclusive ] && [ "$inconclusive" -gt 0 ]; then
       if [ "$inconclusive" -eq 1 ]; then noun=comparison; else noun=comparisons; fi
       echo "gpugate: $inconclusive inconclusive $noun (fail-on: inconclusive; the policy passed them)"
       exit 4
     fi
     if [ "${GPUGATE_OUTCOME:-}" = not_judged ]; then
       echo "gpugate: not judged: nothing could be decided (exit 0; see the report for what could have been seen)"
     else
       echo "gpugate: pass"
     fi
     exit 0 ;;
  1) if [ "$fail_on" = never ]; then annotate warning "regression found (fail-on: never)"; exit 0; fi
     echo "gpugate: regression (exit 1)"; exit 1 ;;
  4) if [ "$fail_on" = inconclusive ]; then echo "gpugate: inconclusive (exit 4, fail-on: inconclusive)"; exit 4; fi
     echo "gpugate: inconclusive results do not fail (fail-on: $fail_on)"; exit 0 ;;
  *) echo "gpugate: input or tool error (exit $code)"; exit "$code" ;;
esac
