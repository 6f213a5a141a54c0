#!/usr/bin/env bash
# The whole test suite: set everything up, then gofmt, go vet (for Linux
# and for windows/amd64), staticcheck, and `go test ./...` twice on lavapipe
# (Mesa's CPU Vulkan driver), at subgroup size 8 with the race detector
# (every package but the command, whose Go code is single-threaded and
# whose tests run in the next leg and on Windows) and at subgroup size 4,
# then the
# GPU packages, the engines and the path tracer at subgroup size 16 with push
# descriptors (the other legs bind descriptor sets, the default), then the GPU
# packages, the engines and the path tracer on SwiftShader (subgroup size
# 4, no push descriptors; the command's own tests, which exercise its flags
# and files through the same packages, run on lavapipe twice, and on
# SwiftShader only its runs on NumPy record arrays, checked against
# NumPy's results (testdata/), and
# its demo and path tracer below), all under the Khronos validation
# layer with synchronisation validation. Only the leg at subgroup size 4
# runs the tests' full form; the others run the short form (-short, and
# the race detector implies it: vktest.Short), which runs every kernel,
# path and type on fewer sizes and fewer of their combinations, and skips
# the inputs past one binding (lavapipe's 128 MiB), whose Go references
# take minutes under the race detector; each fuzz target briefly
# (VKCOMPACT_FUZZTIME, default a count of inputs per target); then the main
# job's particle demo, its grid (demo -grid) and the path tracer, on lavapipe and on SwiftShader,
# which must report "verified":true; then the Windows leg
# (scripts/wine.sh): the short form of the GPU packages, the engines and the
# command cross-built for windows/amd64 and run under Wine on lavapipe,
# without the validation layer (Wine's loader offers none), the README's
# first program, the demo and the path tracer. A missing Vulkan device,
# validation layer or shader tool fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -windows # the Windows leg's tools too: mingw-w64, Wine, Xvfb

staticcheck_version=v0.8.2 # staticcheck 2026.2.2

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi
echo "== go vet"
go vet ./...
echo "== go vet, windows/amd64"
CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc go vet ./...
echo "== staticcheck $staticcheck_version"
go run "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version" ./...

export VKCOMPACT_VALIDATE=1         # validation layer + synchronisation validation
export VKCOMPACT_REQUIRE_DEVICE=1   # no Vulkan device, layer or tool is a failure
export VKCOMPACT_DEVICE=llvmpipe    # lavapipe, even on a machine with a GPU
echo "== go test, lavapipe subgroup size 8, -race: every package but the command"
LP_NATIVE_VECTOR_WIDTH=256 go test -race -short -count=1 -timeout 25m $(go list ./... | grep -v '/cmd/vkcompact$')
echo "== go test, lavapipe subgroup size 4, the full form"
LP_NATIVE_VECTOR_WIDTH=128 go test -count=1 -timeout 25m ./...
echo "== go test, lavapipe subgroup size 16, push descriptors, SPIR-V specialized ahead of the driver (as on SwiftShader): the GPU packages, the engines (their soak included) and the path tracer"
VKCOMPACT_SPECIALIZE_SPIRV=1 VKCOMPACT_PUSH_DESCRIPTORS=1 LP_NATIVE_VECTOR_WIDTH=512 go test -short -count=1 -timeout 25m ./vk/... ./pipeline/... . ./transfer/... ./compact/... ./runs/... ./scan/... ./radix/... ./histogram/... ./permute/... ./reduce/... ./cmd/vkcompact/internal/demo/raytrace/... ./internal/testkit/enginetest/...
echo "== go test, SwiftShader: the GPU packages, the engines and the path tracer"
swiftshader_icd=${VKCOMPACT_SWIFTSHADER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vkcompact/swiftshader}/vk_swiftshader_icd.json
VK_DRIVER_FILES=$swiftshader_icd VKCOMPACT_DEVICE=swiftshader \
	go test -short -count=1 -timeout 25m ./vk/... ./pipeline/... . ./transfer/... ./compact/... ./runs/... ./scan/... ./radix/... ./histogram/... ./permute/... ./reduce/... ./internal/... ./cmd/vkcompact/internal/...
echo "== go test, SwiftShader: the command on NumPy record arrays, checked against NumPy's results"
VK_DRIVER_FILES=$swiftshader_icd VKCOMPACT_DEVICE=swiftshader \
	go test -count=1 -timeout 5m -run '^(TestNumPyRecords|TestStructCommands)$' ./cmd/vkcompact
echo "== fuzzing, briefly: each target for a count of runs beyond its seed corpus"
# Counts, not durations: with a duration, Go 1.26's fuzz coordinator can
# fail a target with a bare "context deadline exceeded" at the deadline
# (golang/go#75804; FuzzScan failed so in CI, having found nothing).
# VKCOMPACT_FUZZTIME overrides every target's budget (a count "Nx" or a
# duration).
fuzz() { # package target runs
	LP_NATIVE_VECTOR_WIDTH=128 go test -run '^$' -fuzz "^$2\$" -fuzztime "${VKCOMPACT_FUZZTIME:-$3}" -parallel 2 "$1"
}
fuzz ./cmd/vkcompact/internal/npy FuzzReadNpy 20000x
fuzz ./cmd/vkcompact/internal/npy FuzzNpyRecord 20000x
fuzz ./cmd/vkcompact/internal/fileio FuzzInputs 20000x
fuzz ./cmd/vkcompact/internal/fileio FuzzRecordLayout 20000x
fuzz ./cmd/vkcompact FuzzParseBits 20000x
fuzz ./compact FuzzParseKeep 20000x
fuzz ./compact FuzzSelect 100x
fuzz ./compact FuzzUnique 100x
fuzz ./compact FuzzUniqueByKey 100x
fuzz ./compact FuzzPartition3 100x
fuzz ./runs FuzzEncode 100x
fuzz ./scan FuzzScan 1000x
fuzz ./scan FuzzScanByKey 100x
fuzz ./radix FuzzSort 100x
fuzz ./radix FuzzSegmentedSort 50x
fuzz ./histogram FuzzHistogram 100x
fuzz ./permute FuzzMove 200x
fuzz ./reduce FuzzReduce 200x
fuzz ./reduce FuzzSegmented 100x
fuzz ./reduce FuzzByKey 100x
echo "== the main job's demo on lavapipe: vkcompact demo -json must be verified"
demo=$(LP_NATIVE_VECTOR_WIDTH=128 go run ./cmd/vkcompact demo -json | tail -n 1)
echo "$demo"
echo "$demo" | grep -q '"verified":true'
echo "== the particle grid on lavapipe: vkcompact demo -grid -json must be verified"
grid=$(LP_NATIVE_VECTOR_WIDTH=256 go run ./cmd/vkcompact demo -grid -particles 65536 -frames 30 -json | tail -n 1)
echo "$grid" | cut -c1-400
echo "$grid" | grep -q '"verified":true'
echo "== the ray streams on lavapipe: vkcompact raytrace -json must be verified"
raytrace=$(LP_NATIVE_VECTOR_WIDTH=128 go run ./cmd/vkcompact raytrace -json | tail -n 1)
echo "$raytrace"
echo "$raytrace" | grep -q '"verified":true'
echo "== the demo, its grid and the ray streams on SwiftShader: all must be verified"
for job in demo "demo -grid -particles 16384 -frames 30" raytrace; do
	out=$(VK_DRIVER_FILES=$swiftshader_icd VKCOMPACT_DEVICE=swiftshader go run ./cmd/vkcompact $job -json | tail -n 1)
	echo "$out"
	echo "$out" | grep -q '"verified":true'
done
echo "== the Windows leg: built for windows/amd64, run under Wine on lavapipe"
scripts/wine.sh
