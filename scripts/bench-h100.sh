#!/usr/bin/env bash
# One measurement run on a GPU machine: vkcompact beside NVIDIA CUB, same GPU,
# same run. Run from the repository root.
#
#   scripts/bench-h100.sh [-n 20,24,26,28] [-keep 0.1,0.5,0.9] [-reps 30] [-ops LIST] [-extra [2]] [-sweep] [-selsweep] [-sortsweep] [-tests] [-stress R] [-demo N] [-grid N]
#
# Expects, beside the checkout (both git-ignored):
#   .bench/vkcompact      the command, built elsewhere: go build -o .bench/vkcompact ./cmd/vkcompact
#   .bench/cub_anchor.cu  a copy of the CUB reference program (shared/anchors/)
#   .gl/*.deb             libvulkan1 and the GLVND libraries (libegl1 libglvnd0 libopengl0
#                         libgl1 libglx0 libgles2) NVIDIA's Vulkan driver loads through
#   .bench/tests/*.test   (for -tests) test binaries: go test -c -o .bench/tests/ ./compact ...
#   .bench/layer/*.deb    (for -tests) Debian's vulkan-validationlayers
#   .bench/vrdx_anchor    (optional) the Vulkan peer (shared/anchors/vrdx_anchor.cc,
#                         built here): its sort rows join bench.csv
# Writes into $OUT (default results/run-DATE-COMMIT/, which git ignores:
# copy the files the documents cite to results/ as DATE-GPU-WHAT-COMMIT.ext
# and commit only those) $OUT/bench.csv (vkcompact and cub rows in one file; the separate
# vkcompact.csv and cub.csv are removed at the end, since the device tool
# brings back at most 8 files), $OUT/kernel-stats.csv (the driver's
# statistics of every kernel the last size's run compiled: registers, shared
# memory), its plot
# $OUT/plot.svg (throughput against n, one panel per operation), and prints the
# merged table: our time over CUB's; for copy our bandwidth as a share of
# CUB's memcpy; our time over the byte floor at the best copy bandwidth of
# the run: (1+p)*4n bytes for select_if (2*4n for partition_if and
# scan_exclusive_u32: read once, written once; 4n for reduce_sum_u32,
# reduce_max_u32 and histogram_u32, read once; 4n and a sum per 1024 for
# segreduce_sum_u32; (2+2p)*4n for reduce_by_key_u32 and unique_by_key_u32:
# keys and values read, a key and a value per run written; 3*4n for
# scan_by_key_u32: keys and values read, the scans written), and for the
# reductions the floor's
# time as a share of ours (the copy bandwidth they reach). -sweep also
# times the compaction's tuning grid at 2^28, keep 0.5; -selsweep the
# single pass's (workgroup size x loads per lane) beside the three phases;
# -stress R runs the single passes R times per configuration (4 of the
# compaction, 2 of the prefix sum) at 2^24 elements, every output checked
# (compact.test's TestSinglePassRepeated, scan.test's
# TestScanSinglePassRepeated);
# -sortsweep the
# radix sort's digit bits and keys per lane at 2^28; -tests
# runs the test binaries under the validation layer first; -demo N runs
# the particle demo with N particles (120 frames) and writes its JSON and
# PNG; -grid N the same with the uniform grid (vkcompact demo -grid: cells,
# sort by cell, run-length encoding, neighbour counts), its stage times in
# grid.json. -extra adds the selection family's rows to -ops and runs the
# CUB anchor with -extra 1: unique_u32 and rle_u32 (once per keep ratio),
# partition3_u32, segsort_keys_u32 and sort_keys_u64; -extra 2 adds to
# those reduce_sum_u32, reduce_max_u32, reduce_by_key_u32,
# unique_by_key_u32 and scan_by_key_u32 (once per keep ratio),
# segreduce_sum_u32 and histogram_u32, and runs the anchor with -extra 2,
# whose rows of the same names join the same CSV and the merged table.
set -euo pipefail
sizes=20,24,26,28
keeps=0.1,0.5,0.9
reps=30
ops=copy,select_if,partition_if,scan_exclusive_u32,sort_keys_u32,sort_pairs_u32
sortsweep=0
sweep=0
selsweep=0
stress=0
tests=0
demo=0
grid=0
extra=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) sizes=$2; shift 2 ;;
	-keep) keeps=$2; shift 2 ;;
	-reps) reps=$2; shift 2 ;;
	-ops) ops=$2; shift 2 ;;
	-sweep) sweep=1; shift ;;
	-selsweep) selsweep=1; shift ;;
	-stress) stress=$2; shift 2 ;;
	-tests) tests=1; shift ;;
	-extra)
		# -extra, or -extra 1 or 2: the anchor's level.
		if [ "${2:-}" = 1 ] || [ "${2:-}" = 2 ]; then
			extra=$2
			shift 2
		else
			extra=1
			shift
		fi
		;;
	-grid) grid=$2; shift 2 ;;
	-sortsweep) sortsweep=1; shift ;;
	-demo) demo=$2; shift 2 ;;
	*) echo "usage: $0 [-n LIST] [-keep LIST] [-reps N] [-ops LIST] [-extra [2]] [-sweep] [-selsweep] [-sortsweep] [-tests] [-stress R] [-demo N] [-grid N]" >&2; exit 2 ;;
	esac
done
if [ "$extra" != 0 ]; then
	ops=$ops,unique_u32,rle_u32,partition3_u32,segsort_keys_u32,sort_keys_u64
fi
if [ "$extra" = 2 ]; then
	ops=$ops,reduce_sum_u32,reduce_max_u32,reduce_by_key_u32,unique_by_key_u32,scan_by_key_u32,segreduce_sum_u32,histogram_u32
fi
out=${OUT:-results/run-$(date -u +%Y-%m-%d)-$(git rev-parse --short HEAD 2>/dev/null || echo nogit)}
mkdir -p "$out"
bin=.bench
# VKCOMPACT_BENCH_BIN names another vkcompact binary to measure (a
# before-and-after comparison in one run).
vkc=${VKCOMPACT_BENCH_BIN:-$bin/vkcompact}

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
"$vkc" devices | tee "$out/devices.txt"

if [ "$tests" = 1 ]; then
	echo "== test binaries under the validation layer (synchronisation validation on)"
	for f in .bench/layer/*.deb; do dpkg -x "$f" /; done
	export VK_LAYER_PATH=/usr/share/vulkan/explicit_layer.d
	for t in .bench/tests/*.test; do
		pkg=$(basename "$t" .test)
		dir=$pkg
		[ -d "$dir" ] || dir=cmd/$pkg
		[ -d "$dir" ] || dir=internal/$pkg
		[ -d "$dir" ] || dir=internal/testkit/enginetest/$pkg
		(cd "$dir" && VKCOMPACT_VALIDATE=1 VKCOMPACT_REQUIRE_DEVICE=1 "$OLDPWD/$t" -test.short -test.v 2>&1) |
			grep -E '^(--- |ok|FAIL|PASS|panic)|validation' | tee -a "$out/tests.txt" || true
	done
fi

if [ "$stress" != 0 ]; then
	echo "== single-pass stress (compaction, split, prefix sum): $stress runs per configuration at 2^24, outputs checked, under the validation layer"
	for f in .bench/layer/*.deb; do dpkg -x "$f" /; done
	export VK_LAYER_PATH=/usr/share/vulkan/explicit_layer.d
	for pkg in compact scan; do
		(cd $pkg && VKCOMPACT_VALIDATE=1 VKCOMPACT_REQUIRE_DEVICE=1 VKCOMPACT_REPEAT=$stress VKCOMPACT_REPEAT_N=16777216 \
			"$OLDPWD/.bench/tests/$pkg.test" -test.run 'TestSinglePassRepeated|TestScanSinglePassRepeated|TestSelectPaths|TestSelectAutoPath|TestScanPaths|TestScanAutoPath' -test.v -test.timeout 20m 2>&1) |
			grep -E '^(--- |ok|FAIL|PASS|panic)|runs of|validation' | tee -a "$out/stress.txt" || true
	done
fi

if [ "$demo" != 0 ]; then
	echo "== the particle demo, $demo particles, 120 frames"
	"$vkc" demo -particles "$demo" -frames 120 -png "$out/demo.png" >"$out/demo.txt"
	"$vkc" demo -particles "$demo" -frames 120 -json | tail -n 1 >"$out/demo.json"
	tail -n 3 "$out/demo.txt"
	cat "$out/demo.json"
fi

if [ "$grid" != 0 ]; then
	echo "== the particle demo with its grid, $grid particles, 120 frames"
	"$vkc" demo -grid -particles "$grid" -frames 120 -json | tail -n 1 >"$out/grid.json"
	python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print("verified", o["verified"], "ms/frame", o["gpu_ms_per_frame"], dict(zip(o["grid_stages"], o["grid_stage_ms"])))' "$out/grid.json" || cat "$out/grid.json"
fi

echo "== building the CUB anchor"
nvcc -O3 -arch=sm_90 -o "$bin/cub_anchor" "$bin/cub_anchor.cu"

echo "== running"
# One process per size, each warming the GPU up before it times (bench
# -warmup-ms): NVIDIA's Vulkan driver lowers the clocks while the host makes
# the inputs (BENCHMARKS.md).
echo "impl,op,n,keep_ratio,ms_median,gelem_per_s" >"$out/vkcompact.csv"
for lg in ${sizes//,/ }; do
	"$vkc" bench -ops "$ops" -n "$lg" -keep "$keeps" -reps "$reps" -phases -kernel-stats "$out/kernel-stats.csv" \
		2>>"$out/phases.txt" | tail -n +2 >>"$out/vkcompact.csv"
done
echo "== registers per invocation of each kernel (the last size's run; bench -kernel-stats)"
grep -E 'Register Count' "$out/kernel-stats.csv" | cut -d, -f1,2,6 || true
grep -v '^# device' "$out/phases.txt" || true
"$bin/cub_anchor" -n "$sizes" -keep "$keeps" -reps "$reps" -extra "$extra" >"$out/cub.csv"
{ cat "$out/vkcompact.csv"; tail -n +2 "$out/cub.csv"; } >"$out/bench.csv"
# The Vulkan peer, when carried (.bench/vrdx_anchor, built as
# ../shared/anchors/README.md says): its sort rows join the same CSV, at
# the sizes up to 2^28 (its buffers are one binding each).
if [ -x "$bin/vrdx_anchor" ] && [[ ",$ops," == *,sort_* ]]; then
	vsizes=$(tr ',' '\n' <<<"$sizes" | awk '$1 <= 28' | paste -sd, -)
	if [ -n "$vsizes" ]; then
		echo "== vrdx_anchor at $vsizes"
		"$bin/vrdx_anchor" -n "$vsizes" -reps "$reps" | grep -v '^#' | tail -n +2 >>"$out/bench.csv" || echo "vrdx_anchor failed"
	fi
fi
"$vkc" bench -plot-only -plot "$out/plot.svg" -plot-with "$out/bench.csv" -ops "$ops" || true

if [ "$sweep" = 1 ]; then
	echo "== compaction tuning sweep at 2^28, keep 0.5 (processors x loads per lane x write)"
	echo "procs,loads,write,ms_median,gelem_per_s" >"$out/select-sweep.csv"
	for w in scattered staged; do
		for l in 1 2 4; do
			row=$("$vkc" bench -ops select_if -n 28 -keep 0.5 -reps "$reps" -select-loads $l -select-write $w | tail -n 1)
			echo "default,$l,$w,$(echo "$row" | cut -d, -f5,6)" >>"$out/select-sweep.csv"
		done
	done
	for p in 1056 2112 8448 16896; do
		row=$("$vkc" bench -ops select_if -n 28 -keep 0.5 -reps "$reps" -select-procs $p | tail -n 1)
		echo "$p,default,auto,$(echo "$row" | cut -d, -f5,6)" >>"$out/select-sweep.csv"
	done
	cat "$out/select-sweep.csv"
fi

if [ "$selsweep" = 1 ]; then
	echo "== single-pass tuning at 2^28, keep 0.5 (path x workgroup x loads per lane)"
	echo "op,path,wg,loads,ms_median,gelem_per_s" >"$out/onepass-sweep.csv"
	for op in select_if partition_if; do
		row=$("$vkc" bench -ops $op -n 28 -keep 0.5 -reps "$reps" -select-path three-phase | tail -n 1)
		echo "$op,three-phase,default,default,$(echo "$row" | cut -d, -f5,6)" >>"$out/onepass-sweep.csv"
		for w in 256 512; do
			for l in 1 2 4; do
				row=$("$vkc" bench -ops $op -n 28 -keep 0.5 -reps "$reps" -select-path single-pass -select-wg $w -select-loads $l | tail -n 1)
				echo "$op,single-pass,$w,$l,$(echo "$row" | cut -d, -f5,6)" >>"$out/onepass-sweep.csv"
			done
		done
	done
	cat "$out/onepass-sweep.csv"
fi

if [ "$sortsweep" = 1 ]; then
	echo "== radix sort tuning sweep at 2^28 keys (digit bits x keys per lane)"
	echo "op,bits,kpl,procs,ms_median,gelem_per_s" >"$out/sort-sweep.csv"
	for op in sort_keys_u32 sort_pairs_u32; do
		for b in 4 5 8; do
			for k in 4 8; do
				row=$("$vkc" bench -ops $op -n 28 -reps 10 -warmup 2 -sort-bits $b -sort-kpl $k | tail -n 1)
				echo "$op,$b,$k,default,$(echo "$row" | cut -d, -f5,6)" >>"$out/sort-sweep.csv"
			done
		done
	done
	cat "$out/sort-sweep.csv"
fi

echo "== merged (same run, same GPU)"
awk -F, '
NR == 1 { next }
$2 == "copy" { bw = 8 * $3 / $5; if (bw > best) best = bw } # bytes per ms, read + write
$1 == "cub" { cub[$2 "," $3 "," $4] = $5; if ($2 == "copy") cubcopy[$3] = $5; next }
$1 == "vkcompact" { ours[++n] = $0 }
END {
	printf "# floor: single-pass bytes at the best copy bandwidth of this run, %.3f TB/s\n", best / 1e9
	printf "%-20s %11s %6s %12s %12s %9s %14s %10s\n", "op", "n", "keep", "vkcompact_ms", "cub_ms", "ours/cub", "copy_bw_share", "ours/floor"
	for (i = 1; i <= n; i++) {
		split(ours[i], f, ",")
		c = cub[f[2] "," f[3] "," f[4]]
		if (f[2] == "copy") c = cubcopy[f[3]]
		ratio = (c > 0) ? sprintf("%.3f", f[5] / c) : "-"
		share = (f[2] == "copy" && cubcopy[f[3]] > 0) ? sprintf("%.1f%%", 100 * cubcopy[f[3]] / f[5]) : "-"
		bytes = 0
		if (f[2] == "select_if") bytes = (1 + f[4]) * 4 * f[3]
		if (f[2] == "partition_if" || f[2] == "scan_exclusive_u32") bytes = 2 * 4 * f[3]
		if (f[2] == "reduce_sum_u32" || f[2] == "reduce_max_u32" || f[2] == "histogram_u32") bytes = 4 * f[3]
		if (f[2] == "segreduce_sum_u32") bytes = 4 * f[3] + 8 * int((f[3] + 1023) / 1024)
		if (f[2] == "reduce_by_key_u32" || f[2] == "unique_by_key_u32") bytes = (2 + 2 * f[4]) * 4 * f[3]
		if (f[2] == "scan_by_key_u32") bytes = 3 * 4 * f[3]
		floor = (bytes > 0 && best > 0) ? sprintf("%.3f", f[5] / (bytes / best)) : "-"
		if (bytes > 0 && best > 0 && (f[2] ~ /^reduce_/ || f[2] == "segreduce_sum_u32" || f[2] == "histogram_u32")) share = sprintf("%.1f%%", 100 * (bytes / best) / f[5])
		printf "%-20s %11s %6s %12s %12s %9s %14s %10s\n", f[2], f[3], f[4], f[5], (c == "" ? "-" : c), ratio, share, floor
	}
}' "$out/bench.csv" | tee "$out/merged.txt"
rm -f "$out/vkcompact.csv" "$out/cub.csv"
