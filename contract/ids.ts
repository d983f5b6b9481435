// What an id from the service (billId) or of ours (merchantReference) may be: anything printable up
// to a length every store keeps as text. Routes check the ids in their paths against it before
// any store call (a NUL byte is refused by PostgreSQL's text type: a 500, not a 404), and the
// upstream client refuses service answers whose billId a route could not take.

export const MAX_ID_LENGTH = 200;

/** 1 to MAX_ID_LENGTH characters, none a control character or half of a surrogate pair. */
export const SERVICE_ID = /^[^\p{Cc}\p{Cs}]{1,200}$/u;

export function isServiceId(value: string): boolean {
  return SERVICE_ID.test(value);
}
