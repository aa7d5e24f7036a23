#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# blkcg_online / blkcg_offline follow the binding: a model receives them
# while it is bound to at least one device (once per cgroup, however many
# devices), also after it is unregistered while still bound, and no more
# once its last device is switched back to linear.  test_cgrp counts the
# calls in its .bss.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

load_module
check "test_cgrp registered (iocostctl load, link pinned)" "$CTL" load "$B/tests/cgrp.bpf.o"
D=$(cat /sys/block/vda/dev)
D2=$(cat /sys/block/vdb/dev)

# counts: "onlined offlined" from the model's .bss
counts() {
	bpftool -j map dump name cgrp.bss 2>/dev/null | python3 -c '
import json, sys
v = {}
for e in json.load(sys.stdin):
    for sec in e["formatted"]["value"].values():
        for kv in sec:
            v.update(kv)
print(v["onlined"], v["offlined"])'
}

# churn N: create N cgroups, then remove them; waits for the offlines,
# which the kernel runs asynchronously after rmdir
churn() {
	local i
	for i in $(seq 1 "$1"); do
		mkdir "/sys/fs/cgroup/lc$i"
	done
	for i in $(seq 1 "$1"); do
		rmdir "/sys/fs/cgroup/lc$i"
	done
	sleep 0.5
}

# expect_counts WHAT ONLINE OFFLINE: poll the counters for up to 5 s
expect_counts() {
	local got
	for _ in $(seq 1 25); do
		got=$(counts)
		[ "$got" = "$2 $3" ] && break
		sleep 0.2
	done
	expect_eq "$1: online/offline calls" "$got" "$2 $3"
}

expect_counts "registered, not bound" 0 0
churn 3
expect_counts "cgroups made while registered but unbound are not notified" 0 0

expect_write "bind test_cgrp to vda" "$SYS/bindings" "$D model=test_cgrp" OK
expect_eq "the lifecycle handlers are attached while bound" \
	"$(grep -cE '^blkcg_css_(online|offline)' /sys/kernel/tracing/enabled_functions)" 2
churn 4
expect_counts "4 cgroups made and removed while bound" 4 4
mkdir /sys/fs/cgroup/lcn
echo "+io" >/sys/fs/cgroup/lcn/cgroup.subtree_control
mkdir /sys/fs/cgroup/lcn/a /sys/fs/cgroup/lcn/b
expect_counts "a nested tree of 3 with io enabled: 3 onlines" 7 4
rmdir /sys/fs/cgroup/lcn/b /sys/fs/cgroup/lcn/a /sys/fs/cgroup/lcn
expect_counts "and 3 offlines when it is removed" 7 7

expect_write "unbind vda, the only binding" "$SYS/bindings" "$D model=linear" OK
expect_eq "the lifecycle handlers are detached with the last binding" \
	"$(grep -cE '^blkcg_css_(online|offline)' /sys/kernel/tracing/enabled_functions)" 0
churn 2
expect_counts "after unbind the calls stop" 7 7

expect_write "bind test_cgrp to vda again" "$SYS/bindings" "$D model=test_cgrp" OK
expect_write "and to vdb" "$SYS/bindings" "$D2 model=test_cgrp" OK
churn 2
expect_counts "two devices, one model: one call per cgroup" 9 9

rm -f "$PINS/test_cgrp"
wait_unregistered test_cgrp
expect_nomatch "unregistered: the name is gone" "$(cat "$SYS/models")" "^test_cgrp "
expect_match "still bound" "$(cat "$SYS/bindings")" "model=test_cgrp"
churn 3
expect_counts "an unregistered but bound model still receives them" 12 12

expect_write "unbind vda" "$SYS/bindings" "$D model=linear" OK
churn 1
expect_counts "still bound to vdb: still notified" 13 13
expect_write "unbind vdb (the last binding)" "$SYS/bindings" "$D2 model=linear" OK
expect_eq "the lifecycle handlers are detached" \
	"$(grep -cE '^blkcg_css_(online|offline)' /sys/kernel/tracing/enabled_functions)" 0
for _ in $(seq 1 50); do
	bpftool map show name cgrp.bss >/dev/null 2>&1 || break
	sleep 0.1
done
check "the model's maps are freed with its last binding" sh -c "! bpftool map show name cgrp.bss >/dev/null 2>&1"
churn 2
check "the module unloads: no reference left" wait_unload
finish
