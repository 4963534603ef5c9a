"""Copy-on-write in forked children (docs/pages.md): what a child's first
writes to the pages it inherited copied, what those pages held and which
line wrote them, in the report's "fork" object and the log."""
import os
import re
import unittest

from mgtest import program, run, source_line

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
        self.assertLess(by_pid[idle]["fork"]["copied_bytes"], 1 << 20)
        self.assertGreater(by_pid[idle]["fork"]["inherited_bytes"], 32 << 20)
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

    def test_format_1_and_the_growth_hunt_say_the_same(self):
        self.check_cow_fork(options=["--json-format=1", "--addressability=no"])

    def test_a_process_that_never_forked_has_no_fork_section(self):
        r = run([program("grow_list")])
        self.assertEqual(r.rc, 0, r.log)
        self.assertNotIn("fork", r.report)
        self.assertNotIn("COPY-ON-WRITE", r.log)


if __name__ == "__main__":
    unittest.main()
