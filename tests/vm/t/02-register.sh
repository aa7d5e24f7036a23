#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Registering models: skeleton and bpftool, the verifier's view of blkcg,
# name rules, refusals, and the module reference a registered model holds.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

load_module
mkdir -p "$PINS"

out=$("$B/bin/test_min" 2>&1)
expect_match "skeleton loader registers test_min" "$out" "registered, link pinned at $PINS/test_min"
expect_match "models lists test_min" "$(cat "$SYS/models")" "^test_min bindings=0$"

# Debian's bpftool 7.5 registers the struct_ops and pins the link in the
# given directory, then dies of SIGSEGV while printing the result: its
# get_kern_struct_ops_name() looks the map's value type id up in vmlinux's
# BTF, but a module's type id is past vmlinux's last one, so
# btf__type_by_id() returns NULL and bpftool reads a name through it
# (docs/USAGE.md, "Registering with bpftool").  Asserted, not hidden: a
# bpftool that no longer crashes must change docs/USAGE.md.
mkdir -p "$PINS/cgrp"
bpftool struct_ops register "$B/tests/cgrp.bpf.o" "$PINS/cgrp" >/dev/null 2>&1
rc=$?
bv=$(bpftool version 2>/dev/null | sed -n '1s/^bpftool v\([0-9.]*\).*/\1/p')
case $bv in
7.5.*) expect_eq "bpftool $bv struct_ops register: SIGSEGV after registering (exit 139)" "$rc" 139 ;;
*) expect_eq "bpftool $bv struct_ops register exits 0" "$rc" 0 ;;
esac
check "bpftool: model reading blkcg->css.cgroup with cgrp storage passed the verifier, link pinned" \
	test -e "$PINS/cgrp/iocost_ops"
expect_match "models lists test_cgrp" "$(cat "$SYS/models")" "^test_cgrp bindings=0$"
expect_match "the kernel log shows test_cgrp registered" "$(test_dmesg)" "model test_cgrp registered"
rm -rf "$PINS/cgrp"
check "test_cgrp unregisters with its pin" wait_unregistered test_cgrp
out=$("$CTL" load "$B/tests/cgrp.bpf.o" 2>&1)
rc=$?
expect_eq "iocostctl load registers the same object and exits 0" "$rc" 0
expect_match "iocostctl says where it pinned it" "$out" "$PINS/test_cgrp"
expect_match "models lists test_cgrp again" "$(cat "$SYS/models")" "^test_cgrp bindings=0$"

out=$("$B/bin/test_min" --pin "$PINS/dup" 2>&1)
expect_match "a second test_min is refused with EEXIST" "$out" "register: .*errno=EEXIST"
expect_eq "still one test_min" "$(grep -c '^test_min ' "$SYS/models")" 1

for bad in "" "bad name" "abcdefghijklmnop" "linear" $'tab\there'; do
	out=$("$B/bin/test_min" --name "$bad" --pin "$PINS/bad" 2>&1)
	expect_match "name '$bad' refused with EINVAL" "$out" "errno=EINVAL"
done
expect_match "the log says why a name was refused" "$(test_dmesg)" 'model name "bad name" refused'
expect_eq "no refused name reached the registry" "$(wc -l <"$SYS/models")" 2

out=$("$B/bin/test_min" --name other_min --pin "$PINS/other" 2>&1)
expect_match "the same object registers under another name" "$out" "registered"
expect_match "models lists other_min" "$(cat "$SYS/models")" "^other_min bindings=0$"

check_fails "a model without calc_cost is refused" \
	"$CTL" load "$B/tests/nocalc.bpf.o"
expect_match "the log says calc_cost is missing" "$(test_dmesg)" "no calc_cost program: refused"
check_fails "a sleepable calc_cost is refused at verification" \
	"$CTL" load "$B/tests/sleepable.bpf.o"
expect_match "the log says sleepable programs are refused" "$(test_dmesg)" "sleepable programs are refused"
expect_nomatch "neither refused model is listed" "$(cat "$SYS/models")" "test_nocalc|test_sleepable"

# the template model authors copy (bpf/iocost_tmpl.bpf.c, bpf/README.md's
# walk-through): loaded, bound to vdb, each 4 KiB read of a child cgroup
# priced as one random read with vdb's own coefficients, as blk-iocost's
# calc_lcoefs() derives them (page, and randio + page = ceil(2^37 /
# rrandiops) when that is larger), unbound, unloaded
TD=$(iocost_enable vdb) || { not_ok "enable iocost on vdb"; finish; }
out=$("$CTL" load "$B/bpf/iocost_tmpl.bpf.o" 2>&1)
expect_match "iocostctl load registers the template" "$out" \
	"^loaded iocost_tmpl \(pinned at $PINS/iocost_tmpl\)$"
out=$("$CTL" bind vdb iocost_tmpl 2>&1)
expect_match "iocostctl bind binds it to vdb" "$out" "^bound $TD \(vdb\) to iocost_tmpl$"
expect_eq "the bindings file reads it back" "$(grep "^$TD " "$SYS/bindings")" \
	"$TD model=iocost_tmpl mode=enforce"
mkdir -p /sys/fs/cgroup/tmpl
check "dd reads 64 x 4 KiB of vdb, O_DIRECT, from a child cgroup" \
	sh -c 'echo $$ >/sys/fs/cgroup/tmpl/cgroup.procs; exec dd if=/dev/vdb of=/dev/null bs=4k count=64 iflag=direct status=none'
read -r rbps rrandiops <<<"$(awk -v d="$TD" '$1 == d {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print v["rbps"], v["rrandiops"] }' /sys/fs/cgroup/io.cost.model)"
expect_match "vdb's io.cost.model: rbps rrandiops" "$rbps $rrandiops" "^[1-9][0-9]* [1-9][0-9]*$"
# (without them, 1 and 1: the price check below then fails, not the shell)
[[ "$rbps $rrandiops" =~ ^[1-9][0-9]*\ [1-9][0-9]*$ ]] || { rbps=1 rrandiops=1; }
bps_pages=$(((rbps + 4095) / 4096))
page=$((((1 << 37) + bps_pages - 1) / bps_pages))
v=$((((1 << 37) + rrandiops - 1) / rrandiops))
want=$((page + (v > page ? v - page : 0)))
expect_eq "stats: each of the 64 reads priced once" "$(binding_stat "$TD" charges)" 64
expect_eq "stats: each read priced randio + page of vdb = $want vtime" \
	"$(binding_stat "$TD" vtime)" "$((64 * want))"
out=$("$CTL" unbind vdb 2>&1)
expect_match "iocostctl unbind: vdb back to the builtin" "$out" \
	"^unbound $TD \(vdb\) from iocost_tmpl: back to the builtin linear model$"
expect_eq "vdb is no longer bound" "$(grep -c "^$TD " "$SYS/bindings")" 0
out=$("$CTL" unload iocost_tmpl 2>&1)
expect_match "iocostctl unload unregisters the template" "$out" "^unloaded iocost_tmpl$"
expect_nomatch "models no longer lists iocost_tmpl" "$(cat "$SYS/models")" "^iocost_tmpl "
rmdir /sys/fs/cgroup/tmpl
echo "$TD enable=0 ctrl=auto" >/sys/fs/cgroup/io.cost.qos

out=$(rmmod iocost_bpf 2>&1)
expect_match "rmmod refused while models are registered" "$out" "in use"
check "module still there" test -d "$SYS"

rm -f "$PINS/test_min" "$PINS/other"
rm -f "$PINS/test_cgrp"
for i in $(seq 1 50); do
	[ -z "$(cat "$SYS/models")" ] && break
	sleep 0.1
done
expect_eq "unpinning the links unregisters every model" "$(cat "$SYS/models")" ""
check "rmmod succeeds once nothing is registered" wait_unload
check_fails "nothing is left in sysfs" test -e "$SYS"
check_fails "no module BTF left" test -e /sys/kernel/btf/iocost_bpf
finish
