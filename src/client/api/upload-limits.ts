/** Files below this many bytes go in one multipart request; larger ones by session (docs/PRODUCT.md section 4, record detail). */
export const PLAIN_UPLOAD_LIMIT = 52_428_800;
/** The size of each PUT of a session upload (docs/PRODUCT.md section 10). */
export const CHUNK_SIZE = 5 * 1024 * 1024;
