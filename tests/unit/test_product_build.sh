#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/unit/test_product_build.sh KO - TAP: the module as DKMS builds it
# (make module, no IOCOST_TEST) has none of the test build's fault and
# delay hooks (src/testhooks.h): its only parameters are direct_call and,
# where the hook has its direct entry (x86-64, the function in BTF: the
# VM kernel), direct_hook, and none of the hooks' names is in it.  make check-product-build builds KO
# for the VM kernel and runs this.
set -uo pipefail
ko=${1:?usage: test_product_build.sh KO}
n=0
text=$(strings -a "$ko")
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

parms=$(modinfo -F parm "$ko" | cut -d: -f1 | tr '\n' ' ')
want="direct_call "
syms=$(nm "$ko") || { not_ok "nm $ko"; syms=; }
grep -q ' iocost_direct_entry$' <<<"$syms" && want="direct_call direct_hook "
if [ "$parms" = "$want" ]; then
	ok "the product build's only parameters are $want"
else
	not_ok "the product build's parameters: '$parms', want '$want'"
fi
for h in clone_fault caller_fault tick_fault init_delay_ms bind_delay_ms rt_block_ms \
	 rt_blocked rt_blocked_at_unreg; do
	if grep -qw "$h" <<<"$text"; then
		not_ok "$h is in the product build"
	else
		ok "no $h in the product build"
	fi
done
echo "1..$n"
[ "$fails" -eq 0 ]
