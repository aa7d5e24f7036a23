#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernels where GCC emitted calc_vtime_cost_builtin only as an IPA-SRA
# clone (Debian's 7.x; src/clone.c): the hook file's state, the learned
# registers, a model's price through the clone, and every check made to
# fail on purpose (module parameter clone_fault): the builtin prices each
# such bio and the stats count it under its reason; a structural mismatch
# while learning disables the clone hook, unbinds every disk and refuses
# new bindings.  On kernels with the function in BTF: the hook file says
# so, and none of this exists.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

IOCOST_NO_WARMUP=1 load_module
clone_kernel || no_clone_finish

FAULT=/sys/module/iocost_bpf/parameters/clone_fault
hook() { cat "$SYS/hook"; }
# fallbacks DEVT: the binding's fallback_*= and learning= fields
fallbacks() {
	grep "^$1 " "$SYS/stats" | grep -o ' fallback_[a-z]*=[0-9]*\| learning=[0-9]*' | tr -d '\n'
}
unattributed() { sed -n 's/^fallbacks since load .* unattributed=//p' "$SYS/hook"; }

expect_match "hook: the clone is the target" "$(hook)" '^target calc_vtime_cost_builtin\.isra\.[0-9]+ \(IPA-SRA clone, not in BTF\)'
expect_match "hook: ioc_rqos_throttle's call of it" "$(hook)" '^caller ioc_rqos_throttle calls ioc_rqos_throttle\+0x[0-9a-f]+/0x[0-9a-f]+'
expect_match "hook: ioc_rqos_merge's call of it" "$(hook)" '^caller ioc_rqos_merge calls ioc_rqos_merge\+0x[0-9a-f]+/0x[0-9a-f]+'
expect_match "hook: learning, nothing seen yet" "$(hook)" '^mapping learning: 0 of 64 bios, candidates 0x3f$'
expect_match "hook: no fallback yet" "$(hook)" \
	'^fallbacks since load kind=0 caller=0 costp=0 args=0 blkg=0 unattributed=0$'
expect_match "the log says how it hooks" "$(test_dmesg)" \
	'iocost_bpf: hooking calc_vtime_cost_builtin\.isra\.[0-9]+, called by ioc_rqos_throttle and ioc_rqos_merge; its registers are mapped from the first 64 bios of bound disks'

mkdir -p "$PINS"
D=$(iocost_enable vda) || { not_ok "enable iocost on vda"; finish; }
check "vrate pinned at 100.00% on vda" pin_vrate "$D"
io=(--filename=/dev/vda --rw=read --size=1m)
read -r base _ <<<"$(price c17b "$D" "${io[@]}")"
echo "# builtin: $base us/op"
check "iocost_2x registers" "$B/bin/iocost_2x"

# ---- the shadow phase: the first 64 bios of a bound disk ----
expect_write "bind iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
read -r p ios _ <<<"$(price c17l "$D" "${io[@]}")"
expect_eq "fio's 256 IOs counted" "$ios" 256
expect_eq "learning: the builtin priced the first 64, the model the rest" "$(fallbacks "$D")" \
	" fallback_kind=0 fallback_caller=0 fallback_costp=0 fallback_args=0 fallback_blkg=0 learning=64"
expect_eq "stats: the model priced the other 192" "$(binding_stat "$D" charges)" 192
want=$(awk -v b="$base" 'BEGIN { printf "%.3f", b * (64 + 2 * 192) / 256 }')
expect_ratio "io.stat: 64 bios at 1x, 192 at 2x" "$p" "$want" 0.995 1.005
expect_match "hook: the registers are mapped, as GCC passed them (tests/vm/clone-abi)" "$(hook)" \
	'^mapping opf=rdi nbytes=rdx sector=rsi \(learned\)$'
expect_match "hook: pricing" "$(hook)" '^state pricing$'
expect_match "the log says when" "$(test_dmesg)" 'registers mapped after 64 bios of bound disks'

# ---- every check, failed on purpose: the builtin prices, the reason counts ----
expect_write "rebind: new counters" "$SYS/bindings" "$D model=iocost_2x" OK
read -r x ios _ <<<"$(price c17x "$D" "${io[@]}")"
expect_ratio "iocost_2x through the clone: 2.000x the builtin" "$x" "$base" 1.99 2.01
expect_eq "every IO priced by the model" "$(binding_stat "$D" charges)" "$ios"
expect_eq "no fallback" "$(fallbacks "$D")" \
	" fallback_kind=0 fallback_caller=0 fallback_costp=0 fallback_args=0 fallback_blkg=0 learning=0"
bit=2
for reason in kind caller costp args blkg; do
	expect_write "rebind before the $reason fault" "$SYS/bindings" "$D model=iocost_2x" OK
	echo $bit >"$FAULT"
	read -r f ios _ <<<"$(price "c17f$reason" "$D" "${io[@]}")"
	echo 0 >"$FAULT"
	expect_ratio "$reason check failed: the builtin's price" "$f" "$base" 0.995 1.005
	expect_eq "$reason check failed: every IO counted under fallback_$reason" \
		"$(fallbacks "$D" | grep -o " fallback_$reason=[0-9]*")" " fallback_$reason=$ios"
	expect_eq "$reason check failed: nothing else counted" \
		"$(fallbacks "$D" | sed "s/ fallback_$reason=[0-9]*//")" \
		"$(echo " fallback_kind=0 fallback_caller=0 fallback_costp=0 fallback_args=0 fallback_blkg=0 learning=0" |
		   sed "s/ fallback_$reason=0//")"
	expect_eq "$reason check failed: no charge" "$(binding_stat "$D" charges)" 0
	expect_match "$reason check failed: counted in the module's totals too" "$(hook)" \
		"^fallbacks since load .*$reason=$ios( |\$)"
	bit=$((bit * 2))
done
# the stash: no binding can be named, so the hook file counts it
u0=$(unattributed)
echo 1 >"$FAULT"
read -r f ios _ <<<"$(price c17fstash "$D" "${io[@]}")"
echo 0 >"$FAULT"
expect_ratio "stash check failed: the builtin's price" "$f" "$base" 0.995 1.005
check "stash check failed: counted as unattributed" [ $(($(unattributed) - u0)) -ge "$ios" ]
expect_write "clone_fault takes a number" "$FAULT" maybe EINVAL
read -r x2 _ <<<"$(price c17x "$D" "${io[@]}")"
expect_ratio "faults off: 2.000x again" "$x2" "$base" 1.99 2.01
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK
rm -f "$PINS/iocost_2x"
wait_unregistered iocost_2x
check "the module unloads" wait_unload
expect_match "the unload logs the fallbacks since load" "$(test_dmesg)" \
	'calc_vtime_cost_builtin\.isra\.[0-9]+: fallbacks since load kind=[1-9][0-9]* caller=[1-9][0-9]* costp=[1-9][0-9]* args=[1-9][0-9]* blkg=[1-9][0-9]* unattributed=[1-9][0-9]*'

# ---- a structural mismatch while learning ----
IOCOST_NO_WARMUP=1 load_module clone_fault=64
check "iocost_2x registers" "$B/bin/iocost_2x"
expect_write "bind iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
read -r s _ <<<"$(price c17s "$D" "${io[@]}")"
expect_ratio "a bio contradicting every candidate: the builtin prices" "$s" "$base" 0.995 1.005
expect_match "hook: disabled, with the reason" "$(hook)" \
	'^state disabled: no single mapping of rdi, rsi and rdx to \(opf, nbytes, sector\) fits every bio$'
expect_match "the log says so" "$(test_dmesg)" \
	'calc_vtime_cost_builtin\.isra\.[0-9]+: no single mapping .* every disk is back to the builtin linear model and new bindings are refused'
sleep 0.5
expect_eq "every disk unbound" "$(cat "$SYS/bindings")" ""
expect_write "a new binding is refused" "$SYS/bindings" "$D model=iocost_2x" EOPNOTSUPP
expect_match "with a log line" "$(test_dmesg)" "$D not bound: pricing through calc_vtime_cost_builtin\.isra\.[0-9]+ was disabled"
echo 0 >"$FAULT"
read -r s2 _ <<<"$(price c17s "$D" "${io[@]}")"
expect_ratio "still the builtin's price" "$s2" "$base" 0.995 1.005
rm -f "$PINS/iocost_2x"
wait_unregistered iocost_2x
check "the module unloads" wait_unload
# this test's cgroups (their cursors would carry into another test's)
rmdir /sys/fs/cgroup/c17*
finish
