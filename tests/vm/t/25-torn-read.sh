#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each open of a control file reads one consistent text, however many
# read()s it takes and whatever changes between them.
# Defect covered: sysfs gives a reader at most a page per read(), and
# every read regenerated the whole text and copied the part at its offset,
# so a read of stats (or bindings) longer than a page that a bind or
# unbind interleaved was torn: lines skipped, repeated or cut in two.
# 128 null_blk disks bound to iocost_2x (bindings ~4.6 KiB, stats ~5 pages):
#  1. deterministic: an open file reads its first page, the disk of its
#     third line is unbound, the rest is read: the whole read must be the
#     text from before the unbind (the old code gave the new text's tail
#     from offset 4096: one line lost at the page boundary);
#  2. a file keeps its snapshot while 15 other opens read the file; the
#     16th replaces it, and the next read fails with EAGAIN (and a kernel
#     log line) instead of serving another text;
#  3. under churn: a writer unbinds and rebinds the first half of the disks
#     in turn while three readers cat stats and bindings 20 times each:
#     every line of every read is complete and well-formed, no disk is
#     listed twice, every disk never unbound is in every read.
# Measured on the old code (main at ceef7a4, 6.12): 1 failed for both
# files (the texts differ from byte 4097 on), 2 read on after 16 opens,
# 3 found 2 of 60 reads of stats torn (a line spliced at a page boundary,
# the next disk missing): 3 is random, 1 is the deterministic check.
# 43-60 s of guest time here (97 s once, with two other VMs on the host).
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tests/vm/lib.sh"

N=128
W=$(mktemp -d)
load_module
mkdir -p "$PINS"
check "iocost_2x registers" "$B/bin/iocost_2x"
# in null_blk's order: the first half churns in part 3, the second never does
nullb_disks "$N" "$W/devs"
# bind_all MODEL [--loop]: write "MAJ:MIN model=MODEL" to bindings for each
# disk on stdin, one open and write each (an exec of $WR a disk is slow
# under TCG); prints the writes that failed.  --loop: unbind and rebind
# them in turn until killed (exec: killing the background job kills it).
bind_all() {
	# shellcheck disable=SC2016
	exec python3 -c 'import os, sys
def bind(d, model):
    try:
        fd = os.open(sys.argv[1], os.O_WRONLY)
        try:
            os.write(fd, ("%s model=%s" % (d, model)).encode())
        finally:
            os.close(fd)
    except OSError as e:
        print("%s model=%s: %s" % (d, model, os.strerror(e.errno)), flush=True)
devs = sys.stdin.read().split()
while True:
    for d in devs:
        if sys.argv[3] == "--loop":
            bind(d, "linear")
        bind(d, sys.argv[2])
    if sys.argv[3] != "--loop":
        break' "$SYS/bindings" "$1" "${2:-}"
}
expect_eq "all $N binds succeed" "$(bind_all iocost_2x <"$W/devs")" ""
head -n $((N / 2)) "$W/devs" >"$W/churn"
tail -n $((N / 2)) "$W/devs" >"$W/stable"

# ---- 1. a change between two reads of one open file ----
for f in stats bindings; do
	before=$W/$f.before
	cat "$SYS/$f" >"$before"
	check "$f is longer than a page ($(wc -c <"$before") bytes)" test "$(wc -c <"$before")" -gt 4096
	d=$(sed -n '3s/ .*//p' "$before")	# its third line's disk
	# shellcheck disable=SC2016
	python3 -c 'import os, subprocess, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
text = os.read(fd, 4096)
if subprocess.run([sys.argv[2], sys.argv[3], sys.argv[4] + " model=linear"], capture_output=True, text=True).stdout.strip() != "OK":
    sys.exit("the unbind failed")
while True:
    b = os.read(fd, 4096)
    if not b:
        break
    text += b
sys.stdout.buffer.write(text)' "$SYS/$f" "$WR" "$SYS/bindings" "$d" >"$W/$f.during" ||
		not_ok "$f: read across an unbind"
	check "$f read in pages across the unbind of $d is the text from before it" cmp "$before" "$W/$f.during"
	expect_eq "a new read of $f no longer lists $d" "$(grep -c "^$d " "$SYS/$f")" 0
	expect_write "rebind $d" "$SYS/bindings" "$d model=iocost_2x" OK
done

# ---- 2. the snapshots a file keeps: 16 ----
# shellcheck disable=SC2016
out=$(python3 -c 'import errno, os, sys
path = sys.argv[1]
for others in (15, 16):
    fd = os.open(path, os.O_RDONLY)
    first = os.read(fd, 4096)
    fds = [os.open(path, os.O_RDONLY) for _ in range(others)]
    for o in fds:
        os.read(o, 1)
    try:
        rest = os.read(fd, 4096)
        print("%d others: read %d bytes" % (others, len(rest)))
    except OSError as e:
        print("%d others: %s" % (others, errno.errorcode[e.errno]))
    for o in fds + [fd]:
        os.close(o)' "$SYS/stats" 2>&1)
expect_match "after 15 other opens read stats, an open file reads on" "$out" "^15 others: read 4096 bytes$"
expect_match "after 16, its next read fails with EAGAIN" "$out" "^16 others: EAGAIN$"
expect_match "and the kernel log says why" "$(test_dmesg)" \
	"stats: a read at offset 4096 failed \(EAGAIN\): 16 newer reads replaced the text this open file was reading; read it again from offset 0"

# ---- 3. three readers while a writer unbinds and rebinds ----
bind_all iocost_2x --loop <"$W/churn" >"$W/writer.err" &
wpid=$!
R=20
# reader K: R reads of stats and bindings, each into its own file
pids=()
for k in 1 2 3; do
	(for i in $(seq 1 $R); do
		cat "$SYS/stats" >"$W/r$k.s.$i"
		cat "$SYS/bindings" >"$W/r$k.b.$i"
	done) &
	pids+=($!)
done
wait "${pids[@]}"
kill "$wpid"
wait "$wpid" 2>/dev/null
expect_eq "the writer's unbinds and rebinds all succeeded" "$(head -3 "$W/writer.err")" ""
# every read: a final newline, every line well-formed (stats: with the
# fields of the first line read before the churn), no disk twice, every
# disk of the stable half there; prints the torn reads and how many reads
# of stats had fewer than N lines (the churn overlapped them)
# shellcheck disable=SC2016
out=$(python3 -c 'import glob, re, sys
w, n = sys.argv[1], int(sys.argv[2])
stable = set(open(w + "/stable").read().split())
keys = lambda line: [f.split("=")[0] for f in line.split()[1:]]
want = keys(open(w + "/stats.before").readline())
res = {"s": re.compile(r"[0-9]+:[0-9]+ model=iocost_2x mode=enforce registered=1 charges=[0-9]+( [a-z_]+=[0-9,]+)+"),
       "b": re.compile(r"[0-9]+:[0-9]+ model=iocost_2x mode=enforce")}
short = torn = 0
for f in sorted(glob.glob(w + "/r?.[sb].*")):
    kind = f.split("/")[-1].split(".")[1]
    text = open(f).read()
    lines = text.split("\n")[:-1]
    bad = [] if text.endswith("\n") else ["no final newline"]
    seen = set()
    for i, line in enumerate(lines, 1):
        d = line.split(" ")[0]
        if not res[kind].fullmatch(line) or (kind == "s" and keys(line) != want):
            bad.append("line %d malformed: %.60s" % (i, line))
        if d in seen:
            bad.append("%s listed twice" % d)
        seen.add(d)
    bad += ["%s missing" % d for d in sorted(stable - seen)]
    if bad:
        torn += 1
        print("%s: %s" % (f.split("/")[-1], "; ".join(bad[:3])))
    short += kind == "s" and len(lines) < n
print("torn=%d short=%d" % (torn, short))' "$W" "$N")
echo "$out" | grep -v '^torn=' | head -5 | sed 's/^/# /'
expect_match "$((3 * R)) reads of stats and of bindings: every line complete, no disk twice, no stable disk missing" \
	"$out" "^torn=0 "
short=$(echo "$out" | sed -n 's/^torn=.* short=//p')
check "the churn overlapped the reads: $short reads of stats had fewer than $N lines" test "${short:-0}" -gt 0

# ---- teardown ----
cut -d' ' -f1 "$SYS/bindings" >"$W/bound"
expect_eq "every unbind succeeds" "$(bind_all linear <"$W/bound")" ""
expect_eq "bindings is empty" "$(cat "$SYS/bindings")" ""
expect_nomatch "no WARN/BUG/oops" "$(test_dmesg)" "WARNING:|BUG:|Oops|Call Trace"
rm -rf "$W"
expect_unload
rmmod null_blk 2>/dev/null
finish
