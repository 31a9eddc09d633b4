import { useState } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import { useToast } from '../../ui/toast';
import { ConnectorsTable } from './connectors-table';
import { parseConnectors, serializeConnectors, type Connector } from './widget-values';

export { parseConnectors, serializeConnectors, type Connector } from './widget-values';

const EMPTY: Connector = { type: '', power: '', total: '' };

/** The connector table: rows of type, power and total; rows are added and deleted in edit mode only. */
export function ConnectorsWidget({ id, value, disabled, readonly, onChange }: WidgetProps) {
  const { t } = useTranslation();
  const toast = useToast();
  const [row, setRow] = useState<Connector>(EMPTY);
  const connectors = parseConnectors(value);
  const editable = !disabled && !readonly;

  function add(): void {
    if (row.type.trim() === '' || row.power.trim() === '' || row.total.trim() === '') {
      toast('warn', t('connectors.incomplete'));
      return;
    }
    onChange(serializeConnectors([...connectors, { type: row.type.trim(), power: row.power.trim(), total: row.total.trim() }]));
    setRow(EMPTY);
  }

  return (
    <div id={id} className="connectors">
      <ConnectorsTable
        connectors={connectors}
        action={
          editable
            ? (i) => (
                <Button
                  type="button"
                  icon="pi pi-trash"
                  text
                  rounded
                  severity="danger"
                  aria-label={t('connectors.remove', { n: i + 1 })}
                  onClick={() => onChange(serializeConnectors(connectors.filter((_, j) => j !== i)))}
                />
              )
            : undefined
        }
      />
      {editable && (
        <div className="connectors-add">
          <InputText
            placeholder={t('connectors.type')}
            aria-label={t('connectors.typeLabel')}
            value={row.type}
            onChange={(e) => setRow({ ...row, type: e.target.value })}
          />
          <InputText
            placeholder={t('connectors.power')}
            aria-label={t('connectors.powerLabel')}
            value={row.power}
            onChange={(e) => setRow({ ...row, power: e.target.value })}
          />
          <InputText
            placeholder={t('connectors.total')}
            aria-label={t('connectors.totalLabel')}
            value={row.total}
            onChange={(e) => setRow({ ...row, total: e.target.value })}
          />
          <Button type="button" icon="pi pi-plus" aria-label={t('connectors.add')} onClick={add} />
        </div>
      )}
    </div>
  );
}
