#!/usr/bin/env python3
"""Runs the workspace's test binaries in lanes, so real-time tests wait beside
CPU-bound ones instead of after them.

`cargo test` runs one test binary after another. About half of the suite's
execution is real time: emulated links, QUIC and kernel TCP transfers,
Chromium playing video. Those binaries sleep on timers and sockets most of
the time, so they run here in a lane of their own, beside a second lane
that runs everything else (the simulation tests, which keep both cores
busy) at the lowest priority (SCHED_IDLE): when a real-time test needs the
CPU it gets it first, and the simulations take what is left. A binary too
sensitive to share the machine at all (SOLO) runs alone first.

usage: scripts/test-lanes.py ARTIFACTS [FILTER ...]

ARTIFACTS is the output of
`cargo test --workspace --release --locked --no-run --message-format=json`;
FILTER arguments go to every test binary (libtest's name filters and
options). After the binaries, the CPU lane runs the doctests and then
`scripts/test-python.sh` (when no FILTER is given). Each binary's output is
printed whole when it ends, with its lane and wall time; a table of the
slowest binaries closes the run. The exit status is 1 if any binary failed.
"""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

# The real-time test binaries, as `package/test`, longest first (lanes take
# them in this order, which packs lanes best when there are several). A binary not listed runs
# in the CPU lane, which is always correct and only slower; a listed one that
# no longer exists is an error, so the list cannot go stale silently.
REAL_TIME = [
    "cli/http3_chromium",
    "quic/abuse",
    "quic/copilot",
    "cli/shell",
    "cli/emulate",
    "quic/receive_window",
    "quic/emulated_columns",
    "quic/http3",
    "quic/transfer",
    "cli/http3_aioquic",
    "cli/kernel",
    "kernel/loopback",
    "s2n-cc/loopback",
    "my-controller/quic",
    "report/browser",
]
# Real-time binaries that run alone, before the lanes start: the emulated
# cross-validation holds oBBR within 10% of the simulator only on an
# otherwise idle machine (beside the CPU lane, even under SCHED_IDLE, its
# drop detector reads late samples as drops: -12.6% at 0.25 BDP, and -18%
# at nice 19; BBR and CUBIC stay within 7.2%).
# The relay's rate tests go alone too: beside the CPU lane their 1% check
# of a mahimahi trace's delivered rate missed once in five runs (-1.96%),
# as it does under any outside load. So does the kernel cross-validation:
# beside the CPU lane the kernel's CUBIC behind the shell's 0.25 BDP buffer
# once lost 0.63% and reached 33.7 Mbit/s against the simulator's 0% and
# 38.6 (a fresh clone's run; alone it agrees, twice in a row), the shell's
# TUN loop being late under the other lane's load. Alone, they take about
# as long as they did in the lane, which the CPU lane's length bounds anyway.
SOLO = ["quic/cross_validation", "emu/relay", "quic/kernel_xval"]
# One real-time lane: its binaries run their tests two at a time (libtest's
# threads), as they did under plain `cargo test`; a second lane would put up
# to four timing-sensitive tests beside each other. BBRLAB_REAL_TIME_LANES
# overrides it (to measure).
REAL_TIME_LANES = int(os.environ.get("BBRLAB_REAL_TIME_LANES", "1"))
# The CPU lane yields to the real-time one: it runs under SCHED_IDLE (and
# nice 19), so the kernel gives it only what the real-time tests leave.
CPU_NICE = 19


class Job:
    """One thing a lane runs: a test binary or a command."""

    def __init__(self, name, argv, cwd, env=None):
        self.name = name
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.seconds = None
        self.status = None


def test_binaries(artifacts, filters):
    """The test binaries cargo built, as jobs, from its JSON messages."""
    jobs = []
    try:
        lines = open(artifacts, encoding="utf-8")
    except OSError as e:
        sys.exit(f"scripts/test-lanes.py: cannot read the artifacts list {artifacts}: {e.strerror}")
    with lines:
        for number, line in enumerate(lines, 1):
            try:
                message = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{artifacts}:{number}: not a cargo JSON message ({e})")
            if message.get("reason") != "compiler-artifact":
                continue
            if not message.get("executable") or not message["profile"]["test"]:
                continue
            manifest = Path(message["manifest_path"])
            package = message["package_id"].split("#")[0].rstrip("/").split("/")[-1]
            name = f"{package}/{message['target']['name']}"
            env = dict(os.environ)
            # What `cargo test` sets for a test binary it runs.
            env["CARGO_MANIFEST_DIR"] = str(manifest.parent)
            env["CARGO_PKG_NAME"] = package
            jobs.append(Job(name, [message["executable"], *filters], manifest.parent, env))
    return jobs


def lower_priority():
    # SCHED_IDLE, not just nice 19: a waking real-time test preempts an idle
    # task at once, where a nice-19 one still holds the core for its slice,
    # enough to starve an emulated link's timers (oBBR's drop detector read
    # the late samples as drops: -18% goodput in the cross-validation).
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    os.nice(CPU_NICE)


class Runner:
    """Lanes pulling jobs from their queues; output printed a binary at a time."""

    def __init__(self):
        self.print_lock = threading.Lock()
        self.done = []

    def run(self, lane, job, nice):
        start = time.monotonic()
        try:
            process = subprocess.run(
                job.argv,
                cwd=job.cwd,
                env=job.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                preexec_fn=lower_priority if nice else None,
            )
            job.status, output = process.returncode, process.stdout
        except OSError as e:
            job.status, output = 127, f"cannot start {job.argv[0]}: {e.strerror}\n".encode()
        job.seconds = time.monotonic() - start
        with self.print_lock:
            verdict = "ok" if job.status == 0 else f"FAILED (exit {job.status})"
            print(f"==== {job.name} [{lane}] {job.seconds:.1f} s: {verdict}", flush=True)
            sys.stdout.buffer.write(output)
            sys.stdout.flush()
            self.done.append(job)

    def lane(self, name, queue, nice):
        while True:
            with self.print_lock:
                if not queue:
                    return
                job = queue.pop(0)
            self.run(name, job, nice)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    artifacts, filters = sys.argv[1], sys.argv[2:]
    jobs = test_binaries(artifacts, filters)
    names = {job.name for job in jobs}
    stale = [name for name in REAL_TIME + SOLO if name not in names]
    if stale:
        sys.exit(f"scripts/test-lanes.py: REAL_TIME or SOLO name binaries cargo did not build: {', '.join(stale)}")
    real_time = sorted((job for job in jobs if job.name in REAL_TIME), key=lambda job: REAL_TIME.index(job.name))
    solo = [job for job in jobs if job.name in SOLO]
    cpu = [job for job in jobs if job.name not in REAL_TIME and job.name not in SOLO]
    root = Path(__file__).resolve().parent.parent
    cpu.append(
        Job("doctests", ["cargo", "test", "--workspace", "--release", "--locked", "--doc", *filters], root)
    )
    if not filters:
        cpu.append(Job("python", [str(root / "scripts" / "test-python.sh")], root))

    runner = Runner()
    runner.lane("alone", solo, False)
    lanes = [threading.Thread(target=runner.lane, args=("cpu", cpu, True))]
    for number in range(REAL_TIME_LANES):
        lanes.append(threading.Thread(target=runner.lane, args=(f"real-time {number + 1}", real_time, False)))
    for lane in lanes:
        lane.start()
    for lane in lanes:
        lane.join()

    failed = [job for job in runner.done if job.status != 0]
    print("test-lanes: slowest binaries", file=sys.stderr)
    for job in sorted(runner.done, key=lambda job: -job.seconds)[:12]:
        print(f"  {job.seconds:6.1f} s  {job.name}", file=sys.stderr)
    if failed:
        print(f"test-lanes: {len(failed)} failed: {', '.join(job.name for job in failed)}", file=sys.stderr)
        sys.exit(1)
    print(f"test-lanes: {len(runner.done)} binaries and commands passed", file=sys.stderr)


if __name__ == "__main__":
    main()
