import Form from '@rjsf/primereact';
import type { ErrorSchema, ObjectFieldTemplateProps, RegistryWidgetsType, RJSFSchema, UiSchema } from '@rjsf/utils';
import { FieldSection, type FieldGroup } from './sections';
import { formValidator } from './form-validator';
import { ConnectorsWidget } from './widgets/connectors';
import { DateTextWidget } from './widgets/date-text';
import { DerivedWidget } from './widgets/derived';
import { YesNoWidget } from './widgets/yes-no';
import { SelectWidget } from './widgets/select';

// Its own chunk (RJSF and the PrimeReact widgets): loaded when a record is edited or created, so
// a detail screen first paints from the light summary (record-summary.tsx).
const widgets: RegistryWidgetsType = { yesNo: YesNoWidget, dateText: DateTextWidget, derived: DerivedWidget, connectors: ConnectorsWidget, SelectWidget };

/**
 * The record's fields in the groups of its schema ('ui:groups': key fields first, then the
 * x-kind.sections, titled and folding); a group with a field in error is open. Fields in no group
 * (hidden ones) follow, as RJSF renders them.
 */
export function GroupedFields({ properties, uiSchema, errorSchema }: ObjectFieldTemplateProps) {
  const groups = uiSchema?.['ui:groups'] as FieldGroup[] | undefined;
  if (!groups) return <>{properties.map((p) => p.content)}</>;
  const byName = new Map(properties.map((p) => [p.name, p]));
  const grouped = new Set(groups.flatMap((g) => g.fields));
  const hasError = (f: string): boolean => ((errorSchema as Record<string, { __errors?: unknown[] }> | undefined)?.[f]?.__errors?.length ?? 0) > 0;
  return (
    <>
      {groups.map((g, i) => {
        const content = g.fields.map((f) => byName.get(f)?.content);
        return g.title === undefined ? (
          <div key={i} className="field-group">
            {content}
          </div>
        ) : (
          <FieldSection key={i} title={g.title} collapsed={g.collapsed} open={g.fields.some(hasError)} count={g.fields.length}>
            {content}
          </FieldSection>
        );
      })}
      {properties.filter((p) => !grouped.has(p.name)).map((p) => p.content)}
    </>
  );
}

export interface RecordFormProps {
  schema: RJSFSchema;
  uiSchema: UiSchema;
  values: Record<string, unknown>;
  editing: boolean;
  fieldErrors?: ErrorSchema | undefined;
  onChange: (values: Record<string, unknown>) => void;
  onSubmit: () => void;
}

/** The schema form of a record. It never blocks a save (docs/PRODUCT.md section 4, record detail): the server validates and its message is shown. */
export function RecordForm({ schema, uiSchema, values, editing, fieldErrors, onChange, onSubmit }: RecordFormProps) {
  return (
    <Form
      schema={schema}
      uiSchema={uiSchema}
      formData={values}
      validator={formValidator}
      widgets={widgets}
      templates={{ ObjectFieldTemplate: GroupedFields }}
      formContext={{ formData: values }}
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
