import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { format } from 'date-fns';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import { Dialog } from 'primereact/dialog';
import { outbox, waitingFiles, type OutboxItem, type WaitingFile } from '../outbox/store';
import { syncOutbox } from '../outbox/sync';
import { useOutbox, useWaitingFiles } from '../outbox/use-outbox';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';
import { PAGE_BACK, PAGE_TITLES } from '../../shared/page-shell';

const STATE_TEXT: Record<OutboxItem['state'], string> = {
  waiting: 'Waiting to sync',
  conflict: 'Changed by someone else: open the record',
  refused: 'Refused by the server',
};

function summary(item: OutboxItem): string {
  const title = item.values['issueTitle'] ?? item.values['title'] ?? item.values['driveRecordNo'] ?? '';
  const fields = Object.keys(item.values).length;
  return `${item.op === 'create' ? 'New' : `Changes to #${item.recordId}`} ${item.kindName}${title ? `: ${String(title)}` : ''} (${fields} ${fields === 1 ? 'field' : 'fields'})`;
}

/** What waits on this phone to reach the server: each change, why it waits, retry and remove. */
export function OutboxPage() {
  const items = useOutbox();
  const files = useWaitingFiles();
  const toast = useToast();
  const navigate = useNavigate();
  const [syncing, setSyncing] = useState(false);
  const [removing, setRemoving] = useState<OutboxItem | null>(null);
  const [removingFile, setRemovingFile] = useState<WaitingFile | null>(null);

  // A refused or conflicting change, made again on the current form (docs/decisions/034): a new
  // record opens prefilled, and leaves the outbox once it is created; a change to a record opens
  // that record, whose screen offers to review it. Fields renamed since land in their new names;
  // fields the form no longer has are named with their values.
  const openInForm = async (item: OutboxItem): Promise<void> => {
    if (item.op === 'update') {
      navigate(`${item.route}/${String(item.recordId)}`);
      return;
    }
    // The kinds' schemas load with the record screens, not with this page.
    const [{ registry }, { onCurrentForm }] = await Promise.all([import('../engine/registry'), import('../engine/record-edits')]);
    const kind = registry.get(item.kindName);
    if (!kind) {
      toast('warn', 'This kind of record is not on this app any more', item.kindName);
      return;
    }
    const { values, dropped } = onCurrentForm(kind, item.values);
    if (dropped.length > 0) toast('warn', 'Not on the current form', dropped.map(([field, value]) => `${field}: ${JSON.stringify(value)}`).join('; '));
    navigate(`${kind.meta.route}/new`, { state: { prefill: values, fromOutbox: item.key } });
  };

  const retry = async (): Promise<void> => {
    setSyncing(true);
    try {
      // A change parked as refused or conflicting is tried again too.
      for (const item of items) if (item.state !== 'waiting') await outbox.put({ ...item, state: 'waiting' });
      for (const file of files) if (file.state !== 'waiting') await waitingFiles.put({ ...file, state: 'waiting' });
      const { sent, waiting } = await syncOutbox();
      if (waiting > 0) toast('warn', 'Still waiting', `${sent} sent; the rest is sent when the network returns`);
      else if (sent > 0) toast('success', 'Everything is sent');
    } finally {
      setSyncing(false);
    }
  };

  return (
    <div className="page">
      <PageHeader title={PAGE_TITLES.outbox} back={PAGE_BACK.outbox} actions={items.length > 0 ? <Button label="Retry" icon="pi pi-refresh" size="small" loading={syncing} onClick={() => void retry()} /> : undefined} />
      {items.length + files.length === 0 && (
        <div className="empty-state">
          <i className="pi pi-check-circle text-4xl text-400" aria-hidden="true" />
          <p className="font-semibold mb-1">Nothing waiting</p>
          <p className="text-600 mt-0">Everything saved on this phone has reached the server.</p>
        </div>
      )}
      <div className="flex flex-column gap-2">
        {items.map((item) => (
          <Card key={item.key} className="outbox-item">
            <div className="font-semibold">{summary(item)}</div>
            <div className="text-600 text-sm">
              Saved {format(new Date(item.createdAt), 'yyyy-MM-dd HH:mm')} · {STATE_TEXT[item.state]}
            </div>
            {item.lastError && <div className="text-sm mt-1">{item.lastError}</div>}
            <div className="flex gap-3">
              {item.state !== 'waiting' && (
                <Button label="Open in the form" icon="pi pi-pencil" text size="small" className="mt-2 p-0" onClick={() => void openInForm(item)} />
              )}
              <Button label="Remove" icon="pi pi-trash" text severity="danger" size="small" className="mt-2 px-2" onClick={() => setRemoving(item)} />
            </div>
          </Card>
        ))}
      </div>
      {files.length > 0 && (
        <div className="flex flex-column gap-2 mt-2">
          {files.map((file) => (
            <Card key={file.key} className="outbox-item">
              <div className="font-semibold">{file.name}</div>
              <div className="text-600 text-sm">
                {(file.blob.size / 1024 / 1024).toFixed(1)} MB for {file.folder || 'the project folder'} · saved {format(new Date(file.createdAt), 'yyyy-MM-dd HH:mm')} ·{' '}
                {file.state === 'waiting' ? 'Waiting to sync' : 'Refused by the server'}
              </div>
              {file.lastError && <div className="text-sm mt-1">{file.lastError}</div>}
              <Button label="Remove" icon="pi pi-trash" text severity="danger" size="small" className="mt-2 px-2" onClick={() => setRemovingFile(file)} />
            </Card>
          ))}
        </div>
      )}
      {removingFile && (
        <Dialog
          header="Remove this file?"
          visible
          modal
          onHide={() => setRemovingFile(null)}
          style={{ width: 'min(26rem, calc(100vw - 1rem))' }}
          footer={
            <div className="flex gap-2">
              <Button label="Keep it" outlined className="flex-1" onClick={() => setRemovingFile(null)} />
              <Button
                label="Remove"
                severity="danger"
                className="flex-1"
                onClick={() => {
                  void waitingFiles.remove(removingFile.key);
                  setRemovingFile(null);
                }}
              />
            </div>
          }
        >
          <p className="m-0">It has never reached the server. Removing it deletes {removingFile.name} from this phone for good.</p>
        </Dialog>
      )}
      {removing && (
        <Dialog
          header="Remove this change?"
          visible
          modal
          onHide={() => setRemoving(null)}
          style={{ width: 'min(26rem, calc(100vw - 1rem))' }}
          footer={
            <div className="flex gap-2">
              <Button label="Keep it" outlined className="flex-1" onClick={() => setRemoving(null)} />
              <Button
                label="Remove"
                severity="danger"
                className="flex-1"
                onClick={() => {
                  void outbox.remove(removing.key);
                  setRemoving(null);
                }}
              />
            </div>
          }
        >
          <p className="m-0">It has never reached the server. Removing it loses: {summary(removing)}.</p>
        </Dialog>
      )}
    </div>
  );
}
