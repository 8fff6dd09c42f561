// Tests of the adapter from CUPTI's own activity structs (the real CUDA 13.0
// headers, records filled in by the test: no GPU needed) to plain records.
#include "cupti/activity_cupti.h"

#include <cupti.h>
#include <gtest/gtest.h>

#include <cstring>

#include "cupti/chrome_trace.h"
#include "trace/analysis.h"

namespace gpugate {
namespace {

std::string NameOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
    return "cudaLaunchKernel_v7000";
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2) return "cuMemcpyHtoD_v2";
  return "";
}

template <class T>
T Zeroed() {
  T t;
  std::memset(&t, 0, sizeof t);
  return t;
}

const CUpti_Activity* AsRecord(const void* p) { return static_cast<const CUpti_Activity*>(p); }

TEST(CuptiAdapterTest, KernelRecordKeepsLaunchShapeAndDemangledName) {
  auto k = Zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "_Z5saxpyifPKfPf";
  k.start = 1000;
  k.end = 3500;
  k.deviceId = 1;
  k.contextId = 2;
  k.streamId = 13;
  k.correlationId = 77;
  k.gridX = 4096;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 28;
  k.staticSharedMemory = 512;
  k.dynamicSharedMemory = 4096;
  TraceRecords out;
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&k), NameOf, out));
  ASSERT_EQ(out.kernels.size(), 1u);
  const KernelRecord& r = out.kernels[0];
  EXPECT_EQ(r.name, "saxpy(int, float, float const*, float*)");
  EXPECT_EQ(r.start_ns, 1000);
  EXPECT_EQ(r.end_ns, 3500);
  EXPECT_EQ(r.device, 1u);
  EXPECT_EQ(r.context, 2u);
  EXPECT_EQ(r.stream, 13u);
  EXPECT_EQ(r.correlation, 77u);
  EXPECT_EQ(r.grid[0], 4096);
  EXPECT_EQ(r.grid[1], 2);
  EXPECT_EQ(r.block[0], 256);
  EXPECT_EQ(r.registers_per_thread, 28);
  EXPECT_EQ(r.static_shared_bytes, 512);
  EXPECT_EQ(r.dynamic_shared_bytes, 4096);
}

TEST(CuptiAdapterTest, RecordsWithoutTimestampsAreCountedNotKept) {
  // start = end = 0: CUPTI could not time it. A 0 ns kernel at 1970 would
  // bias the kernel's statistics and stretch the trace's span.
  auto k = Zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "_Z5saxpyifPKfPf";
  auto m = Zeroed<CUpti_ActivityMemcpy6>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.bytes = 64;
  TraceRecords out;
  AppendCuptiRecord(AsRecord(&k), NameOf, out);
  AppendCuptiRecord(AsRecord(&m), NameOf, out);
  EXPECT_TRUE(out.kernels.empty());
  EXPECT_TRUE(out.memcpys.empty());
  EXPECT_EQ(out.untimed_records, 2);
  k.start = 1000;
  k.end = 2000;
  AppendCuptiRecord(AsRecord(&k), NameOf, out);
  EXPECT_EQ(out.kernels.size(), 1u);
  EXPECT_NE(WriteChromeTrace(out).find("\"untimed_records\":2"), std::string::npos);
}

TEST(CuptiAdapterTest, MemcpyKindsAndPageableDetection) {
  auto m = Zeroed<CUpti_ActivityMemcpy6>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 1 << 20;
  m.start = 10;
  m.end = 110;
  m.correlationId = 5;
  auto back = m;
  back.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  back.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  back.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  auto d2d = m;
  d2d.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  d2d.srcKind = d2d.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  auto p2p = Zeroed<CUpti_ActivityMemcpyPtoP4>();
  p2p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p2p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p2p.srcKind = p2p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p2p.srcDeviceId = 0;
  p2p.dstDeviceId = 1;
  p2p.bytes = 4096;
  p2p.start = 200;
  p2p.end = 260;
  TraceRecords out;
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&m), NameOf, out));
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&back), NameOf, out));
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&d2d), NameOf, out));
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&p2p), NameOf, out));
  ASSERT_EQ(out.memcpys.size(), 4u);
  EXPECT_EQ(MemcpyName(out.memcpys[0]), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_TRUE(IsPageableCopy(out.memcpys[0]));
  EXPECT_EQ(out.memcpys[0].bytes, 1 << 20);
  EXPECT_EQ(MemcpyName(out.memcpys[1]), "Memcpy DtoH (Device -> Pinned)");
  EXPECT_TRUE(IsPinnedCopy(out.memcpys[1]));
  EXPECT_EQ(MemcpyName(out.memcpys[2]), "Memcpy DtoD (Device -> Device)");
  EXPECT_EQ(MemcpyName(out.memcpys[3]), "Memcpy PtoP (Device -> Device)");
  EXPECT_EQ(out.memcpys[3].src_device, 0u);
  EXPECT_EQ(out.memcpys[3].dst_device, 1u);
}

TEST(CuptiAdapterTest, MemsetApiSyncOverheadAndUnknownKinds) {
  auto s = Zeroed<CUpti_ActivityMemset4>();
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  s.bytes = 256;
  s.start = 50;
  s.end = 60;
  auto rt = Zeroed<CUpti_ActivityAPI>();
  rt.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  rt.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  rt.processId = 10;
  rt.threadId = 11;
  rt.correlationId = 12;
  rt.start = 40;
  rt.end = 45;
  auto drv = rt;
  drv.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  drv.cbid = CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2;
  auto unnamed = rt;
  unnamed.cbid = 9999;
  auto sync = Zeroed<CUpti_ActivitySynchronization2>();
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.streamId = 7;
  sync.cudaEventId = 0xffffffffu;
  auto ovh = Zeroed<CUpti_ActivityOverhead3>();
  ovh.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  ovh.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  ovh.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  ovh.objectId.pt.processId = 10;
  ovh.objectId.pt.threadId = 12;
  auto other = Zeroed<CUpti_ActivityAPI>();
  other.kind = CUPTI_ACTIVITY_KIND_NAME;
  TraceRecords out;
  for (const void* p : {static_cast<const void*>(&s), static_cast<const void*>(&rt), static_cast<const void*>(&drv),
                        static_cast<const void*>(&unnamed), static_cast<const void*>(&sync),
                        static_cast<const void*>(&ovh)})
    ASSERT_TRUE(AppendCuptiRecord(AsRecord(p), NameOf, out));
  EXPECT_FALSE(AppendCuptiRecord(AsRecord(&other), NameOf, out));
  ASSERT_EQ(out.memsets.size(), 1u);
  EXPECT_EQ(MemsetName(out.memsets[0]), "Memset (Device)");
  ASSERT_EQ(out.apis.size(), 3u);
  EXPECT_EQ(out.apis[0].name, "cudaLaunchKernel");
  EXPECT_EQ(out.apis[0].domain, ApiDomain::kRuntime);
  EXPECT_EQ(out.apis[0].thread, 11u);
  EXPECT_EQ(out.apis[1].name, "cuMemcpyHtoD");
  EXPECT_EQ(out.apis[1].domain, ApiDomain::kDriver);
  EXPECT_EQ(out.apis[2].name, "runtime api 9999");
  ASSERT_EQ(out.syncs.size(), 1u);
  EXPECT_EQ(out.syncs[0].kind, SyncKind::kStreamSynchronize);
  EXPECT_EQ(out.syncs[0].stream, 7u);
  EXPECT_FALSE(out.syncs[0].event.has_value());
  ASSERT_EQ(out.overheads.size(), 1u);
  EXPECT_EQ(out.overheads[0].kind, "CUPTI buffer flush");
  EXPECT_EQ(out.overheads[0].thread, 12u);
}

TEST(CuptiAdapterTest, NvtxPushPopMarkersBecomeUserAnnotations) {
  auto start = Zeroed<CUpti_ActivityMarker2>();
  start.kind = CUPTI_ACTIVITY_KIND_MARKER;
  start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  start.id = 3;
  start.timestamp = 100;
  start.name = "forward";
  start.domain = "pytorch";
  start.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  start.objectId.pt.processId = 10;
  start.objectId.pt.threadId = 11;
  auto end = start;
  end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  end.name = nullptr;
  end.timestamp = 900;
  TraceRecords out;
  out.process_id = 10;
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&start), NameOf, out));
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&end), NameOf, out));
  std::vector<NvtxRange> ranges = PairMarkers(out.markers, 1000);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0].name, "forward");
  EXPECT_EQ(ranges[0].domain, "pytorch");
  EXPECT_EQ(ranges[0].start_ns, 100);
  EXPECT_EQ(ranges[0].end_ns, 900);
  EXPECT_EQ(ranges[0].thread, 11u);
  const std::string json = WriteChromeTrace(out);
  EXPECT_NE(json.find("\"cat\":\"user_annotation\",\"name\":\"forward\",\"pid\":10,\"tid\":11,\"ts\":0.100,\"dur\":0.800"),
            std::string::npos)
      << json;
}

TEST(CuptiAdapterTest, DeviceRecordFillsDeviceProperties) {
  auto d = Zeroed<CUpti_ActivityDevice5>();
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.globalMemorySize = 85'520'809'984ull;
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  d.numMultiprocessors = 132;
  d.numThreadsPerWarp = 32;
  d.maxWarpsPerMultiprocessor = 64;
  TraceRecords out;
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&d), NameOf, out));
  ASSERT_EQ(out.devices.size(), 1u);
  auto k = Zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "plain_c_kernel";
  k.start = 1;
  k.end = 2;
  ASSERT_TRUE(AppendCuptiRecord(AsRecord(&k), NameOf, out));
  auto rep = AnalyzeTraceText(WriteChromeTrace(out), "t.json", AnalysisOptions{});
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep->info.devices.size(), 1u);
  EXPECT_EQ(rep->info.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rep->info.devices[0].compute_major, 9);
  EXPECT_EQ(rep->info.devices[0].num_sms, 132);
  EXPECT_EQ(rep->info.devices[0].max_threads_per_sm, 2048);
  EXPECT_EQ(rep->info.devices[0].total_global_mem, 85'520'809'984);
  ASSERT_EQ(rep->devices.size(), 1u);
  EXPECT_EQ(rep->devices[0].kernels[0].name, "plain_c_kernel");
}

}  // namespace
}  // namespace gpugate
