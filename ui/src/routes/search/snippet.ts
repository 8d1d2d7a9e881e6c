// Search snippets come HTML-escaped with the matches in <mark>…</mark>. They
// are never given to innerHTML: the text is split at the marks and the
// entities decoded, and the console renders the parts as text nodes.
export type Part = { text: string; mark: boolean };

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#34;': '"', '&apos;': "'" };

function decode(s: string): string {
  return s.replace(/&(?:amp|lt|gt|quot|apos|#39|#34);/g, (m) => entities[m] ?? m);
}

export function snippetParts(snippet: string): Part[] {
  const out: Part[] = [];
  const re = /<mark>([\s\S]*?)<\/mark>/g;
  let last = 0;
  for (let m = re.exec(snippet); m; m = re.exec(snippet)) {
    if (m.index > last) out.push({ text: decode(snippet.slice(last, m.index)), mark: false });
    out.push({ text: decode(m[1] ?? ''), mark: true });
    last = m.index + m[0].length;
  }
  if (last < snippet.length) out.push({ text: decode(snippet.slice(last)), mark: false });
  return out;
}
