#!/usr/bin/env bash
# The main job: set everything up, build vkcompact, list the Vulkan devices
# it can use (lavapipe where there is no GPU), marking the default, and run
# the particle demo on the default device: a GPU particle system whose dead
# particles vkcompact removes in place every frame, checked bit for bit
# against a Go simulation. Its last line is a JSON object with
# "verified":true; it exits 1 when the check fails. Extra arguments go to
# the demo (e.g. -particles 4194304 -frames 120 -png particles.png).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
go build -o vkcompact ./cmd/vkcompact
./vkcompact devices
./vkcompact demo -json "$@"
