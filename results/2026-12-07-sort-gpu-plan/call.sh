#!/usr/bin/env bash
# One GPU run for the sort, within one device call: the product's rows (u32 and u64
# keys and pairs) beside CUB, the u64 single pass (the "after" of
# u64-single-pass-default.patch) beside main's three phases, the ablations and
# candidates, ncu on CUB, shapes, vrdx, then the look-back stress under validation.
# Run from the repository root with .gl/ and .bench/ carried (prepare.sh makes them);
# DL=seconds (default 560) bounds it: each step is skipped or cut short where the
# time left is too little, and the stress takes what remains.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f $icd ] && export VK_DRIVER_FILES=$icd
O=$OUT; L=$O/log.txt; P=$O/phases.txt; C=$O/bench.csv
T0=$(date +%s); DL=${DL:-560}; left() { echo $(( DL - ($(date +%s) - T0) )); }; el() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a $L; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >>$L 2>&1
(nvcc -O3 -arch=sm_90 -o .bench/cub_anchor .bench/cub_anchor.cu && cp .bench/cub_anchor $O/cub_anchor) >$O/nvcc.log 2>&1 &
NV=$!
if [ ! -x .bench/vrdx_anchor ] && [ -d .bench/vrdx ] && command -v g++ >/dev/null; then
	(cd .bench/vrdx && g++ -O2 -std=c++17 -I include -I . vrdx_anchor.cc -o ../vrdx_anchor -l:libvulkan.so.1) >$O/vrdx-build.log 2>&1 &
fi
for z in .bench/vkc-new .bench/vkc-u64auto .bench/vkx .bench/tests/radix.test; do
	[ -f $z.gz ] && gunzip -f $z.gz; [ -f $z ] && chmod +x $z
done
echo "label,impl,op,n,keep_ratio,ms_median,gelem_per_s" >$C
# b LABEL BIN [ENV=V ...] -- bench args: one bench process, at most 150 s and
# never past DL - 20 s (skipped where fewer than 30 s are left).
b() {
	local label=$1 bin=$2; shift 2; local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
	local t=$(( $(left) - 20 )); [ $t -gt 150 ] && t=150
	if [ $t -lt 10 ] || [ ! -x $bin ]; then echo "## $label skipped (time left $(left) s, $bin)" >>$P; return; fi
	echo "## $label $bin ${envs[*]} $*" >>$P
	env "${envs[@]}" timeout $t $bin bench -phases "$@" 2>>$P | tail -n +2 | sed "s/^/$label,/" >>$C
}
S=.bench/spv; X=.bench/vkx; N=.bench/vkc-new; U=.bench/vkc-u64auto
SP="-sort-path single-pass -sort-bits 8"
el "product rows (main), and the u64 single pass beside main's three phases"
b main $N -- -ops sort_keys_u32,sort_pairs_u32 -n 16,18,20,22,24,26,28 -reps 15 -kernel-stats $O/kstats-u32.csv
b main $N -- -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24,28 -reps 8 -kernel-stats $O/kstats-u64.csv
if [ -x $U ]; then
	b u64auto $U -- -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24,28 -reps 8
else # the same shape, asked for by flags
	b u64auto $N -- -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24,28 -reps 8 $SP -sort-kpl 16
fi
cat $O/kstats-u32.csv $O/kstats-u64.csv >$O/kstats.csv 2>/dev/null; rm -f $O/kstats-u64.csv $O/kstats-u32.csv
el "CUB"
wait $NV; cat $O/nvcc.log >>$L; rm -f $O/nvcc.log
[ -x .bench/cub_anchor ] && timeout $(( $(left) > 90 ? 60 : 20 )) .bench/cub_anchor -sortonly 1 -n 16,18,20,22,24,26,28 -reps 20 2>>$L | tail -n +2 | sed "s/^/cub,/" >>$C
if [ $(left) -gt 150 ]; then
el "ablations 2^24 keys 256x30 and pairs 256x16"
for v in base abl-nolookback abl-tileorder abl-tileorder-norank abl-tileorder-norank-nocount abl-all cand-shufflerank; do
	A=""; case $v in abl-*) A=1;; esac
	b $v $X VKX_SPV_DIR=$S/$v VKCOMPACT_ABLATION=$A -- -ops sort_keys_u32 -n 24 -reps 15 $SP -sort-kpl 30
	b $v $X VKX_SPV_DIR=$S/$v VKCOMPACT_ABLATION=$A -- -ops sort_pairs_u32 -n 24 -reps 15 $SP -sort-kpl 16
done
fi
if [ $(left) -gt 330 ]; then
el "ablations 2^28 keys"
for v in base abl-nolookback abl-tileorder abl-all cand-shufflerank; do
	A=""; case $v in abl-*) A=1;; esac
	b $v $X VKX_SPV_DIR=$S/$v VKCOMPACT_ABLATION=$A -- -ops sort_keys_u32 -n 28 -reps 8 $SP -sort-kpl 30
done
fi
if [ $(left) -gt 150 ] && [ -x .bench/cub_anchor ]; then
el "ncu on CUB"
timeout 45 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k regex:'Onesweep|Histogram|Scan|Radix|Exclusive' .bench/cub_anchor -sortonly 1 -n 24 -reps 3 >$O/ncu.csv 2>>$L
fi
if [ $(left) -gt 300 ]; then
el "histogram, look-back words and shapes"
b hr1 $X VKX_SPV_DIR=$S/base -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b hk8p528 $X VKX_SPV_DIR=$S/base VKX_HIST_KPL=8 VKX_HIST_PROCS=528 -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b hr8k8p528 $X VKX_SPV_DIR=$S/hr8 VKX_HIST_KPL=8 VKX_HIST_PROCS=528 -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b hr2k16p1056 $X VKX_SPV_DIR=$S/hr2 VKX_HIST_KPL=16 VKX_HIST_PROCS=1056 -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b lb1 $X VKX_SPV_DIR=$S/lb1 -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b lb8 $X VKX_SPV_DIR=$S/lb8 -- -ops sort_keys_u32 -n 24 -reps 10 $SP -sort-kpl 30
b w512k15 $X VKX_SPV_DIR=$S/base -- -ops sort_keys_u32,sort_pairs_u32 -n 24 -reps 8 $SP -sort-kpl 15 -sort-wg 512
b w384k20 $X VKX_SPV_DIR=$S/base -- -ops sort_keys_u32 -n 24 -reps 8 $SP -sort-kpl 20 -sort-wg 384
b bits7 $X VKX_SPV_DIR=$S/base -- -ops sort_keys_u32 -n 24,28 -reps 8 -sort-path single-pass -sort-bits 7 -sort-kpl 30
b bits7p $X VKX_SPV_DIR=$S/base -- -ops sort_pairs_u32 -n 24 -reps 8 -sort-path single-pass -sort-bits 7 -sort-kpl 16
b u64k8 $N -- -ops sort_keys_u64,sort_pairs_u64 -n 24 -reps 8 $SP -sort-kpl 8
b u64k12 $N -- -ops sort_keys_u64,sort_pairs_u64 -n 24 -reps 8 $SP -sort-kpl 12
fi
wait # the vrdx build, where it ran here
cat $O/vrdx-build.log >>$L 2>/dev/null; rm -f $O/vrdx-build.log
if [ -x .bench/vrdx_anchor ] && [ $(left) -gt 90 ]; then
el "vrdx"
timeout 40 .bench/vrdx_anchor -n 16,18,20,22,24,26,28 -reps 15 2>>$L | grep "^vrdx" | sed "s/^/vrdx,/" >>$C
fi
el "stress under validation"
for f in .bench/layer/*.deb; do dpkg -x $f / >/dev/null 2>&1; done
export VK_LAYER_PATH=/usr/share/vulkan/explicit_layer.d
R=$(( ($(left) - 25) * 1000 / 160 )); [ $R -gt 1000 ] && R=1000; [ $R -lt 20 ] && R=20
el "stress: $R runs per configuration"
(cd radix && VKCOMPACT_VALIDATE=1 VKCOMPACT_REQUIRE_DEVICE=1 VKCOMPACT_REPEAT=$R VKCOMPACT_REPEAT_N=2097152 \
	timeout $(( $(left) > 40 ? $(left) - 5 : 35 )) ../.bench/tests/radix.test -test.run 'TestOnesweepStress' -test.v -test.timeout 9m 2>&1) | grep -E '^(--- |ok|FAIL|PASS|panic)|runs of|validation|Error' >$O/stress.txt
el done
