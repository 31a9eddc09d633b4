import { fillFolderTemplate } from '../../src/shared/attachments.js';

/**
 * The issue kind's folder rule of docs/PRODUCT.md section 8, as schemas/issue.schema.json states it
 * (x-kind.attachments.folder); tests/shared/kind-features.test.ts holds the two together. The app
 * itself never names a kind: it reads the folder from the schema (attachmentFolderOf).
 */
export const ISSUE_FOLDER_TEMPLATE = 'issue_records/{issueStartTime:yyyyMMdd}/{vehicleNo}/Issue_{id}_{issueStartTime:yyyyMMdd-HHmmss}';

/**
 * An issue's folder, for tests that hold an issue but no registry:
 * issue_records/{yyyyMMdd of the start}/{vehicle}/Issue_{id or 'new'}_{yyyyMMdd-HHmmss of the start}.
 */
export function issueAttachmentFolder(issue: {
  id?: number | string | null;
  issueStartTime?: string | null;
  vehicleNo?: string | null;
  attachmentFolder?: unknown;
}): string {
  if (typeof issue.attachmentFolder === 'string' && issue.attachmentFolder !== '') return issue.attachmentFolder;
  return fillFolderTemplate(ISSUE_FOLDER_TEMPLATE, issue);
}
