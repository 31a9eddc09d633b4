import { useParams } from 'react-router-dom';
import { RecordList } from '../engine/record-list';
import { kindByRoute } from '../engine/registry';
import { listHeaderExtras } from '../kinds/extensions';
import { NotFoundPage } from './not-found-page';

/** /data/:slug: the list of the kind whose route this is. A chunk of its own, without the form library. */
export function RecordListPage() {
  const { slug = '' } = useParams();
  const kind = kindByRoute(`/data/${slug}`);
  if (!kind) return <NotFoundPage />;
  return <RecordList key={kind.name} kind={kind} headerExtras={listHeaderExtras[kind.name] ?? []} />;
}
