#!/usr/bin/env bash
# A later GPU run, not part of the sort's: the toolbox's -extra 2 rows (reduce_sum_u32,
# reduce_max_u32, reduce_by_key_u32, unique_by_key_u32, scan_by_key_u32,
# segreduce_sum_u32, histogram_u32, with -extra 1's unique_u32, rle_u32,
# partition3_u32, segsort_keys_u32 and sort_keys_u64, and copy for the byte floor)
# beside CUB's (cub_anchor -extra 2), through scripts/bench-h100.sh with main's
# command (.bench/vkc-new). Run from the repository root with .gl/ and .bench/
# carried (prepare.sh); DL=seconds (default 560) bounds it, SIZES the exponents
# (default 16,20,24,28). Writes bench-h100.sh's files into $OUT, and its
# output to $OUT/log.txt.
set -u
T0=$(date +%s); DL=${DL:-560}
gunzip -f .bench/vkc-new.gz 2>/dev/null; chmod +x .bench/vkc-new
if [ ! -x .bench/vrdx_anchor ] && [ -d .bench/vrdx ] && command -v g++ >/dev/null; then
	for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
	(cd .bench/vrdx && g++ -O2 -std=c++17 -I include -I . vrdx_anchor.cc -o ../vrdx_anchor -l:libvulkan.so.1) >>$OUT/log.txt 2>&1
fi
VKCOMPACT_BENCH_BIN=.bench/vkc-new timeout $(( DL - ($(date +%s) - T0) - 5 )) \
	bash scripts/bench-h100.sh -n "${SIZES:-16,20,24,28}" -keep 0.1,0.5 -reps 10 -ops copy -extra 2 >>$OUT/log.txt 2>&1
echo "bench-h100.sh exit $? after $(( $(date +%s) - T0 )) s" >>$OUT/log.txt
