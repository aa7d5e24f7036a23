#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernels hooked through the IPA-SRA clone (src/clone.c), two races a
# real host only reaches by chance, reached on purpose through the test
# build's hooks (src/testhooks.h):
#
# 1. Stale stashes and a migrating task.  A caller that returns without
#    calling the clone (a root-cgroup bio: blk-iocost does not price the
#    root) leaves its stash behind.  A task that moves to another CPU
#    between its caller's entry and the clone's call finds that stale
#    stash on its new CPU first; taken by task alone it priced the bio by
#    the builtin (an args fallback) and orphaned the fresh one, and while
#    learning a stale stash could narrow the mapping wrongly.  One process
#    alternates root-cgroup reads on CPU 0 and a child cgroup's reads on
#    CPU 1; clone_fault=128 puts every stash on the next CPU's ring, as if
#    the task had moved right after its caller's entry.  Every read of the
#    child must be learned or priced: zero fallbacks, the right mapping.
# 2. A bind racing the clone-failure unbind-all (a structural mismatch
#    while learning, clone_fault=64): the bind read the refusal outside
#    iocost_lock, so one that had checked before the failure added its
#    binding after the unbind-all, and the log said every disk was back.
#    bind_delay_ms holds the bind between its start and the lock while the
#    mismatch happens: it must be refused, and nothing left bound.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

IOCOST_NO_WARMUP=1 load_module
clone_kernel || no_clone_finish
check "the module unloads" wait_unload
[ "$(nproc)" -ge 2 ] || { not_ok "needs 2 CPUs, has $(nproc)"; finish; }

P=/sys/module/iocost_bpf/parameters
hook() { cat "$SYS/hook"; }
fallbacks() {
	grep "^$1 " "$SYS/stats" | grep -o ' fallback_[a-z]*=[0-9]*\| learning=[0-9]*' | tr -d '\n'
}

# ---- 1. stale stashes, a migrating task ----
IOCOST_NO_WARMUP=1 load_module clone_fault=128
mkdir -p "$PINS" /sys/fs/cgroup/c20
D=$(iocost_enable vda) || { not_ok "enable iocost on vda"; finish; }
check "iocost_2x registers" "$B/bin/iocost_2x"
expect_write "bind iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
python3 - /sys/fs/cgroup/c20 <<'EOF'
import mmap, os, sys
child = sys.argv[1]
fd = os.open("/dev/vda", os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
for i in range(128):
    os.sched_setaffinity(0, {0})
    with open("/sys/fs/cgroup/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    os.preadv(fd, [buf], (1 << 30) + i * 4096)     # root: a stale stash
    with open(child + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    os.sched_setaffinity(0, {1})                   # the task moves
    os.preadv(fd, [buf], i * 8 * 4096)             # the child's read
with open("/sys/fs/cgroup/cgroup.procs", "w") as f:
    f.write(str(os.getpid()))
EOF
expect_eq "python's 256 reads done" "$?" 0
echo 0 >"$P/clone_fault"
expect_eq "the child's 128 reads: 64 learned, no fallback" "$(fallbacks "$D")" \
	" fallback_kind=0 fallback_caller=0 fallback_costp=0 fallback_args=0 fallback_blkg=0 learning=64"
expect_eq "the other 64 priced by the model" "$(binding_stat "$D" charges)" 64
expect_match "the mapping is GCC's (tests/vm/clone-abi)" "$(hook)" \
	'^mapping opf=rdi nbytes=rdx sector=rsi \(learned\)$'
expect_match "no fallback, none unattributed" "$(hook)" \
	'^fallbacks since load kind=0 caller=0 costp=0 args=0 blkg=0 unattributed=0$'
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK
rm -f "$PINS/iocost_2x"
check "iocost_2x unregistered" wait_unregistered iocost_2x
check "the module unloads" wait_unload

# ---- 2. a bind racing the clone-failure unbind-all ----
IOCOST_NO_WARMUP=1 load_module clone_fault=64
E=$(iocost_enable vdb) || { not_ok "enable iocost on vdb"; finish; }
check "iocost_2x registers" "$B/bin/iocost_2x"
expect_write "bind vdb" "$SYS/bindings" "$E model=iocost_2x" OK
echo 3000 >"$P/bind_delay_ms"
"$WR" "$SYS/bindings" "$D model=iocost_2x" >/tmp/c20.bind &
bind=$!
sleep 0.5
sh -c 'echo $$ >/sys/fs/cgroup/c20/cgroup.procs; exec dd if=/dev/vdb of=/dev/null bs=4k count=16 iflag=direct status=none'
for _ in $(seq 1 20); do
	grep -q '^state disabled' "$SYS/hook" && break
	sleep 0.1
done
expect_match "the mismatch disabled the clone hook while the bind waited" "$(hook)" '^state disabled: '
check "the bind was still waiting" kill -0 "$bind"
wait "$bind"
echo 0 >"$P/bind_delay_ms"
expect_eq "the racing bind is refused" "$(cat /tmp/c20.bind)" EOPNOTSUPP
sleep 0.5
expect_eq "nothing is bound after the log said every disk is back" "$(cat "$SYS/bindings")" ""
expect_match "the refusal is logged" "$(test_dmesg)" \
	"$D not bound: pricing through calc_vtime_cost_builtin\.isra\.[0-9]+ was disabled"
rm -f "$PINS/iocost_2x" /tmp/c20.bind
check "iocost_2x unregistered" wait_unregistered iocost_2x
check "the module unloads" wait_unload
rmdir /sys/fs/cgroup/c20
finish
