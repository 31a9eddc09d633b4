import type { Kind } from '../../shared/kind-types';
import type { DetailSection } from '../engine/record-detail';
import type { ListHeaderExtra } from '../engine/record-list';
import { LazyAttachmentsCard } from './attachments/lazy-attachments-card';
import { LazyIssueStatusStrip } from './issue-status/lazy-status-strip';
import { PoiExports } from './poi-exports';

/**
 * Per-kind additions to the generic screens, keyed by kind name: the only place where a kind
 * gets code of its own. Everything else about a kind comes from its schema file.
 */
export const listHeaderExtras: Record<string, ListHeaderExtra[]> = {
  poi: [PoiExports],
};

/** Sections below a kind's detail form: the Attachments card of every kind with x-kind.attachments. */
export function detailSections(kind: Kind): DetailSection[] {
  return kind.meta.attachments ? [LazyAttachmentsCard] : [];
}

/**
 * Sections above the form: the issue's status strip (video analysis, desensitization, AI report).
 * Submitting to AI (first submit and resubmit) waits for the analysis service's calls.
 */
export const detailTopSections: Record<string, DetailSection[]> = {
  issue: [LazyIssueStatusStrip],
};
