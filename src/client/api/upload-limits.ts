/** Files below this many bytes go in one multipart request; larger ones by session (SPEC.md section 5). */
export const PLAIN_UPLOAD_LIMIT = 52_428_800;
/** The size of each PUT of a session upload (SPEC.md section 9). */
export const CHUNK_SIZE = 5 * 1024 * 1024;
