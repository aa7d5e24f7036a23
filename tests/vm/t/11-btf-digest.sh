#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A module built from another kernel build's BTF is refused at load time.
# make vm-build-foreign builds the module for this kernel's headers (same
# release, vermagic and symbol CRCs, so the kernel's own checks pass) but
# with the struct offsets and the BTF digest of another build of 6.12.118
# (IOCOST_FOREIGN_KERNEL): what DKMS leaves behind when a new Debian
# revision keeps the release string.  insmod must fail with a log line
# naming both digests and both kernels, and leave nothing behind (sysfs,
# module BTF, trace events, ftrace hooks); the right build loads after it.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"
# shellcheck source=tests/vm/kernel.conf
. "$top/tests/vm/kernel.conf"

FMOD=$B/foreign/iocost_bpf.ko
GOOD_H=$B/mod/generated/iocost_btf_digest.h
FOREIGN_H=$B/foreign/mod/generated/iocost_btf_digest.h
BTF=/sys/kernel/btf/vmlinux

[ -f "$FMOD" ] || { not_ok "no $FMOD (make vm-build-foreign)"; finish; }

# hdr_str HEADER NAME: the string a generated header #defines
hdr_str() { sed -n "s/^#define $2 \"\(.*\)\"\$/\1/p" "$1" 2>/dev/null; }
# hdr_sum HEADER: the 64 hex digits of its SHA-256 comment
hdr_sum() { sed -n 's/^\/\* SHA-256 of .* (\([0-9a-f]\{64\}\)) \*\/$/\1/p' "$1" 2>/dev/null; }
# ere TEXT: TEXT with the ERE metacharacters escaped
ere() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# nothing of the module is left in the kernel
nothing_left() {
	check_fails "$1: no /sys/kernel/iocost_bpf" test -e "$SYS"
	check_fails "$1: no /sys/module/iocost_bpf" test -e /sys/module/iocost_bpf
	check_fails "$1: no module BTF" test -e /sys/kernel/btf/iocost_bpf
	check_fails "$1: no iocost_bpf trace events" test -e /sys/kernel/tracing/events/iocost_bpf
	expect_eq "$1: nothing hooked (enabled_functions)" \
		"$(grep -cE 'iocost|calc_vtime_cost_builtin' /sys/kernel/tracing/enabled_functions)" 0
}

run_sum=$(sha256sum "$BTF" | cut -d' ' -f1)
good_sum=$(hdr_sum "$GOOD_H")
foreign_sum=$(hdr_sum "$FOREIGN_H")
expect_eq "this kernel's $BTF is the .BTF of the headers the good build used" \
	"$run_sum" "$good_sum"
expect_match "the foreign build recorded a digest" "$foreign_sum" '^[0-9a-f]{64}$'
check_fails "the foreign build's BTF is not this kernel's" [ "$foreign_sum" = "$run_sum" ]
expect_eq "the foreign build has this kernel's vermagic" \
	"$(modinfo -F vermagic "$FMOD")" "$(modinfo -F vermagic "$MOD")"

# the stale build: refused, one log line, nothing changed
start=$(dmesg | wc -l)
out=$(insmod "$FMOD" 2>&1)
rc=$?
log=$(dmesg | tail -n +"$((start + 1))")
check_fails "insmod of the foreign build fails" [ "$rc" = 0 ]
expect_match "insmod says why (ENOEXEC: kmod's 'Invalid module format')" "$out" 'Invalid module format'
rel=$(uname -r)
frel=$(hdr_str "$FOREIGN_H" IOCOST_BTF_RELEASE)
futs=$(hdr_str "$FOREIGN_H" IOCOST_BTF_UTS_VERSION)
ver=$(hdr_str "$FOREIGN_H" IOCOST_PKG_VERSION)
# the kernel whose BTF it was built from (make vm-build-foreign records it;
# IOCOST_FOREIGN_KERNEL=... makes one for another kernel, e.g. on 7.x)
fkern=$(cat "$B/foreign/btf-kernel" 2>/dev/null || echo "$IOCOST_FOREIGN_KERNEL")
expect_eq "the foreign build names its kernel" "$frel" "$fkern"
expect_match "the log names both digests and both kernels" "$log" \
	"iocost_bpf: built for another kernel's BTF, not loading: build BTF sha256 ${foreign_sum:0:16} \($(ere "$frel $futs")\), this kernel's $(ere "$BTF") sha256 ${run_sum:0:16} \($(ere "$rel $(uname -v)")\); its struct offsets would be wrong"
expect_match "the log says how to rebuild" "$log" \
	"rebuild the module for this kernel \(dkms remove iocost-bpf/$(ere "$ver") -k $(ere "$rel") && dkms install iocost-bpf/$(ere "$ver") -k $(ere "$rel"), or make KDIR=/lib/modules/$(ere "$rel")/build\)"
# (not counting the kernel's own taint notes, printed at a boot's first
# out-of-tree module load, when this test runs first)
expect_eq "one iocost_bpf log line" \
	"$(grep 'iocost_bpf:' <<<"$log" | grep -cvE 'taints kernel|module verification failed')" 1
expect_nomatch "no struct_ops registered" "$log" 'struct_ops iocost_model_ops registered'
nothing_left "after the refusal"

# the right build loads after it; its init cost (the digest included)
t0=$(date +%s%N)
check "the good build loads afterwards" insmod "$MOD"
t1=$(date +%s%N)
echo "# insmod of the good build: $(((t1 - t0) / 1000000)) ms (digest check included)"
check "/sys/kernel/iocost_bpf exists" test -d "$SYS"
check "rmmod" rmmod iocost_bpf
nothing_left "after rmmod"
finish
