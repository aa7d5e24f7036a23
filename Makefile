# SPDX-License-Identifier: GPL-2.0
#
# iocost-bpf top-level Makefile
#
#   make [KDIR=...]    module (with BTF), BPF models, loaders, host tools
#   make check         host unit tests, checkpatch, a bounded fuzz run and
#                      the VM suite on the stock kernel
#   make fuzz          fuzz the module's parsers for FUZZ_TIME seconds
#   make demo          the main job, in the VM
#   make deps          install what the build, the VM and the tests need
#
# KDIR defaults to the running kernel's headers; the VM targets set it to
# the stock kernel unpacked by tests/deps.  Everything that depends on the
# target kernel is built under build/<kernel release>/.

TOP := $(abspath .)
include tests/vm/kernel.conf
VM_KERNEL ?= $(IOCOST_DEFAULT_KERNEL)
VM_KDIR := $(TOP)/.cache/kernels/$(VM_KERNEL)/root/usr/src/linux-headers-$(VM_KERNEL)

KDIR ?= /lib/modules/$(shell uname -r)/build
KREL := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || echo unknown)
O := build/$(KREL)
HOST := build/host

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
USER_CFLAGS := -Wall -Wextra -Werror -O2 -g
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	      -I$(O) -Iinclude -Ibpf

MOD_FILES := src/main.c src/ctl.c src/hook.c src/tick.c src/parse.c \
	     src/iocost_bpf.h src/iocost_trace.h src/parse.h include/iocost_model.h
MODELS := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))
TEST_MODELS := $(patsubst tests/bpf/%.bpf.c,%,$(wildcard tests/bpf/*.bpf.c))
BPF_HDRS := $(wildcard bpf/*.h) include/iocost_model.h $(O)/vmlinux.h

.PHONY: all module bpf tools unit lint fuzz fuzz-check check demo deps vm-build clean
.DELETE_ON_ERROR:

all: module bpf tools

# ---- host tools -------------------------------------------------------------
$(HOST)/iocost-btfgen: src/btfgen.c src/btfgen.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ src/btfgen.c -lbpf

$(HOST)/errno-write: tests/vm/errno-write.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $<

tools: $(HOST)/iocost-btfgen $(HOST)/errno-write

# ---- the module -------------------------------------------------------------
module: $(O)/iocost_bpf.ko

$(O)/iocost_bpf.ko: $(MOD_FILES) Kbuild src/kernel-check $(HOST)/iocost-btfgen
	@src/kernel-check $(KDIR) >/dev/null
	@rm -rf $(O)/mod
	@mkdir -p $(O)/mod/src $(O)/mod/include $(O)/mod/generated
	@for f in $(MOD_FILES) Kbuild; do ln -s $(TOP)/$$f $(O)/mod/$$f; done
	$(HOST)/iocost-btfgen $(KDIR)/vmlinux > $(O)/mod/generated/iocost_btf.h
	$(MAKE) -C $(KDIR) M=$(TOP)/$(O)/mod modules
	$(HOST)/iocost-btfgen --check-module $(O)/mod/iocost_bpf.ko $(KDIR)/vmlinux
	cp $(O)/mod/iocost_bpf.ko $@

# ---- BPF models, skeletons and loaders ---------------------------------------
bpf: $(foreach m,$(MODELS),$(O)/bpf/$(m).bpf.o $(O)/bin/$(m)) \
     $(foreach m,$(TEST_MODELS),$(O)/tests/$(m).bpf.o) $(O)/bin/test_min

$(O)/vmlinux.h: $(KDIR)/vmlinux
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $< format c > $@

$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/tests/%.bpf.o: tests/bpf/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# bpftool 7.5 writes skeletons for libbpf 1.5, whose bpf_map_skeleton has a
# struct_ops auto-attach field (.link) that libbpf 1.4 (bookworm-backports)
# lacks.  Our loaders attach struct_ops themselves, so with libbpf < 1.5 the
# one assignment is dropped.
LIBBPF_VERSION := $(shell pkg-config --modversion libbpf 2>/dev/null)
SKEL_FIXUP := $(if $(filter 0.% 1.0.% 1.1.% 1.2.% 1.3.% 1.4.%,$(LIBBPF_VERSION)),| sed '/map->link = /d',)

$(O)/%.skel.h: $(O)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $*) $(SKEL_FIXUP) > $@

# one small skeleton loader per model (bpf/loader.c)
$(O)/bin/%: $(O)/bpf/%.skel.h bpf/loader.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DSKEL=$* -DSKEL_H='"$(TOP)/$<"' -o $@ bpf/loader.c -lbpf

$(O)/bin/test_min: $(O)/tests/min.skel.h bpf/loader.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DSKEL=min -DSKEL_H='"$(TOP)/$<"' -o $@ bpf/loader.c -lbpf

# ---- tests ------------------------------------------------------------------
UNIT_TESTS := $(patsubst tests/unit/%.c,$(HOST)/unit/%,$(wildcard tests/unit/test_*.c))

$(HOST)/unit/test_parse: tests/unit/test_parse.c src/parse.c src/parse.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fsanitize=address,undefined -o $@ tests/unit/test_parse.c src/parse.c

$(HOST)/unit/test_btfgen: tests/unit/test_btfgen.c src/btfgen.c src/btfgen.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DBTFGEN_NO_MAIN -fsanitize=address,undefined -o $@ tests/unit/test_btfgen.c src/btfgen.c -lbpf

unit: $(UNIT_TESTS)
	prove -v $(UNIT_TESTS)

# checkpatch.pl --strict over src/ (fetched from linux-source-6.12)
lint:
	prove -v -e bash tests/checkpatch

# libFuzzer over the module's parsers (src/parse.c, the module's source):
# make check runs FUZZ_RUNS inputs from a fixed seed, make fuzz runs for
# FUZZ_TIME seconds and keeps its corpus in build/host/fuzz/corpus
FUZZ_RUNS ?= 1000000
FUZZ_TIME ?= 600
FUZZER := $(HOST)/fuzz/fuzz_parse
FUZZ_FLAGS := -artifact_prefix=$(HOST)/fuzz/ -print_final_stats=1

$(FUZZER): tests/fuzz/fuzz_parse.c src/parse.c src/parse.h include/iocost_model.h
	@mkdir -p $(@D)
	$(CLANG) -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ tests/fuzz/fuzz_parse.c src/parse.c

fuzz-check: $(FUZZER)
	rm -rf $(HOST)/fuzz/check-corpus
	cp -r tests/fuzz/corpus $(HOST)/fuzz/check-corpus
	$(FUZZER) $(FUZZ_FLAGS) -seed=1 -runs=$(FUZZ_RUNS) $(HOST)/fuzz/check-corpus

fuzz: $(FUZZER)
	mkdir -p $(HOST)/fuzz/corpus
	cp -n tests/fuzz/corpus/* $(HOST)/fuzz/corpus/
	$(FUZZER) $(FUZZ_FLAGS) -max_total_time=$(FUZZ_TIME) $(HOST)/fuzz/corpus

deps:
	tests/deps

# build everything for the VM's stock kernel
vm-build:
	$(MAKE) KDIR=$(VM_KDIR) all

check: deps
	$(MAKE) unit
	$(MAKE) lint
	$(MAKE) fuzz-check
	$(MAKE) vm-build
	tests/vm/run

demo: deps vm-build
	tests/vm/vmrun --disks 1 --timeout 1200 -- tests/demo

clean:
	rm -rf build

# ---- iocostctl: the command-line tool (a host tool: no target kernel) --------
IOCOSTCTL_SRCS := $(wildcard tools/iocostctl/*.c)
IOCOSTCTL_DEPS := $(IOCOSTCTL_SRCS) $(wildcard tools/iocostctl/*.h) include/iocost_model.h

$(HOST)/iocostctl: $(IOCOSTCTL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $(IOCOSTCTL_SRCS) -lbpf

tools: $(HOST)/iocostctl

$(HOST)/unit/test_ctlparse: tests/unit/test_ctlparse.c tools/iocostctl/ctlparse.c tools/iocostctl/ctlparse.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fsanitize=address,undefined -o $@ tests/unit/test_ctlparse.c tools/iocostctl/ctlparse.c
