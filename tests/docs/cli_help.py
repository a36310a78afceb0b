"""canopy's commands and options as the binary's --help lists them: the truth that
check_man.py and check_completion.py hold the man page and the bash completion to.

Read recursively from `canopy --help`, so a command or option the CLI gains fails those
checks until the page and the completion have it, and one it drops until they drop it.
"""

import re
import subprocess
import sys

# An option as the help and the page write it: --long-name, or -x standing alone
# (`make -j8` names no option of canopy's).
OPTION = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*|-[A-Za-z](?![\w-]))")
HELP = {"-h", "--help"}


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, **kwargs)


class Command:
    """One command as its --help describes it: `canopy log add --help`."""

    def __init__(self, path, help_text):
        self.path = path  # ("log", "add"); () for canopy itself
        self.help_text = help_text
        self.options = set()  # every spelling: {"-o", "--output", ...}
        self.valued = set()  # those that take a value
        self.descriptions = {}  # option -> its help text
        self.positionals = []  # (name, description), in order
        self.subcommands = []
        self._parse(help_text)

    @property
    def name(self):
        return " ".join(self.path)

    def _parse(self, text):
        # CLI11 writes blocks under "Positionals:", "Options:", "Subcommands:" and each
        # option group's title; two spaces part a row's first column from its text:
        #   -o,--output TEXT            Recording file (default ...)
        #   --json Excludes: --growth   Print the summary as JSON
        #   --pid INT:INT in [1 - 4194304]
        #                               Attach to a running process and its descendants
        block = None
        last = None
        for line in text.splitlines():
            if line and not line[0].isspace():
                block = line.rstrip(":")
                continue
            stripped = line.strip()
            if not stripped:
                continue
            column, _, description = stripped.partition("  ")
            if block == "Subcommands":
                self.subcommands.append(column.split()[0])
            elif block == "Positionals":
                self.positionals.append((column.split()[0], description.strip()))
            elif stripped.startswith("-"):
                spelling, *after = column.split()
                names = OPTION.findall(spelling)
                if not names:
                    sys.exit(f"canopy {self.name} --help: cannot read the option line {line!r}")
                self.options.update(names)
                # A type (TEXT, INT:INT in [...], UINT:...) follows an option that takes
                # a value; nothing, or "Excludes: ...", follows a flag.
                if after and after[0] != "Excludes:":
                    self.valued.update(names)
                last = names
                self.descriptions.update({n: description.strip() for n in names})
            elif last:
                for n in last:  # its description, on the line below a long option
                    self.descriptions[n] = (self.descriptions[n] + " " + stripped).strip()

    def listed_values(self, option, pattern):
        """The values the help lists for `option`: the comma-separated group of `pattern`."""
        match = re.search(pattern, self.descriptions.get(option, ""))
        if not match:
            sys.exit(f"canopy {self.name} --help: no list of values for {option} in "
                     f"{self.descriptions.get(option)!r}")
        return set(re.split(r",\s*", match.group(1)))


def read_commands(canopy, path=()):
    """Every command, canopy's own first, from `canopy [PATH] --help`."""
    result = run([canopy, *path, "--help"])
    if result.returncode != 0 or not result.stdout:
        sys.exit(f"'{canopy} {' '.join(path)} --help' failed: {result.returncode}\n{result.stderr}")
    command = Command(path, result.stdout)
    commands = [command]
    for sub in command.subcommands:
        commands += read_commands(canopy, path + (sub,))
    return commands


def command_at(commands, *path):
    return next(c for c in commands if c.path == path)


def leaves(commands):
    """The commands that run: `log add`, not `log`, which only groups."""
    return [c for c in commands if c.path and not c.subcommands]


class Failures:
    """Every mismatch is reported, not only the first: one run lists what to fix."""

    def __init__(self, what):
        self.what = what
        self.messages = []

    def __call__(self, message):
        self.messages.append(message)

    def exit(self):
        for message in self.messages:
            print(message)
        print(f"{self.what}: {len(self.messages)} failures")
        sys.exit(1 if self.messages else 0)
