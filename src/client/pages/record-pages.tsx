import { useParams } from 'react-router-dom';
import { RecordDetail } from '../engine/record-detail';
import { RecordList } from '../engine/record-list';
import { kindByRoute } from '../engine/registry';
import { detailSections, listHeaderExtras } from '../kinds/extensions';
import { NotFoundPage } from './not-found-page';

/** /data/:slug: the list of the kind whose route this is. */
export function RecordListPage() {
  const { slug = '' } = useParams();
  const kind = kindByRoute(`/data/${slug}`);
  if (!kind) return <NotFoundPage />;
  return <RecordList key={kind.name} kind={kind} headerExtras={listHeaderExtras[kind.name] ?? []} />;
}

/** /data/:slug/:id: a record of that kind ('new' for a new one). */
export function RecordDetailPage() {
  const { slug = '', id = '' } = useParams();
  const kind = kindByRoute(`/data/${slug}`);
  if (!kind || !(id === 'new' || /^\d+$/.test(id))) return <NotFoundPage />;
  return <RecordDetail key={`${kind.name}/${id}`} kind={kind} id={id} sections={detailSections[kind.name] ?? []} />;
}
