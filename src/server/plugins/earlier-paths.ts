import fp from 'fastify-plugin';
import { EARLIER_ROUTES_PATH } from '../../shared/page-routes.js';
import { earlierPaths } from '../records/schema-versions.js';

/**
 * The API paths and app routes kinds were served under before (decision 059) redirect to their
 * present ones, the rest of the path and the query kept: 308 for the API (an old phone's waiting
 * records are sent again), 301 for the app's pages.
 */
export const earlierPathsPlugin = fp(
  async (app) => {
    const { api, routes } = await earlierPaths(app.db, app.registry);
    const redirect = (from: string, to: string, status: 301 | 308, methods: ('GET' | 'POST' | 'PUT' | 'DELETE')[]): void => {
      for (const url of [from, `${from}/*`]) {
        app.route({
          method: methods,
          url,
          schema: { hide: true },
          handler: async (request, reply) => reply.redirect(`${to}${request.url.slice(from.length)}`, status),
        });
      }
    };
    for (const [from, to] of api) redirect(`/api${from}`, `/api${to}`, 308, ['GET', 'POST', 'PUT', 'DELETE']);
    for (const [from, to] of routes) redirect(from, to, 301, ['GET']);
    // The app routes' map, for a phone to keep: offline, its not-found screen follows it (decision 080).
    const routeMap = { routes: Object.fromEntries(routes) };
    app.get(EARLIER_ROUTES_PATH, { schema: { hide: true } }, async (_request, reply) => reply.header('Cache-Control', 'no-cache').send(routeMap));
  },
  { name: 'rtd-earlier-paths', dependencies: ['rtd-db'], fastify: '5.x' },
);
