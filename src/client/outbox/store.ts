import { openDB, type IDBPDatabase } from 'idb';

type Values = Record<string, unknown>;

/** A change kept on the phone until it reaches the server: a create with its Idempotency-Key, an update with its base version (409: conflict). */
export interface OutboxItem {
  /** Also the Idempotency-Key of a create: owner, kind and a random id. */
  key: string;
  owner: string;
  kindName: string;
  apiPath: string;
  /** The list screen of the kind, for links. */
  route: string;
  op: 'create' | 'update';
  recordId?: number;
  /** A create: every value; an update: the changed fields (null clears). */
  values: Values;
  /** A create: the fields the tester changed from the new record's starting values (the outbox names them). */
  typed?: string[];
  baseVersion?: number;
  /** A create: the field of the answer that names the record's attachment folder (null: none; missing: before decision 041). */
  folderField?: string | null;
  /** A create: the schema files of the form it was typed on, sent with it: no default for a field that form never showed (decision 074). */
  schemasVersion?: string;
  createdAt: number;
  attempts: number;
  /** waiting: will be sent; conflict: someone changed the same fields (open the record); refused: the server said no. */
  state: 'waiting' | 'conflict' | 'refused';
  lastError?: string;
}

/** A photo, video or voice note whose upload could not reach the server: kept here until it can. */
export interface WaitingFile extends Pick<OutboxItem, 'key' | 'owner' | 'createdAt' | 'lastError'> {
  folder: string;
  name: string;
  type: string;
  blob: Blob;
  /** A resumable session already started for it (large files), so a later sync goes on from there. */
  uploadUrl?: string;
  /** Attached to a record not yet created: the create's key; its folder is known once the record exists. */
  createKey?: string;
  state: 'waiting' | 'refused';
}

const CHANGED = 'rtd-outbox-changed';
let dbPromise: Promise<IDBPDatabase> | undefined;

function db(): Promise<IDBPDatabase> {
  dbPromise ??= openDB('rtd-outbox', 4, {
    upgrade(d, oldVersion) {
      if (oldVersion < 1) d.createObjectStore('items', { keyPath: 'key' }).createIndex('owner', 'owner');
      if (oldVersion < 2) d.createObjectStore('files', { keyPath: 'key' }).createIndex('owner', 'owner');
      if (oldVersion < 3) d.createObjectStore('auth');
      if (oldVersion < 4) d.createObjectStore('created', { keyPath: 'key' });
    },
  });
  return dbPromise;
}

/** Tells this tab's lists and chip that the outbox changed (the service worker tells pages by a message). */
export function changed(): void {
  globalThis.dispatchEvent(new Event(CHANGED));
}

export function onOutboxChange(callback: () => void): () => void {
  globalThis.addEventListener(CHANGED, callback);
  return () => globalThis.removeEventListener(CHANGED, callback);
}

/** A store of the user's entries: put, remove, get, and list oldest first (the order they are sent in); each change is told. */
function entries<T extends { key: string; owner: string; createdAt: number }>(store: 'items' | 'files') {
  const told = async (change: (d: IDBPDatabase) => Promise<unknown>): Promise<void> => {
    await change(await db());
    changed();
  };
  return {
    put: (value: T): Promise<void> => told((d) => d.put(store, value)),
    remove: (key: string): Promise<void> => told((d) => d.delete(store, key)),
    get: async (key: string) => (await (await db()).get(store, key)) as T | undefined,
    list: async (owner: string): Promise<T[]> => ((await (await db()).getAllFromIndex(store, 'owner', owner)) as T[]).sort((a, b) => a.createdAt - b.createdAt),
  };
}

export const outbox = entries<OutboxItem>('items');

const files = entries<WaitingFile>('files');

async function forCreate(owner: string, createKey: string, step: (d: IDBPDatabase, file: WaitingFile) => Promise<unknown>): Promise<void> {
  const d = await db();
  for (const file of await files.list(owner)) if (file.createKey === createKey) await step(d, file);
  changed();
}

export const waitingFiles = {
  ...files,
  /** The record a create made is known: its files get its folder and can go up. */
  resolveFolder: (owner: string, createKey: string, folder: string): Promise<void> =>
    forCreate(owner, createKey, (d, { createKey: _done, ...rest }) => d.put('files', { ...rest, folder })),
  /** Drops the files of a new record that was given up (Cancel). */
  removeForCreate: (owner: string, createKey: string): Promise<void> => forCreate(owner, createKey, (d, file) => d.delete('files', file.key)),
};

/** A record created by the sync: the key its create waited under, and the id the server gave it. */
export type CreatedRecord = Pick<OutboxItem, 'key' | 'owner' | 'kindName'> & { id: number; at: number };

const CREATED_KEPT_MS = 7 * 24 * 3600 * 1000;

/** The ids of records the sync created, by their create's key, so that a 'waiting~<key>' screen turns into the record; kept a week. */
export const createdRecords = {
  async put(record: CreatedRecord): Promise<void> {
    const d = await db();
    const tx = d.transaction('created', 'readwrite');
    for (const old of (await tx.store.getAll()) as CreatedRecord[]) if (old.at < record.at - CREATED_KEPT_MS) await tx.store.delete(old.key);
    await tx.store.put(record);
    await tx.done;
  },
  async get(key: string, owner: string): Promise<CreatedRecord | undefined> {
    const found = (await (await db()).get('created', key)) as CreatedRecord | undefined;
    return found?.owner === owner ? found : undefined;
  },
};

/** Who the outbox is sent as: the sign-in token, its user and the language on screen when saved, which the worker asks in (decision 045). */
type SyncAuth = { token: string; owner: string; language?: 'en' | 'zh' };

/** A copy of the sign-in for the service worker's Background Sync (local storage is out of its reach); removed at sign-out and on a 401. */
export const syncAuth = {
  async get(): Promise<SyncAuth | undefined> {
    const value = (await (await db()).get('auth', 'current')) as Partial<SyncAuth> | undefined;
    if (typeof value?.token !== 'string' || value.token === '' || typeof value.owner !== 'string') return undefined;
    return { token: value.token, owner: value.owner, ...(value.language === 'zh' || value.language === 'en' ? { language: value.language } : {}) };
  },
  async set(auth: SyncAuth): Promise<void> {
    await (await db()).put('auth', auth, 'current');
  },
  /** Forgets it; with a token given, only if it is still that one (a newer sign-in is kept). */
  async clear(token?: string): Promise<void> {
    const d = await db();
    const tx = d.transaction('auth', 'readwrite');
    const current = (await tx.store.get('current')) as Partial<SyncAuth> | undefined;
    if (token === undefined || current?.token === token) await tx.store.delete('current');
    await tx.done;
  },
};

/** A fresh key for a create: unique per phone and user, and a valid Idempotency-Key. */
export function newOutboxKey(owner: string, kindName: string): string {
  const random = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return `${owner.replace(/[^\w.-]/g, '_')}:${kindName}:${random}`;
}

export async function countWaiting(owner: string): Promise<number> {
  return [...(await outbox.list(owner)), ...(await waitingFiles.list(owner))].filter((entry) => entry.state === 'waiting').length;
}
