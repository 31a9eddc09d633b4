// What `npm start` does with the schema check's exit status (decision 058), one function for
// scripts/start.mjs and the schema-change generator (tests/helpers/schema-fuzz.ts), which checks
// that the check's exit agrees with what a start does.

/**
 * 'deploy': build the files and switch to them (exit 0, or exit 2 with the confirmation code of
 * these files); 'keep': start the previous build (exit 1, the files are refused; exit 2 without
 * the confirmation); 'fail': the check itself failed (any other status).
 * @param {number} status the exit status of `schemas:check --data`
 * @param {string | undefined} confirmed the code the admin gave (--confirm-schema-changes)
 * @param {string} code the code of these schema files
 * @returns {'deploy' | 'keep' | 'fail'}
 */
export function startVerdict(status, confirmed, code) {
  if (status === 0 || (status === 2 && confirmed === code)) return 'deploy';
  return status === 1 || status === 2 ? 'keep' : 'fail';
}
