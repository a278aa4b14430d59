set terminal pngcairo size 900,600
set output 'bench/results/jitter/jitter-mitigation.png'
set datafile separator ','
set logscale x 2
set format x '%.0f'
set key top left
set xlabel 'tasks'
set ylabel 'slowdown (time with jitter / without)'
set title 'colltune-jitter: 1000 us phases, 100 phases, kary:2 barrier'
plot 'bench/results/jitter/jitter-mitigation.csv' using 2:(stringcolumn(1) eq 'vm-core0.trace unsync' ? $3 : 1/0):4 with yerrorlines title 'vm-core0.trace unsync', 'bench/results/jitter/jitter-mitigation.csv' using 2:(stringcolumn(1) eq 'vm-core0.trace sync' ? $3 : 1/0):4 with yerrorlines title 'vm-core0.trace sync', 'bench/results/jitter/jitter-mitigation.csv' using 2:(stringcolumn(1) eq 'vm-core0.trace cosched' ? $3 : 1/0):4 with yerrorlines title 'vm-core0.trace cosched'
