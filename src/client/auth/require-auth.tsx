import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { Loading } from '../ui/loading';
import { useAuth } from './auth-context';

/** Where a visitor was going, remembered through the sign-in page. */
export interface FromState {
  from?: string;
}

/** The protection wrapper: 'Loading...' while auth resolves, /login (remembering the origin) when signed out. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { state } = useAuth();
  const location = useLocation();
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'signedOut') {
    const from = `${location.pathname}${location.search}${location.hash}`;
    return <Navigate to="/login" replace state={{ from } satisfies FromState} />;
  }
  return <>{children}</>;
}
