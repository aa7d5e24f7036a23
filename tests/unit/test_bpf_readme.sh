#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/unit/test_bpf_readme.sh - bpf/README.md's walk-through quotes the
# template it walks through (make unit).  Every fenced block right after a
# "<!-- quote FILE -->" line must be a run of whole lines of FILE,
# verbatim: the code a reader copies is the code the suite builds, loads
# and binds (tests/vm/t/02-register.sh).  The check itself is checked on a
# copy whose quote differs from the file by one character.  TAP, for prove.
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# quotes MD: one line per quote of MD, "ok|bad LINE FILE NLINES"; files are
# read relative to the current directory
quotes() {
	perl -e '
		my $md = shift;
		open my $fh, "<", $md or die "$md: $!\n";
		my @l = <$fh>;
		for (my $i = 0; $i < @l; $i++) {
			next unless $l[$i] =~ /^<!-- quote (\S+) -->$/;
			my ($src, $at, @block) = ($1, $i + 1);
			my $fenced = $i + 1 < @l && $l[$i + 1] =~ /^```/;
			if ($fenced) {
				for ($i += 2; $i < @l && $l[$i] !~ /^```\s*$/; $i++) {
					push @block, $l[$i];
				}
			}
			my $text = "";
			if (open my $s, "<", $src) { local $/; $text = <$s>; }
			my $b = join "", @block;
			my $ok = $fenced && @block && $text =~ /(?:\A|\n)\Q$b\E/;
			printf "%s %d %s %d\n", $ok ? "ok" : "bad", $at, $src,
				scalar @block;
		}
	' "$1"
}

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

md=bpf/README.md
out=$(quotes "$md") || { echo "Bail out! cannot read $md"; exit 1; }
if grep -q "bpf/iocost_tmpl.bpf.c" <<<"$out"; then
	ok "$md quotes bpf/iocost_tmpl.bpf.c"
else
	not_ok "$md quotes bpf/iocost_tmpl.bpf.c (no '<!-- quote bpf/iocost_tmpl.bpf.c -->' block)"
fi
while read -r verdict line src lines; do
	[ -n "$verdict" ] || continue
	if [ "$verdict" = ok ] && [ "$lines" -gt 0 ]; then
		ok "$md:$line: its $lines lines are $src's, verbatim"
	else
		not_ok "$md:$line: its $lines lines are not a run of whole lines of $src"
	fi
done <<<"$out"

# the check fails a quote that drifted: one character of the quote changed
perl -pe 's/iocost_linear_cost\(p, opf/iocost_linear_cost(p,  opf/' "$md" >"$tmp/drift.md"
if cmp -s "$md" "$tmp/drift.md"; then
	not_ok "the drifted copy differs from $md (the substitution found nothing)"
elif quotes "$tmp/drift.md" | grep -q '^bad '; then
	ok "a quote one character off the file is reported"
else
	not_ok "a quote one character off the file is reported: $(quotes "$tmp/drift.md" | tr '\n' ' ')"
fi

echo "1..$n"
[ "$fails" = 0 ]
