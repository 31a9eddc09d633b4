import { createElement, lazy, Suspense } from 'react';
import type { Kind } from '../../shared/kind-types';
import type { DetailSection, DetailSectionProps } from '../engine/record-detail';
import type { ValueText } from '../engine/record-sheet';
import type { ListHeaderExtra } from '../engine/record-list';
import { LazyStatusStrip } from './issue-status/lazy-status-strip';
import { analysisValueText } from './issue-status/phase';
import { PoiExports } from './poi-exports';

/** Per-kind additions to the generic screens, keyed by kind name: the only code of a kind's own. */
export const listHeaderExtras: Record<string, ListHeaderExtra[]> = {
  poi: [PoiExports],
};

// Its own chunk: the list screens read this file too, and never show attachments.
const AttachmentsCard = lazy(() => import('./attachments/attachments-card').then((m) => ({ default: m.AttachmentsCard })));

function LazyAttachmentsCard(props: DetailSectionProps) {
  return createElement(
    Suspense,
    { fallback: createElement('div', { className: 'attachments-card-placeholder', 'aria-hidden': true }) },
    createElement(AttachmentsCard, props),
  );
}

/**
 * What a kind adds to its detail screen: with x-kind.attachments, the Attachments card; with
 * x-kind.analysis, the status strip above the sheet and the words for its stored values (AI_PROCESS, READY…).
 */
export function detailExtras(kind: Kind): { sections: DetailSection[]; topSections: DetailSection[]; valueText: ValueText | undefined } {
  const { analysis, attachments } = kind.meta;
  return {
    sections: attachments ? [LazyAttachmentsCard] : [],
    topSections: analysis ? [LazyStatusStrip] : [],
    valueText: analysis ? (field, value) => analysisValueText(kind, field, value) : undefined,
  };
}
