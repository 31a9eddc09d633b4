import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { loadRegistry } from '../../src/server/schemas.js';
import { recordOf } from '../bench/records.js';

// The built app on the real server with a day of records, as the Lighthouse bench and the
// screenshots script see it: `startServedApp()`, then `signInPage(page, app)` in a browser.
const ROOT = path.resolve(import.meta.dirname, '../..');
export const APP_USER = { username: 'lighthouse', password: 'lighthouse-pass-1', project: 'DEMO', vehicle: '636_green' };

export interface ServedApp {
  base: string;
  /** An issue of the seeded day, for /data/issue/{id}. */
  issueId: number;
  stop(): void;
}

export function chromiumPath(): string {
  const found = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p));
  if (!found) throw new Error('Chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH');
  return found;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once the server at `base` serves its sign-in page; throws if its process exits or `seconds` pass first. */
export async function waitUp(base: string, child: { exitCode: number | null }, seconds = 30): Promise<void> {
  for (let i = 0; i < seconds * 10; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/login`, { headers: { accept: 'text/html' } });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server did not start within ${seconds} s`);
}

/** A day of work for every kind, through the API as the app would send it; returns an issue's id. */
async function seed(base: string): Promise<number> {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: APP_USER.username, password: APP_USER.password, clientId: 'e5cd7e4891bf95d1d19206ce24a7b32e', grantType: 'password' }),
  });
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  const today = new Date().toISOString().slice(0, 10);
  const registry = loadRegistry(path.join(ROOT, 'schemas'));
  let issueId = 0;
  for (const kind of registry.values()) {
    const count = kind.name === 'issue' ? 20 : 6;
    for (let i = 0; i < count; i++) {
      const body = { ...recordOf(kind, i + 8, today), vehicleNo: APP_USER.vehicle };
      const res = await fetch(`${base}/api${kind.meta.apiPath}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as { code: number; msg: string; data?: { id?: number } };
      if (answer.code !== 200) throw new Error(`creating a ${kind.name} failed: ${answer.msg}`);
      if (kind.name === 'issue' && !issueId) issueId = Number(answer.data?.id);
    }
  }
  if (!issueId) throw new Error('no issue was created');
  return issueId;
}

/**
 * Builds the client (unless `build` is false), starts the real server on a free port with a fresh
 * data folder and one user, and seeds a day of records through the API; or, given `data`, on a
 * folder seeded beforehand (kept when the server stops) with that issue for the record view.
 */
export async function startServedApp(options: { build?: boolean; data?: { dataDir: string; issueId: number } } = {}): Promise<ServedApp> {
  if (options.build !== false) {
    console.log('building the client (npm run build:client)…');
    execFileSync('npm', ['run', '--silent', 'build:client'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const dataDir = options.data?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-served-app-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/server/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      INITIAL_USERNAME: APP_USER.username,
      INITIAL_PASSWORD: APP_USER.password,
      INITIAL_PROJECT: APP_USER.project,
      INITIAL_VEHICLE: APP_USER.vehicle,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = (): void => {
    server.kill('SIGTERM');
    if (!options.data) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUp(base, server);
    return { base, issueId: options.data?.issueId ?? (await seed(base)), stop };
  } catch (e) {
    stop();
    throw e;
  }
}

/** Signs in through the login page as a person would (the token stays in local storage). */
export async function signInPage(page: Page, app: ServedApp): Promise<void> {
  await page.goto(`${app.base}/login`);
  await page.getByLabel('Username').fill(APP_USER.username);
  await page.getByLabel('Password', { exact: true }).fill(APP_USER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/data');
}

/**
 * Debian's Chromium at phone size (390x844), headless, with a DevTools port for Lighthouse and a
 * profile of its own; `locale` ('en-US', 'zh-CN') also sets the languages the browser asks for.
 */
export function launchForLighthouse(profile: string, debugPort: number, locale?: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    ...(locale ? { locale } : {}),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(locale ? [`--lang=${locale}`, `--accept-lang=${locale}`] : []),
      `--remote-debugging-port=${debugPort}`,
    ],
    viewport: { width: 390, height: 844 },
  });
}
