import { issueAttachmentFolder } from '../../shared/attachments.js';
import type { RecordData } from '../records/validation.js';

/**
 * The day packages of SPEC.md section 7, per kind: the route the client opens, the words used
 * in file names and messages, and where a record's attachments live when it has any. A kind
 * missing here still gets a sheet in the day's Excel report, but no package route.
 */
export interface PackageKind {
  /** Path under /download. */
  route: string;
  /** Plural, for file and sheet names: DEMO_V1_2026-11-21_Journeys.zip. */
  label: string;
  /** Singular, for messages: 'No Journey data available for 2026-11-21'. */
  noun: string;
  /** Whether the route takes a range (date to date2) rather than one day. */
  range?: boolean;
  /** The folder of the shared files holding a record's attachments. */
  attachmentFolder?: (record: RecordData) => string;
}

const issueFolder = (record: RecordData): string =>
  issueAttachmentFolder({
    id: record['id'] as number,
    issueStartTime: typeof record['issueStartTime'] === 'string' ? record['issueStartTime'] : null,
    vehicleNo: typeof record['vehicleNo'] === 'string' ? record['vehicleNo'] : null,
    attachmentFolder: record['attachmentFolder'],
  });

/** Kind name -> its package routes; the POI kind has a second, ranged route for the POI list's ZIP link. */
export const PACKAGE_KINDS: Readonly<Record<string, readonly PackageKind[]>> = {
  drive: [{ route: 'download_JourneysFiles', label: 'Journeys', noun: 'Journey' }],
  charging: [{ route: 'download_ChargingsFiles', label: 'Chargings', noun: 'Charging' }],
  issue: [{ route: 'download_IssueFiles', label: 'Issues', noun: 'Issue', attachmentFolder: issueFolder }],
  poi: [
    { route: 'download_POIsFiles', label: 'POIs', noun: 'POI' },
    { route: 'download_POIsFiles_a', label: 'POIs', noun: 'POI', range: true },
  ],
};

/** The sheet name of a kind in the day's Excel report: its package label, else its schema title. */
export function sheetName(kindName: string, title: string): string {
  const label = PACKAGE_KINDS[kindName]?.[0]?.label ?? title;
  // Excel's rules for sheet names: at most 31 characters, none of : \ / ? * [ ].
  return label.replace(/[:\\/?*[\]]/g, '_').slice(0, 31);
}
