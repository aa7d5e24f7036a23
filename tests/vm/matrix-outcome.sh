# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tests/vm/matrix-outcome.sh - the kernel matrix's verdicts (sourced by
# tests/vm/matrix and by the host test tests/unit/test_matrix_outcome.sh)
#
# Every kernel of tests/vm/matrix.conf states what must happen to it:
#   supported         it builds and every MATRIX_TESTS test passes on it;
#   refused:REASON    the build refuses it, for that reason.
# The reasons, and what the refusal must match (an extended regex over the
# build's refusal message, then " -- hook target: " and what the booted
# kernel's /proc/kallsyms shows, as tests/vm/matrix composes it):
#   pre-6.9      src/kernel-check: modules cannot register struct_ops
#                before Linux 6.9 (Debian 12's 6.1)
#   kconfig      src/kernel-check: a CONFIG_ option the module needs is
#                not set
#   btf-member   iocost-btfgen: a struct member the module needs is missing
#                from (or has another size in) the kernel's BTF
#   isra-clone   iocost-btfgen: calc_vtime_cost_builtin is not in the
#                kernel's BTF, nor is what hooking its IPA-SRA clone needs
#                (src/clone.c), and the booted kernel has only the clone
#                calc_vtime_cost_builtin.isra.N
# A kernel refused for a reason other than its own fails the matrix, as
# does a supported one that is refused, or a refused one that builds.

# matrix_reason_pattern REASON: print the regex REASON's refusal must match;
# status 1 for an unknown reason
matrix_reason_pattern() {
	case "$1" in
	pre-6.9)
		echo 'is not supported: modules cannot register struct_ops before Linux 6\.9' ;;
	kconfig)
		echo 'is not supported: CONFIG_[A-Z0-9_]+ is not set' ;;
	btf-member)
		echo "struct [a-z0-9_]+ member '[^']+': [^:]+: this kernel is not supported" ;;
	isra-clone)
		echo "function calc_vtime_cost_builtin is not in the kernel's BTF, and [^:]*: this kernel is not supported.* -- hook target: calc_vtime_cost_builtin\\.isra\\.[0-9]+ \\(not in BTF\\)" ;;
	*)
		return 1 ;;
	esac
}

# matrix_expected_valid EXPECTED: status 0 when EXPECTED is "supported" or
# "refused:REASON" with a known REASON
matrix_expected_valid() {
	case "$1" in
	supported) return 0 ;;
	refused:*) matrix_reason_pattern "${1#refused:}" >/dev/null ;;
	*) return 1 ;;
	esac
}

# matrix_refusal TEXT: status 0 when a build's message is a refusal (a
# readable "... is not supported ..." from src/kernel-check or
# iocost-btfgen), not some other failure
matrix_refusal() {
	grep -q 'is not supported' <<<"$1"
}

# matrix_run_text NTESTS STATUS LOG: what one kernel's tests/vm/run said,
# for matrix_outcome's TEXT: its last "N passed, N failed" and "failed:"
# lines (with IOCOST_VM_SHARED it prints those of each guest, then the
# whole list's), then what is wrong besides: no summary, an exit status other than
# 0 (a guest panic, a timeout or a harness error after the summary), or
# fewer or more tests than the NTESTS asked for
matrix_run_text() {
	local want=$1 rc=$2 log=$3 text fails n
	text=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
	[ -n "$text" ] || text="no result: $(tail -1 "$log")"
	fails=$(grep '^failed: ' "$log" | tail -1)
	[ -n "$fails" ] && text+=" ($fails)"
	if [[ $text =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		n=$((BASH_REMATCH[1] + BASH_REMATCH[2]))
		[ "$n" = "$want" ] || text+=" ($n tests ran, $want asked for)"
	fi
	[ "$rc" = 0 ] || text+=" (tests/vm/run exit status $rc)"
	echo "$text"
}

# matrix_dwarf_check HOOK DWARF: status 0 when the kernel's hook target
# HOOK (as tests/vm/matrix probes it) is not an IPA-SRA clone missing from
# BTF, or when DWARF, tests/vm/clone-abi's output for it, says every clone
# is hookable through src/clone.c; otherwise status 1 and why: a clone
# kernel whose DWARF was not read (MATRIX_DWARF=0, a failed download)
# is not a pass
matrix_dwarf_check() {
	local hook=$1 dwarf=$2
	[[ $hook == *".isra."*"(not in BTF)"* ]] || return 0
	if [ -z "$dwarf" ]; then
		echo "its DWARF cross-check did not run"
		return 1
	fi
	if grep -q 'src/clone.c: no' <<<"$dwarf" ||
	   ! grep -q 'hookable through src/clone.c: yes' <<<"$dwarf"; then
		echo "its DWARF contradicts the registers src/clone.c reads"
		return 1
	fi
	return 0
}

# matrix_outcome EXPECTED ACTUAL TEXT [NTESTS]: the verdict on one kernel.
#   EXPECTED  its matrix.conf column: supported | refused:REASON
#   ACTUAL    tested   it was built and MATRIX_TESTS (NTESTS of them) ran;
#                      TEXT is matrix_run_text's: "N passed, N failed"
#                      alone when all went well
#             refused  the build refused it; TEXT is the refusal and the
#                      hook target found
#             broken   the fetch or the build failed without a refusal
#             skipped  not started: it might not finish before
#                      MATRIX_DEADLINE
# Prints the details for the kernel's line; status 0 for a pass, 1 for a
# failure, 2 for an EXPECTED or ACTUAL it does not know.
matrix_outcome() {
	local expected=$1 actual=$2 text=$3 ntests=${4:-} reason='' pattern=''

	if ! matrix_expected_valid "$expected"; then
		echo "unknown expected outcome '$expected'"
		return 2
	fi
	if [ "$expected" != supported ]; then
		reason=${expected#refused:}
		pattern=$(matrix_reason_pattern "$reason")
	fi
	case "$actual" in
	skipped)
		echo "skipped: it might not finish before MATRIX_DEADLINE${text:+ ($text)}"
		return 1 ;;
	broken)
		echo "${text:-failed, no reason given}"
		return 1 ;;
	tested)
		if [ -n "$reason" ]; then
			echo "built, but it should have been refused ($reason); tests: ${text:-none}"
			return 1
		fi
		echo "$text"
		# at least one test ran, none failed, nothing else went wrong, and
		# as many passed as were asked for
		[[ $text =~ ^([0-9]*[1-9][0-9]*)\ passed,\ 0\ failed$ ]] &&
			{ [ -z "$ntests" ] || [ "${BASH_REMATCH[1]}" = "$ntests" ]; }
		return ;;
	refused)
		if [ -z "$reason" ]; then
			echo "expected supported, but refused: $text"
			return 1
		fi
		if grep -qE -- "$pattern" <<<"$text"; then
			echo "refused: $text"
			return 0
		fi
		echo "expected refused ($reason), but refused for another reason: $text"
		return 1 ;;
	*)
		echo "unknown actual outcome '$actual'"
		return 2 ;;
	esac
}

# matrix_past_deadline NOW [TESTS]: status 0 when a kernel started at NOW
# (epoch seconds) might not finish before MATRIX_DEADLINE; never without a
# MATRIX_DEADLINE.  A kernel that runs the whole suite (TESTS "all") needs
# MATRIX_KERNEL_BUDGET seconds (default 480), one that runs the matrix
# tests MATRIX_SHORT_BUDGET (default: MATRIX_KERNEL_BUDGET)
matrix_past_deadline() {
	local budget=${MATRIX_KERNEL_BUDGET:-480}
	[ "${2:-all}" = all ] || budget=${MATRIX_SHORT_BUDGET:-$budget}
	[ -n "${MATRIX_DEADLINE:-}" ] && [ $(( $1 + budget )) -gt "$MATRIX_DEADLINE" ]
}

# matrix_read_conf FILE: fill matrix_all (the kernels, in order) and the
# associative arrays matrix_suite, matrix_expected and matrix_tests from a
# matrix.conf ("KERNEL-RELEASE SUITE EXPECTED TESTS NOTE..."; TESTS is
# "all" or "matrix"); status 2, with a message, on a line that lacks a
# column, a duplicate, an EXPECTED it does not know or another TESTS
matrix_read_conf() {
	local file=$1 k s e t n=0 bad=0
	matrix_all=()
	declare -gA matrix_suite=() matrix_expected=() matrix_tests=()
	while read -r k s e t _; do
		n=$((n + 1))
		case "$k" in ''|\#*) continue ;; esac
		if [ -z "$t" ]; then
			echo "matrix: $file:$n: $k: needs KERNEL-RELEASE SUITE EXPECTED TESTS NOTE" >&2
			bad=1
		elif ! matrix_expected_valid "$e"; then
			echo "matrix: $file:$n: $k: expected outcome '$e' is neither supported nor refused:REASON with a known REASON" >&2
			bad=1
		elif [ "$t" != all ] && [ "$t" != matrix ]; then
			echo "matrix: $file:$n: $k: tests '$t' is neither all nor matrix" >&2
			bad=1
		elif [ -n "${matrix_expected[$k]:-}" ]; then
			echo "matrix: $file:$n: $k is listed twice" >&2
			bad=1
		else
			matrix_all+=("$k")
			# shellcheck disable=SC2034 # read by tests/vm/matrix
			matrix_suite[$k]=$s
			matrix_expected[$k]=$e
			# shellcheck disable=SC2034
			matrix_tests[$k]=$t
		fi
	done <"$file"
	[ "$bad" = 0 ] || return 2
}

# matrix_report: read "PASS|KERNEL|DETAILS" or "FAIL|KERNEL|DETAILS" lines,
# one per kernel of the run (skipped ones included), print a TAP line for
# each, the failed kernels and the closing "N passed, N failed"; status 0
# only when at least one kernel ran and every one passed
matrix_report() {
	local st k details n=0 passed=0 failed=0 names=()

	while IFS='|' read -r st k details; do
		n=$((n + 1))
		if [ "$st" = PASS ]; then
			echo "ok $n - $k: $details"
			passed=$((passed + 1))
		else
			echo "not ok $n - $k: $details"
			failed=$((failed + 1))
			names+=("$k")
		fi
	done
	echo "1..$n"
	[ ${#names[@]} -gt 0 ] && echo "failed: ${names[*]}"
	echo "$passed passed, $failed failed"
	[ "$n" -gt 0 ] && [ "$failed" = 0 ]
}
