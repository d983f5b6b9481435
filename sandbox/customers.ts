// Bind customer: the same email or phone always gets the same customerId.
import { Code, SandboxError } from './envelope.js';
import { randomToken } from './ids.js';

export class CustomerBook {
  readonly #ids = new Map<string, string>();

  bind(info: unknown): string {
    if (info === null || typeof info !== 'object' || Array.isArray(info)) {
      throw new SandboxError(Code.invalidRequest, 'Body must be an object with the customer\'s information');
    }
    const { name, email, phone } = info as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '') {
      throw new SandboxError(Code.invalidRequest, 'name is required');
    }
    const keys: string[] = [];
    if (typeof email === 'string' && /^[^@\s]+@[^@\s]+$/.test(email.trim())) keys.push(`e:${email.trim().toLowerCase()}`);
    if (typeof phone === 'string' && /\d{3,}/.test(phone.replace(/[\s().-]/g, ''))) {
      keys.push(`p:${phone.replace(/[^\d+]/g, '')}`);
    }
    if (keys.length === 0) throw new SandboxError(Code.invalidRequest, 'A valid email or phone is required');
    const id = keys.map((k) => this.#ids.get(k)).find((v) => v !== undefined) ?? `CUS${randomToken(8)}`;
    for (const k of keys) this.#ids.set(k, id);
    return id;
  }

  clear(): void {
    this.#ids.clear();
  }
}
