import { t } from '../../i18n';
import { Card } from 'primereact/card';
import { attachmentFolderOf } from '../../../shared/attachments';
import type { DetailSectionProps } from '../../engine/record-detail';
import { FilePanel } from '../../files/file-panel';
import { PendingAttachments } from './pending-attachments';

/** Where the analysis workers put the blurred copies (docs/decisions/020): listed apart from the originals, in kinds with x-kind.analysis. */
const DESENSITIZED = 'desensitized';

/**
 * The 'Attachments' card of a kind with x-kind.attachments, in the folder the schema's rule names
 * (as the server and day packages have it), read-only unless editing; before a record is saved its
 * files wait on the phone. x-kind.attachments.filesStatus names the field told when files arrive.
 */
export function AttachmentsCard({ kind, record, editing, newRecordKey }: DetailSectionProps) {
  const id = record['id'];
  const saved = (typeof id === 'number' || typeof id === 'string') && id !== '';
  const folder = attachmentFolderOf(kind, record);
  const status = kind.meta.attachments?.filesStatus;
  const statusTarget =
    saved && status !== undefined
      ? { apiPath: kind.meta.apiPath, id, field: status.field, with: Object.fromEntries((status.with ?? []).map((f) => [f, record[f]])) }
      : undefined;
  const apart = kind.meta.analysis ? { name: DESENSITIZED, title: t('files.desensitized') } : undefined;
  return (
    <Card className="attachments-card">
      {saved && folder !== undefined ? (
        <FilePanel title={t('files.attachments')} path={folder} editable={editing} issue={statusTarget} apart={apart} />
      ) : (
        <section className="file-panel">
          <div className="file-panel-header">
            <h2 className="file-panel-title">{t('files.attachments')}</h2>
          </div>
          {newRecordKey ? <PendingAttachments createKey={newRecordKey} editing={editing} /> : <p className="attachments-note">{t('files.afterSaved')}</p>}
        </section>
      )}
    </Card>
  );
}
