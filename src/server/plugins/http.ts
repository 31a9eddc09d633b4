import fp from 'fastify-plugin';
import fastifyCors from '@fastify/cors';
import type { Config } from '../config.js';
import { installCompression } from '../http/compression.js';
import { installRefusalDrain } from '../http/drain.js';
import { installErrorHandler } from '../http/envelope.js';
import { installInputGuard } from '../http/input-guard.js';
import { routeValidatorCompiler } from '../http/route-validation.js';
import { installSecurityHeaders } from '../http/security-headers.js';
import { installBodyDeadline } from '../http/timeouts.js';
import { analysedKinds, analysisPaths } from '../analysis/routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every registered route as 'METHOD /url', so the security suite can insist that it attacks each one. */
    routeList: string[];
  }
}

/** What every request meets before and after its route, whichever service it is for (docs/SECURITY.md). */
export const httpPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    // Node checks header deadlines every 30 s, so a header trickle is closed within headersMs + 30 s.
    app.server.headersTimeout = config.timeouts.headersMs;
    const routeList: string[] = [];
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routeList.push(`${method} ${route.url}`);
    });
    app.decorate('routeList', routeList);
    app.setValidatorCompiler(routeValidatorCompiler());
    installErrorHandler(app);
    installRefusalDrain(app);
    if (config.corsOrigins.length > 0) {
      await app.register(fastifyCors, {
        origin: config.corsOrigins,
        methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
        allowedHeaders: ['authorization', 'content-type', 'clientid', 'content-range', 'if-match', 'content-language', 'istoken', 'isencrypt', 'repeatsubmit'],
        exposedHeaders: ['etag', 'content-disposition', 'retry-after', 'www-authenticate'],
        maxAge: 600,
      });
    }
    installInputGuard(app);
    // The analysed kinds' workers stream their blurred copies at their own pace, like uploads.
    installBodyDeadline(
      app,
      config.timeouts.bodyMs,
      config.uploads,
      analysedKinds(app.registry.values()).map((kind) => `/api${analysisPaths(kind).desensitized}`),
    );
    await installSecurityHeaders(app);
    await installCompression(app);
  },
  { name: 'rtd-http', dependencies: ['rtd-db'], fastify: '5.x' },
);
