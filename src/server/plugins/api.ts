import fp from 'fastify-plugin';
import fastifyRateLimit from '@fastify/rate-limit';
import type { onRequestHookHandler } from 'fastify';
import type { Config } from '../config.js';
import { DeviceCookies } from '../auth/device-cookies.js';
import { LoginThrottle } from '../auth/login-throttle.js';
import { databaseRateLimitStore } from '../auth/rate-limit-store.js';
import { authRoutes, linkRoutes } from '../auth/routes.js';
import { analysisPlugin } from './analysis.js';
import { recordsPlugin } from './records.js';
import { statsPlugin } from './stats.js';

/** API answers are the user's data, for no shared cache: a route that may be cached says so itself. */
const noStore: onRequestHookHandler = (_request, reply, done) => {
  reply.raw.setHeader('cache-control', 'no-store');
  done();
};

/** Sign-in, sign-out and signed links; old sign-in counters are pruned hourly, so rotating usernames cannot grow the table forever. */
const signInPlugin = fp<{ config: Config }>(
  async (api, { config }) => {
    const { users, tokens, signer } = api.services;
    const throttle = new LoginThrottle(api.db.kysely, config.login);
    const pruning = setInterval(() => {
      throttle.prune().catch((err: unknown) => api.log.error({ err }, 'pruning sign-in counters failed'));
    }, 3600_000);
    pruning.unref();
    api.addHook('onClose', async () => clearInterval(pruning));
    await api.register(fastifyRateLimit, { global: false, store: databaseRateLimitStore(api.db.kysely) });
    const devices = new DeviceCookies(api.db.kysely, config.login);
    await authRoutes(api, { users, tokens, throttle, devices, clientId: config.clientId, perAddressPerMinute: config.login.perAddressPerMinute });
    await linkRoutes(api, { signer });
  },
  { name: 'rtd-sign-in', dependencies: ['rtd-services'], fastify: '5.x', encapsulate: true },
);

/** The API under /api: the sign-in check on every route not marked public (auth/sign-in-hook.ts), no shared caching. */
export const apiPlugin = fp<{ config: Config }>(
  async (api, { config }) => {
    api.addHook('onRequest', noStore);
    api.addHook('onRoute', api.services.signInHook(false));
    await api.register(signInPlugin, { config });
    await api.register(recordsPlugin, { config });
    await api.register(statsPlugin);
    await api.register(analysisPlugin, { config });
  },
  { name: 'rtd-api', dependencies: ['rtd-http', 'rtd-services', 'rtd-api-docs'], fastify: '5.x', encapsulate: true },
);
