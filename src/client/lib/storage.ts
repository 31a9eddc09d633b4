import { parseJson } from '../../shared/envelope';

/** The local storage keys of docs/PRODUCT.md section 8, in one place. Everything the app remembers between visits goes through here. */
export const KEYS = {
  accessToken: 'accessToken',
  username: 'username',
  userInfo: 'userInfo',
  userDeptName: 'userDeptName',
  vehicleNo: 'vehicleNo',
  selectedDate: 'selectedDate',
} as const;

export type StoredUser = { userId?: number; userName?: string; nickName?: string; deptName?: string; remark?: string; [key: string]: unknown };

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Storage full or blocked (private mode): the app still works for this visit.
  }
}

export const storage = {
  read,
  write,
  token: (): string | null => read(KEYS.accessToken),
  setToken: (token: string | null): void => write(KEYS.accessToken, token),
  username: (): string | null => read(KEYS.username),
  deptName: (): string | null => read(KEYS.userDeptName),
  vehicleNo: (): string | null => read(KEYS.vehicleNo),
  userInfo: (): StoredUser | null => parseJson(read(KEYS.userInfo) ?? '') as StoredUser | null,
  /** Stores what getInfo returned, as the original app does. */
  saveUser(username: string, user: StoredUser): void {
    write(KEYS.username, username);
    write(KEYS.userInfo, JSON.stringify(user));
    write(KEYS.userDeptName, typeof user.deptName === 'string' && user.deptName !== '' ? user.deptName : '-1');
    write(KEYS.vehicleNo, typeof user.remark === 'string' ? user.remark : '');
  },
  /** Forgets who is signed in (token and user), keeping device state such as a running drive. */
  clearUser(): void {
    for (const key of [KEYS.accessToken, KEYS.username, KEYS.userInfo, KEYS.userDeptName, KEYS.vehicleNo]) write(key, null);
  },
};
