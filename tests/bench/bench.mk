# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/bench.mk - the overhead benchmark (included by the Makefile)
#
#   make bench         in one VM run: fio on null_blk under six configurations
#                      (module absent, loaded and unbound, iocost_2x bound,
#                      the same through the struct_ops trampoline, iocost_ms
#                      bound, iocost off), interleaved in rounds; the table
#                      on stdout and results/bench.{txt,json,png} (method:
#                      docs/PERFORMANCE.md; ~12 min of VM time); then
#                      tests/bench/readers: bind/unbind cycles under three
#                      unprivileged readers of stats and bindings against
#                      readers of /proc files, at most 1.2x (issue 28), into
#                      results/readers.txt
#   make bench-guard   the same harness, configurations a b c d only, 4 rounds
#                      of 20000 IOs (BENCH_CLOCK too), into build/bench-guard;
#                      fails when a run was throttled, IOPS b/a < 0.995 or c/a
#                      < 0.97, or iocost_2x adds more instructions per IO than
#                      tests/bench/report's BUDGET, iocost_ms likewise (make check runs it)
#   make bench-profile each of BENCH_PROFILE's configurations once (m: a model
#                      returning a constant), timed and under perf: time per
#                      IO against a and the kernel symbols that grew, into
#                      results/profile/profile.txt (~3 min)
#
# BENCH_KERNEL=K: boot kernel K (.cache/kernels/K, its build in build/K
# made first by make KDIR=... IOCOST_TEST=1 all test-modules) instead of
# the default VM kernel.
# BENCH_ROUNDS rounds (a multiple of 6: the Williams design of the six
# configurations); the report fails the run if any run was throttled or
# vrate was not pinned at its maximum.  BENCH_IOS: IOs per run.
# BENCH_CLOCK=icount (default): the guest's clock counts its instructions,
# deterministic and immune to host load; host: QEMU's real time.

BENCH_ROUNDS ?= 12
BENCH_IOS ?= 100000
BENCH_OUT ?= results
BENCH_CLOCK ?= icount
BENCH_PROFILE ?= a m c t d
BENCH_KERNEL ?=
BENCH_KARG := $(if $(BENCH_KERNEL),--kernel $(BENCH_KERNEL))

.PHONY: bench bench-guard bench-profile

bench: deps vm-build
	tests/bench/bench $(BENCH_KARG) --rounds $(BENCH_ROUNDS) --ios $(BENCH_IOS) \
		--clock $(BENCH_CLOCK) --out $(BENCH_OUT)
	tests/bench/readers --clock $(BENCH_CLOCK) --out $(BENCH_OUT)

bench-guard: vm-build
	tests/bench/bench $(BENCH_KARG) --guard --clock $(BENCH_CLOCK) --out build/bench-guard

bench-profile: deps vm-build
	tests/bench/bench $(BENCH_KARG) --profile "$(BENCH_PROFILE)" --ios $(BENCH_IOS) \
		--clock $(BENCH_CLOCK) --out $(BENCH_OUT)/profile
