#!/usr/bin/env python3
"""Checks the man page canopy(1) against the binary, and that man renders it cleanly.

  check_man.py options CANOPY PAGE   every command has its section, every option its
                                     entry there, and the page names no other option
  check_man.py renders PAGE          man renders it without a warning, whatis reads it
"""

import os
import re
import sys

from cli_help import HELP, OPTION, Failures, leaves, read_commands, run

# The term of an entry in a rendered section, at the paragraph's indentation, above its
# description, indented further:
#        -o, --output FILE
#            The recording. Default: ...
TERM = re.compile(r"^ {7}(\S.*)\n(?= {11}\S)", re.MULTILINE)
# The page's sections that are not a command's. A section named otherwise must be a
# command's ("LOG ADD"), so a command the CLI dropped cannot keep its section.
GENERAL_SECTIONS = {
    "NAME", "SYNOPSIS", "DESCRIPTION", "SIZES AND DURATIONS", "EXIT STATUS",
    "ENVIRONMENT", "FILES", "NOTES", "SEE ALSO",
}
# canopy's own options (--help, --version) have their entries in this section.
TOP_SECTION = "OPTIONS"
# An environment variable a --help names: CANOPY_INTERVAL.
VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")


def render(page, width):
    env = dict(os.environ, MANWIDTH=str(width), LC_ALL="C.UTF-8", MANPAGER="cat", PAGER="cat")
    env.pop("MAN_KEEP_FORMATTING", None)
    return run(["man", "-l", page], env=env)


def sections(text):
    """{title: body} of a rendered page: a title is a line that starts at column 0."""
    result = {}
    title = None
    for line in text.splitlines()[1:-1]:  # the header and footer lines name no section
        if line and not line[0].isspace():
            title = line.strip()
            result[title] = []
        elif title:
            result[title].append(line)
    return {t: "\n".join(body) for t, body in result.items()}


def section_title(command):
    return command.name.upper() if command.path else TOP_SECTION


def synopsis_commands(synopsis):
    """The commands SYNOPSIS has a line for: the lower-case words after `canopy`."""
    names = set()
    for line in synopsis.splitlines():
        words = line.split()[1:]
        name = []
        while words and re.fullmatch(r"[a-z]+", words[0]):
            name.append(words.pop(0))
        names.add(" ".join(name))
    return names - {""}


def check_command_sections(fail, commands, by_title):
    """Each command's section has an entry for each of its options, and names no other."""
    documented = [c for c in commands if not c.subcommands or not c.path]
    for command in documented:
        title = section_title(command)
        body = by_title.get(title)
        if body is None:
            fail(f"man page: no section {title} for 'canopy {command.name}'")
            continue
        described = set(OPTION.findall("\n".join(t for t in TERM.findall(body) if t.startswith("-"))))
        expected = command.options - (HELP if command.path else set())
        for option in sorted(expected - described):
            fail(f"man page: section {title} has no entry for {option} (canopy {command.name} --help lists it)")
        for option in sorted(set(OPTION.findall(body)) - command.options):
            fail(f"man page: section {title} names {option}, which 'canopy {command.name} --help' does not list")

    titles = {section_title(c) for c in documented}
    for title in sorted(by_title.keys() - titles - GENERAL_SECTIONS):
        fail(f"man page: section {title} is neither a command of canopy's nor one of {sorted(GENERAL_SECTIONS)}")
    for title in sorted(GENERAL_SECTIONS - by_title.keys()):
        fail(f"man page: no section {title}")
    every_option = set().union(*(c.options for c in commands))
    for title in sorted(by_title.keys() - titles):
        for option in sorted(set(OPTION.findall(by_title[title])) - every_option):
            fail(f"man page: section {title} names {option}, which no command's --help lists")


def check_synopsis(fail, commands, synopsis):
    in_synopsis = synopsis_commands(synopsis)
    for command in leaves(commands):
        if command.name not in in_synopsis:
            fail(f"man page: SYNOPSIS has no line for 'canopy {command.name}'")
    for name in sorted(in_synopsis - {c.name for c in leaves(commands)}):
        fail(f"man page: SYNOPSIS names 'canopy {name}', which 'canopy --help' does not list")


def check_environment(fail, commands, environment):
    entries = set(VARIABLE.findall("\n".join(TERM.findall(environment))))
    for command in commands:
        for variable in sorted(set(VARIABLE.findall(command.help_text)) - entries):
            fail(f"man page: ENVIRONMENT has no entry for {variable} ('canopy {command.name} --help' names it)")


def check_options(canopy, page):
    fail = Failures("man page options")
    commands = read_commands(canopy)
    # Wide enough that no line breaks, so no option is split at its hyphen.
    rendered = render(page, 1000)
    if rendered.returncode != 0:
        sys.exit(f"man -l {page} failed: {rendered.stderr}")
    by_title = sections(rendered.stdout)
    check_command_sections(fail, commands, by_title)
    check_synopsis(fail, commands, by_title.get("SYNOPSIS", ""))
    check_environment(fail, commands, by_title.get("ENVIRONMENT", ""))
    fail.exit()


def check_renders(page):
    fail = Failures("man page rendering")
    # As lintian checks a page, with every groff warning (w): troff's output only (-Z).
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
    result = run(["man", "--warnings=w", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page], env=env)
    if result.returncode != 0 or result.stderr:
        fail(f"man --warnings=w -l {page}: status {result.returncode}, stderr:\n{result.stderr}")
    # What whatis(1) and apropos(1) show: an empty page or a broken NAME gives none, and
    # renders without a warning.
    whatis = run(["lexgrog", page])
    if whatis.returncode != 0 or '"canopy - ' not in whatis.stdout:
        fail(f"lexgrog {page} finds no 'canopy - ...' NAME line: {whatis.stdout}{whatis.stderr}")
    fail.exit()


def main():
    if sys.argv[1:2] == ["options"] and len(sys.argv) == 4:
        check_options(*sys.argv[2:])
    elif sys.argv[1:2] == ["renders"] and len(sys.argv) == 3:
        check_renders(sys.argv[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
