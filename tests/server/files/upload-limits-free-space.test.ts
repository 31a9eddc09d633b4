import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Config } from '../../../src/server/config.js';
import type { Database } from '../../../src/server/db/types.js';
import { UploadLimits } from '../../../src/server/files/upload-limits.js';

// A fragment's free-space check reuses a statfs under 1 s old, less the bytes
// let through since; only a pass comes from that estimate, a refusal is always read afresh.

describe('the free-space check for bytes being written', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-free-space-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const free = (): number => {
    const st = fs.statfsSync(root);
    return st.bavail * st.bsize;
  };

  it('reads statfs once for a burst of fragments, counts what it let through, and checks a refusal afresh', async () => {
    const settings = { minFreeBytes: Math.max(0, free() - 64 * 1024 ** 2) } as Config['uploads'];
    const limits = new UploadLimits(settings, path.join(root, 'files'), undefined as unknown as Kysely<Database>);
    const statfs = vi.spyOn(fs.promises, 'statfs');
    try {
      // Made on the first call, not on every one.
      await limits.ensureSpace(5 * 1024 ** 2);
      expect(fs.existsSync(path.join(root, 'files'))).toBe(true);
      const first = statfs.mock.calls.length;
      for (let i = 0; i < 5; i++) await limits.ensureSpace(5 * 1024 ** 2);
      expect(statfs.mock.calls.length).toBe(first);
      // More than the estimate leaves: read again (and here still passes, nothing was written).
      await limits.ensureSpace(40 * 1024 ** 2);
      expect(statfs.mock.calls.length).toBe(first + 1);
      // The limit moves (as the disk fills): the estimate never hides the refusal.
      settings.minFreeBytes = 2 ** 50;
      await expect(limits.ensureSpace(1)).rejects.toMatchObject({ status: 507 });
      expect(statfs.mock.calls.length).toBe(first + 2);
    } finally {
      statfs.mockRestore();
    }
  });
});
