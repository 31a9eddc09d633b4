import { useState } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import { useToast } from '../../ui/toast';
import { ConnectorsTable } from './connectors-table';
import { parseConnectors, serializeConnectors, type Connector } from './widget-values';

const EMPTY: Connector = { type: '', power: '', total: '' };
const COLUMNS = ['type', 'power', 'total'] as const;

/** The connector table: rows of type, power and total; rows are added and deleted in edit mode only. */
export function ConnectorsWidget({ id, value, disabled, readonly, onChange }: WidgetProps) {
  const { t } = useTranslation();
  const toast = useToast();
  const [row, setRow] = useState<Connector>(EMPTY);
  const connectors = parseConnectors(value);
  const editable = !disabled && !readonly;

  function add(): void {
    const added = { type: row.type.trim(), power: row.power.trim(), total: row.total.trim() };
    if (COLUMNS.some((c) => added[c] === '')) return toast('warn', t('connectors.incomplete'));
    onChange(serializeConnectors([...connectors, added]));
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
          {COLUMNS.map((c) => (
            <InputText
              key={c}
              placeholder={t(`connectors.${c}`)}
              aria-label={t(`connectors.${c}Label`)}
              value={row[c]}
              onChange={(e) => setRow({ ...row, [c]: e.target.value })}
            />
          ))}
          <Button type="button" icon="pi pi-plus" aria-label={t('connectors.add')} onClick={add} />
        </div>
      )}
    </div>
  );
}
