# gpugate container: build (and test) on the CUDA devel image, run on the
# slim CUDA runtime image as a non-root user.
#   docker build -t gpugate .
#   docker run --rm --gpus all -v "$PWD:/work" -w /work gpugate gate suite.yaml --baseline b.json
# See docs/docker.md.

# --- build stage: compile and run the unit tests ------------------------------
# Tests labelled `gpu` are left out: image builds have no device.
FROM nvidia/cuda:13.0.0-devel-ubuntu24.04 AS build
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      cmake ninja-build g++ pkg-config libyaml-cpp-dev rapidjson-dev \
      libboost-program-options-dev libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev libzstd-dev \
      libxml2-utils cmark-gfm python3 python3-yaml git \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUGATE_WERROR=ON \
      -DGPUGATE_BUILD_BENCH=OFF -DGPUGATE_WITH_CUDA=ON \
 && cmake --build /build -j "$(nproc)" \
 && (cd /build && ctest --output-on-failure -j "$(nproc)" -LE gpu) \
 && install -D -m 0755 /build/gpugate /out/bin/gpugate \
 && for lib in /build/libgpugate_inject*.so; do \
      [ -f "$lib" ] && install -D -m 0755 "$lib" /out/lib/$(basename "$lib"); done; \
    install -D -m 0755 scripts/docker/check_runtime_libs.sh /out/share/gpugate/check_runtime_libs.sh
# The CUDA libraries the binaries load (cudart, CUPTI for the tracer, the
# injection library and `gpugate metrics`, and the profiler host libraries
# CUPTI opens) go with them: the runtime image does not have to carry them.
# libcuda and NVML come from the driver at run time (docker run --gpus).
RUN set -e; mkdir -p /out/lib; \
    for f in /out/bin/gpugate /out/lib/libgpugate_inject*.so; do [ -f "$f" ] && ldd "$f"; done \
      | awk '$2 == "=>" && $3 ~ /^\/usr\/local\/cuda/ {print $3}' | sort -u \
      | while read -r lib; do cp -L "$lib" /out/lib/; done; \
    for lib in libnvperf_host.so libnvperf_target.so; do \
      for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do \
        if [ -f "$d/$lib" ]; then cp -L "$d/$lib" /out/lib/; break; fi; done; done

# --- runtime stage --------------------------------------------------------------
FROM nvidia/cuda:13.0.0-runtime-ubuntu24.04
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libyaml-cpp0.8 libboost-program-options1.83.0 zlib1g libzstd1 ca-certificates git \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 gpugate
COPY --from=build /out/ /usr/local/
# Fails the image build when a library the binaries load is missing.
RUN ldconfig && /usr/local/share/gpugate/check_runtime_libs.sh /usr/local/bin/gpugate \
      $(ls /usr/local/lib/libgpugate_inject*.so 2>/dev/null)
ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility
USER gpugate
WORKDIR /work
ENTRYPOINT ["gpugate"]
CMD ["--help"]
