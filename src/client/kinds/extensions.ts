import type { DetailSection } from '../engine/record-detail';
import type { ListHeaderExtra } from '../engine/record-list';
import { LazyAttachmentsCard } from './attachments/lazy-attachments-card';
import { PoiExports } from './poi-exports';

/**
 * Per-kind additions to the generic screens, keyed by kind name: the only place where a kind
 * gets code of its own. Everything else about a kind comes from its schema file.
 */
export const listHeaderExtras: Record<string, ListHeaderExtra[]> = {
  poi: [PoiExports],
};

/**
 * Sections below a kind's detail form. The issue's status strip (video analysis,
 * desensitization, AI report) and its Attachments card register here when they are built.
 */
export const detailSections: Record<string, DetailSection[]> = {
  issue: [LazyAttachmentsCard],
};
