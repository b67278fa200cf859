#!/bin/sh
# report.sh CSV DATFILE "w1|w2|..." "target ...": prints the Markdown table
# of medians, min–max and ratios to native; writes the ratios of the timed
# workloads to DATFILE for chart.gp. Workload rows keep the suite's order.
set -eu
awk -F, -v order="$3" -v targets="$4" -v dat="$2" '
function unq(s) { gsub(/^"|"$/, "", s); return s }
# sorted(k): sorts the values recorded for key k into v[1..n], returns n.
function sorted(k,    n, i, j, x) {
	n = split(vals[k], v, " ")
	for (i = 2; i <= n; i++) {
		x = v[i] + 0
		for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]
		v[j + 1] = x
	}
	return n
}
function median(n) { return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x) }
NR == 1 { next }
{
	k = $2 SUBSEP $3
	unit[$3] = $5
	if ($6 == "ok") { vals[k] = vals[k] " " $4; ok[k]++ }
	else if ($6 == "failed") {
		nfail[k]++
		# A skip says only that an earlier step failed; keep the real error.
		e = unq($7)
		# Long errors keep their start (the exit status) and their end (errno).
		if (length(e) > 100) e = substr(e, 1, 40) " … " substr(e, length(e) - 50)
		if (!(k in err) || err[k] ~ /^skipped/) err[k] = e
	}
}
END {
	nw = split(order, W, "|")
	nt = split(targets, T, " ")
	for (w = 1; w <= nw; w++) if (W[w] != "") {
		n = sorted("native" SUBSEP W[w])
		if (n) base[W[w]] = median(n)
	}
	line = "| workload |"; sep = "|---|"
	for (t = 1; t <= nt; t++) { line = line " " T[t] " |"; sep = sep "---|" }
	print line; print sep
	hdr = "workload"
	for (t = 1; t <= nt; t++) if (T[t] != "native") hdr = hdr " " T[t]
	print hdr > dat
	for (w = 1; w <= nw; w++) {
		if (W[w] == "" || !(W[w] in unit)) continue
		line = "| " W[w] (unit[W[w]] == "s" ? "" : " (" unit[W[w]] ")") " |"
		row = W[w]
		for (t = 1; t <= nt; t++) {
			k = T[t] SUBSEP W[w]
			n = sorted(k)
			r = "-"
			if (n) {
				m = median(n)
				cell = fmt(m) " (" fmt(v[1]) "–" fmt(v[n]) ")"
				if (W[w] in base && base[W[w]] > 0 && unit[W[w]] == "s") {
					r = m / base[W[w]]
					cell = cell " **" sprintf("%.2f", r) "×**"
				}
				if (nfail[k]) cell = cell "; " nfail[k] " failed: " err[k]
			} else if (nfail[k]) cell = "failed: " err[k]
			else cell = (unit[W[w]] == "s" ? "–" : "n/a")
			gsub(/\|/, "/", cell)
			line = line " " cell " |"
			if (T[t] != "native") row = row " " r
		}
		print line
		if (unit[W[w]] == "s") print row > dat
	}
}' "$1"
