import zlib from 'node:zlib';
import { promisify } from 'node:util';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Below this a compressed answer saves less than a packet, and costs more CPU than the query. */
export const COMPRESS_THRESHOLD = 2048;
/** Up to this, JSON is compressed at once on the event loop (well under a millisecond at level 1). */
const SYNC_LIMIT = 64 * 1024;
const LEVEL = { level: 1 };
const gzip = promisify(zlib.gzip);

/** Whether an Accept-Encoding header takes gzip (not refused with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  const m = /(?:^|,)\s*(?:gzip|\*)\s*(?:;\s*q=([0-9.]+))?/i.exec(header);
  return m !== null && (m[1] === undefined || Number(m[1]) > 0);
}

/** Marks an answer as the gzip of what the URL names: caches must keep one copy per Accept-Encoding. */
export function markGzipped(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  void reply.header('content-encoding', 'gzip').header('vary', vary === undefined ? 'accept-encoding' : `${String(vary)}, accept-encoding`);
  reply.removeHeader('content-length');
}

/**
 * HTTP compression of dynamic answers (built assets are precompressed). JSON is gzipped at level 1
 * from the serialised text in one call: @fastify/compress makes a zlib stream per answer, which
 * cost more than a list query. Other answers (streams, files) go through @fastify/compress (decision 017).
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  // A callback hook: it runs on every answer, and most are sent as they are, at once.
  app.addHook('onSend', (request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    const json = typeof type === 'string' && type.startsWith('application/json') && reply.getHeader('content-encoding') === undefined;
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : Buffer.isBuffer(payload) ? payload.length : 0;
    if (!json || size < COMPRESS_THRESHOLD || !acceptsGzip(request.headers['accept-encoding'])) {
      done(null, payload);
      return;
    }
    const compressed = (body: Buffer): void => {
      markGzipped(reply);
      done(null, body);
    };
    if (size <= SYNC_LIMIT) compressed(zlib.gzipSync(payload as string | Buffer, LEVEL));
    else gzip(payload as string | Buffer, LEVEL).then(compressed, (error: unknown) => done(error as Error));
  });
  await app.register(fastifyCompress, {
    global: true,
    threshold: COMPRESS_THRESHOLD,
    encodings: ['gzip', 'br'],
    zlibOptions: LEVEL,
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
}
