import { useParams } from 'react-router-dom';
import { RecordDetail } from '../engine/record-detail';
import { kindByRoute } from '../engine/registry';
import { detailExtras } from '../kinds/extensions';
import { NotFoundPage } from './not-found-page';

/** /data/:slug/:id: a record of that kind ('new' for a new one, 'waiting~<key>' for one saved on the phone), with the schema form. */
export function RecordDetailPage() {
  const { slug = '', id = '' } = useParams();
  const kind = kindByRoute(`/data/${slug}`);
  if (!kind || !(id === 'new' || /^\d+$/.test(id) || id.startsWith('waiting~'))) return <NotFoundPage />;
  return <RecordDetail key={`${kind.name}/${id}`} kind={kind} id={id} {...detailExtras(kind)} />;
}
