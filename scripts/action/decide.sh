#!/usr/bin/env bash
# Action step "Gate": fails the step by gpugate's exit code, as fail-on says.
#   policy        gpugate's exit code decides: 1 and 4 fail (and 2, 3); exit 4
#                 comes only from a policy that asks for certainty
#                 (on_inconclusive: fail, on_incomparable: fail,
#                 require_detectable), so the policy decides
#   regression    exit 1 fails (and 2, 3); exit 4 only warns
#   inconclusive  exit 1 and 4 fail (and 2, 3), and so does an exit 0 with
#                 inconclusive comparisons (a policy that passes them)
#   never         only input and tool errors (2, 3) fail
# Exit 0 with outcome not_judged (nothing could be decided) passes the step but
# is never reported as a pass; outcome error fails it whatever the exit code.
# Env: GPUGATE_EXIT, GPUGATE_OUTCOME, GPUGATE_INCONCLUSIVE, GPUGATE_FAIL_ON.
set -euo pipefail
. "$(dirname "$0")/annotate.sh"
code=${GPUGATE_EXIT:-}
fail_on=${GPUGATE_FAIL_ON:-policy}
case "$fail_on" in policy|regression|inconclusive|never) ;; *)
  annotate error "fail-on must be policy, regression, inconclusive or never (got '$fail_on')"; exit 2 ;;
esac
if [ -z "$code" ]; then
  annotate error "gpugate did not run (no exit code)"; exit 3
fi
# The outcome says error (gpugate stopped before a verdict, or a gpugate on
# PATH exited 0 without writing one): never a pass, whatever the exit code.
if [ "${GPUGATE_OUTCOME:-}" = error ]; then
  case "$code" in 0 | 1 | 4)
    echo "gpugate: error: no verdict was reached (exit $code; see the annotations and the log)"; exit 3 ;;
  esac
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
  4) # The policy asked for certainty the run did not give: results
     # inconclusive or incomparable that it fails on, or below its
     # require_detectable (the report says which).
     what="the policy asks for certainty this run did not give (see the report)"
     if [ "$fail_on" = policy ] || [ "$fail_on" = inconclusive ]; then
       echo "gpugate: not decided as the policy requires (exit 4): $what"; exit 4
     fi
     annotate warning "exit 4: $what; it does not fail the step (fail-on: $fail_on)"
     exit 0 ;;
  *) echo "gpugate: input or tool error (exit $code)"; exit "$code" ;;
esac
