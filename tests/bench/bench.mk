# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/bench.mk - the overhead benchmark (included by the Makefile)
#
#   make bench         in one VM run: fio on null_blk under six configurations
#                      (module absent, loaded and unbound, iocost_2x bound,
#                      the same through the struct_ops trampoline, iocost_ms
#                      bound, iocost off), interleaved in rounds; the table
#                      on stdout and results/bench.{txt,json,png} (method:
#                      docs/PERFORMANCE.md; ~12 min of VM time)
#   make bench-smoke   the same harness, 2 short rounds, into build/bench-smoke;
#                      fails only if the harness does (no thresholds)
#   make bench-profile each of BENCH_PROFILE's configurations once (m: a model
#                      returning a constant), timed and under perf: time per
#                      IO against a and the kernel symbols that grew, into
#                      results/profile/profile.txt (~3 min)
#
# BENCH_ROUNDS rounds at least; more, up to BENCH_MAX_ROUNDS or BENCH_BUDGET
# seconds of rounds, until the 95% confidence intervals of the IOPS ratios
# b/a and c/a are narrower than the target margins.  BENCH_IOS: IOs per run.
# BENCH_CLOCK=icount (default): the guest's clock counts its instructions,
# deterministic and immune to host load; host: QEMU's real time.

BENCH_ROUNDS ?= 10
BENCH_MAX_ROUNDS ?= 60
BENCH_IOS ?= 100000
BENCH_BUDGET ?= 1080
BENCH_OUT ?= results
BENCH_CLOCK ?= icount
BENCH_PROFILE ?= a m c t d

.PHONY: bench bench-smoke bench-profile

bench: deps vm-build
	tests/bench/bench --rounds $(BENCH_ROUNDS) --max-rounds $(BENCH_MAX_ROUNDS) \
		--ios $(BENCH_IOS) --budget $(BENCH_BUDGET) --clock $(BENCH_CLOCK) \
		--out $(BENCH_OUT)

bench-smoke: vm-build
	tests/bench/bench --smoke --out build/bench-smoke

bench-profile: deps vm-build
	tests/bench/bench --profile "$(BENCH_PROFILE)" --ios $(BENCH_IOS) \
		--clock $(BENCH_CLOCK) --out $(BENCH_OUT)/profile
