// Makes sure the end-to-end tests have a Chromium to drive: the one named by CHROMIUM_PATH, or
// Debian's. On a fresh machine where we are root, installs Debian's package (no browser is ever
// downloaded from anywhere else). Exits non-zero with what to do when that is not possible.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
const found = () => CANDIDATES.find((p) => fs.existsSync(p));
// The HTTPS test makes its self-signed certificate with the openssl command.
const hasOpenssl = () => ['/usr/bin/openssl', '/bin/openssl'].some((p) => fs.existsSync(p));
// The analysis worker's tests: ffmpeg, OpenCV's Haar cascades (opencv-data) and the sample
// footage they run on (opencv-doc's examples/data: faces, a licence plate, video).
const hasWorkerTools = () =>
  fs.existsSync('/usr/bin/ffmpeg') &&
  fs.existsSync('/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml') &&
  fs.existsSync('/usr/share/doc/opencv-doc/examples/data/messi5.jpg') &&
  // The synthetic plates' fonts (tests/worker/plate-set.ts), the Chinese provinces' too.
  fs.existsSync('/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc') &&
  fs.existsSync('/usr/share/fonts/truetype/dejavu');

if (!found() || !hasOpenssl() || !hasWorkerTools()) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && fs.existsSync('/usr/bin/apt-get')) {
    console.log("Installing Debian's chromium, openssl, ffmpeg, opencv-data and opencv-doc packages for the tests...");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    // A CJK font too, so screenshots show the app's Chinese messages as a phone does.
    execFileSync(
      'apt-get',
      ['install', '-y', '--no-install-recommends', 'chromium', 'fonts-wqy-zenhei', 'fonts-dejavu-core', 'openssl', 'ffmpeg', 'opencv-data', 'opencv-doc'],
      {
        stdio: 'inherit',
        env,
      },
    );
  }
}
const chromium = found();
if (!chromium) {
  console.error(
    'The end-to-end tests need Chromium and none was found.\n' +
      'Install it (Debian: sudo apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium binary.',
  );
  process.exit(1);
}
if (!hasWorkerTools()) {
  console.error('The analysis worker tests need ffmpeg, opencv-data and opencv-doc (Debian: sudo apt-get install -y ffmpeg opencv-data opencv-doc).');
  process.exit(1);
}
