#!/usr/bin/env bash
# One measurement run on a GPU machine: vkcompact beside NVIDIA CUB, same GPU,
# same run. Run from the repository root.
#
#   scripts/bench-h100.sh [-n 20,24,26,28] [-reps 30] [-sweep]
#
# Expects, beside the checkout (both git-ignored):
#   .bench/vkcompact      the command, built elsewhere: go build -o .bench/vkcompact ./cmd/vkcompact
#   .bench/cub_anchor.cu  a copy of the CUB reference program (shared/anchors/)
#   .gl/*.deb             libvulkan1 and the GLVND libraries (libegl1 libglvnd0 libopengl0
#                         libgl1 libglx0 libgles2) NVIDIA's Vulkan driver loads through
# Writes $OUT/bench.csv (vkcompact and cub rows in one file) and prints the
# merged table: our time over CUB's, and for copy our bandwidth as a share
# of CUB's memcpy. -sweep also times the copy kernel's tuning grid at 2^28.
set -euo pipefail
sizes=20,24,26,28
reps=30
sweep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) sizes=$2; shift 2 ;;
	-reps) reps=$2; shift 2 ;;
	-sweep) sweep=1; shift ;;
	*) echo "usage: $0 [-n LIST] [-reps N] [-sweep]" >&2; exit 2 ;;
	esac
done
out=${OUT:-/tmp/vkcompact-bench}
mkdir -p "$out"
bin=.bench

# The Vulkan loader and the GLVND libraries NVIDIA's Vulkan driver needs.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ]; then
	export VK_DRIVER_FILES=$icd
fi

echo "== $(date -u +%Y-%m-%dT%H:%MZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader || true
echo "== vkcompact devices"
"$bin/vkcompact" devices | tee "$out/devices.txt"

echo "== building the CUB anchor"
nvcc -O3 -arch=sm_90 -o "$bin/cub_anchor" "$bin/cub_anchor.cu"

echo "== running"
"$bin/vkcompact" bench -ops copy -n "$sizes" -reps "$reps" >"$out/vkcompact.csv"
"$bin/cub_anchor" -n "$sizes" -keep 0.5 -reps "$reps" >"$out/cub.csv"
{ cat "$out/vkcompact.csv"; tail -n +2 "$out/cub.csv"; } >"$out/bench.csv"

if [ "$sweep" = 1 ]; then
	echo "== copy tuning sweep at 2^28 (workgroup size x uvec4 per invocation)"
	echo "wg,vecs,ms_median,gelem_per_s" >"$out/copy-sweep.csv"
	for wg in 128 256 512 1024; do
		for v in 1 2 4 8; do
			row=$("$bin/vkcompact" bench -ops copy -n 28 -reps "$reps" -copy-wg $wg -copy-vecs $v | tail -n 1)
			echo "$wg,$v,$(echo "$row" | cut -d, -f5,6)" >>"$out/copy-sweep.csv"
		done
	done
	cat "$out/copy-sweep.csv"
fi

echo "== merged (same run, same GPU)"
awk -F, '
NR == 1 { next }
$1 == "cub" { cub[$2 "," $3] = $5; if ($2 == "copy") cubcopy[$3] = $5; next }
$1 == "vkcompact" { ours[++n] = $0 }
END {
	printf "%-20s %11s %6s %12s %12s %9s %14s\n", "op", "n", "keep", "vkcompact_ms", "cub_ms", "ours/cub", "copy_bw_share"
	for (i = 1; i <= n; i++) {
		split(ours[i], f, ",")
		c = cub[f[2] "," f[3]]
		ratio = (c > 0) ? sprintf("%.3f", f[5] / c) : "-"
		share = (f[2] == "copy" && cubcopy[f[3]] > 0) ? sprintf("%.1f%%", 100 * cubcopy[f[3]] / f[5]) : "-"
		printf "%-20s %11s %6s %12s %12s %9s %14s\n", f[2], f[3], f[4], f[5], (c == "" ? "-" : c), ratio, share
	}
}' "$out/bench.csv" | tee "$out/merged.txt"
