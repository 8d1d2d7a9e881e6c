// The console's side of a form script: the runner page in a sandboxed frame
// (ui/public/form-sandbox.html, served by internal/console with its own CSP) evaluates the script; this end sends it the
// form's values and applies what it asks (set, lock, hide, message, veto).
// See ui/FORM-SCRIPTS.md for the message API.
import type { Field, Values } from '../lists/model';

export type ScriptHooks = {
  set: (field: string, value: unknown) => void;
  lock: (field: string, locked: boolean) => void;
  hide: (field: string, hidden: boolean) => void;
  message: (text: string, level: string) => void;
};
type Msg = { source?: string; type?: string; field?: string; value?: unknown; locked?: boolean; hidden?: boolean; text?: string; level?: string; id?: number; veto?: string | null };

export const runnerSrc = '/form-sandbox.html';
const vetoWaitMs = 3000;

export class FormScript {
  private frame: HTMLIFrameElement | null = null;
  private pending = new Map<number, (veto: string | null) => void>();
  private seq = 0;
  private ready = false;
  private onMessage = (e: MessageEvent) => this.receive(e);

  constructor(private script: string, private mode: string, private fields: Field[], private values: () => Values, private hooks: ScriptHooks) {}

  /** Attaches to the runner frame (a Svelte attachment); the script starts when the page loaded. */
  attach = (frame: HTMLIFrameElement) => {
    this.frame = frame;
    addEventListener('message', this.onMessage);
    return () => {
      removeEventListener('message', this.onMessage);
      for (const done of this.pending.values()) done(null);
      this.pending.clear();
      this.frame = null;
    };
  };

  private send(msg: object): void {
    // The runner's origin is opaque ("null"), so no target origin can name it;
    // the frame's source is fixed to the runner page.
    this.frame?.contentWindow?.postMessage(msg, '*');
  }

  private receive(e: MessageEvent): void {
    if (!this.frame || e.source !== this.frame.contentWindow) return;
    const m = e.data as Msg;
    if (!m || m.source !== 'core-form-script') return;
    switch (m.type) {
      case 'loaded':
        this.send({
          type: 'init', script: this.script, mode: this.mode, values: this.values(),
          fields: this.fields.map((f) => ({ id: f.id, internalName: f.internal_name, title: f.title, fieldType: f.fieldType, required: f.is_required })),
        });
        break;
      case 'ready': this.ready = true; break;
      case 'set': if (m.field) this.hooks.set(m.field, m.value ?? null); break;
      case 'lock': if (m.field) this.hooks.lock(m.field, m.locked !== false); break;
      case 'hide': if (m.field) this.hooks.hide(m.field, m.hidden !== false); break;
      case 'message': this.hooks.message(m.text ?? '', m.level ?? 'info'); break;
      case 'error': this.hooks.message(m.text ?? '', 'error'); break;
      case 'saveResult': {
        const done = this.pending.get(m.id ?? -1);
        if (done) { this.pending.delete(m.id!); done(m.veto === undefined ? null : m.veto); }
        break;
      }
    }
  }

  /** Tells the script a field changed. */
  changed(field: string, value: unknown): void {
    if (this.ready) this.send({ type: 'change', field, value, values: this.values() });
  }

  /** Asks the script whether the save may go: null lets it, a string is the reason of a veto. */
  beforeSave(): Promise<string | null> {
    if (!this.ready) return Promise.resolve(null);
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.send({ type: 'beforeSave', id, values: this.values() });
      setTimeout(() => { if (this.pending.delete(id)) resolve(null); }, vetoWaitMs);
    });
  }
}
