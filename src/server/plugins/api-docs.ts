import fp from 'fastify-plugin';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { registerKindSchemas } from '../api-docs/kind-schemas.js';
import { refused } from '../http/envelope.js';

/**
 * The API's description from the routes' own schemas: OpenAPI 3 at /api/openapi.json, a reference
 * at /api/docs; registered before any route so that it sees every one.
 */
export const apiDocsPlugin = fp<{ version: string }>(
  async (app, { version }) => {
    registerKindSchemas(app, app.registry);
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Road Test Data API',
          version,
          license: { name: 'Proprietary: for the road-test programme that runs this server' },
          description:
            'Records of a vehicle road-test programme, one kind per schema file, in RuoYi-style envelopes ({code, msg, data} and {code, msg, rows, total}). ' +
            "Every call but sign-in needs Authorization: Bearer <token> from POST /api/auth/login, and is scoped to the signed-in user's project. " +
            'Updates name the version they were based on (body.version or If-Match): edits of different fields merge, edits of the same field answer 409 with both values.',
        },
        // Paths are absolute (/api/...), so the server is the one the document was fetched from.
        servers: [{ url: '/', description: 'The server this document was fetched from' }],
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
        security: [{ bearer: [] }],
      },
      // Untagged routes (the app's pages, the download service) are left out.
      hideUntagged: true,
      // Every operation has an id (client generators name their functions by it) and the refusals every route of its sort can give.
      transform: ({ schema, url, route }) => {
        if (schema === undefined) return { schema, url };
        const method = [route.method].flat()[0] ?? 'get';
        const complete = withCommonResponses(schema as Record<string, unknown>, method);
        if ((complete as { operationId?: unknown }).operationId !== undefined) return { schema: complete as typeof schema, url };
        return { schema: { ...complete, operationId: operationIdOf(method, url) } as typeof schema, url };
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json['$id'] === 'string' ? json['$id'] : `def-${i}`) },
    });
    app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    await app.register(fastifySwaggerUi, {
      routePrefix: '/api/docs',
      uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 1 },
      staticCSP: true,
      // swagger-ui sets styles inline and needs nothing from other origins.
      transformStaticCSP: (header) => header.replace(/style-src [^;]*/, "style-src 'self' 'unsafe-inline'").replace(/ https:/g, ''),
    });
  },
  { name: 'rtd-api-docs', dependencies: ['rtd-db'], fastify: '5.x' },
);

/** An operation id from a route's method and path: 'GET', '/api/vtp/poi/:id/history' -> getVtpPoiByIdHistory. */
function operationIdOf(method: string, url: string): string {
  const words = url
    .replace(/^\/api\//, '/')
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
}

type Responses = Record<string, unknown>;

const WITHOUT_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The refusals every route of a sort can give whatever its own code does, added where its schema
 * does not list them, in the shape of its own refusals: 400 (input guard) everywhere, 401 and 403
 * where it needs a sign-in, 413 on any method with a body (DELETE included), 415 where it takes JSON.
 */
function withCommonResponses(schema: Record<string, unknown>, method: string): Record<string, unknown> {
  const responses = (schema['response'] ?? {}) as Responses;
  const refusal = Object.entries(responses).find(([status]) => Number(status) >= 400)?.[1] as Record<string, unknown> | undefined;
  const shape = refusal === undefined ? refused() : Object.fromEntries(Object.entries(refusal).filter(([k]) => k !== 'description'));
  const added: Responses = {};
  const add = (status: number, description: string): void => {
    if (responses[status] === undefined && responses[String(status)] === undefined) added[status] = { ...shape, description };
  };
  add(400, 'The request is malformed: an address with %00 or a broken escape, a Host that is no host name, or input the route refuses');
  const signedIn = !(Array.isArray(schema['security']) && schema['security'].length === 0);
  if (signedIn) {
    add(401, 'No valid sign-in (Authorization: Bearer <token>), or an ended one');
    add(403, 'This account may not call this route (a worker account outside the video analysis worker routes, or a tester on them)');
  }
  if (!WITHOUT_BODY.has(method.toUpperCase())) add(413, 'The request body is over 1 MiB');
  if (!WITHOUT_BODY.has(method.toUpperCase()) && schema['body'] !== undefined) add(415, 'The body is not application/json');
  return Object.keys(added).length === 0 ? schema : { ...schema, response: { ...responses, ...added } };
}
