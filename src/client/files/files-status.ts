import { updateRecord } from '../api/records';

/** The record whose attachments a browser shows, for the files status (x-kind.attachments.filesStatus): its kind's API path, its id, the status field and the values sent with it. */
export interface RecordRef {
  apiPath: string;
  id: number | string;
  /** The field told 'uploading' and 'uploaded'. */
  field: string;
  /** The record's values sent alongside (the issue's taskId). */
  with?: Record<string, unknown>;
}

/**
 * Marks a record's attachments as 'uploading' or 'uploaded' (docs/PRODUCT.md section 4) with the small
 * payload {id, ...with, [field]} (the issue's {id, taskId, relatedFilesJson}): the server merges a PUT into the stored record, so
 * this touches nothing else. It is only a hint for the back office, so a failure is logged and
 * never shown or allowed to stop the upload.
 */
export async function setFilesStatus(issue: RecordRef, status: 'uploading' | 'uploaded'): Promise<void> {
  try {
    await updateRecord(issue.apiPath, { id: issue.id, ...issue.with, [issue.field]: status });
  } catch (e) {
    console.error(`Could not mark the attachments of record ${issue.id} (${issue.apiPath}) as ${status}:`, e);
  }
}
