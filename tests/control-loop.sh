# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tests/control-loop.sh - what a model changes for competing cgroups
# (sourced by tests/matrix --control; runs in the guest)
#
# The per-IO prices of the seed matrix say nothing about who then gets the
# disk.  Here every scenario runs two cgroups side by side, as users run
# them, and reads per cgroup its completed IOs and io.stat cost.usage over
# a fixed window: the controller's outcome under each model.
#
# For that outcome to be blk-iocost's and not the emulated CPU's, the disk
# is a null_blk device (no data, completions from a 20 us timer) far
# faster than the cost model says, the cost model is set by the user
# (io.cost.model ctrl=user), vrate is pinned at 100.00% (min=max), and
# every cgroup demands more than its share: each is throttled all the
# time, so the disk's whole vtime budget, one second of device time per
# second, is shared out by weight and prices alone.  On the instruction
# clock (vmrun --icount 0: one instruction, one ns) the guest's timers,
# hence the figures, do not depend on the host's load.
#
# Profiles (io.cost.model lines): hdd, the HDD autop coefficients; hdd10,
# the same at a tenth of every rate (every price 10x, their ratios, the
# 113x of a random read over a sequential one included, unchanged); ssd, an
# SSD-like one (randiops twice seqiops) at a twentieth of tests/vm/lib.sh's
# SSD_MODEL rates, so that a cgroup's share stays within what the guest's
# CPU can issue; cloud, a disk sold as 1024 IOPS and 256 MiB/s (the block
# size where both limits meet: 256 KiB).
#
# Scenarios (cgroup "a" is the one the scenario is about, "n" its
# neighbour; 4 KiB O_DIRECT psync unless stated):
#  1 a: sequential reads at weight 1;  n: whole-disk random reads, weight 100
#  2 a: two interleaved sequential readers; n: whole-disk random reads
#  3 a: random reads in an 8 MiB window; n: a sequential reader
#  4 a: 4 KiB writes, each followed by fsync (flush-heavy); n: a sequential reader
#  5 a: 256 KiB sequential reads;  n: whole-disk 4 KiB random reads (cloud)
# 1-4 at equal weight (100) but 1; 1-4 run under builtin, iocost_2x and
# iocost_ms, 5 under builtin and iocost_linmax.  3 and 4 run on the ssd
# and hdd10 profiles, not on hdd: at the HDD profile's sequential price
# (24 us) half the disk
# is ~20800 4 KiB reads a second, more than one sequential reader issues
# here (~25000 a second at full speed, 0.61 of the disk), so the neighbour
# of 3 and 4 is limited by the guest's CPU, not by blk-iocost, and the
# window is not what the scenario is about (run of 2026-12-07: under the
# builtin the two cgroups of hdd 3 were charged 1.22 s of device time a
# second, those of hdd 4 0.92 s, 31% of it the write+fsync cgroup's).
#
# DIR/control.csv, one row per run and cgroup: profile, scenario, name,
# model, cgroup, weight, weight_share, ios, usage_us, us_per_op,
# usage_share (of the cgroups' summed cost.usage), busy (that sum over
# the window: the device time given out), vrate_pct.

# The caller sets dur (the window, s) and out (where control.csv goes).
# shellcheck disable=SC2154

CTL_NB=/sys/kernel/config/nullb
CTL_DEV=nctl
CTL_WARM=1		# s of each run before the window, not measured
CTL_MAX_SECTORS=2048	# 1 MiB: a 256 KiB read is one bio, one price
CTL_HDD10_MODEL="rbps=17401918 rseqiops=4171 rrandiops=37 wbps=17807587 wseqiops=4271 wrandiops=38"
CTL_SSD_MODEL="rbps=100000000 rseqiops=10000 rrandiops=5000 wbps=75000000 wseqiops=7500 wrandiops=4000"
CTL_CLOUD_MODEL="rbps=268435456 rseqiops=1024 rrandiops=1024 wbps=268435456 wseqiops=1024 wrandiops=1024"

ctl_names=(
	""
	"1%-weight sequential reader beside a random reader"
	"two interleaved readers beside a random reader"
	"8 MiB random window beside a sequential reader"
	"write+fsync cgroup beside a sequential reader"
	"256 KiB reads beside 4 KiB random reads"
)

# ctl_disk: the null_blk disk, blk-mq, completions by a 20 us timer, a
# volatile write cache (flushes reach the device, and blk-iocost), no
# merging; prints MAJ:MIN
ctl_disk() {
	local c=$CTL_NB/$CTL_DEV
	if [ ! -b "/dev/$CTL_DEV" ]; then
		modprobe null_blk nr_devices=0 || return 1
		mkdir "$c" || return 1
		echo 2 >"$c/queue_mode"
		echo 2 >"$c/irqmode"
		echo 20000 >"$c/completion_nsec"
		echo 2048 >"$c/size"
		echo 1 >"$c/memory_backed"
		echo 64 >"$c/cache_size"
		echo 1 >"$c/submit_queues"
		echo 64 >"$c/hw_queue_depth"
		echo 4096 >"$c/blocksize"
		echo "$CTL_MAX_SECTORS" >"$c/max_sectors"
		echo 1 >"$c/power"
		[ -b "/dev/$CTL_DEV" ] || return 1
		echo 2 >"/sys/block/$CTL_DEV/queue/nomerges"
	fi
	cat "/sys/block/$CTL_DEV/dev"
}

# ctl_fio_local: fio, its libraries and the dynamic loader copied to the
# guest's tmpfs (CTL_BIN), so that starting it reads nothing from the host
# (9p opens go to the host even when the pages are cached)
CTL_BIN=/tmp/ctl-bin
ctl_fio_local() {
	local fio l
	fio=$(command -v fio) || return 1
	mkdir -p "$CTL_BIN"
	cp "$fio" "$CTL_BIN/fio" || return 1
	for l in $(ldd "$fio" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
		cp "$l" "$CTL_BIN/" || return 1
	done
	l=$(ldd "$fio" | awk '$1 ~ /^\/.*ld-linux/ { print $1 }')
	cp "$l" "$CTL_BIN/ld.so"
}

# ctl_model_line PROFILE
ctl_model_line() {
	case "$1" in
	hdd) echo "ctrl=user model=linear $HDD_MODEL" ;;
	hdd10) echo "ctrl=user model=linear $CTL_HDD10_MODEL" ;;
	ssd) echo "ctrl=user model=linear $CTL_SSD_MODEL" ;;
	cloud) echo "ctrl=user model=linear $CTL_CLOUD_MODEL" ;;
	esac
}

# ctl_jobs SCENARIO ROLE: weight, then the fio arguments of ROLE (a or n)
ctl_jobs() {
	local f=--filename=/dev/$CTL_DEV
	case "$1$2" in
	1a) echo "1 --rw=read $f --offset=1g --size=512m" ;;
	2a) echo "100 --rw=read $f --size=400m --name=a --offset=0 --name=b --offset=400m" ;;
	3a) echo "100 --rw=randread $f --offset=256m --size=8m" ;;
	4a) echo "100 --rw=write $f --offset=512m --size=4m --fsync=1" ;;
	5a) echo "100 --rw=read $f --bs=256k --offset=0 --size=1g" ;;
	[125]n) echo "100 --rw=randread $f" ;;
	[34]n) echo "100 --rw=read $f --offset=1g --size=512m" ;;
	esac
}

# ctl_sleep SECS: sleep without starting a program (read -t on a pipe
# nothing writes to)
ctl_sleep() {
	local fd _
	exec {fd}<> <(:)
	read -r -t "$1" -u "$fd" _ || true
	exec {fd}<&-
}

# ctl_snap VAR CG DEVT: CG's io.stat line of DEVT into VAR, builtins only
ctl_snap() {
	local -n v=$1
	local line
	v=
	while read -r line; do
		# shellcheck disable=SC2034 # v is the caller's variable
		[ "${line%% *}" = "$3" ] && v=$line
	done <"/sys/fs/cgroup/$2/io.stat"
}

# ctl_parse LINE: "ios usage_us" of an io.stat line
ctl_parse() {
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%d %d\n", v["rios"] + v["wios"], v["cost.usage"] }' <<<"$1"
}

# ctl_run PROFILE SCENARIO MODEL DEVT: one run, its two CSV rows on stdout
ctl_run() {
	local prof=$1 s=$2 m=$3 D=$4 role w args cg pids=() i
	local -A a b wt
	local a0 a1 n0 n1
	echo "$D enable=0" >/sys/fs/cgroup/io.cost.qos
	echo "$D $(ctl_model_line "$prof")" >/sys/fs/cgroup/io.cost.model
	# no latency targets (vrate could not follow them anyway) and a 10 ms
	# period (twice rlat): cost.usage, updated at period ends, lags the
	# window's edges by at most that
	echo "$D enable=1 ctrl=user rpct=0 rlat=5000 wpct=0 wlat=5000" >/sys/fs/cgroup/io.cost.qos
	pin_vrate "$D" || return 1
	if [ "$m" = builtin ]; then
		echo "$D model=linear" >"$SYS/bindings"
	else
		echo "$D model=$m" >"$SYS/bindings" || return 1
	fi
	for role in a n; do
		cg=ctl.$role.$$
		read -r w args <<<"$(ctl_jobs "$s" "$role")"
		wt[$role]=$w
		mkdir -p "/sys/fs/cgroup/$cg"
		echo "default $w" >"/sys/fs/cgroup/$cg/io.weight"
		local job=(--name=p)
		case " $args " in *" --name="*) job=() ;; esac
		# a subshell of this bash, not sh: no program is read from the
		# host; fio runs from the guest's tmpfs (ctl_fio_local)
		# shellcheck disable=SC2086
		(echo "$BASHPID" >"/sys/fs/cgroup/$cg/cgroup.procs" &&
			exec "$CTL_BIN/ld.so" --library-path "$CTL_BIN" "$CTL_BIN/fio" \
			--output=/dev/null --direct=1 --ioengine=psync --bs=4k --time_based \
			--runtime=$((CTL_WARM + dur + 30)) $args "${job[@]}") &
		pids+=($!)
	done
	# the window: bash builtins only (no program started from the
	# shared root, whose 9p replies come in at host-dependent times).  On
	# the instruction clock a guest waiting for the host idles, and idle
	# time passes at once: wait until both cgroups have done IO (fio is
	# running) before the warm-up starts.
	for i in $(seq 1 3000); do
		ctl_snap a0 ctl.a.$$ "$D"
		ctl_snap n0 ctl.n.$$ "$D"
		[ -n "$a0" ] && [ -n "$n0" ] && break
		ctl_sleep 0.01
	done
	if [ -z "$a0" ] || [ -z "$n0" ]; then
		echo "matrix: control $prof $s under $m: fio did no IO in 30 s" >&2
		kill "${pids[@]}"
		return 1
	fi
	ctl_sleep "$CTL_WARM"
	ctl_snap a0 ctl.a.$$ "$D"
	ctl_snap n0 ctl.n.$$ "$D"
	ctl_sleep "$dur"
	ctl_snap a1 ctl.a.$$ "$D"
	ctl_snap n1 ctl.n.$$ "$D"
	for i in "${pids[@]}"; do kill "$i" 2>/dev/null || true; done
	for i in "${pids[@]}"; do wait "$i" 2>/dev/null || true; done
	a[a]=$(ctl_parse "$a0") b[a]=$(ctl_parse "$a1")
	a[n]=$(ctl_parse "$n0") b[n]=$(ctl_parse "$n1")
	local vr
	vr=$(vrate_of "$D")
	awk -v p="$prof" -v s="$s" -v name="${ctl_names[$s]}" -v m="$m" -v dur="$dur" -v vr="$vr" \
		-v a0="${a[a]}" -v a1="${b[a]}" -v n0="${a[n]}" -v n1="${b[n]}" \
		-v wa="${wt[a]}" -v wn="${wt[n]}" 'BEGIN {
		split(a0, x, " "); split(a1, y, " "); ios["a"] = y[1] - x[1]; us["a"] = y[2] - x[2]
		split(n0, x, " "); split(n1, y, " "); ios["n"] = y[1] - x[1]; us["n"] = y[2] - x[2]
		w["a"] = wa; w["n"] = wn
		sum = us["a"] + us["n"]
		for (r = 0; r < 2; r++) {
			c = r ? "n" : "a"
			printf "%s,%d,%s,%s,%s,%d,%.4f,%d,%d,%.3f,%.4f,%.4f,%s\n", p, s, name, m, c, w[c],
				w[c] / (wa + wn), ios[c], us[c], ios[c] ? us[c] / ios[c] : 0,
				sum ? us[c] / sum : 0, sum / (dur * 1e6), vr
		}
	}'
	rmdir /sys/fs/cgroup/ctl.a.$$ /sys/fs/cgroup/ctl.n.$$ 2>/dev/null || true
}

# control_loop SCENARIOS: "PROFILE:S,S... ..." or "all"
control_loop() {
	local spec=$1 D item prof s m models csv=$out/control.csv
	[ "$spec" = all ] && spec="hdd:1,2 hdd10:3,4 ssd:1,2,3,4 cloud:5"
	# the whole spec first: a bad item runs nothing
	for item in $spec; do
		prof=${item%%:*}
		case "$prof" in
		hdd | hdd10 | ssd | cloud) ;;
		*) echo "matrix: unknown control profile '$prof'" >&2; return 2 ;;
		esac
		for s in $(tr , " " <<<"${item#*:}"); do
			[[ $s =~ ^[1-5]$ ]] || { echo "matrix: no control scenario '$s'" >&2; return 2; }
			case "$prof:$s" in
			hdd:[34])
				echo "matrix: control scenario $s on hdd: its sequential neighbour is CPU-bound at the HDD's 24 us price, not limited by blk-iocost (run it on hdd10 or ssd)" >&2
				return 2 ;;
			esac
		done
	done
	[ -d "$SYS" ] || insmod "$MOD"
	grep -qw io /sys/fs/cgroup/cgroup.subtree_control ||
		echo +io >/sys/fs/cgroup/cgroup.subtree_control
	D=$(ctl_disk) || { echo "matrix: cannot create the null_blk disk" >&2; return 1; }
	mkdir -p "$PINS"
	for m in iocost_2x iocost_ms iocost_linmax; do
		grep -q "^$m " "$SYS/models" || "$B/bin/$m" >/dev/null
	done
	# On the instruction clock a guest that waits for the host (a 9p
	# read of a program not in its page cache yet, a write to the shared
	# checkout) sees an amount of time pass that depends on the host:
	# every program a run starts is read once here, and the rows go to
	# the guest's tmpfs until the last run is over.
	ctl_fio_local || { echo "matrix: cannot copy fio to $CTL_BIN" >&2; return 1; }
	"$CTL_BIN/ld.so" --library-path "$CTL_BIN" "$CTL_BIN/fio" --output=/dev/null \
		--name=warm --filename="/dev/$CTL_DEV" --direct=1 \
		--ioengine=psync --bs=4k --size=1m --rw=read ||
		{ echo "matrix: fio on /dev/$CTL_DEV failed" >&2; return 1; }
	awk 'BEGIN { exit 0 }'
	grep -q . /dev/null || true
	sed -n 1p /dev/null
	cut -c1 /dev/null
	local tmp
	tmp=$(mktemp /tmp/control.XXXXXX)
	echo "profile,scenario,name,model,cgroup,weight,weight_share,ios,usage_us,us_per_op,usage_share,busy,vrate_pct" >"$tmp"
	for item in $spec; do
		prof=${item%%:*}
		for s in $(tr , " " <<<"${item#*:}"); do
			models="builtin iocost_2x iocost_ms"
			[ "$s" = 5 ] && models="builtin iocost_linmax"
			for m in $models; do
				ctl_run "$prof" "$s" "$m" "$D" >>"$tmp" ||
					{ echo "matrix: control $prof $s under $m failed" >&2; return 1; }
			done
		done
	done
	echo "$D model=linear" >"$SYS/bindings"
	echo "$D enable=0" >/sys/fs/cgroup/io.cost.qos
	cp "$tmp" "$csv" && chmod 644 "$csv"
	rm -f "$tmp"
	control_table "$csv"
}

# control_table CSV: the table, per cgroup
control_table() {
	awk -F, 'NR > 1 {
		printf "%-5s %d %-52s %-13s %s w=%-3d (%5.1f%%) %7d IOs %10d us %9.3f us/IO %5.1f%% of usage, busy %.3f, vrate %s\n",
			$1, $2, $3, $4, $5, $6, 100 * $7, $8, $9, $10, 100 * $11, $12, $13
	}' "$1"
}
