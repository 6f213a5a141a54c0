#!/usr/bin/env bash
# A short GPU run: 64-bit keys on the single pass (the "after" of
# u64-single-pass-default.patch) beside main's three phases (the "before"),
# main's u32 rows, then the single pass's look-back stress under validation for
# what time is left. Run from the repository root with .gl/ and .bench/ carried
# (prepare.sh); DL=seconds (default 150) bounds it.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f $icd ] && export VK_DRIVER_FILES=$icd
O=$OUT; L=$O/log.txt; P=$O/phases.txt; C=$O/bench.csv
T0=$(date +%s); DL=${DL:-150}; left() { echo $(( DL - ($(date +%s) - T0) )); }
el() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a $L; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >>$L 2>&1
for z in .bench/vkc-new .bench/vkc-u64auto .bench/tests/radix.test; do
	[ -f $z.gz ] && gunzip -f $z.gz; [ -f $z ] && chmod +x $z
done
echo "label,impl,op,n,keep_ratio,ms_median,gelem_per_s" >$C
# b LABEL BIN -- bench args: at most 60 s, never past DL - 20 s.
b() {
	local label=$1 bin=$2; shift 3
	local t=$(( $(left) - 20 )); [ $t -gt 60 ] && t=60
	if [ $t -lt 10 ] || [ ! -x $bin ]; then echo "## $label skipped (time left $(left) s, $bin)" >>$P; return; fi
	echo "## $label $bin $*" >>$P
	timeout $t $bin bench -phases "$@" 2>>$P | tail -n +2 | sed "s/^/$label,/" >>$C
}
N=.bench/vkc-new; U=.bench/vkc-u64auto
el "u64: the single pass (u64auto) and main's three phases, then main's u32 rows"
if [ -x $U ]; then
	b u64auto $U -- -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24 -reps 10
else # the same shape, asked for by flags
	b u64auto $N -- -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24 -reps 10 -sort-path single-pass -sort-bits 8 -sort-kpl 16
fi
b main $N -- -ops sort_keys_u64,sort_pairs_u64 -n 16,20,24 -reps 6
b main $N -- -ops sort_keys_u32,sort_pairs_u32 -n 16,20,24 -reps 10
el "stress under validation"
for f in .bench/layer/*.deb; do dpkg -x $f / >/dev/null 2>&1; done
export VK_LAYER_PATH=/usr/share/vulkan/explicit_layer.d
R=$(( ($(left) - 15) * 1000 / 160 )); [ $R -gt 1000 ] && R=1000; [ $R -lt 10 ] && R=10
el "stress: $R runs per configuration"
(cd radix && VKCOMPACT_VALIDATE=1 VKCOMPACT_REQUIRE_DEVICE=1 VKCOMPACT_REPEAT=$R VKCOMPACT_REPEAT_N=2097152 \
	timeout $(( $(left) > 30 ? $(left) - 5 : 25 )) ../.bench/tests/radix.test -test.run 'TestOnesweepStress' -test.v 2>&1) | grep -E '^(--- |ok|FAIL|PASS|panic)|runs of|validation|Error' >$O/stress.txt
el done
