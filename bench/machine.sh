# Sourced by the bench scripts: the machine a result was measured on, as markdown list
# items, so every results file says where its figures come from.

cgroup_version() {
  case "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" in
    cgroup2fs) echo "v2" ;;
    tmpfs)
      if [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
        echo "hybrid (v1 controllers, v2 at /sys/fs/cgroup/unified)"
      else
        echo "v1"
      fi
      ;;
    *) echo "none found" ;;
  esac
}

describe_machine() {
  echo "- CPU: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(grep -c '^processor' /proc/cpuinfo) cores"
  echo "- Kernel: $(uname -r)"
  echo "- cgroup: $(cgroup_version)"
  echo "- Memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
}
