#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# memgrow on a GPU machine (docs/cuda.md, "On a GPU machine"; issue 38), from
# the kit scripts/gpu-kit.sh assembles (build/gpukit: Valgrind, memgrow, the
# programs). In about 5 minutes on 16 cores, in four phases:
#  1. natively: the timed PyTorch loop alone, then the marked loops in every
#     allocator mode (PyTorch's counters without Valgrind);
#  2. the C programs under memgrow, and the static-cudart side_by_side program
#     under compute-sanitizer (--leak-check full, --tool memcheck) and memgrow;
#  3. together, each with a hard limit ($KIT_LIMIT s): the marked loops
#     (keeping loss tensors, keeping loss.item()) in the four allocator modes
#     under memgrow's growth hunt, and the timed loop under --tool=none, the
#     hunt (also with --cuda=no, with --python=no --python-malloc=no), memgrow's
#     default and memcheck (which stops at start-up where ld.so is stripped: its
#     strlen redirection is mandatory; libc6-dbg provides the symbols); each
#     report is read (extract.py) as its run ends;
#  4. the tables (summarize.py).
# Prints the compact tables; $OUT gets them, the full ones, the machine's
# description and gpukit-run.tar.gz (logs, extracts, PyTorch's counters,
# times), also after phase 2 in case the call is cut short. The full reports
# stay in $KIT_WORK/big on the machine for a second look. KIT_ONLY=REGEX runs
# only the runs whose names match (a second look; a dry run on the stand-ins).
kit=$(cd "$(dirname "$0")" && pwd)
export VALGRIND_LIB=$kit/vg/lib
vg=$kit/vg/valgrind.bin
out=${OUT:-/tmp/memgrow-gpu-out}
work=${KIT_WORK:-/tmp/memgrow-gpu}
big=$work/big
limit=${KIT_LIMIT:-300}
steps=${KIT_STEPS:-20}
rm -rf "$work"
mkdir -p "$big" "$out"
ulimit -c 0 # a crashed 5 GB client must not fill the disk
py=$(python3 -c 'import sys; print(sys.executable)')
# memgrow runs from its wheel (docs/install.md), pip installed into this
# PyTorch environment: the wheel's launcher and tool directory serve every
# run, with the kit's memcheck and none copied beside memgrow to compare.
# Where pip refuses it, the kit's own copy runs, and info.txt says so.
from="the kit's own copy ($kit/vg)"
wheel=$(ls "$kit"/memgrow-*.whl 2>/dev/null | head -n 1)
if [[ -n $wheel ]] && { "$py" -m pip install --no-index --no-deps --force-reinstall "$wheel" ||
    "$py" -m pip install --no-index --no-deps --force-reinstall --break-system-packages "$wheel"; } \
    >"$work/pip.log" 2>&1; then
    bundle=$("$py" -c 'import memgrow.cli as c; print(c.BUNDLE)')
    cp "$kit"/vg/lib/memcheck-amd64-linux "$kit"/vg/lib/vgpreload_memcheck-amd64-linux.so \
        "$kit"/vg/lib/none-amd64-linux "$bundle/lib/valgrind/"
    export VALGRIND_LIB=$bundle/lib/valgrind
    vg=$bundle/bin/valgrind
    from="the wheel $(basename "$wheel"), in $bundle"
fi
timed=("$py" "$kit/timed.py")
say() { echo "[$SECONDS s] $*"; }
want() { [[ -z ${KIT_ONLY:-} || $1 =~ $KIT_ONLY ]]; }

# trun NAME LIMIT [VAR=VALUE...] COMMAND...: one run, timed (timed.py).
trun() {
    want "$1" && "${timed[@]}" "$1" "$2" "$work" "${@:3}"
}

# vgrun NAME LIMIT [VAR=VALUE...] VALGRIND-OPTIONS... -- COMMAND...: one run
# under Valgrind; with memgrow its report goes to $big and is read into
# $work/NAME.x.json as soon as the run ends.
vgrun() {
    local name=$1 limit=$2 envs=() opts=()
    want "$name" || return 0
    shift 2
    while [[ $1 == [A-Z]*=* ]]; do envs+=("$1"); shift; done
    while [[ $1 != -- ]]; do opts+=("$1"); shift; done
    shift
    [[ " ${opts[*]} " == *" --tool=memgrow "* ]] && opts+=(--json-file="$big/$name.json")
    "${timed[@]}" "$name" "$limit" "$work" "${envs[@]}" "$vg" "${opts[@]}" --time-stamp=yes \
        --log-file="$work/$name.log" "$@"
    if [[ -s $big/$name.json && $name != t_hunt_no* ]]; then
        "$py" "$kit/extract.py" "$big/$name.json" "$work/$name.x.json" >"$work/$name.x.err" 2>&1
    fi
}

# pack: what comes back, small: logs over 2 MB keep their first and last MB.
pack() {
    for f in "$work"/*.log "$work"/*.out; do
        [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 2000000 ] &&
            { head -c 1000000 "$f"; echo "... [cut by run.sh] ..."; tail -c 1000000 "$f"; } >"$f.cut" &&
            mv "$f.cut" "$f"
    done
    tar czf "$out/gpukit-run.tar.gz" -C "$work" --exclude=big . 2>/dev/null
    cp "$work"/info.txt "$work"/summary*.txt "$out"/ 2>/dev/null
}

{
    echo "$(date -u); $(uname -r); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    "$py" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
    echo "memgrow: $from; $("$vg" --tool=memgrow --version)"
} 2>&1 | tee "$work/info.txt" | cut -c1-200
{
    lscpu
    free -g
    nvidia-smi
} >>"$work/info.txt" 2>&1
cs=$(command -v compute-sanitizer)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda*/bin/compute-sanitizer \
    /usr/local/cuda*/compute-sanitizer/compute-sanitizer; do
    [ -z "$cs" ] && [ -x "$c" ] && cs=$c
done
[ -n "$cs" ] || cs=$(find /usr/local /opt "$("$py" -c 'import site; print(site.getsitepackages()[0])')" \
    -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -1)
if [ -n "$cs" ]; then
    echo "compute-sanitizer: $cs, $("$cs" --version 2>&1 | tail -1)" | tee -a "$work/info.txt"
else
    echo "compute-sanitizer: not found" | tee -a "$work/info.txt"
fi

say "1: natively"
trun native_loop 120 "$py" "$kit/torch_gpu.py" "$work/native_loop.torch.json"
trun native_loop_malloc 120 PYTHONMALLOC=malloc "$py" "$kit/torch_gpu.py"
declare -A mode_env=([caching]="" [nocache]=PYTORCH_NO_CUDA_MEMORY_CACHING=1
    [expandable]=PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
    [async]=PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync)
for keep in tensor item; do
    for mode in caching nocache expandable async; do
        name=native_${mode}_$keep
        trun "$name" 120 ${mode_env[$mode]} "$py" "$kit/torch_marks.py" "$keep" \
            "$steps" "$work/$name.torch.json" &
    done
done
wait

say "2: the C programs, compute-sanitizer"
sbs=$kit/bin/side_by_side_static
for p in "$kit"/bin/*; do
    vgrun "mg_c_$(basename "$p")" 120 --tool=memgrow -v --leak-check=full -- "$p" &
done
vgrun mg_sbs_kernel 120 --tool=memgrow -v --leak-check=full -- "$sbs" kernel &
trun native_sbs 60 "$sbs" &
if [ -n "$cs" ]; then
    for v in "" kernel; do
        trun "cs_sbs${v:+_$v}_leak" 120 "$cs" --leak-check full "$sbs" $v &
        trun "cs_sbs${v:+_$v}_memcheck" 120 "$cs" --tool memcheck "$sbs" $v &
    done
    trun cs_classes_leak 120 "$cs" --leak-check full "$kit/bin/classes_static" &
    trun cs_misuse_memcheck 120 "$cs" --tool memcheck "$kit/bin/misuse_static" &
fi
wait
pack

say "3: PyTorch under Valgrind, $limit s at most each"
(while sleep 20; do
    echo "[$SECONDS s] $(cut -d' ' -f1-3 /proc/loadavg); $(free -m | awk '/Mem/ {print "used " $3 " MiB"}')"
    nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ';'
    echo
done) >"$work/monitor.txt" 2>&1 &
monitor=$!
hunt=(--tool=memgrow -v --addressability=no)
# Deeper stacks for the marked loops: a device allocation is 30 native frames
# below its Python line.
marked=("${hunt[@]}" --depth=64)
pids=()
for keep in tensor item; do
    for mode in caching nocache expandable async; do
        name=mg_${mode}_$keep
        extra=()
        [ $mode = nocache ] && extra=(--pytorch-caching=no)
        vgrun "$name" "$limit" ${mode_env[$mode]} "${marked[@]}" "${extra[@]}" -- \
            "$py" "$kit/torch_marks.py" "$keep" "$steps" "$work/$name.torch.json" &
        pids+=($!)
    done
done
loop=("$py" "$kit/torch_gpu.py")
vgrun t_none "$limit" PYTHONMALLOC=malloc --tool=none --stats=yes -- "${loop[@]}" &
pids+=($!)
vgrun t_hunt "$limit" "${hunt[@]}" --stats=yes -- "${loop[@]}" "$work/t_hunt.torch.json" &
pids+=($!)
vgrun t_hunt_nocuda "$limit" "${hunt[@]}" --stats=yes --cuda=no -- "${loop[@]}" &
pids+=($!)
vgrun t_hunt_nopython "$limit" "${hunt[@]}" --stats=yes --python=no --python-malloc=no -- "${loop[@]}" &
pids+=($!)
vgrun t_default "$limit" --tool=memgrow -v --stats=yes -- "${loop[@]}" "$work/t_default.torch.json" &
pids+=($!)
vgrun t_memcheck "$limit" PYTHONMALLOC=malloc --tool=memcheck --stats=yes -- "${loop[@]}" &
pids+=($!)
wait "${pids[@]}"
kill "$monitor"

say "4: tables"
"$py" "$kit/summarize.py" "$work" --full >"$work/summary-full.txt" 2>&1
"$py" "$kit/summarize.py" "$work" 2>&1 | tee "$work/summary.txt" | cut -c1-260
pack
ls -la "$out" | tail -n +2
say "done; the full reports: $big"
