#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The seed workload matrix (tests/matrix) with the targets of the series,
# asserted by tests/matrix-check, which make demo runs on its own table:
# iocost_ms fixes both mispricings of the builtin single cursor without
# introducing a new one, iocost_2x doubles the builtin (2.000x +-0.5%), and
# every run has vrate pinned at 100%.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

out=/tmp/matrix
"$top/tests/matrix" --duration "${IOCOST_MATRIX_DURATION:-3}" --out "$out" ||
	{ not_ok "tests/matrix ran"; finish; }
csv=$out/matrix.csv
check "matrix.json is valid JSON with 21 rows" \
	sh -c "/usr/bin/python3 -c 'import json,sys; d=json.load(open(\"$out/matrix.json\")); sys.exit(not (d[\"schema\"] == \"iocost-bpf.matrix/1\" and len(d[\"rows\"]) == 21))'"
"$top/tests/matrix-check" "$csv" || _fails=$((_fails + 1))

# col S M N: field N (4 us/op, 5 IOs, 11 nodata) of scenario S under model M
col() { awk -F, -v s="$1" -v m="$2" -v n="$3" '$1 == s && $3 == m { print $n }' "$csv"; }
p() { col "$1" "$2" 4; }
n() { col "$1" "$2" 5; }

# Target: iocost_ms completes at least 10x the builtin's IOs.  Under TCG the
# guest is CPU-bound far below the HDD profile's sequential rate: one
# unthrottled stream (scenario 1) is the ceiling, and the builtin admits
# more than a tenth of it, so 10x is out of reach here whatever the model.
# IO counts in a fixed time follow the host's speed, not just pricing, so
# they are printed, not asserted; what decides them, the price of the two
# streams, is asserted by matrix-check.
ceil1=$(n 1 iocost_ms)
echo "# 2: IOs builtin $(n 2 builtin), iocost_ms $(n 2 iocost_ms); one-stream ceiling $ceil1 (scenario 1, iocost_ms)"
# Scenario 2 is not a fixed price: the single cursor judges each IO by
# which stream issued the previous one, and how the two readers interleave
# depends on how hard the controller throttles them, which the doubled
# price changes.  Reported, not asserted.
echo "# 2: iocost_2x / builtin = $(awk -v a="$(p 2 iocost_2x)" -v b="$(p 2 builtin)" 'BEGIN { printf "%.3f", a / b }') (interleaving-dependent, see the comment)"
# Scenario 5: the builtin charges flushes 0, the models one write page
# (23.0 us) each: iocost_2x charges 2x of (builtin + flushes at one write
# page), +-0.5%, as 03-pricing asserts on a fixed IO sequence.
n5=$(n 5 iocost_2x)
flushes=$(col 5 iocost_2x 11)
adj=$(awk -v b="$(p 5 builtin)" -v f="$flushes" -v n="$n5" -v w="$HDD_WPAGE_US" 'BEGIN { printf "%.3f", b + f / n * w }')
echo "# 5: iocost_2x $(p 5 iocost_2x) us/op vs builtin $(p 5 builtin) us/op, $flushes flushes in $n5 IOs"
expect_ratio "5: iocost_2x / (builtin + flushes at one write page) = 2.000 +-0.5%" \
	"$(p 5 iocost_2x)" "$(awk -v a="$adj" 'BEGIN { printf "%.4f", 2 * a }')" 0.995 1.005
finish
