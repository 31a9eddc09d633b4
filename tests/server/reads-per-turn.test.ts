import { describe, expect, it } from 'vitest';
import { ReadsPerTurn } from '../../src/server/records/store/days.js';

// Decision 031: on SQLite the generation before a list answer is read once per turn of the event
// loop, after the turn's I/O, for every list that asked during the turn.
describe('ReadsPerTurn', () => {
  it('reads once per turn and per records for all who asked, after the turn, so a write acknowledged meanwhile is seen', async () => {
    let gen = 1;
    const reads: string[] = [];
    const perTurn = new ReadsPerTurn((kind, project) => {
      reads.push(`${kind} ${project}`);
      return gen;
    });
    const first = perTurn.generation('issue', 'P1');
    const second = perTurn.generation('issue', 'P1');
    const other = perTurn.generation('issue', 'P2');
    const poi = perTurn.generation('poi', 'P1');
    // A write acknowledged later in the same turn, before the read: those who asked see it.
    gen = 2;
    expect(await first).toBe(2);
    expect(await second).toBe(2);
    expect(await other).toBe(2);
    expect(await poi).toBe(2);
    expect(reads.sort()).toEqual(['issue P1', 'issue P2', 'poi P1']);
    // The next turn reads again.
    const later = perTurn.generation('issue', 'P1');
    gen = 3;
    expect(await later).toBe(3);
    expect(reads).toHaveLength(4);
  });

  it('hands a failed read, or one that waits for the database, to each who asked', async () => {
    let fail = true;
    const perTurn = new ReadsPerTurn(() => {
      if (fail) throw new Error('database is locked');
      return Promise.resolve(7);
    });
    const a = perTurn.generation('issue', 'P1');
    const b = perTurn.generation('issue', 'P1');
    await expect(a).rejects.toThrow('database is locked');
    await expect(b).rejects.toThrow('database is locked');
    fail = false;
    expect(await perTurn.generation('issue', 'P1')).toBe(7);
  });
});
