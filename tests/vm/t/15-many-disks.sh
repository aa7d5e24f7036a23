#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The control files are never cut at PAGE_SIZE.  Defect
# covered: stats and bindings were sysfs show() attributes, which get one
# page: with 64 bound disks stats (~90 bytes a disk) was cut at 4 KiB, its
# last lines missing or truncated mid-line.  64 null_blk disks bound to
# iocost_2x: every line is there and complete, whether read with cat or in
# 100-byte reads; unbinding all empties both files.
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

N=64
W=$(mktemp -d)
load_module
mkdir -p "$PINS"
check "iocost_2x registers" "$B/bin/iocost_2x"
nullb_disks "$N" "$W/devs.unsorted"
sort "$W/devs.unsorted" >"$W/devs"

bad=0
while read -r d; do
	[ "$("$WR" "$SYS/bindings" "$d model=iocost_2x")" = OK ] || bad=$((bad + 1))
done <"$W/devs"
expect_eq "all $N binds succeeded (writes not OK)" "$bad" 0
expect_match "models counts $N bindings" "$(cat "$SYS/models")" "^iocost_2x bindings=$N$"

# ---- bindings ----
cat "$SYS/bindings" >"$W/b"
expect_eq "bindings has $N lines" "$(wc -l <"$W/b")" "$N"
# setdiff GOT WANT: the lines missing from and extra in GOT (sorted files)
setdiff() { echo "missing=[$(comm -13 "$1" "$2" | tr '\n' ' ')] extra=[$(comm -23 "$1" "$2" | tr '\n' ' ')]"; }
sort "$W/b" >"$W/b.sorted"
sed 's/$/ model=iocost_2x mode=enforce/' "$W/devs" | sort >"$W/b.want"
expect_eq "bindings: each line is 'MAJ:MIN model=iocost_2x mode=enforce', for exactly the $N disks" \
	"$(setdiff "$W/b.sorted" "$W/b.want")" "missing=[] extra=[]"
expect_eq "bindings ends in a newline" "$(tail -c 1 "$W/b" | od -An -c | tr -d ' ')" '\n'
dd if="$SYS/bindings" bs=100 of="$W/b100" 2>/dev/null
check "bindings read 100 bytes at a time is the same text" cmp "$W/b" "$W/b100"

# ---- stats ----
cat "$SYS/stats" >"$W/s"
echo "# stats: $(wc -c <"$W/s") bytes, $(wc -l <"$W/s") lines; last: '$(tail -c 120 "$W/s" | tr '\n' '|')'"
check "stats is longer than a page ($(wc -c <"$W/s") > 4096 bytes)" test "$(wc -c <"$W/s")" -gt 4096
expect_eq "stats has $N lines" "$(wc -l <"$W/s")" "$N"
awk '{ print $1 }' "$W/s" | sort >"$W/s.devs"
expect_eq "stats: one line per disk, each starting with its MAJ:MIN" \
	"$(setdiff "$W/s.devs" "$W/devs")" "missing=[] extra=[]"
expect_eq "stats ends in a newline" "$(tail -c 1 "$W/s" | od -An -c | tr -d ' ')" '\n'
keys() { awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); printf "%s ", kv[1] } print "" }'; }
expect_eq "stats: the last line has all the fields of the first" \
	"$(tail -n 1 "$W/s" | keys)" "$(head -n 1 "$W/s" | keys)"
expect_eq "stats: every line has the first line's fields" \
	"$(keys <"$W/s" | sort -u | wc -l)" 1
dd if="$SYS/stats" bs=100 of="$W/s100" 2>/dev/null
check "stats read 100 bytes at a time is the same text" cmp "$W/s" "$W/s100"

# ---- unbind all ----
bad=0
while read -r d; do
	[ "$("$WR" "$SYS/bindings" "$d model=linear")" = OK ] || bad=$((bad + 1))
done <"$W/devs"
expect_eq "all $N unbinds succeeded (writes not OK)" "$bad" 0
expect_eq "bindings is empty" "$(cat "$SYS/bindings")" ""
expect_eq "stats is empty" "$(cat "$SYS/stats")" ""
expect_match "models counts no binding" "$(cat "$SYS/models")" "^iocost_2x bindings=0$"

rm -rf "$PINS/iocost_2x" "$W"
wait_unregistered iocost_2x
check "the module unloads" wait_unload
rmmod null_blk 2>/dev/null
finish
