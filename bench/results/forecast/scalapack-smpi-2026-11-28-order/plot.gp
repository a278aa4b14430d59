# gnuplot bench/results/forecast/scalapack-smpi-2026-11-28-order/plot.gp (from the repository's root): docs/images/forecast-scalapack-smpi-order.png
set terminal pngcairo size 1100,450 font ",10"
set output "docs/images/forecast-scalapack-smpi-order.png"
set multiplot layout 1,2
set logscale x
set xlabel "replayed time (s), SimGrid SMPI"
set yrange [0.2:1.8]
set grid
set key top left
set ylabel "forecast / replayed"
set title "PDGEMM and PDTRSM at 16, 64 and 256 processes: whole call"
plot for [i=0:6] "bench/results/forecast/scalapack-smpi-2026-11-28-order/plot.dat" index i using 1:2 with points pt (i%3)+5 title columnheader(1), 1 lw 1 dt 2 notitle, 1.05 dt 3 lc "gray" notitle, 0.95 dt 3 lc "gray" notitle
set title "communication alone (no computation on either side)"
plot for [i=0:6] "bench/results/forecast/scalapack-smpi-2026-11-28-order/plot.dat" index i using 1:3 with points pt (i%3)+5 title columnheader(1), 1 lw 1 dt 2 notitle, 1.05 dt 3 lc "gray" notitle, 0.95 dt 3 lc "gray" notitle
unset multiplot
