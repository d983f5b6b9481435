// POST /v1/bills: filters, paging and sorting over status records.
import { compareDecimal, isDecimal } from '../contract/decimal.js';
import { Code, SandboxError } from './envelope.js';
import type { StatusRecordWire } from './types.js';

type Field = keyof StatusRecordWire;
export const FIELDS: readonly Field[] = [
  'billId', 'merchantReference', 'requestReference', 'paymentReference', 'billAmount',
  'currency', 'status', 'statusName', 'isFinal', 'dateTime',
];
const NUMERIC: ReadonlySet<Field> = new Set(['status', 'dateTime']);

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

interface Filter { name: Field; value: string; matchType: 'like' | 'equal' }
export interface ListQuery {
  filters: Filter[];
  index: number;
  size: number;
  sort: { name: Field; order: 1 | -1 };
}

function invalid(message: string): never {
  throw new SandboxError(Code.invalidRequest, message);
}

function field(name: unknown, where: string): Field {
  if (typeof name !== 'string' || !(FIELDS as readonly string[]).includes(name)) {
    invalid(`${where}: unknown property name ${JSON.stringify(name)}; one of ${FIELDS.join(', ')}`);
  }
  return name as Field;
}

function obj(v: unknown, where: string): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) invalid(`${where} must be an object`);
  return v as Record<string, unknown>;
}

/**
 * Validates the request body; unknown names and matchTypes are refused with 1003. With
 * `maxPageSize` (the fault) a larger `paging.size` is refused too; without it sizes above
 * MAX_PAGE_SIZE are capped. A filter on one of `refusedFilters` (the `listRefusedFilters` fault)
 * is refused before anything else is looked at.
 */
export function parseListQuery(
  body: unknown, pageBase: 0 | 1, maxPageSize: number | null = null, refusedFilters: readonly string[] = [],
): ListQuery {
  const b = obj(body, 'body') ?? {};
  const rawFilters = b.filters ?? [];
  if (!Array.isArray(rawFilters)) invalid('filters must be an array');
  for (const f of rawFilters as unknown[]) {
    const name = (f as { name?: unknown } | null)?.name;
    if (typeof name === 'string' && refusedFilters.includes(name)) invalid(`filters: ${JSON.stringify(name)} cannot be filtered on`);
  }
  const filters = rawFilters.map((f: unknown, i): Filter => {
    const o = obj(f, `filters[${i}]`) ?? invalid(`filters[${i}] must be an object`);
    const { value, matchType } = o;
    if (matchType !== 'like' && matchType !== 'equal') invalid(`filters[${i}].matchType must be "like" or "equal"`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      invalid(`filters[${i}].value must be a string`);
    }
    return { name: field(o.name, `filters[${i}].name`), value: String(value), matchType };
  });
  const paging = obj(b.paging, 'paging') ?? {};
  const index = paging.index ?? pageBase;
  const size = paging.size ?? Math.min(DEFAULT_PAGE_SIZE, maxPageSize ?? DEFAULT_PAGE_SIZE);
  if (typeof index !== 'number' || !Number.isInteger(index) || index < pageBase) {
    invalid(`paging.index must be a whole number from ${pageBase}`);
  }
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) invalid('paging.size must be a whole number from 1');
  if (maxPageSize !== null && size > maxPageSize) invalid(`paging.size must be at most ${maxPageSize}`);
  const sortIn = obj(b.sort, 'sort');
  let sort: ListQuery['sort'] = { name: 'dateTime', order: -1 };
  if (sortIn) {
    const order = sortIn.order ?? 1;
    if (order !== 1 && order !== -1) invalid('sort.order must be 1 or -1');
    sort = { name: field(sortIn.name, 'sort.name'), order };
  }
  return { filters, index: index - pageBase, size: maxPageSize === null ? Math.min(size, MAX_PAGE_SIZE) : size, sort };
}

function likeMatcher(pattern: string): (text: string) => boolean {
  const p = pattern.toLowerCase();
  if (!/[%_]/.test(p)) return (t) => t.toLowerCase().includes(p);
  const source = p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '[\\s\\S]*').replace(/_/g, '[\\s\\S]');
  const re = new RegExp(`^${source}$`);
  return (t) => re.test(t.toLowerCase());
}

function matcher(f: Filter): (r: StatusRecordWire) => boolean {
  if (f.matchType === 'like') {
    const m = likeMatcher(f.value);
    return (r) => m(String(r[f.name]));
  }
  if (f.name === 'billAmount') {
    return (r) => isDecimal(f.value) && compareDecimal(r.billAmount, f.value) === 0;
  }
  return (r) => String(r[f.name]) === f.value;
}

function compare(a: StatusRecordWire, b: StatusRecordWire, name: Field): number {
  if (name === 'billAmount') return compareDecimal(a.billAmount, b.billAmount);
  if (NUMERIC.has(name)) return (a[name] as number) - (b[name] as number);
  const x = String(a[name]);
  const y = String(b[name]);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function runListQuery(records: StatusRecordWire[], q: ListQuery): { lists: StatusRecordWire[]; total: number } {
  const tests = q.filters.map(matcher);
  const hits = records.filter((r) => tests.every((t) => t(r)));
  // Ties are broken by billId in the same order, so -1 is exactly the reverse of 1.
  hits.sort((a, b) => q.sort.order * (compare(a, b, q.sort.name) || compare(a, b, 'billId')));
  const start = q.index * q.size;
  return { lists: hits.slice(start, start + q.size), total: hits.length };
}
