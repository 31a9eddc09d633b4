import { randomBytes } from 'node:crypto';
import { dropRunSchemas, RUN_ENV } from './database-schemas.js';

/** The server suite's global setup: names this run (workers inherit it) and drops its schemas at the end. */
export default function setup(): () => Promise<void> {
  process.env[RUN_ENV] ??= randomBytes(4).toString('hex');
  const prefix = `t_${process.env[RUN_ENV]}_`;
  return async () => {
    const url = process.env['TEST_DATABASE_URL'];
    if (url) await dropRunSchemas(url, prefix);
  };
}
