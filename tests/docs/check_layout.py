#!/usr/bin/env python3
"""Checks docs/layout.md's folder table against the build: each library folder of src/
links, in its *links* column, exactly the folders its canopy_layer(... LAYERS ...) in
CMakeLists.txt names; every layer has a row; src/heap/ links nothing of canopy's; the
canopy binary's row names what canopy_all holds.

  check_layout.py CMAKELISTS LAYOUT_MD
"""

import re
import sys


def cmake_layers(text):
    """{folder: set of the folders it links}, from each canopy_layer(NAME ... LAYERS ...)."""
    layers = {}
    libs = {}
    for match in re.finditer(r"canopy_layer\((\w+)(.*?)\)\n", text, re.S):
        name, body = match.groups()
        words = body.split()
        linked = set()
        if "LAYERS" in words:
            for word in words[words.index("LAYERS") + 1:]:
                if word in ("LIBS", "SOURCES"):
                    break
                linked.add(word)
        layers[name] = linked
        libs[name] = words[words.index("LIBS") + 1:] if "LIBS" in words else []
    return layers, libs


def link_lines(text, target):
    """The words of every target_link_libraries(TARGET ...) call."""
    words = []
    for match in re.finditer(r"target_link_libraries\(" + re.escape(target) + r"\s(.*?)\)", text, re.S):
        words += match.group(1).split()
    return words


def layout_rows(text):
    """{folder: links cell} for the table's `src/NAME/` rows."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"^\| `src/(\w+)/` \| .* \| ([^|]*) \|$", line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def main():
    cmakelists, layout = sys.argv[1], sys.argv[2]
    cmake = open(cmakelists, encoding="utf-8").read()
    rows = layout_rows(open(layout, encoding="utf-8").read())
    layers, libs = cmake_layers(cmake)
    failures = []
    if not layers:
        failures.append(f"{cmakelists}: no canopy_layer(...) found")
    for name, linked in sorted(layers.items()):
        if name not in rows:
            failures.append(f"{layout}: no row for src/{name}/, a layer of {cmakelists}")
            continue
        documented = set(re.findall(r"`(\w+)/`", rows[name]))
        if documented != linked:
            failures.append(f"{layout}: src/{name}/ links {sorted(documented)} by its row, "
                            f"{sorted(linked)} by {cmakelists}")
        if "canopy_heap_wire" in libs[name] and "heap/wire_format.h" not in rows[name]:
            failures.append(f"{layout}: src/{name}/ uses the heap wire format (canopy_heap_wire), "
                            "its row does not say so")
    # The preload library: no layer of canopy's.
    heap_links = [w for w in link_lines(cmake, "canopy_heap") if w.startswith("canopy_")]
    if heap_links:
        failures.append(f"{cmakelists}: canopy_heap links {heap_links}")
    if "heap" not in rows or re.findall(r"`(\w+)/`", rows["heap"]):
        failures.append(f"{layout}: src/heap/'s row must be there and name no folder it links")
    # The binary: canopy_all, which must hold every layer.
    everything = {w.removeprefix("canopy_") for w in link_lines(cmake, "canopy_all") if w.startswith("canopy_")}
    if everything != set(layers):
        failures.append(f"{cmakelists}: canopy_all holds {sorted(everything)}, the layers are {sorted(layers)}")
    if "canopy_all" not in link_lines(cmake, "canopy"):
        failures.append(f"{cmakelists}: the canopy binary does not link canopy_all")
    if "cli" not in rows or "canopy_all" not in rows["cli"]:
        failures.append(f"{layout}: src/cli/'s row must say it links canopy_all")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
