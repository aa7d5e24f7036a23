#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel.ftrace_enabled cannot silently switch pricing off.
# Defect covered: the hook's ftrace ops were not FTRACE_OPS_FL_PERMANENT,
# so with kernel.ftrace_enabled=0 a bind "succeeded" while nothing was
# hooked, and setting ftrace_enabled=0 while a disk was bound silently
# stopped the model from pricing it.  Expected, as for livepatch: binding
# with ftrace_enabled=0 fails with EBUSY and a log line naming
# ftrace_enabled; while anything is bound, ftrace_enabled=0 is refused
# with EBUSY.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

FE=/proc/sys/kernel/ftrace_enabled
trap 'echo 1 >$FE' EXIT	# whatever happens, leave ftrace on
load_module
mkdir -p "$PINS"
check "iocost_2x registers" "$B/bin/iocost_2x"
D=$(iocost_enable vdb) || { not_ok "enable iocost on vdb"; finish; }
mkdir -p /sys/fs/cgroup/ft13
# io N: N 4 KiB direct reads of vdb from a cgroup (the root cgroup is not metered)
off=0
io() {
	sh -c 'echo $$ >/sys/fs/cgroup/ft13/cgroup.procs; exec dd if=/dev/vdb of=/dev/null bs=4k iflag=direct "$@"' \
		sh count="$1" skip="$off" 2>/dev/null
	off=$((off + $1))
}
charges() { c=$(binding_stat "$D" charges); echo "${c:-0}"; }

# Kernels that cannot turn ftrace off at all (7.x: EOPNOTSUPP, nothing
# bound) cannot have the defect: check that it stays so while bound
if [ "$("$WR" "$FE" 0)" = EOPNOTSUPP ]; then
	echo "# $KREL refuses kernel.ftrace_enabled=0 by itself (EOPNOTSUPP)"
	expect_eq "ftrace_enabled stays 1" "$(cat $FE)" 1
	expect_write "bind iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
	expect_write "ftrace_enabled=0 while bound: refused by the kernel" "$FE" 0 EOPNOTSUPP
	c0=$(charges)
	io 256
	expect_eq "the bound disk's IOs are charged by the model (charges grew by 256)" \
		"$(( $(charges) - c0 ))" 256
	expect_write "unbind" "$SYS/bindings" "$D model=linear" OK
	rmdir /sys/fs/cgroup/ft13 2>/dev/null
	finish
fi

# ---- order A: ftrace off, then bind ----
check "sysctl -w kernel.ftrace_enabled=0 (nothing bound)" sysctl -q -w kernel.ftrace_enabled=0
expect_eq "ftrace_enabled is 0" "$(cat $FE)" 0
expect_write "binding with ftrace_enabled=0 is refused" "$SYS/bindings" "$D model=iocost_2x" EBUSY
expect_match "the log says why (ftrace_enabled)" "$(test_dmesg)" "ftrace_enabled"
expect_eq "bindings readback is empty" "$(cat "$SYS/bindings")" ""
expect_eq "stats is empty" "$(cat "$SYS/stats")" ""
expect_match "models counts no binding" "$(cat "$SYS/models")" "^iocost_2x bindings=0$"
check "sysctl -w kernel.ftrace_enabled=1" sysctl -q -w kernel.ftrace_enabled=1
expect_write "with ftrace back on, the bind works" "$SYS/bindings" "$D model=iocost_2x" OK
c0=$(charges)
io 256
expect_eq "and the model prices every IO (charges grew by 256)" "$(( $(charges) - c0 ))" 256
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK

# ---- order B: bind, then ftrace off ----
expect_write "bind iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
check_fails "sysctl -w kernel.ftrace_enabled=0 fails while a disk is bound" \
	sysctl -q -w kernel.ftrace_enabled=0
expect_write "writing 0 to ftrace_enabled while bound" "$FE" 0 EBUSY
expect_eq "ftrace_enabled stays 1" "$(cat $FE)" 1
echo 1 >$FE	# (for today's code: so that the rest of the test can run)
expect_eq "the binding is still there" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=enforce"
c0=$(charges)
"$WR" "$FE" 0 >/dev/null	# another try, as a user would
io 256
expect_eq "the bound disk's IOs are still charged by the model (charges grew by 256)" \
	"$(( $(charges) - c0 ))" 256
echo 1 >$FE
expect_write "unbind (model=linear)" "$SYS/bindings" "$D model=linear" OK
expect_write "with nothing bound, ftrace_enabled=0 is accepted" "$FE" 0 OK
expect_eq "ftrace_enabled is 0" "$(cat $FE)" 0
expect_write "and 1 again" "$FE" 1 OK
expect_eq "ftrace_enabled is 1" "$(cat $FE)" 1

rmdir /sys/fs/cgroup/ft13 2>/dev/null
expect_unload
finish
