import type { FastifyInstance } from 'fastify';
import fastifyHelmet from '@fastify/helmet';

/**
 * The content security policy of the app: everything from this origin, no inline script, no
 * plugins, framed only by itself. Inline styles are allowed (PrimeReact positions overlays with
 * style attributes); blob: and data: for photos, recordings and previews made in the browser.
 * Routes with a stricter policy of their own (file previews, preview.html) set it themselves.
 */
export const APP_CSP_DIRECTIVES = {
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

/** Security headers on every answer (@fastify/helmet): CSP, nosniff, frame rules, referrer policy. */
export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: APP_CSP_DIRECTIVES },
    // Media and previews are shown in this origin's own frames; nothing is loaded from elsewhere.
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    frameguard: { action: 'sameorigin' },
    referrerPolicy: { policy: 'same-origin' },
    // HTTPS is set up by the deployment (built-in TLS or a proxy), which decides about HSTS.
    strictTransportSecurity: false,
  });
}
