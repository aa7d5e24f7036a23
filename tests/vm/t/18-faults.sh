#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Refusals that a stock kernel only reaches by chance or on another
# compiler, reached on purpose through the test build's hooks
# (src/testhooks.h; the module DKMS builds has none of them):
#  - the tick event enabled while the module is still loading, between
#    its trace events appearing and module_init() setting the ftrace
#    filter (init_delay_ms): refused with ENODEV, or the ops would trace
#    every kernel function with an empty filter (issue 28, item 2);
#  - the tick event on a kernel whose BTF lacks one of its fields
#    (tick_fault): the load logs why, an enable gets ENODEV and a log line;
#  - a caller of the pricing function that does not call it (a compiler
#    inlined it there; caller_fault): the kernel is refused at load, on
#    6.12 (the function in BTF) as on the IPA-SRA clone kernels (item 6);
#  - shadow mode on a kernel whose BTF lacks blk-iocost's coefficients
#    or cursor (shadow_fault): EOPNOTSUPP, its log line, nothing bound;
#  - the module parameters of the test build exist here (a test build),
#    and not in the product build (checked on the host by make
#    check-product-build).
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

TR=/sys/kernel/tracing
EN=$TR/events/iocost_bpf/iocost_ioc_tick/enable
P=/sys/module/iocost_bpf/parameters

# ---- an enable while the module loads ----
insmod "$MOD" init_delay_ms=3000 &
ins=$!
for _ in $(seq 1 50); do
	[ -e "$EN" ] && break
	sleep 0.05
done
check "the event exists while module_init() runs" test -e "$EN"
check "module_init() is still running" test ! -e "$SYS"
expect_write "an enable before the filter is set" "$EN" 1 ENODEV
wait "$ins"
expect_eq "the module loaded" "$?" 0
expect_match "the refusal is logged" "$(test_dmesg)" \
	'iocost_bpf: iocost_ioc_tick cannot be enabled: the module is still loading'
expect_eq "the event stayed disabled" "$(cat "$EN")" 0
expect_eq "nothing hooks ioc_timer_fn" "$(grep -c '^ioc_timer_fn' "$TR/enabled_functions")" 0
expect_write "once loaded, an enable works" "$EN" 1 OK
expect_eq "one handler on ioc_timer_fn" "$(grep -c '^ioc_timer_fn' "$TR/enabled_functions")" 1
expect_eq "and on nothing else" "$(grep -c 'iocost_tick_handler' "$TR/enabled_functions")" 1
expect_write "disable" "$EN" 0 OK
check "the module unloads" wait_unload

# ---- a private field missing from BTF ----
check "insmod tick_fault=1" insmod "$MOD" tick_fault=1
expect_match "the load says the event is disabled, and why" "$(test_dmesg)" \
	'iocost_bpf: trace event iocost_ioc_tick disabled: the kernel.s BTF has no ioc\.rqos\.disk of 8 bytes'
expect_write "enable" "$EN" 1 ENODEV
expect_match "the refusal is logged with the reason" "$(test_dmesg)" \
	'iocost_bpf: iocost_ioc_tick cannot be enabled: the kernel.s BTF has no ioc\.rqos\.disk of 8 bytes'
expect_eq "the event stayed disabled" "$(cat "$EN")" 0
check "the module unloads" wait_unload

# ---- a caller that does not call the pricing function (inlined) ----
for k in 0 1; do
	caller=$([ $k = 0 ] && echo ioc_rqos_throttle || echo ioc_rqos_merge)
	out=$(insmod "$MOD" caller_fault=$((1 << k)) 2>&1)
	expect_match "$caller without a call: insmod refused (ENOENT)" "$out" \
		'No such file or directory|Unknown symbol|ENOENT'
	expect_match "$caller without a call: the log says why" "$(test_dmesg)" \
		"iocost_bpf: $caller does not call (calc_vtime_cost_builtin \(inlined\?\): its bios would bypass the hook|a calc_vtime_cost_builtin clone): this kernel is not supported"
	check_fails "$caller without a call: nothing loaded" test -e "$SYS"
done

# ---- shadow mode on a kernel whose BTF lacks the coefficients ----
# (shadow_fault: iocost_devctx_shadow_ok() false, as IOCOST_HAVE_SHADOW is
# there): the load says so, a shadow bind gets EOPNOTSUPP and its log line
# and changes nothing, an enforce bind still works
IOCOST_NO_WARMUP=1 load_module shadow_fault=1
expect_match "shadow refused: the load says why" "$(test_dmesg)" \
	"iocost_bpf: this kernel.s BTF lacks blk-iocost.s coefficients or cursor: mode=shadow is refused"
D=$(iocost_enable vda) || { not_ok "enable iocost on vda"; finish; }
check "iocost_2x registers" "$B/bin/iocost_2x"
expect_write "a shadow bind" "$SYS/bindings" "$D model=iocost_2x mode=shadow" EOPNOTSUPP
expect_match "the refusal is logged" "$(test_dmesg)" \
	"iocost_bpf: bindings: $D: mode=shadow needs blk-iocost.s coefficients and cursor in this kernel.s BTF, which lacks them"
expect_eq "nothing bound" "$(cat "$SYS/bindings")" ""
expect_write "an enforce bind works" "$SYS/bindings" "$D model=iocost_2x" OK
expect_eq "bound in enforce mode" "$(cat "$SYS/bindings")" "$D model=iocost_2x mode=enforce"
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK
expect_unload

# ---- the test build's parameters ----
check "insmod" insmod "$MOD"
for p in caller_fault tick_fault shadow_fault init_delay_ms bind_delay_ms; do
	check "test build: parameter $p" test -e "$P/$p"
done
check "the module unloads" wait_unload
finish
