import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { RecordDetail } from '../../src/client/engine/record-detail';
import { registry } from '../../src/client/engine/registry';
import { detailTopSections } from '../../src/client/kinds/extensions';
import type { Kind, KindSchema } from '../../src/shared/kind-types';
import { toKind } from '../../src/shared/kinds';
import { ToastProvider } from '../../src/client/ui/toast';
import { fakeFetch } from './fake-server';

/** The issue kind as an admin might copy it for inspections, its analysis fields named otherwise. */
function inspectionKind(): Kind {
  const issue = (registry.get('issue') as Kind).schema;
  const renamed = JSON.stringify(issue)
    .replaceAll('"videoAnalysisStatus"', '"modelStatus"')
    .replaceAll('"videoDesensitizationStatus"', '"blurStatus"')
    .replaceAll('"/vtp/issueRecord"', '"/vtp/inspection"');
  const schema = JSON.parse(renamed) as KindSchema;
  return toKind('inspection', schema);
}

describe('the analysis strip', () => {
  it('shows on any kind that declares x-kind.analysis, reading the fields it names, and on no other', async () => {
    const kind = inspectionKind();
    expect(kind.meta.analysis?.analysisStatus).toBe('modelStatus');
    expect(detailTopSections(registry.get('poi') as Kind)).toEqual([]);
    fakeFetch({
      [`GET /api${kind.meta.apiPath}/5`]: () => ({
        body: { code: 200, data: { id: 5, projectName: 'P1', vehicleNo: 'V1', modelStatus: 'DOING', blurStatus: 'DONE' } },
      }),
      'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
    });
    render(
      <MemoryRouter>
        <ToastProvider>
          <RecordDetail kind={kind} id="5" topSections={detailTopSections(kind)} />
        </ToastProvider>
      </MemoryRouter>,
    );
    expect(await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 })).toHaveClass('status-doing');
    expect(screen.getByTestId('status-Desensitization')).toHaveClass('status-done');
  });
});
