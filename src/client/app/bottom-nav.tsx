import { NavLink, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { SP_TEST_USER } from '../api/config';
import { useAuth } from '../auth/auth-context';
import { NAV_ITEMS } from '../../shared/page-shell';

// The same items the server draws in the page shell before the app has loaded; each shows
// nav.<key> in the language on screen.
const KEYS = { '/dashboard': 'workspace', '/data': 'data', '/profile': 'profile' } as const;
const ITEMS = NAV_ITEMS.map((item) => ({ to: item.to, icon: item.icon, key: KEYS[item.to] }));
const SP_TEST = { to: '/sharepoint-test', key: 'sharepointTest', icon: 'pi pi-folder' } as const;

/** The bottom navigation; 'SP测试' only for the configured test username. */
export function BottomNav() {
  const { t } = useTranslation();
  const { state } = useAuth();
  const { pathname } = useLocation();
  const spTest = SP_TEST_USER !== '' && state.status === 'signedIn' && state.username === SP_TEST_USER;
  return (
    <nav className="bottom-nav" aria-label={t('nav.label')}>
      {(spTest ? [...ITEMS, SP_TEST] : ITEMS).map((item) => {
        // Active for its path and everything below it.
        const active = pathname === item.to || pathname.startsWith(`${item.to}/`);
        return (
          <NavLink key={item.to} to={item.to} className={() => `bottom-nav-item${active ? ' active' : ''}`} aria-current={active ? 'page' : undefined}>
            <i className={item.icon} aria-hidden="true" />
            <span>{t(`nav.${item.key}`)}</span>
          </NavLink>
        );
      })}
    </nav>
  );
}
