/* GENERATED - do not edit. Made from schemas/*.schema.json by `npm run gen:types`. */
import type { ChargingRecord } from './charging.js';
import type { DriveRecord } from './drive.js';
import type { IssueRecord } from './issue.js';
import type { PoiRecord } from './poi.js';

export type { ChargingRecord, DriveRecord, IssueRecord, PoiRecord };

/** The record type of each kind, keyed by kind name. */
export interface KindRecords {
  charging: ChargingRecord;
  drive: DriveRecord;
  issue: IssueRecord;
  poi: PoiRecord;
}
