import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { format } from 'date-fns';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import { Dialog } from 'primereact/dialog';
import { useTranslation } from 'react-i18next';
import { t } from '../i18n';
import { formatCardValue } from '../engine/format';
import { fieldTitle } from '../i18n/kind-texts';
import type { KindRegistry } from '../../shared/kind-types';
import { uploadErrorText } from '../files/upload-errors';
import { outbox, waitingFiles, type OutboxItem, type WaitingFile } from '../outbox/store';
import { syncOutbox } from '../outbox/sync';
import { useOutbox, useWaitingFiles } from '../outbox/use-outbox';
import { PageHeader } from '../ui/page-header';
import { EmptyState } from '../ui/loading';
import { useToast } from '../ui/toast';
import { PAGE_BACK } from '../../shared/page-shell';

/** The item's title as its kind's cards show it (x-kind.card.title.field); none for a kind whose cards have a fixed title, or before the schemas load. */
function titleOf(item: OutboxItem, kinds: KindRegistry | undefined): string {
  const title = kinds?.get(item.kindName)?.meta.card.title;
  return title?.field === undefined ? '' : (formatCardValue(item.values[title.field], title.format) ?? '');
}

/** The fields the tester changed, by their titles in the language on screen (how many, before the schemas load). */
function fieldNames(item: OutboxItem, kinds: KindRegistry | undefined): string {
  const kind = kinds?.get(item.kindName);
  const fields = item.typed ?? Object.keys(item.values);
  if (fields.length === 0) return t('outbox.noFieldsChanged');
  if (!kind) return t('detail.fieldCount', { count: fields.length });
  return fields.map((f) => fieldTitle(kind, f)).join(t('outbox.chipJoin'));
}

function summary(item: OutboxItem, kinds: KindRegistry | undefined): string {
  const title = titleOf(item, kinds);
  const texts = {
    // A kind the catalogue does not name keeps its own name.
    kind: t(`outbox.kinds.${item.kindName}` as 'outbox.kinds.drive', { defaultValue: item.kindName }),
    title: title ? t('outbox.titled', { title: String(title) }) : '',
    fields: fieldNames(item, kinds),
  };
  return item.op === 'create' ? t('outbox.newItem', texts) : t('outbox.changesTo', { ...texts, id: String(item.recordId) });
}

/** The kinds' schemas (for the items' titles): they load with the record screens, not with this page. */
function useKindsLater(): KindRegistry | undefined {
  const [kinds, setKinds] = useState<KindRegistry | undefined>(undefined);
  useEffect(() => void import('../engine/registry').then((m) => setKinds(m.registry)), []);
  return kinds;
}

/**
 * A refused or conflicting change, made again on the current form (docs/decisions/034): a new record
 * opens prefilled (leaving the outbox once created), a change opens its record, which offers to
 * review it. Renamed fields land in their new names; fields the form no longer has are named.
 */
function useOpenInForm(): (item: OutboxItem) => Promise<void> {
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  return async (item) => {
    if (item.op === 'update') return navigate(`${item.route}/${String(item.recordId)}`);
    const [{ registry }, { onCurrentForm }] = await Promise.all([import('../engine/registry'), import('../engine/record-edits')]);
    const kind = registry.get(item.kindName);
    if (!kind) return toast('warn', t('outbox.kindGone'), item.kindName);
    const { values, dropped } = onCurrentForm(kind, item.values);
    if (dropped.length > 0) toast('warn', t('outbox.notOnForm'), dropped.map(([field, value]) => `${field}: ${JSON.stringify(value)}`).join('; '));
    navigate(`${kind.meta.route}/new`, { state: { prefill: values, fromOutbox: item.key } });
  };
}

function ChangeCard({ item, kinds, onOpen, onRemove }: { item: OutboxItem; kinds: KindRegistry | undefined; onOpen: () => void; onRemove: () => void }) {
  const { t } = useTranslation();
  return (
    <Card className="outbox-item">
      <div className="font-semibold">{summary(item, kinds)}</div>
      <div className="text-600 text-sm">
        {t('outbox.saved', { time: format(new Date(item.createdAt), 'yyyy-MM-dd HH:mm'), state: t(`outbox.${item.state}`) })}
      </div>
      {item.lastError && <div className="text-sm mt-1">{uploadErrorText(item.lastError)}</div>}
      <div className="flex gap-3">
        {item.state !== 'waiting' && <Button label={t('outbox.openInForm')} icon="pi pi-pencil" text size="small" className="mt-2 p-0" onClick={onOpen} />}
        <Button label={t('outbox.remove')} icon="pi pi-trash" text severity="danger" size="small" className="mt-2 px-2" onClick={onRemove} />
      </div>
    </Card>
  );
}

function FileCard({ file, onRemove }: { file: WaitingFile; onRemove: () => void }) {
  const { t } = useTranslation();
  return (
    <Card className="outbox-item">
      <div className="font-semibold">{file.name}</div>
      <div className="text-600 text-sm">
        {t('outbox.fileLine', {
          size: (file.blob.size / 1024 / 1024).toFixed(1),
          folder: file.folder || t('outbox.projectFolder'),
          time: format(new Date(file.createdAt), 'yyyy-MM-dd HH:mm'),
          state: t(file.state === 'waiting' ? 'outbox.waiting' : 'outbox.refused'),
        })}
      </div>
      {file.lastError && <div className="text-sm mt-1">{uploadErrorText(file.lastError)}</div>}
      <Button label={t('outbox.remove')} icon="pi pi-trash" text severity="danger" size="small" className="mt-2 px-2" onClick={onRemove} />
    </Card>
  );
}

function RemoveDialog({ header, text, onKeep, onRemove }: { header: string; text: string; onKeep: () => void; onRemove: () => void }) {
  const { t } = useTranslation();
  const footer = (
    <div className="flex gap-2">
      <Button label={t('outbox.keep')} outlined className="flex-1" onClick={onKeep} />
      <Button label={t('outbox.remove')} severity="danger" className="flex-1" onClick={onRemove} />
    </div>
  );
  return (
    <Dialog header={header} visible modal onHide={onKeep} footer={footer} style={{ width: 'min(26rem, calc(100vw - 1rem))' }}>
      <p className="m-0">{text}</p>
    </Dialog>
  );
}

/** Sends everything waiting again, refused and conflicting changes too, and says how it went. */
function useRetry(items: OutboxItem[], files: WaitingFile[]): { syncing: boolean; retry: () => Promise<void> } {
  const { t } = useTranslation();
  const toast = useToast();
  const [syncing, setSyncing] = useState(false);
  const retry = async (): Promise<void> => {
    setSyncing(true);
    try {
      for (const item of items) if (item.state !== 'waiting') await outbox.put({ ...item, state: 'waiting' });
      for (const file of files) if (file.state !== 'waiting') await waitingFiles.put({ ...file, state: 'waiting' });
      const { sent, waiting } = await syncOutbox();
      if (waiting > 0) toast('warn', t('outbox.stillWaiting'), t('outbox.sentRest', { sent }));
      else if (sent > 0) toast('success', t('outbox.allSent'));
    } finally {
      setSyncing(false);
    }
  };
  return { syncing, retry };
}

/** What waits on this phone to reach the server: each change, why it waits, retry and remove. */
export function OutboxPage() {
  const { t } = useTranslation();
  const items = useOutbox();
  const files = useWaitingFiles();
  const kinds = useKindsLater();
  const openInForm = useOpenInForm();
  const { syncing, retry } = useRetry(items, files);
  const [removing, setRemoving] = useState<OutboxItem | WaitingFile | null>(null);
  const retryButton = <Button label={t('outbox.retry')} icon="pi pi-refresh" size="small" loading={syncing} onClick={() => void retry()} />;

  return (
    <div className="page">
      <PageHeader title={t('pages.outbox')} back={PAGE_BACK.outbox} actions={items.length > 0 ? retryButton : undefined} />
      {items.length + files.length === 0 && <EmptyState icon="pi-check-circle" title={t('outbox.nothingWaiting')} text={t('outbox.allReached')} />}
      <div className="flex flex-column gap-2">
        {items.map((item) => (
          <ChangeCard key={item.key} item={item} kinds={kinds} onOpen={() => void openInForm(item)} onRemove={() => setRemoving(item)} />
        ))}
      </div>
      {files.length > 0 && (
        <div className="flex flex-column gap-2 mt-2">
          {files.map((file) => (
            <FileCard key={file.key} file={file} onRemove={() => setRemoving(file)} />
          ))}
        </div>
      )}
      {removing && (
        <RemoveDialog
          header={'op' in removing ? t('outbox.removeChange') : t('outbox.removeFile')}
          text={'op' in removing ? t('outbox.removeChangeText', { summary: summary(removing, kinds) }) : t('outbox.removeFileText', { name: removing.name })}
          onKeep={() => setRemoving(null)}
          onRemove={() => {
            void ('op' in removing ? outbox : waitingFiles).remove(removing.key);
            setRemoving(null);
          }}
        />
      )}
    </div>
  );
}
