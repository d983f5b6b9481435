// Everything a test run saw: response bodies and headers, SSE text, log lines. The secrets scan
// greps it all for every secret in its raw, base64, base64url and hex forms.

export interface Recorder {
  /** fetch that keeps a copy of every answer (a stream's text is kept as it is read). */
  fetch: typeof fetch;
  /** Adds text seen elsewhere (log lines, a child's output). */
  add(text: string): void;
  texts(): string[];
  /** Number of responses recorded. */
  responses(): number;
}

export function createRecorder(): Recorder {
  const seen: string[] = [];
  let responses = 0;
  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    responses++;
    seen.push(JSON.stringify([res.status, ...res.headers]));
    if (!res.body) return res;
    const decoder = new TextDecoder();
    const copy = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen.push(decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
    });
    // Through a transform, not tee(): a client that cancels still closes the connection.
    const theirs = res.body.pipeThrough(copy);
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return {
    fetch: recordingFetch,
    add: (text) => void seen.push(text),
    texts: () => seen,
    responses: () => responses,
  };
}

/** Every form a secret could leak in. Forms shorter than 6 characters are skipped. */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  const add = (s: string) => {
    if (s.length >= 6) forms.add(s);
  };
  const bytes = Buffer.from(secret, 'utf8');
  add(secret);
  add(bytes.toString('base64').replace(/=+$/, ''));
  add(bytes.toString('base64url'));
  add(bytes.toString('hex'));
  add(bytes.toString('hex').toUpperCase());
  add(encodeURIComponent(secret));
  // whsec_ secrets: the key bytes behind the prefix, in every form too.
  if (secret.startsWith('whsec_')) {
    const key = Buffer.from(secret.slice(6), 'base64');
    add(secret.slice(6).replace(/=+$/, ''));
    add(key.toString('hex'));
    add(key.toString('base64url'));
    add(key.toString('latin1'));
  }
  return [...forms];
}

export interface Leak {
  secret: string;
  form: string;
  where: string;
}

/** Where any form of any secret occurs in `texts` (labelled by `label(i)`). */
export function findLeaks(texts: readonly string[], secrets: readonly string[], label = (i: number) => `text #${i}`): Leak[] {
  const leaks: Leak[] = [];
  for (const secret of secrets) {
    for (const form of secretForms(secret)) {
      texts.forEach((text, i) => {
        if (text.includes(form)) leaks.push({ secret: secret.slice(0, 4) + '…', form: form.slice(0, 4) + '…', where: label(i) });
      });
    }
  }
  return leaks;
}
