import { formValidator } from './form-validator';

// Stands in for @rjsf/validator-ajv8 in the client build (vite.config.ts): @rjsf/core's index
// imports it for getTestRegistry, which we never call, and its default export compiles an Ajv
// at load time. Our forms use form-validator.ts; ajv stays on the server.

/** The validator RJSF's test helpers would use: ours. */
export const customizeValidator = (): typeof formValidator => formValidator;

export default formValidator;
