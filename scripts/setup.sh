#!/usr/bin/env bash
# Installs what vkcompact needs on Debian or Ubuntu, skipping what is there:
# a C compiler for cgo, the Vulkan loader (and its headers, which a test
# compares the C layer's structs with), Mesa's lavapipe CPU driver, the
# Khronos validation layer, and the shader tools (glslc, spirv-val).
# Uses sudo when not run as root. Go itself must already be installed.
set -euo pipefail

packages=(gcc libc6-dev libvulkan1 libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers glslc spirv-tools)

if ! command -v go >/dev/null 2>&1; then
	echo "setup: Go is not installed (https://go.dev/doc/install); vkcompact needs Go 1.26" >&2
	exit 1
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

sudo=()
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
