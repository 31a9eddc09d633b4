import type { FastifyInstance } from 'fastify';
import type { Kind, KindRegistry } from '../../shared/kind-types.js';
import { authenticate, currentUser } from '../auth/authenticate.js';
import type { TokenStore } from '../auth/tokens.js';
import { badRequest, notFound, ok, okList } from '../http/envelope.js';
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

function parseId(raw: unknown, name = 'id'): number {
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (typeof text !== 'string' || !/^\d{1,15}$/.test(text) || Number(text) < 1) {
    throw badRequest(`${name} must be a positive whole number, got '${String(raw).slice(0, 40)}'`);
  }
  return Number(text);
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

    app.get<{ Params: { id: string } }>(`${base}/:id`, async (request) => {
      const user = currentUser(request);
      const id = parseId(request.params.id);
      const record = await records.get(kind, user.project, id);
      if (!record) throw notFound(notFoundMessage(kind, id));
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
      const updated = await records.update(kind, actorOf(user), id, (current) => {
        const merged = { ...current, ...set };
        for (const field of cleared) delete merged[field];
        const next = applyDerived(kind, merged);
        validator.check(kind, next);
        return next;
      });
      if (!updated) throw notFound(notFoundMessage(kind, id));
      return ok(updated);
    });

    app.delete<{ Params: { ids: string } }>(`${base}/:ids`, async (request) => {
      const user = currentUser(request);
      const parts = request.params.ids.split(',');
      if (parts.length > MAX_IDS) throw badRequest(`At most ${MAX_IDS} ids can be deleted at once`);
      const ids = [...new Set(parts.map((p) => parseId(p.trim(), 'every id')))];
      const missing = await records.delete(kind, actorOf(user), ids);
      if (missing.length > 0) throw notFound(`${notFoundMessage(kind, missing.join(', '))}; nothing was deleted`);
      return ok(null);
    });
  }
}
