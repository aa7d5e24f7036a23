# SPDX-License-Identifier: GPL-2.0
#
# tests/tests.mk - the test targets (included by the Makefile; the DKMS
# source tree has no tests/, so the product build never reads this)
#
#   make check            unit, lint, fuzz-check, the VM builds, bench-guard
#                         and the VM suite (tests/vm/run)
#   make unit             the host unit tests (TAP, through prove)
#   make lint             checkpatch.pl --strict over every C file
#   make fuzz-check/fuzz  libFuzzer over the module's parsers
#   make vm-build         everything, for the VM's stock kernel
#   make check-matrix     the suite on the kernels of tests/vm/matrix.conf
#   make pkg-unit         the packaging's host tests
#   make check-packaging  the .deb and .rpm, installed and used in a guest
#   make demo             the main job, in the VM
#   make deps             what the build, the VM and the tests need

.PHONY: unit lint fuzz fuzz-check check check-matrix demo deps vm-build \
	vm-build-foreign pkg-unit check-packaging

# the kernel the VM boots (tests/vm/kernel.conf, shell syntax make reads too)
include tests/vm/kernel.conf
VM_KERNEL ?= $(IOCOST_DEFAULT_KERNEL)
VM_KDIR := $(TOP)/.cache/kernels/$(VM_KERNEL)/root/usr/src/linux-headers-$(VM_KERNEL)

# the VM suite's single-write helper (tests/vm/lib.sh; tests/vm/run builds it)
$(HOST)/errno-write: tests/vm/errno-write.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $<

# ---- unit tests, lint, fuzzing ------------------------------------------------
UNIT_TESTS := $(patsubst tests/unit/%.c,$(HOST)/unit/%,$(wildcard tests/unit/test_*.c))

$(HOST)/unit/test_parse: tests/unit/test_parse.c src/parse.c src/parse.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fsanitize=address,undefined -o $@ tests/unit/test_parse.c src/parse.c

$(HOST)/unit/test_btfgen: tests/unit/test_btfgen.c src/btfgen.c src/btfgen.h src/btfwalk.c src/btfwalk.h src/iocost_fields.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DBTFGEN_NO_MAIN -fsanitize=address,undefined -o $@ tests/unit/test_btfgen.c src/btfgen.c src/btfwalk.c -lbpf

CTLPARSE_SRCS := tools/iocostctl/ctlparse.c tools/iocostctl/json.c src/parse.c
$(HOST)/unit/test_ctlparse: tests/unit/test_ctlparse.c $(CTLPARSE_SRCS) tools/iocostctl/ctlparse.h \
			    tools/iocostctl/json.h src/parse.h src/iocost_stats.h include/iocost_model.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fsanitize=address,undefined -o $@ tests/unit/test_ctlparse.c $(CTLPARSE_SRCS)

$(HOST)/unit/test_json: tests/unit/test_json.c tools/iocostctl/json.c tools/iocostctl/json.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fsanitize=address,undefined -o $@ tests/unit/test_json.c tools/iocostctl/json.c

# C tests, and the kernel matrix's verdicts (tests/vm/matrix-outcome.sh)
UNIT_SH_TESTS := tests/unit/test_matrix_outcome.sh

unit: $(UNIT_TESTS)
	prove -v $(UNIT_TESTS) $(UNIT_SH_TESTS)

# checkpatch.pl --strict (fetched from linux-source-6.12) over every tracked C
# source and header: module, models, tools and tests alike, with no --ignore
lint:
	prove -v -e bash tests/checkpatch

# libFuzzer over the module's parsers (src/parse.c, the module's source):
# make check runs FUZZ_RUNS inputs from a fixed seed, make fuzz runs for
# FUZZ_TIME seconds and keeps its corpus in build/host/fuzz/corpus
FUZZ_RUNS ?= 1000000
FUZZ_TIME ?= 600
FUZZER := $(HOST)/fuzz/fuzz_parse
FUZZ_FLAGS := -artifact_prefix=$(HOST)/fuzz/ -print_final_stats=1

# -D: the harness spells libFuzzer's entry point in lowercase (checkpatch: CamelCase)
$(FUZZER): tests/fuzz/fuzz_parse.c src/parse.c src/parse.h include/iocost_model.h
	@mkdir -p $(@D)
	$(CLANG) -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -Dfuzz_one_input=LLVMFuzzerTestOneInput \
		-o $@ tests/fuzz/fuzz_parse.c src/parse.c

fuzz-check: $(FUZZER)
	rm -rf $(HOST)/fuzz/check-corpus
	cp -r tests/fuzz/corpus $(HOST)/fuzz/check-corpus
	$(FUZZER) $(FUZZ_FLAGS) -seed=1 -runs=$(FUZZ_RUNS) $(HOST)/fuzz/check-corpus

fuzz: $(FUZZER)
	mkdir -p $(HOST)/fuzz/corpus
	cp -n tests/fuzz/corpus/* $(HOST)/fuzz/corpus/
	$(FUZZER) $(FUZZ_FLAGS) -max_total_time=$(FUZZ_TIME) $(HOST)/fuzz/corpus

# ---- the VM: deps, vm-build, check, check-matrix, demo ----------------------
deps:
	tests/deps

# the kernel matrix (tests/vm/matrix.conf): fetch, build, probe and test
# every kernel; MATRIX_MAX=N runs the first N, MATRIX_KERNELS a choice (of
# kernels listed there: each has its expected outcome, supported or refused);
# MATRIX_README=1 rewrites README.md's Supported kernels table
check-matrix: deps
	tests/vm/matrix $(if $(MATRIX_MAX),--max $(MATRIX_MAX)) \
		$(if $(MATRIX_README),--readme) $(MATRIX_KERNELS)

# build everything for the VM's stock kernel
vm-build:
	$(MAKE) KDIR=$(VM_KDIR) all

# the module for the VM's kernel with the offsets of another build of
# 6.12.118 (IOCOST_FOREIGN_KERNEL, tests/vm/kernel.conf): Debian's trixie
# build, whose BTF differs while the release, vermagic and symbol CRCs the
# kernel checks are the VM kernel's.  That is what a module DKMS did not
# rebuild after a Debian revision bump looks like; tests/vm/t/11-btf-digest
# loads it.  Only the other kernel's headers vmlinux (its BTF) is used.
FOREIGN_VMLINUX := $(TOP)/.cache/kernels/$(IOCOST_FOREIGN_KERNEL)/root/usr/src/linux-headers-$(IOCOST_FOREIGN_KERNEL)/vmlinux
vm-build-foreign:
	@test -f $(FOREIGN_VMLINUX) || tests/vm/fetch-kernel $(IOCOST_FOREIGN_KERNEL)
	$(MAKE) KDIR=$(VM_KDIR) BTF_VMLINUX=$(FOREIGN_VMLINUX) \
		IOCOST_OUT=build/$(VM_KERNEL)/foreign build/$(VM_KERNEL)/foreign/iocost_bpf.ko
	echo $(IOCOST_FOREIGN_KERNEL) > build/$(VM_KERNEL)/foreign/btf-kernel

check: deps
	$(MAKE) unit
	$(MAKE) lint
	$(MAKE) fuzz-check
	$(MAKE) vm-build
	$(MAKE) vm-build-foreign
	$(MAKE) bench-guard
	tests/vm/run
	IOCOST_VM_ICOUNT=0 tests/vm/run 26-control

# DEMO_README=1: then write its tables into README.md and the control loop's
# into docs/CONTROL-LOOP.md (tests/demo-readme); the control loop (tests/demo
# --control) runs on the instruction clock, as does 26-control's in make check
demo: deps vm-build
	tests/vm/vmrun --disks 1 --timeout 1200 -- tests/demo
	tests/vm/vmrun --icount 0 --timeout 3600 -- tests/demo --control
	$(if $(DEMO_README),tests/demo-readme)

# ---- packaging ----------------------------------------------------------------
# host tests of the config parser / apply script and of dkms.conf (no kernel)
pkg-unit:
	prove -v tests/pkg/test-apply tests/pkg/test-dkms-conf

# build the packages, then install and use them in a Debian 12 guest
check-packaging:
	tests/pkg/e2e
