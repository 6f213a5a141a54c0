#!/usr/bin/env bash
# One GPU run for the sort: the product's rows (u32 and u64 keys and pairs) beside CUB,
# the ablations and candidates, ncu on CUB, vrdx, then the look-back stress under validation.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT; L=$O/log.txt; P=$O/phases.txt; C=$O/bench.csv
T0=$(date +%s); DL=${DL:-560}; left() { echo $(( DL - ($(date +%s) - T0) )); }; el() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a $L; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >>$L 2>&1
(nvcc -O3 -arch=sm_90 -o .bench/cub_anchor .bench/cub_anchor.cu && cp .bench/cub_anchor $O/cub_anchor) >$O/nvcc.log 2>&1 &
NV=$!
gunzip -f .bench/vkc-new.gz .bench/tests/radix.test.gz; chmod +x .bench/vkc-new .bench/tests/radix.test
echo "label,impl,op,n,keep_ratio,ms_median,gelem_per_s" >$C
# b LABEL BIN [ENV=V ...] -- bench args
b() {
	local label=$1 bin=$2; shift 2; local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
	echo "## $label $bin ${envs[*]} $*" >>$P
	env "${envs[@]}" timeout 150 $bin bench -phases "$@" 2>>$P | tail -n +2 | sed "s/^/$label,/" >>$C
}
S=.bench/spv; X=.bench/vkx; N=.bench/vkc-new
SP="-sort-path single-pass -sort-bits 8"
el "product rows"
b new $N -- -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24,28 -reps 10 -kernel-stats $O/kstats-u64.csv
b new $N -- -ops sort_keys_u32,sort_pairs_u32 -n 16,18,20,22,24,26,28 -reps 15 -kernel-stats $O/kstats-u32.csv
b old-u64 $N -- -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24,28 -reps 6 -sort-path three-phase
cat $O/kstats-u32.csv $O/kstats-u64.csv >$O/kstats.csv 2>/dev/null; rm -f $O/kstats-u64.csv $O/kstats-u32.csv
el "CUB"
wait $NV; cat $O/nvcc.log >>$L; rm -f $O/nvcc.log
.bench/cub_anchor -sortonly 1 -n 16,18,20,22,24,26,28 -reps 20 2>>$L | tail -n +2 | sed "s/^/cub,/" >>$C
el "ablations 2^24 keys 256x30 and pairs 256x16"
for v in base abl-nolookback abl-tileorder abl-tileorder-norank abl-tileorder-norank-nocount abl-all cand-shufflerank; do
	A=""; case $v in abl-*) A=1;; esac
	b $v $X VKX_SPV_DIR=$S/$v VKCOMPACT_ABLATION=$A -- -ops sort_keys_u32 -n 24 -reps 15 $SP -sort-kpl 30
	b $v $X VKX_SPV_DIR=$S/$v VKCOMPACT_ABLATION=$A -- -ops sort_pairs_u32 -n 24 -reps 15 $SP -sort-kpl 16
done
if [ $(left) -gt 330 ]; then
el "ablations 2^28 keys"
for v in base abl-nolookback abl-tileorder abl-all cand-shufflerank; do
	A=""; case $v in abl-*) A=1;; esac
	b $v $X VKX_SPV_DIR=$S/$v VKCOMPACT_ABLATION=$A -- -ops sort_keys_u32 -n 28 -reps 8 $SP -sort-kpl 30
done
fi
if [ $(left) -gt 150 ]; then
el "ncu on CUB"
timeout 45 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k regex:'Onesweep|Histogram|Scan|Radix|Exclusive' .bench/cub_anchor -sortonly 1 -n 24 -reps 3 >$O/ncu.csv 2>>$L
fi
if [ $(left) -gt 300 ]; then
el "histogram and shapes"
b hr1 $X VKX_SPV_DIR=$S/base -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b hk8p528 $X VKX_SPV_DIR=$S/base VKX_HIST_KPL=8 VKX_HIST_PROCS=528 -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b hr8k8p528 $X VKX_SPV_DIR=$S/hr8 VKX_HIST_KPL=8 VKX_HIST_PROCS=528 -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b hr2k16p1056 $X VKX_SPV_DIR=$S/hr2 VKX_HIST_KPL=16 VKX_HIST_PROCS=1056 -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b w512k15 $X VKX_SPV_DIR=$S/base -- -ops sort_keys_u32,sort_pairs_u32 -n 24 -reps 8 $SP -sort-kpl 15 -sort-wg 512
b w384k20 $X VKX_SPV_DIR=$S/base -- -ops sort_keys_u32 -n 24 -reps 8 $SP -sort-kpl 20 -sort-wg 384
b bits7 $X VKX_SPV_DIR=$S/base -- -ops sort_keys_u32 -n 24,28 -reps 8 -sort-path single-pass -sort-bits 7 -sort-kpl 30
b bits7p $X VKX_SPV_DIR=$S/base -- -ops sort_pairs_u32 -n 24 -reps 8 -sort-path single-pass -sort-bits 7 -sort-kpl 16
b u64k8 $N -- -ops sort_keys_u64,sort_pairs_u64 -n 24 -reps 8 $SP -sort-kpl 8
b u64k12 $N -- -ops sort_keys_u64,sort_pairs_u64 -n 24 -reps 8 $SP -sort-kpl 12
fi
el "vrdx"
timeout 40 .bench/vrdx_anchor -n 16,18,20,22,24,26,28 -reps 15 2>>$L | grep "^vrdx" | sed "s/^/vrdx,/" >>$C
el "stress under validation"
for f in .bench/layer/*.deb; do dpkg -x $f / >/dev/null 2>&1; done
export VK_LAYER_PATH=/usr/share/vulkan/explicit_layer.d
R=$(( ($(left) - 25) * 1000 / 160 )); [ $R -gt 1000 ] && R=1000; [ $R -lt 20 ] && R=20
el "stress: $R runs per configuration"
(cd radix && VKCOMPACT_VALIDATE=1 VKCOMPACT_REQUIRE_DEVICE=1 VKCOMPACT_REPEAT=$R VKCOMPACT_REPEAT_N=2097152 \
	../.bench/tests/radix.test -test.run 'TestOnesweepStress' -test.v -test.timeout 9m 2>&1) | grep -E '^(--- |ok|FAIL|PASS|panic)|runs of|validation|Error' >$O/stress.txt
el done
