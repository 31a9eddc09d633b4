import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** ffmpeg and ffprobe from the system (Debian: apt-get install -y ffmpeg), or FFMPEG_PATH / FFPROBE_PATH. */
export const FFMPEG = process.env['FFMPEG_PATH'] ?? 'ffmpeg';
export const FFPROBE = process.env['FFPROBE_PATH'] ?? 'ffprobe';

export interface MediaInfo {
  width: number;
  height: number;
  /** Frames per second of the video stream (1 for a still image). */
  fps: number;
  /** Seconds; 0 for a still image. */
  duration: number;
  hasAudio: boolean;
  /** One picture, not a moving video. */
  still: boolean;
}

/** Runs a program to its end; rejects with its stderr when it fails. */
export function run(program: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new Error(`${program} could not be started (${e.message}); install ffmpeg (apt-get install -y ffmpeg)`)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`${program} ${args.join(' ')} failed (${code}): ${Buffer.concat(err).toString().trim().slice(-500)}`));
    });
  });
}

function rate(text: string | undefined): number {
  const [n = '0', d = '1'] = (text ?? '0/1').split('/');
  const value = Number(n) / (Number(d) || 1);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** Width, height, frame rate, duration and audio of a media file (ffprobe). */
export async function probe(file: string): Promise<MediaInfo> {
  const json = JSON.parse((await run(FFPROBE, ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file])).toString()) as {
    streams?: { codec_type?: string; width?: number; height?: number; avg_frame_rate?: string; r_frame_rate?: string; nb_frames?: string; duration?: string }[];
    format?: { duration?: string; format_name?: string };
  };
  const video = json.streams?.find((s) => s.codec_type === 'video');
  if (!video?.width || !video.height) throw new Error(`${file} has no picture ffmpeg can read`);
  const formatName = json.format?.format_name ?? '';
  const still = /image2|_pipe|png|jpeg|webp|bmp|tiff/.test(formatName) || video.nb_frames === '1';
  const duration = Number(json.format?.duration ?? video.duration ?? 0);
  return {
    width: video.width,
    height: video.height,
    fps: still ? 1 : rate(video.avg_frame_rate) || rate(video.r_frame_rate) || 25,
    duration: still || !Number.isFinite(duration) ? 0 : duration,
    hasAudio: json.streams?.some((s) => s.codec_type === 'audio') ?? false,
    still,
  };
}

/** Decodes every frame of a file as raw RGB (3 bytes a pixel), one frame at a time. */
export async function* decodeFrames(file: string, info: MediaInfo): AsyncGenerator<Buffer> {
  const frameBytes = info.width * info.height * 3;
  const child = spawn(FFMPEG, ['-v', 'error', '-i', file, '-map', '0:v:0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-vsync', 'passthrough', '-'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const errors: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => errors.push(b));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  let pending: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= frameBytes) {
        yield Buffer.from(pending.subarray(0, frameBytes));
        pending = pending.subarray(frameBytes);
      }
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  const code = await closed;
  if (code !== 0 && code !== null) throw new Error(`decoding ${file} failed: ${Buffer.concat(errors).toString().trim().slice(-500)}`);
}

/** The ffmpeg arguments that encode raw RGB frames from stdin into `out`, keeping `source`'s audio. */
function encodeArgs(source: string, out: string, info: MediaInfo): string[] {
  const input = ['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${info.width}x${info.height}`, '-r', String(info.fps), '-i', '-'];
  if (info.still) return ['-v', 'error', '-y', ...input, '-frames:v', '1', out];
  const ext = out.slice(out.lastIndexOf('.') + 1).toLowerCase();
  const webm = ext === 'webm';
  // The audio as it was; MP4-family files get AAC (their source may hold audio MP4 cannot carry), WebM gets Opus.
  const audioCodec = webm ? 'libopus' : ['mp4', 'm4v', 'mov'].includes(ext) ? 'aac' : 'copy';
  const audio = info.hasAudio ? ['-i', source, '-map', '0:v:0', '-map', '1:a', '-c:a', audioCodec] : ['-map', '0:v:0'];
  // H.264 (VP8 in WebM) in the source's container; yuv420p plays everywhere; odd sizes are padded.
  const video = webm ? ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '2M'] : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20'];
  return ['-v', 'error', '-y', ...input, ...audio, ...video, '-pix_fmt', 'yuv420p', '-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2', ...(webm ? [] : ['-movflags', '+faststart']), '-shortest', out];
}

export interface Encoder {
  write(frame: Buffer): Promise<void>;
  end(): Promise<void>;
}

/** An ffmpeg process taking raw RGB frames on stdin (with backpressure) and writing `out`. */
export function encoder(source: string, out: string, info: MediaInfo): Encoder {
  const child: ChildProcessByStdio<Writable, null, Readable> = spawn(FFMPEG, encodeArgs(source, out, info), { stdio: ['pipe', 'ignore', 'pipe'] });
  const errors: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => errors.push(b));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  let broken: Error | undefined;
  child.stdin.on('error', (e) => (broken = e));
  return {
    write: (frame) =>
      new Promise((resolve, reject) => {
        if (broken) return reject(broken);
        if (child.stdin.write(frame)) resolve();
        else child.stdin.once('drain', () => resolve());
      }),
    end: async () => {
      child.stdin.end();
      const code = await closed;
      if (code !== 0) throw new Error(`encoding ${out} failed: ${Buffer.concat(errors).toString().trim().slice(-500)}`);
    },
  };
}
