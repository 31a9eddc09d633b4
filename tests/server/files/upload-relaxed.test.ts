import { sql, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { UploadSessionStore } from '../../../src/server/files/sessions.js';
import { dbTargets, useTestServer } from '../../helpers/server.js';

// Decision 042: a fragment's claim, written mark and synced mark all commit without a flush
// (SQLite synchronous = NORMAL for the commit; PostgreSQL synchronous_commit = off, set in the
// statement that locks the session row), and the setting goes back afterwards.

describe.each(dbTargets())('relaxed upload bookkeeping on $name', (target) => {
  const s = useTestServer(target);

  it('commits the claim, the written mark and the synced mark relaxed, and the durable prefix still moves only on the synced mark', async () => {
    const seen: string[] = [];
    // Records each statement's tree: the relaxed setting is raw SQL inside it.
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        seen.push(JSON.stringify(args.node));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const db = s.app.db.kysely.withPlugin(recorder);
    const store = new UploadSessionStore(db, s.app.db.dialect, 'host-r boot-1');
    const { secret } = await store.create({
      userId: 1,
      project: 'P1',
      folder: 'r',
      fileName: 'r.bin',
      conflict: 'rename',
      partFile: `relaxed-${target.name}.part`,
    });
    const session = (await store.find(secret))!;
    const marker = s.app.db.dialect === 'postgres' ? "set_config('synchronous_commit', 'off', true)" : 'PRAGMA synchronous = NORMAL';
    const relaxed = (): number => seen.filter((q) => q.includes(marker)).length;

    const claim = await store.claimFragment(session, 0, 100, 1000);
    if (!('lockId' in claim)) throw new Error(`claim refused: ${claim.reason}`);
    expect(relaxed()).toBe(1);
    expect(await store.markWritten(session.idHash, claim.lockId)).toMatchObject({ received: 100 });
    expect(relaxed()).toBe(2);
    expect((await store.find(secret))!.received).toBe(0);
    expect(await store.markSynced(session.idHash, await store.writtenHere(session.idHash))).toBe(100);
    expect(relaxed()).toBe(3);
    expect((await store.find(secret))!.received).toBe(100);
    // Only those transactions were relaxed: the connection is back at its own level.
    if (s.app.db.dialect === 'postgres') {
      expect((await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(s.app.db.kysely)).rows[0]?.synchronous_commit).toBe('on');
    } else {
      expect(Number((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(s.app.db.kysely)).rows[0]?.synchronous)).toBe(2);
    }
    await store.delete(session.idHash);
  });
});
