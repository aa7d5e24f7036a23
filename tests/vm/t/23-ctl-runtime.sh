#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What docs/USAGE.md and iocostctl(8) promise and no other test ran:
# direct_call changed at run time (read when a model registers),
# iocostctl -d (libbpf's debug messages), bpffs mounted and the pin
# directory created 0700 when missing, status on a model registered by
# another loader (unpinned), and top stopping cleanly on SIGINT and
# SIGHUP (its tracefs instance removed).
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

TR=/sys/kernel/tracing
P=/sys/module/iocost_bpf/parameters/direct_call

# ---- bpffs and the pin directory, as iocostctl load finds them missing ----
# (the module first: on a clone kernel load_module's warm-up pins a model)
load_module
rm -rf "${PINS:?}"
mountpoint -q /sys/fs/bpf && umount /sys/fs/bpf
check_fails "bpffs is not mounted on /sys/fs/bpf" mountpoint -q /sys/fs/bpf
check "iocostctl load with bpffs unmounted" "$CTL" load "$B/bpf/iocost_2x.bpf.o"
expect_eq "it mounted bpffs on /sys/fs/bpf" "$(findmnt -n -o FSTYPE /sys/fs/bpf)" bpf
expect_eq "it created the pin directory with mode 0700" "$(stat -c %a "$PINS" 2>&1)" 700
check "and pinned the model there" test -e "$PINS/iocost_2x"

# ---- direct_call at run time: read when a model registers ----
# (where the direct call was not reviewed, direct_call changes nothing)
case $KREL in
6.12.*) direct="calc_cost called directly" tramp="direct_call=0" ;;
*) direct="called through its struct_ops trampoline: the direct call was not reviewed for this kernel version"
   tramp="the direct call was not reviewed for this kernel version" ;;
esac
expect_eq "direct_call is Y by default" "$(cat "$P")" Y
expect_match "iocost_2x, registered with direct_call=Y" "$(test_dmesg)" \
	"model iocost_2x registered \(${direct//./\\.}\)"
expect_write "direct_call set to N at run time" "$P" N OK
check "iocost_ms registers" "$CTL" load "$B/bpf/iocost_ms.bpf.o"
expect_match "iocost_ms, registered with direct_call=N, goes through its trampoline" "$(test_dmesg)" \
	"model iocost_ms registered \(called through its struct_ops trampoline: ${tramp//./\\.}\)"
expect_write "direct_call back to Y" "$P" Y OK
check "dc20 registers" "$B/bin/test_min" --name dc20 --pin "$PINS/dc20"
expect_match "dc20, registered with direct_call=Y again" "$(test_dmesg)" \
	"model dc20 registered \(${direct//./\\.}\)"
D=$(iocost_enable vdb) || { not_ok "enable iocost on vdb"; finish; }
expect_write "bind iocost_ms (through its trampoline)" "$SYS/bindings" "$D model=iocost_ms" OK
read -r ms_us ms_ios _ <<<"$(price dc20 "$D" --filename=/dev/vdb --rw=read --size=1m)"
check "iocost_ms prices through its trampoline ($ms_ios IOs, $ms_us us each, $(binding_stat "$D" charges) charges)" \
	test "$(binding_stat "$D" charges)" -ge 256
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK

# ---- -d: libbpf's debug messages ----
out=$("$CTL" -d load "$B/bpf/iocost_2x.bpf.o" --name dbg20 2>&1)
expect_match "iocostctl -d load shows libbpf's debug messages" "$out" "^libbpf: "
out=$("$CTL" load "$B/bpf/iocost_2x.bpf.o" --name nodbg20 2>&1)
expect_nomatch "without -d it does not" "$out" "^libbpf: "

# ---- status: a model another loader registered, unpinned ----
"$B/bin/test_min" --name fg20 --foreground >/tmp/fg20.out 2>&1 &
fg=$!
for _ in $(seq 1 100); do
	grep -q '^fg20 ' "$SYS/models" && break
	sleep 0.1
done
out=$("$CTL" status 2>&1)
expect_match "status: the unpinned model's line" "$out" "^fg20 +0 +no \(registered by another loader\)$"
out=$("$CTL" status --json 2>&1)
expect_eq "status --json: its pin is null" \
	"$(python3 -c 'import json, sys; d = json.load(sys.stdin); print([m["pin"] for m in d["models"] if m["name"] == "fg20"])' <<<"$out")" "[None]"
kill "$fg"
wait "$fg" 2>/dev/null
rm -f /tmp/fg20.out
check "fg20 unregisters when its loader ends" wait_unregistered fg20

# ---- top: SIGINT and SIGHUP stop it, its instance removed ----
tick=$TR/events/iocost_bpf/iocost_ioc_tick
if [ -d "$tick" ]; then
	for sig in INT HUP; do
		"$CTL" top vdb >/tmp/top20.out 2>&1 &
		tp=$!
		for _ in $(seq 1 100); do
			[ -d "$TR/instances/iocostctl.$tp" ] && break
			sleep 0.1
		done
		check "top (pid $tp) made its tracefs instance" test -d "$TR/instances/iocostctl.$tp"
		kill -"$sig" "$tp"
		wait_gone "$tp" 10
		expect_eq "top stops on SIG$sig within 10 s: exit status (124: killed)" "$?" 0
		check_fails "top on SIG$sig: its instance is removed" test -d "$TR/instances/iocostctl.$tp"
	done
	rm -f /tmp/top20.out
else
	not_ok "the iocost_ioc_tick event exists ($tick)"
fi

rmdir /sys/fs/cgroup/dc20 2>/dev/null
expect_unload
finish
