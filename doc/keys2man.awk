# SPDX-License-Identifier: LGPL-2.1-or-later
# awk -v version=V -v profilesdir=DIR -f keys2man.awk keys.txt page.in > page
# Replaces the line @KEYS@ of the template with the key table of keys.txt as
# man(7) .TP paragraphs, @VERSION@ and @PROFILESDIR@ with their values.
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	sub(/^[.']/, "\\\\&&", s)
	return s
}
BEGIN { FS = "\t" }
FNR == NR {
	if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/)
		next
	if (NF != 5) {
		printf "keys.txt:%d: expected 5 TAB-separated columns, found %d\n", FNR, NF > "/dev/stderr"
		exit 1
	}
	n++
	key[n] = $2; file[n] = $3; example[n] = $4; text[n] = $5
	next
}
/^@KEYS@$/ {
	for (i = 1; i <= n; i++) {
		print ".TP"
		print ".B " esc(key[i])
		print esc(text[i])
		print ".br"
		print "File: " esc(file[i]) (example[i] != "-" ? "; example: \\fB" esc(example[i]) "\\fR" : "")
	}
	next
}
{
	gsub(/@VERSION@/, version)
	gsub(/@PROFILESDIR@/, profilesdir)
	print
}
