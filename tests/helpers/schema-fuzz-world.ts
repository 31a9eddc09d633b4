import { sql } from 'kysely';
import { ALICE, startServer, type DbTarget, type TestServer } from './server.js';
import { PATH, startOutcome, writeSchemas, type Field, type Json, type KindState } from './schema-fuzz-files.js';
import { buildRegistry } from '../../src/shared/kinds.js';
import type { KindSchema } from '../../src/shared/kind-types.js';
import { reportStoredData, type DataReport } from '../../src/server/schema-check/data-report.js';
import { openStoredData } from '../../src/server/schema-check/stored-data.js';
import { readZip, type ZipFile } from '../server/downloads/zip-reader.js';

/** A run's world: the server on its database, the kind's fields, and every value a tester stored that nobody has changed since. */
export class World {
  fields: Field[] = [{ name: 'f0', type: 'string', old: [] }];
  kind: KindState = { stem: 'probe', old: [], dateField: 'refuelTime' };
  /** Names removed from the schema whose values stay in the records (hidden), never reused as old names. */
  hidden: string[] = [];
  /**
   * Record id -> the values stored in it that no write has replaced, as JSON. Choices are not
   * unique tokens, but each field's are its own (prefixed by its first name) and they are kept
   * per record, so a choice is tracked by its record and field.
   */
  live = new Map<number, Set<string>>();
  ids: number[] = [];
  /** Record id -> the names of the files uploaded to its attachment folder. */
  files = new Map<number, string[]>();
  names = 1;
  tokens = 0;
  s!: TestServer;
  token = '';
  schemas: Json = {};
  report: DataReport | undefined;
  readonly log: string[] = [];

  constructor(private readonly target: DbTarget) {}

  /** A new value for a field as its form offers it now: a token, or one or two of its choices (multi-select: a list). */
  fresh(f: Field): string | number | string[] {
    this.tokens++;
    if (f.choices !== undefined && f.choices.length > 0) {
      const one = f.choices[this.tokens % f.choices.length] as string;
      const two = f.choices[(this.tokens + 1) % f.choices.length] as string;
      return f.multi ? [...new Set([one, two].slice(0, 1 + (this.tokens % 2)))] : one;
    }
    return f.type === 'integer' ? 900_000 + this.tokens : `v${this.tokens}`;
  }

  async start(reuse?: { dataDir: string; schema: string }): Promise<void> {
    const { dir, schemas } = writeSchemas(this.fields, this.kind);
    this.schemas = schemas;
    if (reuse) {
      this.report = await this.check(reuse);
      // The check's exit agrees with what a start does: files it refuses never start, a change
      // that needs a decision stops a start until confirmed (scripts/lib/start-gate.mjs).
      const { exit, plain, confirmed } = startOutcome(dir, this.report);
      const want = { 0: ['deploy', 'deploy'], 2: ['keep', 'deploy'] }[exit as 0 | 2];
      if (want === undefined || plain !== want[0] || confirmed !== want[1])
        throw new Error(`the check exits ${exit}, and a start would ${plain} (${confirmed} when confirmed)`);
    }
    this.s = await startServer(this.target, { SCHEMAS_DIR: dir }, { keep: true, ...(reuse ? { reuse } : {}) });
    this.token = await this.s.login(ALICE.username, ALICE.password);
  }

  async check(storage: { dataDir: string; schema: string }): Promise<DataReport> {
    const store = await openStoredData({
      dataDir: storage.dataDir,
      databaseUrl: this.target.url,
      databaseSchema: this.target.url ? storage.schema : undefined,
    });
    if ('none' in store) throw new Error(store.none);
    try {
      return await reportStoredData(buildRegistry(this.schemas as Record<string, KindSchema>), store);
    } finally {
      await store.close();
    }
  }

  /** A schema change: the server restarts on the same database with the changed files. */
  async restart(): Promise<void> {
    const storage = this.s.storage;
    await this.close();
    await this.start(storage);
  }

  async close(): Promise<void> {
    await this.s.close();
    if (this.s.serverErrors.length > 0) throw new Error(`5xx answers: ${this.s.serverErrors.join(', ')}`);
  }

  async request(method: string, url: string, body?: Json): Promise<Json> {
    const res = await this.s.request(method, url, { token: this.token, ...(body ? { body } : {}) });
    if (res.status >= 500) throw new Error(`${method} ${url} -> ${res.status} ${JSON.stringify(res.body)}`);
    return { status: res.status, ...(res.body as Json) };
  }

  /** The record as the API answers it (data and warnings). */
  async read(id: number, path = PATH): Promise<Json> {
    const got = await this.request('GET', `${path}/${id}`);
    if (got['status'] !== 200) throw new Error(`GET ${id} -> ${got['status']} ${JSON.stringify(got)}`);
    return got;
  }

  async stored(id: number): Promise<Json> {
    const { rows } = await sql<{ data: string }>`SELECT data FROM rec_probe WHERE id = ${id}`.execute(this.s.app.db.kysely);
    return JSON.parse(rows[0]?.data ?? 'null') as Json;
  }

  /** Uploads a small file to a record's attachment folder, as the app does. */
  async attach(id: number): Promise<string> {
    const folder = (await this.read(id))['data'].attachmentFolder as string;
    const name = `note-${id}-${++this.tokens}.txt`;
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(name)]), name);
    const res = await fetch(`${this.s.url}/sharepoint/files/upload?path=${encodeURIComponent(folder)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.token}` },
      body: form,
    });
    if (res.status !== 200 && res.status !== 201) throw new Error(`upload to ${folder} -> ${res.status} ${await res.text()}`);
    this.files.set(id, [...(this.files.get(id) ?? []), name]);
    return `${folder}/${name}`;
  }

  /** A day package's files: status 404 (no records that day) is none. */
  async dayPackage(route: string, day: string): Promise<ZipFile[]> {
    const res = await fetch(`${this.s.url}/download/${route}?vehicle=V1&date=${day}`, { headers: { authorization: `Bearer ${this.token}` } });
    if (res.status === 404) return [];
    if (res.status !== 200) throw new Error(`${route} -> ${res.status} ${await res.text()}`);
    return readZip(Buffer.from(await res.arrayBuffer()));
  }

  /** Sets one field of a record to a new value; the value it showed is the one replaced. */
  async edit(id: number, field: Field, sentName: string): Promise<void> {
    const before = await this.read(id);
    const v = this.fresh(field);
    const res = await this.request('PUT', PATH, { id, version: before['data'].version, [sentName]: v });
    if (res['code'] !== 200) throw new Error(`save of ${sentName} on #${id} refused: ${JSON.stringify(res)}`);
    const live = this.live.get(id) as Set<string>;
    const shown = before['data'][field.name] as unknown;
    // An old single choice is shown as a list of one (decision 074): the stored value replaced is the choice.
    for (const replaced of Array.isArray(shown) && shown.length === 1 ? [shown, shown[0]] : [shown]) live.delete(JSON.stringify(replaced));
    live.add(JSON.stringify(v));
  }
}
