import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import { redactCredentials } from '../../src/server/plugins/fastify-options.js';
import { ROOT } from '../helpers/server.js';

// Upload-session URLs and signed links are bearer credentials: the request log never holds them.
describe('the request log', () => {
  it('redacts the secret of an upload-session URL and of a signed link', () => {
    expect(redactCredentials('/sharepoint/files/upload/session/abcDEF123-_x?x=1')).toBe('/sharepoint/files/upload/session/[redacted]?x=1');
    expect(redactCredentials('/download/generate_excel?date=2026-11-21&_link=u.sig&vehicle=V1')).toBe(
      '/download/generate_excel?date=2026-11-21&_link=[redacted]&vehicle=V1',
    );
    expect(redactCredentials('/api/vtp/poi/list?pageNum=1')).toBe('/api/vtp/poi/list?pageNum=1');
  });

  it('writes no credential of a request it logs', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const config = loadConfig({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-log-')), LOG_LEVEL: 'info' }, ROOT);
    const app = await buildApp(config, { print: () => {}, logger: { stream } });
    try {
      await app.inject({ method: 'PUT', url: '/sharepoint/files/upload/session/TOPSECRETSESSION', payload: 'x' });
      await app.inject({ method: 'GET', url: '/download/generate_excel?date=2026-11-21&_link=TOPSECRETLINK.sig' });
    } finally {
      await app.close();
    }
    const log = lines.join('');
    expect(log).toContain('/sharepoint/files/upload/session/[redacted]');
    expect(log).toContain('_link=[redacted]');
    expect(log).not.toContain('TOPSECRET');
  });
});
