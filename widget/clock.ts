/** The offset between the service's clock and the browser's, learned from BFF responses. */
export class Clock {
  /** Server time minus browser time, milliseconds. */
  offset = 0;

  /** The current time on the server's clock, unix milliseconds. */
  now(): number {
    return Date.now() + this.offset;
  }

  /**
   * Learns the offset from a response's `X-Service-Time` (the payment service's clock, which
   * expiredOn is on), else `X-Server-Time`, else `Date`, and the request's start and end.
   */
  _observe(headers: Headers, sentAt: number, receivedAt: number): void {
    const server = serverTime(headers);
    if (server !== undefined) this.offset = Math.round(server - (sentAt + receivedAt) / 2);
  }
}

function serverTime(headers: Headers): number | undefined {
  const exact = Number(headers.get('x-service-time') ?? headers.get('x-server-time'));
  // Date has whole seconds: aim at the middle of the second it names.
  const date = Date.parse(headers.get('date') ?? '') + 500;
  return exact > 0 ? exact : date > 0 ? date : undefined;
}
