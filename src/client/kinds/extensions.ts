import { createElement, useMemo } from 'react';
import type { AnalysisMeta, Kind } from '../../shared/kind-types';
import type { DetailSection, DetailSectionProps } from '../engine/record-detail';
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
 * A record's analysis values under the contract's names (issueStatus, videoAnalysisStatus,
 * videoDesensitizationStatus, aiVideoAnalysisReport), which the strip and the aiStatus answers
 * speak, read from the fields the kind's x-kind.analysis names (decision 041).
 */
export function analysisValues(analysis: AnalysisMeta, record: Record<string, unknown>): Record<string, unknown> {
  return {
    ...record,
    issueStatus: record[analysis.status],
    videoAnalysisStatus: record[analysis.analysisStatus],
    videoDesensitizationStatus: record[analysis.desensitizationStatus],
    aiVideoAnalysisReport: record[analysis.report],
  };
}

/** The status strip of a kind with x-kind.analysis, reading the fields it names. */
function AnalysisStrip(props: DetailSectionProps) {
  const { analysis } = props.kind.meta;
  // One object per record value: the strip's effects follow the record.
  const record = useMemo(() => (analysis ? analysisValues(analysis, props.record) : props.record), [analysis, props.record]);
  return createElement(LazyIssueStatusStrip, { ...props, record });
}

/**
 * Sections above the form: the status strip (video analysis, desensitization, AI report) of every
 * kind that declares x-kind.analysis. Submitting to AI (first submit and resubmit) waits for the
 * analysis service's calls, under the kind's API path.
 */
export function detailTopSections(kind: Kind): DetailSection[] {
  return kind.meta.analysis ? [AnalysisStrip] : [];
}
