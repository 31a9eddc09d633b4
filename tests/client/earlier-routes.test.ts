import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { learnedMove } from '../../src/client/api/app-info';

// decision 080: offline, the not-found screen follows the map of earlier routes the phone learned,
// as the server's 301 does: the rest of the path and the query kept; nothing else moves.
const segment = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const route = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/${s.join('/')}`);

function storeWith(routes: Record<string, string>): Storage {
  const store = new Map([['earlierRoutes', JSON.stringify(routes)]]);
  return { getItem: (k: string) => store.get(k) ?? null } as Storage;
}

describe('the learned map of earlier routes', () => {
  it('sends an earlier route and anything under it to the present route, the rest and the query kept', () => {
    fc.assert(
      fc.property(route, route, fc.array(segment, { maxLength: 3 }), fc.option(segment, { nil: undefined }), (from, to, rest, query) => {
        const tail = rest.map((r) => `/${r}`).join('') + (query === undefined ? '' : `?q=${query}`);
        expect(learnedMove(`${from}${tail}`, storeWith({ [from]: to }))).toBe(`${to}${tail}`);
      }),
    );
  });

  it('moves no address that is not the route or under it', () => {
    fc.assert(
      fc.property(route, route, segment, (from, to, extra) => {
        expect(learnedMove(`${from}${extra}`, storeWith({ [from]: to }))).toBeUndefined();
        expect(learnedMove(`/elsewhere${from}`, storeWith({ [from]: to }))).toBeUndefined();
      }),
    );
    expect(learnedMove('/data/problems/1', { getItem: () => null } as unknown as Storage)).toBeUndefined();
    expect(learnedMove('/data/problems/1', { getItem: () => '{not json' } as unknown as Storage)).toBeUndefined();
  });
});
