import { Card } from 'primereact/card';
import { issueAttachmentFolder } from '../../../shared/attachments';
import type { DetailSectionProps } from '../../engine/record-detail';
import { FilePanel } from './file-panel';
import { PendingAttachments } from './pending-attachments';

type IssueFields = Parameters<typeof issueAttachmentFolder>[0];

/** Where the analysis workers put the blurred copies (docs/decisions/020): listed apart from the originals. */
const DESENSITIZED = { name: 'desensitized', title: 'Desensitized copies' };

/**
 * The issue's 'Attachments' card (SPEC.md section 2). The folder comes from the shared rule, so
 * the browser, the server and the day packages agree on it. Read-only unless the issue is in
 * edit mode. A new issue has no folder until it is saved: what is attached before waits on the phone.
 */
export function AttachmentsCard({ record, editing, newRecordKey }: DetailSectionProps) {
  const id = record['id'];
  const saved = (typeof id === 'number' || typeof id === 'string') && id !== '';
  return (
    <Card className="attachments-card">
      {saved ? (
        <FilePanel title="Attachments" path={issueAttachmentFolder(record as IssueFields)} editable={editing} issue={{ id, taskId: record['taskId'] }} apart={DESENSITIZED} />
      ) : (
        <section className="file-panel">
          <div className="file-panel-header">
            <h2 className="file-panel-title">Attachments</h2>
          </div>
          {newRecordKey ? (
            <PendingAttachments createKey={newRecordKey} editing={editing} />
          ) : (
            <p className="attachments-note">Photos, videos and voice notes can be added after the issue is saved.</p>
          )}
        </section>
      )}
    </Card>
  );
}
