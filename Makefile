# SPDX-License-Identifier: GPL-2.0
#
# iocost-bpf top-level Makefile
#
#   make [KDIR=...]    module (with BTF), BPF models, loaders, host tools
#   make check         host unit tests, checkpatch, a bounded fuzz run, the
#                      benchmark's smoke run and the VM suite on the stock kernel
#   make bench         the module's overhead, measured in the VM (docs/PERFORMANCE.md)
#   make check-matrix  the suite on every Debian kernel of tests/vm/matrix.conf
#   make fuzz          fuzz the module's parsers for FUZZ_TIME seconds
#   make demo          the main job, in the VM; fails if the table it shows
#                      misses a target (DEMO_README=1: into docs/RESULTS.md,
#                      its summary into README.md)
#   make deps          install what the build, the VM and the tests need
#
# KDIR defaults to the running kernel's headers; the VM targets set it to
# the stock kernel unpacked by tests/deps.  Everything that depends on the
# target kernel is built under build/<kernel release>/.

TOP := $(abspath .)
PKG_NAME := iocost-bpf
# the one place the version is written: VERSION (dkms.conf and the RPM spec
# read it; debian/changelog's and the RPM changelog's newest entries are
# checked against it by tests/pkg/test-dkms-conf and debian/rules)
PKG_VERSION := $(shell cat $(TOP)/VERSION)
KDIR ?= /lib/modules/$(shell uname -r)/build
KREL := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || echo unknown)
# IOCOST_OUT: where this kernel's build goes (not O=, which Kbuild would
# inherit as its own output directory)
IOCOST_OUT ?= build/$(KREL)
O := $(IOCOST_OUT)
# the BTF the private struct offsets are generated from: the headers'
# vmlinux; vm-build-foreign points it at another kernel build's
BTF_VMLINUX ?= $(KDIR)/vmlinux
HOST := build/host

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
USER_CFLAGS := -Wall -Wextra -Werror -O2 -g
# -fms-extensions: 7.x kernels embed tagged structs anonymously (their own
# -fms-extensions), and bpftool's vmlinux.h then has "struct NAME;" members
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	      -fms-extensions -Wno-microsoft-anon-tag \
	      -I$(O) -Iinclude -Ibpf

MOD_FILES := src/main.c src/ctl.c src/binding.c src/hook.c src/hook_entry_x86.S src/devctx.c \
	     src/clone.c src/tick.c src/parse.c src/btfdigest.c src/testhooks.h \
	     src/iocost_bpf.h src/iocost_trace.h src/parse.h src/btfdigest.h \
	     src/iocost_stats.h src/iocost_fields.h include/iocost_model.h \
	     include/iocost_linear.h
# every model also builds as NAME_hdd, with the series' fixed HDD autop
# coefficients instead of the bound disk's (-DIOCOST_FIXED_HDD)
MODEL_SRCS := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))
MODELS := $(MODEL_SRCS) $(addsuffix _hdd,$(MODEL_SRCS))
TEST_MODELS := $(patsubst tests/bpf/%.bpf.c,%,$(wildcard tests/bpf/*.bpf.c))
BPF_HDRS := $(wildcard bpf/*.h) include/iocost_model.h include/iocost_linear.h $(O)/vmlinux.h

.PHONY: all module bpf tools clean models pkg-build install install-dkms dist deb rpm repo
.DELETE_ON_ERROR:

all: module bpf tools

# ---- host tools: iocost-btfgen (the build's) and iocostctl -------------------
$(HOST)/iocost-btfgen: src/btfgen.c src/btfgen.h src/btfwalk.c src/btfwalk.h src/iocost_fields.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ src/btfgen.c src/btfwalk.c -lbpf

# iocostctl: main.c and one file per command, bpftool-style; with the
# module's parsers (src/parse.c), the BTF walker (src/btfwalk.c) and the
# model registering the skeleton loaders share (tools/lib/model_load.c)
IOCOSTCTL_SRCS := $(wildcard tools/iocostctl/*.c) tools/lib/model_load.c src/parse.c src/btfwalk.c
IOCOSTCTL_DEPS := $(IOCOSTCTL_SRCS) $(wildcard tools/iocostctl/*.h) tools/lib/model_load.h \
		  src/parse.h src/btfwalk.h src/iocost_stats.h include/iocost_model.h VERSION

$(HOST)/iocostctl: $(IOCOSTCTL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DIOCOSTCTL_VERSION='"$(PKG_VERSION)"' -o $@ $(IOCOSTCTL_SRCS) -lbpf

tools: $(HOST)/iocost-btfgen $(HOST)/iocostctl

# ---- the module -------------------------------------------------------------
# KBUILD_CHROOT=DIR: run Kbuild in that root (tests/vm/buildroot), for
# kernels built by a compiler this host does not have (trixie's gcc-14).
KBUILD_CHROOT ?=
export KBUILD_CHROOT
KBUILD_RUN := $(if $(KBUILD_CHROOT),$(TOP)/tests/vm/chroot-run $(KBUILD_CHROOT) $(TOP) --)

module: $(O)/iocost_bpf.ko $(O)/hook-strategy

# which pricing hook this build uses (the kernel matrix reports it per
# kernel): the function itself, in BTF, entered by an ftrace direct call
# where the module has the entry (IOCOST_HOOK_DIRECT, src/iocost_bpf.h), or
# its IPA-SRA clone (src/clone.c)
$(O)/hook-strategy: $(O)/iocost_bpf.ko src/iocost_bpf.h
	@if nm $(O)/iocost_bpf.ko | grep -q ' iocost_direct_entry$$'; then \
		echo "ftrace direct call at the entry of calc_vtime_cost_builtin() (the module's entry skips the builtin), prototype checked in BTF"; \
	elif grep -q '^#define IOCOST_HAVE_CALC_VTIME_COST_BUILTIN 1' $(O)/mod/generated/iocost_btf.h; then \
		echo "ftrace ip-modify at the entry of calc_vtime_cost_builtin(), prototype checked in BTF"; \
	else \
		echo "ftrace ip-modify at the entry of its IPA-SRA clone, each call checked against its caller's bio (registers mapped from the first bios)"; \
	fi > $@

# IOCOST_TEST=1: the test build (Kbuild, src/testhooks.h); a stamp per
# flavour, so that switching flavours in one build directory rebuilds
IOCOST_TEST ?=
BUILD_FLAVOUR := $(O)/flavour.$(if $(IOCOST_TEST),test,product)
$(BUILD_FLAVOUR):
	@mkdir -p $(@D) && rm -f $(O)/flavour.* && touch $@

$(O)/iocost_bpf.ko: $(MOD_FILES) Kbuild src/kernel-check src/btf-digest $(HOST)/iocost-btfgen $(wildcard $(BTF_VMLINUX)) $(BUILD_FLAVOUR)
	@src/kernel-check $(KDIR) >/dev/null
	@rm -rf $(O)/mod
	@mkdir -p $(O)/mod/src $(O)/mod/include $(O)/mod/generated
	@for f in $(MOD_FILES) Kbuild; do ln -s $(TOP)/$$f $(O)/mod/$$f; done
	$(HOST)/iocost-btfgen $(BTF_VMLINUX) > $(O)/mod/generated/iocost_btf.h
	src/btf-digest $(BTF_VMLINUX) $(PKG_VERSION) > $(O)/mod/generated/iocost_btf_digest.h
	@src/kernel-check --compiler $(KDIR) >/dev/null
	$(KBUILD_RUN) $(MAKE) -C $(KDIR) M=$(TOP)/$(O)/mod IOCOST_TEST=$(IOCOST_TEST) modules
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

$(O)/bpf/%_hdd.bpf.o: bpf/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -DIOCOST_FIXED_HDD -c $< -o $@

$(O)/tests/%.bpf.o: tests/bpf/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -DIOCOST_HAVE_PCPU_HOT=$$(grep -c '^struct pcpu_hot {' $(O)/vmlinux.h) -c $< -o $@

# bpftool 7.5 writes skeletons for libbpf 1.5, whose bpf_map_skeleton has a
# struct_ops auto-attach field (.link) that libbpf 1.4 (bookworm-backports)
# lacks.  Our loaders attach struct_ops themselves, so with libbpf < 1.5 the
# one assignment is dropped.
LIBBPF_VERSION := $(shell pkg-config --modversion libbpf 2>/dev/null)
SKEL_FIXUP := $(if $(filter 0.% 1.0.% 1.1.% 1.2.% 1.3.% 1.4.%,$(LIBBPF_VERSION)),| sed '/map->link = /d',)

$(O)/%.skel.h: $(O)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $*) $(SKEL_FIXUP) > $@

# one small skeleton loader per model (bpf/loader.c); the registering is
# tools/lib/model_load.c's, as for iocostctl load
LOADER_SRCS := bpf/loader.c tools/lib/model_load.c src/btfwalk.c
LOADER_DEPS := $(LOADER_SRCS) tools/lib/model_load.h src/btfwalk.h src/parse.h include/iocost_model.h

$(O)/bin/%: $(O)/bpf/%.skel.h $(LOADER_DEPS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DSKEL=$* -DSKEL_H='"$(TOP)/$<"' -o $@ $(LOADER_SRCS) -lbpf

$(O)/bin/test_min: $(O)/tests/min.skel.h $(LOADER_DEPS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DSKEL=min -DSKEL_H='"$(TOP)/$<"' -o $@ $(LOADER_SRCS) -lbpf

clean:
	rm -rf build

# ---- packaging: install, install-dkms, dist, deb, rpm ------------------------
# Nothing above depends on this block.  `install` installs what
# iocost-bpf-tools ships, `install-dkms` the module source DKMS builds from;
# debian/rules and rpm/iocost-bpf.spec.in call both.  The example models are
# CO-RE objects: they are compiled once against the BTF of MODELS_KDIR
# (default: the project's VM kernel, VM_KDIR of tests/tests.mk, when
# tests/deps has fetched it) and libbpf relocates them against the running
# kernel's BTF at load time.
DESTDIR ?=
PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec/$(PKG_NAME)
MODELDIR ?= $(PREFIX)/lib/$(PKG_NAME)/models
UNITDIR ?= /lib/systemd/system
SYSCONFDIR ?= /etc
MANDIR ?= $(PREFIX)/share/man
# the configuration is the admin's (no file in /etc is shipped): the
# example goes here, drop-ins in SYSCONFDIR/iocost-bpf.conf.d
EXAMPLEDIR ?= $(PREFIX)/share/$(PKG_NAME)
UDEVRULESDIR ?= /lib/udev/rules.d
DKMSDIR ?= /usr/src/$(PKG_NAME)-$(PKG_VERSION)
# the headers hook that rebuilds the module when a kernel revision changes
# the BTF under the same release (Debian: /etc/kernel/header_postinst.d)
KERNEL_HOOKDIR ?=

MODELS_KDIR ?= $(if $(wildcard $(VM_KDIR)/vmlinux),$(VM_KDIR),$(KDIR))
MODELS_KREL = $(shell cat $(MODELS_KDIR)/include/config/kernel.release 2>/dev/null || echo unknown)
# bpf/iocost_tmpl.bpf.c is the template a model author copies
# (bpf/README.md): built, and loaded and bound by the VM suite, like the
# others, but source to read rather than a model to ship
PKG_MODELS := $(filter-out iocost_tmpl iocost_tmpl_hdd,$(MODELS))
MODEL_OBJS = $(foreach m,$(PKG_MODELS),build/$(MODELS_KREL)/bpf/$(m).bpf.o)
DKMS_FILES := dkms.conf Makefile Kbuild $(MOD_FILES) src/kernel-check \
	      src/btfgen.c src/btfgen.h src/btfwalk.c src/btfwalk.h src/btf-digest VERSION
PKG_MANS := $(wildcard man/iocostctl.8) tools/iocost-bpf-apply.8 tools/iocost-bpf.conf.5
PKG_OUT := build/pkg

models:
	@test -f $(MODELS_KDIR)/vmlinux || { echo "models: no BTF at MODELS_KDIR=$(MODELS_KDIR)/vmlinux (run tests/deps, or pass MODELS_KDIR=<kernel headers with vmlinux>)" >&2; exit 1; }
	$(MAKE) KDIR=$(MODELS_KDIR) $(MODEL_OBJS)

pkg-build: models $(HOST)/iocostctl

install: pkg-build
	install -D -m 0755 $(HOST)/iocostctl $(DESTDIR)$(SBINDIR)/iocostctl
	install -d $(DESTDIR)$(MODELDIR)
	install -m 0644 $(MODEL_OBJS) $(DESTDIR)$(MODELDIR)/
	install -D -m 0755 tools/iocost-bpf-apply $(DESTDIR)$(LIBEXECDIR)/iocost-bpf-apply
	install -D -m 0644 tools/iocost-bpf.service $(DESTDIR)$(UNITDIR)/iocost-bpf.service
	install -D -m 0644 tools/iocost-bpf.conf.example $(DESTDIR)$(EXAMPLEDIR)/iocost-bpf.conf.example
	install -d $(DESTDIR)$(SYSCONFDIR)/iocost-bpf.conf.d
	install -D -m 0644 tools/60-iocost-bpf.rules $(DESTDIR)$(UDEVRULESDIR)/60-iocost-bpf.rules
	for m in $(PKG_MANS); do \
		install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/} || exit 1; \
	done

# dkms.conf gets the version written in (its PACKAGE_VERSION is a
# placeholder: dh_dkms reads that line as text, not as bash)
install-dkms:
	for f in $(DKMS_FILES); do \
		if [ -x $$f ]; then mode=0755; else mode=0644; fi; \
		install -D -m $$mode $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; \
	done
	sed -i 's/#MODULE_VERSION#/$(PKG_VERSION)/' $(DESTDIR)$(DKMSDIR)/dkms.conf
	$(if $(KERNEL_HOOKDIR),install -D -m 0755 tools/iocost-bpf-kernel-hook \
		$(DESTDIR)$(KERNEL_HOOKDIR)/iocost-bpf-dkms)

# the source tarball: tracked and untracked-but-not-ignored files
dist:
	@mkdir -p $(PKG_OUT)
	git ls-files -z -c -o --exclude-standard | \
		tar --null -T - --transform 's,^,$(PKG_NAME)-$(PKG_VERSION)/,' \
		    -czf $(PKG_OUT)/$(PKG_NAME)-$(PKG_VERSION).tar.gz
	@echo "$(PKG_OUT)/$(PKG_NAME)-$(PKG_VERSION).tar.gz"

# Debian packages in build/pkg/deb (built in a copy of the tree), lintian
deb: dist
	rm -rf $(PKG_OUT)/deb && mkdir -p $(PKG_OUT)/deb
	tar -C $(PKG_OUT)/deb -xzf $(PKG_OUT)/$(PKG_NAME)-$(PKG_VERSION).tar.gz
	cd $(PKG_OUT)/deb/$(PKG_NAME)-$(PKG_VERSION) && \
		IOCOST_MODELS_KDIR=$(abspath $(MODELS_KDIR)) dpkg-buildpackage -b -us -uc
	lintian --fail-on error $(PKG_OUT)/deb/*.changes

# a signed apt repository of those .debs in build/pkg/repo (reprepro; see
# debian/make-repo: REPO_KEY=FINGERPRINT signs with your key, else a
# throwaway one is made for the tests)
repo: deb
	debian/make-repo $(PKG_OUT)/repo $(PKG_OUT)/deb/iocost-bpf-dkms_*_all.deb \
		$(PKG_OUT)/deb/iocost-bpf-tools_*_amd64.deb

# RPM packages in build/pkg/rpm, rpmlint.  Where rpm is not the system's
# package manager (Debian: its rpm database is empty) the BuildRequires
# cannot be checked: --nodeps.  brp-compress needs bash (Debian's sh is dash).
RPM_NODEPS = $(if $(shell rpm -q glibc 2>/dev/null | grep -v 'not installed'),,--nodeps)
rpm: dist
	rm -rf $(PKG_OUT)/rpm && mkdir -p $(PKG_OUT)/rpm/SOURCES $(PKG_OUT)/rpm/SPECS
	cp $(PKG_OUT)/$(PKG_NAME)-$(PKG_VERSION).tar.gz $(PKG_OUT)/rpm/SOURCES/
	sed 's/@VERSION@/$(PKG_VERSION)/' rpm/iocost-bpf.spec.in > $(PKG_OUT)/rpm/SPECS/iocost-bpf.spec
	rpmbuild -ba $(RPM_NODEPS) --define '_topdir $(TOP)/$(PKG_OUT)/rpm' \
		--define '__brp_compress bash %{_rpmconfigdir}/brp-compress %{?_prefix}' \
		--define 'models_kdir $(abspath $(MODELS_KDIR))' $(PKG_OUT)/rpm/SPECS/iocost-bpf.spec
	rpmlint -c rpm/rpmlint.toml $(PKG_OUT)/rpm/SPECS/iocost-bpf.spec \
		$(PKG_OUT)/rpm/RPMS/*/*.rpm $(PKG_OUT)/rpm/SRPMS/*.rpm

# ---- tests: make check and the rest (tests/tests.mk, tests/bench/bench.mk) ---
# optional: the DKMS source tree has no tests/
-include tests/tests.mk
-include tests/bench/bench.mk
