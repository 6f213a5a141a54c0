#!/usr/bin/env bash
# The CPU drivers' rows of BENCHMARKS.md on this machine: vkcompact bench on
# lavapipe at subgroups 4, 8 and 16 and on SwiftShader (scripts/setup.sh
# installs both), R runs of each measurement (the median of each run's
# medians is what the documents quote), into one CSV with a device column.
# Run it on an idle machine: a CPU driver's "GPU time" is CPU time.
#
#   scripts/bench-cpu.sh [OUT.csv] [RUNS]
#
# BASE=path/to/an/older/vkcompact also runs that binary (impl "base") on
# the devices in BASE_DEVICES (default lavapipe-sg8 and swiftshader), in
# turn with the new one; OPS, SIZES and REPS override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/dev/stdout}
runs=${2:-3}
bin=$(mktemp -d)/vkcompact
go build -o "$bin" ./cmd/vkcompact
ss=${VKCOMPACT_SWIFTSHADER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vkcompact/swiftshader}/vk_swiftshader_icd.json
ops=${OPS:-select_if,partition_if,scan_exclusive_u32,sort_keys_u32,sort_pairs_u32}
sizes=${SIZES:-12,16,20}
{
	echo "# $(date -u +%F), $(git rev-parse --short HEAD)$(git diff --quiet || echo +), vkcompact bench, $runs runs of medians of ${REPS:-15} GPU timestamps; $(nproc) CPUs"
	echo "device,run,impl,op,n,keep_ratio,ms_median,gelem_per_s"
	for r in $(seq "$runs"); do
		for dev in lavapipe-sg4 lavapipe-sg8 lavapipe-sg16 swiftshader; do
			case $dev in
			lavapipe-sg4) env=(VKCOMPACT_DEVICE=llvmpipe LP_NATIVE_VECTOR_WIDTH=128) ;;
			lavapipe-sg8) env=(VKCOMPACT_DEVICE=llvmpipe LP_NATIVE_VECTOR_WIDTH=256) ;;
			lavapipe-sg16) env=(VKCOMPACT_DEVICE=llvmpipe LP_NATIVE_VECTOR_WIDTH=512) ;;
			swiftshader) env=(VKCOMPACT_DEVICE=swiftshader VK_DRIVER_FILES=$ss) ;;
			esac
			env "${env[@]}" "$bin" bench -n "$sizes" -ops "$ops" -keep 0.5 -reps "${REPS:-15}" -warmup-ms 100 2>/dev/null |
				tail -n +2 | sed "s/^/$dev,$r,/"
			if [ -n "${BASE:-}" ] && [[ " ${BASE_DEVICES:-lavapipe-sg8 swiftshader} " == *" $dev "* ]]; then
				env "${env[@]}" "$BASE" bench -n "$sizes" -ops "$ops" -keep 0.5 -reps "${REPS:-15}" -warmup-ms 100 2>/dev/null |
					tail -n +2 | sed "s/^vkcompact,/base,/; s/^/$dev,$r,/"
			fi
		done
	done
} > "$out"
