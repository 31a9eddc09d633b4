import { describe, expect, inject, it } from 'vitest';
import { pageWeight, SIGN_IN_BUDGET_BYTES } from '../../scripts/lib/bundle-size.js';

describe('the sign-in page', () => {
  it('loads less than 120 KB of gzipped JavaScript', () => {
    const weight = pageWeight(inject('clientDir'), 'src/client/pages/login-page.tsx');
    expect(weight.files.some((f) => f.file.includes('login-page'))).toBe(true);
    expect(weight.totalGzipBytes).toBeLessThan(SIGN_IN_BUDGET_BYTES);
  });
});
