import fs from 'node:fs';
import path from 'node:path';
import { WorkerApi } from './api.js';
import { SearchThreads } from './search-threads.js';
import { Detector } from './detector.js';
import { processJob } from './process-job.js';
import type { ModelSettings } from './analyze.js';

// `npm run worker [-- --once]`: signs in, polls the todolist, desensitizes and analyses each
// issue (docs/worker.md). SIGTERM lets the current issue finish, then exits.

function setting(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new Error(`${name} is not set (see docs/worker.md)`);
  return value;
}

export function modelSettings(env: NodeJS.ProcessEnv): ModelSettings | null {
  if (!env.AI_BASE_URL || !env.AI_MODEL) return null;
  return {
    baseURL: env.AI_BASE_URL,
    model: env.AI_MODEL,
    apiKey: env.AI_API_KEY ?? '',
    maxFrames: Number(env.AI_MAX_FRAMES ?? 6) || 6,
    promptFile: env.AI_PROMPT_FILE ?? path.resolve(import.meta.dirname, '../../config/ai-prompt.md'),
  };
}

const stamp = (msg: string) => console.log(`${new Date().toISOString()} ${msg}`);

/** The worker's loop: sign in, then poll the todolist (once, or until SIGTERM). */
export async function runWorker(env: NodeJS.ProcessEnv, once: boolean, log: (msg: string) => void = stamp, stop = { requested: false }): Promise<void> {
  const password = env.WORKER_PASSWORD_FILE ? fs.readFileSync(env.WORKER_PASSWORD_FILE, 'utf8').trim() : setting(env, 'WORKER_PASSWORD');
  const serverUrl = setting(env, 'WORKER_SERVER_URL');
  // An older backend, which cannot say where its queues are, names them: WORKER_ANALYSIS_PATHS (comma-separated).
  const queues = (env.WORKER_ANALYSIS_PATHS ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const api = new WorkerApi(serverUrl, setting(env, 'WORKER_USERNAME'), password, queues);
  const poll = Number(env.WORKER_POLL_SECONDS ?? 10) * 1000;
  const model = modelSettings(env);
  log(
    model ? `AI model ${model.model} at ${model.baseURL}` : 'No AI model configured (AI_BASE_URL, AI_MODEL): files will be desensitized, analysis stays READY',
  );
  const detector = await Detector.create();
  await api.login().catch((e: Error) => {
    throw new Error(`Cannot sign in at ${serverUrl} as ${env.WORKER_USERNAME}: ${e.message}`);
  });
  while (!stop.requested) {
    try {
      for (const job of await api.todolist()) {
        if (stop.requested) break;
        await processJob(job, { api, detector, model, log });
      }
    } catch (e) {
      // A server restart or an expired token: sign in again and carry on at the next poll.
      log(`server call failed: ${(e as Error).message}`);
      await api.login().catch((err: Error) => log(`sign-in failed: ${err.message}`));
    }
    if (once) break;
    // Short naps, so that SIGTERM between polls ends the process at once.
    for (let waited = 0; waited < poll && !stop.requested; waited += 500) await new Promise((r) => setTimeout(r, 500));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const stop = { requested: false };
  process.on('SIGTERM', () => {
    stop.requested = true;
    stamp('SIGTERM: stopping after the current issue');
  });
  // The search threads (one per core) load at the start rather than on the first video, which reports a failure.
  SearchThreads.shared().catch(() => undefined);
  runWorker(process.env, process.argv.includes('--once'), stamp, stop).catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
}
