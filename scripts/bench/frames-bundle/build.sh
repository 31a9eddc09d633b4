#!/bin/bash
# Builds bench-bundle/ (ignored: .git/info/exclude), a self-contained copy of the detector-thread
# bench (scripts/bench/desensitize-frames.ts) for a machine without Node, ffmpeg or network
# (docs/PERFORMANCE.md, "Detector threads on the task's GPU machine"): the bench and the detector
# thread bundled by esbuild, and payload.tar.xz with this machine's Node (stripped), only the
# node_modules files the detectors load at run time (found with strace) and OpenCV's two cascades;
# vtest.avi for OpenCV in Python to decode there, and 20 frames of it at 1280x720 decoded here by
# ffmpeg in case it cannot. Run it there with: OUT=<folder> bench-bundle/device.sh
# Run from the repository root.
set -euo pipefail
here=$(dirname "$0")
out=bench-bundle
vtest=${VTEST:-/usr/share/doc/opencv-doc/examples/data/vtest.avi}
cascades=${OPENCV_CASCADE_DIR:-/usr/share/opencv4/haarcascades}
grep -qx "$out/" .git/info/exclude 2>/dev/null || echo "$out/" >> .git/info/exclude
rm -rf "$out" && mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
esbuild() { npx esbuild "$1" --bundle --platform=node --format=esm --target=node20 --packages=external --log-level=warning --outfile="$2"; }
esbuild scripts/bench/desensitize-frames.ts "$out/frames.mjs"
# detect-helper.ts starts ./detect-thread.js beside the bundle when not run from .ts sources.
esbuild src/worker/detect-thread.ts "$out/detect-thread.js"
echo '{ "type": "module" }' > "$out/package.json"
cp "$here/device.sh" "$here/decode.py" "$out/"
strip -o "$stage/node" "$(command -v node)"
mkdir -p "$stage/cascades"
cp "$cascades/haarcascade_frontalface_default.xml" "$cascades/haarcascade_russian_plate_number.xml" "$stage/cascades/"
files=(
  node_modules/@techstark/opencv-js/package.json node_modules/@techstark/opencv-js/dist/opencv.js
  node_modules/@tensorflow/tfjs*/package.json node_modules/@tensorflow/tfjs*/dist/*.node.js
  node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm
  node_modules/@vladmandic/face-api/package.json node_modules/@vladmandic/face-api/dist/face-api.node-wasm.js
  node_modules/@vladmandic/face-api/model/ssd_mobilenetv1_model*
  node_modules/@vladmandic/human/package.json node_modules/@vladmandic/human/dist/human.node.js
  node_modules/@vladmandic/human/models/centernet.*
  node_modules/long node_modules/seedrandom
)
tar cf - "${files[@]}" | tar xf - -C "$stage"
tar cf - -C "$stage" node node_modules cascades | xz -T0 -9 > "$out/payload.tar.xz"
cp "$vtest" "$out/vtest.avi"
ffmpeg -loglevel error -i "$vtest" -frames:v 20 -vf scale=1280:720 -f rawvideo -pix_fmt rgb24 - | xz -T0 -6 > "$out/f720x20.rgb.xz"
du -sh "$out"/*
