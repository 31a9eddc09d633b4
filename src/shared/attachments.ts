/**
 * Where an issue's attachments live inside its project's file tree (SPEC.md section 3):
 * issue_records/{yyyyMMdd of the start}/{vehicle}/Issue_{id or 'new'}_{yyyyMMdd-HHmmss of the start}.
 * A missing or unreadable start gives 00000000 and 00000000-000000. An issue's stored
 * attachmentFolder (x-derived, set at creation) wins over the rule. Used by the attachment
 * browser, the shared-files service and the day packages alike.
 */
export function issueAttachmentFolder(issue: { id?: number | string | null; issueStartTime?: string | null; vehicleNo?: string | null; attachmentFolder?: unknown }): string {
  // Set once by the server when the issue is created, so the folder stays put when the start time is edited.
  if (typeof issue.attachmentFolder === 'string' && issue.attachmentFolder !== '') return issue.attachmentFolder;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(issue.issueStartTime ?? '');
  const day = m ? `${m[1]}${m[2]}${m[3]}` : '00000000';
  const stamp = m ? `${day}-${m[4] ?? '00'}${m[5] ?? '00'}${m[6] ?? '00'}` : '00000000-000000';
  const vehicle = safeSegment(issue.vehicleNo ?? '') || 'unknown';
  const id = issue.id === undefined || issue.id === null || issue.id === '' ? 'new' : safeSegment(String(issue.id));
  return `issue_records/${day}/${vehicle}/Issue_${id}_${stamp}`;
}

/** A path segment with nothing that could change the path: no separators, dots-only or control characters. */
function safeSegment(text: string): string {
  const cleaned = text.replace(/[\\/\u0000-\u001f:*?"<>|]/g, '_').trim();
  return /^\.+$/.test(cleaned) ? cleaned.replace(/\./g, '_') : cleaned.slice(0, 100);
}
