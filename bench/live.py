#!/usr/bin/env python3
"""make bench-live: what watching a recording live costs the recorder. The build
workload of `make bench` (bench/workloads.py: a generated C project, make -j2) recorded
by `canopy record` alone, and by `canopy record --serve --metrics` with nothing
connected, with Prometheus (Debian's) scraping /metrics every second, and with that and a
Chromium page following it (bench/live_browser.mjs). The recorder's CPU is its own getrusage (every thread: the sampling loop, the
server's follower and connections), which it writes into the recording's meta at the
end: so the serving of the finished recording afterwards is not in it. Writes
bench/live-results.md.

    bench/live.py BUILD_DIR

Environment: BENCH_LIVE_RUNS (5 rounds, each one run of each configuration)."""

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from datetime import datetime, timezone

import workloads
from heap import describe_machine, fail, load_average, progress

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "bench", "live-results.md")
PROMETHEUS = "/usr/bin/prometheus"


def free_port():
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def recorder_cpu_s(path):
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    return (int(meta["recorder_cpu_user_ns"]) + int(meta["recorder_cpu_system_ns"])) / 1e9


def run_alone(canopy, build, prefix):
    path = prefix + ".canopy"
    subprocess.run([canopy, "record", "-q", "-o", path, "--"] + build.argv, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return recorder_cpu_s(path), None


def start_prometheus(directory, metrics_port):
    config = os.path.join(directory, "prometheus.yml")
    with open(config, "w") as out:
        out.write("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: canopy\n"
                  f"    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n")
    return subprocess.Popen([PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={directory}/tsdb",
                             f"--web.listen-address=127.0.0.1:{free_port()}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_serving(argv):
    """Starts `canopy record --serve...` (argv) in a session of its own; the recorder and
    the URL it prints."""
    recorder = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
    for line in recorder.stderr:
        match = re.search(r"serving the recording live at (http://\S+/)", line)
        if match:
            return recorder, match.group(1)
    fail("canopy record --serve printed no URL")


def stop_when_complete(recorder):
    """Waits until the recorder says the recording is complete, then stops its serving."""
    for line in recorder.stderr:
        if "the recording is complete" in line:
            break
    recorder.send_signal(signal.SIGINT)
    recorder.wait(timeout=60)


def write_results(path, lines):
    text = "\n".join(lines) + "\n"
    print(text)
    with open(path, "w") as out:
        out.write(text)


def run_served(canopy, build, prefix, page=True, prometheus=True):
    """--serve and --metrics; a page on the one and Prometheus on the other when asked.
    What the page says of itself (bench/live_browser.mjs; None without a page)."""
    path = prefix + ".canopy"
    metrics_port = free_port()
    scraper = None
    if prometheus:
        os.makedirs(prefix + ".prometheus", exist_ok=True)
        scraper = start_prometheus(prefix + ".prometheus", metrics_port)
    recorder, url = start_serving([canopy, "record", "-q", "--serve=127.0.0.1:0", "--metrics",
                                   f"127.0.0.1:{metrics_port}", "-o", path, "--"] + build.argv)
    viewer = None
    if page:
        viewer = subprocess.Popen(["node", os.path.join(REPO, "bench", "live_browser.mjs"), url],
                                  stdout=subprocess.PIPE, text=True)
    page = json.loads(viewer.communicate(timeout=120)[0].strip() or "{}") if viewer else None
    stop_when_complete(recorder)
    if scraper:
        scraper.terminate()
        scraper.wait(timeout=60)
    return recorder_cpu_s(path), page


CONFIGS = [
    ("alone", "canopy record", run_alone),
    ("served", "canopy record --serve --metrics, nothing connected",
     lambda canopy, build, prefix: run_served(canopy, build, prefix, page=False, prometheus=False)),
    ("scraped", "the same, Prometheus scraping every second",
     lambda canopy, build, prefix: run_served(canopy, build, prefix, page=False, prometheus=True)),
    ("watched", "the same, Prometheus and a page following it",
     lambda canopy, build, prefix: run_served(canopy, build, prefix, page=True, prometheus=True)),
]


def main():
    if len(sys.argv) != 2:
        fail("usage: bench/live.py BUILD_DIR")
    canopy = os.path.join(os.path.abspath(sys.argv[1]), "canopy")
    if not os.access(canopy, os.X_OK):
        fail(f"missing {canopy} (run: make bench-live)")
    if not os.access(PROMETHEUS, os.X_OK):
        fail(f"missing {PROMETHEUS} (run: make deps)")
    rounds = int(os.environ.get("BENCH_LIVE_RUNS", "5"))
    with tempfile.TemporaryDirectory(prefix="canopy-bench-live-") as tmp:
        build = workloads.build(os.path.join(tmp, "project"))
        started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        load_at_start = " ".join(load_average())
        cpu = {key: [] for key, _, _ in CONFIGS}
        pages = []
        for round_ in range(rounds):
            for key, _, run in CONFIGS:
                build.prepare()
                progress(f"round {round_ + 1}/{rounds}: {key}")
                cpu_s, page = run(canopy, build, os.path.join(tmp, f"{key}{round_}"))
                cpu[key].append(cpu_s)
                if page is not None:
                    pages.append(page)
        alone = statistics.median(cpu["alone"])
        rows = [f"| {title} | {statistics.median(cpu[key]):.3f} | {statistics.median(cpu[key]) / alone:.2f}x | "
                f"{', '.join(f'{v:.3f}' for v in cpu[key])} |" for key, title, _ in CONFIGS]
        updates = [p["updates"] for p in pages]
        per_update_ms = (statistics.median(cpu["watched"]) - statistics.median(cpu["scraped"])) * 1000 / statistics.median(updates)
        worst = [p["worstMs"] for p in pages if p.get("worstMs") is not None]
        draws = sum(p.get("draws", 0) for p in pages)
        lines = [
            "# What watching live costs the recorder (make bench-live)",
            "",
            f"Generated by bench/live.py, started {started} (load average {load_at_start}),",
            f"{rounds} rounds, the configurations interleaved. Workload: {build.title}.",
            "The recorder's CPU is its own (every thread), from the recording's meta. The",
            "rows after the first add `--serve` and `--metrics` with nothing connected, then",
            "Prometheus scraping every second, then also a Chromium page following the",
            "recording. The issue's bar: at most 1.1x alone, with both.",
            "",
            *describe_machine(),
            "",
            "| configuration | recorder CPU, median s | / alone | each run, s |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
            f"The page merged {', '.join(str(u) for u in updates)} updates: the page costs the recorder about",
            f"{per_update_ms:.1f} ms of CPU per update (watched minus scraped, over the median count).",
            "",
            "How late the page drew each figure (the issue's bar: within 1 s of the kernel's): for each",
            "chart the page drew while following, the time from the oldest tick it drew for the first",
            "time (read by the recorder) to the chart drawn with it, on one clock. The worst of",
            f"each run: {', '.join(f'{w} ms' for w in worst)}, over {draws} charts in all.",
        ]
        write_results(RESULTS, lines)


if __name__ == "__main__":
    main()
