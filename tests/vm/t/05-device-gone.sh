#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A bound disk that goes away leaves no binding behind: a new disk that
# takes the same MAJ:MIN does not inherit it, and the reference the binding
# held is released (the module unloads).  null_blk disks through configfs.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

load_module
mkdir -p "$PINS"
# iocost_2x through iocostctl load this time: the pinned link keeps it
# registered
check "iocostctl load iocost_2x.bpf.o" "$CTL" load "$B/bpf/iocost_2x.bpf.o"
check "link pinned" test -e "$PINS/iocost_2x"
expect_match "models lists iocost_2x" "$(cat "$SYS/models")" "^iocost_2x bindings=0$"
modprobe null_blk nr_devices=0 || { not_ok "modprobe null_blk"; finish; }
NB=/sys/kernel/config/nullb

# nb_up NAME: create a null_blk disk, print its MAJ:MIN
nb_up() {
	mkdir "$NB/$1" && echo 1 >"$NB/$1/power" || return 1
	cat "/sys/block/$1/dev" 2>/dev/null || cat "/sys/block/$(ls -t /sys/block | grep nullb | head -1)/dev"
}
nb_down() { echo 0 >"$NB/$1/power"; rmdir "$NB/$1"; }

D=$(nb_up nullb9) || { not_ok "create a null_blk disk"; finish; }
expect_write "bind iocost_2x to the null_blk disk $D" "$SYS/bindings" "$D model=iocost_2x" OK
dd if=/dev/nullb9 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
# replace the disk before anyone reads the control files
nb_down nullb9
D2=$(nb_up nullb9) || { not_ok "recreate the null_blk disk"; finish; }
expect_eq "the new disk reuses the MAJ:MIN" "$D2" "$D"
expect_eq "the new disk did not inherit the binding" "$(cat "$SYS/bindings")" ""
expect_match "the log says the old disk's binding was dropped" "$(test_dmesg)" \
	"$D went away: dropping its binding to iocost_2x"
expect_match "models counts no binding" "$(cat "$SYS/models")" "^iocost_2x bindings=0$"

expect_write "bind the new disk" "$SYS/bindings" "$D2 model=iocost_2x" OK
nb_down nullb9
expect_eq "a removed disk's binding is gone at the next read" "$(cat "$SYS/stats")" ""
expect_write "binding a removed disk is ENODEV" "$SYS/bindings" "$D2 model=iocost_2x" ENODEV

rm -f "$PINS/iocost_2x"
check "no reference left: the module unloads" wait_unload
rmmod null_blk 2>/dev/null
finish
