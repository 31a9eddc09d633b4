import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import type { Kind, KindSchema } from '../../shared/kind-types';
import { buildRegistry } from '../../shared/kinds';
import { fillText } from '../../shared/page-shell';
import { formSchema, newRecordValues, uiSchema } from '../engine/form-schema';
import { RecordCard } from '../engine/record-card';
import { RecordForm } from '../engine/record-form';
import { RecordSummary } from '../engine/record-summary';
import { PageHeader } from '../ui/page-header';
import { ToastProvider } from '../ui/toast';
import { ScreenErrorBoundary } from '../ui/error-boundary';
import { PreviewBar, ProblemBox, useRestoredScroll } from './problems';
import { SAMPLE_ID, SAMPLE_PROJECT, SAMPLE_VEHICLE, sampleRecord } from './sample-values';
// The schema files, through the same Vite plugin that bundles them into the app.
import schemas from 'virtual:kind-schemas';

// The screens of each kind as the app draws them, from the real components, with sample values
// instead of records from a server. The kind and screen shown are in the address (#issue/view),
// so a reload after a saved schema file comes back to the same place.

const registry = buildRegistry(schemas as Record<string, KindSchema>);

const SECTIONS = [
  { key: 'card', label: 'List card' },
  { key: 'view', label: 'View' },
  { key: 'new', label: 'New' },
  { key: 'edit', label: 'Edit' },
] as const;
type Section = (typeof SECTIONS)[number]['key'];

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The kind and screen in the address: '#issue/view'; the first kind's card when it names none. */
function useShown(): { kind: Kind | undefined; section: Section } {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  const [name = '', part = ''] = decodeURIComponent(hash.slice(1)).split('/');
  const kind = registry.get(name) ?? registry.values().next().value;
  const section = SECTIONS.find((s) => s.key === part)?.key ?? 'card';
  return { kind, section };
}

const href = (kind: Kind, section: Section): string => `#${kind.name}/${section}`;
const go = (kind: Kind, section: Section): void => {
  window.location.hash = href(kind, section);
};

function CardScreen({ kind, sample }: { kind: Kind; sample: Record<string, unknown> }) {
  return (
    <div className="page">
      <PageHeader title={kind.meta.titles.list} />
      <div className="flex flex-column gap-2" data-testid="record-cards">
        <RecordCard kind={kind} row={sample} onOpen={() => go(kind, 'view')} />
        <RecordCard kind={kind} row={{ id: SAMPLE_ID + 1 }} onOpen={() => undefined} />
      </div>
      <p className="preview-note">The first card has sample values (press it for the record); the second has none, so it shows the fallbacks.</p>
    </div>
  );
}

function ViewScreen({ kind, sample }: { kind: Kind; sample: Record<string, unknown> }) {
  const { schema, ui } = useMemo(() => ({ schema: formSchema(kind), ui: uiSchema(kind) }), [kind]);
  const actions = (
    <>
      <Button icon="pi pi-refresh" rounded text aria-label="Refresh" />
      <Button label="Edit" icon="pi pi-pencil" size="small" onClick={() => go(kind, 'edit')} />
    </>
  );
  return (
    <div className="page">
      <PageHeader title={fillText(kind.meta.titles.detail, { id: SAMPLE_ID })} back={() => go(kind, 'card')} actions={actions} />
      <Card className="record-form">
        <RecordSummary schema={schema} uiSchema={ui} record={sample} />
      </Card>
      {kind.meta.attachments && (
        <p className="preview-note">Below this, the app shows the record&apos;s Attachments card (files in {kind.meta.attachments.folder}).</p>
      )}
    </div>
  );
}

/** The form with its own values, so that the preview's forms can be tried. */
function LiveForm({ kind, initial, isNew }: { kind: Kind; initial: Record<string, unknown>; isNew: boolean }) {
  const { schema, ui } = useMemo(() => ({ schema: formSchema(kind), ui: uiSchema(kind) }), [kind]);
  // As the record screen: a new record has no id yet.
  const formUi = isNew ? { ...ui, id: { 'ui:widget': 'hidden' } } : ui;
  const [values, setValues] = useState(initial);
  return <RecordForm schema={schema} uiSchema={formUi} values={values} editing onChange={setValues} onSubmit={() => undefined} />;
}

function FormScreen({ kind, sample, now, isNew }: { kind: Kind; sample: Record<string, unknown>; now: Date; isNew: boolean }) {
  const [startOnly, setStartOnly] = useState(false);
  const initial = useMemo(() => {
    if (!isNew) return sample;
    const { id: _id, ...rest } = sample;
    return newRecordValues(kind, now, startOnly ? { projectName: SAMPLE_PROJECT, vehicleNo: SAMPLE_VEHICLE } : rest);
  }, [isNew, kind, now, sample, startOnly]);
  const title = isNew ? kind.meta.titles.new : fillText(kind.meta.titles.detail, { id: SAMPLE_ID });
  return (
    <div className="page">
      <PageHeader title={title} back={() => go(kind, isNew ? 'card' : 'view')} />
      {isNew && (
        <label className="preview-toggle">
          <input type="checkbox" checked={startOnly} onChange={(e) => setStartOnly(e.target.checked)} />
          Only what a new record starts with (defaults and times)
        </label>
      )}
      <Card className="record-form">
        <LiveForm key={`${kind.name}:${isNew ? 'new' : 'edit'}:${String(startOnly)}`} kind={kind} initial={initial} isNew={isNew} />
      </Card>
      <p className="preview-note">Save and Cancel are left out: the preview saves nothing.</p>
    </div>
  );
}

/** The preview of every kind of the folder: its list card, record view, and new and edit forms. */
export function PreviewApp({ dir, files }: { dir: string; files: number }) {
  useRestoredScroll();
  const { kind, section } = useShown();
  // Another kind or screen starts at its top (a reload keeps its place: useRestoredScroll).
  const shown = useRef(`${kind?.name ?? ''}/${section}`);
  useEffect(() => {
    const now = `${kind?.name ?? ''}/${section}`;
    if (shown.current !== now) window.scrollTo(0, 0);
    shown.current = now;
  }, [kind, section]);
  const [now] = useState(() => new Date());
  const sample = useMemo(() => (kind ? sampleRecord(kind, now) : {}), [kind, now]);
  return (
    <ToastProvider>
      <PreviewBar dir={dir} files={files}>
        <nav className="preview-chips" aria-label="Kinds">
          {[...registry.values()].map((k) => (
            <a key={k.name} href={href(k, section)} className={`preview-chip${k === kind ? ' active' : ''}`} aria-current={k === kind ? 'page' : undefined}>
              {k.name}
            </a>
          ))}
        </nav>
      </PreviewBar>
      {kind && (
        <main className="preview-main">
          <nav className="preview-tabs" aria-label="Screens">
            {SECTIONS.map((s) => (
              <a
                key={s.key}
                href={href(kind, s.key)}
                className={`preview-tab${s.key === section ? ' active' : ''}`}
                aria-current={s.key === section ? 'page' : undefined}
              >
                {s.label}
              </a>
            ))}
          </nav>
          {/* A render error of one screen is shown in place, naming the file, rather than a blank page. */}
          <ScreenErrorBoundary
            key={`${kind.name}/${section}`}
            fallback={(error) => <ProblemBox file={kind.file} path={kind.file} messages={[`this screen could not be drawn: ${error.message}`]} />}
          >
            <section aria-label={`${SECTIONS.find((s) => s.key === section)?.label ?? ''} of ${kind.name}`} data-testid={`preview-${section}`}>
              {section === 'card' && <CardScreen kind={kind} sample={sample} />}
              {section === 'view' && <ViewScreen kind={kind} sample={sample} />}
              {section === 'new' && <FormScreen kind={kind} sample={sample} now={now} isNew />}
              {section === 'edit' && <FormScreen kind={kind} sample={sample} now={now} isNew={false} />}
            </section>
          </ScreenErrorBoundary>
        </main>
      )}
    </ToastProvider>
  );
}
