import { Fragment, useMemo, useRef, type ReactNode } from 'react';
import Form from '@rjsf/primereact';
import type { ErrorSchema, ObjectFieldTemplateProps, RegistryWidgetsType, RJSFSchema, UiSchema, WidgetProps } from '@rjsf/utils';
import { FieldGroups, type FieldGroup } from './sections';
import { formValidator } from './form-validator';
import { ConnectorsWidget } from './widgets/connectors';
import { DateTextWidget } from './widgets/date-text';
import { ChipsWidget, SelectWidget, YesNoWidget } from './widgets/choices';
import { difference } from './widgets/widget-values';
import { SignedNumberWidget } from './widgets/signed-number';
import { LocationControl } from './location';
import type { LocationMeta } from '../../shared/kind-types';

/** A derived, never editable value such as Charge Distance: '{n} km' when positive, else N/A. */
function DerivedWidget({ id, options, registry }: WidgetProps) {
  const formData = (registry.formContext as { formData?: Record<string, unknown> } | undefined)?.formData;
  const n = difference(formData, options['difference']);
  return (
    <output id={id} className="p-inputtext p-component p-disabled w-full derived-value">
      {n !== null && n > 0 ? `${n} km` : 'N/A'}
    </output>
  );
}

// Its own chunk, loaded to edit or create; a detail screen first paints from record-summary.tsx.
const widgets: RegistryWidgetsType = {
  yesNo: YesNoWidget,
  dateText: DateTextWidget,
  derived: DerivedWidget,
  connectors: ConnectorsWidget,
  signedNumber: SignedNumberWidget,
  chips: ChipsWidget,
  SelectWidget,
};

/** What the form's templates read besides the schema: the values, and a way to change several at once. */
type FormContext = { formData: Record<string, unknown>; setValues?: (patch: Record<string, unknown>) => void };

/** The record's fields in their groups ('ui:groups'), a group with an error open; fields in no group (hidden) follow. */
function GroupedFields({ properties, uiSchema, errorSchema, disabled, registry, formData }: ObjectFieldTemplateProps) {
  const groups = uiSchema?.['ui:groups'] as FieldGroup[] | undefined;
  if (!groups) return <>{properties.map((p) => p.content)}</>;
  // A longitude of a pair (x-kind.locations) gets 'Use my position' above it, while editing.
  const context = registry.formContext as FormContext | undefined;
  const pairs = new Map(((uiSchema?.['ui:locations'] ?? []) as LocationMeta[]).map((p) => [p.lon, p]));
  const withLocation = (name: string, content: ReactNode): ReactNode => {
    const pair = pairs.get(name);
    if (!pair || disabled || !context?.setValues) return content;
    return (
      <Fragment key={name}>
        <LocationControl pair={pair} values={(formData ?? {}) as Record<string, unknown>} onChange={context.setValues} />
        {content}
      </Fragment>
    );
  };
  const byName = new Map(properties.map((p) => [p.name, p]));
  const grouped = new Set(groups.flatMap((g) => g.fields));
  const hasError = (f: string): boolean => ((errorSchema as Record<string, { __errors?: unknown[] }> | undefined)?.[f]?.__errors?.length ?? 0) > 0;
  return (
    <>
      <FieldGroups groups={groups} field={(f) => withLocation(f, byName.get(f)?.content)} open={hasError} />
      {properties.filter((p) => !grouped.has(p.name)).map((p) => p.content)}
    </>
  );
}

const templates = { ObjectFieldTemplate: GroupedFields };

/** The fields that derived fields are computed from (ui:options.difference), which their widgets read from the context. */
function derivedSources(uiSchema: UiSchema): string[] {
  return Object.values(uiSchema).flatMap((ui) => {
    const difference = (ui as { 'ui:options'?: { difference?: unknown } } | undefined)?.['ui:options']?.difference;
    return Array.isArray(difference) ? difference.map(String) : [];
  });
}

interface RecordFormProps {
  schema: RJSFSchema;
  uiSchema: UiSchema;
  values: Record<string, unknown>;
  editing: boolean;
  fieldErrors?: ErrorSchema | undefined;
  onChange: (values: Record<string, unknown>) => void;
  onSubmit: () => void;
}

/** The schema form of a record; it never blocks a save: the server validates. */
export function RecordForm({ schema, uiSchema, values, editing, fieldErrors, onChange, onSubmit }: RecordFormProps) {
  // A position arrives after the tap: it lands on the values as they are then, not as they were.
  const latest = useRef(values);
  latest.current = values;
  const change = useRef(onChange);
  change.current = onChange;
  // A context of all the values would re-render every field on each key (100 ms on a slow phone): only the mode and derived fields' sources change it.
  const sources = useMemo(() => derivedSources(uiSchema), [uiSchema]);
  const sourceValues = JSON.stringify(sources.map((f) => values[f] ?? null));
  const formContext = useMemo<FormContext>(
    () => ({
      formData: latest.current,
      ...(editing ? { setValues: (patch: Record<string, unknown>) => change.current({ ...latest.current, ...patch }) } : {}),
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- sourceValues: a new context (the values now) when a derived field's source changes
    [editing, sourceValues],
  );
  return (
    <Form
      schema={schema}
      uiSchema={uiSchema}
      formData={values}
      validator={formValidator}
      widgets={widgets}
      templates={templates}
      formContext={formContext}
      disabled={!editing}
      noValidate
      noHtml5Validate
      showErrorList={false}
      extraErrors={fieldErrors}
      onChange={(e) => editing && onChange(e.formData as Record<string, unknown>)}
      onSubmit={onSubmit}
    />
  );
}
