import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import type { Job } from './api.js';
import { isImage } from './desensitize.js';
import { probe } from './ffmpeg.js';

const run = promisify(execFile);

// See docs/decisions/023-ai-analysis.md.

export interface ModelSettings {
  baseURL: string;
  model: string;
  apiKey: string;
  maxFrames: number;
  promptFile: string;
}

/**
 * Key frames of a DESENSITIZED file as JPEGs <= 768 px: the first frame, scene changes, and frames
 * evenly spaced through the video (a single-shot dashcam clip has no scene change), at most `max`.
 */
export async function keyFrames(desensitized: string, outDir: string, max: number): Promise<string[]> {
  return (await cutKeyFrames(desensitized, outDir, max)).map((k) => k.file);
}

/**
 * The key frames of keyFrames() with the index of the frame each was cut from (0 for a photo), so
 * that the second check knows what the first pass pixelated there.
 */
export async function cutKeyFrames(desensitized: string, outDir: string, max: number): Promise<{ file: string; index: number }[]> {
  fs.mkdirSync(outDir, { recursive: true });
  const prefix = path.join(outDir, `${path.basename(desensitized)}-`);
  const scale = "scale='min(768,iw)':'min(768,ih)':force_original_aspect_ratio=decrease";
  let select = scale;
  let rate = 0;
  if (!isImage(desensitized)) {
    const info = await probe(desensitized);
    const [num, den] = info.fps.split('/').map(Number);
    rate = (num ?? 25) / (den || 1);
    const every = Math.max(1, Math.floor((info.duration * rate) / max));
    // showinfo logs each frame selected with its time, from which its index (the copy is written at
    // a constant rate by desensitize()).
    select = `select='eq(n\\,0)+gt(scene\\,0.3)+not(mod(n\\,${every}))',showinfo,${scale}`;
  }
  const input = ['-hide_banner', '-v', rate ? 'info' : 'error', '-y', '-i', desensitized];
  const output = ['-vf', select, '-fps_mode', 'vfr', '-frames:v', String(max), '-q:v', '3', `${prefix}%02d.jpg`];
  const { stderr } = await run('ffmpeg', [...input, ...output], { maxBuffer: 64 * 1024 * 1024 });
  const times = [...stderr.matchAll(/Parsed_showinfo.*\bpts_time:\s*(-?[\d.]+)/g)].map((m) => Number(m[1]));
  const files = fs
    .readdirSync(outDir)
    .filter((f) => f.startsWith(path.basename(prefix)))
    .sort()
    .map((f) => path.join(outDir, f));
  // -1: not known (nothing then counts as pixelated in that frame).
  return files.map((file, i) => ({ file, index: !rate ? 0 : times[i] === undefined ? -1 : Math.round(times[i] * rate) }));
}

/** The prompt file with {{field}} placeholders filled from the job. */
export function prompt(template: string, job: Job): string {
  const fields: Record<string, string> = {
    title: job.issueTitle,
    description: job.issueDescription,
    category: job.issueCategory,
    severity: job.issueSeverity,
    workingCondition: job.workingCondition,
    weather: job.weather,
    mileage: String(job.faultMileage ?? ''),
  };
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k: string) => fields[k] ?? '');
}

/** Sends the prompt and the frames to the chat-completions endpoint; the answer is the report. */
export async function analyze(settings: ModelSettings, job: Job, frames: string[]): Promise<string> {
  const client = new OpenAI({ baseURL: settings.baseURL, apiKey: settings.apiKey || 'none', maxRetries: 0, timeout: 300_000 });
  const text = prompt(fs.readFileSync(settings.promptFile, 'utf8'), job);
  const images = frames.slice(0, settings.maxFrames).map((f) => ({
    type: 'image_url' as const,
    image_url: { url: `data:image/jpeg;base64,${fs.readFileSync(f).toString('base64')}` },
  }));
  const answer = await client.chat.completions.create({
    model: settings.model,
    messages: [{ role: 'user', content: [{ type: 'text', text }, ...images] }],
  });
  const report = answer.choices[0]?.message.content?.trim();
  if (!report) throw new Error('the model answered with no text');
  return report;
}
