import type { FastifyInstance } from 'fastify';
import type { Kind, KindRegistry } from '../../shared/kind-types.js';
import { authenticate, currentUser } from '../auth/authenticate.js';
import type { TokenStore } from '../auth/tokens.js';
import { ApiError, badRequest, notFound, ok, okList } from '../http/envelope.js';
import { listTitles } from './merge.js';
import type { User } from '../users/user-repository.js';
import { parseListQuery } from './list-query.js';
import type { Actor, RecordRepository } from './repository.js';
import { applyDerived, derivedAtCreation, type RecordValidator } from './validation.js';

export interface RecordDeps {
  registry: KindRegistry;
  records: RecordRepository;
  validator: RecordValidator;
  tokens: TokenStore;
  clientId: string;
}

const MAX_IDS = 1000;

function actorOf(user: User): Actor {
  return { username: user.username, project: user.project, vehicle: user.vehicle_no };
}

/** The largest id the id columns hold in both dialects (PostgreSQL serial is a 32-bit integer). */
export const MAX_ID = 2147483647;

function parseId(raw: unknown, name = 'id'): number {
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (typeof text !== 'string' || !/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > MAX_ID) {
    throw badRequest(`${name} must be a whole number from 1 to ${MAX_ID}, got '${String(raw).slice(0, 40)}'`);
  }
  return Number(text);
}

/**
 * The version a write says it was based on: body.version, or an If-Match header ("3", W/"3").
 * Undefined when it names none (a client that knows no versions); both given and different is a 400.
 */
function baseVersion(body: Record<string, unknown> | undefined, ifMatch: string | string[] | undefined): number | undefined {
  const fromBody = body?.['version'];
  const header = Array.isArray(ifMatch) ? ifMatch[0] : ifMatch;
  let fromHeader: number | undefined;
  if (header !== undefined && header.trim() !== '*') {
    const m = /^\s*(?:W\/)?"?(\d{1,10})"?\s*$/.exec(header);
    if (!m) throw badRequest(`If-Match must be a record version such as "3", got '${header.slice(0, 40)}'`);
    fromHeader = Number(m[1]);
  }
  let fromBodyNumber: number | undefined;
  if (fromBody !== undefined && fromBody !== null && fromBody !== '') {
    const text = String(fromBody);
    if (!/^\d{1,10}$/.test(text)) throw badRequest(`version must be the record version the edit was based on (a whole number), got '${text.slice(0, 40)}'`);
    fromBodyNumber = Number(text);
  }
  if (fromHeader !== undefined && fromBodyNumber !== undefined && fromHeader !== fromBodyNumber) {
    throw badRequest(`version ${fromBodyNumber} and If-Match ${fromHeader} disagree; send one`);
  }
  return fromBodyNumber ?? fromHeader;
}

function notFoundMessage(kind: Kind, id: number | string): string {
  return `${kind.schema.title} ${id} not found`;
}

/**
 * The five RuoYi-style endpoints (list, get, create, update, delete) plus history, registered
 * for every kind in the registry from its schema alone: no kind has route code of its own.
 */
export async function recordRoutes(app: FastifyInstance, deps: RecordDeps): Promise<void> {
  const { records, validator } = deps;
  app.addHook('preHandler', authenticate(deps.tokens, deps.clientId));

  for (const kind of deps.registry.values()) {
    const base = kind.meta.apiPath;

    app.get(`${base}/list`, async (request) => {
      const user = currentUser(request);
      const query = parseListQuery(kind, request.query as Record<string, unknown>, user.project);
      const { rows, total } = await records.list(kind, user.project, query);
      return okList(rows, total);
    });

    app.get<{ Params: { id: string } }>(`${base}/:id`, async (request, reply) => {
      const user = currentUser(request);
      const id = parseId(request.params.id);
      const record = await records.get(kind, user.project, id);
      if (!record) throw notFound(notFoundMessage(kind, id));
      void reply.header('etag', `"${String(record['version'])}"`);
      return ok(record);
    });

    app.get<{ Params: { id: string } }>(`${base}/:id/history`, async (request) => {
      const user = currentUser(request);
      const id = parseId(request.params.id);
      const versions = await records.history(kind, user.project, id);
      if (versions.length === 0) throw notFound(notFoundMessage(kind, id));
      return ok(versions);
    });

    app.post(`${base}`, async (request) => {
      const user = currentUser(request);
      const { set } = validator.writable(kind, request.body);
      const data = applyDerived(kind, validator.withDefaults(kind, set));
      validator.check(kind, data);
      const created = await records.create(kind, actorOf(user), data, (record) => derivedAtCreation(kind, record));
      return ok(created);
    });

    app.put(`${base}`, async (request) => {
      const user = currentUser(request);
      // writable() refuses a body that is not an object, so the id can be read after it.
      const { set, cleared } = validator.writable(kind, request.body);
      const body = request.body as Record<string, unknown>;
      if (body['id'] === undefined || body['id'] === null || body['id'] === '') throw badRequest('id is required to update a record');
      const id = parseId(body['id']);
      const result = await records.update(kind, actorOf(user), id, { set, cleared, baseVersion: baseVersion(body, request.headers['if-match']) }, (merged) => {
        const next = applyDerived(kind, merged);
        validator.check(kind, next);
        return next;
      });
      if (result.status === 'missing') throw notFound(notFoundMessage(kind, id));
      if (result.status === 'unknown-version') {
        throw new ApiError(409, `${kind.schema.title} ${id} is at version ${String(result.current['version'])}; the version you sent is not one it has had. Reload it and edit again.`, {}, { current: result.current, conflicts: [] });
      }
      if (result.status === 'conflict') {
        const titles = listTitles(result.conflicts.map((c) => c.title));
        throw new ApiError(409, `${titles} ${result.conflicts.length === 1 ? 'was' : 'were'} changed by ${result.changedBy} since you opened this record; choose which values to keep`, {}, {
          current: result.current,
          conflicts: result.conflicts,
        });
      }
      return ok(result.record);
    });

    app.delete<{ Params: { ids: string } }>(`${base}/:ids`, async (request) => {
      const user = currentUser(request);
      const parts = request.params.ids.split(',');
      if (parts.length > MAX_IDS) throw badRequest(`At most ${MAX_IDS} ids can be deleted at once`);
      const ids = [...new Set(parts.map((p) => parseId(p.trim(), 'every id')))];
      const version = baseVersion({ version: (request.query as Record<string, unknown>)['version'] }, request.headers['if-match']);
      if (version !== undefined && ids.length > 1) throw badRequest('A version can only be given when deleting one record');
      const { missing, changed } = await records.delete(kind, actorOf(user), ids, version);
      if (missing.length > 0) throw notFound(`${notFoundMessage(kind, missing.join(', '))}; nothing was deleted`);
      if (changed) {
        throw new ApiError(409, `${kind.schema.title} ${ids[0]} was changed by ${changed.changedBy} since you opened it; look at the changes before deleting`, {}, { current: changed.current, conflicts: [] });
      }
      return ok(null);
    });
  }
}
