import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { ConfigError, DEFAULT_CLIENT_ID, loadConfig, WHOLE_NUMBERS } from '../../src/server/config.js';
import { ROOT } from '../helpers/server.js';
import { framed } from '../../src/server/main.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({}, ROOT);
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: path.join(ROOT, 'data'),
      databaseUrl: undefined,
      clientId: DEFAULT_CLIENT_ID,
      tokenTtlSeconds: 604800,
      soleWriter: true,
    });
    expect(loadConfig({ SOLE_WRITER: 'off' }, ROOT).soleWriter).toBe(false);
    expect(c.downloadsPerUser).toBe(1);
    expect(loadConfig({ DOWNLOADS_PER_USER: '3' }, ROOT).downloadsPerUser).toBe(3);
  });

  it.each([
    [{ PORT: 'eighty' }, "PORT must be a whole number between 0 and 65535, got 'eighty'"],
    [{ PORT: '70000' }, 'PORT must be between 0 and 65535, got 70000'],
    [{ DATABASE_URL: 'mysql://x' }, "DATABASE_URL must be a PostgreSQL URL such as postgres://user@host:5432/db, got 'mysql://x'"],
    [{ LOG_LEVEL: 'loud' }, "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'"],
    [
      { INITIAL_USERNAME: 'x', INITIAL_PASSWORD: 'long-enough' },
      'set all of INITIAL_USERNAME, INITIAL_PASSWORD, INITIAL_PROJECT, INITIAL_VEHICLE or none of them; missing INITIAL_PROJECT, INITIAL_VEHICLE',
    ],
    [{ INITIAL_USERNAME: 'x', INITIAL_PASSWORD: 'short', INITIAL_PROJECT: 'P', INITIAL_VEHICLE: 'V' }, 'INITIAL_PASSWORD must be at least 8 characters'],
    [{ TOKEN_TTL_SECONDS: '5' }, 'TOKEN_TTL_SECONDS must be between 60 and 31536000, got 5'],
    [{ CLIENT_ID: 'has space' }, 'CLIENT_ID must be 1-128 letters, digits, _ or -'],
    [{ SOLE_WRITER: 'maybe' }, "SOLE_WRITER must be on or off, got 'maybe'"],
    [{ DOWNLOADS_PER_USER: '0' }, 'DOWNLOADS_PER_USER must be between 1 and 1000, got 0'],
  ])('refuses %j with a clear message', (env, message) => {
    expect(() => loadConfig(env, ROOT)).toThrow(ConfigError);
    expect(() => loadConfig(env, ROOT)).toThrow(message);
  });

  it('reads every whole-number setting within its bounds in its unit where Config holds it, and refuses one outside them by name', () => {
    const settings = Object.entries(WHOLE_NUMBERS).flatMap(([group, table]) => Object.entries(table).map(([key, setting]) => ({ group, key, setting })));
    const read = (group: string, key: string, env: Record<string, string>): unknown => {
      const config = loadConfig(env, ROOT) as unknown as Record<string, Record<string, unknown>>;
      return group === '' ? (config as Record<string, unknown>)[key] : config[group]?.[key];
    };
    fc.assert(
      fc.property(fc.constantFrom(...settings), fc.bigInt({ min: 0n, max: 2n ** 50n }), ({ group, key, setting: [name, , min, max, scale = 1] }, n) => {
        const within = min + Number(n % BigInt(max - min + 1));
        expect(read(group, key, { [name]: String(within) })).toBe(within * scale);
        expect(() => read(group, key, { [name]: String(max + 1 + Number(n % 1000n)) })).toThrow(`${name} must be between ${min} and ${max}`);
        if (min > 0) expect(() => read(group, key, { [name]: String(min - 1) })).toThrow(`${name} must be between ${min} and ${max}`);
      }),
    );
  });
});

describe('the first start', () => {
  const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-seed-'));

  it('creates a demo user with a random password printed once, and never again', async () => {
    const dataDir = tmp();
    const lines: string[] = [];
    const config = loadConfig({ DATA_DIR: dataDir }, ROOT);
    let app = await buildApp(config, { print: (l) => lines.push(l), logger: false });
    const printed = lines.join('\n');
    const password = /password: (\S+)/.exec(printed)?.[1] as string;
    expect(password).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(printed).toContain('username: demo');
    expect(printed).toContain('(project DEMO, vehicle 636_green)');
    // Framed, as main.ts prints it after the server listens: every line of it between two rules at least as wide.
    const box = framed(printed).split('\n');
    const rules = box.map((l, i) => (/^=+$/.test(l) ? i : -1)).filter((i) => i >= 0);
    expect(rules).toHaveLength(2);
    const inside = box.slice((rules[0] as number) + 1, rules[1]);
    expect(inside.join('\n')).toContain(`password: ${password}`);
    expect(Math.max(...inside.map((l) => l.length))).toBeLessThanOrEqual((box[rules[0] as number] as string).length);
    const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'demo', password } });
    expect(res.json().code).toBe(200);
    await app.close();
    lines.length = 0;
    app = await buildApp(config, { print: (l) => lines.push(l), logger: false });
    expect(lines).toEqual([]);
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the INITIAL_* user when configured', async () => {
    const dataDir = tmp();
    const lines: string[] = [];
    const env = { DATA_DIR: dataDir, INITIAL_USERNAME: 'driver1', INITIAL_PASSWORD: 'a-good-password', INITIAL_PROJECT: 'EU-Winter', INITIAL_VEHICLE: 'VX-42' };
    const app = await buildApp(loadConfig(env, ROOT), { print: (l) => lines.push(l), logger: false });
    expect(lines.join('\n')).not.toContain('a-good-password');
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'driver1', password: 'a-good-password' } });
    const token = login.json().data.access_token;
    const info = await app.inject({ method: 'GET', url: '/api/system/user/getInfo', headers: { authorization: `Bearer ${token}` } });
    expect(info.json().data.user).toMatchObject({ userName: 'driver1', deptName: 'EU-Winter', remark: 'VX-42' });
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops with a message naming the problem when a schema file is broken', async () => {
    const schemasDir = tmp();
    for (const f of fs.readdirSync(path.join(ROOT, 'schemas'))) fs.copyFileSync(path.join(ROOT, 'schemas', f), path.join(schemasDir, f));
    fs.writeFileSync(path.join(schemasDir, 'poi.schema.json'), '{ "title": ');
    await expect(buildApp(loadConfig({ DATA_DIR: tmp(), SCHEMAS_DIR: schemasDir }, ROOT), { logger: false, print: () => {} })).rejects.toThrow(
      /^poi\.schema\.json is not valid JSON/,
    );
  });
});
