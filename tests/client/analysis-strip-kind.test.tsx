import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLanguage } from '../../src/client/i18n';
import { RecordDetail } from '../../src/client/engine/record-detail';
import { registry } from '../../src/client/engine/registry';
import { detailExtras } from '../../src/client/kinds/extensions';
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
  afterEach(async () => {
    await applyLanguage('en');
  });

  it('shows on any kind that declares x-kind.analysis, reading the fields it names, and on no other', async () => {
    const kind = inspectionKind();
    expect(kind.meta.analysis?.analysisStatus).toBe('modelStatus');
    expect(detailExtras(registry.get('poi') as Kind).topSections).toEqual([]);
    fakeFetch({
      [`GET /api${kind.meta.apiPath}/5`]: () => ({
        body: { code: 200, data: { id: 5, projectName: 'P1', vehicleNo: 'V1', modelStatus: 'DOING', blurStatus: 'DONE' } },
      }),
      'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
    });
    render(
      <MemoryRouter>
        <ToastProvider>
          <RecordDetail kind={kind} id="5" {...detailExtras(kind)} />
        </ToastProvider>
      </MemoryRouter>,
    );
    expect(await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 })).toHaveClass('status-doing');
    expect(screen.getByTestId('status-Desensitization')).toHaveClass('status-done');
  });

  it("has the sheet say the named fields' stored words in the language on screen (docs/decisions/045)", async () => {
    await applyLanguage('zh');
    const kind = inspectionKind();
    fakeFetch({
      [`GET /api${kind.meta.apiPath}/6`]: () => ({ body: { code: 200, data: { id: 6, projectName: 'P1', vehicleNo: 'V1', modelStatus: 'DOING' } } }),
      'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
    });
    render(
      <MemoryRouter>
        <ToastProvider>
          <RecordDetail kind={kind} id="6" {...detailExtras(kind)} />
        </ToastProvider>
      </MemoryRouter>,
    );
    fireEvent.click(await screen.findByRole('button', { name: /由服务器设置的字段/ }, { timeout: 15_000 }));
    expect(document.getElementById('root_modelStatus')).toHaveTextContent('进行中');
  });
});
