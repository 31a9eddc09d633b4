import { ApiError, badRequest } from '../http/envelope.js';
import { MAX_FRAGMENT_BYTES, MAX_UPLOAD_BYTES } from './limits.js';

export interface Fragment {
  start: number;
  end: number;
  total: number;
  length: number;
}

const mib = (n: number): string => `${Math.round(n / 1024 / 1024)} MiB`;

/**
 * The fragment a session PUT announces: 'Content-Range: bytes start-end/total' (inclusive end)
 * and a Content-Length that matches it. Checked before a byte is read, so a malformed or
 * oversized fragment costs nothing.
 */
export function parseFragment(rangeHeader: string | undefined, lengthHeader: string | undefined): Fragment {
  if (rangeHeader === undefined) throw badRequest("Each fragment needs a Content-Range header such as 'bytes 0-5242879/12345678'");
  const m = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16})$/.exec(rangeHeader.trim());
  if (!m)
    throw badRequest(
      `Content-Range '${rangeHeader.slice(0, 80)}' must look like 'bytes 0-5242879/12345678' (first and last byte, inclusive, and the file size)`,
    );
  const [start, end, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (end < start || end >= total) throw new ApiError(416, `Content-Range '${rangeHeader}' is not a range inside a file of ${total} bytes`);
  if (total > MAX_UPLOAD_BYTES)
    throw new ApiError(413, `The file is larger than the ${mib(MAX_UPLOAD_BYTES)} this service accepts`, {
      zh: `文件超过了此服务接受的 ${mib(MAX_UPLOAD_BYTES)}`,
    });
  const length = end - start + 1;
  if (length > MAX_FRAGMENT_BYTES) throw new ApiError(413, `A fragment may carry at most ${mib(MAX_FRAGMENT_BYTES)}; send smaller pieces (5 MiB is usual)`);
  if (lengthHeader === undefined) throw new ApiError(411, 'Each fragment needs a Content-Length header');
  if (!/^\d+$/.test(lengthHeader) || Number(lengthHeader) !== length) {
    throw badRequest(`Content-Length ${lengthHeader.slice(0, 20)} does not match Content-Range '${rangeHeader}', which announces ${length} bytes`);
  }
  return { start, end, total, length };
}
