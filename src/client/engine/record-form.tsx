import Form from '@rjsf/primereact';
import type { ErrorSchema, RegistryWidgetsType, RJSFSchema, UiSchema } from '@rjsf/utils';
import { formValidator } from './form-validator';
import { ConnectorsWidget } from './widgets/connectors';
import { DateTextWidget } from './widgets/date-text';
import { DerivedWidget } from './widgets/derived';
import { YesNoWidget } from './widgets/yes-no';
import { SelectWidget } from './widgets/select';

// Its own chunk (RJSF and the PrimeReact widgets): loaded when a record is edited or created, so
// a detail screen first paints from the light summary (record-summary.tsx).
const widgets: RegistryWidgetsType = { yesNo: YesNoWidget, dateText: DateTextWidget, derived: DerivedWidget, connectors: ConnectorsWidget, SelectWidget };

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
