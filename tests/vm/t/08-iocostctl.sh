#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iocostctl: load and unload models, bind and unbind disks (one, or all at
# once: of an unregistered model, beside a removed disk), in enforce and
# shadow mode (the readback's mode=, status's histogram), status as text
# and JSON, the refusals of each (exit status and message), the module-not-
# loaded hint, and top on the iocost_ioc_tick event through a pipe.
# vm-run: long (queued first when two guests share the suite: tests/vm/run)
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

CTL=$top/build/host/iocostctl
[ -x "$CTL" ] || { not_ok "$CTL is built (make vm-build)"; finish; }
OBJ2X=$B/bpf/iocost_2x.bpf.o
OBJMS=$B/bpf/iocost_ms.bpf.o
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
EVENT=/sys/kernel/tracing/events/iocost_bpf/iocost_ioc_tick

# run CMD...: its stdout and stderr in $out, its exit status in $rc
run() {
	out=$("$@" 2>&1)
	rc=$?
}

# expect_run DESCRIPTION RC REGEX CMD...: CMD exits RC and prints REGEX
expect_run() {
	local what=$1 want=$2 re=$3
	shift 3
	run "$@"
	expect_eq "$what: exit status" "$rc" "$want"
	expect_match "$what: message" "$out" "$re"
}

# re TEXT: TEXT as a literal in an extended regex (paths hold a '+')
# shellcheck disable=SC2001 # a character class: not a ${var//x/y}
re() { sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$1"; }

# json_get EXPR: evaluate the python expression EXPR on the JSON in $out
json_get() {
	python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' \
		"$1" <<<"$out"
}

# show TEXT: TEXT as TAP comments
show() { while IFS= read -r l; do echo "# $l"; done <<<"$1"; }

# ---- the command line ----
expect_run "--help" 0 "^Usage: iocostctl" "$CTL" --help
expect_run "bind --help" 0 "^Usage: iocostctl bind DEV MODEL \[--shadow \| --mode MODE\]$" "$CTL" bind --help
expect_match "bind --help: the modes" "$out" "--mode MODE +enforce \(the default\)"
expect_run "--version" 0 "^iocostctl [0-9.]+ \(libbpf v1\.[4-9]" "$CTL" --version
expect_run "an unknown command is a usage error" 2 "unknown command 'frob'" "$CTL" frob
expect_run "an unknown option is a usage error" 2 "status: unknown option '--frob'" "$CTL" status --frob
expect_run "bind without a model is a usage error" 2 "bind: expected DEV MODEL" "$CTL" bind vda
expect_run "an unknown mode is a usage error, before the module is looked for" 2 \
	"^iocostctl: bind: --mode: unknown mode 'bogus': expected enforce or shadow$" \
	"$CTL" bind vda iocost_2x --mode bogus
expect_run "an unknown status format is a usage error, before the module is looked for" 2 \
	"^iocostctl: status: --format: unknown format 'xml': expected text, json or openmetrics$" \
	"$CTL" status --format xml
expect_run "--json and --format openmetrics contradict each other" 2 \
	"^iocostctl: status: --json and --format openmetrics contradict each other$" \
	"$CTL" status --json --format openmetrics

load_module
D=$(iocost_enable vda) || { not_ok "enable iocost on vda"; finish; }

# ---- load ----
expect_run "load iocost_2x" 0 "^loaded iocost_2x \(pinned at $PINS/iocost_2x\)$" "$CTL" load "$OBJ2X"
expect_match "models lists iocost_2x" "$(cat "$SYS/models")" "^iocost_2x bindings=0$"
check "the pin is there" test -e "$PINS/iocost_2x"
expect_run "loading iocost_2x again fails: the pin exists" 1 \
	"^iocostctl: load iocost_2x: $PINS/iocost_2x: File exists \(pinned already" "$CTL" load "$OBJ2X"
expect_eq "still one iocost_2x" "$(grep -c '^iocost_2x ' "$SYS/models")" 1

check "the skeleton loader registers iocost_ms pinned elsewhere" "$B/bin/iocost_ms" --pin "$PINS/elsewhere"
expect_run "loading a name registered by another loader fails with EEXIST" 1 \
	"^iocostctl: load iocost_ms: register: $(re "$OBJMS"): File exists \(a model named iocost_ms is already registered\)" \
	"$CTL" load "$OBJMS"
check_fails "the refused load left no pin" test -e "$PINS/iocost_ms"
expect_run "unload refuses a model it did not pin" 1 \
	"unload iocost_ms: $PINS/iocost_ms: No such file or directory \(iocost_ms is registered, but not pinned by iocostctl" \
	"$CTL" unload iocost_ms
rm -f "$PINS/elsewhere"
check "iocost_ms unregistered once its pin is gone" wait_unregistered iocost_ms

expect_run "load iocost_ms under another name" 0 "^loaded ms2 \(pinned at $PINS/ms2\)$" \
	"$CTL" load "$OBJMS" --name ms2
expect_match "models lists ms2" "$(cat "$SYS/models")" "^ms2 bindings=0$"
expect_run "a name with a blank is a usage error" 2 "model names are 1-15 printable characters" \
	"$CTL" load "$OBJMS" --name "bad name"
expect_run "a 16-character name is a usage error" 2 "--name 'abcdefghijklmnop'" \
	"$CTL" load "$OBJMS" --name abcdefghijklmnop
echo "not an ELF file" >/tmp/notbpf.o
expect_run "loading a non-object fails" 1 "^iocostctl: load: /tmp/notbpf.o: .*not a BPF object file" \
	"$CTL" load /tmp/notbpf.o
expect_run "loading a missing file fails" 1 "^iocostctl: load: /tmp/nosuch.o: No such file or directory" \
	"$CTL" load /tmp/nosuch.o
expect_run "loading as nobody fails: need root" 1 "Permission denied \(need root \(CAP_SYS_ADMIN\)\)" \
	"${NOBODY[@]}" "$CTL" load "$OBJMS" --name ms3
expect_nomatch "nothing registered by the refused loads" "$(cat "$SYS/models")" "^(ms3|iocost_ms) "

# several models in one object (one in plain .struct_ops), none, refused ones
TWO=$B/tests/ctl_two.bpf.o
expect_run "load an object with two models" 0 "^loaded test_two_a \(pinned at $PINS/test_two_a\)$" \
	"$CTL" load "$TWO"
expect_match "load registered the second model too, from .struct_ops" "$out" \
	"^loaded test_two_b \(pinned at $PINS/test_two_b\)$"
expect_match "models lists test_two_a" "$(cat "$SYS/models")" "^test_two_a bindings=0$"
expect_match "models lists test_two_b" "$(cat "$SYS/models")" "^test_two_b bindings=0$"
expect_run "--name with two models is a usage error" 2 "holds 2 models; it can only rename one" \
	"$CTL" load "$TWO" --name other
expect_run "unload test_two_b" 0 "^unloaded test_two_b$" "$CTL" unload test_two_b
expect_run "unload test_two_a" 0 "^unloaded test_two_a$" "$CTL" unload test_two_a
expect_nomatch "both are gone from models" "$(cat "$SYS/models")" "^test_two_"
expect_run "load an object without a model fails" 1 \
	"^iocostctl: load: .*/ctl_nomodel.bpf.o: Invalid argument \(no struct_ops map of type iocost_model_ops in it" \
	"$CTL" load "$B/tests/ctl_nomodel.bpf.o"
expect_run "load a model without calc_cost: the module refuses it" 1 \
	"^iocostctl: load test_nocalc: register: .*/nocalc.bpf.o: Invalid argument \(the module refused it .*: see dmesg\)$" \
	"$CTL" load "$B/tests/nocalc.bpf.o"
expect_run "load a sleepable model: the verifier refuses it" 1 \
	"^iocostctl: load test_sleepable: .*/sleepable.bpf.o: .*refused it" \
	"$CTL" load "$B/tests/sleepable.bpf.o"
expect_nomatch "no refused model is registered" "$(cat "$SYS/models")" "^test_(nocalc|sleepable) "
check_fails "no pin of a refused model" test -e "$PINS/test_nocalc" -o -e "$PINS/test_sleepable"

# ---- status ----
run "$CTL" status
expect_eq "status: exit status" "$rc" 0
show "$out"
expect_match "status: iocost_2x pinned" "$out" "^iocost_2x +0 +$PINS/iocost_2x$"
expect_match "status: ms2 pinned" "$out" "^ms2 +0 +$PINS/ms2$"
expect_match "status: vda with iocost on and the builtin model" "$out" "^$D +vda +on +- .* linear$"
run "$CTL" status --json
expect_eq "status --json: exit status" "$rc" 0
check "status --json is JSON" python3 -c 'import json, sys; json.load(sys.stdin)' <<<"$out"
expect_eq "status --json: schema" "$(json_get 'd["schema"]')" "iocostctl.status/1"
expect_eq "status --json: models" "$(json_get '" ".join(sorted(m["name"] + ":" + str(m["pinned"]) for m in d["models"]))')" \
	"iocost_2x:True ms2:True"
expect_eq "status --json: vda's iocost, model and stats" \
	"$(json_get '[(x["name"], x["iocost"]["enable"], x["iocost"]["ctrl"], x["iocost"]["rlat"], x["model"], x["bound"], x["stats"]) for x in d["devices"] if x["dev"] == "'"$D"'"]')" \
	"[('vda', True, 'auto', 250000, 'linear', False, None)]"
run "${NOBODY[@]}" "$CTL" status
expect_eq "status as nobody: exit status" "$rc" 0
expect_match "status as nobody cannot see the pins" "$out" "^iocost_2x +0 +\? \(need root"

# ---- bind ----
expect_run "bind /dev/vda to iocost_2x" 0 "^bound $D \(vda\) to iocost_2x$" "$CTL" bind /dev/vda iocost_2x
expect_eq "bindings after bind /dev/vda" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=enforce"
# the root cgroup's IO is not priced: read from a child cgroup
mkdir -p /sys/fs/cgroup/t08
sh -c 'echo $$ > /sys/fs/cgroup/t08/cgroup.procs; exec dd if=/dev/vda of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null'
run "$CTL" status --json
expect_eq "status --json: vda bound to iocost_2x, counted" \
	"$(json_get '[(x["model"], x["bound"], x["mode"], x["stats"]["mode"], x["stats"]["registered"], x["stats"]["charges"] >= 16, x["stats"]["vtime"] > 0) for x in d["devices"] if x["name"] == "vda"]')" \
	"[('iocost_2x', True, 'enforce', 'enforce', True, True, True)]"
expect_eq "status --json: enforce has no builtin, ratio or hist" \
	"$(json_get '[(x["stats"]["builtin"], x["stats"]["ratio"], x["stats"]["hist"]) for x in d["devices"] if x["name"] == "vda"]')" \
	"[(None, None, None)]"
expect_eq "status --json: iocost_2x has one binding" \
	"$(json_get '[m["bindings"] for m in d["models"] if m["name"] == "iocost_2x"]')" "[1]"
run "$CTL" status
expect_match "status: vda's line" "$out" "^$D +vda +on +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +enforce +iocost_2x$"
expect_match "status: the MODE column" "$out" "^DEVICE +NAME +IOCOST +CHARGES +MERGES +NODATA +ZERO +CLAMPED +VTIME_S +MODE +MODEL$"
expect_nomatch "status: no shadow block for an enforce binding" "$out" "^shadow "
# the IPA-SRA clone's counters (src/clone.c), on the kernels that have them
if clone_kernel; then
	expect_match "status: the clone's line: nothing left to the builtin" "$out" \
		"^clone $D: left to the builtin: kind 0, caller 0, costp 0, args 0, blkg 0, learning 0$"
	want="[({'kind': 0, 'caller': 0, 'costp': 0, 'args': 0, 'blkg': 0}, 0)]"
else
	expect_nomatch "status: no clone line" "$out" "^clone "
	want="[(None, None)]"
fi
run "$CTL" status --json
expect_eq "status --json: the clone's counters (null without the clone)" \
	"$(json_get '[(x["stats"]["fallback"], x["stats"]["learning"]) for x in d["devices"] if x["name"] == "vda"]')" "$want"
# the same as OpenMetrics text (tools/iocostctl/openmetrics.c), whole, ending in # EOF
run "$CTL" status --format openmetrics
expect_eq "status --format openmetrics: exit status" "$rc" 0
expect_eq "status --format openmetrics: the last line" "$(tail -n 1 <<<"$out")" "# EOF"
expect_match "status --format openmetrics: vda's charges" "$out" \
	"^iocost_bpf_charges_total\{dev=\"$D\",disk=\"vda\",model=\"iocost_2x\",mode=\"enforce\"\} [1-9][0-9]*$"
expect_match "status --format openmetrics: vda's vrate, from io.stat" "$out" \
	"^iocost_bpf_vrate_ratio\{dev=\"$D\",disk=\"vda\"\} [0-9]+\.[0-9]{4}$"
if clone_kernel; then
	expect_match "status --format openmetrics: nothing left to the builtin (kind)" "$out" \
		"^iocost_bpf_fallbacks_total\{dev=\"$D\",disk=\"vda\",model=\"iocost_2x\",mode=\"enforce\",reason=\"kind\"\} 0$"
else
	expect_nomatch "status --format openmetrics: no fallbacks without the clone" "$out" "^iocost_bpf_fallbacks"
fi
run "$CTL" status

expect_run "bind $D (MAJ:MIN) to ms2" 0 "^bound $D \(vda\) to ms2$" "$CTL" bind "$D" ms2
expect_eq "bindings after bind MAJ:MIN" "$(cat "$SYS/bindings")" "$D model=ms2 mode=enforce"
expect_run "bind by name (vda) to iocost_2x" 0 "^bound $D \(vda\) to iocost_2x$" "$CTL" bind vda iocost_2x

# ---- shadow mode ----
expect_run "bind vda to iocost_2x --shadow" 0 \
	"^bound $D \(vda\) to iocost_2x in shadow mode: the builtin's prices are charged, the model's only counted$" \
	"$CTL" bind vda iocost_2x --shadow
expect_eq "bindings after bind --shadow" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=shadow"
expect_match "stats of a fresh shadow binding" "$(cat "$SYS/stats")" \
	"^$D model=iocost_2x mode=shadow registered=1 charges=0 .* builtin=0 hist=0,0,0,0,0,0,0,0( fallback_kind=0 fallback_caller=0 fallback_costp=0 fallback_args=0 fallback_blkg=0 learning=0)?$"
sh -c 'echo $$ > /sys/fs/cgroup/t08/cgroup.procs; exec dd if=/dev/vda of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null'
run "$CTL" status
expect_eq "status in shadow mode: exit status" "$rc" 0
show "$out"
expect_match "status: vda's line says shadow" "$out" \
	"^$D +vda +on +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +shadow +iocost_2x$"
expect_match "status: vda's shadow block: sums and ratio" "$out" \
	"^shadow $D \(vda\) iocost_2x: builtin [0-9]+\.[0-9]{6} s \(charged\), model [0-9]+\.[0-9]{6} s, model/builtin [0-9]+\.[0-9]{3}$"
expect_match "status: the histogram's bucket labels" "$out" \
	"^  IO RATIO +builtin 0 +<1/4 +1/4-1/2 +1/2-0\.9 +0\.9-1\.1 +1\.1-2 +2-4 +>=4$"
expect_match "status: the histogram's counts" "$out" "^  IOS( +[0-9]+){8}$"
run "$CTL" status --json
expect_eq "status --json in shadow mode: exit status" "$rc" 0
check "status --json in shadow mode is JSON" python3 -m json.tool <<<"$out"
expect_eq "status --json: vda in shadow mode, both modes say so" \
	"$(json_get '[(x["model"], x["bound"], x["mode"], x["stats"]["mode"]) for x in d["devices"] if x["name"] == "vda"]')" \
	"[('iocost_2x', True, 'shadow', 'shadow')]"
expect_eq "status --json: the histogram's buckets, in order" \
	"$(json_get '[[h["bucket"] for h in x["stats"]["hist"]] for x in d["devices"] if x["name"] == "vda"]')" \
	"[['builtin 0', '<1/4', '1/4-1/2', '1/2-0.9', '0.9-1.1', '1.1-2', '2-4', '>=4']]"
# iocost_2x doubles the builtin: its data bios are all in [2,4), the sums 2:1
expect_eq "status --json: iocost_2x's reads priced 2x the builtin (bucket 2-4, ratio ~2)" \
	"$(json_get '[(x["stats"]["charges"] >= 16, x["stats"]["builtin"] > 0, x["stats"]["hist"][6]["ios"] >= 16, sum(h["ios"] for h in x["stats"]["hist"][1:6]) + x["stats"]["hist"][7]["ios"], 1.9 <= x["stats"]["ratio"] <= 2.1, abs(x["stats"]["builtin_us"] - x["stats"]["builtin"] * 1e6 / 2**37) < 0.001) for x in d["devices"] if x["name"] == "vda"]')" \
	"[(True, True, True, 0, True, True)]"
expect_run "--mode shadow is --shadow" 0 "^bound $D \(vda\) to iocost_2x in shadow mode: " \
	"$CTL" bind vda iocost_2x --mode shadow
expect_eq "bindings after --mode shadow" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=shadow"
before=$(cat "$SYS/bindings")
expect_run "bind --mode bogus: a usage error" 2 \
	"^iocostctl: bind: --mode: unknown mode 'bogus': expected enforce or shadow$" \
	"$CTL" bind vda ms2 --mode bogus
expect_eq "bind --mode bogus changed nothing" "$(cat "$SYS/bindings")" "$before"
expect_run "bind --mode without a mode: a usage error" 2 "^iocostctl: bind: option '--mode' needs an argument$" \
	"$CTL" bind vda ms2 --mode
expect_run "bind --shadow --mode enforce: a usage error" 2 \
	"^iocostctl: bind: --shadow and --mode enforce contradict each other$" \
	"$CTL" bind vda ms2 --shadow --mode enforce
expect_run "unbind takes no mode" 2 "^iocostctl: unbind: unknown option '--shadow'$" \
	"$CTL" unbind vda --shadow
expect_run "bind --shadow of an unknown model fails with ENOENT" 1 \
	"^iocostctl: bind $D nosuch --shadow: $SYS/bindings: No such file or directory \(no model named nosuch is registered\)$" \
	"$CTL" bind "$D" nosuch --shadow
expect_run "bind --shadow as nobody fails: need root" 1 "Permission denied \(need root \(CAP_SYS_ADMIN\)\)$" \
	"${NOBODY[@]}" "$CTL" bind "$D" ms2 --shadow
expect_eq "the refused shadow binds changed nothing" "$(cat "$SYS/bindings")" "$before"
expect_run "bind --mode enforce: back to enforcing" 0 "^bound $D \(vda\) to iocost_2x$" \
	"$CTL" bind vda iocost_2x --mode enforce
expect_eq "bindings after --mode enforce" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=enforce"
run "$CTL" status --json
expect_eq "status --json: enforcing again, fresh stats without hist" \
	"$(json_get '[(x["mode"], x["stats"]["mode"], x["stats"]["hist"]) for x in d["devices"] if x["name"] == "vda"]')" \
	"[('enforce', 'enforce', None)]"

before=$(cat "$SYS/bindings")
expect_run "bind an unknown model fails with ENOENT" 1 \
	"^iocostctl: bind $D nosuch: $SYS/bindings: No such file or directory \(no model named nosuch is registered\)$" \
	"$CTL" bind "$D" nosuch
expect_run "bind an unknown device number fails with ENODEV" 1 \
	"^iocostctl: bind ${D%%:*}:99 iocost_2x: $SYS/bindings: No such device \(no block device ${D%%:*}:99\)$" \
	"$CTL" bind "${D%%:*}:99" iocost_2x
expect_run "bind a missing device node fails" 1 "^iocostctl: bind /dev/nosuch iocost_2x: /dev/nosuch: No such file or directory" \
	"$CTL" bind /dev/nosuch iocost_2x
expect_run "bind a file that is no block device fails" 1 "/etc/passwd: Block device required" \
	"$CTL" bind /etc/passwd iocost_2x
expect_run "bind a device number out of range fails" 1 "99999:0: Numerical result out of range" \
	"$CTL" bind 99999:0 iocost_2x
echo ',100M' | sfdisk -q /dev/vdb >/dev/null 2>&1
udevadm settle 2>/dev/null
if [ -b /dev/vdb1 ]; then
	P=$(cat /sys/block/vdb/vdb1/dev)
	expect_run "bind a partition fails: bind the whole disk" 1 \
		"bindings: No such device \($P \(vdb1\) is a partition: bind its whole disk\)" \
		"$CTL" bind /dev/vdb1 iocost_2x
else
	not_ok "partition /dev/vdb1 created"
fi
expect_run "bind as nobody fails: need root" 1 \
	"^iocostctl: bind $D iocost_2x: $SYS/bindings: Permission denied \(need root \(CAP_SYS_ADMIN\)\)$" \
	"${NOBODY[@]}" "$CTL" bind "$D" iocost_2x
expect_run "bind as root without CAP_SYS_ADMIN fails with EPERM" 1 \
	"$SYS/bindings: Operation not permitted \(need root \(CAP_SYS_ADMIN\)\)$" \
	capsh --drop=cap_sys_admin -- -c "$CTL bind $D ms2"
expect_eq "the refused binds changed nothing" "$(cat "$SYS/bindings")" "$before"

# ---- top ----
if [ -d "$EVENT" ]; then
	sh -c 'echo $$ > /sys/fs/cgroup/t08/cgroup.procs; exec fio --output=/dev/null --name=top \
		--filename=/dev/vda --direct=1 --ioengine=psync --bs=4k --rw=randread \
		--time_based --runtime=40' &
	fio_pid=$!
	sleep 2
	out=$(timeout 60 "$CTL" top vda --count 3 2>&1 | cat; echo "rc=${PIPESTATUS[0]}")
	show "$out"
	expect_eq "top vda --count 3 | cat: exit status" "$(tail -1 <<<"$out")" "rc=0"
	ticks=$(grep -E '^vda period=[0-9]+ period_us=[0-9]+ vrate=[0-9]+\.[0-9]{2}% busy=-?[0-9]+ active=[0-9]+ usage=[0-9]+% state=(idle|running|stop)$' <<<"$out")
	expect_eq "top printed 3 tick lines" "$(grep -c . <<<"$ticks")" 3
	expect_eq "top: every line is a tick line" "$(sed '$d' <<<"$out" | grep -c .)" 3
	expect_eq "top: consecutive period numbers" \
		"$(awk -F'[ =]' 'NR > 1 && $3 != p + 1 { bad = 1 } { p = $3 } END { print bad ? "no" : "yes" }' <<<"$ticks")" yes

	out=$(timeout 60 "$CTL" top "$D" --count 2 --json 2>&1 | cat; echo "rc=${PIPESTATUS[0]}")
	show "$out"
	expect_eq "top $D --json: exit status" "$(tail -1 <<<"$out")" "rc=0"
	out=$(sed '$d' <<<"$out")
	expect_eq "top --json: two JSON lines of vda" \
		"$(python3 -c 'import json, sys
ls = [json.loads(l) for l in sys.stdin]
print(len(ls), all(l["dev"] == "vda" and isinstance(l["period"], int) and l["state"] in ("idle", "running", "stop") and l["vrate_pct"] > 0 for l in ls), ls[1]["period"] - ls[0]["period"])' <<<"$out" 2>&1)" \
		"2 True 1"

	# on a terminal: a table refreshed in place
	out=$(timeout 60 script -qec "$CTL top vda --count 2" /dev/null 2>&1 | tr -d '\r'
	      echo "rc=${PIPESTATUS[0]}")
	rc=${out##*rc=}
	out=${out%rc=*}
	show "$(cat -v <<<"$out")"
	expect_eq "top on a terminal: exit status" "$rc" 0
	expect_match "top on a terminal: the column header" "$out" \
		"^DEV +PERIOD +PERIOD_US +VRATE% +BUSY +ACTIVE +USAGE% +STATE$"
	expect_match "top on a terminal: a row for vda" "$out" \
		"^vda +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{2} +-?[0-9]+ +[0-9]+ +[0-9]+ +(idle|running|stop)$"
	expect_match "top on a terminal: the table is redrawn in place" "$out" $'\e\\[[0-9]+A\e\\[J'

	# a reader that goes away ends top; an instance left by a killed top is reaped
	mkdir /sys/kernel/tracing/instances/iocostctl.999999
	out=$(timeout 60 "$CTL" top vda 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")
	expect_match "top | head -1: one tick" "$out" "^vda period=[0-9]+ "
	expect_eq "top | head -1: top ends with exit status 0" "$(tail -1 <<<"$out")" "rc=0"
	check_fails "top removed the instance a killed top left" \
		test -e /sys/kernel/tracing/instances/iocostctl.999999

	"$CTL" top /dev/vda >/tmp/top.out 2>&1 &
	top_pid=$!
	sleep 3
	kill -TERM "$top_pid"
	wait "$top_pid"
	expect_eq "top stopped by SIGTERM: exit status" "$?" 0
	expect_match "top /dev/vda printed ticks before SIGTERM" "$(cat /tmp/top.out)" "^vda period="
	expect_eq "top removed its tracefs instances" \
		"$(compgen -G '/sys/kernel/tracing/instances/iocostctl.*' | wc -l)" 0
	expect_eq "the event is left disabled at the top level" "$(cat "$EVENT/enable")" 0
	kill "$fio_pid" 2>/dev/null
	wait "$fio_pid" 2>/dev/null
	expect_run "top on a device that does not exist fails" 1 "top nosuch: /sys/class/block/nosuch: No such file or directory" \
		"$CTL" top nosuch --count 1
else
	not_ok "the iocost_ioc_tick event exists ($EVENT): not in this module build"
	expect_run "top without the event fails with a clear message" 1 \
		"iocost_ioc_tick: No such file or directory \(the iocost_ioc_tick event is unavailable on this kernel: see dmesg\)" \
		"$CTL" top vda --count 1
fi

# ---- unbind ----
expect_run "unbind /dev/vda" 0 "^unbound $D \(vda\) from iocost_2x: back to the builtin linear model$" \
	"$CTL" unbind /dev/vda
expect_eq "bindings empty after unbind" "$(cat "$SYS/bindings")" ""
expect_run "unbind an unbound disk is a no-op" 0 "^$D \(vda\) was not bound" "$CTL" unbind "$D"
expect_run "unbind as nobody fails: need root" 1 "Permission denied \(need root \(CAP_SYS_ADMIN\)\)" \
	"${NOBODY[@]}" "$CTL" unbind "$D"

# ---- unload ----
expect_run "bind vda to iocost_2x again" 0 "^bound" "$CTL" bind "$D" iocost_2x
expect_run "unload a bound iocost_2x" 0 "^unloaded iocost_2x" "$CTL" unload iocost_2x
expect_match "unload says the disk stays bound" "$out" \
	"^iocost_2x is still bound to $D \(vda\): it keeps pricing there until 'iocostctl unbind $D'$"
expect_nomatch "iocost_2x is gone from models" "$(cat "$SYS/models")" "^iocost_2x "
check_fails "its pin is gone" test -e "$PINS/iocost_2x"
expect_eq "vda stays bound" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=enforce"
run "$CTL" status
expect_match "status: the bound model is unregistered" "$out" "^$D +vda +on .* iocost_2x \(unregistered\)$"
run "$CTL" status --json
expect_eq "status --json: stats say unregistered" \
	"$(json_get '[x["stats"]["registered"] for x in d["devices"] if x["name"] == "vda"]')" "[False]"
expect_run "unbind the unregistered model" 0 "^unbound $D \(vda\) from iocost_2x" "$CTL" unbind vda

# ---- unbind --all ----
V=$(cat /sys/block/vdb/dev)
nothing="^nothing was bound: every disk uses the builtin linear model$"
expect_run "unbind --all with a DEV is a usage error" 2 \
	"^iocostctl: unbind: --all takes no DEV: it unbinds every bound disk$" "$CTL" unbind --all vda
expect_run "unbind DEV --all is the same usage error" 2 "unbind: --all takes no DEV" \
	"$CTL" unbind "$D" --all
expect_run "unbind without DEV or --all is a usage error" 2 "^iocostctl: unbind: expected DEV or --all$" \
	"$CTL" unbind
expect_run "--dry-run without --all is a usage error" 2 "^iocostctl: unbind: --dry-run goes with --all$" \
	"$CTL" unbind --dry-run vda
expect_run "unbind --all with nothing bound" 0 "$nothing" "$CTL" unbind --all
expect_run "unbind --all --dry-run with nothing bound" 0 "$nothing" "$CTL" unbind --all --dry-run

expect_run "bind vda to ms2" 0 "^bound $D \(vda\) to ms2$" "$CTL" bind vda ms2
expect_run "bind vdb to ms2 in shadow mode" 0 "^bound $V \(vdb\) to ms2 in shadow mode: " \
	"$CTL" bind /dev/vdb ms2 --shadow
sh -c 'echo $$ > /sys/fs/cgroup/t08/cgroup.procs; exec dd if=/dev/vda of=/dev/null bs=4k count=4 iflag=direct 2>/dev/null'
both=$(printf '%s\n' "$D model=ms2 mode=enforce" "$V model=ms2 mode=shadow" | sort)
expect_eq "two disks bound" "$(sort "$SYS/bindings")" "$both"
expect_eq "two stats lines" "$(grep -c . "$SYS/stats")" 2
expect_run "unbind --all --dry-run lists vda" 0 "^would unbind $D \(vda\) from ms2$" \
	"$CTL" unbind --all --dry-run
expect_match "unbind --all --dry-run lists vdb" "$out" "^would unbind $V \(vdb\) from ms2$"
expect_eq "unbind --all --dry-run printed two lines" "$(grep -c . <<<"$out")" 2
expect_eq "unbind --all --dry-run changed nothing" "$(sort "$SYS/bindings")" "$both"
expect_run "unbind --all as nobody fails on vda: need root" 1 \
	"^iocostctl: unbind --all: $D \(vda\) from ms2: $SYS/bindings: Permission denied \(need root \(CAP_SYS_ADMIN\)\)$" \
	"${NOBODY[@]}" "$CTL" unbind --all
expect_match "unbind --all as nobody fails on vdb too" "$out" \
	"^iocostctl: unbind --all: $V \(vdb\) from ms2: $SYS/bindings: Permission denied \(need root"
expect_match "unbind --all as nobody counts the disks still bound" "$out" \
	"^iocostctl: unbind --all: 2 of 2 disks still bound$"
expect_eq "the refused unbind --all changed nothing" "$(sort "$SYS/bindings")" "$both"
expect_run "unbind --all" 0 "^unbound $D \(vda\) from ms2: back to the builtin linear model$" \
	"$CTL" unbind --all
show "$out"
expect_match "unbind --all unbound vdb" "$out" "^unbound $V \(vdb\) from ms2: back to the builtin linear model$"
expect_eq "unbind --all printed one line per disk" "$(grep -c . <<<"$out")" 2
expect_eq "bindings empty after unbind --all" "$(cat "$SYS/bindings")" ""
expect_eq "stats empty after unbind --all" "$(cat "$SYS/stats")" ""
expect_match "ms2 has no binding left" "$(cat "$SYS/models")" "^ms2 bindings=0$"
expect_run "unbind --all again: nothing was bound" 0 "$nothing" "$CTL" unbind --all

# the escape hatch with the model unregistered and a bound disk removed
expect_run "bind vda to ms2 again" 0 "^bound" "$CTL" bind vda ms2
expect_run "bind vdb to ms2 again, in shadow mode" 0 "^bound" "$CTL" bind vdb ms2 --shadow
NB=/sys/kernel/config/nullb
N=
if modprobe null_blk nr_devices=0 && mkdir "$NB/nullb8" && echo 1 >"$NB/nullb8/power"; then
	N=$(cat /sys/block/nullb8/dev)
	expect_run "bind the null_blk disk nullb8 to ms2" 0 "^bound $N \(nullb8\) to ms2$" \
		"$CTL" bind nullb8 ms2
else
	not_ok "create the null_blk disk nullb8"
fi
expect_run "unload ms2 while bound" 0 "^unloaded ms2$" "$CTL" unload ms2
expect_match "unload says vdb stays bound" "$out" "^ms2 is still bound to $V \(vdb\)"
expect_eq "no models left" "$(cat "$SYS/models")" ""
if [ -n "$N" ]; then
	echo 0 >"$NB/nullb8/power"
	rmdir "$NB/nullb8"
fi
expect_run "unbind --all of an unregistered model" 0 \
	"^unbound $D \(vda\) from ms2: back to the builtin linear model$" "$CTL" unbind --all
show "$out"
expect_match "unbind --all unbound vdb from the unregistered model" "$out" "^unbound $V \(vdb\) from ms2: "
expect_nomatch "unbind --all: nothing about the removed disk failed" "$out" "^iocostctl: "
expect_eq "bindings empty after unbind --all of an unregistered model" "$(cat "$SYS/bindings")" ""
expect_eq "stats empty after unbind --all of an unregistered model" "$(cat "$SYS/stats")" ""
rmmod null_blk 2>/dev/null
expect_run "unload an unknown model fails" 1 \
	"^iocostctl: unload nosuch: $PINS/nosuch: No such file or directory \(no model named nosuch is registered\)$" \
	"$CTL" unload nosuch
run "$CTL" status
expect_match "status with no models" "$out" "^no models registered$"

# ---- module not loaded ----
check "the module unloads" wait_unload
hint="/sys/kernel/iocost_bpf: No such file or directory \(the iocost_bpf module is not loaded: modprobe iocost_bpf\)$"
expect_run "status without the module" 1 "^iocostctl: status: $hint" "$CTL" status
expect_run "status --json without the module" 1 "^iocostctl: status: $hint" "$CTL" status --json
expect_run "bind without the module" 1 "^iocostctl: bind vda iocost_2x: $hint" "$CTL" bind vda iocost_2x
expect_run "bind --shadow without the module" 1 "^iocostctl: bind vda iocost_2x --shadow: $hint" \
	"$CTL" bind vda iocost_2x --shadow
expect_run "load without the module" 1 "^iocostctl: load: $hint" "$CTL" load "$OBJ2X"
expect_run "unload without the module" 1 "^iocostctl: unload x: $hint" "$CTL" unload x
expect_run "unbind without the module" 1 "^iocostctl: unbind vda: $hint" "$CTL" unbind vda
expect_run "unbind --all without the module: nothing was bound" 0 \
	"^nothing was bound: the iocost_bpf module is not loaded$" "$CTL" unbind --all
expect_run "top without the module" 1 "iocost_ioc_tick: No such file or directory \(the iocost_bpf module is not loaded: modprobe iocost_bpf\)$" \
	"$CTL" top --count 1
finish
