import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import { ROOT } from '../helpers/server.js';

const run = promisify(execFile);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-cli-'));

async function users(args: string[], stdin?: string): Promise<{ code: number; out: string }> {
  const child = run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/users.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
  });
  if (stdin !== undefined) {
    child.child.stdin?.end(stdin);
  } else child.child.stdin?.end();
  try {
    const { stdout, stderr } = await child;
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout + err.stderr };
  }
}

async function canSignIn(username: string, password: string): Promise<boolean> {
  const app = await buildApp(loadConfig({ DATA_DIR: dataDir }, ROOT), { logger: false, print: () => {} });
  try {
    const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });
    return res.json().code === 200;
  } finally {
    await app.close();
  }
}

describe('npm run users', () => {
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  // Each step starts the CLI as its own process, and adding or changing a password hashes it with
  // scrypt: about a minute on two cores, more when they are busy.
  it('adds, lists, changes the password of and removes users', { timeout: 120_000 }, async () => {
    const added = await users(['add', 'tester1', '--project', 'EU-Winter', '--vehicle', 'VX-42']);
    expect(added.code).toBe(0);
    const password = /Password: (\S+)/.exec(added.out)?.[1] as string;
    expect(await canSignIn('tester1', password)).toBe(true);

    const listed = await users(['list']);
    expect(listed.out).toMatch(/tester1\tproject EU-Winter\tvehicle VX-42/);

    expect((await users(['passwd', 'tester1', '--password-stdin'], 'new-secret-pass\n')).code).toBe(0);
    expect(await canSignIn('tester1', password)).toBe(false);
    expect(await canSignIn('tester1', 'new-secret-pass')).toBe(true);

    const dup = await users(['add', 'tester1', '--project', 'X', '--vehicle', 'Y']);
    expect(dup).toMatchObject({ code: 1 });
    expect(dup.out).toContain("Error: user 'tester1' already exists");
    expect((await users(['add', 'x y', '--project', 'X', '--vehicle', 'Y'])).out).toContain('username must be 2-50 letters');
    expect((await users(['add', 'tester2'])).out).toContain('add needs --project and --vehicle');
    expect((await users(['frobnicate'])).code).toBe(2);

    expect((await users(['remove', 'tester1'])).code).toBe(0);
    expect(await canSignIn('tester1', 'new-secret-pass')).toBe(false);
    expect((await users(['remove', 'tester1'])).out).toContain("Error: no user 'tester1'");
  });

  it('adds a worker account for several projects, listed with its role', { timeout: 60_000 }, async () => {
    const added = await users(['add-worker', 'gpu-box-1', '--projects', 'EU-Winter, P2']);
    expect(added.code).toBe(0);
    expect(added.out).toContain("Added worker 'gpu-box-1' (projects EU-Winter, P2).");
    const password = /Password: (\S+)/.exec(added.out)?.[1] as string;
    expect(await canSignIn('gpu-box-1', password)).toBe(true);
    const listed = await users(['list']);
    expect(listed.out).toMatch(/gpu-box-1\tprojects EU-Winter,P2\tsince \d{4}-\d{2}-\d{2}\trole worker/);
    expect((await users(['add-worker', 'gpu-box-2'])).out).toContain('add-worker needs --projects P1,P2');
    expect((await users(['add-worker', 'gpu-box-2', '--projects', ' , '])).out).toContain('a worker needs at least one project');
  });
});
