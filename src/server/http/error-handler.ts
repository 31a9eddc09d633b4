import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from './envelope.js';
import { requestLanguage } from './language.js';

// Fastify's own client errors, reworded for a person reading a toast, in English and Chinese.
const FASTIFY_MESSAGES: Record<string, { en: string; zh: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { en: 'The request body is not valid JSON', zh: '请求内容不是有效的 JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { en: 'The request body is empty; send a JSON object', zh: '请求内容为空，请发送 JSON 对象' },
  FST_ERR_CTP_BODY_TOO_LARGE: { en: 'The request body is too large', zh: '请求内容过大' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { en: 'Unsupported Content-Type; send application/json', zh: '不支持的 Content-Type，请发送 application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { en: 'The Content-Length header does not match the body', zh: 'Content-Length 请求头与请求内容不符' },
};

const OUT_OF_RANGE = { en: 'A value in the request is out of range or malformed', zh: '请求中有值超出范围或格式错误' };
const INTERNAL = { en: 'Internal server error; please try again later', zh: '服务器内部错误，请稍后再试' };

/**
 * One error handler: client errors (below 500) say their message, in Chinese where the request
 * prefers it (decision 045); server errors are logged and answered with a message that leaks nothing.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const zh = requestLanguage(request) === 'zh';
    const say = (texts: { en: string; zh: string }): string => (zh ? texts.zh : texts.en);
    // RFC 6750: a 401 says which scheme would be accepted.
    if ((error instanceof ApiError ? error.status : error.statusCode) === 401) reply.header('www-authenticate', 'Bearer realm="road-test-data"');
    if (error instanceof ApiError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return reply.status(error.status).send({ code: error.status, msg: zh && error.zh ? error.zh : error.message, data: error.data });
    }
    // PostgreSQL refused a value a route's checks should have caught: the client's input, so 400.
    const pgCode = (error as { code?: unknown; severity?: unknown }).code;
    if (typeof pgCode === 'string' && /^22/.test(pgCode) && typeof (error as { severity?: unknown }).severity === 'string') {
      request.log.warn({ err: error }, 'database refused a value the route did not check');
      return reply.status(400).send({ code: 400, msg: say(OUT_OF_RANGE), data: null });
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      const known = error.code !== undefined ? FASTIFY_MESSAGES[error.code] : undefined;
      const msg = known ? say(known) : error.message;
      return reply.status(status).send({ code: status, msg, data: null });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ code: 500, msg: say(INTERNAL), data: null });
  });
}
