#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module loads into the stock kernel, says what it found, creates its
# sysfs files and carries BTF; it unloads cleanly when nothing is registered.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

check "insmod $(basename "$MOD") into $(uname -r)" insmod "$MOD"
rel=$(uname -r | sed 's/[.+]/\\&/g')
# the function itself, or where GCC emitted only its IPA-SRA clone, that
target=$(sed -n 's/^target \([^ ]*\) .*/\1/p' "$SYS/hook")
expect_match "the hook file names calc_vtime_cost_builtin or its clone" "$target" \
	'^calc_vtime_cost_builtin(\.isra\.[0-9]+)?$'
# entered by an ftrace direct call on x86-64 where the function is in BTF
# (src/hook.c), through an ftrace handler elsewhere
entry='ftrace, ip-modify'
[ "$(uname -m)" = x86_64 ] && [[ $target != *.isra.* ]] && entry='ftrace direct call'
expect_match "log names the kernel, the hook target and its entry" "$(test_dmesg)" \
	"iocost_bpf: kernel $rel, hook target ${target//./\\.} \($entry\), struct_ops iocost_model_ops registered"
check "module BTF is exposed at /sys/kernel/btf/iocost_bpf" test -f /sys/kernel/btf/iocost_bpf
check "bpftool sees iocost_model_ops in the module BTF" \
	sh -c "bpftool btf dump file /sys/kernel/btf/iocost_bpf | grep -q \"STRUCT 'iocost_model_ops'\""
expect_eq "models is read-only (0444)" "$(stat -c %a "$SYS/models")" 444
expect_eq "bindings is root-writable (0644)" "$(stat -c %a "$SYS/bindings")" 644
expect_eq "models lists nothing yet" "$(cat "$SYS/models")" ""
expect_eq "bindings lists nothing yet" "$(cat "$SYS/bindings")" ""
expect_eq "ftrace hook not installed while nothing is bound" \
	"$(grep -c calc_vtime_cost_builtin /sys/kernel/tracing/enabled_functions)" 0
check "rmmod with nothing registered" rmmod iocost_bpf
check_fails "/sys/kernel/iocost_bpf is gone" test -e "$SYS"
finish
