/** `text` safe inside HTML text and quoted attributes: `& < > " '` as numeric references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
