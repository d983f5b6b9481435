/** `mm:ss`, or `h:mm:ss` from an hour up, of a duration in milliseconds (rounded up to the second). */
export function formatDuration(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const pad = (n: number) => String(n % 60).padStart(2, '0');
  const minutes = Math.floor(total / 60);
  return `${minutes >= 60 ? `${Math.floor(minutes / 60)}:${pad(minutes)}` : pad(minutes)}:${pad(total)}`;
}
