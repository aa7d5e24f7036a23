#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The iocost_ioc_tick trace event: attached only while enabled, one tick
# per controller period under a steady fio load (consecutive period
# numbers, period_us as the device's QoS gives it, elapsed_us the measured
# period, usage_pct of elapsed_us that adds up to what io.stat charged),
# one final tick before the controller idles, two disks traced at once
# (each its own ticks), the event stops when disabled, and an enabled
# event holds the module.
# vm-run: alone (its periods and tick intervals are wall time: tests/vm/run)
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

TR=/sys/kernel/tracing
EV=events/iocost_bpf/iocost_ioc_tick
load_module
check "the event is in tracefs under the module's system" test -f "$TR/$EV/format"
expect_match "its print format is the ABI's" "$(cat "$TR/$EV/format")" \
	'print fmt: "\[%s\] period=%llu:%uus vrate=%llu busy=%d active=%u usage=%u%% running=%d"'
expect_eq "nothing hooks ioc_timer_fn while the event is disabled" \
	"$(grep -c '^ioc_timer_fn' "$TR/enabled_functions")" 0

D=$(iocost_enable vda) || { not_ok "enable iocost on vda"; finish; }
# a private tracefs instance with the tick and blk-iocost's own idle event
I=$TR/instances/t06
mkdir "$I" || { not_ok "create a tracefs instance"; finish; }
trap 'echo 0 >"$I/events/enable" 2>/dev/null; rmdir "$I" 2>/dev/null' EXIT
echo 1 >"$I/$EV/enable"
echo 1 >"$I/events/iocost/iocost_iocg_idle/enable"
expect_eq "enabling the event attaches one handler to ioc_timer_fn" \
	"$(grep -c '^ioc_timer_fn' "$TR/enabled_functions")" 1
out=$(rmmod iocost_bpf 2>&1)
expect_match "rmmod is refused while the event is enabled" "$out" "in use"

# expected period from io.cost.qos, as ioc_refresh_period_us() derives it:
# the higher latency target times max((100 - pct) / 5, 2), within [1ms, 1s]
qos_period() {
	awk -v d="$1" '$1 == d {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); q[kv[1]] = kv[2] }
		if (q["rlat"] >= q["wlat"]) { lat = q["rlat"]; pct = q["rpct"] }
		else { lat = q["wlat"]; pct = q["wpct"] }
		ppm = int(pct * 10000 + 0.5)
		multi = ppm ? int((1000000 - ppm) / 50000) : 2
		if (multi < 2) multi = 2
		p = multi * lat
		if (p < 1000) p = 1000
		if (p > 1000000) p = 1000000
		print p
	}' /sys/fs/cgroup/io.cost.qos
}

# ticks FILE: "timestamp period period_us vrate busy active usage running"
# of vda's ticks in a trace dump
ticks() {
	sed -nE 's/^.* ([0-9]+\.[0-9]+): iocost_ioc_tick: \[vda\] period=([0-9]+):([0-9]+)us vrate=([0-9]+) busy=(-?[0-9]+) active=([0-9]+) usage=([0-9]+)% running=([0-9]+)$/\1 \2 \3 \4 \5 \6 \7 \8/p' "$1"
}

# steady_load SECS QOS: set the QoS, run a sequential reader for SECS
# seconds in cgroup t06, wait for the controller to go idle; checks the
# ticks of the run
steady_load() {
	local secs=$1 want trace a b idle_after
	echo "$D enable=1 $2" >/sys/fs/cgroup/io.cost.qos
	want=$(qos_period "$D")
	echo "# qos: $(grep "^$D " /sys/fs/cgroup/io.cost.qos); expected period ${want}us"
	echo >"$I/trace"
	# the record's elapsed_us (not in the text line): a histogram keyed
	# by period number, one tick each
	echo "$HIST" >"$I/$EV/trigger" || not_ok "add the hist trigger ($HIST)"
	mkdir -p /sys/fs/cgroup/t06
	a=$(cg_io_stat t06 "$D")
	sh -c 'echo $$ >/sys/fs/cgroup/t06/cgroup.procs; exec fio --output=/dev/null --name=s --filename=/dev/vda --direct=1 --rw=read --bs=4k --ioengine=psync --time_based --runtime="$1"' sh "$secs"
	# idle: no new tick for three periods
	for _ in $(seq 1 30); do
		sleep "$(awk -v p="$want" 'BEGIN { printf "%.2f", 3 * p / 1e6 }')"
		b=$(grep -c iocost_ioc_tick "$I/trace")
		[ "$b" = "${prev:-}" ] && break
		local prev=$b
	done
	b=$(cg_io_stat t06 "$D")
	trace=$(mktemp)
	cat "$I/trace" >"$trace"
	ticks "$trace" >"$trace.ticks"
	# "period hitcount elapsed_us usage_pct" of vda's ticks
	sed -nE 's/^\{ period: +([0-9]+) \} hitcount: +([0-9]+) +elapsed_us: +([0-9]+) +usage_pct: +([0-9]+)$/\1 \2 \3 \4/p' \
		"$I/$EV/hist" | sort -n >"$trace.hist"
	echo "!$HIST" >"$I/$EV/trigger"
	echo "# $(wc -l <"$trace.ticks") ticks; first and last (time period period_us vrate busy active usage running):"
	sed -n '1p;$p' "$trace.ticks" | sed 's/^/#   /'
	echo "# elapsed_us of the first and last (period hitcount elapsed_us usage_pct):"
	sed -n '1p;$p' "$trace.hist" | sed 's/^/#   /'

	check "more than $secs seconds' worth of ticks" \
		test "$(wc -l <"$trace.ticks")" -ge "$(awk -v s="$secs" -v p="$want" 'BEGIN { print int(s * 1e6 / p) }')"
	expect_eq "period numbers are consecutive" \
		"$(awk 'NR > 1 && $2 != prev + 1 { bad++ } { prev = $2 } END { print bad + 0 }' "$trace.ticks")" 0
	expect_eq "every tick has period_us $want, as the QoS gives" \
		"$(awk '{ print $3 }' "$trace.ticks" | sort -u)" "$want"
	expect_eq "the record of every tick of the text trace, once (hist by period)" \
		"$(awk '{ print $1, $2 }' "$trace.hist" | tr '\n' ' ')" \
		"$(awk '{ print $2, 1 }' "$trace.ticks" | tr '\n' ' ')"
	# elapsed_us: the period's measured length.  The controller's timer
	# is armed in jiffies from the period's start: it fires at most a
	# jiffy early, and late by about as much, more under TCG's stalls:
	# none shorter than period_us - 1 jiffy, the median in [1, 1.05] x
	# period_us
	expect_eq "no period is shorter than period_us - 1 jiffy ($JIFFY_US us)" \
		"$(awk -v p="$want" -v j="$JIFFY_US" '$3 < p - j' "$trace.hist" | wc -l)" 0
	expect_ratio "median elapsed_us against period_us" \
		"$(awk '{ print $3 }' "$trace.hist" | sort -n |
		   awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" "$want" 1.0 1.05
	# and it is the time since the previous tick: each timer run starts
	# the next period at its own end, microseconds after its tick
	expect_ratio "median time between ticks against the median elapsed_us (the record's)" \
		"$(awk 'NR > 1 { print ($1 - prev) * 1e6 } { prev = $1 }' "$trace.ticks" | sort -n |
		   awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
		"$(awk 'NR > 1 { print $3 }' "$trace.hist" | sort -n |
		   awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" 0.99 1.01
	# vrate stays within the QoS min/max (percent of VTIME_PER_USEC)
	read -r lo hi <<<"$(awk -v d="$D" '$1 == d {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); q[kv[1]] = kv[2] }
		printf "%d %d\n", q["min"] / 100 * 137438 - 1, q["max"] / 100 * 137438 + 1
	}' /sys/fs/cgroup/io.cost.qos)"
	expect_eq "vrate is within the QoS bounds [$lo, $hi]" \
		"$(awk -v lo="$lo" -v hi="$hi" '$4 < lo || $4 > hi' "$trace.ticks" | wc -l)" 0
	expect_eq "running is 1 in every tick" "$(awk '{ print $8 }' "$trace.ticks" | sort -u)" 1
	expect_eq "usage is within 0-100% with one reader" "$(awk '$7 > 100' "$trace.ticks" | wc -l)" 0
	check "the load shows as usage > 0" test "$(awk '$7 > 0' "$trace.ticks" | wc -l)" -gt 0
	expect_eq "one iocg active while loaded" "$(awk '$7 > 0 { print $6 }' "$trace.ticks" | sort -u)" 1
	# what the ticks say the periods charged, against io.stat's cost.usage:
	# usage_pct is floor(usage_us x 100 / elapsed_us) (docs/USAGE.md), so each
	# period's usage_us is in [pct, pct + 1) x elapsed_us / 100, and
	# io.stat adds that same usage_us (floored at the same vrate) when the
	# same timer run flushes the period
	used=$(awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); print y[2] - x[2] }')
	read -r lo hi <<<"$(awk '{ lo += $4 * $3 / 100; hi += ($4 + 1) * $3 / 100 }
		END { printf "%d %d\n", lo - NR, hi + NR }' "$trace.hist")"
	if [ "$used" -ge "$lo" ] && [ "$used" -le "$hi" ]; then
		ok "io.stat's cost.usage, $used us, is within what usage_pct x elapsed_us allows, [$lo, $hi]"
	else
		not_ok "io.stat's cost.usage, $used us, is outside what usage_pct x elapsed_us allows, [$lo, $hi]"
	fi
	# the last tick and the iocg_idle of the same timer run end the trace
	expect_match "the trace ends with a final tick, then blk-iocost's iocg_idle" \
		"$(grep -E 'iocost_ioc_tick|iocost_iocg_idle' "$trace" | tail -2 | sed 's/^.*: iocost_/iocost_/' | cut -d' ' -f1 | tr '\n' ' ')" \
		'^iocost_ioc_tick: iocost_iocg_idle: $'
	idle_after=$(grep -c iocost_ioc_tick "$I/trace")
	sleep "$(awk -v p="$want" 'BEGIN { printf "%.2f", 4 * p / 1e6 }')"
	expect_eq "no tick once the controller is idle" "$(grep -c iocost_ioc_tick "$I/trace")" "$idle_after"
	rm -f "$trace" "$trace.ticks" "$trace.hist"
}
HIST='hist:keys=period:vals=elapsed_us,usage_pct:sort=period if devname == "vda"'
# the kernel's jiffy, from its config (fetch-kernel's copy; Debian: HZ=250)
hz=$(sed -n 's/^CONFIG_HZ=//p' "$top/.cache/kernels/$KREL/root/boot/config-$KREL" 2>/dev/null)
JIFFY_US=$((1000000 / ${hz:-250}))


steady_load 5 ""
# a QoS with another period: rpct=wpct=0 and 100 ms targets give 200 ms
steady_load 3 "ctrl=user rpct=0 rlat=100000 wpct=0 wlat=100000"

# two disks traced at once: each device's ticks, under its own name and
# its own consecutive period numbers, while both are loaded
D2=$(iocost_enable vdb) || not_ok "enable iocost on vdb"
echo "$D enable=1 ctrl=auto" >/sys/fs/cgroup/io.cost.qos
echo >"$I/trace"
mkdir -p /sys/fs/cgroup/t06b
for v in vda vdb; do
	cg=t06; [ "$v" = vdb ] && cg=t06b
	sh -c 'echo $$ >/sys/fs/cgroup/$1/cgroup.procs; exec fio --output=/dev/null --name=two --filename=/dev/$2 --direct=1 --rw=read --bs=4k --ioengine=psync --time_based --runtime=3' sh "$cg" "$v" &
done
wait
sleep 1.5
for v in vda vdb; do
	sed -nE "s/^.* iocost_ioc_tick: \[$v\] period=([0-9]+):([0-9]+)us .* active=([0-9]+) usage=([0-9]+)% running=([0-9]+)\$/\1 \2 \3 \4 \5/p" \
		"$I/trace" >"/tmp/t06.$v"
	p=$(qos_period "$(cat "/sys/block/$v/dev")")
	check "two disks at once: $v ticked through its 3 s load ($(wc -l <"/tmp/t06.$v") ticks, period ${p}us)" \
		test "$(wc -l <"/tmp/t06.$v")" -ge "$(awk -v p="$p" 'BEGIN { print int(3e6 / p) }')"
	expect_eq "two disks at once: $v's period numbers are consecutive" \
		"$(awk 'NR > 1 && $1 != prev + 1 { bad++ } { prev = $1 } END { print bad + 0 }' "/tmp/t06.$v")" 0
	expect_eq "two disks at once: $v's ticks carry its own period_us" \
		"$(awk '{ print $2 }' "/tmp/t06.$v" | sort -u)" "$p"
	check "two disks at once: $v's load shows as usage" test "$(awk '$4 > 0' "/tmp/t06.$v" | wc -l)" -gt 0
done
expect_eq "two disks at once: no tick of another device" \
	"$(grep iocost_ioc_tick "$I/trace" | grep -cvE 'iocost_ioc_tick: \[vd[ab]\] ')" 0
rm -f /tmp/t06.vda /tmp/t06.vdb
echo "$D2 enable=0" >/sys/fs/cgroup/io.cost.qos

echo 0 >"$I/$EV/enable"
expect_eq "disabling the event detaches the handler" \
	"$(grep -c '^ioc_timer_fn' "$TR/enabled_functions")" 0
echo >"$I/trace"
echo 1 >"$I/events/iocost/iocost_iocg_activate/enable"
sh -c 'echo $$ >/sys/fs/cgroup/t06/cgroup.procs; exec fio --output=/dev/null --name=q --filename=/dev/vda --direct=1 --rw=read --bs=4k --time_based --runtime=2'
sleep 1
check "the controller ran meanwhile (iocg_activate seen)" grep -q iocost_iocg_activate "$I/trace"
expect_eq "no tick while disabled" "$(grep -c iocost_ioc_tick "$I/trace")" 0

# perf alone enables it (reg callback), and counts ticks (the load runs
# in a child cgroup: blk-iocost does not meter the root cgroup)
out=$(perf stat -x, -e iocost_bpf:iocost_ioc_tick -a -- \
	sh -c 'echo $$ >/sys/fs/cgroup/t06/cgroup.procs; exec fio --output=/dev/null --name=p --filename=/dev/vda --direct=1 --rw=read --bs=4k --time_based --runtime=2' \
	2>&1 >/dev/null)
n=$(awk -F, '/iocost_ioc_tick/ { print $1 }' <<<"$out")
check "perf stat counts ticks of a 2 s load (got '$n')" test "${n:-0}" -ge 2 2>/dev/null
expect_eq "the handler is detached again after perf" \
	"$(grep -c '^ioc_timer_fn' "$TR/enabled_functions")" 0
echo 0 >"$I/events/enable"
rmdir "$I"
trap - EXIT
check "the module unloads once the event is disabled" wait_unload
finish
