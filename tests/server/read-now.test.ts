import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordTable } from '../../src/server/db/database.js';
import { ALICE, useTestServer } from '../helpers/server.js';

// On SQLite, hot reads (a record by id, the generation before every list answer; decision 031) run at
// once instead of waiting for Kysely's turn on the one connection. That is only safe while no
// transaction is open on it: inside one, the connection would show writes not yet committed.

describe('reads at once on SQLite', () => {
  const s = useTestServer({ name: 'sqlite' });
  let token: string;
  beforeAll(async () => {
    token = await s.login(ALICE.username, ALICE.password);
  });

  it('never show what an open transaction wrote and then rolled back, through the API or the repository', async () => {
    const made = await s.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'committed', issueDate: '2026-11-20 10:00:00', issueStartTime: '2026-11-20 09:00:00' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.data.id as number;
    const kind = s.app.registry.get('issue');
    if (!kind) throw new Error('no issue kind');
    expect(s.app.db.readNow).toBeDefined();
    const records = s.app.services.records.reads;
    const genBefore = await records.generation(kind, ALICE.project);

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    const writing = s.app.db.kysely
      .transaction()
      .execute(async (trx) => {
        await sql`UPDATE ${sql.table(recordTable(kind))} SET data = ${JSON.stringify({ issueTitle: 'never committed', issueDate: '2026-11-20 10:00:00' })} WHERE id = ${id}`.execute(
          trx,
        );
        await sql`UPDATE record_generations SET gen = gen + 100 WHERE kind = ${kind.name} AND project_name = ${ALICE.project}`.execute(trx);
        opened();
        await held;
        throw new Error('rolled back on purpose');
      })
      .catch((e: unknown) => String(e));
    await isOpen;
    // Asked while the transaction is open: the answers wait for it and show the committed state.
    const byRepository = records.get(kind, ALICE.project, id);
    const generation = records.generation(kind, ALICE.project);
    const byApi = s.request('GET', `/api/vtp/issueRecord/${id}`, { token });
    const list = s.request('GET', '/api/vtp/issueRecord/list?pageNum=1&pageSize=10', { token });
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(await writing).toContain('rolled back on purpose');
    expect((await byRepository)?.['issueTitle']).toBe('committed');
    expect(await generation).toBe(genBefore);
    expect((await byApi).body.data.issueTitle).toBe('committed');
    expect(((await list).body.rows as { issueTitle: string }[]).map((r) => r.issueTitle)).toEqual(['committed']);
    // And afterwards, read at once again (the generation once per turn of the event loop: decision 031):
    // while Kysely's one connection is held (no transaction open on it), both reads still answer.
    let letGo!: () => void;
    const holding = new Promise<void>((resolve) => (letGo = resolve));
    let holds!: () => void;
    const isHeld = new Promise<void>((resolve) => (holds = resolve));
    const held2 = s.app.db.kysely.connection().execute(async () => {
      holds();
      await holding;
    });
    await isHeld;
    const atOnce = await Promise.race([
      Promise.all([records.get(kind, ALICE.project, id), records.generation(kind, ALICE.project)]),
      new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 1000)),
    ]);
    letGo();
    await held2;
    expect(atOnce).not.toBe('waited');
    const [record, gen] = atOnce as [Record<string, unknown> | undefined, number | string];
    expect(record?.['issueTitle']).toBe('committed');
    expect(gen).toBe(genBefore);
  });
});
