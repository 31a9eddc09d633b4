import { act, render, screen, waitFor } from '@testing-library/react';
import useSWR, { SWRConfig } from 'swr';
import { describe, expect, it } from 'vitest';
import { invalidateKind, recordKeys } from '../../src/client/api/records';
import { statsKeys } from '../../src/client/api/stats';

function List({ apiPath, fetcher }: { apiPath: string; fetcher: () => Promise<string> }) {
  const { data } = useSWR(recordKeys.list(apiPath, { pageNum: 1 }), fetcher);
  return <p data-testid={apiPath}>{data ?? '…'}</p>;
}

function Stats({ fetcher }: { fetcher: () => Promise<string> }) {
  const { data } = useSWR(statsKeys.total, fetcher);
  return <p data-testid="stats">{data ?? '…'}</p>;
}

describe('the client cache', () => {
  it('revalidates every list of a kind and the counts after a save of that kind, and leaves other kinds alone', async () => {
    let issues = 0;
    let pois = 0;
    let stats = 0;
    render(
      <SWRConfig value={{ dedupingInterval: 0 }}>
        <List apiPath="/vtp/issueRecord" fetcher={async () => `issues ${++issues}`} />
        <List apiPath="/vtp/poi" fetcher={async () => `pois ${++pois}`} />
        <Stats fetcher={async () => `stats ${++stats}`} />
      </SWRConfig>,
    );
    await waitFor(() => expect(screen.getByTestId('/vtp/issueRecord')).toHaveTextContent('issues 1'));
    await waitFor(() => expect(screen.getByTestId('stats')).toHaveTextContent('stats 1'));
    await act(() => invalidateKind('/vtp/issueRecord'));
    await waitFor(() => expect(screen.getByTestId('/vtp/issueRecord')).toHaveTextContent('issues 2'));
    await waitFor(() => expect(screen.getByTestId('stats')).toHaveTextContent('stats 2'));
    expect(screen.getByTestId('/vtp/poi')).toHaveTextContent('pois 1');
  });
});

describe('records opened before in this visit', () => {
  it('are remembered, the oldest dropped after 50, and all forgotten at sign-out', async () => {
    const { forgetRecords, rememberedRecord, rememberRecord } = await import('../../src/client/api/records');
    for (let i = 1; i <= 51; i++) rememberRecord('/vtp/poi', String(i), { id: i });
    expect(rememberedRecord('/vtp/poi', '1')).toBeUndefined();
    expect(rememberedRecord('/vtp/poi', '51')).toEqual({ id: 51 });
    await forgetRecords();
    expect(rememberedRecord('/vtp/poi', '51')).toBeUndefined();
  });
});

describe('the answers SWR keeps in memory', () => {
  it('are forgotten at sign-out with the remembered records, so the next user of the phone is shown none of them', async () => {
    const { forgetRecords } = await import('../../src/client/api/records');
    const { mutate } = await import('swr');
    // Read in the app's own (default) cache, as a screen of the signed-out user did.
    await mutate(recordKeys.record('/vtp/issueRecord', '5'), { record: { id: 5, issueTitle: 'Theirs' } }, { revalidate: false });
    await mutate(recordKeys.list('/vtp/issueRecord', { pageNum: 1 }), 'their list', { revalidate: false });
    const seen: unknown[] = [];
    function Probe() {
      const { data } = useSWR(recordKeys.record('/vtp/issueRecord', '5'), null);
      seen.push(data);
      return null;
    }
    // Sign-out forgets them before anyone can sign in again (SWR is imported when it is needed).
    await forgetRecords();
    render(<Probe />);
    expect(seen).toEqual([undefined]);
  });
});
