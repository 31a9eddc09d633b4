import type { FastifyInstance } from 'fastify';

/** The shared-files service's uploads, which stream at the sender's pace under their own rule (a minimum rate, files/write-body.ts). */
const FILE_UPLOADS = '\\/sharepoint\\/files\\/upload(\\/session\\/[^/?]+)?';
const escape = (path: string): string => path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** Multipart uploads: the rate is watched on the socket, since the file part may never begin. */
const MULTIPART_UPLOAD = /^\/sharepoint\/files\/upload(\?|$)/;

/**
 * A request body other than an upload must arrive whole within bodyMs, so a sender dripping a byte
 * now and then is cut off. streamingPaths are further uploads that stream under the uploads' rule.
 */
export function installBodyDeadline(
  app: FastifyInstance,
  bodyMs: number,
  uploadRate: { minBytesPerSecond: number; rateWindowMs: number },
  streamingPaths: readonly string[] = [],
): void {
  const streamingUploads = new RegExp(`^(${[FILE_UPLOADS, ...streamingPaths.map(escape)].join('|')})(\\?|$)`);
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw;
    const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
    if (hasBody && MULTIPART_UPLOAD.test(request.url) && uploadRate.minBytesPerSecond > 0) {
      watchRate(request.raw, uploadRate.minBytesPerSecond, uploadRate.rateWindowMs, (got) =>
        request.log.info({ url: request.url, bytesPerSecond: got }, 'upload slower than the minimum rate; closing the connection'),
      );
    }
    if (!hasBody || streamingUploads.test(request.url)) {
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

/** Closes the connection when a body arrives slower than minBytesPerSecond over a window, measured on the socket. */
function watchRate(raw: import('node:http').IncomingMessage, minBytesPerSecond: number, windowMs: number, onCut: (bytesPerSecond: number) => void): void {
  const socket = raw.socket;
  let last = socket.bytesRead;
  const timer = setInterval(() => {
    if (raw.complete || socket.destroyed) {
      clearInterval(timer);
      return;
    }
    const got = socket.bytesRead - last;
    last = socket.bytesRead;
    if (got < (minBytesPerSecond * windowMs) / 1000) {
      clearInterval(timer);
      onCut(Math.round(got / (windowMs / 1000)));
      socket.destroy();
    }
  }, windowMs);
  timer.unref();
  raw.once('close', () => clearInterval(timer));
}
