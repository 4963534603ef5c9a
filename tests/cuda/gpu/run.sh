#!/bin/bash
# memgrow on a GPU machine (docs/cuda.md, "On a GPU machine"): the CUDA test
# programs and a PyTorch loop under memgrow, with the real driver. Runs from
# the kit scripts/gpu-kit.sh assembles (build/gpukit: Valgrind, memgrow, the
# programs); prints a compact summary and leaves the logs and small reports
# in $OUT. About 4 minutes on an H100 machine (PyTorch: 220 s).
kit=$(cd "$(dirname "$0")" && pwd)
export VALGRIND_LIB=$kit/vg/lib
vg=$kit/vg/valgrind.bin
out=${OUT:-/tmp/memgrow-gpu}
work=$(mktemp -d)
mkdir -p "$out"
py=$(python3 -c 'import sys; print(sys.executable)')
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
echo "-- natively"
"$py" "$kit/torch_gpu.py" 2>&1 | tail -3
PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$py" "$kit/torch_gpu.py" 2>&1 | tail -3

run() { # name timeout command...
    local name=$1 limit=$2
    shift 2
    local start=$SECONDS
    timeout "$limit" "$@" >"$work/$name.out" 2>&1
    echo "$name: exit $? in $((SECONDS - start)) s" >>"$work/times"
}
cd "$kit"
for p in bin/*; do
    name=$(basename "$p")
    run "$name" 300 "$vg" --tool=memgrow -v --json-file="$work/$name.json" \
        --log-file="$work/$name.log" "$p" &
done
hunt=(--tool=memgrow -v --addressability=no)
run torch_caching 420 "$vg" "${hunt[@]}" --json-file="$work/torch_caching.json" \
    --log-file="$work/torch_caching.log" "$py" "$kit/torch_gpu.py" &
run torch_nocache 420 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$vg" "${hunt[@]}" \
    --json-file="$work/torch_nocache.json" --log-file="$work/torch_nocache.log" \
    "$py" "$kit/torch_gpu.py" &
wait
echo "-- under memgrow"
sort "$work/times"
for f in "$work"/*.out; do
    echo "== $(basename "$f"): $(tail -4 "$f" | tr '\n' ' ' | cut -c1-240)"
done
for f in "$work"/*.log; do
    echo "== $(basename "$f")"
    grep -E "start-up took|warm-up ends at|possibly lost:|definitely lost:|suppressed:|  leaked:|growing:|plateau:|ERROR SUMMARY|unhandled ioctl|Process terminating" "$f" |
        sed 's/^==[0-9]*== *//' | sort | uniq -c | cut -c1-200 | head -16
done
python3 "$kit/summarize.py" "$work"/*.json | cut -c1-240
# The logs and the small reports come back; PyTorch's (about 450 MB) do not.
cp "$work"/*.log "$out"/
find "$work" -name '*.json' -size -2M -exec cp {} "$out"/ \;
rm -rf "$work"
