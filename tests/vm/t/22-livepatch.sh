#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Coexistence with a livepatch of the pricing function (docs/USAGE.md:
# ftrace lets one ip-modifying user own it).  A test livepatch of
# calc_vtime_cost_builtin, or of its IPA-SRA clone where the kernel has
# only that (tests/vm/livepatch, built by make test-modules):
#  - bound first: the livepatch cannot be loaded (the livepatch gets the
#    error), the binding keeps pricing;
#  - patch first: the first bind fails with EBUSY and a log line, nothing
#    is bound or hooked; once the patch is disabled and removed, binding
#    works and the model prices again.
# vm-run: long (queued first when two guests share the suite: tests/vm/run)
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

LP=$B/tests/livepatch/iocost_lp_test.ko
LPS=/sys/kernel/livepatch/iocost_lp_test
[ -f "$LP" ] || { not_ok "the test livepatch is built ($LP: make test-modules)"; finish; }
check "the kernel has livepatch (CONFIG_LIVEPATCH)" test -d /sys/kernel/livepatch

# the symbol the module hooks, as the kernel names it
func=$(grep -oE ' calc_vtime_cost_builtin(\.isra\.[0-9]+)?$' /proc/kallsyms | head -1 | tr -d ' ')
clone=0
[[ $func == *.isra.* ]] && clone=1
echo "# patching $func (clone=$clone)"

# lp_disable: disable the patch, wait for its transition, remove it
lp_disable() {
	echo 0 >"$LPS/enabled" || return 1
	for _ in $(seq 1 300); do
		[ "$(cat "$LPS/transition" 2>/dev/null)" = 0 ] && break
		sleep 0.1
	done
	for _ in $(seq 1 50); do
		rmmod iocost_lp_test 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

load_module
mkdir -p "$PINS"
check "iocost_2x registers" "$B/bin/iocost_2x"
D=$(iocost_enable vdb) || { not_ok "enable iocost on vdb"; finish; }

# ---- bound first: the livepatch cannot load ----
expect_write "bind iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
out=$(insmod "$LP" "func=$func" "clone=$clone" 2>&1)
rc=$?
check "while a disk is bound, the livepatch cannot load ($out)" test "$rc" -ne 0
check_fails "no livepatch is left" test -e "$LPS"
read -r x_us x_ios _ <<<"$(price lp19 "$D" --filename=/dev/vdb --rw=read --size=1m)"
check "the binding still prices ($x_ios IOs, $x_us us each, $(binding_stat "$D" charges) charges)" \
	test "$(binding_stat "$D" charges)" -ge 256
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK

# ---- the livepatch first: the bind is refused until it is gone ----
# (each livepatch transition takes seconds: two of them, not four)
check "unbound, the livepatch of $func loads" insmod "$LP" "func=$func" "clone=$clone"
for _ in $(seq 1 300); do
	[ "$(cat "$LPS/transition" 2>/dev/null)" = 0 ] && break
	sleep 0.1
done
expect_eq "the livepatch is enabled, its transition done" \
	"$(cat "$LPS/enabled" 2>/dev/null) $(cat "$LPS/transition" 2>/dev/null)" "1 0"
expect_write "the first bind is refused: EBUSY" "$SYS/bindings" "$D model=iocost_2x" EBUSY
expect_match "the log names the function and a livepatch" "$(test_dmesg)" \
	"cannot attach to ${func//./\\.}: -16 \(kernel\.ftrace_enabled is 0, or another ip-modifying ftrace user such as a livepatch owns it\)"
expect_eq "nothing is bound" "$(cat "$SYS/bindings")" ""
expect_eq "nothing of the module's is attached (the livepatch's entry alone)" \
	"$(grep -c -E '^(calc_vtime_cost_builtin|ioc_rqos_)' /sys/kernel/tracing/enabled_functions)" 1
check "the livepatch is disabled and removed" lp_disable
expect_write "with the livepatch gone, the bind works" "$SYS/bindings" "$D model=iocost_2x" OK
c0=$(binding_stat "$D" charges)
price lp19 "$D" --filename=/dev/vdb --rw=read --size=1m >/dev/null
check "and the model prices again (charges $c0 -> $(binding_stat "$D" charges))" \
	test "$(binding_stat "$D" charges)" -ge $((c0 + 256))
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK

rmdir /sys/fs/cgroup/lp19 2>/dev/null
expect_unload
finish
