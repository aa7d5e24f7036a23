#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The seed workload matrix (tests/matrix) with the targets of the series,
# asserted by tests/matrix-check, which make demo runs on its own table:
# iocost_ms fixes both mispricings of the builtin single cursor without
# introducing a new one, iocost_2x doubles the builtin (2.000x +-0.5%), and
# every run has vrate pinned at 100%.
# vm-run: long (queued first when two guests share the suite: tests/vm/run)
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

out=/tmp/matrix
"$top/tests/matrix" --duration "${IOCOST_MATRIX_DURATION:-3}" --out "$out" ||
	{ not_ok "tests/matrix ran"; finish; }
csv=$out/matrix.csv
check "matrix.json is valid JSON with 21 rows" \
	sh -c "/usr/bin/python3 -c 'import json,sys; d=json.load(open(\"$out/matrix.json\")); sys.exit(not (d[\"schema\"] == \"iocost-bpf.matrix/1\" and len(d[\"rows\"]) == 21))'"
"$top/tests/matrix-check" "$csv" || _fails=$((_fails + 1))

# what decides scenario 2 is asserted by matrix-check (the price of the
# two streams); what is reported here is not.  Target: iocost_ms completes
# at least 10x the builtin's IOs.  Under TCG the guest is CPU-bound far
# below the HDD profile's sequential rate: one unthrottled stream
# (scenario 1) is the ceiling, and the builtin admits more than a tenth of
# it, so 10x is out of reach here whatever the model.  IO counts in a
# fixed time follow the host's speed, not just pricing, so they are
# printed, not asserted.  The 2x ratio of scenario 2 is not a fixed price
# either: the single cursor judges each IO by which stream issued the
# previous one, and how the two readers interleave depends on how hard the
# controller throttles them, which the doubled price changes.
awk -F, '$1 == 2 { p[$3] = $4; n[$3] = $5 } $1 == 1 && $3 == "iocost_ms" { c = $5 }
	END {
		printf "# 2: IOs builtin %d, iocost_ms %d; one-stream ceiling %d (scenario 1, iocost_ms)\n", n["builtin"], n["iocost_ms"], c
		printf "# 2: iocost_2x / builtin = %.3f (interleaving-dependent)\n", p["iocost_2x"] / p["builtin"]
	}' "$csv"
expect_unload
finish
