#!/usr/bin/env bash
# The Windows leg: builds the library's tests, the command, the examples and
# the engines for windows/amd64 with mingw-w64, and runs them under Wine on
# lavapipe: Wine's vulkan-1.dll reaches the host's Vulkan loader through
# winevulkan, so a Windows program sees "llvmpipe". Its loader offers no
# layers, so this leg runs without the validation layer (the Linux legs run
# every GPU test under it); everything else is as on Linux: the tests'
# short form, a missing device is a failure, every GPU result checked
# against Go. Then the README's first program must print its two lines,
# and the demo and the path tracer must be verified. Go 1.22 and later call
# ProcessPrng from bcryptprimitives.dll, which Wine 8.0 lacks: a stub over
# RtlGenRandom (scripts/wine/bcryptprimitives.c) goes into the Wine
# prefix's system32 (real Windows has the DLL).
#
#   scripts/wine.sh [packages...]   (default: the list below)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -windows

cache=${XDG_CACHE_HOME:-$HOME/.cache}/vkcompact
export WINEPREFIX=${VKCOMPACT_WINEPREFIX:-$cache/wine} WINEDEBUG=-all WINEARCH=win64
wine=/usr/lib/wine/wine64
export CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc

# One X server and one Wine server for the whole leg.
display=:$((90 + RANDOM % 9))
Xvfb "$display" -nolisten tcp >/dev/null 2>&1 &
sleep 1
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true; /usr/lib/wine/wineserver64 -k 2>/dev/null || true' EXIT
export DISPLAY=$display
if [ ! -f "$WINEPREFIX/system.reg" ]; then
	echo "== creating the Wine prefix $WINEPREFIX"
	"$wine" wineboot -i >/dev/null 2>&1 || true
	/usr/lib/wine/wineserver64 -w
fi
/usr/lib/wine/wineserver64 -p
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
	scripts/wine/bcryptprimitives.c -ladvapi32

bin=$(mktemp -d)
trap 'rm -rf "$bin"; kill $xvfb 2>/dev/null || true; /usr/lib/wine/wineserver64 -k 2>/dev/null || true' EXIT
echo "== building for windows/amd64"
go build -o "$bin/vkcompact.exe" ./cmd/vkcompact
go build -o "$bin/quickstart.exe" ./examples/quickstart

export VKCOMPACT_VALIDATE=0 VKCOMPACT_REQUIRE_DEVICE=1 VKCOMPACT_DEVICE=llvmpipe LP_NATIVE_VECTOR_WIDTH=256
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(./vk ./pipeline . ./transfer ./compact ./runs ./scan ./radix ./reduce ./histogram ./permute ./internal/testkit/enginetest/goki ./internal/testkit/enginetest/vulkango ./cmd/vkcompact ./cmd/vkcompact/internal/npy ./cmd/vkcompact/internal/fileio ./cmd/vkcompact/internal/bench ./cmd/vkcompact/internal/demo/particles ./cmd/vkcompact/internal/demo/raytrace)
fi
for pkg in "${pkgs[@]}"; do
	exe=$bin/$(echo "$pkg" | tr './' '__').test.exe
	go test -c -o "$exe" "$pkg"
	echo "== $pkg under Wine"
	(cd "$pkg" && "$wine" "$exe" -test.short -test.timeout 20m)
done

echo "== the README's first program under Wine"
out=$("$wine" "$bin/quickstart.exe" | tr -d '\r')
echo "$out"
[ "$out" = $'[3.5 0.25 8 1] 4 of 6\n[0.25 1 3.5 8] [1 3 0 2]' ]
for job in demo raytrace; do
	echo "== vkcompact $job under Wine: must be verified"
	res=$("$wine" "$bin/vkcompact.exe" $job -json | tr -d '\r' | tail -n 1)
	echo "$res"
	echo "$res" | grep -q '"verified":true'
done
