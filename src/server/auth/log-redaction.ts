import type { FastifyRequest } from 'fastify';
import { LINK_PARAM } from './signed-links.js';

/** A URL as the log may show it: the secret parts of upload-session addresses and signed links, bearer credentials, replaced. */
export function redactCredentials(url: string): string {
  return url.replace(/(\/files\/upload\/session\/)[^/?#]+/g, '$1[redacted]').replace(new RegExp(`([?&]${LINK_PARAM}=)[^&#]*`, 'g'), '$1[redacted]');
}

export function requestForLog(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactCredentials(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
