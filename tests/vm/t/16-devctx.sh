#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Models that price the disk they are bound to, and shadow mode.
#  - the device-context kfuncs answer the disk's dev_t and its live
#    io.cost.model, the builtin's coefficients and the vrate inside
#    calc_cost, and 0 / ENOENT outside it, a timer callback on top of a
#    model included; programs of other types may not call them;
#  - for three coefficient sets (HDD autop, an SSD-like user model, 10x its
#    rates) iocost_2x charges 2.000x the builtin per 4 KiB read (io.stat,
#    vrate pinned at 100%); a change of io.cost.model while bound reaches
#    the very next IO;
#  - mode=shadow charges the builtin's price while the stats show what
#    enforcing would charge, the builtin's sum and a histogram;
#  - one cgroup reading two bound disks keeps a cursor (iocost_2x) and
#    streams (iocost_ms) per disk.
# The context's cost on PREEMPT_RT (docs/RELIABILITY.md row 15: a list
# walked with interrupts off on the old code) is a latency: no assertion
# here can fail on it, since a TCG guest's timing bounds no irqs-off
# section; this test checks that the lock-free context answers the same.
# vm-run: long (queued first when two guests share the suite: tests/vm/run)
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

load_module
mkdir -p "$PINS"
D=$(iocost_enable vda) || { not_ok "enable iocost on vda"; finish; }
D2=$(iocost_enable vdb) || { not_ok "enable iocost on vdb"; finish; }
# vrate scales how fast vtime passes, not prices: pin it so that io.stat's
# cost.usage is the charged device time
check "vrate pinned at 100.00% on vda" pin_vrate "$D"
check "vrate pinned at 100.00% on vdb" pin_vrate "$D2"
check "iocost_2x registers" "$B/bin/iocost_2x"
check "iocost_ms registers" "$B/bin/iocost_ms"
check "test_devprobe registers" "$CTL" load "$B/tests/devprobe.bpf.o"

# set_model DEVT hdd|ssd|ssd10: autop's HDD profile, or a user model
set_model() {
	case "$2" in
	hdd) echo "$1 ctrl=auto" ;;
	ssd) echo "$1 ctrl=user model=linear $SSD_MODEL" ;;
	ssd10) echo "$1 ctrl=user model=linear $SSD10_MODEL" ;;
	esac >/sys/fs/cgroup/io.cost.model
}
# kv TEXT KEY: the value of KEY=VALUE in TEXT
kv() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
# lcoefs MODEL r|w: "page seqio randio" as blk-iocost derives them
lcoefs() {
	awk -v bps="$(kv "$1" "${2}bps")" -v sq="$(kv "$1" "${2}seqiops")" \
	    -v rn="$(kv "$1" "${2}randiops")" '
	function up(a, b) { return int((a + b - 1) / b) }
	BEGIN {
		V = 2^37; pg = up(V, up(bps, 4096))
		s = up(V, sq); s = s > pg ? s - pg : 0
		r = up(V, rn); r = r > pg ? r - pg : 0
		printf "%d %d %d\n", pg, s, r
	}'
}
profile_model() { case "$1" in hdd) echo "$HDD_MODEL" ;; ssd) echo "$SSD_MODEL" ;; ssd10) echo "$SSD10_MODEL" ;; esac; }
# vt_us VTIME: vtime as microseconds of device time
vt_us() { awk -v v="$1" 'BEGIN { printf "%.3f", v / (2^37 / 1e6) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b ? a / b : 0 }'; }

# ---- the kfuncs -------------------------------------------------------------
set_model "$D2" ssd
expect_write "bind test_devprobe to vdb" "$SYS/bindings" "$D2 model=test_devprobe" OK
mkdir -p /sys/fs/cgroup/dc16
sh -c 'echo $$ >/sys/fs/cgroup/dc16/cgroup.procs; exec dd if=/dev/vdb of=/dev/null bs=4k count=4 iflag=direct status=none'
bss() {
	bpftool map dump name "$1.bss" -j 2>/dev/null | python3 -c '
import json, sys
v = {}
for d in json.load(sys.stdin)[0]["formatted"]["value"][".bss"]:
    v.update(d)
print(" ".join(str(v[k]) for k in sys.argv[1:]))' "${@:2}"
}
maj=${D2%:*} min=${D2#*:}
read -r calls failed dev vrate <<<"$(bss devprobe calls failed_params dev vrate_ppm)"
check "calc_cost ran ($calls calls)" test "${calls:-0}" -ge 4
expect_eq "bpf_iocost_dev_params() never fails in calc_cost" "$failed" 0
expect_eq "bpf_iocost_dev() is vdb's dev_t (MAJ << 20 | MIN)" "$dev" "$((maj << 20 | min))"
expect_eq "vrate_ppm is the pinned 100%" "$vrate" 1000000
expect_eq "rbps rseqiops rrandiops wbps wseqiops wrandiops are vdb's io.cost.model" \
	"$(bss devprobe rbps rseqiops rrandiops wbps wseqiops wrandiops)" \
	"$(for k in rbps rseqiops rrandiops wbps wseqiops wrandiops; do kv "$SSD_MODEL" $k; done | xargs)"
expect_eq "rpage rseqio rrandio wpage wseqio wrandio are the builtin's coefficients" \
	"$(bss devprobe rpage rseqio rrandio wpage wseqio wrandio)" \
	"$(echo $(lcoefs "$SSD_MODEL" r) $(lcoefs "$SSD_MODEL" w))"
mkdir /sys/fs/cgroup/dc16/child
read -r oc odev oenoent <<<"$(bss devprobe online_calls online_dev online_params_enoent)"
check "blkcg_online ran for the new cgroup" test "${oc:-0}" -ge 1
expect_eq "outside calc_cost bpf_iocost_dev() is 0" "$odev" 0
expect_eq "outside calc_cost bpf_iocost_dev_params() fails with ENOENT and zeroes the buffer, every time" "$oenoent" "$oc"
rmdir /sys/fs/cgroup/dc16/child
expect_write "unbind vdb" "$SYS/bindings" "$D2 model=linear" OK
out=$(bpftool prog load "$B/tests/kfunc_other.bpf.o" /sys/fs/bpf/dc16_other 2>&1)
rc=$?
check_fails "a syscall program may not call bpf_iocost_dev()" [ "$rc" = 0 ]
expect_match "the verifier says why" "$out" "calling kernel function bpf_iocost_dev is not allowed"
rm -f /sys/fs/bpf/dc16_other

# A model's timer callback runs in a softirq, on top of the model when the
# timer fires while it prices (its CPU's interrupt exit; on PREEMPT_RT the
# timer thread preempts it): it must not see the model's disk, and the
# kfuncs hand it no pointer to anything on the model's stack.  Defect
# covered: the kfuncs answered whatever context their CPU had pushed last.
if rt_kernel; then
	out=$("$CTL" load "$B/tests/devtimer.bpf.o" 2>&1)
	rc=$?
	check_fails "PREEMPT_RT: test_devtimer is refused" [ "$rc" = 0 ]
	expect_match "the verifier says bpf_timer cannot be used on PREEMPT_RT" "$out" \
		"bpf_timer cannot be used for PREEMPT_RT"
else
	check "test_devtimer registers" "$CTL" load "$B/tests/devtimer.bpf.o"
	expect_write "bind test_devtimer to vdb" "$SYS/bindings" "$D2 model=test_devtimer" OK
	sh -c 'echo $$ >/sys/fs/cgroup/dc16/cgroup.procs; exec dd if=/dev/vdb of=/dev/null bs=4k count=1 iflag=direct status=none'
	read -r armed arm fired spins mdev mcpu <<<"$(bss devtimer armed arm_ret fired spins model_dev model_cpu)"
	read -r during ccpu cdev cret <<<"$(bss devtimer cb_while_spinning cb_cpu cb_dev cb_params_ret)"
	expect_eq "calc_cost armed a timer on its CPU (bpf_timer_init, set_callback, start: 0)" "$armed $arm" "1 0"
	expect_eq "the callback ran while calc_cost spun ($spins loops), on its CPU" \
		"$fired $during $ccpu" "1 1 $mcpu"
	expect_eq "calc_cost saw vdb" "$mdev" "$((maj << 20 | min))"
	expect_eq "in the callback bpf_iocost_dev() is 0" "$cdev" 0
	expect_eq "in the callback bpf_iocost_dev_params() fails with ENOENT" "$cret" -2
	expect_write "unbind vdb" "$SYS/bindings" "$D2 model=linear" OK
fi
rm -f /sys/fs/bpf/devtimer_timers

# ---- 2.000x on three coefficient sets; shadow mode --------------------------
# per set: IOs of a sequential 4 KiB read, enough that io.stat's
# microsecond rounding stays far below 0.5%
declare -A NIOS=([hdd]=512 [ssd]=4096 [ssd10]=8192)
declare -A BASE
off=0
for p in hdd ssd ssd10; do
	set_model "$D" "$p"
	n=${NIOS[$p]}
	io=(--filename=/dev/vda --rw=read --size=$((n * 4))k --offset=${off}m)
	off=$((off + 64))
	read -r b_us b_ios _ <<<"$(price "b_$p" "$D" "${io[@]}")"
	BASE[$p]=$b_us
	read -r pg sq _ <<<"$(lcoefs "$(profile_model "$p")" r)"
	expect_ratio "$p: the builtin charges page + seqio per sequential read ($b_us us)" \
		"$b_us" "$(vt_us $((pg + sq)))" 0.995 1.005
	expect_write "$p: bind iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
	read -r x_us x_ios _ <<<"$(price "x_$p" "$D" "${io[@]}")"
	echo "# $p: builtin $b_us us/IO, iocost_2x $x_us us/IO ($(ratio "$x_us" "$b_us")x) over $x_ios IOs"
	expect_eq "$p: same IO count" "$x_ios" "$b_ios"
	expect_ratio "$p: iocost_2x charges 2.000x the builtin" "$x_us" "$b_us" 1.990 2.010
	expect_write "$p: bind iocost_2x in shadow mode" "$SYS/bindings" "$D model=iocost_2x mode=shadow" OK
	expect_eq "$p: readback shows the mode" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=shadow"
	read -r s_us s_ios s_usage <<<"$(price "s_$p" "$D" "${io[@]}")"
	st=$(grep "^$D " "$SYS/stats")
	echo "# $p shadow: $s_us us/IO charged; stats: $st"
	expect_ratio "$p shadow: io.stat charges the builtin's price" "$s_us" "$b_us" 0.995 1.005
	expect_eq "$p shadow: the model priced every IO" "$(kv "$st" charges)" "$s_ios"
	expect_ratio "$p shadow: the builtin's sum in stats is what io.stat charged" \
		"$(vt_us "$(kv "$st" builtin)")" "$s_usage" 0.995 1.005
	expect_ratio "$p shadow: the model's sum in stats is what enforcing charged" \
		"$(vt_us "$(kv "$st" vtime)")" "$(awk -v u="$x_us" -v n="$s_ios" 'BEGIN { print u * n }')" 0.995 1.005
	expect_eq "$p shadow: model = 2 x builtin, exactly" "$(kv "$st" vtime)" "$(( $(kv "$st" builtin) * 2 ))"
	expect_eq "$p shadow: every IO in the 2-4 bucket" "$(kv "$st" hist)" "0,0,0,0,0,0,$s_ios,0"
	expect_write "$p: unbind" "$SYS/bindings" "$D model=linear" OK
done
check "the SSD profile's 4 KiB read is cheaper than the HDD's" \
	awk -v s="${BASE[ssd]}" -v h="${BASE[hdd]}" 'BEGIN { exit !(s * 2 < h) }'

# ---- the same through the struct_ops trampoline (direct_call=0) -------------
# The kfuncs find their context under the trampoline too (on PREEMPT_RT
# through the run context the trampoline saved): iocost_2x registered with
# direct_call=0 prices the SSD profile at 2x its builtin price, where a lost
# context would price it with the HDD fallback.
DC=/sys/module/iocost_bpf/parameters/direct_call
expect_write "direct_call=N" "$DC" N OK
check "iocost_2x registers as twox_tr" "$CTL" load "$B/bpf/iocost_2x.bpf.o" --name twox_tr
expect_write "direct_call=Y" "$DC" Y OK
expect_match "twox_tr is called through its struct_ops trampoline" "$(test_dmesg)" \
	"model twox_tr registered \(called through its struct_ops trampoline"
set_model "$D" ssd
expect_write "ssd: bind twox_tr" "$SYS/bindings" "$D model=twox_tr" OK
read -r t_us _ <<<"$(price t_ssd "$D" --filename=/dev/vda --rw=read --size=$((NIOS[ssd] * 4))k --offset=${off}m)"
expect_ratio "ssd: twox_tr charges 2.000x the builtin through its trampoline ($t_us us/IO)" \
	"$t_us" "${BASE[ssd]}" 1.990 2.010
expect_write "ssd: unbind twox_tr" "$SYS/bindings" "$D model=linear" OK
rm -f "$PINS/twox_tr"

# ---- io.cost.model changed while bound: the next IO --------------------------
set_model "$D" hdd
expect_write "bind iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
mkdir -p /sys/fs/cgroup/sw16
one_io() {	# one 4 KiB direct read at block $1 from sw16; prints "charges vtime" deltas
	local c0 v0
	c0=$(binding_stat "$D" charges) v0=$(binding_stat "$D" vtime)
	sh -c 'echo $$ >/sys/fs/cgroup/sw16/cgroup.procs; exec dd if=/dev/vda of=/dev/null bs=4k count=1 skip="$1" iflag=direct status=none' sh "$1"
	echo "$(( $(binding_stat "$D" charges) - c0 )) $(( $(binding_stat "$D" vtime) - v0 ))"
}
blk=$((900 * 256))	# 900 MiB in, away from the reads above
for p in hdd ssd ssd10 hdd; do
	set_model "$D" "$p"
	read -r pg sq _ <<<"$(lcoefs "$(profile_model "$p")" r)"
	read -r c v <<<"$(one_io "$blk")"
	blk=$((blk + 1))
	expect_eq "$p: the first IO after the change costs 2 x (page + seqio) of $p" \
		"$c $v" "1 $((2 * (pg + sq)))"
done
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK

# ---- one cgroup, two bound disks ---------------------------------------------
# price2 CG FIO-ARGS...: fio in CG; "us_per_op ios" on vda and on vdb
price2() {
	local cg=$1 a1 a2 b1 b2 prev
	shift
	mkdir -p "/sys/fs/cgroup/$cg"
	a1=$(cg_io_stat "$cg" "$D") a2=$(cg_io_stat "$cg" "$D2")
	sh -c 'echo $$ > "/sys/fs/cgroup/$1/cgroup.procs"; shift; exec fio --output=/dev/null "$@"' \
		sh "$cg" --direct=1 --ioengine=psync --bs=4k "$@" || return 1
	prev=
	for _ in $(seq 1 20); do
		sleep 1.1
		b1=$(cg_io_stat "$cg" "$D") b2=$(cg_io_stat "$cg" "$D2")
		[ "$b1 $b2" = "$prev" ] && break
		prev="$b1 $b2"
	done
	awk -v a="$a1 $a2" -v b="$b1 $b2" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= 3; i += 2) {
			ios = y[i] - x[i]; us = y[i + 1] - x[i + 1]
			printf "%.3f %d ", ios ? us / ios : 0, ios
		}
		print ""
	}'
}
set_model "$D" hdd
set_model "$D2" hdd
read -r pg sq rn <<<"$(lcoefs "$HDD_MODEL" r)"
seq_us=$(vt_us $((pg + sq))) rand_us=$(vt_us $((pg + rn)))
two=(--rw=read --size=2m --name=a --filename=/dev/vda --offset=0 --name=b --filename=/dev/vdb --offset=512m)
expect_write "vda: iocost_2x" "$SYS/bindings" "$D model=iocost_2x" OK
expect_write "vdb: iocost_2x" "$SYS/bindings" "$D2 model=iocost_2x" OK
read -r u1 n1 u2 n2 <<<"$(price2 two2x "${two[@]}")"
echo "# iocost_2x, one cgroup reading vda at 0 and vdb at 512 MiB: $u1 us/IO ($n1), $u2 us/IO ($n2); sequential 2x: $(awk -v s="$seq_us" 'BEGIN { print 2 * s }')"
expect_ratio "iocost_2x: vda's reader priced sequential (a cursor per disk)" "$u1" "$(awk -v s="$seq_us" 'BEGIN { print 2 * s }')" 0.99 1.01
expect_ratio "iocost_2x: vdb's reader priced sequential (a cursor per disk)" "$u2" "$(awk -v s="$seq_us" 'BEGIN { print 2 * s }')" 0.99 1.01
expect_write "vda: iocost_ms" "$SYS/bindings" "$D model=iocost_ms" OK
expect_write "vdb: iocost_ms" "$SYS/bindings" "$D2 model=iocost_ms" OK
# ms_expect STREAMS IOS: us per IO when each stream's first IO is random
ms_expect() { awk -v k="$1" -v n="$2" -v s="$seq_us" -v r="$rand_us" 'BEGIN { printf "%.3f", ((n - k) * s + k * r) / n }'; }
# ms_seq WHAT K U1 N1 U2 N2: each disk's K streams (us/IO U, N IOs) priced
# sequential after their first IOs, with at most one more IO misjudged
ms_seq() {
	local what=$1 k=$2 d u n lo hi
	shift 2
	for d in 1 2; do
		u=$1 n=$2
		shift 2
		lo=$(awk -v e="$(ms_expect "$k" "$n")" 'BEGIN { print e * 0.98 }')
		hi=$(awk -v e="$(ms_expect $((k + 1)) "$n")" 'BEGIN { print e * 1.02 }')
		check "iocost_ms: disk $d's $what priced sequential, at most one IO misjudged ($u us/IO in [$lo, $hi])" \
			awk -v u="$u" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(u >= lo && u <= hi) }'
	done
}
read -r u1 n1 u2 n2 <<<"$(price2 twoms "${two[@]}")"
echo "# iocost_ms, two readers: $u1 us/IO ($n1), $u2 us/IO ($n2); expected $(ms_expect 1 "$n1")"
# The cgroup is new: both readers' first IOs ask for its streams at once.
# bpf_cgrp_storage_get() returns NULL to all but one of them (the loser
# of the creation's cmpxchg, or, on PREEMPT_RT where models run
# preemptible, a task that finds the CPU's storage lock held by one it
# preempted), and iocost_ms then prices that IO random without recording
# its stream: the reader's second IO is random too (one reader at 34.439
# us/IO against 29.208, in most -rt runs and some on the default kernel).
ms_seq reader 1 "$u1" "$n1" "$u2" "$n2"
# three streams on each disk: six in one cgroup, more than the four slots
# one set of streams has, so only per-disk streams keep them all
six=(--rw=read --size=1m --offset_increment=128m --numjobs=3
     --name=a --filename=/dev/vda --offset=0 --name=b --filename=/dev/vdb --offset=64m)
read -r u1 n1 u2 n2 <<<"$(price2 sixms "${six[@]}")"
echo "# iocost_ms, three streams per disk: $u1 us/IO ($n1), $u2 us/IO ($n2); expected $(ms_expect 3 "$n1")"
# the three readers of a disk race on the cgroup's lockless slots (as
# submitters race on the builtin's cursor): one IO of theirs may be
# misjudged random, seen on PREEMPT_RT where models run preemptible
ms_seq "three streams" 3 "$u1" "$n1" "$u2" "$n2"
for d in "$D" "$D2"; do
	expect_write "unbind $d" "$SYS/bindings" "$d model=linear" OK
done
expect_eq "vrate stayed pinned on vda and vdb" "$(vrate_of "$D") $(vrate_of "$D2")" "100.00 100.00"
for d in "$D" "$D2"; do
	echo "$d ctrl=auto" >/sys/fs/cgroup/io.cost.model
	echo "$d ctrl=auto" >/sys/fs/cgroup/io.cost.qos
done
rm -f "${PINS:?}/test_devprobe"
expect_unload
finish
