#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The context a model runs in.  Defect covered: the hook ran
# the model with preemption disabled on every kernel; on PREEMPT_RT a
# spinlock_t is a sleeping lock, so a helper that takes one (an LPM trie
# update, for instance) ran in atomic context.  Expected: on PREEMPT_RT
# the model runs under rcu_read_lock() + migrate_disable(), preemptible
# (preempt_count 0 inside calc_cost); elsewhere with preemption disabled
# (>= 1: the hook disables it for the per-CPU counters and RCU, and
# spinlock_t helpers are fine there).  Run by the kernel matrix on every
# kernel (tests/vm/matrix), the -rt flavour included.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

if rt_kernel; then
	rt=1
else
	rt=0
fi
echo "# PREEMPT_RT: $rt ($(uname -v)), $(nproc) CPUs"
jobs=1
[ "$(nproc)" -ge 2 ] && jobs=2

load_module
check "test_ctxprobe registers" "$CTL" load "$B/tests/ctxprobe.bpf.o"
check "test_lpmlock registers (an LPM trie update on every IO)" "$CTL" load "$B/tests/lpmlock.bpf.o"
D=$(iocost_enable vdb) || { not_ok "enable iocost on vdb"; finish; }
mkdir -p /sys/fs/cgroup/pr14

# bss OBJ VAR: a global of a registered test model, from its .bss map
bss() {
	bpftool map dump name "$1.bss" -j 2>/dev/null | python3 -c '
import json, sys
v = {}
for d in json.load(sys.stdin)[0]["formatted"]["value"][".bss"]:
    v.update(d)
print(v[sys.argv[1]])' "$2"
}
# load OFFSET: fio, $jobs sequential 4 KiB direct readers of vdb from a
# cgroup; prints the number of IOs completed
load() {
	sh -c 'echo $$ >/sys/fs/cgroup/pr14/cgroup.procs; exec fio "$@"' sh \
		--name=p --filename=/dev/vdb --direct=1 --ioengine=psync --rw=read --bs=4k \
		--size=4m --offset="$1" --offset_increment=64m --numjobs="$jobs" \
		--group_reporting --output-format=json --output=/tmp/pr14.json || return 1
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' /tmp/pr14.json
}

# ---- where calc_cost runs ----
expect_write "bind test_ctxprobe" "$SYS/bindings" "$D model=test_ctxprobe" OK
ios=$(load 0)
calls=$(bss ctxprobe calls)
maxd=$(bss ctxprobe max_depth)
echo "# test_ctxprobe: $calls calls, preempt depth in calc_cost: max $maxd"
check "calc_cost ran for every IO ($calls calls, $ios IOs from $jobs jobs)" \
	test "${calls:-0}" -ge "${ios:-1}" -a "${ios:-0}" -gt 0
expect_eq "stats: one charge per IO" "$(binding_stat "$D" charges)" "$calls"
if [ "$rt" = 1 ]; then
	expect_eq "PREEMPT_RT: calc_cost runs preemptible (max preempt depth)" "$maxd" 0
else
	check "not PREEMPT_RT: calc_cost runs with preemption disabled (max depth $maxd >= 1)" \
		test "${maxd:-0}" -ge 1
fi

# ---- a helper taking a spinlock_t on every IO ----
expect_write "bind test_lpmlock" "$SYS/bindings" "$D model=test_lpmlock" OK
ios=$(load 256m)
calls=$(bss lpmlock calls)
echo "# test_lpmlock: $calls calls, $(bss lpmlock updated) trie updates, $ios IOs"
check "test_lpmlock priced every IO ($calls calls, $ios IOs)" test "${calls:-0}" -ge "${ios:-1}" -a "${ios:-0}" -gt 0
expect_eq "stats: one charge per IO" "$(binding_stat "$D" charges)" "$calls"
expect_eq "every trie update succeeded" "$(bss lpmlock updated)" "$calls"
expect_eq "nothing priced 0 or clamped" "$(binding_stat "$D" zero) $(binding_stat "$D" clamped)" "0 0"
atomic='sleeping function called from invalid context|scheduling while atomic|Invalid wait context'
expect_nomatch "no atomic-context splat in the kernel log" "$(test_dmesg | grep -E "$atomic")" "$atomic"

expect_write "unbind" "$SYS/bindings" "$D model=linear" OK
rm -f "${PINS:?}/test_ctxprobe" "${PINS:?}/test_lpmlock" /tmp/pr14.json
rmdir /sys/fs/cgroup/pr14 2>/dev/null
expect_unload
finish
