#!/bin/sh
# report.sh CSV DATFILE "w1|w2|..." "target ...": prints the Markdown table
# of medians, min–max and ratios to native; writes the ratios of the timed
# workloads to DATFILE for chart.gp. Workload rows keep the suite's order.
# report.sh --judge CSV "w1|w2|...": prints the judge's share of each timed
# workload instead, (oz0fs - oz0fs-nojudge) / oz0fs of the medians, or
# nothing when either has no figures.
set -eu
mode=table
if [ "$1" = --judge ]; then
	mode=judge
	shift
	set -- "$1" /dev/null "$2" "oz0fs oz0fs-nojudge"
fi
awk -F, -v mode="$mode" -v order="$3" -v targets="$4" -v dat="$2" '
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
# range(k): "median (min–max)" of key k, leaving its median, min and max in
# med, lo and hi; "" if none.
function range(k,    n) {
	n = sorted(k)
	if (!n) return ""
	med = median(n); lo = v[1]; hi = v[n]
	return fmt(med) " (" fmt(v[1]) "–" fmt(v[n]) ")"
}
# judge_share(): the judge table, one row per timed workload both ran; a
# share is "within noise" when the two ranges overlap.
function judge_share(    w, a, b, ma, alo, ahi, rows) {
	for (w = 1; w <= nw; w++) {
		if (W[w] == "" || unit[W[w]] != "s") continue
		a = range("oz0fs" SUBSEP W[w]); ma = med; alo = lo; ahi = hi
		b = range("oz0fs-nojudge" SUBSEP W[w])
		if (a == "" || b == "" || ma <= 0) continue
		if (!rows++) { print "| workload | oz0fs | oz0fs-nojudge | judge share |"; print "|---|---|---|---:|" }
		printf "| %s | %s | %s | %.1f %%%s |\n", W[w], a, b, 100 * (ma - med) / ma,
			(alo <= hi && lo <= ahi) ? " (within noise)" : ""
	}
}
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
	if (mode == "judge") { judge_share(); exit }
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
