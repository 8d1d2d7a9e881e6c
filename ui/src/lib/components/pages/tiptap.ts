// The page editor's Tiptap set-up (loaded only with the editor screen):
// headings, lists, links, tables and images, emitting plain HTML the
// server's sanitiser keeps. The console's CSP allows no inline styles, so
// tables are written without the style and colgroup Tiptap adds, and
// Tiptap's own CSS is not injected (app styles cover the editor).
import { Editor } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import { Table, TableCell, TableHeader, TableRow } from '@tiptap/extension-table';
import StarterKit from '@tiptap/starter-kit';

const PlainTable = Table.extend({
  renderHTML({ HTMLAttributes }) {
    const { style: _style, ...rest } = HTMLAttributes as Record<string, unknown>;
    void _style;
    return ['table', rest, ['tbody', 0]];
  },
}).configure({ resizable: false, View: null });

export function makeEditor(element: HTMLElement, content: string, label: string, onchange: () => void): Editor {
  return new Editor({
    element,
    content,
    injectCSS: false,
    extensions: [
      StarterKit.configure({
        heading: { levels: [2, 3, 4] },
        codeBlock: false,
        link: { openOnClick: false, autolink: true, protocols: ['http', 'https', 'mailto'] },
      }),
      Image.configure({ inline: false }),
      PlainTable,
      TableRow,
      TableHeader,
      TableCell,
    ],
    editorProps: { attributes: { 'aria-label': label, role: 'textbox', 'aria-multiline': 'true', class: 'rte-content' } },
    onTransaction: onchange,
  });
}

export type { Editor };
