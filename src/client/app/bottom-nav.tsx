import { NavLink, useLocation } from 'react-router-dom';
import { SP_TEST_USER } from '../api/config';
import { useAuth } from '../auth/auth-context';
import { NAV_ITEMS } from '../../shared/page-shell';

interface NavItem {
  to: string;
  label: string;
  icon: string;
  /** Active for this path and everything below it. */
  prefix: string;
}

// The same items the server draws in the page shell it sends before the app has loaded.
const ITEMS: NavItem[] = NAV_ITEMS.map((item) => ({ ...item, prefix: item.to }));

const SP_TEST: NavItem = { to: '/sharepoint-test', label: 'SP测试', icon: 'pi pi-folder', prefix: '/sharepoint-test' };

/** The bottom navigation; 'SP测试' only for the configured test username. */
export function BottomNav() {
  const { state } = useAuth();
  const { pathname } = useLocation();
  const spTest = SP_TEST_USER !== '' && state.status === 'signedIn' && state.username === SP_TEST_USER;
  const items = spTest ? [...ITEMS, SP_TEST] : ITEMS;
  return (
    <nav className="bottom-nav" aria-label="Main">
      {items.map((item) => {
        const active = pathname === item.prefix || pathname.startsWith(`${item.prefix}/`);
        return (
          <NavLink key={item.to} to={item.to} className={() => `bottom-nav-item${active ? ' active' : ''}`} aria-current={active ? 'page' : undefined}>
            <i className={item.icon} aria-hidden="true" />
            <span>{item.label}</span>
          </NavLink>
        );
      })}
    </nav>
  );
}
