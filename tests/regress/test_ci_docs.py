# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/ci.md stays true: its GitHub Actions and GitLab CI jobs, read from
the page, run their memgrow commands (every `run:` step and `script:` /
`after_script:` line but the set-up) on a small pytest project: on the main
branch (a baseline is made), then on a branch whose application code keeps
every result in a module-level dict (the plugin fails the tests, diff fails
on the new growing site, the reports are still written). The test suite
under memgrow is the one slow command and the same line in both jobs: it
runs once per branch, and the GitLab job's other lines use its report."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import BUILD, REPORT, SRC, VALGRIND, TestCase  # noqa: E402

PACKAGE = os.path.join(os.path.abspath(BUILD), ".in_place", "memgrow-python")

TESTS = '''import pytest

import app


@pytest.mark.parametrize("n", range(12))
def test_process(n):
    assert app.process(n) == n * 199 * 200 // 2
'''
APP = '''def process(n):
    values = [i * n for i in range(200)]
    return sum(values)
'''
LEAKY_APP = '''_seen = {}


def process(n):
    values = [i * n for i in range(200)]
    _seen[len(_seen)] = values  # KEEPS_EVERY_RESULT
    return sum(values)
'''


def yaml_blocks():
    with open(os.path.join(SRC, "docs", "ci.md")) as f:
        blocks = re.findall(r"```yaml\n(.*?)```", f.read(), re.S)
    p = subprocess.run(["/usr/bin/python3", "-c", "import json, sys, yaml; "
                        "print(json.dumps([yaml.safe_load(b) for b in json.load(sys.stdin)]))"],
                       input=json.dumps(blocks), stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(p.stdout)


def github_commands(job, main):
    """The run steps in order, each with whether it runs on this branch."""
    out = []
    for step in job["steps"]:
        if "run" not in step or "setup.sh" in step["run"]:
            continue
        cond = step.get("if", "")
        if cond == "github.ref == 'refs/heads/main'" and not main:
            continue
        out.append((step["run"], cond))
    return out


def gitlab_commands(job):
    return [(line, "script") for line in job["script"]] + \
           [(line, "always()") for line in job["after_script"]]


class CiDocs(TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memgrow-test-ci-")
        bin_dir = os.path.join(self.tmp, "bin")
        os.mkdir(bin_dir)
        # The installed names, pointed at this build.
        for name, target in (("valgrind", VALGRIND), ("memgrow-report", REPORT),
                             ("python3", "/usr/bin/python3")):
            with open(os.path.join(bin_dir, name), "w") as f:
                f.write(f'#!/bin/sh\nexec "{os.path.abspath(target)}" "$@"\n')
            os.chmod(os.path.join(bin_dir, name), 0o755)
        self.env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"], PYTHONPATH=PACKAGE,
                        CI_DEFAULT_BRANCH="main")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def project(self, name, leaky):
        root = os.path.join(self.tmp, name)
        os.makedirs(os.path.join(root, "tests"))
        with open(os.path.join(root, "tests", "test_app.py"), "w") as f:
            f.write(TESTS)
        with open(os.path.join(root, "tests", "conftest.py"), "w") as f:
            f.write("import os, sys\n\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n")
        with open(os.path.join(root, "app.py"), "w") as f:
            f.write(LEAKY_APP if leaky else APP)
        return root

    def sh(self, command, cwd, env):
        p = subprocess.run(["/bin/sh", "-ec", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=900)
        return p.returncode, p.stdout

    def run_job(self, commands, root, env):
        """Runs commands as the CI system would: after a failure only the
        always() ones; returns (exit code, output) of each that ran."""
        results, failed = [], False
        for command, cond in commands:
            if failed and "always()" not in cond:
                continue
            rc, out = self.sh(command, root, env)
            results.append((command, rc, out))
            failed = failed or rc != 0
        return results

    def run_branch(self, commands, name, leaky, system, baseline_from=None):
        root = self.project(f"{system}-{name}", leaky)
        if baseline_from:
            shutil.copytree(os.path.join(baseline_from, BASELINE), os.path.join(root, BASELINE))
        for report in ("memgrow.json",):
            src = os.path.join(self.tmp, "reports", name, report)
            if os.path.exists(src):  # the suite already ran on this branch
                shutil.copy(src, root)
        env = dict(self.env, CI_COMMIT_BRANCH="main" if name == "main" else name)
        results = self.run_job(commands, root, env)
        if os.path.exists(os.path.join(root, "memgrow.json")):
            os.makedirs(os.path.join(self.tmp, "reports", name), exist_ok=True)
            shutil.copy(os.path.join(root, "memgrow.json"), os.path.join(self.tmp, "reports", name))
        return root, results

    def check_main(self, root, results):
        for command, rc, out in results:
            self.assertEqual(rc, 0, f"{command}\n{out[-3000:]}")
        self.assertTrue(os.path.isfile(os.path.join(root, BASELINE, "memgrow.json")))

    def check_leaky(self, root, results, ran_suite):
        by_tool = {}
        for command, rc, out in results:
            tool = "valgrind" if command.startswith("valgrind") else \
                   "diff" if "memgrow-report diff memgrow-baseline" in command else command
            by_tool[tool] = (rc, out)
        if ran_suite:
            rc, out = by_tool["valgrind"]
            self.assertEqual(rc, 1, out[-3000:])  # the plugin failed the tests
            self.assertIn("kept memory in every repetition after the first", out)
            self.assertRegex(out, r"most at process\S* \(\S*app.py:\d+\)")
        rc, out = by_tool["diff"]
        self.assertEqual(rc, 1, out)  # a new growing site
        self.assertRegex(out, r"process\S* \(\S*app.py:\d+\)")
        for name in ("memgrow.sarif", "memgrow-junit.xml", "memgrow.html"):
            self.assertTrue(os.path.getsize(os.path.join(root, name)) > 0, name)
        with open(os.path.join(root, BASELINE, "memgrow.json")) as f:
            self.assertEqual(json.load(f)["command"][-1], "tests/")  # not replaced on a branch

    def test_github_actions_and_gitlab_ci(self):
        github, gitlab = yaml_blocks()
        gh = github["jobs"]["leaks"]
        root, results = self.run_branch(github_commands(gh, main=True), "main", False, "github")
        self.check_main(root, results)
        main = root
        root, results = self.run_branch(github_commands(gh, main=False), "leaky", True, "github",
                                        baseline_from=main)
        self.check_leaky(root, results, ran_suite=True)

        gl = gitlab["memgrow-leaks"]
        self.assertEqual(gl["cache"]["paths"], [BASELINE + "/"])
        suite = [c for c in gl["script"] if c.startswith("valgrind")]
        self.assertEqual(suite, [s["run"] for s in gh["steps"]
                                 if s.get("run", "").startswith("valgrind")])
        commands = [c for c in gitlab_commands(gl) if not c[0].startswith("valgrind")]
        root, results = self.run_branch(commands, "main", False, "gitlab")
        self.check_main(root, results)
        root, results = self.run_branch(commands, "leaky", True, "gitlab", baseline_from=root)
        self.check_leaky(root, results, ran_suite=False)


BASELINE = "memgrow-baseline"

if __name__ == "__main__":
    unittest.main()
