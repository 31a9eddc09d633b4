import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { KindRegistry } from '../../shared/kind-types.js';
import { serialisableSchemas } from '../api-docs/kind-schemas.js';
import { LINK_PARAM } from '../auth/signed-links.js';
import type { Config } from '../config.js';

/** A URL as the log may show it: the secret parts of upload-session addresses and signed links, bearer credentials, replaced. */
export const redactCredentials = (url: string): string =>
  url.replace(/(\/files\/upload\/session\/)[^/?#]+/g, '$1[redacted]').replace(new RegExp(`([?&]${LINK_PARAM}=)[^&#]*`, 'g'), '$1[redacted]');

function requestForLog(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactCredentials(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The options the Fastify instance is made with: what no plugin can set afterwards. */
export function fastifyOptions(config: Config, registry: KindRegistry, logger: boolean | object | undefined): FastifyServerOptions & { https?: object } {
  const defaultSerializer = SerializerSelector();
  return {
    // Answers are serialised with record schemas that send values as stored (api-docs/kind-schemas.ts).
    schemaController: {
      compilersFactory: {
        buildSerializer: (external, options) => defaultSerializer(serialisableSchemas(external as Record<string, unknown>, registry), options),
      },
    },
    logger:
      logger === false
        ? false
        : {
            level: config.logLevel,
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'password', 'access_token'], censor: '[redacted]' },
            // Upload-session URLs and signed links are credentials too (docs/SECURITY.md).
            serializers: { req: requestForLog },
            ...(typeof logger === 'object' ? logger : {}),
          },
    bodyLimit: 1024 * 1024,
    ...(config.tls ? { https: { cert: config.tls.cert, key: config.tls.key } } : {}),
    // A number of hops is trusted as proxy-addr does it: the nearest n addresses.
    trustProxy: typeof config.trustProxy === 'number' ? (_address: string, hop: number) => hop < (config.trustProxy as number) : config.trustProxy,
    // Request bodies have their own deadline (http/timeouts.ts).
    connectionTimeout: config.timeouts.idleMs,
    keepAliveTimeout: 5_000,
    requestTimeout: 0,
    routerOptions: { maxParamLength: 20000 },
    // Errors before routing (a path that is not valid UTF-8) get the envelope too.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode ?? 400;
      const msg = error.code === 'FST_ERR_BAD_URL' ? 'The address has a broken %-escape or is not UTF-8; encode it as UTF-8' : error.message;
      void (reply as unknown as { code(n: number): { send(b: unknown): unknown } }).code(status).send({ code: status, msg, data: null });
    },
  };
}
