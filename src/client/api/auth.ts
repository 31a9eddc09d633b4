import { apiRequest, ApiError, type Envelope } from './client';
import { CLIENT_ID } from './config';
import type { StoredUser } from '../lib/storage';

/** POST /auth/login; resolves with the access token or raises 'Login failed' when none came back. */
export async function login(username: string, password: string): Promise<string> {
  const res = await apiRequest<Envelope<{ access_token?: string; expire_in?: number } | null>>('POST', '/auth/login', {
    body: { username, password, clientId: CLIENT_ID, grantType: 'password' },
    noAuthRedirect: true,
  });
  const token = res.data?.access_token;
  if (!token) throw new ApiError(200, 'Login failed');
  return token;
}

export const getInfo = (): Promise<Envelope<{ user: StoredUser }>> => apiRequest('GET', '/system/user/getInfo');

export async function logout(): Promise<void> {
  await apiRequest('POST', '/auth/logout', { noAuthRedirect: true });
}
