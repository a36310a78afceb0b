"""The tools a Linux user has from Debian's packages to watch processes, as bench/compare.py
runs them: how each is started, stopped, and how its output is read back into what it
saw (per sample: each process's PID and resident memory)."""

import glob
import os
import re
import shutil
import signal
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class Seen:
    """What a tool's output says: per sample, resident bytes by PID; and each PID's
    parent where the tool says it (to leave out the tool's own helpers)."""

    samples: dict = field(default_factory=lambda: defaultdict(dict))
    parents: dict = field(default_factory=dict)

    def add(self, sample_key, pid, rss_bytes, ppid=None):
        self.samples[sample_key][pid] = rss_bytes
        if ppid is not None:
            self.parents[pid] = ppid


def rows_under_header(lines):
    """The rows of a table whose column names are on a line starting with "#" (pidstat's
    and collectl's): each row's fields, and the row by column name. Lines with fewer
    fields than columns (blank lines, banners) are left out."""
    columns = None
    for line in lines:
        if line.startswith("#"):
            columns = line[1:].split()
            continue
        fields = line.split()
        if columns and len(fields) >= len(columns):
            yield fields, dict(zip(columns, fields))


@dataclass
class Peer:
    key: str           # as in the table
    package: str       # the Debian package it comes from
    interval_ms: int
    stop_signal: int   # how it is asked to stop and write what it has
    output_is_file: bool  # its output is a file it writes (else its stdout)
    # How long it is given to start and take its first sample before the workload starts.
    startup_s: float = 0.5

    def available(self):
        return shutil.which(self.command_name()) is not None

    def command_name(self):
        return self.argv("out")[0]

    def written(self, out):
        """The files its output went to: what its output size counts."""
        return [out] if os.path.exists(out) else []


class Pidstat(Peer):
    """pidstat -h -r -u -p ALL 1: CPU and memory of every process, once a second (its
    interval is whole seconds)."""

    def __init__(self):
        super().__init__("pidstat -p ALL", "sysstat", 1000, signal.SIGINT, False)

    def argv(self, out):
        return ["pidstat", "-h", "-r", "-u", "-p", "ALL", "1"]

    def read(self, out):
        seen = Seen()
        with open(out, errors="replace") as text:
            for fields, row in rows_under_header(text):
                if fields[0][0].isdigit():
                    seen.add(row["Time"], int(row["PID"]), int(row["RSS"]) * 1024)
        return seen


class Atop(Peer):
    """atop -w FILE 1: its raw file, once a second (whole seconds), read back with
    atop -r FILE -P PRM. As root it turns on process accounting, so it also lists the
    processes that ended between two samples."""

    def __init__(self):
        super().__init__("atop -w (raw)", "atop", 1000, signal.SIGTERM, True)

    def argv(self, out):
        return ["atop", "-w", out, "1"]

    # PRM host epoch date time interval pid (name) state pagesize vsize rsize ... tgid is_process ...
    _PRM = re.compile(r"^PRM \S+ (\d+) \S+ \S+ \d+ (\d+) \((.*)\) (\S) (.*)$")

    def read(self, out):
        text = subprocess.run(["atop", "-r", out, "-P", "PRM"], capture_output=True, text=True,
                              errors="replace").stdout
        seen = Seen()
        for line in text.splitlines():
            match = self._PRM.match(line)
            if not match:
                continue
            rest = match.group(5).split()
            if len(rest) < 14 or rest[13] != "y":  # a thread's line, not its process's
                continue
            seen.add(int(match.group(1)), int(match.group(2)), int(rest[2]) * 1024)
        return seen


class Top(Peer):
    """top -b -d S: every process, in batch mode; its delay may be a fraction of a second."""

    def __init__(self, interval_ms):
        super().__init__(f"top -b -d {interval_ms / 1000:g}", "procps", interval_ms, signal.SIGTERM, False)

    def argv(self, out):
        # -e k: resident memory in KiB (not 1.2g); -w: lines long enough for every column.
        return ["top", "-b", "-d", f"{self.interval_ms / 1000:g}", "-e", "k", "-w", "512"]

    def read(self, out):
        seen = Seen()
        sample = 0
        columns = None
        with open(out, errors="replace") as text:
            for line in text:
                if line.startswith("top - "):
                    sample += 1
                    columns = None
                    continue
                fields = line.split()
                if fields[:1] == ["PID"]:
                    columns = fields
                    continue
                if not columns or len(fields) < len(columns) or not fields[0].isdigit():
                    continue
                row = dict(zip(columns, fields))
                seen.add(sample, int(row["PID"]), int(row["RES"]) * 1024)
        return seen


class PsLoop(Peer):
    """The script users write: `while :; do ps -e -o pid,ppid,rss,comm; sleep S; done`."""

    def __init__(self, interval_ms):
        super().__init__(f"ps loop, sleep {interval_ms / 1000:g}", "procps", interval_ms, signal.SIGTERM, False)

    def argv(self, out):
        return ["bash", "-c", f"while :; do echo @; ps -e -o pid=,ppid=,rss=,comm=; sleep {self.interval_ms / 1000:g}; done"]

    def read(self, out):
        seen = Seen()
        sample = 0
        with open(out, errors="replace") as text:
            for line in text:
                if line.startswith("@"):
                    sample += 1
                    continue
                fields = line.split()
                if len(fields) >= 3 and fields[0].isdigit():
                    seen.add(sample, int(fields[0]), int(fields[2]) * 1024, ppid=int(fields[1]))
        return seen


class Collectl(Peer):
    """collectl -sZ -i S:S -f OUT: every process's figures, written to its compressed raw
    file (OUT-host-date.raw.gz) as one would leave it recording; read back with
    collectl -p FILE -sZ -P -om. Its interval may be a fraction of a second."""

    def __init__(self, interval_ms):
        # Perl starting up: its first sample came 0.96 s after its start on the bench's VM.
        super().__init__(f"collectl -sZ -i {interval_ms / 1000:g}", "collectl", interval_ms, signal.SIGTERM, True,
                         startup_s=1.5)

    def argv(self, out):
        # The second interval is the one for processes; both are this peer's interval.
        seconds = f"{self.interval_ms / 1000:g}"
        return ["collectl", "-sZ", "-i", f"{seconds}:{seconds}", "-f", out]

    def written(self, out):
        return sorted(glob.glob(glob.escape(out) + "-*.raw.gz"))

    def read(self, out):
        seen = Seen()
        for raw in self.written(out):
            # -P: one line a process and sample; -om: times to the millisecond, so that
            # samples less than a second apart stay apart.
            text = subprocess.run(["collectl", "-p", raw, "-sZ", "-P", "-om"], capture_output=True, text=True,
                                  errors="replace").stdout
            for fields, row in rows_under_header(text.splitlines()):
                if fields[2].isdigit():
                    seen.add(row["Date"] + " " + row["Time"], int(row["PID"]), int(row["VmRSS"]) * 1024,
                             ppid=int(row["PPID"]))
        return seen


def all_peers():
    """Each at 1 s, where every one of them can go, and the ones that can go faster also
    at 100 ms, and collectl, the one that keeps up at all below that, at 10 ms too.
    pidstat and atop take whole seconds only."""
    return [Pidstat(), Atop(), Top(1000), PsLoop(1000), Collectl(1000), Top(100), PsLoop(100), Collectl(100),
            Collectl(10)]
