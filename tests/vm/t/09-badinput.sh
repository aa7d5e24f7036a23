#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad input to the one writable control file, bindings: each malformed,
# overlong, binary, non-terminated or out-of-range write gets its errno,
# a kernel log line, and changes nothing (readback of every control file
# compared before and after).  Then the modes of the files, and who may
# write them.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

load_module
mkdir -p "$PINS"
check "iocost_2x registers" "$B/bin/iocost_2x"
D=$(cat /sys/block/vda/dev)
expect_write "bind iocost_2x to vda (the state to keep)" "$SYS/bindings" "$D model=iocost_2x" OK

snapshot() { for f in models bindings stats; do echo "== $f"; cat "$SYS/$f"; done; }
before=$(snapshot)

long=$(printf 'x%.0s' $(seq 1 300))
page=$(printf ' %.0s' $(seq 1 4000))x
cases=(
	# data (errno-write escapes)		errno	what
	""					OK	"an empty write is a no-op"
	"\n"					EINVAL	"a bare newline"
	"$D"					EINVAL	"no model key"
	"$D model="				EINVAL	"an empty model name"
	"$D model=iocost_2x extra"		EINVAL	"a trailing word"
	"$D model=iocost_2x\n$D model=linear"	EINVAL	"two lines"
	"$D model=iocost_2x\n\n"		EINVAL	"two newlines"
	"$D model=iocost_2x\0"			EINVAL	"a trailing NUL"
	"$D\0model=linear"			EINVAL	"an embedded NUL"
	"$D model=iocost\x012x"			EINVAL	"a control byte in the name"
	"$D model=iocost\xff2x"			EINVAL	"a non-ASCII byte in the name"
	"\xde\xad\xbe\xef\x00\x01\x02"		EINVAL	"binary garbage"
	"$D model=abcdefghijklmnop"		EINVAL	"a 16-character name"
	"$D model=$long"			EINVAL	"a 300-character name"
	"$D MODEL=linear"			EINVAL	"an upper-case key"
	"$D model:linear"			EINVAL	"a wrong separator"
	"${D/:/.} model=linear"			EINVAL	"MAJ.MIN"
	"-1:0 model=linear"			EINVAL	"a negative major"
	"254:-0 model=linear"			EINVAL	"a negative minor"
	"0x fe:0 model=linear"			EINVAL	"hex"
	"4096:0 model=linear"			ERANGE	"major 4096 (12 bits)"
	"0:1048576 model=linear"		ERANGE	"minor 2^20 (20 bits)"
	"99999999999999999999999:0 model=linear" ERANGE	"a 23-digit major"
	"254:184467440737095516160 model=linear" ERANGE	"a minor beyond 2^64"
	"254:99 model=linear"			ENODEV	"a device nobody registered"
	"$D model=nosuch"			ENOENT	"an unknown model"
	"$D model=Iocost_2x"			ENOENT	"names are case-sensitive"
	"$D model=iocost_2x$page"		EINVAL	"a 4 KiB line ending in garbage"
	"$D model=iocost_2x mode=bogus"		EINVAL	"an unknown mode"
	"$D model=iocost_2x mode="		EINVAL	"an empty mode"
	"$D model=iocost_2x mode=SHADOW"	EINVAL	"a mode in upper case"
	"$D model=iocost_2x mode=shadow mode=enforce" EINVAL "two modes"
	"$D model=iocost_2x model=iocost_2x"	EINVAL	"two models"
	"$D mode=shadow"			EINVAL	"a mode without a model"
	"$D model=linear mode=shadow"		EINVAL	"a mode for the builtin"
	"$D model=nosuch mode=shadow"		ENOENT	"shadow mode of an unknown model"
)
for ((i = 0; i < ${#cases[@]}; i += 3)); do
	expect_write "${cases[i + 2]}" "$SYS/bindings" "${cases[i]}" "${cases[i + 1]}"
done
# sysfs hands the store one page of a longer write and reports a short
# write: a valid line padded past a page must not be applied from its
# first page
pad=$(printf ' %.0s' $(seq 1 5000))
expect_write "a valid unbind padded to 5 KiB" "$SYS/bindings" "$D model=linear$pad" EINVAL
huge=$(printf 'y%.0s' $(seq 1 70000))
expect_write "70 KB of garbage" "$SYS/bindings" "$huge" EINVAL
expect_eq "nothing changed in models, bindings and stats" "$(snapshot)" "$before"
# the refusals are logged with a rate limit (per kind, 10 per 5 s): one
# of each kind after the limit has reset
sleep 5.5
for w in "$D model=x y" "4096:0 model=linear" "254:99 model=linear" "$D model=nosuch"; do
	"$WR" "$SYS/bindings" "$w" >/dev/null
done
log=$(test_dmesg)
expect_match "the log explains malformed lines" "$log" 'bindings: refused ".*": expected "MAJ:MIN model=NAME .mode=enforce.shadow." or "MAJ:MIN model=linear"'
expect_match "the log explains out-of-range numbers" "$log" "bindings: refused .*device number out of range"
expect_match "the log explains unknown devices" "$log" "bindings: 254:99: no such block device"
expect_match "the log explains unknown models" "$log" "no model named nosuch is registered"
expect_eq "still nothing changed" "$(snapshot)" "$before"

# ---- modes and permissions ----
expect_eq "models is 0444" "$(stat -c %a "$SYS/models")" 444
expect_eq "stats is 0444" "$(stat -c %a "$SYS/stats")" 444
expect_eq "bindings is 0644" "$(stat -c %a "$SYS/bindings")" 644
for f in models stats; do
	expect_write "root cannot write $f either" "$SYS/$f" "$D model=linear" EACCES
done
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
expect_eq "a non-root user cannot unbind" "$("${nobody[@]}" "$WR" "$SYS/bindings" "$D model=linear")" EACCES
expect_eq "root without CAP_SYS_ADMIN cannot unbind" \
	"$(capsh --drop=cap_sys_admin -- -c "$WR $SYS/bindings '$D model=linear'")" EPERM
out=$("${nobody[@]}" "$B/bin/test_min" --pin /tmp/nobody 2>&1)
expect_match "a non-root user cannot register a model" "$out" "errno=EPERM"
# without CAP_SYS_ADMIN libbpf cannot even open the module's BTF; the
# module refuses the registration too (EPERM) if a loader gets that far
out=$(capsh --drop=cap_sys_admin -- -c "$B/bin/test_min --pin /tmp/nocap" 2>&1)
expect_match "root without CAP_SYS_ADMIN cannot register a model" "$out" "errno=E"
expect_nomatch "test_min was never registered" "$(cat "$SYS/models")" "^test_min "
expect_eq "and the binding is still there" "$(snapshot)" "$before"
expect_write "unbind" "$SYS/bindings" "$D model=linear" OK
expect_unload
finish
