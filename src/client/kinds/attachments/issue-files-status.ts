import { apiRequest } from '../../api/client';

/** The issue whose attachments a browser shows, for the relatedFilesJson status. */
export interface IssueRef {
  id: number | string;
  taskId?: unknown;
}

/**
 * Marks an issue's attachments as 'uploading' or 'uploaded' (SPEC.md section 4) with the small
 * payload {id, taskId, relatedFilesJson}: the server merges a PUT into the stored record, so
 * this touches nothing else. It is only a hint for the back office, so a failure is logged and
 * never shown or allowed to stop the upload.
 */
export async function setIssueFilesStatus(issue: IssueRef, status: 'uploading' | 'uploaded'): Promise<void> {
  try {
    await apiRequest('PUT', '/vtp/issueRecord', { body: { id: issue.id, taskId: issue.taskId, relatedFilesJson: status } });
  } catch (e) {
    console.error(`Could not mark the attachments of issue ${issue.id} as ${status}:`, e);
  }
}
