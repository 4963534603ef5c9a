#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Assembles build/gpukit: what a GPU machine without Valgrind needs to run
# memgrow's GPU checks (docs/cuda.md, "On a GPU machine"): memgrow's wheel
# (what run.sh pip installs and runs memgrow from), Valgrind's launcher and
# core files from this machine's install with the memgrow built in build/
# (where pip refuses the wheel), the CUDA test programs built against the
# toolkit (the static runtime with nvcc, the dynamic one with its libcudart
# beside them, the driver API with -lcuda), memgrow's Python package,
# memcheck and the none tool for comparison, the PyTorch loops and the
# scripts of tests/cuda/gpu.
# Then, on the lent machine (the device tool), carrying build/gpukit:
#     bash build/gpukit/run.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${MEMGROW_BUILD:-$top/build}
cuda=${CUDA_HOME:-/usr/local/cuda}
# The Valgrind memgrow was built against: vg-in-place links its core files.
vglib=$(dirname "$(readlink -f "$build/.in_place/default.supp")")
kit=$build/gpukit
for f in "$build/memgrow-amd64-linux" "$cuda/bin/nvcc" "$vglib/vgpreload_core-amd64-linux.so"; do
    [ -e "$f" ] || { echo "gpu-kit: $f is missing (scripts/build.sh; a CUDA toolkit; valgrind)" >&2; exit 2; }
done
launcher=/usr/bin/valgrind.bin # Debian's; /usr/bin/valgrind is a shell wrapper there
[ -x "$launcher" ] || launcher=$(command -v valgrind)
rm -rf "$kit"
mkdir -p "$kit/vg/lib/memgrow-python" "$kit/bin" "$kit/lib"
cp "$launcher" "$kit/vg/valgrind.bin"
cp "$build/memgrow-amd64-linux" "$build/vgpreload_memgrow-amd64-linux.so" \
    "$build/memgrow-default.supp" "$vglib/vgpreload_core-amd64-linux.so" "$vglib/default.supp" \
    "$vglib/memcheck-amd64-linux" "$vglib/vgpreload_memcheck-amd64-linux.so" \
    "$vglib/none-amd64-linux" "$kit/vg/lib/"
cp -rL "$build/.in_place/memgrow-python/memgrow" "$kit/vg/lib/memgrow-python/"
cp -L "$cuda/lib64/libcudart.so.13" "$kit/lib/"
inc="-I$cuda/include -I$top"
for p in classes async misuse side_by_side; do
    "$cuda/bin/nvcc" -g -O1 -arch=sm_90 $inc -x cu -o "$kit/bin/${p}_static" "$top/tests/cuda/$p.c"
done
for p in classes async misuse late_init expandable; do
    cc -g -O1 $inc -o "$kit/bin/${p}_dynamic" "$top/tests/cuda/$p.c" -L"$cuda/lib64" -lcudart \
        -Wl,-rpath,'$ORIGIN/../lib'
done
for p in driver ctx_create; do
    cc -g -O1 $inc -o "$kit/bin/$p" "$top/tests/cuda/$p.c" -L"$cuda/lib64/stubs" -lcuda
done
for f in run.sh timed.py torch_stats.py torch_gpu.py torch_marks.py extract.py summarize.py; do
    cp "$top/tests/cuda/gpu/$f" "$kit/"
done
# The wheel, which run.sh pip installs into the machine's PyTorch environment
# and runs memgrow from (docs/install.md).
MEMGROW_BUILD=$build MEMGROW_DIST=$kit sh "$top/scripts/build-wheel.sh"
echo "gpu-kit: $kit ($(du -sh "$kit" | cut -f1)); on the GPU machine: bash build/gpukit/run.sh"
