# SPDX-License-Identifier: GPL-2.0-or-later
"""CUDA memory (docs/cuda.md): programs built against the real CUDA headers
and linked with the real libcudart/libcuda, run under memgrow on the
stand-in driver and runtime of tests/cuda (no GPU needed).

Without a CUDA toolkit at configure time the programs are not built and
every test here fails, naming what is missing: never a silent skip.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import mgtest  # noqa: E402

CUDA_DIR = os.path.join(mgtest.BUILD, "tests", "cuda")
STANDIN = os.path.join(CUDA_DIR, "standin")
SRC = "tests/cuda"


def cuda_program(name):
    return os.path.join(CUDA_DIR, name)


def standin_env():
    return {"LD_LIBRARY_PATH": STANDIN}


def run(name, options=()):
    return mgtest.run([cuda_program(name)], options=options, env=standin_env())


def line(name, marker):
    return mgtest.source_line(os.path.join(SRC, name), marker)


def device_sites(report):
    # Not "mapped": the stand-in driver's own mmaps are the program's mapped
    # memory when no CUDA call records them (--cuda=no).
    return [s for s in report["sites"] if s["space"] not in ("host", "mapped")]


class CudaTest(mgtest.TestCase):
    def setUp(self):
        if os.environ.get("MG_HAVE_CUDA", "yes") != "yes" or not os.path.exists(
                cuda_program("classes")):
            self.fail("the CUDA test programs were not built: configure found no CUDA 13 toolkit "
                      f"in '{os.environ.get('MG_CUDA_HOME', '/usr/local/cuda')}' "
                      "(install one there or configure --with-cuda=DIR)")

    def assertSite(self, report, cls, space, file, marker):
        sites = self.assertClass(report, cls, file=file, line=line(file, marker))
        sites = [s for s in sites if s["space"] == space]
        self.assertTrue(sites, f"no {space} site of class {cls} at {file}:{marker}:\n"
                        + mgtest.describe(report))
        return sites[0]

    def test_programs_run_natively_on_the_standins(self):
        for name in ("classes", "async", "driver", "misuse", "side_by_side", "expandable"):
            p = subprocess.run([cuda_program(name)], env={**os.environ, **standin_env()},
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 0, f"{name}:\n{p.stdout}")

    def test_runtime_classes_at_their_lines(self):
        r = run("classes")
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        leaked = self.assertSite(rep, "leaked", "device", "classes.c", "LEAKED_HERE")
        # 200 allocations of 1 KiB, all but the last unreferenced when main
        # returns: definitely lost as memcheck counts, found by searching
        # host memory for device pointers (the driver's own table excluded).
        self.assertGreaterEqual(leaked["lost"]["definite"], 199 * 1024)
        self.assertEqual(leaked["at_exit_bytes"], 200 * 1024)
        growing = self.assertSite(rep, "growing", "device", "classes.c", "GROWING_HERE")
        self.assertEqual(growing["lost"]["definite"], 0)
        self.assertEqual(growing["device"], 0)
        self.assertSite(rep, "plateau", "device", "classes.c", "RING_HERE")
        self.assertSite(rep, "stable", "device", "classes.c", "CHURN_HERE")
        # Seen by the runtime wrapper and the driver trampoline, counted once.
        self.assertEqual(growing["allocated_blocks"], 200)
        self.assertEqual(growing["live_bytes"], 200 * 2048)
        self.assertEqual(len(device_sites(rep)), 4, mgtest.describe(rep))
        for s in device_sites(rep):
            self.assertEqual(s["frames"][0]["file"].rsplit("/", 1)[-1], "classes.c",
                             mgtest.frames_text(s))
        self.assertEqual(rep["errors"], [])

    def test_stream_ordered_pool_pinned_and_managed(self):
        r = run("async")
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        s = self.assertSite(rep, "growing", "device", "async.c", "ASYNC_GROWING_HERE")
        self.assertEqual(s["allocated_blocks"], 150)
        self.assertEqual(s["live_bytes"], 150 * 3000)
        self.assertSite(rep, "stable", "device", "async.c", "POOL_CHURN_HERE")
        self.assertSite(rep, "stable", "pinned", "async.c", "PINNED_CHURN_HERE")
        m = mgtest.sites_at(rep, file="async.c", line=line("async.c", "MANAGED_HERE"))
        self.assertEqual([x["space"] for x in m], ["managed"])
        self.assertEqual(rep["errors"], [])

    def test_driver_api_called_directly_and_virtual_memory(self):
        r = run("driver")
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        s = self.assertSite(rep, "growing", "device", "driver.c", "DRIVER_GROWING_HERE")
        self.assertEqual(s["live_bytes"], 100 * 10000)
        # Through a pointer from cuGetProcAddress: an internal address of the
        # driver, seen only through the wrapped cuGetProcAddress.
        s = self.assertSite(rep, "growing", "device", "driver.c", "FETCHED_HERE")
        self.assertEqual(s["allocated_blocks"], 100)
        # Released right after mapping: the mapping keeps the memory.
        s = self.assertSite(rep, "growing", "device", "driver.c", "VMM_GROWING_HERE")
        self.assertEqual(s["live_bytes"], 100 * (2 << 20))
        s = self.assertSite(rep, "stable", "device", "driver.c", "VMM_CHURN_HERE")
        self.assertEqual(s["live_bytes"], 0)
        self.assertSite(rep, "stable", "pinned", "driver.c", "DRIVER_PINNED_HERE")
        # The exported cuMemAddressReserve and cuMemcpyDtoD_v2: a copy across
        # two chunks is no error, one into the unmapped chunk is.
        self.assertEqual([e["kind"] for e in rep["errors"]], ["DeviceUnmapped"], r.log)
        e = rep["errors"][0]
        self.assertEqual(e["frames"][-1]["line"], line("driver.c", "DRIVER_UNMAPPED"))
        self.assertEqual(e["alloc_frames"][-1]["line"], line("driver.c", "DRIVER_RESERVE"))

    def test_expandable_segment_is_one_range(self):
        # PyTorch's expandable segments (issue 44): 2 MiB chunks mapped one
        # after another into a 64 MiB reservation, the calls fetched through
        # cudaGetDriverEntryPointByVersion. A copy across chunks is valid
        # (on an H200 it was a false DeviceOverrun); each bad copy fails in
        # the stand-in driver as on a GPU, and is an error at its line.
        chunk = 2 << 20
        r = run("expandable")
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        kept = self.assertSite(rep, "growing", "device", "expandable.c", "KEPT_HERE")
        self.assertEqual(kept["live_bytes"], 24 * chunk)
        churn = self.assertSite(rep, "stable", "device", "expandable.c", "CHURN_HERE")
        self.assertEqual(churn["live_bytes"], 0)
        # The reservation is address space, not memory: the live device
        # bytes are the mapped chunks, and its pages are no mapped memory.
        self.assertEqual(sum(s["live_bytes"] for s in device_sites(rep)), 24 * chunk,
                         mgtest.describe(rep))
        self.assertEqual(mgtest.sites_at(rep, file="expandable.c",
                                         line=line("expandable.c", "RESERVE_HERE")), [])
        self.assertEqual([s for s in rep["sites"] if s["space"] == "mapped"
                          and s["live_bytes"] >= chunk], [], mgtest.describe(rep))
        self.assertEqual(rep["buckets"][-1]["spaces"]["device"]["live_bytes"], 24 * chunk)
        self.assertLess(max(rep["pages"]["mapped"]), chunk)

        def at(kind, marker):
            want = line("expandable.c", marker)
            found = [e for e in rep["errors"] if e["kind"] == kind and any(
                f["line"] == want and (f["file"] or "").endswith("expandable.c")
                for f in e["frames"])]
            self.assertEqual(len(found), 1, f"{kind} at expandable.c:{want}:\n{r.log}")
            return found[0]

        def lines(frames):
            return [f["line"] for f in frames or () if (f["file"] or "").endswith("expandable.c")]

        e = at("DeviceUnmapped", "UNMAPPED_HERE")
        self.assertIn("reserved but not mapped", e["message"])
        self.assertIn(line("expandable.c", "RESERVE_HERE"), lines(e["alloc_frames"]))
        e = at("DeviceUnmapped", "NO_ACCESS_HERE")
        self.assertIn("mapped without access", e["message"])
        e = at("DeviceOverrun", "PAST_END_HERE")
        self.assertIn(line("expandable.c", "RESERVE_HERE"), lines(e["alloc_frames"]))
        e = at("DeviceUnmapped", "AFTER_UNMAP_HERE")
        self.assertIn("reserved but not mapped", e["message"])
        self.assertIn(line("expandable.c", "UNMAP_HERE"), lines(e["free_frames"]))
        e = at("DeviceUseAfterFree", "AFTER_FREE_HERE")
        self.assertIn(line("expandable.c", "ADDRESS_FREE_HERE"), lines(e["free_frames"]))
        # Nothing else: the copies across chunks are no errors.
        self.assertEqual(len(rep["errors"]), 5, r.log)
        self.assertIn("ERROR SUMMARY: 5 errors from 5 contexts", r.log)
        self.assertRegex(r.log, r"is \d+ bytes inside a device reservation of size 67108864 at "
                         r"0x[0-9a-f]+, reserved but not mapped")
        # Suppressible by its kind, as every error.
        with tempfile.NamedTemporaryFile("w", suffix=".supp") as f:
            f.write("{\n   vm\n   memgrow:DeviceUnmapped\n   ...\n   fun:main\n}\n")
            f.flush()
            r = run("expandable", options=[f"--suppressions={f.name}"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("ERROR SUMMARY: 2 errors from 2 contexts (suppressed: 3 from 3)", r.log)

    def test_a_deque_of_tensors_bounds_their_device_memory(self):
        # Issue 44 section 3: a tensor's device block, reached through its
        # object and its C storage, is held by the container that holds the
        # tensor; a deque(maxlen) bounds it before it fills, a list does not.
        name = "py_device_tensors.py"
        py = mgtest.python_interpreters()["running"]
        r = mgtest.run([*py.argv, os.path.join(mgtest.SRC, "tests", "regress", name), "300"],
                       env=standin_env())
        self.assertEqual(r.rc, 0, r.log[-3000:])

        def device_site(marker):
            at = mgtest.source_line(os.path.join("tests", "regress", name), marker)
            found = [ps for ps in r.report["python_sites"] if ps["space"] == "device"
                     and any(f["line"] == at and (f["file"] or "").endswith(name)
                             for f in ps["frames"])]
            self.assertEqual(len(found), 1, f"{marker}: {found}\n{r.log[-3000:]}")
            return found[0]

        recent = device_site("DEQUE_TENSOR")
        self.assertEqual(recent["live_bytes"], 300 * (16 << 10))
        h = recent["held_by"][0]
        self.assertEqual((h["path"], h["type"], h["length"], h["bound"]),
                         ("__main__.recent", "collections.deque", 300, 1000), recent["held_by"])
        self.assertGreaterEqual(h["share"], 0.9)
        g = recent["growth"]
        self.assertEqual((recent["class"], g["rule"], g["bound"]),
                         ("plateau", "bounded holder", 1000), g)
        self.assertAlmostEqual(g["fill"], 0.3, places=2)
        kept = device_site("KEPT_TENSOR")
        self.assertEqual((kept["class"], kept["live_bytes"]), ("growing", 300 * (64 << 10)))
        h = kept["held_by"][0]
        self.assertEqual((h["path"], h["type"], h["length"], h["bound"]),
                         ("__main__.history", "list", 300, None), kept["held_by"])
        self.assertEqual(device_site("TEMP_TENSOR")["live_bytes"], 0)
        self.assertEqual(r.report["errors"], [], r.log[-3000:])

    def test_misuse_errors_with_stacks(self):
        r = run("misuse")
        self.assertEqual(r.rc, 0, r.log)
        errors = {}
        for e in r.report["errors"]:
            errors.setdefault(e["kind"], []).append(e)

        def at(kind, marker):
            es = errors.get(kind, [])
            self.assertEqual(len(es), 2 if kind == "DeviceMismatchedFree" else 1,
                             f"{kind}:\n{r.log}")
            want = line("misuse.c", marker)
            for e in es:
                if any(f["line"] == want and f["file"] and f["file"].endswith("misuse.c")
                       for f in e["frames"]):
                    return e
            self.fail(f"no {kind} at misuse.c:{want}:\n{r.log}")

        at("DeviceInvalidFree", "UNKNOWN_FREE")
        e = at("DeviceOverrun", "OVERRUN")
        self.assertEqual(e["alloc_frames"][0]["line"], line("misuse.c", "cudaMalloc(&a"))
        at("DeviceMismatchedFree", "WRONG_FAMILY")
        at("DeviceMismatchedFree", "WRONG_FAMILY_2")
        e = at("DeviceDoubleFree", "DOUBLE_FREE")
        self.assertEqual(e["free_frames"][-1]["function"], "main")
        self.assertIn(line("misuse.c", "FIRST_FREE"), [f["line"] for f in e["free_frames"]])
        e = at("DeviceUseAfterFree", "AFTER_FREE")
        self.assertIn(line("misuse.c", "FIRST_FREE"), [f["line"] for f in e["free_frames"]])
        self.assertIn("ERROR SUMMARY: 6 errors from 6 contexts", r.log)
        self.assertIn("Device range overrun: write of 8192 bytes", r.log)

    def test_side_by_side_finds_each_at_its_line(self):
        # What docs/cuda.md's table sets beside compute-sanitizer; the GPU
        # kit runs the same program built with nvcc on the real driver.
        r = run("side_by_side", options=["--leak-check=full"])
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        leak = self.assertSite(rep, "leaked", "device", "side_by_side.c", "DEVICE_LEAK")
        self.assertEqual(leak["lost"]["definite"], 1 << 20)
        kept = [s for s in device_sites(rep) if s["live_bytes"] == 1 << 16]
        self.assertEqual(len(kept), 1, mgtest.describe(rep))
        self.assertEqual((kept[0]["at_exit_bytes"], kept[0]["lost"]["definite"]), (1 << 16, 0))
        host = self.assertSite(rep, "leaked", "host", "side_by_side.c", "HOST_LEAK")
        self.assertEqual(host["lost"]["definite"], 100)
        for kind, marker in (("DeviceDoubleFree", "DOUBLE_FREE"),
                             ("DeviceMismatchedFree", "WRONG_FAMILY"),
                             ("DeviceOverrun", "MEMCPY_OVERRUN")):
            want = line("side_by_side.c", marker)
            found = [e for e in rep["errors"] if e["kind"] == kind and any(
                f["line"] == want and (f["file"] or "").endswith("side_by_side.c")
                for f in e["frames"])]
            self.assertEqual(len(found), 1, f"{kind} at side_by_side.c:{want}:\n{r.log}")
        self.assertEqual(len(rep["errors"]), 3, r.log)

    # The stand-in driver's start-up allocates host memory as the real one's
    # does (cuInit 5 MiB, the primary context 25 MiB; 46 MB on an H100), ten
    # times what classes.c allocates after it: the warm-up ends after it, so
    # the program's own work gets the buckets (the classes above) and the
    # driver's tables are start-up, not growth.
    def test_driver_startup_ends_the_warmup(self):
        r = run("classes", options=["-v"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("the CUDA driver's start-up took 26,214,400 of the run clock's", r.log)
        rep = r.report
        self.assertGreaterEqual(rep["warmup_end"], 30 << 20)
        self.assertEqual(rep["buckets"][0]["end"], rep["warmup_end"])
        self.assertGreaterEqual(len(rep["buckets"]), 32)
        driver = mgtest.sites_at(rep, file="standin_driver.c")
        self.assertTrue(driver, mgtest.describe(rep))
        self.assertEqual({s["class"] for s in driver}, {"stable"}, mgtest.describe(rep))
        # --warmup is the user's: nothing folds.
        r = run("classes", options=["-v", "--warmup=5%"])
        self.assertNotIn("the CUDA driver's start-up took", r.log)
        self.assertLess(r.report["warmup_end"], 5 << 20)

    def test_driver_startup_keeps_the_history_before_it(self):
        # 48 MiB of host growth, then CUDA's 30 MiB start-up: a minority of
        # the clock, so the warm-up stays the default and the growth stays.
        r = mgtest.run([cuda_program("late_init")], options=["-v"], env=standin_env())
        self.assertEqual(r.rc, 0, r.log)
        self.assertNotIn("the CUDA driver's start-up took", r.log)
        self.assertLess(r.report["warmup_end"], 48 << 20)
        self.assertSite(r.report, "growing", "host", "late_init.c", "HOST_GROWING_HERE")
        # What holds the driver's start-up blocks is named: its static array,
        # or the loader's own memory where stale words of it remain.
        self.assertNotIn("mapped memory at", r.log)
        # The program ended its warm-up itself: that stays the warm-up's end.
        r = mgtest.run([cuda_program("late_init"), "announced"], options=["-v"],
                       env=standin_env())
        self.assertEqual(r.rc, 0, r.log)
        self.assertNotIn("the CUDA driver's start-up took", r.log)
        self.assertLess(r.report["warmup_end"], 1 << 20)
        self.assertSite(r.report, "growing", "host", "late_init.c", "HOST_GROWING_HERE")

    def test_driver_startup_state_suppressed_by_default(self):
        # Reached through the exported cuInit and cuDevicePrimaryCtxRetain
        # (driver.c links -lcuda), the stand-in keeps its start-up blocks by
        # pointers into their middle, as the real driver does: possibly lost,
        # silenced by suppressions/cuda.supp unless the defaults are off.
        startup = (4096 + 24 * 1024) * 1024
        r = run("driver")
        self.assertEqual(r.rc, 0, r.log)
        lc = r.report["leak_check"]
        self.assertEqual(lc["possible"]["bytes"], 0, r.log)
        self.assertEqual(lc["suppressed"]["bytes"], startup, r.log)
        r = run("driver", options=["--default-suppressions=no"])
        self.assertEqual(r.report["leak_check"]["possible"]["bytes"], startup, r.log)
        # Lost at start-up (the driver's start-up ends the warm-up): one line
        # by default, the records when asked for.
        self.assertEqual(r.report["leak_check"]["lost_at_startup"]["possible"]["bytes"], startup,
                         r.log)
        self.assertRegex(r.log, r"Lost at start-up: 29,360,128 bytes in \S+ blocks")
        r = run("driver", options=["--default-suppressions=no",
                                   "--show-leak-kinds=definite,possible,startup"])
        self.assertRegex(r.log, r"by 0x[0-9a-f]+: cuDevicePrimaryCtxRetain \(standin_driver\.c:")

    def test_own_context_is_startup_too(self):
        # cuCtxCreate through the exported symbol (-lcuda): the stand-in's
        # context takes 16 MiB (and a 1 MiB scratch buffer) of host memory.
        r = run("ctx_create", options=["-v"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("the CUDA driver's start-up took 17,825,792 of the run clock's", r.log)
        rep = r.report
        self.assertGreaterEqual(rep["warmup_end"], 21 << 20)
        self.assertSite(rep, "growing", "device", "ctx_create.c", "CTX_GROWING_HERE")
        lc = rep["leak_check"]
        self.assertEqual(lc["possible"]["bytes"], 0, r.log)
        self.assertEqual(lc["suppressed"]["bytes"], (4096 + 16 * 1024) * 1024, r.log)

    def test_core_checks_after_the_report(self):
        # The GPU kit's --stats=yes runs (bench/results/gpu) ended in the
        # core's panic "sanity_check_malloc_arena": the last report had
        # given the client arena's pages, headers and all, back to the kernel.
        for opt in ("--stats=yes", "--sanity-level=2", "--profile-heap=yes"):
            r = run("side_by_side", options=[opt])
            self.assertEqual(r.rc, 0, f"{opt}:\n{r.log}")
            self.assertNotIn("the 'impossible' happened", r.log, opt)
            self.assertIn("DeviceDoubleFree", [e["kind"] for e in r.report["errors"]], opt)
            if opt == "--stats=yes":  # the stats, after the report
                self.assertRegex(r.log, r"transtab: +new")

    def test_cuda_no_records_no_device_sites(self):
        r = run("classes", options=["--cuda=no"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual(device_sites(r.report), [], mgtest.describe(r.report))
        self.assertEqual(r.report["errors"], [])


TORCH_SCRIPT = os.path.join(SRC, "py_standin_torch.py")


def torch_library(name):
    return os.path.join(CUDA_DIR, "standin_torch", name)


def run_torch(library, steps, options=(), mode=()):
    return mgtest.run([sys.executable, os.path.join(mgtest.SRC, TORCH_SCRIPT),
                       torch_library(library), str(steps), *mode],
                      options=options, env=standin_env())


def printed(log, tag):
    for text in log.splitlines():
        if text.startswith(tag + " "):
            return json.loads(text[len(tag) + 1:])
    raise AssertionError(f"no {tag} line in:\n{log}")


class TensorProbeTest(mgtest.TestCase):
    """PyTorch's SDT probes (pytorch:malloc, pytorch:free) read from a stand-in
    tensor library built with <sys/sdt.h> (tests/cuda/standin_torch.c, loaded
    by ctypes: a dlopen after the start), docs/cuda.md "Probes"."""
    setUp = CudaTest.setUp

    def assertTensorSite(self, rep, cls, marker):
        sites = self.assertClass(rep, cls, file="py_standin_torch.py",
                                 line=mgtest.source_line(TORCH_SCRIPT, marker))
        sites = [s for s in sites if s["space"] == "device"]
        self.assertEqual(len(sites), 1, mgtest.describe(rep))
        return sites[0]

    def assertDequeBounded(self, rep):
        # The deque(maxlen=1000) keeps 64 KiB tensors: its line is a plateau
        # by bounded holder while the deque is still filling (issue 44 §3).
        line = mgtest.source_line(TORCH_SCRIPT, "DEQUE_HERE")
        found = [ps for ps in rep["python_sites"] if ps["space"] == "device" and any(
            f["line"] == line and (f["file"] or "").endswith("py_standin_torch.py")
            for f in ps["frames"])]
        self.assertEqual(len(found), 1, mgtest.describe(rep))
        g = found[0]["growth"]
        self.assertEqual((found[0]["class"], g["rule"], g["bound"]),
                         ("plateau", "bounded holder", 1000), g)
        self.assertEqual(found[0]["held_by"][0]["path"], "__main__.recent_kept")

    def assertCountersAtMarks(self, rep, counters):
        [dev] = rep["device_memory"]
        self.assertEqual(dev["device"], 0)
        self.assertGreaterEqual(len(dev["mark_allocated"]), len(counters) - 1)
        for i, level in enumerate(dev["mark_allocated"]):
            self.assertEqual(level, counters[i]["allocated"], f"mark {i + 1}")
            self.assertEqual(dev["mark_reserved"][i], counters[i]["reserved"], f"mark {i + 1}")
        self.assertEqual(len(dev["allocated"]), len(rep["buckets"]))
        return dev

    def test_tensors_are_blocks_and_segments_the_reserve(self):
        r = run_torch("libstandin_torch.so", 40)
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        shown = printed(r.log, "COUNTERS")
        after = printed(r.log, "AFTER")
        kept = self.assertTensorSite(rep, "growing", "KEPT_HERE")
        # Its device bytes are what the library counts for the kept tensors.
        self.assertEqual(kept["live_bytes"], shown["kept_bytes"])
        self.assertEqual(kept["live_blocks"], shown["kept_blocks"])
        # Held by the list that keeps the tensors (their pointers sit in the
        # Tensor objects), not by the allocator's own table of live blocks.
        self.assertEqual(kept["lost"]["definite"], 0)
        self.assertEqual(kept["held_by"][0]["path"], "__main__.keep", kept["held_by"])
        self.assertDequeBounded(rep)
        self.assertTensorSite(rep, "stable", "TEMP_LARGE_HERE")
        self.assertTensorSite(rep, "stable", "TEMP_SMALL_HERE")
        # Every device site is a tensor's: the segments (new_segment's
        # cudaMalloc, in the library's code) are the reserve, no line's.
        for s in device_sites(rep):
            self.assertEqual(s["frames"][0]["function"], "st_malloc", mgtest.frames_text(s))
        # The allocated/reserved series are the library's counters at each
        # mark, and after empty_cache() gave the unused segments back.
        dev = self.assertCountersAtMarks(rep, shown["marks"])
        self.assertEqual(dev["allocated_bytes"], after["allocated"])
        self.assertEqual(dev["reserved_bytes"], after["reserved"])
        self.assertIn(f"its blocks {after['allocated']:,} bytes", r.log)
        self.assertIn(f"cached or fragmented {after['reserved'] - after['allocated']:,} bytes",
                      r.log)
        self.assertEqual(rep["errors"], [])
        # memgrow-report reads the series and charts them.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "torch.json")
            with open(path, "w") as f:
                json.dump(rep, f)
            p = mgtest.memgrow_report("html", path, "-o", os.path.join(tmp, "torch.html"))
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(tmp, "torch.html")) as f:
                self.assertIn("chart device-memory-chart", f.read())

    def test_probes_without_semaphores_from_memory_operands(self):
        # Built -O0 without semaphores: its probes run always, and read each
        # argument from the stack (`8@-24(%rbp)`).
        r = run_torch("libstandin_torch_nosem.so", 12)
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        shown = printed(r.log, "COUNTERS")
        kept = self.assertTensorSite(rep, "growing", "KEPT_HERE")
        self.assertEqual(kept["live_bytes"], shown["kept_bytes"])
        self.assertCountersAtMarks(rep, shown["marks"])
        self.assertEqual(rep["errors"], [])

    def test_expandable_segments_are_the_reserve(self):
        # Segments mapped into one reservation (cuMemCreate, cuMemMap): the
        # physical allocations are no sites, their mappings the reserve.
        r = run_torch("libstandin_torch.so", 12, mode=["expandable"])
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        shown = printed(r.log, "COUNTERS")
        after = printed(r.log, "AFTER")
        kept = self.assertTensorSite(rep, "growing", "KEPT_HERE")
        self.assertEqual(kept["live_bytes"], shown["kept_bytes"])
        self.assertDequeBounded(rep)
        self.assertTensorSite(rep, "stable", "TEMP_LARGE_HERE")
        for s in device_sites(rep):
            self.assertEqual(s["frames"][0]["function"], "st_malloc", mgtest.frames_text(s))
        dev = self.assertCountersAtMarks(rep, shown["marks"])
        self.assertEqual(dev["reserved_bytes"], after["reserved"])
        self.assertEqual(rep["errors"], [])

    def test_a_library_without_probes_keeps_the_segment_view(self):
        # PyTorch's library name, built without SDT: the log says so once,
        # and its segments are the device sites, as without this feature.
        r = run_torch(os.path.join("noprobes", "libc10_cuda.so"), 6)
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual(r.log.count("libc10_cuda.so has no allocator probes"), 1, r.log)
        self.assertNotIn("device_memory", r.report)
        sites = device_sites(r.report)
        self.assertTrue(sites, mgtest.describe(r.report))
        for s in sites:
            self.assertIn("new_segment", mgtest.frames_text(s))

    def test_cuda_no_ignores_the_probes(self):
        r = run_torch("libstandin_torch.so", 4, options=["--cuda=no"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual(device_sites(r.report), [])
        self.assertNotIn("device_memory", r.report)


if __name__ == "__main__":
    unittest.main()
