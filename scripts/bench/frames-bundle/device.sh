#!/bin/bash
# The detector-thread bench (scripts/bench/desensitize-frames.ts, bundled) on a machine with no Node
# and no ffmpeg: Node 20, the detectors' packages and the cascades come in payload.tar.xz; frames are
# decoded from vtest.avi by Python's OpenCV, or else taken from the 20 pre-decoded 720p frames.
# Env: OUT (results), DEADLINE (s for the whole script), FRAMES (decoded), T720 and T360 (thread
# counts, in order; 'n:f' for n threads on the first f frames only).
set -u
B=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/bench.XXXX)
START=$(date +%s)
DEADLINE=${DEADLINE:-330}
FRAMES=${FRAMES:-40}
T720=${T720-15 7 3 0}
T360=${T360-15 7 0}
log() { echo "[$(($(date +%s) - START))s] $*" | tee -a "$OUT/log.txt" >&2; }
{ echo "nproc: $(nproc)"; lscpu | head -20; free -g; uname -a; cat /proc/loadavg; } > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt" >&2
cd "$W" || exit 1
if tar -xJf "$B/payload.tar.xz" 2>>"$OUT/log.txt"; then log "payload: tar -xJ"; else
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".")' "$B/payload.tar.xz" && log "payload: python tarfile"
fi
cp "$B/frames.mjs" "$B/detect-thread.js" "$B/package.json" "$W/"
log "node $("$W/node" --version)"
export OPENCV_CASCADE_DIR="$W/cascades"
declare -A file count
for size in 1280x720 640x360; do
  w=${size%x*} h=${size#*x}
  if python3 "$B/decode.py" "$B/vtest.avi" "$w" "$h" "$FRAMES" "$W/$size.rgb" 2>>"$OUT/log.txt"; then
    file[$size]="$W/$size.rgb" count[$size]=$FRAMES; log "$size: $FRAMES frames decoded by OpenCV"
  elif [ "$size" = 1280x720 ]; then
    n=$((FRAMES < 20 ? FRAMES : 20))
    xz -dc "$B/f720x20.rgb.xz" > "$W/all.rgb" 2>/dev/null ||
      python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$B/f720x20.rgb.xz" > "$W/all.rgb"
    head -c $((w * h * 3 * n)) "$W/all.rgb" > "$W/$size.rgb"
    file[$size]="$W/$size.rgb" count[$size]=$n; log "$size: fallback, $n pre-decoded frames (ffmpeg here)"
  else log "$size: no frames (no OpenCV)"; fi
done
run() { # size threads[:frames] (frames: only the first ones of those decoded)
  local size=$1 t=${2%%:*} w=${1%x*} h=${1#*x} n=${count[$1]:-0}
  [[ $2 == *:* ]] && n=$((${2#*:} < n ? ${2#*:} : n))
  [ -n "${file[$size]:-}" ] || return
  local left=$((DEADLINE - ($(date +%s) - START)))
  if [ "$left" -lt 20 ]; then log "skipped $size threads=$t: ${left}s left"; return; fi
  log "start $size threads=$t frames=$n (limit ${left}s, load $(cut -d' ' -f1-3 /proc/loadavg))"
  head -c $((w * h * 3 * n)) "${file[$size]}" |
    WORKER_DETECT_THREADS=$t timeout "$left" "$W/node" "$W/frames.mjs" "$w" "$h" 10 >> "$OUT/results.jsonl" 2>>"$OUT/log.txt"
  log "end $size threads=$t rc=$?: $(tail -n 1 "$OUT/results.jsonl" | cut -c1-400)"
}
for t in $T720; do run 1280x720 "$t"; done
for t in $T360; do run 640x360 "$t"; done
log done
