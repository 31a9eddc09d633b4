import fp from 'fastify-plugin';
import { statsRoutes } from '../stats/routes.js';

export const statsPlugin = fp(
  async (api) => {
    await statsRoutes(api, { registry: api.registry, stats: api.services.stats });
  },
  { name: 'rtd-stats', dependencies: ['rtd-services'], fastify: '5.x', encapsulate: true },
);
