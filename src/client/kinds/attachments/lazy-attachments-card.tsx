import { lazy, Suspense } from 'react';
import type { DetailSectionProps } from '../../engine/record-detail';

// Its own chunk: extensions.ts is also read by the list screens, which never show attachments.
const AttachmentsCard = lazy(() => import('./attachments-card').then((m) => ({ default: m.AttachmentsCard })));

/** The Attachments card, loaded when an issue's detail first shows it. */
export function LazyAttachmentsCard(props: DetailSectionProps) {
  return (
    <Suspense fallback={<div className="attachments-card-placeholder" aria-hidden="true" />}>
      <AttachmentsCard {...props} />
    </Suspense>
  );
}
