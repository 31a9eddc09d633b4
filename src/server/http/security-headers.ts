import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The app's content security policy: this origin only, no inline script. Inline styles for
 * PrimeReact's overlays; blob: and data: for photos, recordings and previews made in the browser.
 */
const APP_CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  mediaSrc: ["'self'", 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  workerSrc: ["'self'", 'blob:'],
  manifestSrc: ["'self'"],
  frameSrc: ["'self'", 'blob:'],
  frameAncestors: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
};

/**
 * Security headers on every answer (helmet), the same for every request: helmet runs once at start
 * and the hook copies what it set (@fastify/helmet rebuilt them per request, 5% of a small answer).
 */
export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  const headers = helmetHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: APP_CSP_DIRECTIVES },
    // Media and previews are shown in this origin's own frames; nothing is loaded from elsewhere.
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    frameguard: { action: 'sameorigin' },
    referrerPolicy: { policy: 'same-origin' },
    // HTTPS is set up by the deployment (built-in TLS or a proxy), which decides about HSTS.
    strictTransportSecurity: false,
  });
  // On the raw response, as helmet does: a route's own reply.header() (a stricter policy) wins.
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  });
}

/** The headers helmet sets with these options, found by running it once on a response that only records them. */
function helmetHeaders(options: HelmetOptions): [string, string][] {
  const set = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: unknown) {
      set.set(name.toLowerCase(), String(value));
    },
    removeHeader(name: string) {
      set.delete(name.toLowerCase());
    },
  };
  let failed: unknown;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    failed = error;
  });
  if (failed !== undefined) throw failed instanceof Error ? failed : new Error(String(failed));
  return [...set.entries()];
}
