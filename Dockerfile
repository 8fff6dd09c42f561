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
      libboost-program-options-dev libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev \
      libxml2-utils cmark-gfm python3 python3-yaml git \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUGATE_WERROR=ON \
      -DGPUGATE_BUILD_BENCH=OFF -DGPUGATE_WITH_CUDA=ON \
 && cmake --build /build -j "$(nproc)" \
 && (cd /build && ctest --output-on-failure -j "$(nproc)" -LE gpu) \
 && install -D -m 0755 /build/gpugate /out/bin/gpugate \
 && if [ -f /build/libgpugate_injection.so ]; then \
      install -D -m 0755 /build/libgpugate_injection.so /out/lib/libgpugate_injection.so; fi

# --- runtime stage --------------------------------------------------------------
FROM nvidia/cuda:13.0.0-runtime-ubuntu24.04
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libyaml-cpp0.8 libboost-program-options1.83.0 zlib1g ca-certificates git \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 gpugate
COPY --from=build /out/ /usr/local/
ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility
USER gpugate
WORKDIR /work
ENTRYPOINT ["gpugate"]
CMD ["--help"]
