# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tests/vm/lib.sh - helpers for the in-guest tests (sourced)
#
# A test calls check/expect_* for every assertion (each prints "ok - ..."
# or "not ok - ...") and ends with "finish", which exits non-zero if any
# assertion failed.

top=${top:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KREL=$(uname -r)
B=$top/build/$KREL
MOD=$B/iocost_bpf.ko
SYS=/sys/kernel/iocost_bpf
PINS=/sys/fs/bpf/iocost_bpf
WR=$top/build/host/errno-write
# iocostctl registers the tests' models: Debian's bpftool 7.5 crashes after
# every struct_ops register of a module's type (02-register, docs/USAGE.md)
CTL=$top/build/host/iocostctl
_fails=0

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; _fails=$((_fails + 1)); }

# check DESCRIPTION CMD...: CMD must succeed
check() {
	local what=$1
	shift
	local out
	if out=$("$@" 2>&1); then
		ok "$what"
	else
		not_ok "$what (exit $?: $(echo "$out" | tail -3 | tr '\n' ' '))"
	fi
}

# check_fails DESCRIPTION CMD...: CMD must fail
check_fails() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		not_ok "$what (it succeeded)"
	else
		ok "$what"
	fi
}

# expect_eq DESCRIPTION GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1: '$2'"
	else
		not_ok "$1: got '$2', want '$3'"
	fi
}

# expect_match DESCRIPTION TEXT REGEX
expect_match() {
	if grep -qE -- "$3" <<<"$2"; then
		ok "$1"
	else
		not_ok "$1: '$(echo "$2" | head -5 | tr '\n' '|')' does not match /$3/"
	fi
}

# expect_nomatch DESCRIPTION TEXT REGEX
expect_nomatch() {
	if grep -qE -- "$3" <<<"$2"; then
		not_ok "$1: '$(echo "$2" | head -5 | tr '\n' '|')' matches /$3/"
	else
		ok "$1"
	fi
}

# expect_write DESCRIPTION FILE DATA ERRNO: one write(2), its errno (or OK)
expect_write() {
	local got
	got=$("$WR" "$2" "$3")
	expect_eq "$1: write '$3' to ${2##*/}" "$got" "$4"
}

# expect_ratio DESCRIPTION A B LO HI: LO <= A/B <= HI
expect_ratio() {
	local r
	r=$(awk -v a="$2" -v b="$3" 'BEGIN { if (b == 0) print "inf"; else printf "%.3f", a / b }')
	if awk -v r="$r" -v lo="$4" -v hi="$5" 'BEGIN { exit !(r != "inf" && r >= lo && r <= hi) }'; then
		ok "$1: $2 / $3 = $r in [$4, $5]"
	else
		not_ok "$1: $2 / $3 = $r not in [$4, $5]"
	fi
}

# the kernel log since the test started (the runner writes the marker)
test_dmesg() {
	local all n
	all=$(dmesg)
	n=$(grep -n 'iocost-test: begin' <<<"$all" | tail -1 | cut -d: -f1)
	tail -n +"${n:-1}" <<<"$all"
}

load_module() {
	if [ ! -d "$SYS" ]; then
		insmod "$MOD" "$@" || { not_ok "insmod $MOD"; finish; }
		[ -n "${IOCOST_NO_WARMUP:-}" ] || clone_warmup ||
			{ not_ok "the module learns the clone's registers"; finish; }
	fi
}

# nullb_disks N FILE: N fresh null_blk disks (the module loaded anew with
# nr_devices=N), their MAJ:MIN written to FILE in null_blk's order; a
# not-ok and the end of the test when they are not all there (nothing a
# test checks on them means anything then)
nullb_disks() {
	local i n
	rmmod null_blk 2>/dev/null
	modprobe null_blk nr_devices="$1" || { not_ok "modprobe null_blk nr_devices=$1"; finish; }
	udevadm settle 2>/dev/null
	for i in $(seq 0 $(($1 - 1))); do cat "/sys/block/nullb$i/dev"; done >"$2"
	n=$(wc -l <"$2")
	[ "$n" = "$1" ] || { not_ok "$1 null_blk disks: $n"; finish; }
	ok "$1 null_blk disks"
}

# is this a PREEMPT_RT kernel?
rt_kernel() {
	uname -v | grep -q PREEMPT_RT || [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]
}

# is the pricing hook on calc_vtime_cost_builtin's IPA-SRA clone (src/clone.c)?
clone_kernel() {
	grep -q "IPA-SRA clone" "$SYS/hook"
}

# no_clone_finish: for a test of the IPA-SRA clone on a kernel whose
# pricing function is in BTF: the hook file names the function, and the
# clone's stats fields and clone_fault do not exist; the module unloads;
# the test ends
no_clone_finish() {
	expect_eq "$KREL: the hook file names the function, in BTF" "$(cat "$SYS/hook")" \
		"$(printf 'target calc_vtime_cost_builtin (in BTF)\nstate pricing')"
	expect_nomatch "no clone fields in stats" "$(cat "$SYS/stats")" fallback_
	check_fails "no clone_fault parameter" test -e /sys/module/iocost_bpf/parameters/clone_fault
	check "the module unloads" wait_unload
	finish
}

# wait_gone PID [SECONDS]: wait up to SECONDS (30) for PID, a child of the
# test, to end; its exit status, or 124 when it was still there and had to
# be killed (SIGKILL)
wait_gone() {
	for _ in $(seq 1 $((${2:-30} * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		wait "$1"
		return 124
	fi
	wait "$1"
}

# clone_warmup: on a kernel hooked through the IPA-SRA clone, the module
# learns which register holds which bio field from the first bios of bound
# disks, and the builtin prices those (stats "learning=").  Teach it here,
# right after the module is loaded, on vdb from a cgroup of its own, so
# that a test's measurements start with the model pricing.  Leaves no
# binding, model, pin, cgroup or iocost setting behind; status 1 if the
# module is not pricing afterwards.
clone_warmup() {
	local devt cg=/sys/fs/cgroup/clonewarm
	clone_kernel || return 0
	grep -q "^state pricing" "$SYS/hook" && return 0
	devt=$(cat /sys/block/vdb/dev)
	mkdir -p "$PINS" "$cg"
	echo "$devt enable=1" >/sys/fs/cgroup/io.cost.qos &&
		"$B/bin/test_min" --name clonewarm --pin "$PINS/clonewarm" >/dev/null &&
		echo "$devt model=clonewarm" >"$SYS/bindings" &&
		sh -c 'echo $$ >"$1/cgroup.procs"; exec dd if=/dev/vdb of=/dev/null bs=4k count=256 iflag=direct status=none' \
			sh "$cg"
	echo "$devt model=linear" >"$SYS/bindings"
	rm -f "$PINS/clonewarm"
	wait_unregistered clonewarm
	echo "$devt enable=0 ctrl=auto" >/sys/fs/cgroup/io.cost.qos
	rmdir "$cg"
	grep -q "^state pricing" "$SYS/hook"
}

# vm_monitor CMD: have the host send CMD to QEMU's monitor (vmrun
# --pullable) and print its answer; status 1 if none came within 30 s
vm_monitor() {
	local dir=/run/iocost-vm/monitor n
	[ -d "$dir" ] || { echo "vm_monitor: no monitor (vmrun --pullable)" >&2; return 1; }
	n=req$$-$RANDOM
	echo "$*" >"$dir/$n.tmp" && mv "$dir/$n.tmp" "$dir/$n.req" || return 1
	for _ in $(seq 1 300); do
		if [ -e "$dir/$n.resp" ]; then
			cat "$dir/$n.resp"
			rm -f "$dir/$n.resp"
			return 0
		fi
		sleep 0.1
	done
	echo "vm_monitor: no answer to '$*' within 30 s" >&2
	return 1
}

# pullable_disk N: the name (vdX) of vmrun's pullable disk N
pullable_disk() {
	local f
	for f in /sys/block/vd*/serial; do
		if [ "$(cat "$f")" = "iocost-pull$1" ]; then
			f=${f%/serial}
			echo "${f##*/}"
			return 0
		fi
	done
	return 1
}

# wait_unload: rmmod, retrying while deferred frees drop the last references
wait_unload() {
	local i
	for i in $(seq 1 50); do
		rmmod iocost_bpf 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# wait_unregistered NAME: a model's unregistration runs when the last
# reference to its link goes, slightly after the pin is removed: poll
# models for up to 5 s until NAME is gone
wait_unregistered() {
	for _ in $(seq 1 50); do
		grep -q "^$1 " "$SYS/models" || return 0
		sleep 0.1
	done
	return 1
}

# expect_unload: at a test's end, once it has unbound its disks: its pins
# removed, every model unregisters and the module unloads.  A reference
# the test leaked fails this test, not the next one to load the module.
expect_unload() {
	local m
	if [ ! -d "$SYS" ]; then
		ok "iocost_bpf is not loaded at the end"
		return
	fi
	rm -rf "${PINS:?}"/* 2>/dev/null
	for m in $(awk '{ print $1 }' "$SYS/models"); do
		wait_unregistered "$m" || not_ok "model $m unregisters once unpinned"
	done
	check "the module unloads: no reference left" wait_unload
}

# remove everything a test may have left behind (used by the runner too);
# status 1 when the module is still loaded afterwards (a leaked reference)
iocost_cleanup() {
	local dev
	if [ -r "$SYS/bindings" ]; then
		while read -r dev _; do
			echo "$dev model=linear" >"$SYS/bindings" 2>/dev/null
		done <"$SYS/bindings"
	fi
	# iocost back to off with the autop parameters on every device
	awk '$2 != "enable=0" || $3 != "ctrl=auto" { print $1 }' /sys/fs/cgroup/io.cost.qos 2>/dev/null |
		while read -r dev; do
			echo "$dev enable=0 ctrl=auto" >/sys/fs/cgroup/io.cost.qos
		done
	rm -rf "${PINS:?}"/* 2>/dev/null
	pkill -f "$B/bin/" 2>/dev/null
	# bpffs back where the next test's loaders pin (23-ctl-runtime
	# unmounts it)
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	# no null_blk left for the next test's modprobe to find (24-control
	# keeps its configfs disk): the disks removed, the module unloaded
	if [ -d /sys/module/null_blk ]; then
		for dev in /sys/kernel/config/nullb/*/; do
			[ -d "$dev" ] || continue
			echo 0 >"$dev/power" 2>/dev/null
			rmdir "$dev"
		done
		rmmod null_blk 2>/dev/null
	fi
	if [ -d "$SYS" ]; then
		wait_unload || { echo "# cleanup: iocost_bpf could not be unloaded"; return 1; }
	fi
	return 0
}

finish() {
	if [ "$_fails" -gt 0 ]; then
		echo "# $_fails assertion(s) failed"
		exit 1
	fi
	exit 0
}

# ---- pricing measurements ----------------------------------------------------

# what the models charge a flush: one write page of the HDD profile,
# ceil(2^37 / ceil(wbps / 4096)) vtime, in us (the builtin charges 0)
HDD_WPAGE_US=$(awk 'BEGIN { p = int((178075866 + 4095) / 4096); printf "%.4f", (2^37 / p) / (2^37 / 1e6) }')

# io.cost.model lines: the HDD autop profile's (what autop picks for the
# rotational virtio disks), an SSD-like user model, and one with 10x its
# rates (tests/vm/t/16-devctx.sh, tests/matrix --profile)
HDD_MODEL="rbps=174019176 rseqiops=41708 rrandiops=370 wbps=178075866 wseqiops=42705 wrandiops=378"
SSD_MODEL="rbps=2000000000 rseqiops=200000 rrandiops=100000 wbps=1500000000 wseqiops=150000 wrandiops=80000"
SSD10_MODEL="rbps=20000000000 rseqiops=2000000 rrandiops=1000000 wbps=15000000000 wseqiops=1500000 wrandiops=800000"

# iocost_enable DEV: enable iocost on /dev/DEV (autop picks the HDD profile
# for the rotational virtio disks); prints MAJ:MIN
iocost_enable() {
	local devt
	devt=$(cat "/sys/block/$1/dev")
	echo "$devt enable=1" >/sys/fs/cgroup/io.cost.qos || return 1
	echo "$devt"
}

# vrate_of DEVT: the disk's vrate in percent, as io.stat shows it ("100.00")
vrate_of() {
	sed -n "s/^$1 .* cost\.vrate=\([0-9.]*\).*/\1/p" /sys/fs/cgroup/io.stat
}

# pin_vrate DEVT: iocost enabled on DEVT with its vrate at 100.00% and held
# there (io.cost.qos min=max=100.00), so that io.stat's cost.usage is the
# charged device time.  New bounds alone do not move a vrate an earlier
# test raised: blk-iocost walks it towards them 4% a period, and only in
# periods that are busy (ioc_adjust_base_vrate()).  It restarts vrate at
# 100% when the disk's autop class changes (ioc_refresh_params_disk(), on
# every io.cost.qos write): flip queue/rotational and back.
pin_vrate() {
	local rot=/sys/dev/block/$1/queue/rotational was
	echo "$1 enable=1 min=100.00 max=100.00" >/sys/fs/cgroup/io.cost.qos || return 1
	if [ "$(vrate_of "$1")" != 100.00 ]; then
		was=$(cat "$rot") || return 1
		echo $((1 - was)) >"$rot" || return 1
		echo "$1 min=100.00 max=100.00" >/sys/fs/cgroup/io.cost.qos
		echo "$was" >"$rot" || return 1
		echo "$1 min=100.00 max=100.00" >/sys/fs/cgroup/io.cost.qos || return 1
	fi
	[ "$(vrate_of "$1")" = 100.00 ] ||
		{ echo "pin_vrate: $1's vrate is $(vrate_of "$1")%, not 100.00%" >&2; return 1; }
}

# cg_io_stat CG DEVT: "ios usage_us" of cgroup CG on DEVT from io.stat
cg_io_stat() {
	awk -v d="$2" '$1 == d {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%d %d\n", v["rios"] + v["wios"], v["cost.usage"]
		found = 1
	} END { if (!found) print "0 0" }' "/sys/fs/cgroup/$1/io.stat"
}

# price CG DEVT FIO-ARGS...: run fio in cgroup CG (created if missing) and
# print "us_per_op ios usage_us" from CG's io.stat delta on DEVT.  FIO-ARGS
# are global fio options (4 KiB O_DIRECT psync by default); one job "p"
# runs them unless they name jobs themselves (--name=...).  io.stat's
# cost.usage is updated at period ends (up to 1 s apart): wait until it
# has not moved for two samples 1.1 s apart.
price() {
	local cg=$1 devt=$2 a b prev job=(--name=p)
	shift 2
	case " $* " in *" --name="*) job=() ;; esac
	mkdir -p "/sys/fs/cgroup/$cg"
	a=$(cg_io_stat "$cg" "$devt")
	sh -c 'echo $$ > "/sys/fs/cgroup/$1/cgroup.procs"; shift; exec fio --output=/dev/null "$@"' \
		sh "$cg" --direct=1 --ioengine=psync --bs=4k "$@" "${job[@]}" || return 1
	prev=
	for _ in $(seq 1 20); do
		sleep 1.1
		b=$(cg_io_stat "$cg" "$devt")
		[ "$b" = "$prev" ] && break
		prev=$b
	done
	awk -v a="$a" -v b="$b" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		ios = y[1] - x[1]; us = y[2] - x[2]
		printf "%.3f %d %d\n", ios ? us / ios : 0, ios, us
	}'
}

# binding_stat DEVT KEY: a counter of DEVT's line in the stats file
binding_stat() {
	awk -v d="$1" -v k="$2" '$1 == d {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] }
	}' "$SYS/stats"
}
