// The BFF's admin API (/api/admin/*) as the admin page calls it. The token is the one the merchant
// typed, kept in this tab's sessionStorage only; a token the BFF refuses is forgotten at once.
import type {
  AdminBillDetail, AdminBillList, BoundCustomerView, CustomerList, NoticeList, NoticeReplayed, NoticesReplayed,
  NoticeState, WebhookEndpointView,
} from '../contract/admin.js';
import type { AdminStrings } from './strings.js';

const TOKEN_KEY = 'bill-checkout:admin-token';

export class AdminError extends Error {
  constructor(message: string, readonly status: number | null = null, readonly code: string | null = null) {
    super(message);
  }

  /** The BFF refused the token (401/403): it is forgotten already. */
  get refused(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function keepToken(value: string): void {
  sessionStorage.setItem(TOKEN_KEY, value);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

export interface BillQuery {
  filters: { name: string; value: string; matchType: 'like' | 'equal' }[];
  paging: { index: number; size: number };
  sort: { name: string; order: 1 | -1 };
}

export interface CustomerInput {
  customerKey: string;
  name?: string;
  email?: string;
  phone?: string;
}

export type AdminApi = ReturnType<typeof adminApi>;

/**
 * The calls of the admin page. `onRefused` runs after a refused token was forgotten, once per
 * refused answer; the call then throws an AdminError whose `refused` is true.
 */
export function adminApi(a: AdminStrings, onRefused: () => void) {
  /** `collection`: a 404 means the admin routes are off (no such collection otherwise). */
  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, collection = false): Promise<T> {
    const bearer = token();
    if (!bearer) throw new AdminError(a.needToken);
    let res: Response;
    try {
      res = await fetch(`/api/admin/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new AdminError(a.bffUnreachable);
    }
    const answer: unknown = await res.json().catch(() => null);
    if (res.ok) return answer as T;
    const error = (answer as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    const code = typeof error?.code === 'string' ? error.code : null;
    if (res.status === 401 || res.status === 403) {
      // Only the token this call sent: another may have been typed meanwhile.
      if (token() === bearer) forgetToken();
      onRefused();
      throw new AdminError(a.tokenRefused, res.status, code);
    }
    if (res.status === 404 && collection) throw new AdminError(a.routesOff, 404, code);
    const message = typeof error?.message === 'string' ? error.message : a.httpStatus(res.status);
    throw new AdminError(message, res.status, code);
  }

  const id = encodeURIComponent;
  const query = (params: Record<string, string | number | undefined>) => {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, String(v));
    const text = search.toString();
    return text ? `?${text}` : '';
  };

  return {
    bills: (input: BillQuery) => call<AdminBillList>('POST', 'bills', input, true),
    bill: (billId: string) => call<AdminBillDetail>('GET', `bills/${id(billId)}`),
    cancel: (billId: string) => call<unknown>('POST', `bills/${id(billId)}/cancel`, {}),
    notices: (filter: { state?: NoticeState; billId?: string; from?: number; to?: number; limit?: number }) =>
      call<NoticeList>('GET', `notices${query(filter)}`, undefined, true),
    replayNotice: (noticeId: string) => call<NoticeReplayed>('POST', `notices/${id(noticeId)}/replay`, {}),
    replayRange: (from: number, to: number) => call<NoticesReplayed>('POST', `notices/replay${query({ from, to })}`, {}),
    enableWebhook: () => call<WebhookEndpointView>('POST', 'webhook/enable', {}),
    bindCustomer: (input: CustomerInput) => call<BoundCustomerView>('POST', 'customers', input),
    customers: (limit: number) => call<CustomerList>('GET', `customers${query({ limit })}`, undefined, true),
  };
}
