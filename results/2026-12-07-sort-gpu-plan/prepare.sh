#!/usr/bin/env bash
# Rebuilds, on the developer machine, everything this kit's GPU calls carry
# (.gl/ and .bench/, both git-ignored) from one commit of the repository.
# Run from the repository root:
#
#   bash results/2026-12-07-sort-gpu-plan/prepare.sh
#
# then one device call with carry [".gl", ".bench"] and the command
# `DL=560 bash results/2026-12-07-sort-gpu-plan/call.sh` (README.txt).
#
# It makes:
#   .gl/*.deb                 libvulkan1 and the GLVND libraries NVIDIA's Vulkan driver
#                             loads through (the device README's apt-get download recipe;
#                             kept where already there)
#   .bench/layer/*.deb        Debian's vulkan-validationlayers (the stress runs under it)
#   .bench/vkc-new.gz         the command (cmd/vkcompact) at BASE
#   .bench/vkc-u64auto.gz     the same with u64-single-pass-default.patch (the u64 "after")
#   .bench/vkx.gz             the same with ablations.patch (the experimental binary)
#   .bench/spv/VARIANT/*.spv  the ablation and candidate kernels, glslc from the patched sources
#   .bench/tests/radix.test.gz  go test -c ./radix at BASE (TestOnesweepStress)
#   .bench/cub_anchor.cu      ANCHORS/cub_anchor.cu with cub_anchor-sortonly.patch
#   .bench/vrdx_anchor        ANCHORS/vrdx_anchor.cc built here, where its headers are at
#                             hand (VRDX_DEPS or the git directories below); where they are
#                             but the build fails here, .bench/vrdx/ (the source and the
#                             headers) for call.sh to build on the GPU machine
# and, unless SMOKE=0, runs the experimental binary on lavapipe at 2^16 keys
# (the base kernels with the bench's checks, an ablated one without).
#
# Environment:
#   BASE=REV        the commit built (default HEAD)
#   ANCHORS=DIR     the reference programs (default ../shared/anchors)
#   VRDX_DEPS=DIR   a folder holding vk_radix_sort.h (jaesung-cs/vulkan_radix_sort,
#                   include/vk_radix_sort.h at commit bd09c5f, version 0.4.0) and
#                   include/vulkan/*.h, include/vk_video/*.h (KhronosGroup/Vulkan-Headers
#                   include/, 1.4 or newer)
#   VRDX_REPO, VULKAN_HEADERS_REPO
#                   where VRDX_DEPS is unset: git directories of those two repositories
#                   (clones, or the workplace's mirrors, taken by default where present);
#                   the headers are read from bd09c5f and from the headers' HEAD
#   GL_FORCE=1      download the .debs again even where present
#   SMOKE=0         skip the lavapipe check
# Needs go, glslc, gzip, patch, apt-get (the Debian archive reachable, only for
# .debs not yet there), and for vrdx_anchor g++ and the Vulkan loader.
set -euo pipefail

K=results/2026-12-07-sort-gpu-plan
if [ ! -f "$K/call.sh" ] || [ "$(git rev-parse --show-toplevel 2>/dev/null)" != "$(pwd -P)" ]; then
	echo "prepare.sh: run it from the repository root" >&2
	exit 2
fi
ROOT=$(pwd -P)
BASE=${BASE:-HEAD}
REV=$(git rev-parse --short "$BASE")
ANCHORS=${ANCHORS:-../shared/anchors}
B=.bench
for t in go glslc gzip patch tar; do
	command -v $t >/dev/null || { echo "prepare.sh: $t is missing" >&2; exit 2; }
done
say() { echo "== $*"; }

# Both payload folders stay out of git (.gitignore holds /.gl/ and /.bench/;
# the exclude file takes them where it does not).
for d in .gl .bench; do
	if ! git check-ignore -q "$d/x"; then
		echo "/$d/" >>"$(git rev-parse --git-path info/exclude)"
	fi
done
mkdir -p .gl $B/layer $B/tests

# debs NAME... into DIR: apt-get download for amd64 with its own lists (the
# device README's recipe), whatever this machine's architecture.
debs() {
	local dir=$1
	shift
	mkdir -p /tmp/amd64/partial
	local o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
	apt-get "${o[@]}" update >/dev/null
	(cd "$dir" && apt-get "${o[@]}" download "$@")
}
if [ "${GL_FORCE:-0}" = 1 ] || [ "$(ls .gl/*.deb 2>/dev/null | wc -l)" -lt 7 ]; then
	say ".gl: the loader and the GLVND libraries"
	rm -f .gl/*.deb
	debs .gl libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2
else
	say ".gl: kept ($(ls .gl/*.deb | wc -l) debs)"
fi
if [ "${GL_FORCE:-0}" = 1 ] || ! ls $B/layer/vulkan-validationlayers_*.deb >/dev/null 2>&1; then
	say ".bench/layer: the validation layer"
	rm -f $B/layer/*.deb
	debs $B/layer vulkan-validationlayers
else
	say ".bench/layer: kept"
fi

TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
SRC=$TMP/src
mkdir -p "$SRC"
git archive "$BASE" | tar -x -C "$SRC"
say "sources of $REV in $SRC"

# Builds run with -trimpath so that the go cache serves every rebuild of
# the same sources; nice, for a shared machine.
gob() { (cd "$SRC" && nice go build -trimpath -o "$ROOT/$1" ./cmd/vkcompact); gzip -9 -f "$ROOT/$1"; }
rm -f $B/vkc-new $B/vkc-u64auto $B/vkx $B/tests/radix.test
say "vkc-new: cmd/vkcompact at $REV"
gob $B/vkc-new
say "tests/radix.test: go test -c ./radix at $REV"
(cd "$SRC" && nice go test -trimpath -c -o "$ROOT/$B/tests/radix.test" ./radix)
gzip -9 -f $B/tests/radix.test
say "vkc-u64auto: with u64-single-pass-default.patch"
(cd "$SRC" && git apply "$ROOT/$K/u64-single-pass-default.patch")
gob $B/vkc-u64auto
(cd "$SRC" && git apply -R "$ROOT/$K/u64-single-pass-default.patch")
say "vkx: with ablations.patch"
(cd "$SRC" && git apply "$ROOT/$K/ablations.patch")
gob $B/vkx

# The kernels' variants, each folder holding the modules it replaces (a
# module not there is the binary's own): glslc with the flags of
# shaders/internal/spvgen and the variant's defines.
say "spv: the ablation and candidate kernels"
rm -rf $B/spv
spv() { # spv VARIANT KERNEL DEFINES...
	local v=$1 k=$2
	shift 2
	mkdir -p $B/spv/$v
	glslc --target-env=vulkan1.1 -O -Werror -I "$SRC/shaders" "$@" -o $B/spv/$v/$k.spv "$SRC/shaders/radix/$k.comp"
}
for k in radix_onesweep radix_onesweep_wide radix_histogram; do
	spv base $k
done
for v in abl-nolookback:1 abl-tileorder:2 abl-tileorder-norank:6 abl-tileorder-norank-nocount:14 abl-all:15 cand-shufflerank:16; do
	for k in radix_onesweep radix_onesweep_wide; do
		spv ${v%%:*} $k -DABLATE=${v##*:}
	done
done
for l in 1 8; do
	spv lb$l radix_onesweep -DLOOKBACK_N=$l
done
for r in 2 8; do
	spv hr$r radix_histogram -DHIST_REPS=$r
done
if command -v spirv-val >/dev/null; then
	for f in $B/spv/*/*.spv; do spirv-val --target-env vulkan1.1 "$f"; done
fi

say "cub_anchor.cu: $ANCHORS/cub_anchor.cu with cub_anchor-sortonly.patch"
cp "$ANCHORS/cub_anchor.cu" $B/cub_anchor.cu
chmod u+w $B/cub_anchor.cu
patch --quiet --no-backup-if-mismatch -p0 $B/cub_anchor.cu <"$K/cub_anchor-sortonly.patch"
rm -f $B/cub_anchor # a binary from another anchor: call.sh builds its own

say "vrdx_anchor"
rm -rf $B/vrdx $B/vrdx_anchor
DEPS=${VRDX_DEPS:-}
VRDX_REPO=${VRDX_REPO:-/work/.mirror/jaesung-cs+vulkan_radix_sort/repo}
VULKAN_HEADERS_REPO=${VULKAN_HEADERS_REPO:-/work/.mirror/KhronosGroup+Vulkan-Headers/repo}
if [ -z "$DEPS" ] && git --git-dir="$VRDX_REPO" cat-file -e bd09c5f:include/vk_radix_sort.h 2>/dev/null &&
	git --git-dir="$VULKAN_HEADERS_REPO" cat-file -e HEAD:include/vulkan/vulkan_core.h 2>/dev/null; then
	# Only the C headers: the C++ ones are not needed (and a partial
	# mirror may lack some).
	DEPS=$TMP/vrdx-deps
	mkdir -p $DEPS
	git --git-dir="$VRDX_REPO" show bd09c5f:include/vk_radix_sort.h >$DEPS/vk_radix_sort.h
	git --git-dir="$VULKAN_HEADERS_REPO" ls-tree --name-only HEAD include/vulkan/ include/vk_video/ | grep '\.h$' |
		while read -r f; do
			mkdir -p "$DEPS/$(dirname "$f")"
			git --git-dir="$VULKAN_HEADERS_REPO" show "HEAD:$f" >"$DEPS/$f"
		done
	echo "headers: vk_radix_sort.h at bd09c5f, Vulkan-Headers at $(git --git-dir="$VULKAN_HEADERS_REPO" log -1 --format=%h HEAD)"
fi
if [ -n "$DEPS" ] && [ -f "$DEPS/vk_radix_sort.h" ] && [ -f "$DEPS/include/vulkan/vulkan_core.h" ]; then
	if command -v g++ >/dev/null && nice g++ -O2 -std=c++17 -I "$DEPS/include" -I "$DEPS" "$ANCHORS/vrdx_anchor.cc" -o $B/vrdx_anchor -l:libvulkan.so.1; then
		echo "built .bench/vrdx_anchor"
	else
		# The GPU machine has g++ (nvcc's host compiler): call.sh builds it there.
		mkdir -p $B/vrdx/include
		cp "$ANCHORS/vrdx_anchor.cc" "$DEPS/vk_radix_sort.h" $B/vrdx/
		cp -r "$DEPS/include/vulkan" "$DEPS/include/vk_video" $B/vrdx/include/
		echo "not built here: .bench/vrdx/ carries the source and headers for call.sh to build"
	fi
else
	echo "vrdx_anchor: no headers (set VRDX_DEPS, see above): call.sh runs without the Vulkan peer" >&2
fi

if [ "${SMOKE:-1}" != 0 ]; then
	say "smoke: the experimental binary on lavapipe, 2^16 keys, 6-bit digits (a workgroup there holds 128 invocations)"
	gunzip -c $B/vkx.gz >$TMP/vkx
	chmod +x $TMP/vkx
	sm() { # sm VARIANT [ENV=V...]
		local v=$1
		shift
		env VKCOMPACT_DEVICE=llvmpipe VKCOMPACT_REQUIRE_DEVICE=1 VKX_SPV_DIR=$B/spv/$v "$@" \
			nice $TMP/vkx bench -ops sort_keys_u32,sort_pairs_u32 -n 16 -reps 2 -warmup 1 -warmup-ms 0 \
			-sort-path single-pass -sort-bits 6 | tail -n +2 | sed "s/^/$v: /"
	}
	sm base
	sm cand-shufflerank
	sm hr8 VKX_HIST_KPL=8 VKX_HIST_PROCS=7
	sm abl-all VKCOMPACT_ABLATION=1
fi

say "sizes (bytes): what call.sh carries, beside the checkout's tracked files"
for f in .gl $B/layer $B/vkc-new.gz $B/vkc-u64auto.gz $B/vkx.gz $B/tests $B/spv $B/cub_anchor.cu $B/vrdx_anchor $B/vrdx; do
	if [ -e $f ]; then du -sb $f; fi
done
carried=$(du -sbc .gl $B | tail -n 1 | cut -f1)
tracked=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
echo "carried $carried, tracked $tracked, together $((carried + tracked)) of $((64 << 20))"
if [ $((carried + tracked)) -ge $((64 << 20)) ]; then
	echo "prepare.sh: over the 64 MiB a call takes" >&2
	exit 1
fi
