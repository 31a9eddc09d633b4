/**
 * Size limits of the shared-files service. Named constants rather than configuration: the client
 * switches to sessions at 50 MiB (docs/PRODUCT.md section 4, record detail) and Graph caps a fragment at 60 MiB; change
 * them here if the field ever needs otherwise.
 */

/** A plain multipart upload; the client sends anything from 50 MiB up through a session. */
export const MAX_PLAIN_UPLOAD_BYTES = 100 * 1024 * 1024;
/** One PUT of an upload session (Graph: each request under 60 MiB; the client sends 5 MiB). */
export const MAX_FRAGMENT_BYTES = 60 * 1024 * 1024;
/** One file uploaded through a session: a long dash-cam video fits, a runaway client does not. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024 * 1024;
/** How long the media link embedded in preview.html works, so a long video can still seek. */
export const PREVIEW_LINK_TTL_SECONDS = 3600;
