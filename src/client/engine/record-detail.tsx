import { useMemo, type ComponentProps, type ComponentType, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { kindText } from '../i18n/kind-texts';
import type { ErrorSchema } from '@rjsf/utils';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import type { Kind } from '../../shared/kind-types';
import { EmptyState, Loading } from '../ui/loading';
import { PageHeader } from '../ui/page-header';
import { formForRecord, formSchema, uiSchema } from './form-schema';
import { labelOf } from '../../shared/schema-evolution';
import { fillText as fill } from '../../shared/page-shell';
import { useRecordDetail } from './use-record-detail';
import { ConflictDialog } from './conflict-dialog';
import { Banner, OfflineLine } from '../ui/offline-line';
import { RecordSummary } from './record-summary';
import { RecordSheet, type ValueText } from './record-sheet';
import { loadRecordForm, useRecordForm } from './use-record-form';
import { useFormOutdated } from '../api/form-version';
import { checkForUpdates } from '../updates/update-check';
import type { Values } from './record-edits';

/** What a kind adds below its form (src/client/kinds), such as attachments. */
export interface DetailSectionProps {
  kind: Kind;
  record: Record<string, unknown>;
  editing: boolean;
  /** A new record's Idempotency-Key, under which what is attached before it exists is kept. */
  newRecordKey?: string | undefined;
  /** Fetches the record again, quietly and not while editing (sections watching server work). */
  reload?: (() => Promise<void>) | undefined;
}
export type DetailSection = ComponentType<DetailSectionProps>;

type Detail = ReturnType<typeof useRecordDetail>;

function DetailNotFound({ kind, id, text }: { kind: Kind; id: string; text: (path: string, schemaText: string) => string }) {
  const navigate = useNavigate();
  const { meta } = kind;
  return (
    <EmptyState
      icon="pi-search"
      title={text('texts.notFoundTitle', meta.texts.notFoundTitle)}
      text={fill(text('texts.notFoundText', meta.texts.notFoundText), { id })}
    >
      <Button label={text('texts.notFoundButton', meta.texts.notFoundButton)} icon="pi pi-arrow-left" onClick={() => navigate(meta.route)} />
    </EmptyState>
  );
}

/** The form's code is fetched as the tester reaches for Edit (touch, hover, focus): view mode runs none of it (decision 078). */
const prefetchForm = (): void => void loadRecordForm().catch(() => undefined);
const REACH_FOR_EDIT = { onPointerDown: prefetchForm, onPointerEnter: prefetchForm, onFocus: prefetchForm };

/** Viewing: refresh, and Edit (or, when the server has newer schema files, update first). */
function DetailActions({ outdated, onRefresh, onEdit, onUpdate }: { outdated: boolean; onRefresh: () => void; onEdit: () => void; onUpdate: () => void }) {
  const { t } = useTranslation();
  return (
    <>
      <Button icon="pi pi-refresh" rounded text aria-label={t('common.refresh')} onClick={onRefresh} />
      {outdated ? (
        <Button label={t('detail.updateToEdit')} icon="pi pi-download" size="small" onClick={onUpdate} />
      ) : (
        <Button label={t('detail.edit')} icon="pi pi-pencil" size="small" onClick={onEdit} {...REACH_FOR_EDIT} />
      )}
    </>
  );
}

function shownValue(kind: Kind, field: string, value: unknown, language: string): string {
  const text = labelOf(kind.schema.properties[field], value, language);
  return typeof value === 'string' && text === value ? `"${value}"` : text;
}

type Line = ComponentProps<typeof Banner> & { key: string; on: boolean };

/** The lines above the record: a parked change, an outdated form, a record waiting (or refused), old values (decisions 034, 054, 074). */
function DetailLines(p: { kind: Kind; detail: Detail; outdated: boolean; onUpdate: () => void; warnings: { title: string }[] }) {
  const { kind, detail: c, outdated, onUpdate, warnings } = p;
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const ready = c.state.status === 'ready' ? c.state : undefined;
  const waiting = ready?.waiting === true;
  const notSent = waiting ? ready.notSent : undefined;
  const warn = 'pi-exclamation-triangle text-orange-500';
  const upload = 'pi-cloud-upload text-orange-500';
  const info = 'pi-info-circle text-primary';
  const kept = (c.editing ? [] : (ready?.warnings ?? [])).flatMap((w) => (w.kept ? [{ ...w, kept: w.kept }] : []));
  const lines: Line[] = [
    {
      key: 'parked',
      on: c.parked !== null && !c.editing,
      testId: 'parked-line',
      icon: warn,
      text: t('detail.parkedLine', { reason: c.parked?.lastError || t('detail.parkedReason') }),
      action: t('detail.review'),
      onAction: () => void c.reviewParked(),
    },
    { key: 'outdated', on: outdated, testId: 'form-outdated', icon: info, text: t('detail.outdatedLine'), action: t('detail.updateNow'), onAction: onUpdate },
    { key: 'waiting-edit', on: c.waitingEdit && !c.editing, testId: 'waiting-edit-line', icon: upload, text: t('detail.waitingEditLine') },
    { key: 'waiting', on: waiting && notSent === undefined, testId: 'waiting-line', icon: upload, text: t('detail.waitingLine') },
    {
      key: 'not-sent',
      on: notSent !== undefined,
      testId: 'waiting-line',
      icon: warn,
      text: t('detail.notSentLine', { reason: notSent || t('detail.refusedReason') }),
      action: t('detail.openOutbox'),
      onAction: () => navigate('/outbox'),
    },
    {
      key: 'earlier',
      on: warnings.length > 0,
      role: 'note',
      testId: 'earlier-version-line',
      icon: info,
      text: t('detail.earlierVersionLine', { fields: warnings.map((w) => w.title).join(', ') }),
    },
    ...kept.map((w): Line => {
      const value = shownValue(kind, w.field, w.kept.value, i18n.language);
      const text = t('detail.keptValue', { title: w.title, key: w.kept.key, value });
      return { key: `${w.field}/${w.kept.key}`, on: true, role: 'note', testId: 'kept-value-line', icon: info, text };
    }),
  ];
  return lines.filter((l) => l.on).map(({ key, on: _on, ...line }) => <Banner key={key} {...line} />);
}

/** Edits kept beyond the form until Discard (060): values of fields the form no longer has (never sent), and a line while restored edits are kept. */
function KeptEdits({ left, kept, editing, onDiscard }: { left: Values; kept: boolean; editing: boolean; onDiscard: () => void }) {
  const { t } = useTranslation();
  const entries = Object.entries(left);
  const line = kept && !editing;
  if (entries.length === 0 && !line) return null;
  const text = (
    <>
      {line && <div>{t('detail.keptLine')}</div>}
      {entries.length > 0 && <div>{t('detail.leftTitle')}</div>}
      {entries.length > 0 && (
        <dl className="m-0" data-testid="left-fields">
          {entries.map(([field, value]) => (
            <div key={field} className="flex gap-2">
              <dt className="font-semibold">{field}</dt>
              <dd className="m-0">{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
  return <Banner role="note" testId="kept-edits" icon="pi-history text-orange-500" text={text} action={t('detail.discard')} onAction={onDiscard} />;
}

/** Editing: Cancel and Save at the thumb (Save waits for the form: nothing saved unseen), and the conflict dialog. */
function EditBar({ kind, detail: c, ready, creating }: { kind: Kind; detail: Detail; ready: boolean; creating: boolean }) {
  const { t } = useTranslation();
  return (
    <>
      {c.conflict && (
        <ConflictDialog kind={kind} conflict={c.conflict} saving={c.saving} onCancel={c.closeConflict} onResolve={(choices) => void c.resolve(choices)} />
      )}
      {c.editing && (
        <div className="edit-bar">
          <Button label={t('common.cancel')} outlined className="flex-1" onClick={c.cancel} disabled={c.saving} />
          <Button
            label={c.saving ? t('detail.saving') : t(creating ? 'detail.create' : 'detail.save')}
            icon={c.saving ? 'pi pi-spin pi-spinner' : 'pi pi-check'}
            className="flex-1"
            onClick={() => void c.save()}
            disabled={c.saving || !ready}
          />
        </div>
      )}
    </>
  );
}

type Form = ReturnType<typeof formForRecord>;
/** The form while editing (its summary until the form's chunk arrives), else the read-only sheet, the kind's sections under its key facts. */
function DetailBody(p: {
  kind: Kind;
  detail: Detail;
  form: Form;
  shown: Values;
  RecordForm: ReturnType<typeof useRecordForm>;
  valueText?: ValueText | undefined;
  children: ReactNode;
}) {
  const { kind, detail: c, form, shown, RecordForm, valueText, children } = p;
  if (!c.editing) {
    return (
      <RecordSheet kind={kind} schema={form.schema} uiSchema={form.uiSchema} record={shown} valueText={valueText}>
        {children}
      </RecordSheet>
    );
  }
  return (
    <>
      <Card className="record-form">
        {RecordForm ? (
          <RecordForm
            schema={form.schema}
            uiSchema={form.uiSchema}
            values={c.draft}
            editing
            fieldErrors={c.fieldErrors as ErrorSchema}
            onChange={c.setDraft}
            onSubmit={() => void c.save()}
          />
        ) : (
          <RecordSummary schema={form.schema} uiSchema={form.uiSchema} record={shown} />
        )}
      </Card>
      {children}
    </>
  );
}

/** The kind's schemas (titles and labels follow the language), the screen's title, its texts, and the way back (previous screen or list, as the kind says). */
function useDetailTexts(kind: Kind, id: string, creating: boolean) {
  const navigate = useNavigate();
  const { i18n } = useTranslation();
  const language = i18n.language;
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the schema's titles and the choices' labels follow the language
  const schemas = useMemo(() => ({ schema: formSchema(kind), ui: uiSchema(kind) }), [kind, language]);
  const { meta } = kind;
  const text = (path: string, schemaText: string): string => kindText(kind, path, schemaText);
  const title = creating ? text('titles.new', meta.titles.new) : fill(text('titles.detail', meta.titles.detail), { id });
  const goBack = (): void => {
    const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (meta.detailBack === 'previous' && idx > 0) navigate(-1);
    else navigate(meta.route);
  };
  return { ...schemas, title, goBack, text };
}

type RecordDetailProps = { kind: Kind; id: string; sections?: DetailSection[]; topSections?: DetailSection[]; valueText?: ValueText | undefined };

/** The detail screen of any kind, with the form built from its schema file. */
export function RecordDetail({ kind, id, sections = [], topSections = [], valueText }: RecordDetailProps) {
  const location = useLocation();
  const { prefill, fromOutbox } = (location.state as { prefill?: Record<string, unknown>; fromOutbox?: string } | null) ?? {};
  const c = useRecordDetail(kind, id, prefill, fromOutbox);
  const outdated = useFormOutdated();
  const RecordForm = useRecordForm(c.editing);
  const creating = c.isNew || id.startsWith('waiting~');
  const { schema, ui, title, goBack, text } = useDetailTexts(kind, id, creating);

  if (c.state.status !== 'ready') {
    return (
      <div className="page">
        <PageHeader title={title} back={goBack} />
        {c.state.status === 'loading' ? (
          <Loading text={text('texts.detailLoading', kind.meta.texts.detailLoading)} />
        ) : (
          <DetailNotFound kind={kind} id={id} text={text} />
        )}
      </div>
    );
  }

  const waiting = c.state.waiting === true;
  // The server has other schema files: update before editing (drafts and the outbox are kept).
  const update = (): void => void checkForUpdates();
  const actions = c.editing || waiting ? undefined : <DetailActions outdated={outdated} onRefresh={() => void c.refresh()} onEdit={c.edit} onUpdate={update} />;

  const baseUi = c.isNew ? { ...ui, id: { 'ui:widget': 'hidden' } } : ui;
  const { record } = c.state;
  const shown = c.editing ? c.draft : record;
  const form = formForRecord(kind, schema, baseUi, shown);
  const sectionViews = sections.map((Section, i) => <Section key={i} kind={kind} record={record} editing={c.editing} newRecordKey={c.newRecordKey} />);
  return (
    <div className="page">
      <PageHeader title={title} back={goBack} actions={actions} />
      {c.state.offlineSince !== undefined && <OfflineLine since={c.state.offlineSince} />}
      <DetailLines kind={kind} detail={c} outdated={outdated} onUpdate={update} warnings={c.isNew ? [] : form.warnings} />
      <KeptEdits left={c.left} kept={c.kept} editing={c.editing} onDiscard={c.discardKept} />
      {topSections.map((Section, i) => (
        <Section key={i} kind={kind} record={record} editing={c.editing} reload={c.reload} />
      ))}
      <DetailBody kind={kind} detail={c} form={form} shown={shown} RecordForm={RecordForm} valueText={valueText}>
        {sectionViews}
      </DetailBody>
      <EditBar kind={kind} detail={c} ready={RecordForm !== undefined} creating={creating} />
    </div>
  );
}
