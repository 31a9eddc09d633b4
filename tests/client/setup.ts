import '@testing-library/jest-dom/vitest';
import 'fake-indexeddb/auto';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeEach, expect, vi } from 'vitest';
import { forgetRecords } from '../../src/client/api/records';
import { takeUnanswered } from './fake-server';

// Lazy record screens compile on first use in the test run; give findBy* room on two busy cores.
configure({ asyncUtilTimeout: 5000 });

// A test fails on an unexpected console.error (epic-stack's habit): React warnings are bugs.
let errors: unknown[][] = [];

/** For a test that expects console.error (docs/PRODUCT.md: load failures are logged): takes what was logged. */
export function takeConsoleErrors(): unknown[][] {
  const taken = errors;
  errors = [];
  return taken;
}
(globalThis as { takeConsoleErrors?: () => unknown[][] }).takeConsoleErrors = takeConsoleErrors;

beforeEach(async () => {
  errors = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    errors.push(args);
  });
  window.localStorage.clear();
  window.sessionStorage.clear();
  // Each test is a visit of its own: no record opened by an earlier test is remembered.
  await forgetRecords();
  takeUnanswered();
});

afterEach(() => {
  cleanup();
  const unanswered = takeUnanswered();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  // The fake network is strict (fake-server.ts): a call no route answers is a gap in the test.
  expect(unanswered, `requests no fake route answered:\n${unanswered.join('\n')}`).toEqual([]);
  expect(errors, `console.error was called: ${errors.map((e) => e.map(String).join(' ')).join('\n')}`).toEqual([]);
});

// Work a screen started before it was unmounted (an IndexedDB read, a fetch answered late) may
// still end in a React state update; let it end before the file's jsdom window is torn down,
// where React would find no window and Vitest report an unhandled rejection.
afterAll(() => new Promise<void>((resolve) => setTimeout(resolve, 200)));
