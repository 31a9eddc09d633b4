import fs from 'node:fs';
import path from 'node:path';
import { WorkerApi } from './api.js';
import { Detector } from './detector.js';
import { processJob } from './process-job.js';
import type { ModelSettings } from './analyze.js';

// `npm run worker [-- --once]`: signs in, polls the todolist, desensitizes and analyses each
// issue (docs/worker.md). SIGTERM lets the current issue finish, then exits.

function setting(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) { console.error(`${name} is not set (see docs/worker.md)`); process.exit(2); }
  return value;
}

export function modelSettings(env: NodeJS.ProcessEnv): ModelSettings | null {
  if (!env.AI_BASE_URL || !env.AI_MODEL) return null;
  return {
    baseURL: env.AI_BASE_URL, model: env.AI_MODEL, apiKey: env.AI_API_KEY ?? '',
    maxFrames: Number(env.AI_MAX_FRAMES ?? 6) || 6,
    promptFile: env.AI_PROMPT_FILE ?? path.resolve(import.meta.dirname, '../../config/ai-prompt.md'),
  };
}

async function main(): Promise<void> {
  const once = process.argv.includes('--once');
  const password = process.env.WORKER_PASSWORD_FILE ? fs.readFileSync(process.env.WORKER_PASSWORD_FILE, 'utf8').trim() : setting('WORKER_PASSWORD');
  const api = new WorkerApi(setting('WORKER_SERVER_URL'), setting('WORKER_USERNAME'), password);
  const poll = Number(process.env.WORKER_POLL_SECONDS ?? 10) * 1000;
  const model = modelSettings(process.env);
  const log = (msg: string) => console.log(`${new Date().toISOString()} ${msg}`);
  log(model ? `AI model ${model.model} at ${model.baseURL}` : 'No AI model configured (AI_BASE_URL, AI_MODEL): files will be desensitized, analysis stays READY');
  let stopping = false;
  process.on('SIGTERM', () => { stopping = true; log('SIGTERM: stopping after the current issue'); });
  const detector = await Detector.create();
  await api.login();
  while (!stopping) {
    try {
      for (const job of await api.todolist()) {
        if (stopping) break;
        await processJob(job, { api, detector, model, log });
      }
    } catch (e) {
      // A server restart or an expired token: sign in again and carry on at the next poll.
      log(`server call failed: ${(e as Error).message}`);
      await api.login().catch((err: Error) => log(`sign-in failed: ${err.message}`));
    }
    if (once) break;
    await new Promise((r) => setTimeout(r, poll));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e: Error) => { console.error(e.message); process.exit(1); });
}
