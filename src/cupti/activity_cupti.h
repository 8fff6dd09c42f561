// The thin adapter from CUPTI activity structs (CUDA 13.0's cupti_activity.h:
// CUpti_ActivityKernel10, Memcpy6, MemcpyPtoP4, Memset4, API, Synchronization2,
// Overhead3, Marker2, Device5) to the plain records of cupti/records.h. Only
// translation units that need CUPTI include this header.
#pragma once

#include <cupti_activity.h>
#include <cupti_callbacks.h>

#include <functional>
#include <string>

#include "cupti/records.h"

namespace gpugate {

/// Name of an API call from its domain and callback id (cuptiGetCallbackName
/// in the tracer; a table in tests). Empty when unknown.
using ApiNameLookup = std::function<std::string(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)>;

/// Appends what `record` describes to `out`. Returns false for kinds the
/// tracer does not keep (the record is then ignored). Strings are copied;
/// kernel names are demangled where they are mangled C++ names.
bool AppendCuptiRecord(const CUpti_Activity* record, const ApiNameLookup& api_name, TraceRecords& out);

}  // namespace gpugate
