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
#   make check-packaging  the .deb and .rpm, the package's whole life in a guest
#   make check-packaging-ci  its CI subset (no second DKMS build)
#   make demo             the main job, in the VM
#   make deps             what the build, the VM and the tests need

.PHONY: unit lint fuzz fuzz-check check check-matrix demo deps vm-build \
	vm-build-foreign check-product-build pkg-unit check-packaging \
	check-packaging-ci test-modules

# the kernel the VM boots (tests/vm/kernel.conf, shell syntax make reads too)
include tests/vm/kernel.conf
VM_KERNEL ?= $(IOCOST_DEFAULT_KERNEL)
VM_KDIR := $(TOP)/.cache/kernels/$(VM_KERNEL)/root/usr/src/linux-headers-$(VM_KERNEL)

# the VM suite's single-write helper (tests/vm/lib.sh; tests/vm/run builds it)
$(HOST)/errno-write: tests/vm/errno-write.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $<

# ---- unit tests, lint, fuzzing ------------------------------------------------
# every sanitizer report aborts the test (a non-zero exit prove counts as a
# failure): without -fno-sanitize-recover, UBSan prints and carries on
UNIT_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
UNIT_TESTS := $(patsubst tests/unit/%.c,$(HOST)/unit/%,$(wildcard tests/unit/test_*.c))

$(HOST)/unit/test_parse: tests/unit/test_parse.c src/parse.c src/parse.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(UNIT_SAN) -o $@ tests/unit/test_parse.c src/parse.c

$(HOST)/unit/test_btfgen: tests/unit/test_btfgen.c src/btfgen.c src/btfgen.h src/btfwalk.c src/btfwalk.h src/iocost_fields.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DBTFGEN_NO_MAIN $(UNIT_SAN) -o $@ tests/unit/test_btfgen.c src/btfgen.c src/btfwalk.c -lbpf

CTLPARSE_SRCS := tools/iocostctl/ctlparse.c tools/iocostctl/json.c src/parse.c
$(HOST)/unit/test_ctlparse: tests/unit/test_ctlparse.c $(CTLPARSE_SRCS) tools/iocostctl/ctlparse.h \
			    tools/iocostctl/json.h src/parse.h src/iocost_stats.h include/iocost_model.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(UNIT_SAN) -o $@ tests/unit/test_ctlparse.c $(CTLPARSE_SRCS)

OPENMETRICS_SRCS := tools/iocostctl/openmetrics.c $(CTLPARSE_SRCS)
$(HOST)/unit/test_openmetrics: tests/unit/test_openmetrics.c $(OPENMETRICS_SRCS) \
			       tools/iocostctl/openmetrics.h tools/iocostctl/ctlparse.h \
			       src/parse.h src/iocost_stats.h include/iocost_model.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(UNIT_SAN) -o $@ tests/unit/test_openmetrics.c $(OPENMETRICS_SRCS)

$(HOST)/unit/test_json: tests/unit/test_json.c tools/iocostctl/json.c tools/iocostctl/json.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(UNIT_SAN) -o $@ tests/unit/test_json.c tools/iocostctl/json.c

# C tests, the kernel matrix's verdicts (tests/vm/matrix-outcome.sh), and
# bpf/README.md's quote of the template model
UNIT_SH_TESTS := tests/unit/test_matrix_outcome.sh tests/unit/test_bpf_readme.sh

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
# MATRIX_README=1 rewrites docs/kernel-matrix.md's table (linked from README.md)
check-matrix: deps
	tests/vm/matrix $(if $(MATRIX_MAX),--max $(MATRIX_MAX)) \
		$(if $(MATRIX_README),--readme) $(MATRIX_KERNELS)

# build everything for the VM's stock kernel; the module as the test build
# (IOCOST_TEST=1: fault and delay hooks, src/testhooks.h)
vm-build:
	$(MAKE) KDIR=$(VM_KDIR) IOCOST_TEST=1 all test-modules

# kernel modules only the VM suite loads, for KDIR: a livepatch of the
# pricing function (tests/vm/livepatch, tests/vm/t/22-livepatch)
LP_DIR := $(O)/tests/livepatch
test-modules: $(LP_DIR)/iocost_lp_test.ko
$(LP_DIR)/iocost_lp_test.ko: tests/vm/livepatch/iocost_lp_test.c
	@rm -rf $(LP_DIR) && mkdir -p $(LP_DIR)
	@ln -s $(TOP)/tests/vm/livepatch/iocost_lp_test.c $(LP_DIR)/
	@echo "obj-m += iocost_lp_test.o" > $(LP_DIR)/Kbuild
	$(KBUILD_RUN) $(MAKE) -C $(KDIR) M=$(TOP)/$(LP_DIR) modules

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

# the module as DKMS builds it (no IOCOST_TEST) has no test hook
PRODUCT_OUT := build/$(VM_KERNEL)/product
check-product-build:
	$(MAKE) KDIR=$(VM_KDIR) IOCOST_OUT=$(PRODUCT_OUT) $(PRODUCT_OUT)/iocost_bpf.ko
	tests/unit/test_product_build.sh $(PRODUCT_OUT)/iocost_bpf.ko

check: deps
	$(MAKE) unit
	$(MAKE) lint
	$(MAKE) fuzz-check
	$(MAKE) vm-build
	$(MAKE) vm-build-foreign
	$(MAKE) check-product-build
	$(MAKE) bench-guard
	tests/vm/run
	IOCOST_VM_ICOUNT=0 tests/vm/run 24-control

# DEMO_README=1: then write its tables into docs/RESULTS.md, their summary
# into README.md and the control loop's into docs/CONTROL-LOOP.md
# (tests/demo-readme); the control loop (tests/demo
# --control) runs on the instruction clock, as does 24-control's in make check
demo: deps vm-build
	tests/vm/vmrun --disks 1 --timeout 1200 -- tests/demo
	tests/vm/vmrun --icount 0 --timeout 3600 -- tests/demo --control
	$(if $(DEMO_README),tests/demo-readme)

# ---- packaging ----------------------------------------------------------------
# host tests of the config parser / apply script and of dkms.conf (which
# reads the VM kernel's headers tree that `deps` fetches)
pkg-unit: deps
	IOCOST_TEST_KDIR=$(VM_KDIR) prove -v tests/pkg/test-apply tests/pkg/test-dkms-conf \
		tests/pkg/test-kernel-hook

# build the packages and the signed repository, then live through the
# packages' life in a Debian 12 guest (tests/pkg/guest-test): every phase
# (check-packaging), or those without a second DKMS build, which catch the
# packaging defects and fit CI's time (check-packaging-ci, in .ci/run)
check-packaging:
	IOCOST_E2E_FULL=1 tests/pkg/e2e

check-packaging-ci:
	tests/pkg/e2e
