# Sourced by the bench scripts that run each configuration several times: their
# measurements, one a line ("KEY VALUE") in $tmp/values, and each key's median.

# record KEY VALUE: one measurement of one run.
record() { echo "$1 $2" >>"$tmp/values"; }

# stats KEY: "median min max" of the runs kept under KEY.
stats() {
  awk -v key="$1" '$1 == key { print $2 }' "$tmp/values" | sort -g | awk '
    { v[NR] = $1 }
    END {
      if (NR == 0) exit 1
      median = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      print median, v[1], v[NR]
    }'
}
