import { envelope, refused } from '../http/envelope.js';
import { message } from '../http/route-validation.js';
import { MAX_UPLOAD_BYTES } from './upload-limits.js';
import { MAX_PATH_CHARS } from './paths.js';

// The schemas of the shared-files service (docs/services/files.md): the API document, validation
// and serialisation. The rules of a path's names (paths.ts) and of Content-Range stay in code.

const FILES_TAGS = ['Shared files (/sharepoint)'];
const SESSION_TAGS = ['Shared files: upload sessions (Graph-style)'];

const fileEntry = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string', description: 'Stable for a path: a hash of project and path' },
    name: { type: 'string' },
    isFolder: { type: 'boolean' },
    mimeType: { type: 'string', description: "'' for folders" },
    size: { type: 'integer', minimum: 0, description: '0 for folders' },
    modified: { type: 'string', format: 'date-time', description: 'ISO-8601 UTC' },
    path: { type: 'string', description: "Project-relative, '/'-separated, no leading slash" },
  },
  required: ['id', 'name', 'isFolder', 'mimeType', 'size', 'modified', 'path'],
};

const envelopeRefusals = {
  400: refused(
    'A path this service refuses (.., backslashes, control characters, a symbolic link, a file where a folder is meant), or another bad parameter; msg says which',
  ),
  401: refused('Not signed in: send Authorization: Bearer <token>, or open a signed link made by POST /api/system/signed-link'),
  403: refused('A video analysis worker account: it may not use the files service'),
};

const path = (description: string) => ({
  type: 'string',
  maxLength: MAX_PATH_CHARS,
  description: `${description}: names separated by /, none of them .. or holding \\ < > : " | ? * or control characters`,
});
const pathQuery = (description: string, required: boolean) => ({
  type: 'object',
  properties: { path: path(description) },
  ...(required ? { required: ['path'] } : {}),
});
const conflictBehavior = (description: string) => ({ type: 'string', enum: ['fail', 'rename', 'replace'], description });

const binary = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };
/** GET of a file's bytes (Range supported). */
const fileBytes = (summary: string) => ({
  tags: FILES_TAGS,
  summary,
  querystring: pathQuery('Project-relative path of a file', true),
  response: {
    200: { description: 'The whole file', content: binary },
    206: { description: 'The part of the file the Range header asked for', content: binary },
    304: { description: 'Not modified (If-None-Match matched the ETag)' },
    ...envelopeRefusals,
    404: refused('No file at that path in your project'),
    416: refused('The Range is outside the file'),
  },
});

export const filesSchemas = {
  list: {
    tags: FILES_TAGS,
    summary: "A folder of your project's files: folders first, then by name ('' or / is the root; a missing folder is empty)",
    querystring: pathQuery('Project-relative folder', false),
    response: { 200: envelope({ type: 'array', items: fileEntry }), ...envelopeRefusals },
  },
  upload: {
    tags: FILES_TAGS,
    summary: 'Upload one file (at most 100 MiB) as multipart/form-data in a field named file; larger files by upload session',
    querystring: {
      type: 'object',
      properties: {
        path: path('Project-relative folder (made if missing)'),
        '@microsoft.graph.conflictBehavior': {
          ...conflictBehavior('What a name clash does: fail (409, the default), rename (name (1).ext) or replace'),
          default: 'fail',
        },
      },
    },
    response: {
      200: envelope(fileEntry),
      ...envelopeRefusals,
      408: refused('The file arrived slower than the server accepts'),
      409: refused('A file of that name exists (conflictBehavior fail), or a file is in the way of the folder'),
      413: refused('Too large for a plain upload, or larger than the largest file this server accepts'),
      507: refused('Not enough space: the disk, or your or your project’s share of it, as msg says'),
    },
  },
  download: fileBytes('A file as an attachment (Range supported)'),
  preview: fileBytes('A file shown inline, sandboxed (Range supported: videos seek)'),
  previewPage: {
    ...fileBytes('An HTML page showing a file, with signed links to its bytes (open it in a tab or frame)'),
    response: {
      200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
      ...envelopeRefusals,
      404: refused('No file at that path in your project'),
    },
  },
};

const graphError = (description: string) => ({
  description,
  type: 'object',
  properties: {
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
    nextExpectedRanges: { type: 'array', items: { type: 'string' }, description: 'On 409 and 416 of a fragment: what the session still expects' },
  },
  required: ['error'],
});

const sessionState = {
  type: 'object',
  properties: {
    expirationDateTime: { type: 'string', format: 'date-time' },
    nextExpectedRanges: { type: 'array', items: { type: 'string', pattern: '^\\d+-(\\d+)?$' }, description: "Byte ranges still wanted, such as '5242880-'" },
    size: { type: 'integer', description: 'The file size, once a fragment or fileSize named it' },
  },
  required: ['nextExpectedRanges'],
};

const driveItem = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    size: { type: 'integer' },
    file: { type: 'object', properties: { mimeType: { type: 'string' } } },
    createdDateTime: { type: 'string', format: 'date-time' },
    lastModifiedDateTime: { type: 'string', format: 'date-time' },
    parentReference: { type: 'object', properties: { path: { type: 'string' } } },
    path: { type: 'string' },
  },
  required: ['id', 'name', 'size', 'path'],
};

const fileName = (description: string) => ({
  type: 'string',
  pattern: '\\S',
  description,
  ...message('must be the name the uploaded file should get (not blank)', '必须是上传文件的名称（不能为空白）'),
});
const itemName = fileName('The name the file gets (Graph)');
const fileSize = {
  type: 'integer',
  minimum: 0,
  description: `The file's size in bytes; more than the server accepts (at most ${MAX_UPLOAD_BYTES}) is a 413`,
  ...message('must be a whole number of bytes', '必须是整数字节数'),
};

const secretParam = {
  type: 'object',
  properties: { secret: { type: 'string', description: 'The upload URL’s secret (it is the credential)' } },
  required: ['secret'],
};
/** A route of the upload URL itself: no sign-in, the secret in the path, 404 for a session gone. */
const byUrl = (summary: string, response: Record<number, unknown>) => ({
  tags: SESSION_TAGS,
  summary,
  security: [],
  params: secretParam,
  response: { ...response, 404: graphError('The session does not exist, expired, was cancelled or finished') },
});

export const sessionSchemas = {
  create: {
    tags: SESSION_TAGS,
    summary: 'Start an upload session (Microsoft Graph createUploadSession): the answer’s uploadUrl takes the fragments without a token',
    querystring: pathQuery('Project-relative folder the file goes into', false),
    body: {
      type: 'object',
      properties: {
        item: { type: 'object', properties: { name: itemName, fileSize, '@microsoft.graph.conflictBehavior': conflictBehavior('Graph: as conflictBehavior') } },
        fileName: fileName('The name the file gets, instead of item.name'),
        fileSize,
        conflictBehavior: conflictBehavior('fail (the default: 409 when the upload completes onto a taken name), rename or replace'),
        deferCommit: { type: 'boolean', description: 'Keep the complete file until POST {uploadUrl}' },
      },
      anyOf: [{ required: ['fileName'] }, { required: ['item'], properties: { item: { required: ['name'], properties: { name: itemName } } } }],
      ...message('must be a JSON object such as {"fileName": "video.mp4"}', '必须是 JSON 对象，如 {"fileName": "video.mp4"}'),
    },
    response: {
      200: {
        type: 'object',
        properties: {
          uploadUrl: { type: 'string', format: 'uri' },
          expirationDateTime: { type: 'string', format: 'date-time' },
          nextExpectedRanges: { type: 'array', items: { type: 'string' } },
        },
        required: ['uploadUrl', 'expirationDateTime', 'nextExpectedRanges'],
      },
      400: graphError('A bad folder, name or body; msg says which'),
      401: graphError('Not signed in'),
      403: graphError('A video analysis worker account'),
      413: graphError('fileSize is larger than this server accepts'),
      429: graphError('Too many open upload sessions'),
      507: graphError('Not enough space for the announced size: the disk, or your or your project’s share'),
    },
  },
  status: byUrl('What the session still expects', { 200: sessionState }),
  put: byUrl('One fragment (Content-Range: bytes start-end/total, Content-Length), raw bytes, in order; up to four in flight', {
    200: { ...driveItem, description: 'The last fragment: the file replaced one of the same name' },
    201: { ...driveItem, description: 'The last fragment: the new file' },
    202: { ...sessionState, description: 'Stored; what the session still expects ([] with deferCommit when complete)' },
    400: graphError('A malformed Content-Range, a Content-Length that does not match it, a changed total, a fragment cut short, a refused path'),
    408: graphError('The fragment arrived slower than the server accepts; send it again'),
    409: graphError('Another request is sending these bytes, four fragments are in flight, or the name is taken (conflictBehavior fail)'),
    411: graphError('No Content-Length'),
    413: graphError('The fragment or the file is too large'),
    416: graphError('Out of order or overlapping bytes already received; nextExpectedRanges says what to send'),
    507: graphError('Not enough space'),
  }),
  commit: byUrl('Put a complete deferCommit upload into place', {
    200: driveItem,
    201: driveItem,
    400: graphError('The upload is not complete'),
    409: graphError('Another request is finishing it, or the name is taken'),
  }),
  cancel: byUrl('Cancel the session and drop its bytes', { 204: { description: 'Cancelled' } }),
};
