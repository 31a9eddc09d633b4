import { spawn, execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface VideoInfo {
  width: number;
  height: number;
  fps: string;
  duration: number;
  hasAudio: boolean;
}

/** Size, frame rate, duration and audio presence of a media file, from ffprobe. */
export async function probe(file: string): Promise<VideoInfo> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,width,height,r_frame_rate:format=duration', '-of', 'json', file]);
  const json = JSON.parse(stdout) as {
    streams: { codec_type: string; width?: number; height?: number; r_frame_rate?: string }[];
    format: { duration?: string };
  };
  const video = json.streams.find((s) => s.codec_type === 'video');
  if (!video?.width || !video.height) throw new Error(`${file} has no video stream`);
  return {
    width: video.width,
    height: video.height,
    fps: video.r_frame_rate ?? '25/1',
    duration: Number(json.format.duration ?? 0),
    hasAudio: json.streams.some((s) => s.codec_type === 'audio'),
  };
}

/** Runs ffmpeg to its end; rejects with its last error lines. */
export async function ffmpeg(args: string[]): Promise<void> {
  await run('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args], { maxBuffer: 64 * 1024 * 1024 });
}

/** A spawned ffmpeg whose exit is a promise that rejects with its stderr on failure. */
export function spawnFfmpeg(args: string[]) {
  const child = spawn('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}: ${stderr.trim()}`))));
  });
  return { child, exited };
}

/** The first picture of an image or video file as rgb24. */
export async function decodeRgb(file: string): Promise<{ rgb: Buffer; width: number; height: number }> {
  const { width, height } = await probe(file);
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: width * height * 3 + 1024,
  });
  if (stdout.length < width * height * 3) throw new Error(`${path.basename(file)}: no picture decoded`);
  return { rgb: stdout.subarray(0, width * height * 3), width, height };
}

/** Writes an rgb24 picture, its format by the file name (JPEG at ffmpeg's -q:v quality, 2 best). */
export async function encodePicture(rgb: Buffer, width: number, height: number, file: string, quality: number): Promise<void> {
  const encode = spawnFfmpeg([
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-s',
    `${width}x${height}`,
    '-i',
    'pipe:0',
    '-frames:v',
    '1',
    '-q:v',
    String(quality),
    file,
  ]);
  encode.child.stdout.resume();
  encode.child.stdin.end(rgb);
  await encode.exited;
}
