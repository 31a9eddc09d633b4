import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { IdBlocks, ID_BLOCK } from '../../src/server/records/store/postgres.js';
import type { Kind } from '../../src/shared/kind-types.js';
import { ALICE, dbTargets, useTestServer } from '../helpers/server.js';

// Decision 053: on PostgreSQL a create takes its id from a block taken from its kind's sequence.

const kindNamed = (name: string) => ({ name }) as unknown as Kind;

describe('ids taken a block at a time', () => {
  it('shares one block among the creates that ask together, in order, and takes the next when it runs out', async () => {
    let sequence = 100;
    const blocks: number[] = [];
    const ids = new IdBlocks(async () => {
      blocks.push(sequence);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return Array.from({ length: 4 }, () => ++sequence);
    });
    const issue = kindNamed('issue');
    const taken = await Promise.all(Array.from({ length: 6 }, () => ids.next(issue)));
    expect(taken).toEqual([101, 102, 103, 104, 105, 106]);
    expect(blocks).toEqual([100, 104]);
    // The rest of the second block, then a third.
    expect(await ids.next(issue)).toBe(107);
    expect(await ids.next(issue)).toBe(108);
    expect(await ids.next(issue)).toBe(109);
    expect(blocks).toEqual([100, 104, 108]);
  });

  it('keeps each kind to its own sequence', async () => {
    const sequences = new Map<string, number>();
    const ids = new IdBlocks(async (kind) => {
      const from = sequences.get(kind.name) ?? 0;
      sequences.set(kind.name, from + 2);
      return [from + 1, from + 2];
    });
    expect(await Promise.all([ids.next(kindNamed('issue')), ids.next(kindNamed('poi')), ids.next(kindNamed('issue')), ids.next(kindNamed('issue'))])).toEqual([
      1, 1, 2, 3,
    ]);
  });

  it('fails the creates waiting on a block that could not be taken, and tries again for the next', async () => {
    let calls = 0;
    const ids = new IdBlocks(async () => {
      calls++;
      if (calls === 1) throw new Error('the connection was lost');
      return [7, 8];
    });
    const issue = kindNamed('issue');
    const first = await Promise.allSettled([ids.next(issue), ids.next(issue)]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((first[0] as PromiseRejectedResult).reason)).toContain('the connection was lost');
    expect(await ids.next(issue)).toBe(7);
    expect(calls).toBe(2);
  });

  it('refuses an empty block instead of waiting forever', async () => {
    const ids = new IdBlocks(async () => []);
    await expect(ids.next(kindNamed('issue'))).rejects.toThrow(/No ids were taken/);
  });
});

const targets = dbTargets().flatMap((t) =>
  t.name === 'postgres'
    ? [
        { ...t, sole: 'on' },
        { ...t, sole: 'off' },
      ]
    : [{ ...t, sole: 'on' }],
);

describe.each(targets)('creates sent together, more than a block of ids, on $name (SOLE_WRITER $sole)', (target) => {
  const s = useTestServer(target, { SOLE_WRITER: target.sole });
  let token: string;
  beforeAll(async () => {
    token = await s.login(ALICE.username, ALICE.password);
  });

  it('each get an id of their own, stored under the id answered, with the folder derived from it', async () => {
    const n = ID_BLOCK + 8;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        s.request('POST', '/api/vtp/issueRecord', {
          token,
          body: { issueDate: `2026-11-21 10:${String(i % 60).padStart(2, '0')}:00`, issueDescription: `block ${i}` },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(n).fill(200));
    const ids = answers.map((a) => a.body.data.id as number);
    expect(new Set(ids).size).toBe(n);
    if (target.name === 'postgres') {
      // The sole writer took whole blocks, and holds ids not used yet; any other writer took one id a create.
      const { rows } = await sql<{ last: string }>`SELECT last_value AS last FROM rec_issue_id_seq`.execute(s.app.db.kysely);
      const unused = Number(rows[0]?.last) - Math.max(...ids);
      if (target.sole === 'on') expect(unused).toBeGreaterThan(0);
      else expect(unused).toBe(0);
    }
    for (const [i, answer] of answers.entries()) {
      const stored = await s.request('GET', `/api/vtp/issueRecord/${ids[i]}`, { token });
      expect(stored.body.data.issueDescription).toBe(`block ${i}`);
      // The attachment folder is derived from the id before the record is written.
      expect(stored.body.data).toEqual(answer.body.data);
      expect(stored.body.data.attachmentFolder).toContain(`/Issue_${ids[i]}_`);
    }
  });
});
