import { useMemo, type ComponentType } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import Form from '@rjsf/primereact';
import type { ErrorSchema, RegistryWidgetsType } from '@rjsf/utils';
import { customizeValidator } from '@rjsf/validator-ajv8';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import { customFormats } from '../../shared/formats';
import type { Kind } from '../../shared/kind-types';
import { Loading } from '../ui/loading';
import { PageHeader } from '../ui/page-header';
import { formSchema, uiSchema } from './form-schema';
import { fill } from './registry';
import { useRecordDetail } from './use-record-detail';
import { ConflictDialog } from './conflict-dialog';
import { OfflineLine } from '../ui/offline-line';
import { ConnectorsWidget } from './widgets/connectors';
import { DateTextWidget } from './widgets/date-text';
import { DerivedWidget } from './widgets/derived';
import { YesNoWidget } from './widgets/yes-no';

// The form never blocks a save (SPEC.md section 5): the server validates and its message is shown.
const validator = customizeValidator({ customFormats, ajvOptionsOverrides: { strict: false } });
const widgets: RegistryWidgetsType = { yesNo: YesNoWidget, dateText: DateTextWidget, derived: DerivedWidget, connectors: ConnectorsWidget };

/** What a kind may add below its form (registered per kind in src/client/kinds), such as attachments. */
export interface DetailSectionProps {
  kind: Kind;
  record: Record<string, unknown>;
  editing: boolean;
  /** A new record's key (its Idempotency-Key): what is attached before it exists is kept under it. */
  newRecordKey?: string | undefined;
  /** Fetches the record again, quietly and not while editing: for sections that watch work done on the server. */
  reload?: (() => Promise<void>) | undefined;
}
export type DetailSection = ComponentType<DetailSectionProps>;

/** The detail screen of any kind, with the form built from its schema file. */
export function RecordDetail({ kind, id, sections = [], topSections = [] }: { kind: Kind; id: string; sections?: DetailSection[]; topSections?: DetailSection[] }) {
  const navigate = useNavigate();
  const location = useLocation();
  const prefill = (location.state as { prefill?: Record<string, unknown> } | null)?.prefill;
  const c = useRecordDetail(kind, id, prefill);
  const { meta } = kind;
  const schema = useMemo(() => formSchema(kind), [kind]);
  const ui = useMemo(() => uiSchema(kind), [kind]);

  const title = c.isNew || id.startsWith('waiting~') ? meta.titles.new : fill(meta.titles.detail, { id });
  const goBack = (): void => {
    const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (meta.detailBack === 'previous' && idx > 0) navigate(-1);
    else navigate(meta.route);
  };

  if (c.state.status === 'loading') {
    return (
      <div className="page">
        <PageHeader title={title} back={goBack} />
        <Loading text={meta.texts.detailLoading} />
      </div>
    );
  }
  if (c.state.status === 'notFound') {
    return (
      <div className="page">
        <PageHeader title={title} back={goBack} />
        <div className="empty-state">
          <i className="pi pi-search text-4xl text-400" aria-hidden="true" />
          <h2 className="text-xl mb-1">{meta.texts.notFoundTitle}</h2>
          <p className="text-600 mt-0">{fill(meta.texts.notFoundText, { id })}</p>
          <Button label={meta.texts.notFoundButton} icon="pi pi-arrow-left" onClick={() => navigate(meta.route)} />
        </div>
      </div>
    );
  }

  // Viewing: refresh and Edit in the header. Editing: Cancel and Save in a bar at the thumb.
  const waiting = c.state.status === 'ready' && c.state.waiting === true;
  const actions = c.editing || waiting ? undefined : (
    <>
      <Button icon="pi pi-refresh" rounded text aria-label="Refresh" onClick={() => void c.refresh()} />
      <Button label="Edit" icon="pi pi-pencil" size="small" onClick={c.edit} />
    </>
  );

  return (
    <div className="page">
      <PageHeader title={title} back={goBack} actions={actions} />
      {c.state.status === 'ready' && c.state.offlineSince !== undefined && <OfflineLine since={c.state.offlineSince} />}
      {c.parked && !c.editing && (
        <div className="filter-banner" role="status" data-testid="parked-line">
          <i className="pi pi-exclamation-triangle text-orange-500" aria-hidden="true" />
          <span className="flex-1">A change saved on this phone was not sent: {c.parked.message || 'someone changed the same fields'}</span>
          <Button label="Review" link size="small" onClick={() => void c.reviewParked()} />
        </div>
      )}
      {waiting && (
        <div className="filter-banner" role="status" data-testid="waiting-line">
          <i className="pi pi-cloud-upload text-orange-500" aria-hidden="true" />
          <span className="flex-1">Waiting to sync: saved on this phone, sent when the network returns</span>
        </div>
      )}
      {topSections.map((Section, i) => (
        <Section key={i} kind={kind} record={c.state.status === 'ready' ? c.state.record : {}} editing={c.editing} reload={c.reload} />
      ))}
      <Card className="record-form">
        <Form
          schema={schema}
          uiSchema={c.isNew ? { ...ui, id: { 'ui:widget': 'hidden' } } : ui}
          formData={c.editing ? c.draft : c.state.record}
          validator={validator}
          widgets={widgets}
          formContext={{ formData: c.editing ? c.draft : c.state.record }}
          disabled={!c.editing}
          noValidate
          noHtml5Validate
          showErrorList={false}
          extraErrors={c.editing ? (c.fieldErrors as ErrorSchema) : undefined}
          onChange={(e) => c.editing && c.setDraft(e.formData as Record<string, unknown>)}
          onSubmit={() => void c.save()}
        />
      </Card>
      {sections.map((Section, i) => (
        <Section key={i} kind={kind} record={c.state.status === 'ready' ? c.state.record : {}} editing={c.editing} newRecordKey={c.newRecordKey} />
      ))}
      {c.conflict && (
        <ConflictDialog conflicts={c.conflict.conflicts} changedBy={c.conflict.changedBy} saving={c.saving} onCancel={c.closeConflict} onResolve={(choices) => void c.resolve(choices)} />
      )}
      {c.editing && (
        <div className="edit-bar">
          <Button label="Cancel" outlined className="flex-1" onClick={c.cancel} disabled={c.saving} />
          <Button
            label={c.saving ? 'Saving...' : 'Save Changes'}
            icon={c.saving ? 'pi pi-spin pi-spinner' : 'pi pi-check'}
            className="flex-1"
            onClick={() => void c.save()}
            disabled={c.saving}
          />
        </div>
      )}
    </div>
  );
}
