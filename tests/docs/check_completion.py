#!/usr/bin/env python3
"""Checks the bash completion against the binary: what TAB offers, after each command
and option, is what --help lists.

  check_completion.py CANOPY SCRIPT
"""

import os
import re
import shlex
import sys
import tempfile

from cli_help import HELP, Failures, command_at, leaves, read_commands, run

# Runs in `bash --norc`: bash-completion's helpers, then the script, then one completion
# as bash asks for it on a TAB at the end of $LINE.
COMPLETE = r"""
source /usr/share/bash-completion/bash_completion
source "$SCRIPT"
compopt() { :; }  # refused outside a TAB; it only changes how bash shows the reply
read -ra COMP_WORDS <<< "$LINE"
[[ $LINE == *' ' ]] && COMP_WORDS+=('')
COMP_LINE=$LINE COMP_POINT=${#LINE} COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
spec=$(complete -p canopy) || exit 3
function=${spec#*-F }
function=${function%% *}
"$function" canopy "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
"""

# The directory the file completions run in, and what TAB offers there.
FILES = ("a.canopy", "b.txt", "o.json")
RECORDINGS = {"a.canopy", "sub"}  # and directories, to descend into
JSON_FILES = {"o.json", "sub"}
ANY_FILES = {*FILES, "sub"}


class Completion:
    def __init__(self, script, fail):
        self.script = os.path.abspath(script)
        self.fail = fail

    def offers(self, line, cwd=None):
        """What TAB after `line` offers, as a set."""
        env = dict(os.environ, SCRIPT=self.script, LINE=line)
        result = run(["bash", "--norc", "--noprofile", "-c", COMPLETE], env=env, cwd=cwd)
        if result.returncode != 0:
            self.fail(f"completing {line!r}: bash exited {result.returncode}: {result.stderr}")
        return {word for word in result.stdout.splitlines() if word}

    def expect(self, line, expected, cwd=None, exact=True):
        """TAB after `line` offers `expected`: exactly, or at least."""
        got = self.offers(line, cwd)
        missing = sorted(expected - got)
        extra = sorted(got - expected) if exact else []
        if missing or extra:
            said = ([f"missing {missing}"] if missing else []) + ([f"offers {extra} as well"] if extra else [])
            self.fail(f"completing {line!r}: " + "; ".join(said))
        return got


def argument_files(description):
    """What TAB offers for a positional the help describes this way."""
    if "recording" in description or ".canopy" in description:
        return RECORDINGS
    if "JSON file" in description:
        return JSON_FILES
    if "file" in description:
        return ANY_FILES
    if "command" in description:
        return None  # the command canopy record runs: its own completion's
    return set()  # words, such as a marker's text


def check_commands_and_options(completion, commands):
    completion.expect("canopy rec", {"record"})
    completion.expect("canopy ", set(commands[0].subcommands))
    for command in commands:
        prefix = " ".join(["canopy", *command.path])
        completion.expect(prefix + " -", command.options)
        if command.subcommands and command.path:
            completion.expect(prefix + " ", set(command.subcommands))


def check_option_values(completion, commands, canopy):
    export = command_at(commands, "export")
    completion.expect("canopy export x.canopy --format ", export.listed_values("--format", r"format: ([\w, -]+)"))
    completion.expect("canopy export x.canopy --kind ", export.listed_values("--kind", r"kind \(([^)]*)\)"))
    log_add = command_at(commands, "log", "add")
    completion.expect("canopy log add --format ", log_add.listed_values("--format", r"format: ([\w, -]+?) \("))
    # The help names two metrics and "a sample column": canopy says whether one is known.
    metrics = completion.expect("canopy export x.canopy --format csv --metric ",
                                export.listed_values("--metric", r"cell: (\w+, \w+)"), exact=False)
    for metric in sorted(metrics):
        said = run([canopy, "export", "/nonexistent.canopy", "--format", "csv", "--metric", metric]).stderr
        if "unknown --metric" in said:
            completion.fail(f"completing --metric offers {metric}: {said.strip()}")
    # With --format collapsed, a stack's figures: every one the help lists, and no other.
    for line in ("canopy export x.canopy --format collapsed --metric ",
                 "canopy export x.canopy --format=collapsed --metric "):
        completion.expect(line, export.listed_values("--metric", r"stack: ([\w, ]+?) \("))
    at = re.search(r"image: (\w+) or (\w+)", export.descriptions.get("--at", ""))
    if not at:
        completion.fail(f"canopy export --help: no values for --at in {export.descriptions.get('--at')!r}")
    else:
        completion.expect("canopy export x.canopy --format pprof --at ", set(at.groups()))


def check_arguments(completion, commands):
    """Each argument gets its files after any option: the completion must know which
    options take a value, or it takes the value for the argument."""
    with tempfile.TemporaryDirectory() as directory:
        for name in FILES:
            open(os.path.join(directory, name), "w").close()
        os.mkdir(os.path.join(directory, "sub"))
        for command in leaves(commands):
            before = []
            for _, description in command.positionals:
                files = argument_files(description)
                for option in sorted(command.options):
                    value = ["1"] if option in command.valued else []
                    line = shlex.join(["canopy", *command.path, option, *value, *before]) + " "
                    if files is None:
                        completion.expect(line + "ech", {"echo"}, directory, exact=False)
                    else:
                        completion.expect(line, files, directory)
                before.append("a.canopy")
    # From the command's name on, the words are the command's, not canopy's options.
    record = command_at(commands, "record")
    for option in sorted(completion.offers("canopy record sleep --") & (record.options - HELP)):
        completion.fail(f"completing 'canopy record sleep --' offers canopy's {option}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    canopy, script = sys.argv[1:]
    fail = Failures("bash completion")
    completion = Completion(script, fail)
    commands = read_commands(canopy)
    check_commands_and_options(completion, commands)
    check_option_values(completion, commands, canopy)
    check_arguments(completion, commands)
    fail.exit()


if __name__ == "__main__":
    main()
