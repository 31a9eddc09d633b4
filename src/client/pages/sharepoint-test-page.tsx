import { useState } from 'react';
import { Card } from 'primereact/card';
import { FilePanel } from '../files/file-panel';
import { PageHeader } from '../ui/page-header';
import { PAGE_BACK, PAGE_TITLES } from '../../shared/page-shell';

/** The breadcrumb of a project-relative folder: Root, then each folder, each one a way back up. */
function Breadcrumb({ path, onGo }: { path: string; onGo: (path: string) => void }) {
  const names = path === '' ? [] : path.split('/');
  return (
    <nav className="file-breadcrumb" aria-label="Folder">
      <button type="button" onClick={() => onGo('')} disabled={names.length === 0}>
        <i className="pi pi-home" aria-hidden="true" /> Root
      </button>
      {names.map((name, i) => (
        <span key={i} className="file-breadcrumb-part">
          <i className="pi pi-angle-right" aria-hidden="true" />
          <button type="button" onClick={() => onGo(names.slice(0, i + 1).join('/'))} disabled={i === names.length - 1}>
            {name}
          </button>
        </span>
      ))}
    </nav>
  );
}

/** /sharepoint-test: the file browser over the whole project tree, with upload (a tester's tool). */
export function SharepointTestPage() {
  const [path, setPath] = useState('');
  return (
    <div className="page">
      <PageHeader title={PAGE_TITLES.sharepointTest} back={PAGE_BACK.sharepointTest} />
      <Card className="attachments-card">
        <Breadcrumb path={path} onGo={setPath} />
        <FilePanel key={path} title={path.split('/').at(-1) || 'Project files'} path={path} editable onOpenFolder={(item) => setPath(item.path)} />
      </Card>
    </div>
  );
}
