// String names of model enums; these spellings are part of the file formats.
#include "model/results.h"
#include "model/verdicts.h"

namespace gpugate {

const char* ToString(WorkloadStatus s) {
  switch (s) {
    case WorkloadStatus::kOk: return "ok";
    case WorkloadStatus::kFailed: return "failed";
    case WorkloadStatus::kSkipped: return "skipped";
  }
  return "?";
}

const char* ToString(Verdict v) {
  switch (v) {
    case Verdict::kRegression: return "regression";
    case Verdict::kImprovement: return "improvement";
    case Verdict::kUnchanged: return "unchanged";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kNew: return "new";
    case Verdict::kRemoved: return "removed";
    case Verdict::kSkipped: return "skipped";
    case Verdict::kIncomparable: return "incomparable";
  }
  return "?";
}

const char* ToString(Severity s) {
  switch (s) {
    case Severity::kFail: return "fail";
    case Severity::kWarn: return "warn";
    case Severity::kOff: return "off";
  }
  return "?";
}

const char* ToString(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kInconclusive: return "inconclusive";
    case Outcome::kError: return "error";
  }
  return "?";
}

}  // namespace gpugate
