# The table as calibration wrote it before 2026-11-29: an identity's own link (one process
# each) filled with the mean of every link.
import re, sys, yaml, datetime
def fix(o):
    if isinstance(o, dict): return {k: fix(v) for k, v in o.items()}
    if isinstance(o, list): return [fix(v) for v in o]
    if isinstance(o, datetime.datetime): return o.strftime('%Y-%m-%dT%H:%M:%SZ')
    return o
t = fix(yaml.safe_load(open(sys.argv[1])))
ib = t['model']['inv_beta']; n = len(ib)
off = [ib[i][j] for i in range(n) for j in range(n) if i != j]
mean = [sum(e[0] for e in off) / len(off), sum(e[1] for e in off) / len(off)]
for i in range(n): ib[i][i] = mean
yaml.safe_dump(t, open(sys.argv[2], 'w'))
