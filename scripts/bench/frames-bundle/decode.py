# Decodes the first N frames of a video to rgb24 at WxH (OpenCV), as the bench reads them.
import sys
import cv2

path, w, h, n, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
cap = cv2.VideoCapture(path)
count = 0
with open(out, 'wb') as f:
    while count < n:
        ok, frame = cap.read()
        if not ok:
            break
        frame = cv2.resize(frame, (w, h), interpolation=cv2.INTER_LINEAR)
        f.write(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB).tobytes())
        count += 1
print(f'decoded {count} frames of {path} at {w}x{h} (OpenCV {cv2.__version__}, fps {cap.get(cv2.CAP_PROP_FPS)})', file=sys.stderr)
sys.exit(0 if count == n else 1)
