# chart.gp: bar chart of each target's median time as a multiple of native
# ext4's, one cluster per workload. Called by run.sh with datafile and outfile.
set terminal pngcairo size 1400,600 font ",10" noenhanced
set output outfile
set title "oz0fs benchmark: median time relative to native ext4 (lower is better; log scale)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y 2
set yrange [*<0.5:*]
set ylabel "× native"
set grid ytics
set xtics rotate by -35 scale 0
set key top left
set datafile missing "-"
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5
ncol = system("head -n 1 '" . datafile . "' | wc -w") + 0
plot for [i=2:ncol] datafile using i:xtic(1) title columnheader(i)
