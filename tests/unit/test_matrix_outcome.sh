#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/unit/test_matrix_outcome.sh - the kernel matrix's verdicts, on the
# host (make unit): every rule of tests/vm/matrix-outcome.sh, the real
# tests/vm/matrix.conf, and tests/vm/matrix itself on the paths that start
# no VM (a kernel not in matrix.conf; MATRIX_DEADLINE skipping every
# kernel).  TAP, for prove.
set -uo pipefail
# hermetic: what the caller's environment says about guests and the matrix
# (.ci/run exports IOCOST_VM_SHARED=1) must not reach the cases below,
# which set what each one needs
unset IOCOST_VM_SHARED IOCOST_VM_PARALLEL IOCOST_VM_LANES MATRIX_JOBS \
	MATRIX_DEADLINE MATRIX_KERNEL_BUDGET MATRIX_SHORT_BUDGET MATRIX_OUT \
	MATRIX_TESTS MATRIX_KERNELS MATRIX_DWARF MATRIX_MAX MATRIX_README

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/vm/matrix-outcome.sh
. "$top/tests/vm/matrix-outcome.sh"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
diag() { local l; while IFS= read -r l; do echo "#   $l"; done <<<"$1"; }

quiet() { "$@" >/dev/null; }

# status WANT DESCRIPTION CMD...: CMD's exit status must be WANT
status() {
	local want=$1 what=$2 rc
	shift 2
	"$@"
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$what"
	else
		not_ok "$what (status $rc, want $want)"
	fi
}

# verdict WANT EXPECTED ACTUAL TEXT [GREP]: matrix_outcome's status must be
# WANT (0 pass, 1 fail, 2 usage) and its details must contain GREP
verdict() {
	local want=$1 expected=$2 actual=$3 text=$4 grep=${5:-} out rc
	out=$(matrix_outcome "$expected" "$actual" "$text" ${NTESTS:+"$NTESTS"})
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$grep" ] || grep -qF -- "$grep" <<<"$out"; }; then
		ok "$expected / $actual: status $rc: $out"
	else
		not_ok "$expected / $actual: status $rc (want $want, details with \"$grep\"): $out"
	fi
}

# the build's messages, as today's kernels give them
r61='iocost_bpf: kernel 6.1.192 is not supported: modules cannot register struct_ops before Linux 6.9'
r7x="function calc_vtime_cost_builtin is not in the kernel's BTF, and function ioc_rqos_merge is not in the kernel's BTF: this kernel is not supported; pahole leaves compiler clones out of BTF; where GCC emitted only the IPA-SRA clone calc_vtime_cost_builtin.isra.N (Debian's 7.x kernels), the module hooks the clone and checks each call against its callers ioc_rqos_throttle() and ioc_rqos_merge(), which must then be in BTF with their prototypes, as must struct ioc_gq member pd.blkg"
h61=' -- hook target: calc_vtime_cost_builtin (in BTF)'
h7x=' -- hook target: calc_vtime_cost_builtin.isra.0 (not in BTF)'
rcfg='iocost_bpf: kernel 6.12.5 is not supported: CONFIG_BLK_CGROUP_IOCOST is not set'
rmem="struct blkcg_gq member 'blkcg': 4 bytes, expected 8: this kernel is not supported"
rcc='iocost_bpf: kernel 6.12.118+deb13-amd64 was built with gcc-14, and gcc-14 is not installed: install gcc-14 from the Debian release this kernel comes from'

echo "# the reasons"
for t in pre-6.9 kconfig btf-member isra-clone; do
	status 0 "reason $t has a pattern" quiet matrix_reason_pattern "$t"
	status 0 "expected outcome refused:$t is accepted" matrix_expected_valid "refused:$t"
done
status 1 "an unknown reason has no pattern" quiet matrix_reason_pattern too-old
for e in refused:bogus refused: refused Supported '' 'default flavour'; do
	status 1 "expected outcome '$e' is rejected" matrix_expected_valid "$e"
done
status 0 "expected outcome 'supported' is accepted" matrix_expected_valid supported

echo "# what counts as a refusal"
for m in "$r61" "$r7x" "$rcfg" "$rmem"; do
	status 0 "a refusal: ${m:0:60}" matrix_refusal "$m"
done
for m in "$rcc" "src/hook.c:12:1: error: unknown type name 'foo'" ''; do
	status 1 "not a refusal: '${m:0:60}'" matrix_refusal "$m"
done

echo "# expected supported"
verdict 0 supported tested '8 passed, 0 failed' '8 passed, 0 failed'
verdict 1 supported tested '7 passed, 1 failed (failed: 03-pricing)' 'failed: 03-pricing'
verdict 1 supported tested '0 passed, 0 failed'
verdict 1 supported tested '10 passed, 10 failed'
verdict 1 supported tested 'no result: qemu: timeout' 'no result'
verdict 1 supported refused "$r7x$h7x" 'expected supported, but refused: function calc_vtime_cost_builtin is not in'
verdict 1 supported refused "$rcfg$h61" 'CONFIG_BLK_CGROUP_IOCOST is not set'
verdict 1 supported broken 'fetch failed: E: no such package' 'fetch failed'
verdict 1 supported broken "build failed without a refusal: $rcc" 'gcc-14 is not installed'
verdict 1 supported skipped '' 'MATRIX_DEADLINE'
verdict 1 supported tested '8 passed, 0 failed (tests/vm/run exit status 125)' 'exit status 125'
verdict 1 supported tested '8 passed, 0 failed (8 tests ran, 9 asked for)' '9 asked for'
NTESTS=9 verdict 1 supported tested '8 passed, 0 failed' '8 passed'
NTESTS=9 verdict 0 supported tested '9 passed, 0 failed' '9 passed'

echo "# what tests/vm/run said (matrix_run_text NTESTS STATUS LOG)"
runtext() {	# WANT NTESTS STATUS LOG-TEXT
	local got
	printf '%s\n' "$4" >"$tmp/run.log"
	got=$(matrix_run_text "$2" "$3" "$tmp/run.log")
	if [ "$got" = "$1" ]; then
		ok "run text: $2 asked, status $3: '$got'"
	else
		not_ok "run text: $2 asked, status $3: got '$got', want '$1'"
	fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runtext '9 passed, 0 failed' 9 0 $'PASS x\n9 passed, 0 failed'
runtext '8 passed, 0 failed (8 tests ran, 9 asked for)' 9 0 $'PASS x\n8 passed, 0 failed'
runtext '9 passed, 0 failed (tests/vm/run exit status 125)' 9 125 \
	$'9 passed, 0 failed\nvmrun: error: the guest kernel panicked before CMD reported an exit status'
runtext '8 passed, 1 failed (failed: 03-pricing) (tests/vm/run exit status 1)' 9 1 \
	$'failed: 03-pricing\n8 passed, 1 failed'
runtext 'no result: vmrun: timeout (tests/vm/run exit status 124)' 9 124 $'=== 01-load\nvmrun: timeout'
# two guests (IOCOST_VM_SHARED): each one's summary, then the whole list's
runtext '7 passed, 2 failed (failed: 21-disk-pulled 06-tick) (tests/vm/run exit status 1)' 9 1 \
	$'failed: 21-disk-pulled\n7 passed, 1 failed\nfailed: 06-tick\n0 passed, 1 failed\nfailed: 21-disk-pulled 06-tick\n7 passed, 2 failed'
for t in '9 passed, 0 failed' '8 passed, 0 failed (8 tests ran, 9 asked for)'; do
	NTESTS=9 verdict "$([ "$t" = '9 passed, 0 failed' ] && echo 0 || echo 1)" supported tested "$t"
done

echo "# the DWARF cross-check of a clone kernel (matrix_dwarf_check)"
dwarf_yes='calc_vtime_cost_builtin.isra.0: bio: not passed; iocg: arg 3 (rcx); is_merge: arg 4 (r8); costp: arg 5 (r9) -> hookable through src/clone.c: yes'
dwarf_no='calc_vtime_cost_builtin.isra.0: iocg: arg 1 (rsi) -> hookable through src/clone.c: no (iocg arg 1 (rsi), src/clone.c reads arg 3 (rcx))'
status 0 "no clone: nothing to check" quiet matrix_dwarf_check 'calc_vtime_cost_builtin (in BTF)' ''
status 0 "a clone whose DWARF agrees" quiet matrix_dwarf_check 'calc_vtime_cost_builtin.isra.0 (not in BTF)' "$dwarf_yes"
status 1 "a clone whose DWARF disagrees" quiet matrix_dwarf_check 'calc_vtime_cost_builtin.isra.0 (not in BTF)' "$dwarf_no"
status 1 "a clone, one of two copies disagrees" quiet matrix_dwarf_check \
	'calc_vtime_cost_builtin.isra.0 calc_vtime_cost_builtin.isra.1 (not in BTF)' "$dwarf_yes"$'\n'"$dwarf_no"
status 1 "a clone whose DWARF was not read (MATRIX_DWARF=0, clone-abi failed)" quiet \
	matrix_dwarf_check 'calc_vtime_cost_builtin.isra.0 (not in BTF)' ''

echo "# expected refused: 6.1 passes only on its real reason"
verdict 0 refused:pre-6.9 refused "$r61$h61" 'modules cannot register struct_ops before Linux 6.9'
verdict 1 refused:pre-6.9 refused "$rcfg$h61" 'expected refused (pre-6.9), but refused for another reason'
verdict 1 refused:pre-6.9 refused "$r7x$h7x" 'another reason'
verdict 1 refused:pre-6.9 broken "build failed without a refusal: src/hook.c:1: error: x" 'without a refusal'
verdict 1 refused:pre-6.9 broken "build failed without a refusal: $rcc"
verdict 1 refused:pre-6.9 tested '8 passed, 0 failed' 'built, but it should have been refused (pre-6.9)'
verdict 1 refused:pre-6.9 skipped '' 'MATRIX_DEADLINE'

echo "# expected refused: 7.x only for the IPA-SRA clone"
verdict 0 refused:isra-clone refused "$r7x$h7x" 'calc_vtime_cost_builtin.isra.0'
verdict 1 refused:isra-clone refused "$r7x -- hook target: no calc_vtime_cost_builtin" 'another reason'
verdict 1 refused:isra-clone refused "$r7x -- hook target: calc_vtime_cost_builtin calc_vtime_cost_builtin.isra.0 (not in BTF)" 'another reason'
verdict 1 refused:isra-clone refused "$r7x -- hook target: probe failed: qemu died" 'another reason'
verdict 1 refused:isra-clone refused "$r61$h7x" 'another reason'
verdict 1 refused:isra-clone tested '8 passed, 0 failed' 'should have been refused (isra-clone)'
verdict 0 refused:kconfig refused "$rcfg$h61"
verdict 0 refused:btf-member refused "$rmem$h61"
verdict 1 refused:btf-member refused "$r61$h61" 'another reason'

echo "# nonsense in, usage error out"
verdict 2 refused:bogus refused "$r61" "unknown expected outcome"
verdict 2 'default flavour' tested '8 passed, 0 failed' "unknown expected outcome"
verdict 2 supported '' '' "unknown actual outcome"

echo "# MATRIX_DEADLINE"
now=1000000
unset MATRIX_DEADLINE MATRIX_KERNEL_BUDGET MATRIX_SHORT_BUDGET
status 1 "no deadline: never skipped" matrix_past_deadline $now
MATRIX_DEADLINE=$((now + 481)) status 1 "481 s left: runs (480 s budget)" matrix_past_deadline $now
MATRIX_DEADLINE=$((now + 479)) status 0 "479 s left: skipped" matrix_past_deadline $now
MATRIX_DEADLINE=$((now + 479)) MATRIX_KERNEL_BUDGET=60 \
	status 1 "479 s left, 60 s budget: runs" matrix_past_deadline $now
MATRIX_DEADLINE=$((now + 479)) MATRIX_KERNEL_BUDGET=1200 MATRIX_SHORT_BUDGET=400 \
	status 1 "479 s left, 400 s budget for the matrix tests: a short kernel runs" matrix_past_deadline $now matrix
MATRIX_DEADLINE=$((now + 479)) MATRIX_KERNEL_BUDGET=1200 MATRIX_SHORT_BUDGET=400 \
	status 0 "479 s left, 1200 s budget for the whole suite: a whole-suite kernel is skipped" matrix_past_deadline $now all
MATRIX_DEADLINE=$((now + 479)) MATRIX_KERNEL_BUDGET=400 \
	status 1 "479 s left, no short budget: the matrix tests get MATRIX_KERNEL_BUDGET" matrix_past_deadline $now matrix
MATRIX_DEADLINE=$((now + 399)) MATRIX_KERNEL_BUDGET=1200 MATRIX_SHORT_BUDGET=400 \
	status 0 "399 s left, 400 s budget for the matrix tests: a short kernel is skipped" matrix_past_deadline $now matrix

echo "# the report"
report() {	# WANT_STATUS WANT_CLOSING WANT_LINE VERDICT...
	local want=$1 closing=$2 line=$3 out rc
	shift 3
	if [ $# -gt 0 ]; then
		out=$(printf '%s\n' "$@" | matrix_report)
	else
		out=$(matrix_report </dev/null)
	fi
	rc=$?
	if [ "$rc" = "$want" ] && [ "$(tail -1 <<<"$out")" = "$closing" ] &&
	   grep -qxF -- "$line" <<<"$out"; then
		ok "report: status $rc, \"$closing\", \"$line\""
	else
		not_ok "report: status $rc (want $want, \"$closing\", \"$line\"):"
		diag "$out"
	fi
}
report 0 '2 passed, 0 failed' 'ok 2 - b: refused: x' 'PASS|a|supported' 'PASS|b|refused: x'
report 1 '1 passed, 1 failed' 'not ok 2 - b: expected supported, but refused: x' \
	'PASS|a|supported' 'FAIL|b|expected supported, but refused: x'
report 1 '0 passed, 2 failed' 'failed: a b' 'FAIL|a|skipped' 'FAIL|b|skipped'
report 1 '0 passed, 0 failed' '1..0'
report 0 '1 passed, 0 failed' 'ok 1 - a: x | y' 'PASS|a|x | y'

echo "# tests/vm/matrix.conf"
if matrix_read_conf "$top/tests/vm/matrix.conf" 2>/dev/null; then
	ok "matrix.conf parses: ${#matrix_all[@]} kernels"
else
	not_ok "matrix.conf does not parse: $(matrix_read_conf "$top/tests/vm/matrix.conf" 2>&1)"
fi
conf_kernels=("${matrix_all[@]}")
# shellcheck source=tests/vm/kernel.conf disable=SC1091
. "$top/tests/vm/kernel.conf"
for want in "$IOCOST_DEFAULT_KERNEL supported" "6.1.0-57-amd64 refused:pre-6.9" \
	    "7.3.4+deb13-amd64 supported" "7.2.13+deb14-amd64 supported"; do
	k=${want% *}
	if [ "${matrix_expected[$k]:-}" = "${want#* }" ]; then
		ok "matrix.conf: $want"
	else
		not_ok "matrix.conf: $k is '${matrix_expected[$k]:-not listed}', want ${want#* }"
	fi
done
conf_bad() {	# DESCRIPTION LINE: a matrix.conf with LINE does not parse
	printf '# c\n6.12.1-amd64 s supported matrix note\n%s\n' "$2" >"$tmp/conf"
	if matrix_read_conf "$tmp/conf" 2>"$tmp/err"; then
		not_ok "matrix.conf with $1 parses"
	else
		ok "matrix.conf with $1 is refused: $(cat "$tmp/err")"
	fi
}
conf_bad "the old three columns" '6.1.0-57-amd64 bookworm Debian 12 default: no struct_ops'
conf_bad "no EXPECTED" '6.1.0-57-amd64 bookworm'
conf_bad "no TESTS" '6.1.0-57-amd64 bookworm refused:pre-6.9'
conf_bad "the old four columns (a NOTE word for TESTS)" '6.1.0-57-amd64 bookworm refused:pre-6.9 Debian 12'
conf_bad "an unknown reason" '6.1.0-57-amd64 bookworm refused:too-old matrix note'
conf_bad "a kernel twice" '6.12.1-amd64 s refused:pre-6.9 matrix note'

echo "# tests/vm/matrix, without a VM"
out=$("$top/tests/vm/matrix" 9.9.9-unknown-amd64 2>&1)
rc=$?
if [ "$rc" = 2 ] && grep -q 'is not in tests/vm/matrix.conf' <<<"$out"; then
	ok "a kernel not in matrix.conf: usage error (status 2)"
else
	not_ok "a kernel not in matrix.conf: status $rc: $out"
fi
# a deadline already past: every kernel is skipped before anything is
# fetched, and the run fails, naming them
out=$(MATRIX_DEADLINE=1 MATRIX_OUT=$tmp/out "$top/tests/vm/matrix" 2>&1)
rc=$?
nk=${#conf_kernels[@]}
if [ "$rc" = 1 ] && [ "$(tail -1 <<<"$out")" = "0 passed, $nk failed" ] &&
   grep -qxF "failed: ${conf_kernels[*]}" <<<"$out" &&
   [ "$(grep -c '^not ok .*: skipped: it might not finish before MATRIX_DEADLINE' <<<"$out")" = "$nk" ]; then
	ok "MATRIX_DEADLINE past: $nk kernels skipped, '0 passed, $nk failed', status 1"
else
	not_ok "MATRIX_DEADLINE past: status $rc:"
	diag "$out"
fi
out=$(MATRIX_DEADLINE=1 MATRIX_OUT=$tmp/out "$top/tests/vm/matrix" 6.1.0-57-amd64 2>&1)
rc=$?
if [ "$rc" = 1 ] && [ "$(tail -1 <<<"$out")" = "0 passed, 1 failed" ] &&
   grep -q '^| 6.1.0-57-amd64 | .* | FAIL | skipped' "$tmp/out/summary.md"; then
	ok "MATRIX_DEADLINE past, one kernel: '0 passed, 1 failed', status 1, FAIL in the table"
else
	not_ok "MATRIX_DEADLINE past, one kernel: status $rc:"
	diag "$out"
fi

# the whole script on a fake tree: tests/vm/matrix and its outcome rules
# copied, everything it runs (fetch-kernel, kernel-check, make, vmrun, run)
# a stub that plays back what tmp/fake/KERNEL.* says
fake=$tmp/tree
mkdir -p "$fake/tests/vm" "$fake/src" "$fake/bin" "$fake/fake"
cp "$top/tests/vm/matrix" "$top/tests/vm/matrix-outcome.sh" "$fake/tests/vm/"
cat >"$fake/tests/vm/fetch-kernel" <<'STUB'
#!/bin/bash
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/.cache/kernels/$1" && touch "$top/.cache/kernels/$1/.complete"
STUB
printf '#!/bin/sh\nexit 0\n' >"$fake/src/kernel-check"
cat >"$fake/bin/make" <<'STUB'
#!/bin/bash
for a; do case "$a" in KDIR=*) k=${a#KDIR=*/.cache/kernels/}; k=${k%%/*} ;; esac; done
[ -n "${k:-}" ] || exit 0
cat "fake/$k.build"
[ "$(cat "fake/$k.build-rc")" = 0 ] || exit 2
mkdir -p "build/$k" && echo "ftrace ip-modify (fake)" >"build/$k/hook-strategy"
STUB
cat >"$fake/tests/vm/vmrun" <<'STUB'
#!/bin/bash
top=$(cd "$(dirname "$0")/../.." && pwd)
cat "$top/fake/$2.hook"
STUB
cat >"$fake/tests/vm/run" <<'STUB'
#!/bin/bash
top=$(cd "$(dirname "$0")/../.." && pwd)
k=$2
shift 2
echo "$*" >"$top/fake/$k.args"
[ -n "${IOCOST_VM_SHARED:-}" ] && touch "$top/fake/$k.shared"
cat "$top/fake/$k.run"
exit "$(cat "$top/fake/$k.run-rc" 2>/dev/null || echo 0)"
STUB
chmod +x "$fake/tests/vm/"* "$fake/src/kernel-check" "$fake/bin/make"
# fake_kernel NAME EXPECTED BUILD-RC BUILD-OUTPUT HOOK [RUN-OUTPUT]
fake_kernel() {
	echo "$1 suite $2 ${FAKE_TESTS:-matrix} a fake" >>"$fake/tests/vm/matrix.conf"
	echo "$3" >"$fake/fake/$1.build-rc"
	printf '%s\n' "$4" >"$fake/fake/$1.build"
	echo "$5" >"$fake/fake/$1.hook"
	printf '%s\n' "${6:-}" >"$fake/fake/$1.run"
}
inbtf='calc_vtime_cost_builtin (in BTF)'
isra='calc_vtime_cost_builtin.isra.0 (not in BTF)'
btfgen="iocost-btfgen: /k/vmlinux: $r7x"
pass=$'=== 01-load\nPASS 01-load\n8 passed, 0 failed'
fake_kernel 6.12.1-amd64 supported 0 'CC iocost_bpf.o' "$inbtf" "$pass"
fake_kernel 6.12.2-amd64 supported 0 'CC iocost_bpf.o' "$inbtf" $'failed: 03-pricing\n7 passed, 1 failed'
fake_kernel 6.12.3-amd64 supported 2 "$rcfg" "$inbtf"
fake_kernel 7.3.4-amd64 refused:isra-clone 2 "$btfgen" "$isra"
fake_kernel 7.3.5-amd64 refused:isra-clone 2 "$btfgen" 'no calc_vtime_cost_builtin'
fake_kernel 6.1.1-amd64 refused:pre-6.9 2 "$r61" "$inbtf"
fake_kernel 6.1.2-amd64 refused:pre-6.9 2 "src/hook.c:1:1: error: boom" "$inbtf"
fake_kernel 6.1.3-amd64 refused:pre-6.9 0 'CC iocost_bpf.o' "$inbtf" "$pass"
# the summary printed, then the guest panicked; one test short
fake_kernel 6.12.4-amd64 supported 0 'CC iocost_bpf.o' "$inbtf" "$pass"
echo 125 >"$fake/fake/6.12.4-amd64.run-rc"
fake_kernel 6.12.5-amd64 supported 0 'CC iocost_bpf.o' "$inbtf" $'PASS 01-load\n7 passed, 0 failed'
# a clone kernel that builds and passes, its DWARF not read (MATRIX_DWARF=0)
fake_kernel 7.3.6-amd64 supported 0 'CC iocost_bpf.o' "$isra" "$pass"
# a kernel on which the whole suite runs (TESTS "all"): every test of
# tests/vm/t but 11-btf-digest
mkdir -p "$fake/tests/vm/t"
alltests=()
for t in "$top"/tests/vm/t/*.sh; do
	cp "$t" "$fake/tests/vm/t/"
	t=${t##*/}
	[ "$t" = 11-btf-digest.sh ] || alltests+=("${t%.sh}")
done
FAKE_TESTS=all fake_kernel 6.12.6-rt-amd64 supported 0 'CC iocost_bpf.o' "$inbtf" "${#alltests[@]} passed, 0 failed"
out=$(cd "$fake" && PATH=$fake/bin:$PATH MATRIX_DWARF=0 \
	MATRIX_TESTS='01-load 02-register 03-pricing 05-device-gone 06-tick 07-lifecycle 14-preempt 17-clone' \
	tests/vm/matrix 2>&1)
rc=$?
fake_verdict() {	# WANT KERNEL DETAILS: the run's TAP line for KERNEL
	local line
	line=$(grep -E "^(not )?ok [0-9]+ - $2: " <<<"$out")
	if [[ $line == "$1 "*" - $2: "*"$3"* ]]; then
		ok "fake run: $line"
	else
		not_ok "fake run: $2: want '$1 ... $3', got: ${line:-no line}"
	fi
}
fake_verdict ok 6.12.1-amd64 '8 passed, 0 failed'
fake_verdict 'not ok' 6.12.2-amd64 '7 passed, 1 failed (failed: 03-pricing)'
fake_verdict 'not ok' 6.12.3-amd64 'expected supported, but refused: iocost_bpf: kernel 6.12.5 is not supported: CONFIG_BLK_CGROUP_IOCOST is not set'
fake_verdict ok 7.3.4-amd64 "refused: function calc_vtime_cost_builtin is not in the kernel's BTF"
fake_verdict 'not ok' 7.3.5-amd64 'expected refused (isra-clone), but refused for another reason'
fake_verdict ok 6.1.1-amd64 'refused: iocost_bpf: kernel 6.1.192 is not supported: modules cannot register struct_ops before Linux 6.9'
fake_verdict 'not ok' 6.1.2-amd64 'build failed without a refusal: src/hook.c:1:1: error: boom'
fake_verdict 'not ok' 6.1.3-amd64 'built, but it should have been refused (pre-6.9); tests: 8 passed, 0 failed'
fake_verdict 'not ok' 6.12.4-amd64 '8 passed, 0 failed (tests/vm/run exit status 125)'
fake_verdict 'not ok' 6.12.5-amd64 '7 passed, 0 failed (7 tests ran, 8 asked for)'
fake_verdict 'not ok' 7.3.6-amd64 '8 passed, 0 failed -- but its DWARF cross-check did not run -- DWARF: not read (MATRIX_DWARF=0)'
fake_verdict ok 6.12.6-rt-amd64 "${#alltests[@]} passed, 0 failed"
expect_args() {	# KERNEL WANT: the tests tests/vm/run was asked for
	if [ "$(cat "$fake/fake/$1.args" 2>/dev/null)" = "$2" ]; then
		ok "fake run: $1 ran: $2"
	else
		not_ok "fake run: $1 ran '$(cat "$fake/fake/$1.args" 2>/dev/null)', want '$2'"
	fi
}
expect_args 6.12.6-rt-amd64 "${alltests[*]}"
expect_args 6.12.1-amd64 '01-load 02-register 03-pricing 05-device-gone 06-tick 07-lifecycle 14-preempt 17-clone'
if [ ! -e "$fake/fake/6.12.1-amd64.shared" ]; then
	ok "fake run, one lane: tests/vm/run without IOCOST_VM_SHARED"
else
	not_ok "fake run, one lane: tests/vm/run got IOCOST_VM_SHARED"
fi
if [ "$rc" = 1 ] && [ "$(tail -1 <<<"$out")" = "4 passed, 8 failed" ] &&
   grep -qxF 'failed: 6.12.2-amd64 6.12.3-amd64 7.3.5-amd64 6.1.2-amd64 6.1.3-amd64 6.12.4-amd64 6.12.5-amd64 7.3.6-amd64' <<<"$out" &&
   grep -q '^| 6.1.1-amd64 | .* | not supported (pre-6.9) | ' "$fake/build/kernel-matrix/summary.md" &&
   grep -q '^| 6.12.1-amd64 | .* | supported | 8 passed, 0 failed | ' "$fake/build/kernel-matrix/summary.md"; then
	ok "fake run: '4 passed, 8 failed', status 1, the table's results"
else
	not_ok "fake run: status $rc:"
	diag "$out"
fi


# the same kernels in two lanes (MATRIX_JOBS=2): the same verdicts, in
# matrix.conf's order, the tests in guests that may run side by side
tap=$(grep -E '^(not )?ok [0-9]+ - ' <<<"$out")
rm -f "$fake"/fake/*.shared
out2=$(cd "$fake" && PATH=$fake/bin:$PATH MATRIX_DWARF=0 MATRIX_JOBS=2 TMPDIR=$tmp \
	MATRIX_TESTS='01-load 02-register 03-pricing 05-device-gone 06-tick 07-lifecycle 14-preempt 17-clone' \
	tests/vm/matrix 2>&1)
rc2=$?
if [ "$rc2" = 1 ] && [ "$(grep -E '^(not )?ok [0-9]+ - ' <<<"$out2")" = "$tap" ] &&
   [ "$(tail -1 <<<"$out2")" = "4 passed, 8 failed" ]; then
	ok "fake run, two lanes: the same $(wc -l <<<"$tap") verdicts in the same order, status 1"
else
	not_ok "fake run, two lanes: status $rc2:"
	diag "$(diff <(echo "$tap") <(grep -E '^(not )?ok [0-9]+ - ' <<<"$out2"))"
fi
if [ -e "$fake/fake/6.12.1-amd64.shared" ]; then
	ok "fake run, two lanes: tests/vm/run with IOCOST_VM_SHARED=1"
else
	not_ok "fake run, two lanes: tests/vm/run without IOCOST_VM_SHARED"
fi
out3=$(cd "$fake" && MATRIX_JOBS=3 tests/vm/matrix 6.12.1-amd64 2>&1)
rc3=$?
if [ "$rc3" = 2 ] && grep -q 'MATRIX_JOBS is 1 or 2' <<<"$out3"; then
	ok "MATRIX_JOBS=3: usage error (status 2): $out3"
else
	not_ok "MATRIX_JOBS=3: status $rc3: $out3"
fi

echo "# tests/vm/matrix.conf: the whole suite on each hook strategy (issue 31)"
matrix_read_conf "$top/tests/vm/matrix.conf" 2>/dev/null
for k in 6.12.118+deb12-rt-amd64 7.3.4+deb13-amd64; do
	if [ "${matrix_tests[$k]:-}" = all ]; then
		ok "matrix.conf: $k runs all tests"
	else
		not_ok "matrix.conf: $k runs '${matrix_tests[$k]:-}', want all"
	fi
done

echo "1..$n"
[ "$fails" = 0 ]
