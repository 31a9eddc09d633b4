import type { FastifyInstance } from 'fastify';

/** Uploads stream at the sender's pace under their own rule (a minimum rate, files/write-body.ts). */
const STREAMING_UPLOADS = /^\/sharepoint\/files\/upload(\/session\/[^/?]+)?(\?|$)/;

/**
 * A request body other than an upload must arrive whole within bodyMs of the request starting;
 * a sender dripping a byte now and then (to hold a connection and a parser open) is cut off then.
 * Node's own headersTimeout covers the headers; the connection's idle timeout covers silence.
 */
export function installBodyDeadline(app: FastifyInstance, bodyMs: number): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw;
    const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
    if (!hasBody || STREAMING_UPLOADS.test(request.url)) {
      done();
      return;
    }
    const timer = setTimeout(() => {
      if (raw.complete) return;
      request.log.info({ url: request.url }, `request body not received within ${bodyMs} ms; closing the connection`);
      raw.socket?.destroy();
    }, bodyMs);
    timer.unref();
    const clear = (): void => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    done();
  });
}
