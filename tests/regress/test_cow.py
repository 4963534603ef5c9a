# SPDX-License-Identifier: GPL-2.0-or-later
"""Copy-on-write in forked children (docs/pages.md): what a child's first
writes to the pages it inherited copied, what those pages held and which
line wrote them, in the report's "fork" object and the log."""
import json
import os
import re
import subprocess
import tempfile
import unittest

from mgtest import VALGRIND, SRC, memgrow_report, program, python_interpreters, run, source_line

SOURCE = "tests/regress/cow_fork.c"
PAGE = 4096


def frame_at(frames, line):
    return any(f["line"] == line and f["file"] and os.path.basename(f["file"]) == "cow_fork.c"
               for f in frames)


class CopyOnWrite(unittest.TestCase):
    def check_cow_fork(self, options=()):
        r = run([program("cow_fork")], options=options)
        self.assertEqual(r.rc, 0, r.log)
        # The page map's loads are the tool's, never the client's errors.
        self.assertEqual(r.log.count("ERROR SUMMARY: 0 errors"), 4, r.log)
        by_pid = {rep["pid"]: rep for rep in r.reports}
        self.assertEqual(len(by_pid), 4, r.log)
        parent = next(rep for rep in r.reports if rep["ppid"] not in by_pid)
        self.assertNotIn("fork", parent, "the parent never forked from anything")
        build = source_line(SOURCE, "BUILD_HERE")
        read = source_line(SOURCE, "READ_HERE")
        [site] = [s for s in parent["sites"] if frame_at(s["frames"], build)]
        readers = {int(pid): int(pages) for pid, pages in
                   re.findall(r"reader \d pid (\d+) pages (\d+)", r.log)}
        [idle] = [int(pid) for pid in re.findall(r"idle pid (\d+)", r.log)]
        self.assertEqual(len(readers), 2, r.log)
        for pid, pages in readers.items():
            fork = by_pid[pid]["fork"]
            self.assertEqual(fork["parent_pid"], parent["pid"])
            # Both halves' pages were resident and shared at the fork.
            self.assertGreaterEqual(fork["inherited_bytes"], 2 * pages * PAGE)
            lead = fork["copied"][0]
            self.assertEqual(lead.get("site"), site["id"], fork["copied"][:3])
            self.assertLess(abs(lead["bytes"] - pages * PAGE), pages * PAGE / 10,
                            (lead, pages))
            self.assertLess(abs(fork["copied_bytes"] - pages * PAGE), pages * PAGE / 10)
            self.assertEqual(sum(c["bytes"] for c in fork["copied"]), fork["copied_bytes"])
            self.assertTrue(frame_at(fork["writers"][0]["frames"], read), fork["writers"][0])
            self.assertGreater(fork["writers"][0]["bytes"], 0.9 * fork["copied_bytes"])
        idle_fork = by_pid[idle]["fork"]
        self.assertLess(idle_fork["copied_bytes"], 1 << 20)
        self.assertGreater(idle_fork["inherited_bytes"], 32 << 20)
        # The forking thread's stack is copied at the fork, by the fork's
        # own stack (its stores near SP are not checked).
        [stack] = [c["bytes"] for c in idle_fork["copied"] if c.get("region") == "stack"]
        self.assertGreaterEqual(stack, PAGE)
        fork_line = source_line(SOURCE, "FORK_HERE")
        self.assertTrue(any(frame_at(w["frames"], fork_line) and w["bytes"] >= stack
                            for w in idle_fork["writers"]), idle_fork["writers"])
        return r, readers, parent

    def test_readers_copy_the_pages_of_their_half_written_at_the_reading_line(self):
        r, readers, parent = self.check_cow_fork()
        # The log's section, in each reader's lines.
        for pid in readers:
            lines = [l for l in r.log.splitlines() if l.startswith(f"=={pid}==")]
            text = "\n".join(lines)
            self.assertIn("COPY-ON-WRITE", text)
            self.assertRegex(
                text, rf"this process \(forked from {parent['pid']}\) copied 16\.\d MiB of the "
                rf"3\d\.\d MiB it inherited: 16\.\d MiB held objects from cow_fork\.c:"
                rf"{source_line(SOURCE, 'BUILD_HERE')} \(build\); first written at "
                rf"cow_fork\.c:{source_line(SOURCE, 'READ_HERE')} \(read_half\) 99%|100%")

    def test_a_child_that_writes_inherited_pages_then_execs_reports_at_the_exec(self):
        source = "tests/regress/fork_exec.c"
        write = source_line(source, "WRITE_HERE")
        for mode in ("heap", "static"):
            with self.subTest(array=mode):
                r = run([program("fork_exec"), mode])
                self.assertEqual(r.rc, 0, r.log)
                by_pid = {rep["pid"]: rep for rep in r.reports}
                self.assertEqual(len(by_pid), 2, r.log)
                [child] = [rep for rep in r.reports if rep["ppid"] in by_pid]
                fork = child["fork"]
                self.assertEqual(fork["parent_pid"], child["ppid"])
                self.assertGreaterEqual(fork["inherited_bytes"], 8 << 20)
                # 512 pages written, one byte each: each copied once.
                self.assertGreaterEqual(fork["copied_bytes"], 2 << 20)
                self.assertLess(fork["copied_bytes"], (2 << 20) + (1 << 20))
                self.assertTrue(any(f["line"] == write and (f["file"] or "").endswith(
                    "fork_exec.c") for f in fork["writers"][0]["frames"]), fork["writers"][0])
                pid = child["pid"]
                self.assertIn(f"=={pid}== memgrow: the forked child execs /bin/true, which "
                              "Valgrind does not follow: --trace-children=yes follows it; the "
                              "report covers what ran before", r.log)
                self.assertRegex(r.log, rf"=={pid}== this process \(forked from "
                                 rf"{child['ppid']}\) copied 2(\.\d)? MiB of the ")
                self.assertIn(f"=={pid}== COPY-ON-WRITE", r.log)
        # A child that execs at once (a spawned command) writes nothing.
        r = run([program("fork_exec"), "plain"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual(len(r.reports), 1, r.log)
        self.assertNotIn("execs /bin/true", r.log)

    def test_format_1_and_the_growth_hunt_say_the_same(self):
        self.check_cow_fork(options=["--json-format=1", "--addressability=no"])

    def test_merge_show_and_html_sum_the_children(self):
        with tempfile.TemporaryDirectory(prefix="memgrow-test-") as tmp:
            p = subprocess.run([VALGRIND, "--tool=memgrow", "-q",
                                f"--json-file={tmp}/r.%p.json", program("cow_fork")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            files = sorted(os.path.join(tmp, f) for f in os.listdir(tmp))
            self.assertEqual(len(files), 4)
            merged = os.path.join(tmp, "merged.json")
            m = memgrow_report("merge", *files, "-o", merged)
            self.assertEqual(m.returncode, 0, m.stderr)
            with open(merged) as f:
                doc = json.load(f)
            forks = [p["fork"] for p in doc["processes"] if "fork" in p]
            self.assertEqual(len(forks), 3)
            self.assertNotIn("fork", doc)  # the root (the parent) forked from nothing
            # Each child's shares name the merged sites: the structure's.
            build = source_line(SOURCE, "BUILD_HERE")
            for f in forks:
                for c in f["copied"]:
                    if c.get("site") is not None and c["bytes"] > 1 << 20:
                        self.assertTrue(frame_at(doc["sites"][c["site"]]["frames"], build))
            # expand inlines a child's writers as frames, as the tests' reader does.
            read = source_line(SOURCE, "READ_HERE")
            child = next(f for f in files if json.load(open(f)).get("fork", {}).get(
                "copied_bytes", 0) > 1 << 20)
            e = memgrow_report("expand", child)
            self.assertEqual(e.returncode, 0, e.stderr)
            self.assertTrue(frame_at(json.loads(e.stdout)["fork"]["writers"][0]["frames"], read))
            show = memgrow_report("show", merged)
            self.assertEqual(show.returncode, 0, show.stderr)
            self.assertRegex(show.stdout, r"copy-on-write: 3 workers copied 3\d\.\d MiB of "
                             rf"inherited pages; 99% holds objects from build \(cow_fork.c:{build}\)")
            html = memgrow_report("html", *files, "-o", os.path.join(tmp, "r.html"))
            self.assertEqual(html.returncode, 0, html.stderr)
            with open(os.path.join(tmp, "r.html")) as f:
                page = f.read()
            self.assertIn("copy-on-write: 3 workers copied", page)
            self.assertEqual(page.count("copy-on-write: this process (forked from"), 3)

    def test_a_system_call_writing_an_inherited_buffer_copies_its_pages(self):
        r = run([program("cow_read")])
        self.assertEqual(r.rc, 0, r.log)
        child = next(rep for rep in r.reports if "fork" in rep)
        lead = child["fork"]["copied"][0]
        [site] = [s for s in child["sites"] if s["id"] == lead["site"]]
        buffer = source_line("tests/regress/cow_read.c", "BUFFER_HERE")
        read = source_line("tests/regress/cow_read.c", "READ_SYSCALL")
        self.assertTrue(any(f["line"] == buffer for f in site["frames"]), site["frames"])
        self.assertLess(abs(lead["bytes"] - (1 << 19)), (1 << 19) / 10, lead)
        writer = child["fork"]["writers"][0]
        self.assertTrue(any(f["line"] == read and f["file"].endswith("cow_read.c")
                            for f in writer["frames"]), writer)

    def test_a_store_crossing_into_a_shared_page_copies_it(self):
        r = run([program("cow_cross")])
        self.assertEqual(r.rc, 0, r.log)
        child = next(rep for rep in r.reports if "fork" in rep)
        sites = {s["id"]: s for s in child["sites"]}
        buffer = source_line("tests/regress/cow_cross.c", "BUFFER_HERE")
        crossing = source_line("tests/regress/cow_cross.c", "CROSSING_STORE")
        [held] = [c for c in child["fork"]["copied"] if "site" in c and any(
            f["line"] == buffer for f in sites[c["site"]]["frames"])]
        self.assertEqual(held["bytes"], 2 * PAGE, child["fork"]["copied"])
        at_crossing = [w for w in child["fork"]["writers"] if any(
            f["line"] == crossing and f["file"].endswith("cow_cross.c") for f in w["frames"])]
        self.assertEqual(sum(w["bytes"] for w in at_crossing), PAGE, child["fork"]["writers"])

    def test_a_shared_mapping_is_never_copied(self):
        # Issue 43 (B8): the child's writes to the parent's MAP_SHARED
        # memory (8 MiB anonymous, 1 MiB of a file) were counted as copies.
        r = run([program("cow_shared")])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("parent sees 2 2", r.log)  # the child wrote the parent's pages
        fork = next(rep for rep in r.reports if "fork" in rep)["fork"]
        self.assertLess(fork["inherited_bytes"], 1 << 20, fork)
        self.assertLess(fork["copied_bytes"], 256 << 10, fork)
        written = source_line("tests/regress/cow_shared.c", "SHARED_WRITE")
        self.assertFalse([w for w in fork["writers"] if any(
            f["line"] == written and f["file"].endswith("cow_shared.c") for f in w["frames"])],
            fork["writers"])

    def test_a_mapping_moved_by_mremap_is_copied_where_it_went(self):
        # Issue 43 (B8): the inherited 4 MiB moved by mremap were no longer
        # followed (memgrow said 60 KiB copied; the kernel copied 4 MiB).
        r = run([program("cow_mremap")])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("child moved 1", r.log)
        fork = next(rep for rep in r.reports if "fork" in rep)["fork"]
        written = source_line("tests/regress/cow_mremap.c", "MOVED_WRITE")
        at_write = sum(w["bytes"] for w in fork["writers"] if any(
            f["line"] == written and f["file"].endswith("cow_mremap.c") for f in w["frames"]))
        self.assertEqual(at_write, 4 << 20, fork["writers"])
        self.assertGreaterEqual(fork["copied_bytes"], 4 << 20)
        self.assertLess(fork["copied_bytes"], 5 << 20)

    def test_a_process_that_never_forked_has_no_fork_section(self):
        r = run([program("grow_list")])
        self.assertEqual(r.rc, 0, r.log)
        self.assertNotIn("fork", r.report)
        self.assertNotIn("COPY-ON-WRITE", r.log)


PY_SCRIPT = os.path.join(SRC, "tests", "regress", "py_cow_workers.py")
PY_SOURCE = "tests/regress/py_cow_workers.py"


def py_frame_at(frames, line):
    return any(f["python"] and f["line"] == line and f["file"].endswith("py_cow_workers.py")
               for f in frames)


class PythonWorkers(unittest.TestCase):
    """Two workers reading half of a dataset of small dicts each, on the
    shared 3.11 and on 3.14."""

    def run_workers(self, py, how, options=(), args=()):
        r = run([*py.argv, PY_SCRIPT, how, *args], options=options,
                env={"PYTHONMALLOC": "malloc"}, timeout=900)
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn(f"done {how}", r.log)
        return r

    def check_forked(self, how):
        dataset = source_line(PY_SOURCE, "DATASET_HERE")
        read = source_line(PY_SOURCE, "READ_HERE")
        for name in ("running", "3.14"):
            py = python_interpreters()[name]
            with self.subTest(interpreter=name):
                r = self.run_workers(py, how)
                workers = {int(p) for p in re.findall(r"worker \d pid (\d+)", r.log)}
                reports = {rep["pid"]: rep for rep in r.reports}
                self.assertEqual(len(workers), 2, r.log)
                for pid in workers:
                    rep = reports[pid]
                    fork = rep["fork"]
                    sites = {s["id"]: s for s in rep["sites"]}
                    # The largest share held by a site is the dataset's.
                    lead = next(c for c in fork["copied"] if "site" in c)
                    self.assertTrue(py_frame_at(sites[lead["site"]]["frames"], dataset),
                                    sites[lead["site"]]["frames"])
                    on_line = sum(c["bytes"] for c in fork["copied"] if "site" in c
                                  and py_frame_at(sites[c["site"]]["frames"], dataset))
                    self.assertGreater(on_line, 1 << 20)
                    # The stack that copied most reads at the reading line.
                    self.assertTrue(py_frame_at(fork["writers"][0]["frames"], read),
                                    fork["writers"][0]["frames"])
                    self.assertIn(f"forked from {fork['parent_pid']}", r.log)

    def test_multiprocessing_fork_workers_copy_the_dataset_at_the_reading_line(self):
        self.check_forked("fork")

    def test_os_fork_children_copy_the_dataset_at_the_reading_line(self):
        self.check_forked("os.fork")

    def test_spawned_workers_inherit_nothing(self):
        py = python_interpreters()["running"]
        r = self.run_workers(py, "spawn", options=["--trace-children=yes"])
        workers = {int(p) for p in re.findall(r"worker \d pid (\d+)", r.log)}
        self.assertEqual(len(workers), 2, r.log)
        reports = {rep["pid"]: rep for rep in r.reports}
        for pid in workers:
            self.assertIn(pid, reports, r.log)
            self.assertNotIn("fork", reports[pid])
        self.assertNotIn("COPY-ON-WRITE", r.log)

    def test_gc_freeze_spares_the_collections_writes_not_the_reads(self):
        """Records the collector tracks and a full collection in each worker:
        without gc.freeze() the collection writes every inherited record's GC
        header (both halves), with it only the reads' reference counts copy."""
        py = python_interpreters()["running"]
        read = source_line(PY_SOURCE, "READ_HERE")
        collect = source_line(PY_SOURCE, "COLLECT_HERE")
        for args in (["collect"], ["collect", "freeze"]):
            with self.subTest(args=args):
                r = self.run_workers(py, "fork", args=args)
                workers = {int(p) for p in re.findall(r"worker \d pid (\d+)", r.log)}
                self.assertEqual(len(workers), 2, r.log)
                reports = {rep["pid"]: rep for rep in r.reports}
                for pid in workers:
                    writers = reports[pid]["fork"]["writers"]
                    at_read = sum(w["bytes"] for w in writers if py_frame_at(w["frames"], read))
                    at_collect = sum(w["bytes"] for w in writers
                                     if py_frame_at(w["frames"], collect))
                    self.assertGreater(at_read, 2 << 20, writers[:3])
                    if "freeze" in args:
                        self.assertLess(at_collect, at_read / 10, writers[:3])
                    else:  # the other half's pages too
                        self.assertGreater(at_collect, 1.5 * at_read, writers[:3])

    def test_forkserver_workers_inherit_the_server_not_the_parent(self):
        py = python_interpreters()["running"]
        r = self.run_workers(py, "forkserver", options=["--trace-children=yes"])
        workers = {int(p) for p in re.findall(r"worker \d pid (\d+)", r.log)}
        self.assertEqual(len(workers), 2, r.log)
        reports = {rep["pid"]: rep for rep in r.reports}
        [main] = [rep for rep in r.reports
                   if [os.path.basename(a) for a in rep["command"][1:2]] == ["py_cow_workers.py"]]
        dataset = source_line(PY_SOURCE, "DATASET_HERE")
        servers = set()
        for pid in workers:
            fork = reports[pid]["fork"]
            # Forked from the server (a fresh interpreter the parent started),
            # not from the parent that built the dataset: none of its pages.
            self.assertNotEqual(fork["parent_pid"], main["pid"])
            servers.add(fork["parent_pid"])
            sites = {s["id"]: s for s in reports[pid]["sites"]}
            self.assertFalse([c for c in fork["copied"] if "site" in c and
                              py_frame_at(sites[c["site"]]["frames"], dataset)], fork["copied"])
        [server] = servers
        # The server itself was started by exec: it inherited nothing.
        self.assertEqual(reports[server]["ppid"], main["pid"])
        self.assertNotIn("fork", reports[server])
        self.assertNotIn("fork", main)
        self.assertNotIn(f"forked from {main['pid']}", r.log)


if __name__ == "__main__":
    unittest.main()
