#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build, test and benchmark canopy:
# Debian packages, then the npm packages of the front end (web/package-lock.json) and
# of the export formats' test readers (tests/consumers/package-lock.json).
# Idempotent: installs only missing packages, and touches apt and npm only when
# something is missing.
#
# usage: deps.sh [build]   with `build`, only what building canopy needs (make demo):
#                          no browser, no peers to benchmark against
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_packages=(
  build-essential cmake pkg-config
  libsqlite3-dev
  libcli11-dev nlohmann-json3-dev
  libcpp-httplib-dev zlib1g-dev libssl-dev nettle-dev
  libcctz-dev tzdata libsimdjson-dev libnl-genl-3-dev
  clang bpftool libbpf-dev
  libdw-dev libdebuginfod-dev libiberty-dev
  scdoc
  libgtest-dev python3
  libunwind-dev
  libprotozero-dev
)
test_packages=(
  sqlite3
  chromium
  man-db groff-base bash-completion
  util-linux procps
  sysstat atop collectl
  protobuf-compiler golang-github-google-pprof-dev  # protoc reads the pprof export with pprof's profile.proto
  golang-go  # builds pprof from those sources: a test opens the export in pprof itself
  heaptrack valgrind linux-perf  # the heap bench's peers, and its profile of a missed target
  lld  # links a CPU workload as rustc does, code a page off its file offset
  binutils  # its gold links a CPU workload as LLVM's own tools are: .eh_frame_hdr after .eh_frame
  prometheus  # promtool checks /metrics' text, and a test has Prometheus scrape record --metrics
  prometheus-process-exporter  # the metrics bench's peer
)
npm_dirs=(web tests/consumers)
packages=("${build_packages[@]}" "${test_packages[@]}")
if [ "${1:-}" = build ]; then
  packages=("${build_packages[@]}")
  npm_dirs=(web)  # its bundler builds the viewer's page
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

# Node.js may come from Debian (nodejs + npm) or from elsewhere with npm built in:
# ask for the commands, not the packages.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -ne 0 ]; then
  echo "deps: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
  # collectl is a peer the bench starts itself, but its package also starts a recording
  # daemon for the whole machine at boot: one that we installed is stopped and disabled,
  # so that it does not run behind the bench's figures. One installed before is left be.
  if [[ " ${missing[*]} " == *" collectl "* ]] && [ -d /run/systemd/system ]; then
    echo "deps: stopping and disabling the collectl daemon the package started (the bench runs its own)"
    $sudo systemctl disable --now collectl >/dev/null 2>&1 || true
  fi
  # Likewise prometheus: the test starts its own on a free port, with a config of its
  # own; the package's daemon would scrape and store behind every other figure.
  if [[ " ${missing[*]} " == *" prometheus "* ]] && [ -d /run/systemd/system ]; then
    echo "deps: stopping and disabling the prometheus daemon the package started (the test runs its own)"
    $sudo systemctl disable --now prometheus prometheus-node-exporter >/dev/null 2>&1 || true
  fi
  if [[ " ${missing[*]} " == *" prometheus-process-exporter "* ]] && [ -d /run/systemd/system ]; then
    $sudo systemctl disable --now prometheus-process-exporter >/dev/null 2>&1 || true
  fi
fi

# The npm packages exactly as locked; again only when a lockfile changed since the
# last install.
for dir in "${npm_dirs[@]}"; do
  stamp=$dir/node_modules/.canopy-installed-lock
  if ! cmp -s "$dir/package-lock.json" "$stamp" 2>/dev/null; then
    echo "deps: npm ci in $dir/"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$stamp"
  fi
done
