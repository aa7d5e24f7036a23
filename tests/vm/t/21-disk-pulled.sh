#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A bound virtio disk that fails, then is pulled, under running IO:
# through vmrun's monitor pump, QEMU drops the disk's backing drive
# (drive_del: every IO fails) and then unplugs the device (device_del),
# the path of a failing or pulled disk, not null_blk's orderly
# del_gendisk.  No splat (the runner), the IO errors reach fio, the
# binding is dropped with its log line and no longer counted, and nothing
# leaks (the module unloads).
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

W=$(mktemp -d)
V=$(pullable_disk 0) || { not_ok "vmrun's pullable disk iocost-pull0 is there (vmrun --pullable 1)"; finish; }
load_module
mkdir -p "$PINS"
check "iocost_2x registers" "$B/bin/iocost_2x"
D=$(iocost_enable "$V") || { not_ok "enable iocost on $V"; finish; }
expect_write "bind iocost_2x to the pullable disk $V ($D)" "$SYS/bindings" "$D model=iocost_2x" OK
expect_match "models counts the binding" "$(cat "$SYS/models")" "^iocost_2x bindings=1$"

# two readers in cgroup pull18 that keep IO in flight (libaio, depth 8):
# "stop" ends on its first error, "cont" carries on through errors until
# the disk is gone
mkdir -p /sys/fs/cgroup/pull18
reader() {	# NAME FIO-ARGS...
	local n=$1
	shift
	sh -c 'echo $$ >/sys/fs/cgroup/pull18/cgroup.procs; exec fio "$@"' sh \
		--name="$n" --filename="/dev/$V" --direct=1 --rw=randread --bs=4k --ioengine=libaio \
		--iodepth=8 --time_based --runtime=120 --output-format=json --output="$W/$n.json" "$@"
}
reader stop &
stop_pid=$!
reader cont --continue_on_error=all &
cont_pid=$!
# until the model has priced some of their IOs
for _ in $(seq 1 100); do
	[ "$(binding_stat "$D" charges)" -gt 64 ] 2>/dev/null && break
	sleep 0.1
done
check "the model prices the readers' IOs before the pull" test "$(binding_stat "$D" charges)" -gt 64

# the disk fails: QEMU drops its backing drive, every IO gets an error
out=$(vm_monitor drive_del pulldrive0)
expect_eq "QEMU's monitor took drive_del pulldrive0 (no error)" "$out" ""
wait_gone "$stop_pid"
rc=$?
check "the reader that stops on errors failed: the IO errors reached fio (exit status $rc)" test "$rc" -ne 0
err=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["error"])' "$W/stop.json" 2>/dev/null)
expect_eq "its job's error is EIO" "${err:-none}" 5
check "the other reader still runs, its IOs failing" kill -0 "$cont_pid"

# and is pulled, with that reader's IO in flight
out=$(vm_monitor device_del pull0)
expect_eq "QEMU's monitor took device_del pull0 (no error)" "$out" ""
for _ in $(seq 1 300); do
	[ -e "/sys/block/$V" ] || break
	sleep 0.1
done
check_fails "the guest removed $V" test -e "/sys/block/$V"
# it goes on until killed (its reads of a gone disk fail too; fio wants a
# second signal to give up on a job that carries on through errors), and
# dies: a task whose IO hung on the pulled disk would not, even SIGKILLed
kill -KILL "$cont_pid"
wait_gone "$cont_pid"
rc=$?
check "the reader carrying on through errors dies on SIGKILL: no IO of it hung (exit status $rc; 124: still there after 30 s)" \
	test "$rc" -ne 124

expect_eq "the binding is gone" "$(grep -c "^$D " "$SYS/bindings")" 0
expect_match "models counts no binding" "$(cat "$SYS/models")" "^iocost_2x bindings=0$"
expect_match "the log says the pulled disk's binding was dropped" "$(test_dmesg)" \
	"$D went away: dropping its binding to iocost_2x"
expect_write "binding the pulled disk is ENODEV" "$SYS/bindings" "$D model=iocost_2x" ENODEV

rmdir /sys/fs/cgroup/pull18 2>/dev/null
echo "$D enable=0" >/sys/fs/cgroup/io.cost.qos 2>/dev/null
rm -rf "$W"
expect_unload
finish
