import { apiRequest } from '../api/client';

/** The record whose attachments a browser shows, for the relatedFilesJson status: its kind's API path, id and taskId. */
export interface RecordRef {
  apiPath: string;
  id: number | string;
  taskId?: unknown;
}

/**
 * Marks a record's attachments (issues: docs/PRODUCT.md section 4) as 'uploading' or 'uploaded' (docs/PRODUCT.md section 4) with the small
 * payload {id, taskId, relatedFilesJson}: the server merges a PUT into the stored record, so
 * this touches nothing else. It is only a hint for the back office, so a failure is logged and
 * never shown or allowed to stop the upload.
 */
export async function setFilesStatus(issue: RecordRef, status: 'uploading' | 'uploaded'): Promise<void> {
  try {
    await apiRequest('PUT', issue.apiPath, { body: { id: issue.id, taskId: issue.taskId, relatedFilesJson: status } });
  } catch (e) {
    console.error(`Could not mark the attachments of issue ${issue.id} as ${status}:`, e);
  }
}
