#!/usr/bin/env bash
# Installs what vkcompact needs on Debian or Ubuntu, skipping what is there:
# a C compiler for cgo, the Vulkan loader (and its headers, which a test
# compares the C layer's structs with), Mesa's lavapipe CPU driver, the
# Khronos validation layer, the shader tools (glslc, spirv-val), NumPy
# (Debian's python3-numpy, for /usr/bin/python3: a test makes the shared
# fixtures in testdata/, .npy arrays and records with NumPy's own results
# of the command's work on them, again with testdata/make.py and compares
# them with those committed), and Google's
# SwiftShader CPU driver (below). Uses sudo when not run as root. Go itself
# must already be installed. With -windows it installs, besides, what
# scripts/wine.sh needs to build for windows/amd64 and run the result here:
# the mingw-w64 cross compiler, Wine (wine64) and Xvfb, whose X server
# winevulkan needs even headless.
set -euo pipefail

packages=(gcc libc6-dev libvulkan1 libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers glslc spirv-tools python3-numpy)
if [ "${1:-}" = -windows ]; then
	packages+=(gcc-mingw-w64-x86-64 wine64 xvfb xauth)
fi

if ! command -v go >/dev/null 2>&1; then
	echo "setup: Go is not installed (https://go.dev/doc/install); vkcompact needs Go 1.26" >&2
	exit 1
fi

# install installs the Debian packages named that are missing.
install() {
	local missing=() p
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			missing+=("$p")
		fi
	done
	if [ ${#missing[@]} -eq 0 ]; then
		return 0
	fi
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "setup: need root or sudo to install: ${missing[*]}" >&2
			exit 1
		fi
		sudo=(sudo)
	fi
	echo "setup: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -qq
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
install "${packages[@]}"

# SwiftShader, Google's CPU Vulkan driver (Vulkan 1.3, subgroup size 4, no
# VK_KHR_push_descriptor), for the suite's SwiftShader leg. Debian does not
# package it; the npm package @sparticuz/chromium ships it as
# bin/swiftshader.tar.br, a brotli-compressed tar. Only libvk_swiftshader.so
# is kept, beside an ICD manifest naming it by absolute path, in
# $VKCOMPACT_SWIFTSHADER_DIR (default ~/.cache/vkcompact/swiftshader). Point
# the loader at it with VK_DRIVER_FILES (it alone) or VK_ADD_DRIVER_FILES
# (beside the installed drivers); the vkcompact command adds it by itself.
swiftshader_version=153.0.0 # @sparticuz/chromium
swiftshader_dir=${VKCOMPACT_SWIFTSHADER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vkcompact/swiftshader}
icd=$swiftshader_dir/vk_swiftshader_icd.json
if [ ! -f "$icd" ] || [ ! -f "$swiftshader_dir/libvk_swiftshader.so" ] || ! grep -q "$swiftshader_version" "$swiftshader_dir/VERSION" 2>/dev/null; then
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		install nodejs npm
	fi
	echo "setup: installing SwiftShader from @sparticuz/chromium@$swiftshader_version into $swiftshader_dir" >&2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack --silent "@sparticuz/chromium@$swiftshader_version" >/dev/null)
	tar -xzf "$tmp"/sparticuz-chromium-*.tgz -C "$tmp" package/bin/swiftshader.tar.br
	mkdir -p "$swiftshader_dir"
	node -e 'const z=require("zlib"),fs=require("fs");process.stdout.write(z.brotliDecompressSync(fs.readFileSync(process.argv[1])))' \
		"$tmp/package/bin/swiftshader.tar.br" | tar -x -C "$tmp" libvk_swiftshader.so
	mv "$tmp/libvk_swiftshader.so" "$swiftshader_dir/libvk_swiftshader.so"
	printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
		"$swiftshader_dir/libvk_swiftshader.so" >"$icd"
	echo "$swiftshader_version" >"$swiftshader_dir/VERSION"
fi
