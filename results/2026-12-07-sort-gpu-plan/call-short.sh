#!/usr/bin/env bash
# A short GPU run: 64-bit keys on the single pass (new) beside the three phases (before),
# then the single pass's look-back stress under validation for what time is left.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT; L=$O/log.txt; P=$O/phases.txt; C=$O/bench.csv
T0=$(date +%s); DL=${DL:-150}; left() { echo $(( DL - ($(date +%s) - T0) )); }
el() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a $L; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >>$L 2>&1
gunzip -f .bench/vkc-new.gz .bench/tests/radix.test.gz; chmod +x .bench/vkc-new .bench/tests/radix.test
echo "label,impl,op,n,keep_ratio,ms_median,gelem_per_s" >$C
b() {
	local label=$1; shift
	echo "## $label $*" >>$P
	timeout 60 .bench/vkc-new bench -phases "$@" 2>>$P | tail -n +2 | sed "s/^/$label,/" >>$C
}
el "u64: single pass (new) and three phases (before), then u32"
b new -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24 -reps 10
b old-u64 -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24 -reps 6 -sort-path three-phase
b new -ops sort_keys_u32,sort_pairs_u32 -n 16,20,24 -reps 10
el "stress under validation"
for f in .bench/layer/*.deb; do dpkg -x $f / >/dev/null 2>&1; done
export VK_LAYER_PATH=/usr/share/vulkan/explicit_layer.d
R=$(( ($(left) - 15) * 1000 / 160 )); [ $R -gt 1000 ] && R=1000; [ $R -lt 10 ] && R=10
el "stress: $R runs per configuration"
(cd radix && VKCOMPACT_VALIDATE=1 VKCOMPACT_REQUIRE_DEVICE=1 VKCOMPACT_REPEAT=$R VKCOMPACT_REPEAT_N=2097152 \
	timeout $(( $(left) + 20 )) ../.bench/tests/radix.test -test.run 'TestOnesweepStress' -test.v 2>&1) | grep -E '^(--- |ok|FAIL|PASS|panic)|runs of|validation|Error' >$O/stress.txt
el done
