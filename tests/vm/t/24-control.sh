#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a model changes for competing cgroups (tests/control-loop.sh), and
# the prices of iocost_linmax.
#
# The prices, on any clock: on the null_blk disk of the control loop with
# the cloud profile (1024 IOPS, 256 MiB/s), iocost_linmax charges
# max(1 / iops, nbytes / bps): 976.5625 us for 4, 64 and 256 KiB reads,
# 3906.25 us for 1 MiB ones, where the builtin adds the two (1937.5 us for
# 256 KiB); io.stat's cost.usage per IO, +-0.5%.
#
# The control loop, on the instruction clock (tests/vm/vmrun --icount 0,
# how make check runs this test: IOCOST_VM_ICOUNT=0 tests/vm/run
# 24-control): the 1%-weight reader beside a random reader under the
# builtin and iocost_2x, the two interleaved readers beside a random
# reader under the builtin and iocost_ms (HDD profile), the write+fsync
# cgroup beside a sequential reader (SSD-like profile: flushes charged),
# and the 256 KiB reader beside 4 KiB random reads under the builtin and
# iocost_linmax, 3 s windows; tests/matrix-check asserts the targets (the
# rest, make demo's second guest: tests/demo --control).  On the host's
# clock the guest's CPU, not blk-iocost, limits the fast cgroups (one
# stream of 4 KiB reads runs at ~5000 IOPS under TCG): that pass says so
# and runs the prices only.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"
out=/tmp/control
dur=${IOCOST_CONTROL_DURATION:-3}
. "$top/tests/control-loop.sh"

load_module
mkdir -p "$out" "$PINS"
grep -qw io /sys/fs/cgroup/cgroup.subtree_control ||
	echo +io >/sys/fs/cgroup/cgroup.subtree_control
D=$(ctl_disk) || { not_ok "the null_blk disk /dev/$CTL_DEV"; finish; }
ok "the null_blk disk /dev/$CTL_DEV ($D)"

# ---- iocost_linmax's prices ---------------------------------------------------
check "iocost_linmax registers" "$B/bin/iocost_linmax"
check "its fixed-HDD build registers as iocost_lmax_hdd" "$B/bin/iocost_linmax_hdd"
expect_match "both listed" "$(cat "$SYS/models")" "^iocost_lmax_hdd "
echo "$D enable=0" >/sys/fs/cgroup/io.cost.qos
echo "$D $(ctl_model_line cloud)" >/sys/fs/cgroup/io.cost.model
echo "$D enable=1 ctrl=user rpct=0 rlat=5000 wpct=0 wlat=5000" >/sys/fs/cgroup/io.cost.qos
pin_vrate "$D" || not_ok "vrate pinned at 100.00% on $D"
f=--filename=/dev/$CTL_DEV
# model bs size us/IO: 100 sequential reads of bs at offset 0
lm_price() {
	local n us p
	if [ "$1" = builtin ]; then
		echo "$D model=linear" >"$SYS/bindings"
	else
		echo "$D model=$1" >"$SYS/bindings"
	fi
	# at 250 IOPS (a quarter to a half of what vrate 100% allows at these
	# prices) no IO waits.
	# blk-iocost moves committed cost into cost.usage at a period's end
	# only for a cgroup still active then; a cgroup whose last IO waited
	# past the end of the period it was issued in goes idle at the next
	# period's end before that flush (ioc_check_iocgs() runs before
	# iocg_flush_stat()), so that IO's cost never reaches io.stat: 1 IO
	# of 100 lost, 0.990 instead of 1.000, seen on the instruction clock
	price "lm.$1.$2" "$D" --rw=read "$f" --bs="$2" --size=$((100 * ${2%k}))k \
		--rate_iops=250 >/dev/null
	# the cgroup is new: its io.stat totals, once the last period that
	# charged it has ended (on the instruction clock price() can return
	# before, idle time passing at once)
	sleep 1
	read -r n us <<<"$(cg_io_stat "lm.$1.$2" "$D")"
	p=$(awk -v u="$us" -v n="$n" 'BEGIN { printf "%.3f", n ? u / n : 0 }')
	expect_eq "$1, $2 reads: 100 IOs completed" "$n" 100
	expect_ratio "$1, $2 reads: $3 us per IO (io.stat cost.usage / IOs)" "$p" "$3" 0.995 1.005
	rmdir "/sys/fs/cgroup/lm.$1.$2"
}
lm_price iocost_linmax 4k 976.5625
lm_price iocost_linmax 64k 976.5625
lm_price iocost_linmax 256k 976.5625
lm_price iocost_linmax 512k 1953.125
lm_price builtin 256k 1937.5
echo "$D model=linear" >"$SYS/bindings"
echo "$D enable=0" >/sys/fs/cgroup/io.cost.qos

# ---- the control loop, on the instruction clock -------------------------------
# Is the guest's clock the instruction count?  Files written on the shared
# checkout get the host's time: on -icount sleep=off, 2 s of an idle guest
# pass in a fraction of a host second.
probe=$top/build/.clock-probe.$$
touch "$probe.1"
ctl_sleep 2
touch "$probe.2"
host_s=$(awk -v a="$(stat -c %.3Y "$probe.1")" -v b="$(stat -c %.3Y "$probe.2")" 'BEGIN { printf "%.3f", b - a }')
rm -f "$probe.1" "$probe.2"
if awk -v h="$host_s" 'BEGIN { exit !(h < 1) }'; then
	ok "on the instruction clock (2 s of guest sleep took ${host_s} s of host time)"
	if "$top/tests/matrix" --control "hdd:1,2 ssd:4 cloud:5" --duration "$dur" --out "$out"; then
		ok "tests/matrix --control ran"
		"$top/tests/matrix-check" "$out/control.csv" || _fails=$((_fails + 1))
	else
		not_ok "tests/matrix --control ran"
	fi
else
	echo "# on the host's clock (2 s of guest sleep took ${host_s} s of host time): the control loop runs on -icount only (IOCOST_VM_ICOUNT=0 tests/vm/run 24-control)"
fi
finish
