// The admin page's DOM helpers: elements built from data, never from HTML text.

type Props = Record<string, string | number | boolean>;

/** An element with properties; a name with a dash (`aria-label`, `data-label`) is set as an attribute. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name.includes('-')) node.setAttribute(name, String(value));
    else Object.assign(node, { [name]: value });
  }
  // No empty text nodes: an empty cell stays :empty, and the phone layout leaves it out.
  node.append(...children.filter((c) => c !== ''));
  return node;
}

/** A description list of label and value pairs; pairs without a value are left out. */
export function facts(pairs: [string, Node | string | null][]): HTMLDListElement {
  const dl = el('dl', { className: 'facts' });
  for (const [label, value] of pairs) {
    if (value === null || value === '') continue;
    dl.append(el('div', {}, el('dt', {}, label), el('dd', {}, value)));
  }
  return dl;
}

/**
 * Puts `rows` into `table`, or one row saying `empty` (nothing when that is ''). Each cell carries
 * its column's name (data-label), which the phone layout shows beside the value when rows become cards.
 */
export function fillTable(table: HTMLTableElement, rows: HTMLTableRowElement[], empty: string): void {
  const labels = Array.from(table.tHead?.rows[0]?.cells ?? [], (th) => th.textContent?.trim() ?? '');
  for (const tr of rows) {
    Array.from(tr.cells).forEach((td, i) => {
      const label = labels[i];
      if (label && !td.hasAttribute('data-label')) td.dataset.label = label;
      // One box for the value: the card layout puts the label and the value side by side.
      if (td.childNodes.length > 1 && !td.classList.contains('actions')) {
        td.replaceChildren(el('span', { className: 'value' }, ...td.childNodes));
      }
    });
  }
  const body = table.tBodies[0] ?? table.createTBody();
  if (rows.length === 0 && empty) {
    body.replaceChildren(el('tr', { className: 'empty' }, el('td', { colSpan: labels.length }, empty)));
  } else {
    body.replaceChildren(...rows);
  }
}

/** A table built whole: caption, headers and rows (the dialog's logs). */
export function table(caption: string, headers: string[], rows: (Node | string)[][], className = 'cards'): HTMLTableElement {
  const node = el('table', { className },
    el('caption', { className: 'visually-hidden' }, caption),
    el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody'));
  fillTable(node, rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c)))), '');
  return node;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
