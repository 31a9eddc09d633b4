import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contractTime } from '../http/contract-time.js';
import type { Kind, KindRegistry } from '../../shared/kind-types.js';
import { currentUser } from '../auth/authenticate.js';
import { ApiError, badRequest, ok, okList } from '../http/envelope.js';
import { acceptsGzip, COMPRESS_THRESHOLD, markGzipped } from '../http/compression.js';
import { ParsedLists, type ListCache } from './list-cache.js';
import { createConflict, deleteConflict, editConflict, recordNotFound, unknownVersion } from './merge.js';
import { recordSchemas } from './route-schemas.js';
import { recordWarnings, schemasVersion, type FieldWarning } from '../../shared/schema-evolution.js';
import type { User } from '../users/user-repository.js';
import { parseListQuery, type ListQuery } from './list-query.js';
import type { Actor, RecordStore } from './store/types.js';
import { applyDerived, derivedAtCreation, refuseServerOwned, type RecordData, type RecordValidator } from './validation.js';

export interface RecordDeps {
  registry: KindRegistry;
  records: RecordStore;
  validator: RecordValidator;
  listCache: ListCache;
  /** The most bytes of records one list page may carry (LIST_MAX_PAGE_MB). */
  maxPageBytes?: number;
}

function actorOf(user: User): Actor {
  return { username: user.username, project: user.project, vehicle: user.vehicle_no };
}

/** The version a write says it was based on (body, query or If-Match: "3", W/"3"); both given and different is a 400. */
function baseVersion(sent: unknown, ifMatch: string | string[] | undefined): number | undefined {
  const header = Array.isArray(ifMatch) ? ifMatch[0] : ifMatch;
  const digits = header === undefined ? undefined : /[0-9]+/.exec(header)?.[0];
  const fromHeader = digits === undefined ? undefined : Number(digits);
  const fromBody = typeof sent === 'number' ? sent : undefined;
  if (fromHeader !== undefined && fromBody !== undefined && fromHeader !== fromBody)
    throw badRequest(`version ${fromBody} and If-Match ${fromHeader} disagree; send one`);
  return fromBody ?? fromHeader;
}

/** A record's answer with `warnings` for stored values its schema would not accept now (docs/decisions/034). */
function withWarnings<T extends { data: RecordData }>(kind: Kind, answer: T): T & { warnings?: FieldWarning[] } {
  const warnings = recordWarnings(kind, answer.data);
  return warnings.length === 0 ? answer : { ...answer, warnings };
}

const WARNINGS_REMEMBERED = 10_000;

/**
 * withWarnings for GET by id, the warnings remembered by kind, project, id and version (70 µs a
 * check): data changes only with a new version, ids are never reused, and the schema is fixed.
 */
function rememberingWarnings(): (kind: Kind, project: string, answer: { data: RecordData }) => { data: RecordData; warnings?: FieldWarning[] } {
  const remembered = new Map<string, FieldWarning[]>();
  return (kind, project, answer) => {
    const { id, version } = answer.data;
    if (typeof id !== 'number' || typeof version !== 'number') return withWarnings(kind, answer);
    const key = `${kind.name}\u0000${project}\u0000${id}\u0000${version}`;
    let warnings = remembered.get(key);
    if (warnings === undefined) {
      warnings = recordWarnings(kind, answer.data);
      if (remembered.size >= WARNINGS_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
      remembered.set(key, warnings);
    }
    return warnings.length === 0 ? answer : { ...answer, warnings };
  };
}

interface KindRoutes {
  kind: Kind;
  deps: RecordDeps;
  version: string;
  parsedLists: ParsedLists<ListQuery>;
  byIdWarnings: ReturnType<typeof rememberingWarnings>;
  complete: ((record: RecordData) => RecordData) | undefined;
}

/** The five RuoYi-style endpoints plus history, registered for every kind from its schema alone. */
export async function recordRoutes(app: FastifyInstance, deps: RecordDeps): Promise<void> {
  const parsedLists = new ParsedLists<ListQuery>();
  const byIdWarnings = rememberingWarnings();
  // Named in record answers (x-schemas-version): an app built with others offers its new form (decision 034).
  const version = schemasVersion(Object.fromEntries([...deps.registry].map(([name, kind]) => [name, kind.schema])));
  for (const kind of deps.registry.values()) {
    const derives = Object.keys(derivedAtCreation(kind, {})).length > 0;
    const complete = derives ? (record: RecordData) => derivedAtCreation(kind, record) : undefined;
    const k: KindRoutes = { kind, deps, version, parsedLists, byIdWarnings, complete };
    const base = kind.meta.apiPath;
    const schemas = recordSchemas(kind);
    app.get(`${base}/list`, { schema: schemas.list }, (request, reply) => listRecords(k, request, reply));
    app.get<{ Params: { id: number } }>(`${base}/:id`, { schema: schemas.get }, (request, reply) => getRecord(k, request, reply));
    app.get<{ Params: { id: number } }>(`${base}/:id/history`, { schema: schemas.history }, (request) => recordHistory(k, request));
    app.post(`${base}`, { schema: schemas.create }, (request, reply) => createRecord(k, request, reply));
    app.put(`${base}`, { schema: schemas.update }, (request, reply) => updateRecord(k, request, reply));
    // The same path parameter as GET by id (one path in the document), holding one id or several.
    app.delete<DeleteRequest>(`${base}/:id`, { schema: schemas.delete }, (request) => deleteRecords(k, request));
  }
}

/** Whether a request came from an app built with other schema files than the served ones. */
const fromOtherApp = (k: KindRoutes, request: FastifyRequest): boolean => {
  const sent = request.headers['x-schemas-version'];
  return typeof sent === 'string' && sent !== k.version;
};

/** A write refused (400) from an app built with other schema files says why its form may be wrong. */
function fromOtherForm(k: KindRoutes, request: FastifyRequest, error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 400 || !fromOtherApp(k, request)) return error;
  return new ApiError(400, `${error.message} (This phone's form is older or newer than the server's: update the app, then apply the change again.)`, {
    headers: { ...error.headers, 'x-schemas-version': k.version },
    data: error.data,
    zh: `${error.zh ?? error.message}（此手机的表单比服务器的旧或新：请更新应用，然后再次应用此修改。）`,
  });
}

/** GET list: remembered under the records' generation (docs/decisions/025), gzipped once. */
async function listRecords(k: KindRoutes, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const { kind, deps } = k;
  const { records, listCache } = deps;
  const user = currentUser(request);
  void reply.header('x-schemas-version', k.version);
  if (!listCache.enabled) {
    const query = parseListQuery(kind, request.query as Record<string, unknown>, user.project);
    const { rows, total } = await records.reads.list(kind, user.project, query, deps.maxPageBytes);
    return okList(rows, total);
  }
  const { query, key } = k.parsedLists.get(user.project, request.url, () => {
    const parsed = parseListQuery(kind, request.query as Record<string, unknown>, user.project);
    return { query: parsed, key: `${kind.name}\n${user.project}\n${JSON.stringify(parsed)}` };
  });
  // The generation first, then the rows: an answer is never older than its generation.
  const gen = await records.reads.generation(kind, user.project);
  let answer = listCache.get(key, gen);
  if (answer === undefined) {
    const { rows, total } = await records.reads.list(kind, user.project, query, deps.maxPageBytes);
    answer = listCache.set(key, gen, reply.serialize(okList(rows, total)) as string);
  }
  void reply.type('application/json; charset=utf-8');
  if (answer.size < COMPRESS_THRESHOLD || !acceptsGzip(request.headers['accept-encoding'])) return answer.body;
  const body = await listCache.gzipOf(answer);
  markGzipped(reply);
  return body;
}

/** GET by id, its version as the ETag; remembered as lists are where the generation costs less than a read. */
async function getRecord(k: KindRoutes, request: FastifyRequest<{ Params: { id: number } }>, reply: FastifyReply): Promise<unknown> {
  const user = currentUser(request);
  const { id } = request.params;
  const { records, listCache } = k.deps;
  void reply.header('x-schemas-version', k.version);
  const gen = listCache.enabled ? await records.reads.answerGeneration(k.kind, user.project) : undefined;
  const key = gen === undefined ? '' : `${k.kind.name}\n${user.project}\n#${id}`;
  const remembered = gen === undefined ? undefined : listCache.get(key, gen);
  if (remembered !== undefined) {
    void reply.header('etag', remembered.etag).type('application/json; charset=utf-8');
    return remembered.body;
  }
  const record = await records.reads.get(k.kind, user.project, id);
  if (!record) throw recordNotFound(k.kind, id);
  const etag = `"${String(record['version'])}"`;
  void reply.header('etag', etag);
  const answer = k.byIdWarnings(k.kind, user.project, ok(record));
  if (gen === undefined) return answer;
  void reply.type('application/json; charset=utf-8');
  return listCache.set(key, gen, reply.serialize(answer) as string, etag).body;
}

async function recordHistory(k: KindRoutes, request: FastifyRequest<{ Params: { id: number } }>): Promise<unknown> {
  const user = currentUser(request);
  const { id } = request.params;
  const versions = await k.deps.records.reads.history(k.kind, user.project, id);
  if (versions.length === 0) throw recordNotFound(k.kind, id);
  return ok(versions.map((v) => ({ ...v, changedAt: contractTime(v.changedAt) ?? v.changedAt })));
}

/** POST: validated and completed by the kind's schema, then created (or replayed). */
async function createRecord(k: KindRoutes, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const { kind, deps } = k;
  const user = currentUser(request);
  void reply.header('x-schemas-version', k.version);
  let data: RecordData;
  try {
    refuseServerOwned(kind, request.body, undefined);
    const { set } = deps.validator.writable(kind, request.body);
    data = applyDerived(kind, deps.validator.withDefaults(kind, set, fromOtherApp(k, request)));
    deps.validator.check(kind, data);
  } catch (e) {
    throw fromOtherForm(k, request, e);
  }
  const key = request.headers['idempotency-key'] as string | undefined;
  const created = await deps.records.writes.create(kind, actorOf(user), data, k.complete, key);
  if ('conflict' in created) throw createConflict(created.conflict);
  if (created.replayed) void reply.header('idempotent-replayed', 'true');
  return withWarnings(kind, ok(created.record));
}

/** PUT: merged against the version it was based on, checking only what it changes. */
async function updateRecord(k: KindRoutes, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const { kind } = k;
  const { validator, records } = k.deps;
  void reply.header('x-schemas-version', k.version);
  try {
    const user = currentUser(request);
    const { set, cleared } = validator.writable(kind, request.body);
    const body = request.body as { id: number; version?: number | null };
    const { id } = body;
    if (kind.fields.some((f) => kind.schema.properties[f]?.['x-setBy'] !== undefined))
      refuseServerOwned(kind, body, await records.reads.get(kind, user.project, id));
    const result = await records.writes.update(
      kind,
      actorOf(user),
      id,
      { set, cleared, baseVersion: baseVersion(body.version, request.headers['if-match']) },
      (merged, current) => {
        const next = applyDerived(kind, merged);
        validator.checkChanged(kind, next, current);
        return next;
      },
    );
    if (result.status === 'missing') throw recordNotFound(kind, id);
    if (result.status === 'unknown-version') throw unknownVersion(kind, id, result.current);
    if (result.status === 'conflict') throw editConflict(kind, result.conflicts, result.changedBy, result.current);
    return withWarnings(kind, ok(result.record));
  } catch (e) {
    throw fromOtherForm(k, request, e);
  }
}

type DeleteRequest = { Params: { id: number[] }; Querystring: { version?: number } };

/** DELETE: one id or several, all or none; with a version (one id), not a record changed since. */
async function deleteRecords(k: KindRoutes, request: FastifyRequest<DeleteRequest>): Promise<unknown> {
  const user = currentUser(request);
  const ids = [...new Set(request.params.id)];
  const version = baseVersion(request.query.version, request.headers['if-match']);
  if (version !== undefined && ids.length > 1) throw badRequest('A version can only be given when deleting one record');
  const { missing, changed } = await k.deps.records.writes.delete(k.kind, actorOf(user), ids, version);
  if (missing.length > 0) throw recordNotFound(k.kind, missing.join(', '), true);
  if (changed) throw deleteConflict(k.kind, ids[0] as number, changed.changedBy, changed.current);
  return ok(null);
}
