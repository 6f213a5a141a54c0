#!/usr/bin/env bash
# The main job: set everything up, build vkcompact, and list the Vulkan
# devices it can use (lavapipe where there is no GPU), marking the default.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
go build -o vkcompact ./cmd/vkcompact
./vkcompact devices "$@"
