import { NavLink, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { SP_TEST_USER } from '../api/config';
import { useAuth } from '../auth/auth-context';
import { NAV_ITEMS } from '../../shared/page-shell';

interface NavItem {
  to: string;
  /** The English label (the page shell's); the screen shows nav.<key> of the language on screen. */
  label: string;
  key: 'workspace' | 'data' | 'profile' | 'sharepointTest';
  icon: string;
  /** Active for this path and everything below it. */
  prefix: string;
}

// The same items the server draws in the page shell it sends before the app has loaded.
const KEYS: Record<string, NavItem['key']> = { '/dashboard': 'workspace', '/data': 'data', '/profile': 'profile' };
const ITEMS: NavItem[] = NAV_ITEMS.map((item) => ({ ...item, key: KEYS[item.to] ?? 'data', prefix: item.to }));

const SP_TEST: NavItem = { to: '/sharepoint-test', label: 'SP测试', key: 'sharepointTest', icon: 'pi pi-folder', prefix: '/sharepoint-test' };

/** The bottom navigation; 'SP测试' only for the configured test username. */
export function BottomNav() {
  const { t } = useTranslation();
  const { state } = useAuth();
  const { pathname } = useLocation();
  const spTest = SP_TEST_USER !== '' && state.status === 'signedIn' && state.username === SP_TEST_USER;
  const items = spTest ? [...ITEMS, SP_TEST] : ITEMS;
  return (
    <nav className="bottom-nav" aria-label={t('nav.label')}>
      {items.map((item) => {
        const active = pathname === item.prefix || pathname.startsWith(`${item.prefix}/`);
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
