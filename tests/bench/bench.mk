# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/bench.mk - the overhead benchmark (included by the Makefile)
#
#   make bench         in one VM run: fio on null_blk under five configurations
#                      (module absent, loaded and unbound, iocost_2x bound,
#                      iocost_ms bound, iocost off), interleaved in rounds;
#                      the table on stdout and results/bench.{txt,json,png}
#                      (method: docs/PERFORMANCE.md; ~20 min of VM time)
#   make bench-smoke   the same harness, 2 short rounds, into build/bench-smoke;
#                      fails only if the harness does (no thresholds)
#
# BENCH_ROUNDS rounds at least; more, up to BENCH_MAX_ROUNDS or BENCH_BUDGET
# seconds of rounds, until the 95% confidence intervals of the IOPS ratios
# b/a and c/a are narrower than the target margins.  BENCH_IOS: IOs per run.

BENCH_ROUNDS ?= 20
BENCH_MAX_ROUNDS ?= 60
BENCH_IOS ?= 100000
BENCH_BUDGET ?= 1080
BENCH_OUT ?= results

.PHONY: bench bench-smoke

bench: deps vm-build
	tests/bench/bench --rounds $(BENCH_ROUNDS) --max-rounds $(BENCH_MAX_ROUNDS) \
		--ios $(BENCH_IOS) --budget $(BENCH_BUDGET) --out $(BENCH_OUT)

bench-smoke: vm-build
	tests/bench/bench --smoke --out build/bench-smoke
