// Bound customers: the merchant binds its own customer key once; binding the same key again
// answers the same customer id without calling the service. The list shows every bound key.
import type { AdminApi, CustomerInput } from './api.js';
import { el, errorText, fillTable } from './dom.js';
import type { Formats } from './format.js';
import type { AdminStrings } from './strings.js';

export interface CustomersSection {
  load(): Promise<void>;
  clear(): void;
}

export function customersSection(d: { api: AdminApi; a: AdminStrings; f: Formats }): CustomersSection {
  const { a, f } = d;
  const form = document.getElementById('bind-form') as HTMLFormElement;
  const result = document.getElementById('bind-result')!;
  const list = document.getElementById('customers') as HTMLTableElement;
  let loads = 0;

  async function load(): Promise<void> {
    const run = ++loads;
    list.setAttribute('aria-busy', 'true');
    try {
      const { customers } = await d.api.customers(50);
      if (run !== loads) return;
      fillTable(list, customers.map((c) => el('tr', {},
        el('td', { className: 'mono wrap' }, c.customerKey),
        el('td', { className: 'mono wrap' }, c.customerId),
        el('td', {}, f.dateTime(c.boundAt)))), a.noCustomers);
    } catch (e) {
      if (run !== loads) return;
      fillTable(list, [], '');
      // The bind's own result stays; a failed list says so only when nothing else is shown.
      if (!result.textContent) {
        result.className = 'note alert';
        result.textContent = errorText(e);
      }
    } finally {
      if (run === loads) list.setAttribute('aria-busy', 'false');
    }
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const field = (name: string) => String(data.get(name) ?? '').trim();
    const customer: CustomerInput = { customerKey: field('customerKey') };
    for (const key of ['name', 'email', 'phone'] as const) {
      const v = field(key);
      if (v) customer[key] = v;
    }
    result.className = 'note';
    if (!customer.email && !customer.phone) {
      result.className = 'note alert';
      result.textContent = a.giveContact;
      return;
    }
    const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!;
    button.disabled = true;
    try {
      const bound = await d.api.bindCustomer(customer);
      result.textContent = bound.bound === 'existing' ? a.boundExisting(bound.customerId) : a.boundNew(bound.customerId);
      void load();
    } catch (error) {
      result.className = 'note alert';
      result.textContent = errorText(error);
    } finally {
      button.disabled = false;
    }
  });

  return {
    load,
    clear() {
      loads++;
      fillTable(list, [], '');
    },
  };
}
