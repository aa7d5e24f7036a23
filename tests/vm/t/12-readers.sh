#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reading the control files changes nothing and opens no disk.
# Defect covered: every read of stats/bindings opened each bound disk
# (bdev_file_open_by_dev) with the reader's credentials and device cgroup,
# and dropped the binding when that open failed, so a reader confined by a
# device cgroup silently unbound disks (and reset their stats on rebind).
# Here a reader whose cgroup v2 device program denies every block device
# reads both files 100 times while fio runs on the bound disk; then a
# non-root reader does the same.  A binding may go only when its disk does
# (05-device-gone).
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

N=100
W=$(mktemp -d)
CG=/sys/fs/cgroup/rd12
load_module
mkdir -p "$PINS"
check "iocost_2x registers" "$B/bin/iocost_2x"
D=$(iocost_enable vdb) || { not_ok "enable iocost on vdb"; finish; }
expect_write "bind iocost_2x to vdb ($D)" "$SYS/bindings" "$D model=iocost_2x" OK

# ---- the confined reader's cgroup: no block device may be opened ----
mkdir -p "$CG"
check "load the device program (tests/bpf/devdeny)" \
	bpftool prog load "$B/tests/devdeny.bpf.o" "$PINS/devdeny" type cgroup/dev
check "attach it to $CG" bpftool cgroup attach "$CG" device pinned "$PINS/devdeny"
# confined CMD...: run CMD in $CG
confined() { sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$@"; }
out=$(confined dd if=/dev/vdb of=/dev/null bs=4k count=1 iflag=direct 2>&1)
expect_match "the confined reader cannot open /dev/vdb (EPERM)" "$out" "Operation not permitted"
out=$(confined cat "$SYS/models" 2>&1)
expect_match "the confined reader can read the control files" "$out" "^iocost_2x bindings=1$"

# ---- fio on the bound disk while the confined reader reads ----
mkdir -p /sys/fs/cgroup/io12
sh -c 'echo $$ >/sys/fs/cgroup/io12/cgroup.procs; exec fio "$@"' sh \
	--name=r --filename=/dev/vdb --direct=1 --ioengine=psync --rw=read --bs=4k \
	--size=24m --output-format=json --output="$W/fio.json" &
fpid=$!
for _ in $(seq 1 100); do	# until fio's first IOs are charged (root reads)
	[ "$(binding_stat "$D" charges)" -gt 0 ] 2>/dev/null && break
	sleep 0.1
done
# one file per control file, each read preceded by a "== i" line
t0=$SECONDS
# shellcheck disable=SC2016
confined bash -c 'for i in $(seq 1 "$1"); do
	echo "== $i" >>"$3/b"; cat "$2/bindings" >>"$3/b"
	echo "== $i" >>"$3/s"; cat "$2/stats" >>"$3/s"
done' sh "$N" "$SYS" "$W"
echo "# $N confined reads of each file took $((SECONDS - t0)) s"
wait "$fpid"
expect_eq "fio completed" "$?" 0

expect_eq "every one of $N confined reads of bindings shows the binding (reads that did not)" \
	"$(awk -v n="$N" -v want="$D model=iocost_2x mode=enforce" '/^== / { i = $2; next } { got[i] = got[i] $0 "\n" }
		END { for (i = 1; i <= n; i++) if (got[i] != want "\n") bad++; print bad + 0 }' "$W/b")" 0
awk -v d="$D" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^charges=/) { sub(/charges=/, "", $i); print $i } }' \
	"$W/s" >"$W/charges"
expect_eq "every one of $N confined reads of stats has the disk's line" "$(wc -l <"$W/charges")" "$N"
expect_eq "charges never went down across the reads (never reset)" \
	"$(awk 'NR > 1 && $1 < prev { n++ } { prev = $1 } END { print n + 0 }' "$W/charges")" 0
echo "# charges over the confined reads: $(head -1 "$W/charges") .. $(tail -1 "$W/charges")," \
	"$(awk 'NR > 1 && $1 > prev { n++ } { prev = $1 } END { print n + 0 }' "$W/charges") increases"
expect_eq "the binding is still there after the confined reads" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=enforce"
expect_match "models still counts it" "$(cat "$SYS/models")" "^iocost_2x bindings=1$"
ios=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' "$W/fio.json")
charges=$(binding_stat "$D" charges)
check "every IO fio completed was charged by the model (charges $charges >= fio's $ios IOs)" \
	test "${charges:-0}" -ge "$ios" -a "$ios" -gt 0
expect_nomatch "no binding was dropped (kernel log)" "$(test_dmesg | grep -E "went away|dropping its binding")" "went away|dropping its binding"

# ---- a non-root reader ----
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
before=$(cat "$SYS/bindings")
c0=$(binding_stat "$D" charges)
expect_eq "a non-root user reads bindings" "$("${nobody[@]}" cat "$SYS/bindings" 2>&1)" "$D model=iocost_2x mode=enforce"
expect_match "a non-root user reads stats" "$("${nobody[@]}" cat "$SYS/stats" 2>&1)" \
	"^$D model=iocost_2x mode=enforce registered=1 charges=$c0 "
expect_match "and models" "$("${nobody[@]}" cat "$SYS/models" 2>&1)" "^iocost_2x bindings=1$"
expect_eq "and the hook file, the same as root sees" "$("${nobody[@]}" cat "$SYS/hook" 2>&1)" "$(cat "$SYS/hook")"
expect_eq "the hook file is read-only (0444)" "$(stat -c %a "$SYS/hook")" 444
expect_eq "the bindings are unchanged" "$(cat "$SYS/bindings")" "$before"
expect_eq "the stats were not reset" "$(binding_stat "$D" charges)" "$c0"

# ---- teardown ----
bpftool cgroup detach "$CG" device pinned "$PINS/devdeny" 2>/dev/null
rmdir "$CG" /sys/fs/cgroup/io12 2>/dev/null
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK
rm -rf "$W"
expect_unload
finish
